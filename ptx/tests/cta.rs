//! A kernel read as one CTA (issue 31): every thread runs the body, warp collectives gather
//! their 32 lanes, `bar.sync` ends a phase, and two threads touching a byte between barriers,
//! one writing, are a race. Each kernel's results are checked against a plain Rust model of
//! what the kernel computes (sums over lanes, swapped neighbours), not against the reader.

use semfuzz_ptx::{load_cta, Cta, PtxFunction};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// A module for sm_70 with one `.entry NAME(.param .u64 buf, .param .u64 out)`, its body
/// the pieces after the name (`.reg` lines and instructions, literals or macros giving them);
/// `prelude = "..."` first puts module variables before the entry.
macro_rules! buf_out_kernel {
    (prelude = $prelude:literal, $name:literal, $($body:tt)+) => {
        concat!(
            ".version 7.0\n.target sm_70\n.address_size 64\n",
            $prelude,
            "\n.visible .entry ",
            $name,
            "(.param .u64 buf, .param .u64 out)\n{\n",
            $($body)+,
            "}\n"
        )
    };
    ($name:literal, $($body:tt)+) => {
        buf_out_kernel!(prelude = "", $name, $($body)+)
    };
}

/// Each thread loads `buf[tid]` into `%r2` and its warp's butterfly sum of them into `%r12`
/// (the shape of CUDA's `__shfl_xor_sync` reduction and of Triton's row reductions); `%rd2`
/// is `out` and `%rd3` the thread's byte offset.
macro_rules! warp_butterfly_sum {
    () => {
        r#"  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  add.s32 %r4, %r2, %r3;
  shfl.sync.bfly.b32 %r5, %r4, 8, 31, -1;
  add.s32 %r6, %r4, %r5;
  shfl.sync.bfly.b32 %r7, %r6, 4, 31, -1;
  add.s32 %r8, %r6, %r7;
  shfl.sync.bfly.b32 %r9, %r8, 2, 31, -1;
  add.s32 %r10, %r8, %r9;
  shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;
  add.s32 %r12, %r10, %r11;
"#
    };
}

/// A warp's butterfly sum of `buf[tid]` into every lane, stored to `out[tid]`.
const WARP_SUM: &str = buf_out_kernel!(
    "warp_sum",
    "  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n",
    warp_butterfly_sum!(),
    r#"  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r12;
  ret;
"#
);

/// Each thread writes `3 * tid` to `buf[tid]`, then reads its neighbour's `buf[tid ^ 1]`
/// and stores it to `out[tid]`: correct only with the barrier between.
const NEIGHBOURS: &str = buf_out_kernel!(
    "neighbours",
    r#"  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 3;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  bar.sync 0;
  xor.b32 %r3, %r1, 1;
  mul.wide.u32 %rd5, %r3, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r4, [%rd6];
  add.s64 %rd7, %rd2, %rd3;
  st.global.u32 [%rd7], %r4;
  ret;
"#
);

fn cta(text: &str, threads: u32) -> Result<PtxFunction, String> {
    let bytes = (4 * threads).next_multiple_of(8);
    load_cta(
        spec(),
        "kernel.ptx",
        text,
        None,
        8,
        Cta {
            block_bytes: bytes,
            ..Cta::of(threads)
        },
    )
    .map_err(|d| d.to_string())
}

/// `f`'s inputs for two blocks of 32-bit words (`buf` and `out`, the kernels' parameters;
/// words past a slice's end are zero), `%ctaid` 0 of a grid of one CTA where the kernel
/// reads it.
fn inputs(f: &PtxFunction, buf: &[u32], out: &[u32]) -> Vec<u64> {
    let word = |block: &[u32], name: &str| {
        let at: usize = name
            .split(['+', '.'])
            .nth(1)
            .and_then(|k| k.parse().ok())
            .expect("[p+K..]");
        let half = |k: usize| u64::from(block.get(k).copied().unwrap_or(0));
        half(at / 4) | half(at / 4 + 1) << 32
    };
    f.inputs
        .iter()
        .map(|slot| match slot.name.as_str() {
            "buf" => 0x1000,
            "out" => 0x8000,
            n if n.starts_with("[buf+") => word(buf, n),
            n if n.starts_with("[out+") => word(out, n),
            n if n.starts_with("%nctaid") => 1,
            _ => 0,
        })
        .collect()
}

/// An evaluator that has run `f` on `inputs`, and the results by name.
fn evaluate<'f>(f: &'f PtxFunction, inputs: &[u64]) -> (Evaluator<'f>, Vec<(String, Accept)>) {
    let mut ev = Evaluator::new(&f.program);
    let mut results = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut results);
    let named = f.results.iter().map(|s| s.name.clone()).zip(results);
    (ev, named.collect())
}

/// Runs `f` on `buf` and `out` ([`inputs`]): the results by name.
fn run(f: &PtxFunction, buf: &[u32], out: &[u32]) -> Vec<(String, Accept)> {
    evaluate(f, &inputs(f, buf, out)).1
}

fn result<'a>(results: &'a [(String, Accept)], name: &str) -> &'a Accept {
    &results
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no result {name}: {results:?}"))
        .1
}

/// The 32-bit words of block `block` (`out` or `buf`), where every word is exact.
fn words(results: &[(String, Accept)], block: &str, n: usize) -> Vec<Option<u32>> {
    let mut w = Vec::new();
    for k in 0..n.div_ceil(2) {
        let name = format!("[{block}+{}..{}]", 8 * k, 8 * k + 8);
        match result(results, &name) {
            Accept::Exact(v) => w.extend([Some(*v as u32), Some((*v >> 32) as u32)]),
            _ => w.extend([None, None]),
        }
    }
    w.truncate(n);
    w
}

fn xorshift(seed: u64) -> impl FnMut() -> u32 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u32
    }
}

#[test]
fn a_butterfly_reduction_gives_every_lane_its_warps_sum() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for threads in [32, 64] {
        let f = cta(WARP_SUM, threads).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..5 {
            let input: Vec<u32> = (0..threads).map(|_| next()).collect();
            let results = run(&f, &input, &vec![0; threads as usize]);
            let expected: Vec<Option<u32>> = input
                .chunks(32)
                .flat_map(|warp| {
                    let sum = warp.iter().fold(0u32, |s, x| s.wrapping_add(*x));
                    vec![Some(sum); warp.len()]
                })
                .collect();
            assert_eq!(words(&results, "out", threads as usize), expected);
            assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
            assert_eq!(result(&results, "in_bounds"), &Accept::Exact(1));
        }
    }
}

/// The manual's `.up`: lane i reads lane i - b where that is at least `maxLane`, which is
/// 31 for `c = 31`, so every lane but 31 keeps its own value (PTX ISA 9.7.9.6).
#[test]
fn a_reduction_shuffling_up_instead_of_across_is_not_the_sum() {
    let f = cta(&WARP_SUM.replace("bfly", "up"), 32).unwrap_or_else(|e| panic!("{e}"));
    let input: Vec<u32> = (1..=32).collect();
    let results = run(&f, &input, &[0; 32]);
    let got = words(&results, "out", 32);
    // Lanes 0..30 double their value five times; lane 31 reads lane 31 - b each time.
    for (lane, w) in got.iter().enumerate().take(31) {
        assert_eq!(*w, Some(32 * (lane as u32 + 1)), "lane {lane}");
    }
    assert_ne!(got[31], Some(528), "lane 31 is not the warp's sum either");
}

/// The choices `f` left open on the inputs `buf` (an empty `out`): where each was made.
fn open_choices(f: &PtxFunction, buf: &[u32]) -> Vec<String> {
    let (mut ev, _) = evaluate(f, &inputs(f, buf, &[]));
    (0..f.program.choices.len())
        .filter(|k| !matches!(ev.choice_set(*k), Accept::Exact(_)))
        .map(|k| f.choice_sites[k].clone())
        .collect()
}

/// In a CTA of 48 threads the second warp has lanes 0..15 only: a butterfly across 16
/// reads lanes that do not exist, which the manual leaves undefined ("sources a register
/// from an inactive thread"): an open choice at that `shfl.sync`, while the first warp's
/// lanes are exact. With 64 threads nothing is left open.
#[test]
fn a_lane_past_the_ctas_last_thread_gives_no_value() {
    let input: Vec<u32> = (0..64).collect();
    let f = cta(WARP_SUM, 48).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &input[..48], &[0; 48]);
    let got = words(&results, "out", 48);
    assert!(got[..32].iter().all(|w| *w == Some(496)), "{got:?}");
    let open = open_choices(&f, &input[..48]);
    assert!(
        !open.is_empty() && open.iter().all(|site| site.contains("shfl.sync.bfly.b32")),
        "{open:?}"
    );
    let full = cta(WARP_SUM, 64).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(open_choices(&full, &input), Vec::<String>::new());
}

#[test]
fn a_barrier_orders_an_exchange_through_memory() {
    let f = cta(NEIGHBOURS, 32).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &[7; 32], &[0; 32]);
    let expected: Vec<Option<u32>> = (0..32u32).map(|t| Some(3 * (t ^ 1))).collect();
    assert_eq!(words(&results, "out", 32), expected);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
}

#[test]
fn an_exchange_without_its_barrier_is_a_race() {
    let f = cta(&NEIGHBOURS.replace("bar.sync 0;", ""), 32).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &[7; 32], &[0; 32]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
    // The same kernel as one warp-synchronous thread order is not what makes it right.
    let f = cta(&NEIGHBOURS.replace("bar.sync 0;", "membar.cta;"), 32)
        .unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &[7; 32], &[0; 32]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
}

/// Every thread adding to one word: plain stores race, atomic ones do not, and the word ends
/// as the sum of every thread's addend.
#[test]
fn atomic_updates_of_one_word_do_not_race() {
    let kernel = |op: &str| {
        format!(
            r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry count(.param .u64 buf, .param .u64 out)
{{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {op}
  ret;
}}
"#
        )
    };
    let atomic =
        cta(&kernel("red.global.add.u32 [%rd1], %r1;"), 40).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&atomic, &[0; 40], &[5; 40]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
    assert_eq!(
        words(&results, "out", 1),
        vec![Some(5 + (0..40).sum::<u32>())]
    );
    let plain = cta(
        &kernel(
            "ld.global.u32 %r2, [%rd1];\n  add.s32 %r3, %r2, %r1;\n  st.global.u32 [%rd1], %r3;",
        ),
        40,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let results = run(&plain, &[0; 40], &[5; 40]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
}

#[test]
fn what_a_cta_cannot_be_is_refused_by_name() {
    let one_thread = semfuzz_ptx::load(spec(), "kernel.ptx", NEIGHBOURS, None)
        .expect_err("a barrier needs the CTA");
    assert!(
        one_thread
            .message
            .contains("waits for the CTA's other threads"),
        "{one_thread}"
    );
    assert!(
        format!("{one_thread}").contains("--threads"),
        "{one_thread}"
    );
    let required = NEIGHBOURS.replace(
        ".visible .entry neighbours(.param .u64 buf, .param .u64 out)",
        ".visible .entry neighbours(.param .u64 buf, .param .u64 out) .reqntid 64",
    );
    let e = cta(&required, 32).expect_err("the kernel requires 64 threads");
    assert!(
        e.contains(".reqntid 64, 1, 1") && e.contains("--threads 64"),
        "{e}"
    );
    let divergent = NEIGHBOURS
        .replace(
            "  bar.sync 0;",
            "  setp.lt.u32 %p1, %r1, 16;\n  @%p1 bra SKIP;\n  bar.sync 0;\nSKIP:",
        )
        .replace(".reg .b32 %r<8>;", ".reg .b32 %r<8>;\n  .reg .pred %p<2>;");
    let e = cta(&divergent, 32).expect_err("the barrier is divergent");
    assert!(e.contains("may differ between threads"), "{e}");
    let e = cta(NEIGHBOURS, 2000).expect_err("too many threads");
    assert!(e.contains("1 to 1024"), "{e}"); // A called function runs one thread at a time: its collective is refused as such, not
                                             // with the hint to read a CTA, which the caller already is.
    let called = r#"
.version 7.0
.target sm_70
.address_size 64

.func (.param .b32 r) swap16(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;
  st.param.b32 [r], %r2;
  ret;
}

.visible .entry caller(.param .u64 buf, .param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  { .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r1;
    call (b), swap16, (a);
    ld.param.b32 %r2, [b];
  }
  ret;
}
"#;
    let e = cta(called, 32).expect_err("a collective in a callee");
    assert!(
        e.contains("warp collective")
            && e.contains("`swap16` is called")
            && !e.contains("--threads"),
        "{e}"
    );
}

/// A block reduction as CUDA and Triton write it: each warp reduces with shuffles, every lane
/// of a warp stores the warp's sum to `partial[warp]` in `.shared` (one warp's equal
/// writes), a barrier, then each thread reads the partial sums back and adds them.
const BLOCK_SUM: &str = buf_out_kernel!(
    prelude = ".shared .align 4 .b8 partial[8];\n",
    "block_sum",
    "  .reg .b32 %r<24>;\n  .reg .b64 %rd<8>;\n",
    warp_butterfly_sum!(),
    r#"  shr.u32 %r13, %r1, 3;
  and.b32 %r14, %r13, 4;
  mov.u32 %r15, partial;
  add.s32 %r16, %r15, %r14;
  st.shared.u32 [%r16], %r12;
  bar.sync 0;
  ld.shared.u32 %r17, [partial];
  ld.shared.u32 %r18, [partial+4];
  add.s32 %r19, %r17, %r18;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r19;
  ret;
"#
);

#[test]
fn a_block_reduction_through_shared_memory_sums_the_cta() {
    let f = cta(BLOCK_SUM, 64).unwrap_or_else(|e| panic!("{e}"));
    let mut next = xorshift(0x1234_5678_9abc_def1);
    for _ in 0..5 {
        let input: Vec<u32> = (0..64).map(|_| next()).collect();
        let sum = input.iter().fold(0u32, |s, x| s.wrapping_add(*x));
        let results = run(&f, &input, &[0; 64]);
        assert_eq!(words(&results, "out", 64), vec![Some(sum); 64]);
        assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
        assert_eq!(result(&results, "warp_stores_agree"), &Accept::Exact(1));
        assert_eq!(result(&results, "in_bounds"), &Accept::Exact(1));
    }
    // The shared array is the CTA's, not a result.
    assert!(
        f.results.iter().all(|s| !s.name.contains("0x")),
        "{:?}",
        f.results
    );
}

/// Lanes of one warp storing different values to one word in one instruction: which lands is
/// undefined (not a race, one of the writes), and the kernel's result with it.
#[test]
fn one_warps_different_stores_to_one_word_are_reported() {
    let own = BLOCK_SUM.replace("st.shared.u32 [%r16], %r12;", "st.shared.u32 [%r16], %r2;");
    let f = cta(&own, 64).unwrap_or_else(|e| panic!("{e}"));
    let input: Vec<u32> = (0..64).collect();
    let results = run(&f, &input, &[0; 64]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
    assert_eq!(result(&results, "warp_stores_agree"), &Accept::Exact(0));
    // The same stores in two instructions are a race.
    let twice = BLOCK_SUM.replace(
        "st.shared.u32 [%r16], %r12;",
        "st.shared.u32 [%r16], %r2;\n  st.shared.u32 [%r16], %r12;",
    );
    let f = cta(&twice, 64).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &input, &[0; 64]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
    // Equal values, as the butterfly gives every lane, are no race (the test above); nor is
    // one lane storing alone.
    let lane0 = BLOCK_SUM
        .replace("  st.shared.u32 [%r16], %r12;", "  and.b32 %r20, %r1, 31;\n  setp.eq.u32 %p1, %r20, 0;\n  @%p1 st.shared.u32 [%r16], %r12;")
        .replace(".reg .b64 %rd<8>;", ".reg .b64 %rd<8>;\n  .reg .pred %p<2>;");
    let f = cta(&lane0, 64).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &input, &[0; 64]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
    assert_eq!(words(&results, "out", 64), vec![Some((0..64).sum()); 64]);
}

/// Without the barrier, the reads of `partial` race with the other warp's store.
#[test]
fn a_block_reduction_without_its_barrier_races() {
    let f = cta(&BLOCK_SUM.replace("bar.sync 0;", ""), 64).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&f, &[1; 64], &[0; 64]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
}

#[test]
fn shared_variables_need_the_cta() {
    let e = semfuzz_ptx::load(spec(), "kernel.ptx", BLOCK_SUM, None).expect_err("one thread");
    assert!(e.message.contains("module variable `partial`"), "{e}");
    assert!(format!("{e}").contains("--threads"), "{e}");
}

/// nvcc 13.5's block reduction (`ptx/fixtures/nvcc-block-sum.cu`, `-O3 -arch=sm_80`): a warp
/// butterfly, lane 0 of each warp storing to a `__shared__` array nvcc declares inside the
/// kernel, `__syncthreads`, and the first warp summing the partials behind two branches
/// that the other threads jump around. 128 threads give thread 0's `out[0]` the CTA's sum,
/// with no race and nothing left open.
#[test]
fn nvccs_block_reduction_sums_the_cta() {
    let text = include_str!("../fixtures/nvcc-13.5-block-sum-sm_80.ptx")
        .replace("block_sum_param_0", "buf")
        .replace("block_sum_param_1", "out");
    let f = cta(&text, 128).unwrap_or_else(|e| panic!("{e}"));
    let mut next = xorshift(0x0dd_ba11_cafe_f00d);
    for _ in 0..5 {
        let input: Vec<u32> = (0..128).map(|_| next()).collect();
        let sum = input.iter().fold(0u32, |s, x| s.wrapping_add(*x));
        let results = run(&f, &input, &[0; 128]);
        let mut expected = vec![Some(0); 128];
        expected[0] = Some(sum);
        assert_eq!(words(&results, "out", 128), expected);
        assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
        assert_eq!(result(&results, "warp_stores_agree"), &Accept::Exact(1));
        assert_eq!(open_choices(&f, &input), Vec::<String>::new());
    }
    // Without `__syncthreads`, the first warp reads partials the others are writing.
    let racy = cta(&text.replace("bar.sync \t0;", ""), 128).unwrap_or_else(|e| panic!("{e}"));
    let results = run(&racy, &[1; 128], &[0; 128]);
    assert_eq!(result(&results, "race_free"), &Accept::Exact(0));
}

/// A CTA of 16 x 4 threads: `%tid` counts x fastest, `%ntid` is (16, 4, 1), and a warp is 32
/// consecutive threads (CUDA Programming Guide, "Thread Hierarchy": thread (x, y) is number
/// x + 16 y), so a butterfly across 16 lanes swaps rows y and y ^ 1. Each thread stores
/// `tid.x | tid.y << 8 | ntid.x << 16 | ntid.y << 24` to `buf[x + 16 y]`, and the number of
/// the thread 16 lanes away to `out[x + 16 y]`.
#[test]
fn a_two_dimensional_cta_numbers_its_threads_x_fastest() {
    let kernel = buf_out_kernel!(
        "grid2d",
        r#"  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mad.lo.s32 %r5, %r2, %r3, %r1;
  shl.b32 %r6, %r2, 8;
  or.b32 %r7, %r1, %r6;
  shl.b32 %r8, %r3, 16;
  or.b32 %r9, %r7, %r8;
  shl.b32 %r10, %r4, 24;
  or.b32 %r11, %r9, %r10;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r11;
  shfl.sync.bfly.b32 %r12, %r5, 16, 31, -1;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r12;
  ret;
"#
    );
    let f = load_cta(
        spec(),
        "grid2d.ptx",
        kernel,
        None,
        8,
        Cta {
            block_bytes: 256,
            ..Cta::shaped([16, 4, 1])
        },
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let results = run(&f, &[0; 64], &[0; 64]);
    for (k, w) in words(&results, "buf", 64).iter().enumerate() {
        let (x, y) = (k as u32 % 16, k as u32 / 16);
        assert_eq!(
            *w,
            Some(x | y << 8 | 16 << 16 | 4 << 24),
            "thread ({x}, {y})"
        );
    }
    for (k, w) in words(&results, "out", 64).iter().enumerate() {
        assert_eq!(*w, Some(k as u32 ^ 16), "thread {k}");
    }
    assert_eq!(result(&results, "race_free"), &Accept::Exact(1));
    // `.reqntid` names the shape, and the shape the hint gives back.
    let e = cta(
        &kernel.replace(
            "(.param .u64 buf, .param .u64 out)",
            "(.param .u64 buf, .param .u64 out) .reqntid 16, 4",
        ),
        64,
    )
    .expect_err("the kernel requires 16 x 4");
    assert!(
        e.contains(".reqntid 16, 4, 1") && e.contains("--threads 16x4"),
        "{e}"
    );
}

#[test]
fn cta_shapes_read_and_print_alike() {
    for (text, shape) in [
        ("128", [128, 1, 1]),
        ("32x4", [32, 4, 1]),
        ("8x4x2", [8, 4, 2]),
    ] {
        assert_eq!(semfuzz_ptx::parse_shape(text), Ok(shape));
        assert_eq!(semfuzz_ptx::shape_text(shape), text);
    }
    for bad in ["0", "32x0", "1x2x3x4", "x", "32y4"] {
        assert!(semfuzz_ptx::parse_shape(bad).is_err(), "{bad}");
    }
}
