//! Shared helpers for the spec tests.
#![allow(dead_code)]

// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

/// The embedded specs, loaded once per test binary.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        Spec::embedded().unwrap_or_else(|e| panic!("embedded specs fail to load:\n{e}"))
    })
}

/// Evaluates `instr` on `inputs`; one accept set per destination part.
pub fn eval(instr: &str, inputs: &[u64]) -> Vec<Accept> {
    let v = spec()
        .lookup(instr, Some(inputs.len()))
        .unwrap_or_else(|d| panic!("{instr}: {d}"));
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// Evaluates a one-part instruction whose ISA result is a single bit pattern.
pub fn exact(instr: &str, inputs: &[u64]) -> u64 {
    match eval(instr, inputs)[..] {
        [Accept::Exact(b)] => b,
        ref other => panic!("{instr} {inputs:x?}: expected one exact result, got {other:?}"),
    }
}

/// The requirement (`PTX ISA 4.2, sm_53`) of the variant `instr` with `n_sources` sources.
pub fn requirement(instr: &str, n_sources: usize) -> String {
    spec()
        .lookup(instr, Some(n_sources))
        .unwrap_or_else(|d| panic!("{instr}: {d}"))
        .requirement
        .to_string()
}

/// Why `instr` with `n_sources` sources is refused: the message and its hint.
pub fn refusal(instr: &str, n_sources: usize) -> String {
    let d = spec()
        .lookup(instr, Some(n_sources))
        .err()
        .unwrap_or_else(|| panic!("{instr} resolved"));
    format!("{} {}", d.message, d.hint.unwrap_or_default())
}

pub const F32_ONE: u64 = 0x3f80_0000;
pub const F32_TWO: u64 = 0x4000_0000;
pub const F32_THREE: u64 = 0x4040_0000;
pub const F32_NEG_ZERO: u64 = 0x8000_0000;
pub const F32_INF: u64 = 0x7f80_0000;
pub const F32_NEG_INF: u64 = 0xff80_0000;
pub const F32_QNAN: u64 = 0x7fc0_0000;
pub const F32_MIN_SUB: u64 = 0x0000_0001;
pub const F32_MIN_NORMAL: u64 = 0x0080_0000;
pub const F32_CANONICAL_NAN: u64 = 0x7fff_ffff;

pub fn neg32(x: u64) -> u64 {
    x ^ 0x8000_0000
}

/// An operation rounded once, for [`tiny_after_rounding`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rounded {
    Add,
    Sub,
    Mul,
    Fma,
}

/// Formats of the half formats' precision and one more exponent bit: rounding there is
/// rounding "as though the exponent range were unbounded" for every result near 2^emin.
struct HalfWideRange;
impl rustc_apfloat::ieee::Semantics for HalfWideRange {
    const BITS: usize = 17;
    const EXP_BITS: usize = 6;
}
struct BFloatWideRange;
impl rustc_apfloat::ieee::Semantics for BFloatWideRange {
    const BITS: usize = 17;
    const EXP_BITS: usize = 9;
}

/// Whether `op` of the f16 (or, with `bf16`, bf16) operands, rounded to nearest, is tiny after
/// rounding (IEEE 754-2019 7.5): rounded to the format's precision with an unbounded exponent,
/// below the smallest normal magnitude. `.ftz` flushes such results (docs/ambiguities.md 7:
/// what an H200 does); rustc_apfloat (LLVM's APFloat) computes it, independently of the spec.
pub fn tiny_after_rounding(bf16: bool, op: Rounded, a: u64, b: u64, c: u64) -> bool {
    use rustc_apfloat::ieee::{IeeeFloat, Semantics};
    use rustc_apfloat::{Float, FloatConvert, Round};
    fn run<N: Semantics, W: Semantics>(op: Rounded, a: u64, b: u64, c: u64) -> bool {
        let wide = |x: IeeeFloat<N>| -> IeeeFloat<W> {
            let mut inexact = false;
            let w = x.convert(&mut inexact).value;
            assert!(!inexact, "widening is exact");
            w
        };
        let [a, b, c] = [a, b, c].map(|x| wide(IeeeFloat::<N>::from_bits(x.into())));
        let rm = Round::NearestTiesToEven;
        let r = match op {
            Rounded::Add => a.add_r(b, rm),
            Rounded::Sub => a.sub_r(b, rm),
            Rounded::Mul => a.mul_r(b, rm),
            Rounded::Fma => a.mul_add_r(b, c, rm),
        }
        .value;
        r.is_finite() && r.abs() < wide(IeeeFloat::<N>::smallest_normalized())
    }
    if bf16 {
        run::<rustc_apfloat::ieee::BFloatS, BFloatWideRange>(op, a, b, c)
    } else {
        run::<rustc_apfloat::ieee::HalfS, HalfWideRange>(op, a, b, c)
    }
}

/// A deterministic stream of 64-bit values (xorshift), the low bits of which make inputs.
pub struct Bits(pub u64);

impl Bits {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
