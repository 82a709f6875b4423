// The CUDA C functions `semfuzz validate-nvcc` compiles with nvcc and judges against the CUDA
// Math API's documented semantics (reference.ll; docs/nvcc.md). One function per intrinsic,
// `extern "C"` so the PTX function has the name written here.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" {
__device__ float fadd_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ float fsub_rz(float a, float b) { return __fsub_rz(a, b); }
__device__ float fmul_rz(float a, float b) { return __fmul_rz(a, b); }
__device__ float fmaf_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }
__device__ float fdiv_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ float fsqrt_rd(float a) { return __fsqrt_rd(a); }
__device__ float frcp_ru(float a) { return __frcp_ru(a); }
__device__ float fdividef_f32(float a, float b) { return __fdividef(a, b); }
__device__ float saturatef(float a) { return __saturatef(a); }
__device__ float fmin_f32(float a, float b) { return fminf(a, b); }
__device__ float fmod_f32(float a, float b) { return fmodf(a, b); }
__device__ float divide(float a, float b) { return a / b; }
__device__ __half hadd(__half a, __half b) { return __hadd(a, b); }
__device__ __half hfma(__half a, __half b, __half c) { return __hfma(a, b, c); }
__device__ __half float2half_rn(float a) { return __float2half_rn(a); }
__device__ __nv_bfloat16 float2bfloat16_rn(float a) { return __float2bfloat16_rn(a); }
}
