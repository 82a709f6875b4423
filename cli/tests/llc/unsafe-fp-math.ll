; A function's "unsafe-fp-math"="true" (docs/ambiguities.md 185): LLVM 14 to 19 read it as
; leave to contract and to divide with div.approx.f32; LLVM 22 ignores it.
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

define float @mul_add(float %a, float %b, float %c) #0 {
  %m = fmul float %a, %b
  %s = fadd float %m, %c
  ret float %s
}

define float @divide(float %a, float %b) #0 {
  %q = fdiv float %a, %b
  ret float %q
}

attributes #0 = { "unsafe-fp-math"="true" }
