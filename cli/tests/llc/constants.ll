; Constant tables a function reads (docs/llc-validation.md, "Memory"): LLVM writes an IR
; `constant` as an initialised `.global` variable of the PTX.
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

@scale = internal addrspace(1) constant [4 x float] [float 1.0, float 2.0, float 0.5, float 4.0], align 4
@steps = internal addrspace(1) constant [4 x i16] [i16 7, i16 -3, i16 300, i16 -32768], align 2
@zeros = internal addrspace(1) constant [2 x double] zeroinitializer, align 8

; A table indexed by a value known only at run time.
define float @lookup(float %x, i32 %i) {
  %idx = and i32 %i, 3
  %p = getelementptr inbounds [4 x float], ptr addrspace(1) @scale, i32 0, i32 %idx
  %v = load float, ptr addrspace(1) %p, align 4
  %r = fmul float %x, %v
  ret float %r
}

; 16-bit elements, sign-extended after the load.
define i32 @step(i32 %i) {
  %idx = and i32 %i, 3
  %p = getelementptr inbounds [4 x i16], ptr addrspace(1) @steps, i32 0, i32 %idx
  %v = load i16, ptr addrspace(1) %p, align 2
  %w = sext i16 %v to i32
  ret i32 %w
}

; A zero-initialised table.
define double @zero(i32 %i) {
  %idx = and i32 %i, 1
  %p = getelementptr inbounds [2 x double], ptr addrspace(1) @zeros, i32 0, i32 %idx
  %v = load double, ptr addrspace(1) %p, align 8
  ret double %v
}
