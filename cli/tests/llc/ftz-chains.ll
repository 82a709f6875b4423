; Flush-to-zero chains and selects of values LLVM turns into selects of addresses
; (docs/ambiguities.md 182, docs/llc-validation.md "Proof by structure"): under
; preserve-sign, llc writes each operation as its `.ftz` instruction, and a `select` of two
; quotients by one divisor as one division of the selected parameter.
; RUN: llc < %s -mcpu=sm_80 | FileCheck %s
target triple = "nvptx64-nvidia-cuda"

declare float @llvm.sqrt.f32(float)

define float @sqrt_div_ftz(float %a, float %b) #0 {
  %s = call float @llvm.sqrt.f32(float %a)
  %q = fdiv float %s, %b
  ret float %q
}

define float @mul_ftz(float %a, float %b) #0 {
  %p = fmul float %a, %b
  ret float %p
}

define float @fma_ftz(float %a, float %b, float %c) #0 {
  %p = call float @llvm.fma.f32(float %a, float %b, float %c)
  ret float %p
}

define float @div_selected(i1 %pred, float %a, float %b, float %d) {
  %x = fdiv float %a, %d
  %y = fdiv float %b, %d
  %w = select i1 %pred, float %x, float %y
  ret float %w
}

define float @div_selected_ftz(i1 %pred, float %a, float %b, float %d) #0 {
  %x = fdiv arcp float %a, %d
  %y = fdiv arcp float %b, %d
  %w = select i1 %pred, float %x, float %y
  ret float %w
}

declare float @llvm.fma.f32(float, float, float)

attributes #0 = { "denormal-fp-math-f32"="preserve-sign,preserve-sign" }
