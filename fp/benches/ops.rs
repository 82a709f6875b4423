//! Throughput of the soft-float operations against the host's native
//! floating-point operations on the same values.
//!
//! Inputs are random finite numbers with a random sign, a random exponent
//! within a quarter of the format's exponent range around 1 (so results are
//! ordinary normal numbers, as in most evaluations, and the native side
//! never takes a subnormal slow path) and a random significand. The group
//! `f32/add boundary` uses the fuzzer's boundary-heavy stream instead, to
//! show the cost of the special-operand paths.
//!
//! Every operand goes through `black_box`, so neither side is vectorised:
//! both are measured one scalar operation at a time. Binary16 has no native
//! Rust type; its baseline is native binary32 addition of the same values,
//! which is what a CPU fallback would use. The native `mul_add` is a call
//! to the C library's `fma`/`fmaf`, since the crate is built for baseline
//! x86-64 without `+fma`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::{Format, Round};

/// Operations per measured iteration.
const BATCH: usize = 4096;

const RM: Round = Round::NearestEven;

/// `BATCH` random finite numbers of `f` (see the module documentation),
/// all positive if `positive`.
fn random_inputs(f: Format, seed: u64, positive: bool) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    let spread = (f.bias() / 4) as u64;
    let t = f.precision() - 1;
    (0..BATCH)
        .map(|_| {
            let negative = !positive && rng.next_u64() & 1 != 0;
            let field = f.bias() as u64 - spread + rng.below(2 * spread + 1);
            let frac = rng.next_u64() & ((1 << t) - 1);
            f.zero(negative) | field << t | frac
        })
        .collect()
}

/// Measures `soft` on `soft_operands` and `native` on `native_operands`
/// (the same values, encoded for the native type) as group `name`.
fn compare<const N: usize>(
    c: &mut Criterion,
    name: &str,
    soft_operands: [&[u64]; N],
    native_operands: [&[u64]; N],
    soft: impl Fn([u64; N]) -> u64,
    native: impl Fn([u64; N]) -> u64,
) {
    fn run<const N: usize>(operands: [&[u64]; N], op: &impl Fn([u64; N]) -> u64) -> u64 {
        (0..BATCH).fold(0, |acc, i| {
            acc ^ op(core::array::from_fn(|k| black_box(operands[k][i])))
        })
    }
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("soft", |b| b.iter(|| run(soft_operands, &soft)));
    group.bench_function("native", |b| b.iter(|| run(native_operands, &native)));
    group.finish();
}

/// A native floating-point type and its soft-float format.
trait Native: Copy {
    const FORMAT: Format;
    const NAME: &'static str;
    fn of_bits(x: u64) -> Self;
    fn bits(self) -> u64;
    fn add(self, y: Self) -> Self;
    fn mul(self, y: Self) -> Self;
    fn div(self, y: Self) -> Self;
    fn fma(self, y: Self, z: Self) -> Self;
    fn sqrt(self) -> Self;
}

impl Native for f32 {
    const FORMAT: Format = Format::F32;
    const NAME: &'static str = "f32";
    fn of_bits(x: u64) -> f32 {
        f32::from_bits(x as u32)
    }
    fn bits(self) -> u64 {
        f32::to_bits(self) as u64
    }
    fn add(self, y: f32) -> f32 {
        self + y
    }
    fn mul(self, y: f32) -> f32 {
        self * y
    }
    fn div(self, y: f32) -> f32 {
        self / y
    }
    fn fma(self, y: f32, z: f32) -> f32 {
        self.mul_add(y, z)
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
}

impl Native for f64 {
    const FORMAT: Format = Format::F64;
    const NAME: &'static str = "f64";
    fn of_bits(x: u64) -> f64 {
        f64::from_bits(x)
    }
    fn bits(self) -> u64 {
        f64::to_bits(self)
    }
    fn add(self, y: f64) -> f64 {
        self + y
    }
    fn mul(self, y: f64) -> f64 {
        self * y
    }
    fn div(self, y: f64) -> f64 {
        self / y
    }
    fn fma(self, y: f64, z: f64) -> f64 {
        self.mul_add(y, z)
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
}

/// add, mul, div, fma and sqrt of `T`'s format against `T`'s own.
fn suite<T: Native>(c: &mut Criterion) {
    let f = T::FORMAT;
    let a = random_inputs(f, 1, false);
    let b = random_inputs(f, 2, false);
    let d = random_inputs(f, 3, false);
    let s = random_inputs(f, 4, true);
    let (a, b, d, s) = (a.as_slice(), b.as_slice(), d.as_slice(), s.as_slice());
    let v = T::of_bits;
    let group = |op: &str| format!("{}/{op}", T::NAME);
    compare(
        c,
        &group("add"),
        [a, b],
        [a, b],
        |[x, y]| semfuzz_fp::add(T::FORMAT, x, y, RM),
        |[x, y]| v(x).add(v(y)).bits(),
    );
    compare(
        c,
        &group("mul"),
        [a, b],
        [a, b],
        |[x, y]| semfuzz_fp::mul(T::FORMAT, x, y, RM),
        |[x, y]| v(x).mul(v(y)).bits(),
    );
    compare(
        c,
        &group("div"),
        [a, b],
        [a, b],
        |[x, y]| semfuzz_fp::div(T::FORMAT, x, y, RM),
        |[x, y]| v(x).div(v(y)).bits(),
    );
    compare(
        c,
        &group("fma"),
        [a, b, d],
        [a, b, d],
        |[x, y, z]| semfuzz_fp::fma(T::FORMAT, x, y, z, RM),
        |[x, y, z]| v(x).fma(v(y), v(z)).bits(),
    );
    compare(
        c,
        &group("sqrt"),
        [s],
        [s],
        |[x]| semfuzz_fp::sqrt(T::FORMAT, x, RM),
        |[x]| v(x).sqrt().bits(),
    );
}

fn f32_ops(c: &mut Criterion) {
    suite::<f32>(c);
    let boundary: Vec<u64> = BoundaryGen::new(Format::F32, 5).take(2 * BATCH).collect();
    let (a, b) = boundary.split_at(BATCH);
    compare(
        c,
        "f32/add boundary",
        [a, b],
        [a, b],
        |[x, y]| semfuzz_fp::add(Format::F32, x, y, RM),
        |[x, y]| f32::of_bits(x).add(f32::of_bits(y)).bits(),
    );
}

fn f64_ops(c: &mut Criterion) {
    suite::<f64>(c);
}

fn f16_ops(c: &mut Criterion) {
    let f = Format::F16;
    let a = random_inputs(f, 1, false);
    let b = random_inputs(f, 2, false);
    let widen = |xs: &[u64]| -> Vec<u64> {
        xs.iter()
            .map(|&x| semfuzz_fp::convert(f, Format::F32, x, RM))
            .collect()
    };
    let (wa, wb) = (widen(&a), widen(&b));
    compare(
        c,
        "f16/add",
        [&a, &b],
        [&wa, &wb],
        |[x, y]| semfuzz_fp::add(Format::F16, x, y, RM),
        |[x, y]| f32::of_bits(x).add(f32::of_bits(y)).bits(),
    );
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = f32_ops, f64_ops, f16_ops
}
criterion_main!(benches);
