// The counterexamples `semfuzz validate-nvcc` found (docs/nvcc.md), run on a GPU: fmodf at
// inputs where nvcc's fmodf expansion, read with the PTX ISA's latitude for rcp.approx and
// div.approx, may return a wrong remainder; and __fdiv_rn at a quotient that rounds to the
// smallest normal, which -ftz=true flushes. Build twice and run both:
//   nvcc -arch=sm_90 -o nvcc_catalogue nvcc_catalogue.cu && ./nvcc_catalogue
//   nvcc -arch=sm_90 -ftz=true -o nvcc_catalogue_ftz nvcc_catalogue.cu && ./nvcc_catalogue_ftz
// Each line: the function, its inputs and the GPU's result, in hex.
#include <cstdio>
#include <cstring>

__global__ void run(const unsigned *in, unsigned *out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float a, b, r;
    memcpy(&a, &in[3 * i + 1], 4);
    memcpy(&b, &in[3 * i + 2], 4);
    r = in[3 * i] == 0 ? fmodf(a, b) : __fdiv_rn(a, b);
    memcpy(&out[i], &r, 4);
}

int main() {
    // {0: fmodf, 1: __fdiv_rn}, a, b
    const unsigned cases[] = {
        0, 0x80800000u, 0x00000001u, 0, 0x00800000u, 0x00000001u, 0, 0x80800000u, 0x00000003u,
        0, 0x3f800000u, 0x00000001u, 0, 0x7f7fffffu, 0x00000001u, 0, 0x40490fdbu, 0x3f800000u,
        0, 0x7f7fffffu, 0xc53ca3bcu, 0, 0x00ffffffu, 0x00000001u,
        1, 0x86ffffffu, 0xc6000000u, 1, 0x3f800000u, 0x40400000u,
    };
    const int n = sizeof cases / sizeof cases[0] / 3;
    unsigned *din, *dout, out[64];
    cudaMalloc(&din, sizeof cases);
    cudaMalloc(&dout, sizeof out);
    cudaMemcpy(din, cases, sizeof cases, cudaMemcpyHostToDevice);
    run<<<1, 64>>>(din, dout, n);
    cudaMemcpy(out, dout, 4 * n, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        printf("%s 0x%08x 0x%08x -> 0x%08x\n", cases[3 * i] == 0 ? "fmodf" : "__fdiv_rn",
               cases[3 * i + 1], cases[3 * i + 2], out[i]);
    return 0;
}
