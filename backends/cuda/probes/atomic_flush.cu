// What the GPU's floating-point atomics do with subnormals and NaNs, per state space: the
// facts semfuzz's atomics specs (issue 28 item 6) and FuzzX NVPTX #033 rest on. The PTX ISA
// (9.7.13.5, `atom`) says "atom.add.f32 on global memory flushes subnormal inputs and results
// to sign-preserving zero ... atom.add.f32 on shared memory supports subnormal inputs and
// results and doesn't flush them to zero"; generic addresses are not mentioned.
//
// Build and run on a machine with an NVIDIA GPU (backends/cuda/README.md, "Probes"):
//   nvcc -arch=sm_90 -o atomic_flush atomic_flush.cu && ./atomic_flush
// Prints one line per case: the instruction, the memory's old value, the operand, the value
// the memory holds afterwards and the old value the atom returned, all as hex bits.
#include <cstdio>
#include <cstdint>
#include <cstring>

struct Case { const char *what; uint64_t old_bits, operand; };

// Each kernel runs one atomic in one thread on one word and reports (new memory, returned old).
#define ATOM_KERNEL(NAME, T, ASM_T, SPACE_DECL, ADDR, INSTR)                                   \
    __global__ void NAME(T *global_word, T operand, T *out) {                                    \
        SPACE_DECL                                                                               \
        T old;                                                                                   \
        asm volatile(INSTR : "=" ASM_T(old) : "l"(ADDR), ASM_T(operand) : "memory");              \
        __syncthreads();                                                                         \
        out[0] = *(ADDR);                                                                        \
        out[1] = old;                                                                            \
    }

#define SHARED_COPY(T) __shared__ T word; word = *global_word; __syncthreads();
#define NOTHING

ATOM_KERNEL(add_f32_global, uint32_t, "r", NOTHING, global_word,
            "atom.global.add.f32 %0, [%1], %2;")
ATOM_KERNEL(add_f32_shared, uint32_t, "r", SHARED_COPY(uint32_t), &word,
            "{ .reg .u64 s; cvta.to.shared.u64 s, %1; atom.shared.add.f32 %0, [s], %2; }")
ATOM_KERNEL(add_f32_generic_global, uint32_t, "r", NOTHING, global_word,
            "atom.add.f32 %0, [%1], %2;")
ATOM_KERNEL(add_f32_generic_shared, uint32_t, "r", SHARED_COPY(uint32_t), &word,
            "atom.add.f32 %0, [%1], %2;")
ATOM_KERNEL(add_f64_global, uint64_t, "l", NOTHING, global_word,
            "atom.global.add.f64 %0, [%1], %2;")
ATOM_KERNEL(add_noftz_f16_global, uint16_t, "h", NOTHING, global_word,
            "atom.global.add.noftz.f16 %0, [%1], %2;")
ATOM_KERNEL(add_noftz_bf16_global, uint16_t, "h", NOTHING, global_word,
            "atom.global.add.noftz.bf16 %0, [%1], %2;")

// red has no destination: the returned old value is reported as 0.
__global__ void red_add_f32_global(uint32_t *global_word, uint32_t operand, uint32_t *out) {
    asm volatile("red.global.add.f32 [%0], %1;" : : "l"(global_word), "r"(operand) : "memory");
    __syncthreads();
    out[0] = *global_word;
    out[1] = 0;
}

template <typename T>
using Kernel = void (*)(T *, T, T *);

template <typename T>
static void run(const char *instr, Kernel<T> kernel, const Case *cases, int n) {
    T *word, *out;
    cudaMalloc(&word, sizeof(T));
    cudaMalloc(&out, 2 * sizeof(T));
    for (int i = 0; i < n; i++) {
        T old = (T)cases[i].old_bits, result[2];
        cudaMemcpy(word, &old, sizeof(T), cudaMemcpyHostToDevice);
        kernel<<<1, 1>>>(word, (T)cases[i].operand, out);
        cudaError_t e = cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            printf("%s %s: %s\n", instr, cases[i].what, cudaGetErrorString(e));
            continue;
        }
        int digits = 2 * (int)sizeof(T);
        printf("%-34s %-28s mem 0x%0*llx op 0x%0*llx -> mem 0x%0*llx returned 0x%0*llx\n", instr,
               cases[i].what, digits, (unsigned long long)old, digits,
               (unsigned long long)cases[i].operand, digits, (unsigned long long)result[0],
               digits, (unsigned long long)result[1]);
    }
    cudaFree(word);
    cudaFree(out);
}

int main() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    const Case f32[] = {
        {"subnormal + subnormal", 0x00000001, 0x00000001},
        {"normal + -subnormal", 0x00800000, 0x80000001},
        {"subnormal result", 0x00800001, 0x80800000},
        {"-subnormal result", 0x80800001, 0x00800000},
        {"subnormal mem + 0", 0x00000001, 0x00000000},
        {"quiet NaN payload + 1", 0x7fc00001, 0x3f800000},
        {"1 + signaling NaN", 0x3f800000, 0x7f800001},
        {"inf + -inf", 0x7f800000, 0xff800000},
        {"-0 + -0", 0x80000000, 0x80000000},
        {"ties: 1 + 2^-24", 0x3f800000, 0x33800000},
    };
    const int nf32 = sizeof f32 / sizeof f32[0];
    run<uint32_t>("atom.global.add.f32", add_f32_global, f32, nf32);
    run<uint32_t>("atom.shared.add.f32", add_f32_shared, f32, nf32);
    run<uint32_t>("atom.add.f32 (generic -> global)", add_f32_generic_global, f32, nf32);
    run<uint32_t>("atom.add.f32 (generic -> shared)", add_f32_generic_shared, f32, nf32);
    run<uint32_t>("red.global.add.f32", red_add_f32_global, f32, nf32);
    const Case f64[] = {
        {"subnormal + subnormal", 0x1, 0x1},
        {"subnormal result", 0x0010000000000001ull, 0x8010000000000000ull},
        {"quiet NaN payload + 1", 0x7ff8000000000001ull, 0x3ff0000000000000ull},
    };
    run<uint64_t>("atom.global.add.f64", add_f64_global, f64, 3);
    const Case f16[] = {
        {"subnormal + subnormal", 0x0001, 0x0001},
        {"subnormal result", 0x0401, 0x8400},
        {"quiet NaN payload + 1", 0x7e01, 0x3c00},
    };
    run<uint16_t>("atom.global.add.noftz.f16", add_noftz_f16_global, f16, 3);
    const Case bf16[] = {
        {"subnormal + subnormal", 0x0001, 0x0001},
        {"subnormal result", 0x0081, 0x8080},
        {"quiet NaN payload + 1", 0x7fc1, 0x3f80},
        {"ties: 1 + 2^-8", 0x3f80, 0x3b80},
    };
    run<uint16_t>("atom.global.add.noftz.bf16", add_noftz_bf16_global, bf16, 4);
    return 0;
}
