// The H200 campaign's non-.ftz findings, probed wider than the fuzzer's boundary inputs
// (docs/gpu.md, "Findings other than flush-to-zero"): bfe/bfi with position and length
// operands beyond 0..255, abs/neg of NaNs, fma.oob's OOB NaN (every NaN pattern in each
// operand), tanh.approx.{bf16,f16,f32} on every 16-bit input, and cvt.ftz from f32
// subnormals. Prints `semfuzz check` lines (`INSTR OPERAND... RESULT`, hex).
// Build: nvcc -arch=sm_90 -o gpu_findings gpu_findings.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

typedef uint16_t h16;
typedef uint32_t u32;
typedef uint64_t u64;

#define IDX int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
// d = INSTR a
#define UN(NAME, INSTR, TI, CI, TO, CO) \
    __global__ void NAME(const TI* a, TO* d, int n) { IDX TO r; \
        asm volatile(INSTR " %0, %1;" : "=" CO(r) : CI(a[i])); d[i] = r; }
// d = INSTR a, b, c (one type)
#define TER(NAME, INSTR, T, C) \
    __global__ void NAME(const T* a, const T* b, const T* c, T* d, int n) { IDX T r; \
        asm volatile(INSTR " %0, %1, %2, %3;" : "=" C(r) : C(a[i]), C(b[i]), C(c[i])); d[i] = r; }
// bfe: d = INSTR a, b, c with b, c .u32
#define BFE(NAME, INSTR, T, C) \
    __global__ void NAME(const T* a, const u32* b, const u32* c, T* d, int n) { IDX T r; \
        asm volatile(INSTR " %0, %1, %2, %3;" : "=" C(r) : C(a[i]), "r"(b[i]), "r"(c[i])); d[i] = r; }
// bfi: f = INSTR a, b, c, d with c, d .u32
#define BFI(NAME, INSTR, T, C) \
    __global__ void NAME(const T* a, const T* b, const u32* c, const u32* e, T* d, int n) { IDX T r; \
        asm volatile(INSTR " %0, %1, %2, %3, %4;" : "=" C(r) : C(a[i]), C(b[i]), "r"(c[i]), "r"(e[i])); d[i] = r; }

BFE(bfe_u32, "bfe.u32", u32, "r") BFE(bfe_s32, "bfe.s32", u32, "r")
BFE(bfe_u64, "bfe.u64", u64, "l") BFE(bfe_s64, "bfe.s64", u64, "l")
BFI(bfi_b32, "bfi.b32", u32, "r") BFI(bfi_b64, "bfi.b64", u64, "l")

UN(abs_f64, "abs.f64", double, "d", double, "d") UN(neg_f64, "neg.f64", double, "d", double, "d")
UN(abs_f32, "abs.f32", float, "f", float, "f") UN(neg_f32, "neg.f32", float, "f", float, "f")

TER(oob_f16, "fma.rn.oob.f16", h16, "h") TER(oob_relu_f16, "fma.rn.oob.relu.f16", h16, "h")
TER(oob_bf16, "fma.rn.oob.bf16", h16, "h") TER(oob_relu_bf16, "fma.rn.oob.relu.bf16", h16, "h")
TER(oob_f16x2, "fma.rn.oob.f16x2", u32, "r") TER(oob_relu_f16x2, "fma.rn.oob.relu.f16x2", u32, "r")
TER(oob_bf16x2, "fma.rn.oob.bf16x2", u32, "r") TER(oob_relu_bf16x2, "fma.rn.oob.relu.bf16x2", u32, "r")

UN(tanh_bf16, "tanh.approx.bf16", h16, "h", h16, "h") UN(tanh_f16, "tanh.approx.f16", h16, "h", h16, "h")
UN(tanh_f32, "tanh.approx.f32", float, "f", float, "f")

#define CVT16(R) UN(cvt_##R##_ftz_f16, "cvt." #R ".ftz.f16.f32", float, "f", h16, "h") \
    UN(cvt_##R##_ftz_sat_f16, "cvt." #R ".ftz.sat.f16.f32", float, "f", h16, "h") \
    UN(cvt_##R##_f16, "cvt." #R ".f16.f32", float, "f", h16, "h") \
    UN(cvt_##R##_ftz_bf16, "cvt." #R ".ftz.bf16.f32", float, "f", h16, "h") \
    UN(cvt_##R##_bf16, "cvt." #R ".bf16.f32", float, "f", h16, "h")
CVT16(rn) CVT16(rz) CVT16(rm) CVT16(rp)
UN(cvt_ftz_f64, "cvt.ftz.f64.f32", float, "f", double, "d")
UN(cvt_ftz_sat_f64, "cvt.ftz.sat.f64.f32", float, "f", double, "d")

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(2); } } while (0)

template <class T> T* up(const std::vector<T>& v) {
    T* p; CK(cudaMalloc(&p, v.size() * sizeof(T) + 8));
    CK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice)); return p;
}
template <class T> std::vector<T> down(T* p, size_t n) {
    std::vector<T> v(n); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaFree(p)); return v;
}
static unsigned long long bits(h16 x) { return x; }
static unsigned long long bits(u32 x) { return x; }
static unsigned long long bits(u64 x) { return x; }
static unsigned long long bits(float x) { u32 b; memcpy(&b, &x, 4); return b; }
static unsigned long long bits(double x) { u64 b; memcpy(&b, &x, 8); return b; }
template <class T> static void hex(T x) { printf(" 0x%0*llx", (int)(2 * sizeof(T)), bits(x)); }
template <class T> static T from(u64 b) { T x; memcpy(&x, &b, sizeof(T)); return x; }
#define GRID(n) ((n) + 255) / 256, 256

template <class TI, class TO>
void un(const char* name, void (*k)(const TI*, TO*, int), const std::vector<u64>& in) {
    std::vector<TI> a; for (u64 x : in) a.push_back(from<TI>(x));
    int n = a.size(); TI* pa = up(a); TO* pd; CK(cudaMalloc(&pd, n * sizeof(TO)));
    k<<<GRID(n)>>>(pa, pd, n); CK(cudaGetLastError());
    std::vector<TO> d = down(pd, n); cudaFree(pa);
    for (int i = 0; i < n; i++) { printf("%s", name); hex(a[i]); hex(d[i]); printf("\n"); }
}
template <class T>
void ter(const char* name, void (*k)(const T*, const T*, const T*, T*, int),
         const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c) {
    int n = a.size(); T *pa = up(a), *pb = up(b), *pc = up(c), *pd; CK(cudaMalloc(&pd, n * sizeof(T)));
    k<<<GRID(n)>>>(pa, pb, pc, pd, n); CK(cudaGetLastError());
    std::vector<T> d = down(pd, n); cudaFree(pa); cudaFree(pb); cudaFree(pc);
    for (int i = 0; i < n; i++) { printf("%s", name); hex(a[i]); hex(b[i]); hex(c[i]); hex(d[i]); printf("\n"); }
}

static const u32 POS[] = {0, 1, 7, 16, 31, 32, 33, 48, 63, 64, 65, 100, 127, 128, 129, 200, 254,
                          255, 256, 257, 300, 511, 512, 0x1000, 0x10001, 0x7fffffff, 0x80000000,
                          0xfffffffe, 0xffffffff};

template <class T>
void bfe(const char* name, void (*k)(const T*, const u32*, const u32*, T*, int), std::vector<T> as) {
    std::vector<T> a; std::vector<u32> b, c;
    for (T x : as) for (u32 p : POS) for (u32 l : POS) { a.push_back(x); b.push_back(p); c.push_back(l); }
    int n = a.size(); T *pa = up(a), *pd; u32 *pb = up(b), *pc = up(c); CK(cudaMalloc(&pd, n * sizeof(T)));
    k<<<GRID(n)>>>(pa, pb, pc, pd, n); CK(cudaGetLastError());
    std::vector<T> d = down(pd, n);
    for (int i = 0; i < n; i++) { printf("%s", name); hex(a[i]); hex(b[i]); hex(c[i]); hex(d[i]); printf("\n"); }
}
template <class T>
void bfi(const char* name, void (*k)(const T*, const T*, const u32*, const u32*, T*, int), T a0, T b0) {
    std::vector<T> a, b; std::vector<u32> c, e;
    for (u32 p : POS) for (u32 l : POS) { a.push_back(a0); b.push_back(b0); c.push_back(p); e.push_back(l); }
    int n = a.size(); T *pa = up(a), *pb = up(b), *pd; u32 *pc = up(c), *pe = up(e);
    CK(cudaMalloc(&pd, n * sizeof(T)));
    k<<<GRID(n)>>>(pa, pb, pc, pe, pd, n); CK(cudaGetLastError());
    std::vector<T> d = down(pd, n);
    for (int i = 0; i < n; i++) { printf("%s", name); hex(a[i]); hex(b[i]); hex(c[i]); hex(e[i]); hex(d[i]); printf("\n"); }
}

// Every NaN of a 16-bit format (exponent bits `em`), in each operand of fma.oob, the others 1.0;
// then the lane pairs of the x2 form with a few of them.
void oob(const char* s, const char* r, const char* x2, const char* rx2,
         void (*k)(const h16*, const h16*, const h16*, h16*, int),
         void (*kr)(const h16*, const h16*, const h16*, h16*, int),
         void (*k2)(const u32*, const u32*, const u32*, u32*, int),
         void (*kr2)(const u32*, const u32*, const u32*, u32*, int), h16 em, h16 one) {
    std::vector<h16> a, b, c;
    for (u32 v = 0; v < 0x10000; v++) {
        if ((v & em) != em || (v & ~0x8000u & ~(u32)em) == 0) continue;
        a.push_back(v); b.push_back(one); c.push_back(one);
        a.push_back(one); b.push_back(v); c.push_back(one);
        a.push_back(one); b.push_back(one); c.push_back(v);
    }
    // A NaN an operation makes (0 * inf) and two OOB candidates at once.
    h16 inf = em, cand[] = {0x7ff7, 0xfff7, 0x7fff, 0xffff, 0x7ff6, 0x7ff8, 0x7fbf, 0x7fc0};
    a.push_back(0); b.push_back(inf); c.push_back(one);
    for (h16 u : cand) for (h16 w : cand) { a.push_back(u); b.push_back(w); c.push_back(one);
        a.push_back(one); b.push_back(u); c.push_back(w); }
    ter(s, k, a, b, c); ter(r, kr, a, b, c);
    std::vector<u32> A, B, C; u32 o2 = (u32)one << 16 | one;
    for (h16 u : cand) {
        u32 hi = (u32)u << 16 | one, lo = (u32)one << 16 | u;
        for (u32 v : {hi, lo}) { A.push_back(v); B.push_back(o2); C.push_back(o2);
            A.push_back(o2); B.push_back(v); C.push_back(o2); A.push_back(o2); B.push_back(o2); C.push_back(v); }
    }
    ter(x2, k2, A, B, C); ter(rx2, kr2, A, B, C);
}

int main() {
    bfe("bfe.u32", bfe_u32, std::vector<u32>{0x89abcdefu, 0x12345678u});
    bfe("bfe.s32", bfe_s32, std::vector<u32>{0x89abcdefu, 0x12345678u});
    bfe("bfe.u64", bfe_u64, std::vector<u64>{0x89abcdef01234567ull, 0x0123456789abcdefull});
    bfe("bfe.s64", bfe_s64, std::vector<u64>{0x89abcdef01234567ull, 0x0123456789abcdefull});
    bfi("bfi.b32", bfi_b32, 0x89abcdefu, 0x55555555u);
    bfi("bfi.b64", bfi_b64, (u64)0x89abcdef01234567ull, (u64)0x5555555555555555ull);

    std::vector<u64> n64 = {0x7ff4000000000000ull, 0xfff4000000000000ull, 0x7ff0000000000001ull,
        0xfff0000000000001ull, 0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000000001ull,
        0xfff8000000000001ull, 0x7fffffffffffffffull, 0xffffffffffffffffull, 0xbff0000000000000ull};
    std::vector<u64> n32 = {0x7fa00000, 0xffa00000, 0x7f800001, 0xff800001, 0x7fc00000, 0xffc00000,
        0x7fc00001, 0xffc00001, 0x7fffffff, 0xffffffff, 0xbf800000};
    un("abs.f64", abs_f64, n64); un("neg.f64", neg_f64, n64);
    un("abs.f32", abs_f32, n32); un("neg.f32", neg_f32, n32);

    oob("fma.rn.oob.f16", "fma.rn.oob.relu.f16", "fma.rn.oob.f16x2", "fma.rn.oob.relu.f16x2",
        oob_f16, oob_relu_f16, oob_f16x2, oob_relu_f16x2, 0x7c00, 0x3c00);
    oob("fma.rn.oob.bf16", "fma.rn.oob.relu.bf16", "fma.rn.oob.bf16x2", "fma.rn.oob.relu.bf16x2",
        oob_bf16, oob_relu_bf16, oob_bf16x2, oob_relu_bf16x2, 0x7f80, 0x3f80);

    std::vector<u64> all16, wide;
    for (u64 v = 0; v < 0x10000; v++) { all16.push_back(v); wide.push_back(v << 16); }
    un("tanh.approx.bf16", tanh_bf16, all16); un("tanh.approx.f16", tanh_f16, all16);
    un("tanh.approx.f32", tanh_f32, wide);

    std::vector<u64> sub = {0x00000001, 0x00000002, 0x00001000, 0x00400000, 0x007fffff, 0x80000001,
        0x80000002, 0x80001000, 0x80400000, 0x807fffff, 0x33000000, 0x33000001, 0xb3000001};
#define RUN16(R) un("cvt." #R ".ftz.f16.f32", cvt_##R##_ftz_f16, sub); \
    un("cvt." #R ".ftz.sat.f16.f32", cvt_##R##_ftz_sat_f16, sub); \
    un("cvt." #R ".f16.f32", cvt_##R##_f16, sub); \
    un("cvt." #R ".ftz.bf16.f32", cvt_##R##_ftz_bf16, sub); \
    un("cvt." #R ".bf16.f32", cvt_##R##_bf16, sub);
    RUN16(rn) RUN16(rz) RUN16(rm) RUN16(rp)
    un("cvt.ftz.f64.f32", cvt_ftz_f64, sub); un("cvt.ftz.sat.f64.f32", cvt_ftz_sat_f64, sub);
    return 0;
}
