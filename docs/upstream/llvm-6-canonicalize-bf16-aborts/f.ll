declare bfloat @llvm.canonicalize.bf16(bfloat)

define bfloat @f(bfloat %a) {
  %r = call bfloat @llvm.canonicalize.bf16(bfloat %a)
  ret bfloat %r
}
