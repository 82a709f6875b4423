//! Evaluator throughput through the batch API, against the native host instruction on the
//! same inputs in the same run. Run: `cargo bench -p semfuzz-spec --bench eval`, then
//! `python3 scripts/bench-table.py` prints evaluations/s and the ratios.
//!
//! Inputs are the fuzzer's boundary-heavy stream (`semfuzz_spec::samples`), so special
//! operands (NaN, subnormals, infinities) are as frequent as in a campaign. The native side
//! runs one scalar operation per element through `black_box`, so it is not vectorised; for
//! `fma.rz.f64` it is the host backend's VFMADD under MXCSR round-toward-zero (set and
//! restored around each instruction, as a CPU fallback would do).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use semfuzz_fp::Round;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::hint::black_box;

const BATCH: usize = 4096;

fn inputs(spec: &Spec, text: &str, n: usize) -> Vec<u64> {
    let v = spec.lookup(text, Some(n)).expect("variant");
    let mut samples = Samples::new(spec, v, 42);
    let mut row = vec![0; n];
    let mut all = Vec::with_capacity(BATCH * n);
    for _ in 0..BATCH {
        samples.fill(&mut row);
        all.extend_from_slice(&row);
    }
    all
}

fn group(c: &mut Criterion, spec: &Spec, text: &str, n: usize, native: impl Fn(&[u64]) -> u64) {
    let v = spec.lookup(text, Some(n)).expect("variant");
    let ins = inputs(spec, text, n);
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); BATCH * ev.n_parts()];
    let mut g = c.benchmark_group(format!("eval/{text}"));
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function("semfuzz", |b| {
        b.iter(|| {
            ev.eval_batch(black_box(&ins), &mut out);
            black_box(&out);
        })
    });
    g.bench_function("native", |b| {
        b.iter(|| {
            ins.chunks_exact(n)
                .fold(0u64, |acc, row| acc ^ native(black_box(row)))
        })
    });
    g.finish();
}

fn f32_of(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

fn bench(c: &mut Criterion) {
    let spec = Spec::embedded().expect("specs load");
    group(c, &spec, "add.rn.f32", 2, |r| {
        u64::from((f32_of(r[0]) + f32_of(r[1])).to_bits())
    });
    let rz = semfuzz_host::Mode::ieee(Round::TowardZero);
    group(c, &spec, "fma.rz.f64", 3, |r| {
        semfuzz_host::f64_fma(r[0], r[1], r[2], rz).unwrap_or(0)
    });
    group(c, &spec, "min.NaN.f32", 2, |r| {
        let (a, b) = (f32_of(r[0]), f32_of(r[1]));
        u64::from(if a.is_nan() || b.is_nan() {
            0x7fff_ffff
        } else {
            a.min(b).to_bits()
        })
    });
    group(c, &spec, "sqrt.rn.f32", 1, |r| {
        u64::from(f32_of(r[0]).sqrt().to_bits())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
