; Correct IR whose PTX (wrong.ptx) is written wrong by hand: each pair in wrong.rules must be a
; confirmed counterexample.
define float @fadd_f32(float %a, float %b) {
  %r = fadd float %a, %b
  ret float %r
}

; The same sum in a function whose float denormals are flushed (clang -fcuda-flush-denormals-to-zero).
define float @fadd_f32_ps(float %a, float %b) #0 {
  %r = fadd float %a, %b
  ret float %r
}

define double @fadd_f64(double %a, double %b) {
  %r = fadd double %a, %b
  ret double %r
}

; fminf's shape: a < b ? a : b.
define float @min_f32(float %a, float %b) {
  %c = fcmp olt float %a, %b
  %r = select i1 %c, float %a, float %b
  ret float %r
}

; LLVM 14 to 16 pass and return a half in a .b32 (wrong.ptx's fadd_f16_in_b32).
define half @fadd_f16(half %a, half %b) {
  %r = fadd half %a, %b
  ret half %r
}

; A weak cmpxchg, which may fail where the values are equal: not modelled, so a located
; `unsupported`.
define i32 @cas_weak(ptr %p, i32 %c, i32 %n) {
  %r = cmpxchg weak ptr %p, i32 %c, i32 %n monotonic monotonic
  %o = extractvalue { i32, i1 } %r, 0
  ret i32 %o
}

attributes #0 = { "denormal-fp-math-f32"="preserve-sign,preserve-sign" }
