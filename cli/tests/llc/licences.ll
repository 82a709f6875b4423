; llc flags that license results the IR alone does not allow (docs/ambiguities.md 105, 177):
; `validate-llc --run-lines` passes them to the compiler and the IR reader reads their licence
; off the same flags. Without a licence (the second line: LLVM 22 knows no
; -nvptx-allow-ftz-atomics=false and flushes anyway) the flushing atom.add.f32 is a
; counterexample, FuzzX NVPTX #033.
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_70 -nvptx-allow-ftz-atomics | FileCheck %s
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_70 -nvptx-allow-ftz-atomics=false | FileCheck %s
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_70 -nvptx-prec-divf32=0 -nvptx-prec-sqrtf32=0 | FileCheck %s

define float @add(ptr addrspace(1) %p, float %v) {
  %o = atomicrmw fadd ptr addrspace(1) %p, float %v monotonic
  ret float %o
}

define float @div(float %a, float %b) {
  %q = fdiv float %a, %b
  ret float %q
}

define float @root(float %a) {
  %r = call float @llvm.sqrt.f32(float %a)
  ret float %r
}

declare float @llvm.sqrt.f32(float)
