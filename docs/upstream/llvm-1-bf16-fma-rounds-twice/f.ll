declare bfloat @llvm.fma.bf16(bfloat, bfloat, bfloat)

define bfloat @f(bfloat %a, bfloat %b, bfloat %c) {
  %r = call bfloat @llvm.fma.bf16(bfloat %a, bfloat %b, bfloat %c)
  ret bfloat %r
}
