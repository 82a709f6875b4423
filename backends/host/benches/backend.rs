//! Host backend throughput on `add.rn.f32`, against native Rust `a + b` on
//! the same inputs in the same run. Run: `cargo bench -p semfuzz-host`.
//!
//! - `host/add.rn.f32`: one batch of 4096 boundary-heavy cases: `native`
//!   (`a + b`, one scalar add per case through `black_box`), `per_case` (the
//!   crate's `f32_op2`: MXCSR saved, set and restored around every add) and
//!   `batched` (`Backend::run`: one MXCSR switch around a loop over the batch).
//! - `host-e2e/add.rn.f32`: what a campaign does per case: generate the
//!   inputs (`Samples`), run the backend, evaluate the spec and compare:
//!   `1-thread` one batch, `2-threads` 16 batches on each of two threads;
//!   `generate` and `evaluate` (evaluate and compare) time the parts of
//!   `1-thread` that are not the backend.
//! - `host-open`: opening the backend (its whole start-up).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use semfuzz_backend::{Backend, Verdict};
use semfuzz_host::{Mode, Op2, Round};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::hint::black_box;

const BATCH: usize = 4096;
/// Batches per thread per iteration of the two-thread benchmark (spawning
/// the threads is then a small part of an iteration).
const BATCHES_PER_THREAD: usize = 16;

/// One campaign thread: its input stream, backend and evaluator.
struct Worker<'v> {
    variant: &'v Variant,
    samples: Samples,
    host: Box<dyn Backend>,
    eval: Evaluator<'v>,
    inputs: Vec<u64>,
    verdicts: Vec<Verdict>,
    accepts: Vec<Accept>,
}

impl<'v> Worker<'v> {
    fn new(spec: &Spec, variant: &'v Variant, seed: u64) -> Worker<'v> {
        let eval = Evaluator::new(&variant.program);
        Worker {
            variant,
            samples: Samples::new(spec, variant, seed),
            host: semfuzz_host::open(None).expect("host backend"),
            accepts: vec![Accept::default(); BATCH * eval.n_parts()],
            eval,
            inputs: vec![0; BATCH * variant.sources.len()],
            verdicts: vec![Verdict::NoVerdict; BATCH],
        }
    }

    /// Generates, runs and checks one batch; returns the mismatches.
    fn batch(&mut self) -> usize {
        let n = self.variant.sources.len();
        for row in self.inputs.chunks_exact_mut(n) {
            self.samples.fill(row);
        }
        self.host
            .run(self.variant, &self.inputs, &mut self.verdicts)
            .expect("batch");
        self.eval.eval_batch(&self.inputs, &mut self.accepts);
        self.verdicts
            .iter()
            .zip(&self.accepts)
            .filter(|(v, a)| !matches!(v, Verdict::Bits(b) if a.accepts(*b)))
            .count()
    }
}

fn bench(c: &mut Criterion) {
    let spec = Spec::embedded().expect("embedded spec");
    let v = spec.lookup("add.rn.f32", None).expect("variant");
    let mut inputs = vec![0; BATCH * 2];
    let mut samples = Samples::new(&spec, v, 42);
    inputs.chunks_exact_mut(2).for_each(|r| samples.fill(r));

    let mut g = c.benchmark_group("host/add.rn.f32");
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut results = vec![0u64; BATCH];
    g.bench_function("native", |b| {
        b.iter(|| {
            for (r, row) in results.iter_mut().zip(inputs.chunks_exact(2)) {
                let sum = black_box(f32::from_bits(row[0] as u32)) + f32::from_bits(row[1] as u32);
                *r = u64::from(black_box(sum).to_bits());
            }
        })
    });
    let rn = Mode::ieee(Round::NearestEven);
    g.bench_function("per_case", |b| {
        b.iter(|| {
            for (r, row) in results.iter_mut().zip(inputs.chunks_exact(2)) {
                let sum = semfuzz_host::f32_op2(Op2::Add, row[0] as u32, row[1] as u32, rn);
                *r = u64::from(black_box(sum).unwrap_or(0));
            }
        })
    });
    let mut host = semfuzz_host::open(None).expect("host backend");
    let mut out = vec![Verdict::NoVerdict; BATCH];
    g.bench_function("batched", |b| {
        b.iter(|| host.run(v, black_box(&inputs), &mut out).expect("batch"))
    });
    g.finish();

    let mut g = c.benchmark_group("host-e2e/add.rn.f32");
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut one = Worker::new(&spec, v, 1);
    g.bench_function("1-thread", |b| b.iter(|| assert_eq!(one.batch(), 0)));
    // Its parts: generating the inputs, and evaluating and comparing them.
    g.bench_function("generate", |b| {
        b.iter(|| {
            for row in one.inputs.chunks_exact_mut(2) {
                one.samples.fill(row);
            }
        })
    });
    g.bench_function("evaluate", |b| {
        b.iter(|| {
            one.eval.eval_batch(&one.inputs, &mut one.accepts);
            let ok = one.verdicts.iter().zip(&one.accepts);
            black_box(
                ok.filter(|(v, a)| matches!(v, Verdict::Bits(b) if a.accepts(*b)))
                    .count(),
            )
        })
    });
    g.throughput(Throughput::Elements(
        (2 * BATCHES_PER_THREAD * BATCH) as u64,
    ));
    let mut two = [Worker::new(&spec, v, 2), Worker::new(&spec, v, 3)];
    g.bench_function("2-threads", |b| {
        b.iter(|| {
            std::thread::scope(|s| {
                for w in two.iter_mut() {
                    s.spawn(move || {
                        for _ in 0..BATCHES_PER_THREAD {
                            assert_eq!(w.batch(), 0);
                        }
                    });
                }
            })
        })
    });
    g.finish();

    // The backend's start-up: CPU feature detection and /proc/cpuinfo.
    c.bench_function("host-open", |b| {
        b.iter(|| semfuzz_host::open(None).expect("host backend"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
