; bfloat division, and fma, as the catalogue's fdiv_bf16 and fma_bf16 (bf16.rules).

define bfloat @fdiv_bf16(bfloat %a, bfloat %b) {
  %r = fdiv bfloat %a, %b
  ret bfloat %r
}

define bfloat @fma_bf16(bfloat %a, bfloat %b, bfloat %c) {
  %r = call bfloat @llvm.fma.bf16(bfloat %a, bfloat %b, bfloat %c)
  ret bfloat %r
}

declare bfloat @llvm.fma.bf16(bfloat, bfloat, bfloat)
