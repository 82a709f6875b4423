// What the GPU's warp collectives compute, lane by lane, on random lane values, member masks,
// shuffle offsets and `c` (clamp and segment mask) values, and with lanes of the member mask
// that have exited: the facts the specs spec/isa/ptx-9.7.9.6-shfl-sync.sem and
// ptx-9.7.13.9-warp-collectives.sem (PTX ISA 9.7.9.6 shfl.sync, 9.7.13.9 vote.sync, 9.7.13.10
// match.sync, 9.7.13.11 activemask, 9.7.13.12 redux.sync) rest on, and docs/ambiguities.md
// 170 (the source lane does not wrap) and 171 (a member lane that exited does not take part).
//
// Build and run on a machine with an NVIDIA GPU (backends/cuda/README.md, "Probes"):
//   nvcc -arch=sm_90 -o warp_collectives warp_collectives.cu
//   ./warp_collectives [WARPS_PER_VARIANT] > warp-collectives.txt
//   semfuzz check warp-collectives.txt
// Each output line is a `semfuzz check` line in the specs' warp view (docs/spec-language.md,
// "Warp collectives"): the variant, the 32 lanes' values of the exchanged operand, the
// executing lane's other operands, `membermask`, `laneid`, `active` (the lanes that executed
// the instruction), then the GPU's first destination. `check` compares the first destination;
// the predicate destination of shfl.sync and match.all.sync follows as a comment `# p=N`.
// `redux.sync .f32` needs sm_100a and is not probed here (an H200 is sm_90).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

enum Op {
    SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX,
    VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT,
    MATCH_ANY_B32, MATCH_ANY_B64, MATCH_ALL_B32, MATCH_ALL_B64,
    REDUX_ADD_U32, REDUX_ADD_S32, REDUX_MIN_U32, REDUX_MIN_S32, REDUX_MAX_U32, REDUX_MAX_S32,
    REDUX_AND, REDUX_OR, REDUX_XOR,
    ACTIVEMASK,
    N_OPS
};

static const char *const NAMES[N_OPS] = {
    "shfl.sync.up.b32", "shfl.sync.down.b32", "shfl.sync.bfly.b32", "shfl.sync.idx.b32",
    "vote.sync.all.pred", "vote.sync.any.pred", "vote.sync.uni.pred", "vote.sync.ballot.b32",
    "match.any.sync.b32", "match.any.sync.b64", "match.all.sync.b32", "match.all.sync.b64",
    "redux.sync.add.u32", "redux.sync.add.s32", "redux.sync.min.u32", "redux.sync.min.s32",
    "redux.sync.max.u32", "redux.sync.max.s32", "redux.sync.and.b32", "redux.sync.or.b32",
    "redux.sync.xor.b32", "activemask.b32",
};

// One warp's inputs: each lane's operands, the member mask and the lanes that exit first.
struct Warp {
    uint64_t a[32];
    uint32_t b[32], c[32];
    uint32_t membermask, exited;
};

// What each lane wrote: whether it executed the instruction, `d`, `p`.
struct Lane {
    uint64_t d;
    uint32_t p, ran;
};

#define SHFL(MODE)                                                                               \
    asm volatile("{ .reg .pred q; shfl.sync." MODE ".b32 %0|q, %2, %3, %4, %5; selp.u32 %1, 1, 0, q; }" \
                 : "=r"(d32), "=r"(p) : "r"(a32), "r"(w.b[lane]), "r"(w.c[lane]), "r"(m))
#define VOTE(MODE)                                                                               \
    asm volatile("{ .reg .pred q, r; setp.ne.u32 q, %1, 0; vote.sync." MODE ".pred r, q, %2; selp.u32 %0, 1, 0, r; }" \
                 : "=r"(d32) : "r"(a32), "r"(m))
#define MATCH_ALL(T, C, X)                                                                        \
    asm volatile("{ .reg .pred q; match.all.sync." T " %0|q, %2, %3; selp.u32 %1, 1, 0, q; }"  \
                 : "=r"(d32), "=r"(p) : C(X), "r"(m))
#define REDUX(OP)                                                                                \
    asm volatile("redux.sync." OP " %0, %1, %2;" : "=r"(d32) : "r"(a32), "r"(m))

__global__ void run(int op, const Warp *warps, Lane *out) {
    const Warp &w = warps[blockIdx.x];
    unsigned lane = threadIdx.x;
    Lane &o = out[blockIdx.x * 32 + lane];
    o.ran = 0;
    // A lane of the member mask that exits never arrives: the others must not wait for it.
    if (w.exited >> lane & 1)
        return;
    if (!(w.membermask >> lane & 1))
        return;
    uint32_t m = w.membermask, d32 = 0, p = 0;
    uint64_t a = w.a[lane];
    uint32_t a32 = (uint32_t)a;
    switch (op) {
    case SHFL_UP: SHFL("up"); break;
    case SHFL_DOWN: SHFL("down"); break;
    case SHFL_BFLY: SHFL("bfly"); break;
    case SHFL_IDX: SHFL("idx"); break;
    case VOTE_ALL: VOTE("all"); break;
    case VOTE_ANY: VOTE("any"); break;
    case VOTE_UNI: VOTE("uni"); break;
    case VOTE_BALLOT:
        asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, %2; }"
                     : "=r"(d32) : "r"(a32), "r"(m));
        break;
    case MATCH_ANY_B32: asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(d32) : "r"(a32), "r"(m)); break;
    case MATCH_ANY_B64: asm volatile("match.any.sync.b64 %0, %1, %2;" : "=r"(d32) : "l"(a), "r"(m)); break;
    case MATCH_ALL_B32: MATCH_ALL("b32", "r", a32); break;
    case MATCH_ALL_B64: MATCH_ALL("b64", "l", a); break;
    case REDUX_ADD_U32: REDUX("add.u32"); break;
    case REDUX_ADD_S32: REDUX("add.s32"); break;
    case REDUX_MIN_U32: REDUX("min.u32"); break;
    case REDUX_MIN_S32: REDUX("min.s32"); break;
    case REDUX_MAX_U32: REDUX("max.u32"); break;
    case REDUX_MAX_S32: REDUX("max.s32"); break;
    case REDUX_AND: REDUX("and.b32"); break;
    case REDUX_OR: REDUX("or.b32"); break;
    case REDUX_XOR: REDUX("xor.b32"); break;
    case ACTIVEMASK: asm volatile("activemask.b32 %0;" : "=r"(d32)); break;
    }
    o.d = d32;
    o.p = p;
    o.ran = 1;
}

// splitmix64: seeded, so a run's lines can be regenerated.
static uint64_t state = 0x5eed;
static uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A lane value for `op`: predicates for votes, few distinct values for matches (64-bit ones
// differing in the high word only), random words otherwise.
static uint64_t lane_value(int op, unsigned kinds) {
    if (op >= VOTE_ALL && op <= VOTE_BALLOT)
        return next() % 8 != 0 ? 1 : 0;
    if (op >= MATCH_ANY_B32 && op <= MATCH_ALL_B64) {
        uint64_t k = next() % kinds;
        return (op == MATCH_ANY_B64 || op == MATCH_ALL_B64) ? (k << 40 | 7) : k + 7;
    }
    return (uint32_t)next();
}

static Warp random_warp(int op) {
    Warp w;
    unsigned kinds = 1 + next() % 3;
    for (int i = 0; i < 32; i++)
        w.a[i] = lane_value(op, kinds);
    // The whole warp half the time, else a random subset (never empty).
    w.membermask = next() % 2 ? 0xffffffffu : ((uint32_t)next() | 1u << (next() % 32));
    // A quarter of the warps lose a few member lanes before the instruction.
    w.exited = next() % 4 == 0 ? (uint32_t)(next() & next() & next()) & w.membermask : 0;
    if (w.exited == w.membermask)
        w.exited &= w.exited - 1;
    // b: an offset, sometimes with bits above [4:0]; c: a segment mask of contiguous low bits
    // or random, a clamp (0 for .up as CUDA passes it, 0x1f for the others, or random), and
    // noise above bit 12. Uniform across the warp unless `per_lane`.
    bool per_lane = next() % 4 == 0;
    static const uint32_t SEGMENTS[5] = {0, 0x10, 0x18, 0x1c, 0x1f};
    uint32_t b = 0, c = 0;
    for (int i = 0; i < 32; i++) {
        if (i == 0 || per_lane) {
            b = next() % 4 == 0 ? (uint32_t)next() : (uint32_t)(next() % 40);
            uint32_t seg = next() % 6 == 5 ? (uint32_t)(next() % 32) : SEGMENTS[next() % 5];
            uint32_t clamp = next() % 3 == 0 ? (uint32_t)(next() % 32) : (op == SHFL_UP ? 0 : 0x1f);
            c = seg << 8 | clamp | ((uint32_t)next() & 0xffffe000u);
        }
        w.b[i] = b;
        w.c[i] = c;
    }
    return w;
}

static void check(cudaError_t e, const char *what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

int main(int argc, char **argv) {
    int warps = argc > 1 ? atoi(argv[1]) : 8;
    Warp *dw;
    Lane *dl;
    check(cudaMalloc(&dw, warps * sizeof(Warp)), "cudaMalloc");
    check(cudaMalloc(&dl, warps * 32 * sizeof(Lane)), "cudaMalloc");
    Warp *hw = new Warp[warps];
    Lane *hl = new Lane[warps * 32];
    for (int op = 0; op < N_OPS; op++) {
        for (int i = 0; i < warps; i++)
            hw[i] = random_warp(op);
        check(cudaMemcpy(dw, hw, warps * sizeof(Warp), cudaMemcpyHostToDevice), "copy in");
        run<<<warps, 32>>>(op, dw, dl);
        check(cudaDeviceSynchronize(), NAMES[op]);
        check(cudaMemcpy(hl, dl, warps * 32 * sizeof(Lane), cudaMemcpyDeviceToHost), "copy out");
        bool shfl = op <= SHFL_IDX, pred = op == MATCH_ALL_B32 || op == MATCH_ALL_B64;
        bool wide = op == MATCH_ANY_B64 || op == MATCH_ALL_B64;
        for (int i = 0; i < warps; i++) {
            const Warp &w = hw[i];
            uint32_t active = w.membermask & ~w.exited;
            for (int lane = 0; lane < 32; lane++) {
                const Lane &o = hl[i * 32 + lane];
                if (!o.ran)
                    continue;
                printf("%s", NAMES[op]);
                if (op != ACTIVEMASK) {
                    for (int j = 0; j < 32; j++)
                        printf(wide ? " 0x%016llx" : " 0x%llx", (unsigned long long)w.a[j]);
                    if (shfl)
                        printf(" 0x%x 0x%x", w.b[lane], w.c[lane]);
                    printf(" 0x%x 0x%x", w.membermask, lane);
                }
                printf(" 0x%x 0x%llx", active, (unsigned long long)o.d);
                if (shfl || pred)
                    printf(" # p=%u", o.p);
                printf("\n");
            }
        }
    }
    return 0;
}
