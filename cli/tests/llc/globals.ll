; Module variables a function may write (docs/ambiguities.md 184): an IR `global` that is not
; `constant` and the `.global` LLVM writes for it are one block, its contents when the function
; starts any bytes (other code may have written it), its final contents results.
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

@counter = addrspace(1) global i32 0, align 4
@table = addrspace(1) global [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 4
@g.x = internal addrspace(1) global i64 5, align 8
@ext = external addrspace(1) global i32, align 4
@gen = global i32 3, align 4

; Returns the old count and adds %d to it.
define i32 @bump(i32 %d) {
  %v = load i32, ptr addrspace(1) @counter, align 4
  %n = add i32 %v, %d
  store i32 %n, ptr addrspace(1) @counter, align 4
  ret i32 %v
}

; Scales one element of a table that is written, so not read through its initializer.
define void @scale(i32 %i, float %s) {
  %k = and i32 %i, 3
  %p = getelementptr inbounds [4 x float], ptr addrspace(1) @table, i32 0, i32 %k
  %v = load float, ptr addrspace(1) %p, align 4
  %m = fmul float %v, %s
  store float %m, ptr addrspace(1) %p, align 4
  ret void
}

; An internal variable (its PTX name `g_$_x`), an external one and one in the generic space.
define i64 @mix(i64 %a) {
  %v = load i64, ptr addrspace(1) @g.x, align 8
  %e = load i32, ptr addrspace(1) @ext, align 4
  %g = load i32, ptr @gen, align 4
  %s = add i32 %e, %g
  %z = zext i32 %s to i64
  %r = add i64 %v, %z
  store i64 %a, ptr addrspace(1) @g.x
  ret i64 %r
}
