; LLVM IR for `semfuzz validate-llc`'s tests and README example: what clang writes for
; `a + b` on float, `a * b` on double and `a + b` on __nv_bfloat16 (without fast-math).
define float @fadd_f32(float %a, float %b) {
  %r = fadd float %a, %b
  ret float %r
}

define double @fmul_f64(double %a, double %b) {
  %r = fmul double %a, %b
  ret double %r
}

define bfloat @fadd_bf16(bfloat %a, bfloat %b) {
  %r = fadd bfloat %a, %b
  ret bfloat %r
}
