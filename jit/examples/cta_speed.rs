//! Issue 31's performance line (docs/BENCHMARKS.md, "A CTA"): Triton's softmax (BLOCK 128,
//! sm_90) read as a 128-thread CTA, and rows of it evaluated by the interpreter and by the
//! JIT, against a baseline measured in the same run, one thread of Triton's vector add in the
//! interpreter. The JIT's rows are timed on one worker and on one per core:
//! `cargo run --profile test -p semfuzz-jit --example cta_speed`.

use semfuzz_jit::{Evaluator, EvaluatorKind};
use semfuzz_ptx::{load, load_cta, Cta, PtxFunction};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::time::Instant;

const SOFTMAX: &str = include_str!("../../ptx/fixtures/triton-3.9-softmax-sm_90.ptx");
const VECTOR_ADD: &str = include_str!("../../ptx/fixtures/triton-3.9-vector-add-sm_90.ptx");

/// Past this many ops the JIT's compilation takes minutes (docs/cta.md), so it is not timed.
const JIT_TIMED_OPS: usize = 100_000;

/// Evaluations of `f` per second by `kind` on `inputs` over `workers` threads, each with its
/// own evaluator sharing the compiled code (as `check-ptx` splits its lines), timed over at
/// least 2 s, and the seconds the evaluator took to be ready (the JIT's compilation).
fn rate(f: &PtxFunction, kind: EvaluatorKind, inputs: &[u64], workers: usize) -> (f64, f64) {
    let start = Instant::now();
    let first = Evaluator::of_kind(&f.program, kind);
    assert_eq!(first.kind(), kind, "{kind:?} runs the program");
    let ready = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let evaluations: u64 = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let mut ev = first.sibling();
                scope.spawn(move || {
                    let mut out = vec![Accept::default(); ev.n_parts()];
                    let mut n = 0u64;
                    while start.elapsed().as_secs_f64() < 2.0 {
                        ev.eval(inputs, &mut out);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker ran"))
            .sum()
    });
    (evaluations as f64 / start.elapsed().as_secs_f64(), ready)
}

/// Inputs for `f`: each f32 word of each block 1.5, the row length 128, one CTA.
fn inputs(f: &PtxFunction) -> Vec<u64> {
    f.inputs
        .iter()
        .map(|s| match s.name.as_str() {
            n if n.starts_with('[') => 0x3fc0_0000_3fc0_0000,
            n if n.starts_with("%nctaid") => 1,
            n if n.starts_with('%') => 0,
            n if n.ends_with("param_2") || n.ends_with("param_3") => 128,
            _ => 0x1000_0000,
        })
        .collect()
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let spec = Spec::embedded().expect("the built-in specs load");
    let add = load(&spec, "vector-add.ptx", VECTOR_ADD, None).expect("vector add reads");
    let (threads, _) = rate(&add, EvaluatorKind::Interp, &inputs(&add), 1);
    println!(
        "baseline, vector-add threads/s (interpreter, {} ops): {threads:.0}",
        add.program.ops.len()
    );
    for (what, ctaid) in [("%ctaid an input", None), ("--ctaid 0", Some(0))] {
        let start = Instant::now();
        let cta = Cta {
            block_bytes: 512,
            ctaid,
            ..Cta::of(128)
        };
        let softmax = load_cta(&spec, "softmax.ptx", SOFTMAX, None, 8, cta).expect("softmax reads");
        let read = start.elapsed().as_secs_f64();
        let ops = softmax.program.ops.len();
        let (rows, _) = rate(&softmax, EvaluatorKind::Interp, &inputs(&softmax), 1);
        println!(
            "softmax CTA, {what}: read in {read:.2} s, {ops} ops; interpreter {rows:.1} rows/s, a row costs {:.0} vector-add threads",
            threads / rows
        );
        if ops <= JIT_TIMED_OPS {
            for workers in [1, cores] {
                let (rows, compiled) =
                    rate(&softmax, EvaluatorKind::Jit, &inputs(&softmax), workers);
                println!(
                    "softmax CTA, {what}: JIT compiled in {compiled:.2} s; {workers} worker(s): {rows:.1} rows/s, a row costs {:.0} vector-add threads",
                    threads / rows
                );
            }
        }
    }
}
