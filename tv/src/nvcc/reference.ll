; The documented semantics of each function of catalogue.cu, as LLVM IR (docs/nvcc.md says
; where each comes from): `validate-nvcc` proves nvcc's PTX for each refines it. `{FTZ}` is
; `.ftz` under `-ftz=true` (and `-use_fast_math`), where #0 carries the preserve-sign f32 mode
; (nvcc --help: "'--ftz=true' flushes denormal values to zero" for single precision); `{DIVIDE}`
; is `a / b` under the configuration's `-prec-div`.

; "__fadd_rn: Add two floating-point values in round-to-nearest-even mode."
define float @fadd_rn(float %a, float %b) #0 {
  %r = fadd float %a, %b
  ret float %r
}

; "__fsub_rz: Subtract two floating-point values in round-towards-zero mode": a + (-b), rounded
; once towards zero.
define float @fsub_rz(float %a, float %b) #0 {
  %nb = fneg float %b
  %r = call float @llvm.nvvm.add.rz{FTZ}.f(float %a, float %nb)
  ret float %r
}

; "__fmul_rz: Multiply two floating-point values in round-towards-zero mode."
define float @fmul_rz(float %a, float %b) #0 {
  %r = call float @llvm.nvvm.mul.rz{FTZ}.f(float %a, float %b)
  ret float %r
}

; "__fmaf_rz: Compute x × y + z as a single operation, in round-towards-zero mode."
define float @fmaf_rz(float %a, float %b, float %c) #0 {
  %r = call float @llvm.nvvm.fma.rz{FTZ}.f(float %a, float %b, float %c)
  ret float %r
}

; "__fdiv_rn: Divide two floating-point values in round-to-nearest-even mode."
define float @fdiv_rn(float %a, float %b) #0 {
  %r = fdiv float %a, %b
  ret float %r
}

; "__fsqrt_rd: Compute √x in round-down mode."
define float @fsqrt_rd(float %a) #0 {
  %r = call float @llvm.nvvm.sqrt.rm{FTZ}.f(float %a)
  ret float %r
}

; "__frcp_ru: Compute 1/x in round-up mode."
define float @frcp_ru(float %a) #0 {
  %r = call float @llvm.nvvm.rcp.rp{FTZ}.f(float %a)
  ret float %r
}

; "__fdividef: Calculate the fast approximate division of the input arguments", with the
; Programming Guide's 2 ulp for |y| in [2^-126, 2^126]: PTX div.approx.f32's bound.
define float @fdividef_f32(float %a, float %b) #0 {
  %r = call float @llvm.nvvm.div.approx{FTZ}.f(float %a, float %b)
  ret float %r
}

; "__saturatef: Clamp the input argument to [+0.0, 1.0]", NaN to +0.0.
define float @saturatef(float %a) #0 {
  %r = call float @llvm.nvvm.saturate{FTZ}.f(float %a)
  ret float %r
}

; "fminf: Determine the minimum numeric value of the arguments" (C's fmin: a NaN argument is
; ignored), LLVM's minnum.
define float @fmin_f32(float %a, float %b) #0 {
  %r = call float @llvm.minnum.f32(float %a, float %b)
  ret float %r
}

; "fmodf: Calculate the floating-point remainder of x / y": C's fmod, exact, which is frem.
define float @fmod_f32(float %a, float %b) #0 {
  %r = frem float %a, %b
  ret float %r
}

; `a / b`: IEEE division under -prec-div=true; "the fast approximation mode" (PTX div.full.f32,
; 2 ulp over the full range) under -prec-div=false; __fdividef under -use_fast_math.
define float @divide(float %a, float %b) #0 {
{DIVIDE}
  ret float %r
}

; "__hadd: Performs half addition in round-to-nearest-even mode."
define half @hadd(half %a, half %b) {
  %r = fadd half %a, %b
  ret half %r
}

; "__hfma: Performs half fused multiply-add in round-to-nearest-even mode."
define half @hfma(half %a, half %b, half %c) {
  %r = call half @llvm.fma.f16(half %a, half %b, half %c)
  ret half %r
}

; "__float2half_rn: Converts float number to half precision in round-to-nearest-even mode."
define half @float2half_rn(float %a) {
  %r = fptrunc float %a to half
  ret half %r
}

; "__float2bfloat16_rn: Converts float number to nv_bfloat16 precision in round-to-nearest-even
; mode."
define bfloat @float2bfloat16_rn(float %a) {
  %r = fptrunc float %a to bfloat
  ret bfloat %r
}

declare float @llvm.nvvm.add.rz{FTZ}.f(float, float)
declare float @llvm.nvvm.mul.rz{FTZ}.f(float, float)
declare float @llvm.nvvm.fma.rz{FTZ}.f(float, float, float)
declare float @llvm.nvvm.sqrt.rm{FTZ}.f(float)
declare float @llvm.nvvm.rcp.rp{FTZ}.f(float)
declare float @llvm.nvvm.div.approx{FTZ}.f(float, float)
declare float @llvm.nvvm.saturate{FTZ}.f(float)
declare float @llvm.nvvm.div.full(float, float)
declare float @llvm.minnum.f32(float, float)
declare half @llvm.fma.f16(half, half, half)

attributes #0 = { {ATTRS} }
