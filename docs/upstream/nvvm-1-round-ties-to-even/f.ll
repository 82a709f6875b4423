target datalayout = "e-p:64:64:64-p6:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-f128:128:128-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64-a:8:8"
target triple = "nvptx64-nvidia-cuda"
declare float @llvm.round.f32(float)

define float @f(float %a) {
  %r = call float @llvm.round.f32(float %a)
  ret float %r
}
!nvvmir.version = !{!0}
!0 = !{i32 2, i32 0}
