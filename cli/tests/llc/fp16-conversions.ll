; llvm.convert.to.fp16 and llvm.convert.from.fp16 (LangRef): fptrunc to half and fpext from
; half, through an i16.
define i16 @to_half(float %x) {
  %h = call i16 @llvm.convert.to.fp16.f32(float %x)
  ret i16 %h
}

define double @from_half(i16 %h) {
  %x = call double @llvm.convert.from.fp16.f64(i16 %h)
  ret double %x
}

declare i16 @llvm.convert.to.fp16.f32(float)
declare double @llvm.convert.from.fp16.f64(i16)
