// nvcc's fmodf on the GPU against the host's exact fmodf (C's fmod is exact, so any difference is
// the device's): N random (a, b) pairs of every kind (normal, subnormal, zero, infinity, NaN),
// half of them with |a| and |b| near each other and half far apart, printing the count of
// differences and the first few. docs/nvcc.md: validate-nvcc's fmodf counterexample rests on a
// pick of rcp.approx the ISA allows; this measures what the hardware computes.
//   nvcc -arch=sm_90 -o sweep nvcc_fmodf_sweep.cu && ./sweep 100000000
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>

__global__ void dev_fmod(const uint32_t *a, const uint32_t *b, uint32_t *r, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        float x, y, z;
        memcpy(&x, &a[i], 4);
        memcpy(&y, &b[i], 4);
        z = fmodf(x, y);
        memcpy(&r[i], &z, 4);
    }
}

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t next() {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (uint32_t)(state >> 16);
}
static uint32_t pick(uint32_t bits) {
    switch (bits & 7) {
    case 0: return next() & 0x807fffffu;                 // subnormal or zero
    case 1: return (next() & 0x80000000u) | 0x7f800000u; // infinity
    default: return next();                               // anything, NaNs included
    }
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 10000000;
    const size_t chunk = 1 << 24;
    uint32_t *a = (uint32_t *)malloc(chunk * 4), *b = (uint32_t *)malloc(chunk * 4),
             *r = (uint32_t *)malloc(chunk * 4);
    uint32_t *da, *db, *dr;
    cudaMalloc(&da, chunk * 4); cudaMalloc(&db, chunk * 4); cudaMalloc(&dr, chunk * 4);
    size_t bad = 0, done = 0, shown = 0;
    while (done < n) {
        size_t m = n - done < chunk ? n - done : chunk;
        for (size_t i = 0; i < m; i++) {
            a[i] = pick(next());
            // Half the pairs: b's exponent within a few of a's (the loop runs a few times).
            b[i] = (i & 1) ? (a[i] & 0xff800000u) ^ (next() & 0x83ffffffu) : pick(next());
        }
        cudaMemcpy(da, a, m * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, m * 4, cudaMemcpyHostToDevice);
        dev_fmod<<<(m + 255) / 256, 256>>>(da, db, dr, m);
        cudaMemcpy(r, dr, m * 4, cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < m; i++) {
            float x, y, z;
            memcpy(&x, &a[i], 4); memcpy(&y, &b[i], 4);
            z = fmodf(x, y);
            uint32_t want; memcpy(&want, &z, 4);
            bool both_nan = std::isnan(z) && ((r[i] & 0x7fffffffu) > 0x7f800000u);
            if (r[i] != want && !both_nan) {
                bad++;
                if (shown++ < 10) printf("fmodf 0x%08x 0x%08x: device 0x%08x, exact 0x%08x\n", a[i], b[i], r[i], want);
            }
        }
        done += m;
    }
    printf("%zu pairs, %zu differ from the exact fmodf\n", done, bad);
    return 0;
}
