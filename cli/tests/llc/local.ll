; Functions whose locals llc keeps in a `.local` depot (docs/llc-validation.md, "Memory").
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
; RUN: llc < %s -O0 -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

; An array indexed by a value only known at run time: llc stores it to the depot.
define float @pick(float %a, float %b, float %c, i32 %i) {
  %arr = alloca [4 x float], align 4
  %p1 = getelementptr inbounds [4 x float], ptr %arr, i32 0, i32 1
  %p2 = getelementptr inbounds [4 x float], ptr %arr, i32 0, i32 2
  %p3 = getelementptr inbounds [4 x float], ptr %arr, i32 0, i32 3
  store float %a, ptr %arr, align 4
  store float %b, ptr %p1, align 4
  store float %c, ptr %p2, align 4
  store float 1.0, ptr %p3, align 4
  %idx = and i32 %i, 3
  %q = getelementptr inbounds [4 x float], ptr %arr, i32 0, i32 %idx
  %v = load float, ptr %q, align 4
  %r = fadd float %v, 1.0
  ret float %r
}

; Only the first element is written: reading any other is reading uninitialised memory
; (poison), where the PTX may return anything.
define i32 @first_only(i32 %x, i32 %i) {
  %arr = alloca [4 x i32], align 4
  store i32 %x, ptr %arr, align 4
  %idx = and i32 %i, 3
  %q = getelementptr inbounds [4 x i32], ptr %arr, i32 0, i32 %idx
  %v = load i32, ptr %q, align 4
  ret i32 %v
}

; A local copy of what a pointer parameter points to, read back at a computed index.
define void @reverse_pair(ptr %p, i32 %i) {
  %tmp = alloca [2 x i32], align 8
  %v0 = load i32, ptr %p, align 4
  %p1 = getelementptr inbounds i32, ptr %p, i32 1
  %v1 = load i32, ptr %p1, align 4
  %t1 = getelementptr inbounds [2 x i32], ptr %tmp, i32 0, i32 1
  store i32 %v0, ptr %t1, align 4
  store i32 %v1, ptr %tmp, align 8
  %idx = and i32 %i, 1
  %q = getelementptr inbounds [2 x i32], ptr %tmp, i32 0, i32 %idx
  %w = load i32, ptr %q, align 4
  store i32 %w, ptr %p, align 4
  ret void
}

; A lane at an index known only at run time: at -O0 llc spills the vector to its depot and
; adds the index with `or.b64`, the index a 64-bit parameter (so a pointer candidate) too.
define float @lane(<2 x float> %a, i64 %idx) {
  %e = extractelement <2 x float> %a, i64 %idx
  ret float %e
}
