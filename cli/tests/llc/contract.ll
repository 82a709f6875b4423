; LangRef `contract`: an fadd or fsub and the fmul defining its operand, both with the flag,
; may be fused into one fma (contract.rules poses each against contract.ptx).

define float @fused(float %a, float %b, float %c) {
  %p = fmul contract float %a, %b
  %s = fadd contract float %p, %c
  ret float %s
}

define float @fused_sub(float %a, float %b, float %c) {
  %p = fmul contract float %a, %b
  %s = fsub contract float %c, %p
  ret float %s
}

define float @unflagged(float %a, float %b, float %c) {
  %p = fmul float %a, %b
  %s = fadd float %p, %c
  ret float %s
}

define float @add_only(float %a, float %b, float %c) {
  %p = fmul float %a, %b
  %s = fadd contract float %p, %c
  ret float %s
}
