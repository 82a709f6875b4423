//! Evaluator throughput through the batch API, against the native host instruction on the
//! same inputs in the same run. Run: `cargo bench -p semfuzz-spec --bench eval`, then
//! `python3 scripts/bench-table.py` prints evaluations/s and the ratios.
//!
//! Inputs are the fuzzer's boundary-heavy stream (`semfuzz_spec::samples`), so special
//! operands (NaN, subnormals, infinities) are as frequent as in a campaign. The native side
//! runs one scalar operation per element through `black_box`, so it is not vectorised; for
//! `fma.rz.f64` it is the host backend's VFMADD under MXCSR round-toward-zero (set and
//! restored around each instruction, as a CPU fallback would do).
//!
//! The 16-bit variants' native side is the nearest host work, not a bit-exact reference: f16
//! through the host's F16C conversions around an f32 operation, bf16 by shifting into f32 and
//! rounding back with integer arithmetic. `ex2.approx.f32` is compared with libm's `exp2f`; its
//! semfuzz side includes the MPFR evaluation that bounds each result.
//!
//! The `exhaustive/` groups time the whole check of a unary 16-bit variant: all 65,536 inputs
//! evaluated and each reference result tested against the accept set.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use semfuzz_fp::Round;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::hint::black_box;

const BATCH: usize = 4096;

fn inputs(spec: &Spec, v: &Variant) -> Vec<u64> {
    let n = v.sources.len();
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
    group_of(c, spec, v, text, native);
}

/// [`group`] for a variant found otherwise (SASS forms share their text).
fn group_of(
    c: &mut Criterion,
    spec: &Spec,
    v: &Variant,
    name: &str,
    native: impl Fn(&[u64]) -> u64,
) {
    let n = v.sources.len();
    let ins = inputs(spec, v);
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); BATCH * ev.n_parts()];
    let mut g = c.benchmark_group(format!("eval/{name}"));
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

/// F16C's VCVTPH2PS on the low lane, inlined (the host backend's `f16_to_f32` also sets
/// MXCSR around each conversion, which is not what a native f16 program pays).
fn f16_to_f32(x: u64) -> f32 {
    use std::arch::x86_64::{_mm_cvtph_ps, _mm_cvtsi32_si128, _mm_cvtss_f32};
    // SAFETY: `bench` runs the 16-bit groups only when the CPU has F16C.
    unsafe { _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(x as i32))) }
}

/// F16C's VCVTPS2PH with round-to-nearest-even, inlined.
fn f32_to_f16(x: f32) -> u64 {
    use std::arch::x86_64::{
        _mm_cvtps_ph, _mm_cvtsi128_si32, _mm_set_ss, _MM_FROUND_TO_NEAREST_INT,
    };
    // SAFETY: as in `f16_to_f32`.
    unsafe {
        u64::from(
            _mm_cvtsi128_si32(_mm_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm_set_ss(x))) as u16,
        )
    }
}

fn bf16_to_f32(x: u64) -> f32 {
    f32::from_bits((x as u32 & 0xFFFF) << 16)
}

/// Round-to-nearest-even from f32 to bf16 by integer arithmetic (NaN not special-cased: the
/// baseline only has to do the same amount of work).
fn f32_to_bf16(x: f32) -> u64 {
    let b = x.to_bits();
    u64::from((b + 0x7FFF + ((b >> 16) & 1)) >> 16)
}

/// Evaluates a one-input 16-bit variant on all 65,536 inputs and tests `reference` against
/// each accept set: the "exhaustive check of one unary 16-bit variant".
fn exhaustive(c: &mut Criterion, spec: &Spec, text: &str, reference: impl Fn(u64) -> u64) {
    let v = spec.lookup(text, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let ins: Vec<u64> = (0..0x1_0000).collect();
    let mut out = vec![Accept::default(); ins.len() * ev.n_parts()];
    let mut g = c.benchmark_group(format!("exhaustive/{text}"));
    g.throughput(Throughput::Elements(ins.len() as u64));
    g.sample_size(20);
    g.bench_function("semfuzz", |b| {
        b.iter(|| {
            ev.eval_batch(black_box(&ins), &mut out);
            let rejected = ins
                .iter()
                .zip(&out)
                .filter(|(x, acc)| !acc.accepts(reference(**x)))
                .count();
            assert_eq!(rejected, 0, "{text}: the reference disagrees with the spec");
        })
    });
    g.finish();
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
    if !std::arch::is_x86_feature_detected!("f16c") {
        eprintln!("the host has no F16C: skipping the f16 benchmarks");
        return;
    }
    group(c, &spec, "add.rn.f16", 2, |r| {
        f32_to_f16(f16_to_f32(r[0]) + f16_to_f32(r[1]))
    });
    group(c, &spec, "fma.rn.bf16x2", 3, |r| {
        let lane = |s: u32| {
            let l = |x: u64| bf16_to_f32(x >> s);
            f32_to_bf16(l(r[0]).mul_add(l(r[1]), l(r[2]))) << s
        };
        lane(0) | lane(16)
    });
    group(c, &spec, "set.lt.u32.f16x2", 2, |r| {
        let lane = |s: u32| {
            let l = |x: u64| f16_to_f32((x >> s) & 0xFFFF);
            if l(r[0]) < l(r[1]) {
                0xFFFF << s
            } else {
                0
            }
        };
        lane(0) | lane(16)
    });
    group(c, &spec, "ex2.approx.f32", 1, |r| {
        u64::from(f32_of(r[0]).exp2().to_bits())
    });
    // The register form, with each operand's `-`, `|..|` and `.iswz` sampled like the
    // registers (the sign bit shared by Ra and Rb, F32 conversions and swizzles all occur).
    // Native: F16C on both lanes, as an f16 program without the modifiers would run it.
    let hmul2 = spec
        .variants
        .iter()
        .find(|v| v.text == "HMUL2.FMZ" && v.syntax.contains("Rb{|}"))
        .expect("HMUL2.FMZ register form");
    group_of(c, &spec, hmul2, "HMUL2.FMZ", |r| {
        let lane = |s: u32| {
            let l = |x: u64| f16_to_f32((x >> s) & 0xFFFF);
            f32_to_f16(l(r[0]) * l(r[1])) << s
        };
        lane(0) | lane(16)
    });
    // 9.7.4.9 tanh.approx.f16 with its bound: every input also pays the MPFR reference that
    // bounds it, and the check's reference is MPFR's tanh at 200 bits rounded to f16.
    exhaustive(c, &spec, "tanh.approx.f16", |x| {
        let f = semfuzz_fp::Format::F16;
        let t = rug::Float::with_val(200, f.to_f64(x)).tanh().to_f64();
        semfuzz_fp::convert(semfuzz_fp::Format::F64, f, t.to_bits(), Round::NearestEven)
    });
    // 9.7.4.5 neg: "NaN inputs yield an unspecified NaN", so the sign flip is accepted for
    // every input; .ftz flushes a subnormal input to the zero of its sign before negating.
    exhaustive(c, &spec, "neg.ftz.f16", |x| {
        let flushed = if x & 0x7C00 == 0 { x & 0x8000 } else { x };
        flushed ^ 0x8000
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
