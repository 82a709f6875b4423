declare half @llvm.canonicalize.f16(half)

define half @f(half %a) {
  %r = call half @llvm.canonicalize.f16(half %a)
  ret half %r
}
