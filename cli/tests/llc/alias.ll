; Pointer arguments that may overlap (`--may-alias`; docs/llc-validation.md, "Memory"):
; llc keeps a load after a store through another pointer unless a `noalias` says it may not.
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

; The second load of %p must see the store through %q where the two are the same word.
define i32 @reload(ptr %p, ptr %q) {
  %a = load i32, ptr %p, align 4
  store i32 7, ptr %q, align 4
  %b = load i32, ptr %p, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

; With %p `noalias`, llc may reuse the first load.
define i32 @reload_noalias(ptr noalias %p, ptr %q) {
  %a = load i32, ptr %p, align 4
  store i32 7, ptr %q, align 4
  %b = load i32, ptr %p, align 4
  %s = add i32 %a, %b
  ret i32 %s
}

; Both words are read before either is written: right for any overlap of %d and %s.
define void @copy2(ptr %d, ptr %s) {
  %s1 = getelementptr inbounds i32, ptr %s, i64 1
  %d1 = getelementptr inbounds i32, ptr %d, i64 1
  %a = load i32, ptr %s, align 4
  %b = load i32, ptr %s1, align 4
  store i32 %a, ptr %d, align 4
  store i32 %b, ptr %d1, align 4
  ret void
}
