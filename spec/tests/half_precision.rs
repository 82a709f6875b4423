//! PTX ISA 9.7.4 Half Precision Floating-Point Instructions (with the 9.7.4.8 max excerpt):
//! every prose rule as a test citing it, the instruction text of every syntax and example line,
//! every unary variant over all 65,536 inputs per lane, and the rounded arithmetic against an
//! independent soft-float (`rustc_apfloat`, LLVM's APFloat) with flush, saturation, ReLU and OOB
//! written again here.

mod common;
use common::{eval, exact, spec, tiny_after_rounding, Rounded};
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, Round as ApRound};
use semfuzz_spec::ast::ExprKind;
use semfuzz_spec::catalog::{Requirement, EMBEDDED};
use semfuzz_spec::diag::SourceFile;
// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::collections::BTreeSet;

// ---- the two 16-bit formats, written out independently of the spec and of semfuzz-fp ----

/// A 16-bit binary format: 1 sign bit, `exp` exponent bits, `16 - 1 - exp` trailing bits.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fmt {
    exp: u32,
}

const F16: Fmt = Fmt { exp: 5 };
const BF16: Fmt = Fmt { exp: 8 };
const SIGN: u64 = 0x8000;

impl Fmt {
    fn man_mask(self) -> u64 {
        (1 << (15 - self.exp)) - 1
    }
    fn exp_mask(self) -> u64 {
        0x7FFF & !self.man_mask()
    }
    fn is_nan(self, x: u64) -> bool {
        x & self.exp_mask() == self.exp_mask() && x & self.man_mask() != 0
    }
    fn is_subnormal(self, x: u64) -> bool {
        x & self.exp_mask() == 0 && x & self.man_mask() != 0
    }
    /// +1.0: the biased exponent 2^(exp-1) - 1 and a zero significand.
    fn one(self) -> u64 {
        ((1 << (self.exp - 1)) - 1) << (15 - self.exp)
    }
    /// "flushing subnormal inputs and results to sign-preserving zero".
    fn flush(self, x: u64) -> u64 {
        if self.is_subnormal(x) {
            x & SIGN
        } else {
            x
        }
    }
    fn name(self) -> &'static str {
        if self == F16 {
            "f16"
        } else {
            "bf16"
        }
    }
}

const F16_ONE: u64 = 0x3C00;
const F16_TWO: u64 = 0x4000;
const F16_THREE: u64 = 0x4200;
const F16_HALF: u64 = 0x3800;
const F16_MIN_SUB: u64 = 0x0001;
const F16_MIN_NORMAL: u64 = 0x0400;
const F16_INF: u64 = 0x7C00;
const F16_QNAN: u64 = 0x7E00;
const BF16_ONE: u64 = 0x3F80;
const BF16_TWO: u64 = 0x4000;
const BF16_THREE: u64 = 0x4040;
const BF16_INF: u64 = 0x7F80;
const BF16_QNAN: u64 = 0x7FC0;
const NEG_ZERO: u64 = 0x8000;
/// DESIGN.md: the canonical NaN of the 16-bit formats.
const CANONICAL_16: u64 = 0x7FFF;

fn neg(x: u64) -> u64 {
    x ^ SIGN
}

/// Two lanes into one .f16x2/.bf16x2 register: "fA[0] = a[0:15]; fA[1] = a[16:31];".
fn pack(lo: u64, hi: u64) -> u64 {
    lo | hi << 16
}

fn is_any_nan(a: &Accept) -> bool {
    matches!(a, Accept::AnyNan(_))
}

/// The value of a `const` of the loaded specs (the OOB-NaN patterns are assumptions the spec
/// names; the tests follow whatever they are set to).
fn spec_const(name: &str) -> u64 {
    match spec().resolved.consts.get(name).map(|e| &e.kind) {
        Some(ExprKind::Int(v)) => *v,
        other => panic!("const {name} is not an integer: {other:?}"),
    }
}

// ---- prose rules, one test each ----

// 9.7.4: "Half-precision add, sub, mul, and fma support saturation of results to the range
// [0.0, 1.0], with NaNs being flushed to positive zero." 9.7.4.1: "add.sat.{f16, f16x2} clamps
// the result to [0.0, 1.0]. NaN results are flushed to +0.0f."
#[test]
fn saturation_clamps_and_flushes_nan_to_positive_zero() {
    assert_eq!(exact("add.sat.f16", &[F16_INF, neg(F16_INF)]), 0);
    assert_eq!(exact("mul.sat.f16", &[F16_QNAN, F16_ONE]), 0);
    assert_eq!(
        exact("sub.rn.sat.f16", &[0xFE00, F16_ONE]),
        0,
        "a negative NaN too"
    );
    assert_eq!(exact("fma.rn.sat.f16", &[0, F16_INF, F16_ONE]), 0);
    assert_eq!(exact("add.sat.f16", &[F16_ONE, F16_ONE]), F16_ONE);
    assert_eq!(exact("add.sat.f16", &[F16_INF, F16_ONE]), F16_ONE);
    assert_eq!(exact("sub.sat.f16", &[F16_ONE, F16_THREE]), 0);
    assert_eq!(exact("mul.sat.f16", &[F16_HALF, F16_ONE]), F16_HALF);
    assert_eq!(
        exact("fma.rn.ftz.sat.f16", &[F16_HALF, F16_HALF, F16_HALF]),
        0x3A00
    ); // 0.75
       // Chosen reading of prelude.sem `saturate`: -0.0 saturates to +0.0.
    assert_eq!(exact("add.sat.f16", &[NEG_ZERO, NEG_ZERO]), 0);
    // Lanes saturate independently.
    let r = eval(
        "add.sat.f16x2",
        &[pack(F16_TWO, F16_QNAN), pack(F16_ONE, F16_ONE)],
    );
    assert_eq!(r, vec![Accept::Exact(F16_ONE), Accept::Exact(0)]);
}

// 9.7.4.1: "add.ftz.{f16, f16x2} flushes subnormal inputs and results to sign-preserving zero."
// (The same sentence for sub, mul, fma, neg, abs, min and max.)
#[test]
fn ftz_flushes_to_sign_preserving_zero() {
    let neg_sub = neg(F16_MIN_SUB);
    assert_eq!(exact("add.ftz.f16", &[neg_sub, NEG_ZERO]), NEG_ZERO);
    assert_eq!(exact("add.f16", &[neg_sub, NEG_ZERO]), neg_sub);
    // A result that underflows: 2^-14 * -0.5 = -2^-15, subnormal.
    assert_eq!(
        exact("mul.ftz.f16", &[F16_MIN_NORMAL, neg(F16_HALF)]),
        NEG_ZERO
    );
    assert_eq!(exact("mul.f16", &[F16_MIN_NORMAL, neg(F16_HALF)]), 0x8200);
    // A flushed input: 2^-15 * 2^15 is 1.0 unless the subnormal is flushed first.
    assert_eq!(exact("mul.rn.ftz.f16", &[0x0200, 0x7800]), 0);
    assert_eq!(exact("mul.rn.f16", &[0x0200, 0x7800]), F16_ONE);
    assert_eq!(exact("sub.ftz.f16", &[F16_MIN_SUB, 0]), 0);
    assert_eq!(exact("fma.rn.ftz.f16", &[0x0200, 0x7800, 0]), 0);
    assert_eq!(exact("abs.ftz.f16", &[neg_sub]), 0);
    assert_eq!(exact("abs.f16", &[neg_sub]), F16_MIN_SUB);
    assert_eq!(exact("neg.ftz.f16", &[F16_MIN_SUB]), NEG_ZERO);
    assert_eq!(exact("neg.f16", &[F16_MIN_SUB]), neg_sub);
    assert_eq!(exact("min.ftz.f16", &[neg_sub, F16_MIN_SUB]), NEG_ZERO);
    assert_eq!(exact("max.ftz.f16", &[neg_sub, F16_MIN_SUB]), 0);
    assert_eq!(exact("max.f16", &[neg_sub, F16_MIN_SUB]), F16_MIN_SUB);
    // Per lane.
    let r = eval("neg.ftz.f16x2", &[pack(F16_MIN_SUB, F16_ONE)]);
    assert_eq!(
        r,
        vec![Accept::Exact(NEG_ZERO), Accept::Exact(neg(F16_ONE))]
    );
    // bf16 has no .ftz: its subnormals are kept ("By default, subnormal numbers are supported").
    assert_eq!(exact("add.bf16", &[0x0001, 0]), 0x0001);
    assert_eq!(exact("mul.bf16", &[0x0080, 0x3F00]), 0x0040); // 2^-126 * 0.5
}

// 9.7.4.4: "fma.relu.{f16, f16x2, bf16, bf16x2} clamps the result to 0 if negative. NaN result
// is converted to canonical NaN."
#[test]
fn relu_clamps_negative_results_and_canonicalizes_nan() {
    assert_eq!(exact("fma.rn.relu.f16", &[F16_ONE, neg(F16_TWO), 0]), 0);
    assert_eq!(
        exact("fma.rn.relu.f16", &[F16_ONE, F16_TWO, F16_ONE]),
        F16_THREE
    );
    assert_eq!(
        exact("fma.rn.relu.f16", &[F16_INF, 0, F16_ONE]),
        CANONICAL_16,
        "invalid: canonical, not any NaN"
    );
    assert_eq!(
        exact("fma.rn.relu.f16", &[0xFE01, F16_ONE, F16_ONE]),
        CANONICAL_16,
        "a NaN input"
    );
    assert_eq!(exact("fma.rn.relu.bf16", &[BF16_ONE, neg(BF16_TWO), 0]), 0);
    assert_eq!(exact("fma.rn.relu.bf16", &[BF16_INF, 0, 0]), CANONICAL_16);
    assert_eq!(
        exact("fma.rn.relu.bf16", &[BF16_ONE, BF16_TWO, BF16_ONE]),
        BF16_THREE
    );
    // Chosen reading (ptx-9.7.4-half-precision.sem `relu_clamp`): -0.0 is clamped to +0.0.
    assert_eq!(exact("fma.rn.relu.f16", &[NEG_ZERO, F16_ONE, NEG_ZERO]), 0);
    // .ftz then .relu: a negative subnormal result flushes to -0.0, then clamps to +0.0; a
    // positive one flushes to +0.0 with .ftz and is kept without.
    assert_eq!(
        exact("fma.rn.ftz.relu.f16", &[F16_MIN_NORMAL, F16_HALF, 0]),
        0
    );
    assert_eq!(
        exact("fma.rn.relu.f16", &[F16_MIN_NORMAL, F16_HALF, 0]),
        0x0200
    );
    assert_eq!(
        exact("fma.rn.ftz.relu.f16", &[F16_MIN_NORMAL, neg(F16_HALF), 0]),
        0
    );
    // Without .relu the NaN is unspecified and a negative result stays.
    assert!(is_any_nan(&eval("fma.rn.f16", &[F16_INF, 0, F16_ONE])[0]));
    assert_eq!(
        exact("fma.rn.f16", &[F16_ONE, neg(F16_TWO), 0]),
        neg(F16_TWO)
    );
    // Per lane.
    let r = eval(
        "fma.rn.relu.bf16x2",
        &[pack(BF16_ONE, BF16_INF), pack(neg(BF16_ONE), 0), 0],
    );
    assert_eq!(r, vec![Accept::Exact(0), Accept::Exact(CANONICAL_16)]);
}

// 9.7.4.4: "fma.oob.{f16, f16x2, bf16, bf16x2} clamps the result to 0 if either of the operands
// is OOB NaN (defined under Tensors) value. The test for the special NaN value and resultant
// forcing of the result to +0.0 is performed independently for each of the two SIMD
// operations."
#[test]
fn oob_nan_operands_force_positive_zero() {
    let (oob16, oobbf) = (spec_const("OOB_NAN_F16"), spec_const("OOB_NAN_BF16"));
    // The assumed patterns are NaNs of their formats and not the canonical NaN.
    assert!(
        F16.is_nan(oob16) && BF16.is_nan(oobbf) && oob16 != CANONICAL_16 && oobbf != CANONICAL_16
    );
    // Chosen reading of "either of the operands": a or b, the two factors, the OOB NaN of
    // either sign (docs/ambiguities.md 12, 122).
    assert_eq!(exact("fma.rn.oob.f16", &[oob16, F16_ONE, F16_ONE]), 0);
    assert_eq!(
        exact("fma.rn.oob.f16", &[F16_ONE, oob16, neg(F16_THREE)]),
        0
    );
    assert_eq!(exact("fma.rn.oob.f16", &[neg(oob16), F16_ONE, F16_ONE]), 0);
    assert!(is_any_nan(
        &eval("fma.rn.oob.f16", &[F16_ONE, F16_ONE, oob16])[0]
    ));
    assert_eq!(exact("fma.rn.oob.relu.f16", &[oob16, F16_ONE, F16_ONE]), 0);
    assert_eq!(exact("fma.rn.oob.bf16", &[oobbf, BF16_ONE, BF16_ONE]), 0);
    assert_eq!(
        exact("fma.rn.oob.relu.bf16", &[BF16_ONE, neg(oobbf), BF16_ONE]),
        0
    );
    // Other NaNs are ordinary NaNs under .oob; without .oob the OOB NaN is an ordinary NaN.
    assert!(is_any_nan(
        &eval("fma.rn.oob.f16", &[F16_QNAN, F16_ONE, F16_ONE])[0]
    ));
    assert!(is_any_nan(
        &eval("fma.rn.f16", &[oob16, F16_ONE, F16_ONE])[0]
    ));
    assert_eq!(
        exact("fma.rn.oob.relu.f16", &[F16_QNAN, F16_ONE, F16_ONE]),
        CANONICAL_16
    );
    // Numbers are unaffected.
    assert_eq!(
        exact("fma.rn.oob.f16", &[F16_ONE, F16_TWO, F16_ONE]),
        F16_THREE
    );
    // Per lane: lane 0 sees the OOB NaN, lane 1 computes 1 * 2 + 1.
    let r = eval(
        "fma.rn.oob.f16x2",
        &[
            pack(oob16, F16_ONE),
            pack(F16_ONE, F16_TWO),
            pack(F16_ONE, F16_ONE),
        ],
    );
    assert_eq!(r, vec![Accept::Exact(0), Accept::Exact(F16_THREE)]);
    let r = eval(
        "fma.rn.oob.bf16x2",
        &[
            pack(BF16_ONE, BF16_ONE),
            pack(BF16_TWO, oobbf),
            pack(BF16_ONE, BF16_ONE),
        ],
    );
    assert_eq!(r, vec![Accept::Exact(BF16_THREE), Accept::Exact(0)]);
}

// 9.7.4.7 min / 9.7.4.8 max: "If values of both inputs are 0.0, then +0.0 > -0.0."
#[test]
fn min_max_order_signed_zeros() {
    for ty in ["f16", "bf16"] {
        for (a, b) in [(0, NEG_ZERO), (NEG_ZERO, 0)] {
            assert_eq!(
                exact(&format!("min.{ty}"), &[a, b]),
                NEG_ZERO,
                "min.{ty}({a:x}, {b:x})"
            );
            assert_eq!(
                exact(&format!("max.{ty}"), &[a, b]),
                0,
                "max.{ty}({a:x}, {b:x})"
            );
        }
        let r = eval(
            &format!("min.{ty}x2"),
            &[pack(0, NEG_ZERO), pack(NEG_ZERO, 0)],
        );
        assert_eq!(r, vec![Accept::Exact(NEG_ZERO), Accept::Exact(NEG_ZERO)]);
        let r = eval(
            &format!("max.{ty}x2"),
            &[pack(0, NEG_ZERO), pack(NEG_ZERO, 0)],
        );
        assert_eq!(r, vec![Accept::Exact(0), Accept::Exact(0)]);
    }
    assert_eq!(exact("min.f16", &[F16_TWO, neg(F16_ONE)]), neg(F16_ONE));
    assert_eq!(exact("max.bf16", &[BF16_TWO, neg(BF16_THREE)]), BF16_TWO);
}

// 9.7.4.7: "If .NaN modifier is specified, then the result is canonical NaN if either of the
// inputs is NaN." Pseudo-code: "else if (isNaN(a)) d = b; else if (isNaN(b)) d = a;";
// "if (isNaN(a) && isNaN(b)) d = NaN;", unspecified: "Half-precision instructions return an
// unspecified NaN."
#[test]
fn nan_modifier_gives_canonical_nan() {
    assert_eq!(exact("min.NaN.f16", &[F16_QNAN, F16_ONE]), CANONICAL_16);
    assert_eq!(
        exact("max.NaN.f16", &[F16_ONE, 0xFC01]),
        CANONICAL_16,
        "a negative signaling NaN"
    );
    assert_eq!(exact("max.NaN.bf16", &[BF16_QNAN, BF16_QNAN]), CANONICAL_16);
    assert_eq!(
        exact("min.ftz.NaN.f16", &[F16_MIN_SUB, F16_QNAN]),
        CANONICAL_16
    );
    let r = eval(
        "min.NaN.bf16x2",
        &[pack(BF16_ONE, BF16_ONE), pack(BF16_QNAN, BF16_TWO)],
    );
    assert_eq!(
        r,
        vec![Accept::Exact(CANONICAL_16), Accept::Exact(BF16_ONE)]
    );
    // Without .NaN, one NaN input gives the other input.
    assert_eq!(exact("min.f16", &[F16_QNAN, F16_ONE]), F16_ONE);
    assert_eq!(exact("max.bf16", &[BF16_TWO, BF16_QNAN]), BF16_TWO);
    assert!(is_any_nan(&eval("min.f16", &[F16_QNAN, 0xFE00])[0]));
    assert!(is_any_nan(
        &eval("max.bf16x2", &[pack(0, BF16_QNAN), pack(0, BF16_QNAN)])[1]
    ));
}

// 9.7.4.7: "If .abs modifier is specified, the magnitude of destination operand d is the minimum
// of absolute values of both the input arguments." "If .xorsign modifier is specified, the sign
// bit of destination d is equal to the XOR of the sign bits of both the inputs." ".xorsign
// considers the sign bit of both inputs before applying .abs operation." "If the result of min
// is NaN then the .xorsign and .abs modifiers will be ignored."
#[test]
fn xorsign_abs() {
    assert_eq!(
        exact("min.xorsign.abs.f16", &[neg(F16_TWO), F16_THREE]),
        neg(F16_TWO)
    );
    assert_eq!(
        exact("min.xorsign.abs.f16", &[neg(F16_TWO), neg(F16_THREE)]),
        F16_TWO
    );
    assert_eq!(
        exact("max.xorsign.abs.f16", &[F16_ONE, neg(F16_THREE)]),
        neg(F16_THREE)
    );
    assert_eq!(
        exact("max.xorsign.abs.bf16", &[neg(BF16_ONE), neg(BF16_THREE)]),
        BF16_THREE
    );
    assert_eq!(
        exact("max.NaN.xorsign.abs.f16", &[neg(F16_ONE), F16_QNAN]),
        CANONICAL_16
    );
    // One NaN, no .NaN: the other input, with the xor of both signs (the NaN's sign counts).
    assert_eq!(
        exact("min.xorsign.abs.f16", &[neg(F16_ONE), F16_QNAN]),
        neg(F16_ONE)
    );
    assert_eq!(
        exact("min.xorsign.abs.bf16", &[BF16_ONE, 0xFFC0]),
        neg(BF16_ONE)
    );
    // 9.7.4.8's x2 max pseudo-code tests "!isNaN(fA[i])"; chosen reading "!isNaN(d[i])". Lane 0:
    // a NaN fA with fB = -3 gives -3 (the literal reading: |fB| = +3). Lane 1: .NaN with a NaN
    // fB gives the canonical NaN unchanged (the literal reading would set its sign bit).
    let r = eval(
        "max.xorsign.abs.f16x2",
        &[pack(F16_QNAN, F16_ONE), pack(neg(F16_THREE), F16_TWO)],
    );
    assert_eq!(
        r,
        vec![Accept::Exact(neg(F16_THREE)), Accept::Exact(F16_TWO)]
    );
    let r = eval(
        "max.NaN.xorsign.abs.bf16x2",
        &[pack(BF16_ONE, neg(BF16_ONE)), pack(BF16_TWO, BF16_QNAN)],
    );
    assert_eq!(
        r,
        vec![Accept::Exact(BF16_TWO), Accept::Exact(CANONICAL_16)]
    );
}

// 9.7.4: "Half-precision instructions return an unspecified NaN." 9.7.4.5/6: "NaN inputs yield
// an unspecified NaN." (Unlike .f64, no payload is propagated.)
#[test]
fn nan_results_are_unspecified() {
    assert!(is_any_nan(&eval("add.f16", &[0x7E12, F16_ONE])[0]));
    assert!(is_any_nan(&eval("add.bf16", &[BF16_INF, neg(BF16_INF)])[0]));
    assert!(
        is_any_nan(&eval("mul.rn.ftz.f16", &[F16_INF, F16_MIN_SUB])[0]),
        "inf * flushed 0"
    );
    assert!(is_any_nan(
        &eval("fma.rn.bf16", &[0xFF81, BF16_ONE, BF16_ONE])[0]
    ));
    assert!(is_any_nan(&eval("abs.f16", &[0xFE00])[0]));
    assert!(is_any_nan(&eval("neg.bf16", &[BF16_QNAN])[0]));
    let r = eval("neg.bf16x2", &[pack(BF16_ONE, 0x7F81)]);
    assert_eq!(r[0], Accept::Exact(neg(BF16_ONE)));
    assert!(is_any_nan(&r[1]));
}

// 9.7.4.4: "Performs a fused multiply-add with no loss of precision in the intermediate product
// and addition."
#[test]
fn fma_rounds_once() {
    // (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20, lost by a separately rounded product.
    assert_eq!(exact("fma.rn.f16", &[0x3C01, 0x3C01, neg(0x3C02)]), 0x0010);
    assert_eq!(
        exact("fma.rn.ftz.f16", &[0x3C01, 0x3C01, neg(0x3C02)]),
        0,
        "2^-20 is subnormal in f16"
    );
    // (1 + 2^-7)^2 - (1 + 2^-6) = 2^-14.
    assert_eq!(exact("fma.rn.bf16", &[0x3F81, 0x3F81, neg(0x3F82)]), 0x3880);
}

// 9.7.4.1: "The default value of rounding modifier is .rn. ... An add instruction with no
// rounding modifier defaults to round-to-nearest-even and may be optimized aggressively by the
// code optimizer. In particular, mul/add sequences with no rounding modifiers may be optimized
// to use fused-multiply-add instructions". 9.7.4.4 fma: the syntax requires `.rnd`.
#[test]
fn default_rounding_is_rn_and_fusable() {
    let s = spec();
    for (plain, rn) in [
        ("add.f16", "add.rn.f16"),
        ("sub.ftz.sat.f16x2", "sub.rn.ftz.sat.f16x2"),
        ("mul.bf16", "mul.rn.bf16"),
        ("add.bf16x2", "add.rn.bf16x2"),
    ] {
        let (p, r) = (
            s.lookup(plain, Some(2)).unwrap(),
            s.lookup(rn, Some(2)).unwrap(),
        );
        assert!(p.fusable && !r.fusable, "{plain} fusable, {rn} not");
        assert_eq!(p.program, r.program, "{plain} means {rn}");
    }
    // Round to nearest, ties to even: 1 + 2^-11 is a tie between 1 and 1 + 2^-10.
    assert_eq!(exact("add.f16", &[F16_ONE, 0x1000]), F16_ONE);
    assert_eq!(exact("add.f16", &[0x3C01, 0x1000]), 0x3C02);
    for t in ["fma.rn.f16", "fma.rn.relu.bf16x2", "fma.rn.oob.f16"] {
        assert!(!s.lookup(t, Some(3)).unwrap().fusable, "{t}");
    }
}

// PTX ISA Notes and Target ISA Notes of 9.7.4.1-8, per form and per modifier.
#[test]
fn requirements() {
    let req = |t: &str, n| {
        spec()
            .lookup(t, Some(n))
            .unwrap_or_else(|d| panic!("{t}: {d}"))
            .requirement
    };
    let r = |ptx: (u32, u32), sm: u32| Requirement {
        ptx: Some(ptx),
        sm: Some(sm),
    };
    // "Introduced in PTX ISA version 4.2." "Requires sm_53 or higher."
    for t in [
        "add.f16",
        "sub.rn.ftz.sat.f16",
        "mul.ftz.f16x2",
        "add.rn.sat.f16x2",
    ] {
        assert_eq!(req(t, 2), r((4, 2), 53), "{t}");
    }
    assert_eq!(req("fma.rn.ftz.sat.f16x2", 3), r((4, 2), 53));
    // "add{.rnd}.bf16 and add{.rnd}.bf16x2 introduced in PTX ISA version 7.8." "... requires sm_90"
    for t in ["add.bf16", "sub.rn.bf16x2", "mul.bf16", "mul.rn.bf16x2"] {
        assert_eq!(req(t, 2), r((7, 8), 90), "{t}");
    }
    // "fma.relu.{f16, f16x2} and fma{.relu}.{bf16, bf16x2} introduced in PTX ISA version 7.0."
    // "... require sm_80 or higher."
    for t in [
        "fma.rn.relu.f16",
        "fma.rn.ftz.relu.f16x2",
        "fma.rn.bf16",
        "fma.rn.relu.bf16x2",
    ] {
        assert_eq!(req(t, 3), r((7, 0), 80), "{t}");
    }
    // "Support for modifier .oob introduced in PTX ISA version 8.1." "fma{.oob}.{f16, f16x2,
    // bf16, bf16x2} requires sm_90 or higher."
    for t in [
        "fma.rn.oob.f16",
        "fma.rn.oob.relu.f16x2",
        "fma.rn.oob.bf16",
        "fma.rn.oob.relu.bf16x2",
    ] {
        assert_eq!(req(t, 3), r((8, 1), 90), "{t}");
    }
    // neg: "Introduced in PTX ISA version 6.0." "Requires sm_53"; abs: "6.5"; both: ".bf16 and
    // .bf16x2 introduced in PTX ISA 7.0", "requires architecture sm_80 or higher".
    assert_eq!(req("neg.f16", 1), r((6, 0), 53));
    assert_eq!(req("neg.ftz.f16x2", 1), r((6, 0), 53));
    assert_eq!(req("abs.ftz.f16", 1), r((6, 5), 53));
    assert_eq!(req("abs.f16x2", 1), r((6, 5), 53));
    for t in ["neg.bf16", "neg.bf16x2", "abs.bf16", "abs.bf16x2"] {
        assert_eq!(req(t, 1), r((7, 0), 80), "{t}");
    }
    // min/max: "Introduced in PTX ISA version 7.0." "Requires sm_80 or higher."
    // "min.xorsign introduced in PTX ISA version 7.2." "min.xorsign.abs support requires sm_86".
    for t in ["min.f16", "max.ftz.NaN.f16x2", "min.bf16", "max.NaN.bf16x2"] {
        assert_eq!(req(t, 2), r((7, 0), 80), "{t}");
    }
    for t in [
        "min.xorsign.abs.f16",
        "max.ftz.NaN.xorsign.abs.f16x2",
        "min.NaN.xorsign.abs.bf16",
        "max.xorsign.abs.bf16x2",
    ] {
        assert_eq!(req(t, 2), r((7, 2), 86), "{t}");
    }
}

// ---- instruction text ----

/// The syntax lines of 9.7.4.1-10, expanded here by hand into every modifier sequence they
/// allow: (opcode, optional/alternative modifier slots, type, sources).
fn manual_variants() -> BTreeSet<(String, usize)> {
    let opt = |m: &'static str| vec!["", m];
    let req = |m: &'static str| vec![m];
    let mut lines: Vec<(&str, Vec<Vec<&str>>, &str, usize)> = Vec::new();
    for op in ["add", "sub", "mul"] {
        // "add{.rnd}{.ftz}{.sat}.f16", "...f16x2", "add{.rnd}.bf16", "...bf16x2"; ".rnd = { .rn }"
        lines.push((op, vec![opt("rn"), opt("ftz"), opt("sat")], "f16", 2));
        lines.push((op, vec![opt("rn"), opt("ftz"), opt("sat")], "f16x2", 2));
        lines.push((op, vec![opt("rn")], "bf16", 2));
        lines.push((op, vec![opt("rn")], "bf16x2", 2));
    }
    // "fma.rnd{.ftz}{.sat}.f16", "fma.rnd{.ftz}.relu.f16", "fma.rnd{.relu}.bf16",
    // "fma.rnd.oob.{relu}.type" (.type: f16, f16x2, bf16, bf16x2)
    for t in ["f16", "f16x2"] {
        lines.push(("fma", vec![req("rn"), opt("ftz"), opt("sat")], t, 3));
        lines.push(("fma", vec![req("rn"), opt("ftz"), req("relu")], t, 3));
    }
    for t in ["bf16", "bf16x2"] {
        lines.push(("fma", vec![req("rn"), opt("relu")], t, 3));
    }
    for t in ["f16", "f16x2", "bf16", "bf16x2"] {
        lines.push(("fma", vec![req("rn"), req("oob"), opt("relu")], t, 3));
    }
    for op in ["neg", "abs"] {
        lines.push((op, vec![opt("ftz")], "f16", 1));
        lines.push((op, vec![opt("ftz")], "f16x2", 1));
        lines.push((op, vec![], "bf16", 1));
        lines.push((op, vec![], "bf16x2", 1));
    }
    for op in ["min", "max"] {
        // "min{.ftz}{.NaN}{.xorsign.abs}.f16", "min{.NaN}{.xorsign.abs}.bf16"
        lines.push((
            op,
            vec![opt("ftz"), opt("NaN"), opt("xorsign.abs")],
            "f16",
            2,
        ));
        lines.push((
            op,
            vec![opt("ftz"), opt("NaN"), opt("xorsign.abs")],
            "f16x2",
            2,
        ));
        lines.push((op, vec![opt("NaN"), opt("xorsign.abs")], "bf16", 2));
        lines.push((op, vec![opt("NaN"), opt("xorsign.abs")], "bf16x2", 2));
    }
    // 9.7.4.9 "tanh.approx.type" (.type: f16, f16x2, bf16, bf16x2); 9.7.4.10
    // "ex2.approx.atype" (.atype: f16, f16x2), "ex2.approx.ftz.btype" (.btype: bf16, bf16x2)
    for t in ["f16", "f16x2", "bf16", "bf16x2"] {
        lines.push(("tanh", vec![req("approx")], t, 1));
    }
    for t in ["f16", "f16x2"] {
        lines.push(("ex2", vec![req("approx")], t, 1));
    }
    for t in ["bf16", "bf16x2"] {
        lines.push(("ex2", vec![req("approx"), req("ftz")], t, 1));
    }
    let mut out = BTreeSet::new();
    for (op, slots, ty, n) in lines {
        let mut texts = vec![op.to_string()];
        for slot in slots {
            texts = texts
                .iter()
                .flat_map(|t| {
                    slot.iter().map(move |m| {
                        if m.is_empty() {
                            t.clone()
                        } else {
                            format!("{t}.{m}")
                        }
                    })
                })
                .collect();
        }
        out.extend(texts.into_iter().map(|t| (format!("{t}.{ty}"), n)));
    }
    out
}

/// The half-precision variants of the loaded specs are exactly those the syntax lines allow.
#[test]
fn every_syntax_line_resolves_and_nothing_else() {
    let expected = manual_variants();
    assert_eq!(expected.len(), 152);
    for (text, n) in &expected {
        let v = spec()
            .lookup(text, Some(*n))
            .unwrap_or_else(|d| panic!("{text}: {d}"));
        assert_eq!(&v.text, text);
        let ty = text.rsplit('.').next().unwrap();
        assert!(
            v.sources.iter().chain(&v.dests).all(|o| o.ty == ty),
            "{text}: operands {:?}",
            v.sources
        );
        let lanes = if ty.ends_with("x2") { 2 } else { 1 };
        assert_eq!(v.program.dests[0].parts.len(), lanes, "{text}");
        assert_eq!(v.dests[0].width, 16 * lanes as u32, "{text}");
    }
    let half = ["f16", "f16x2", "bf16", "bf16x2"];
    let in_spec: BTreeSet<(String, usize)> = spec()
        .variants
        .iter()
        // 9.7.7.1 `set` (16-bit sources too) has its own syntax lines: tests/set.rs; so have
        // 9.7.9.21 `cvt` (from .f16/.bf16): tests/cvt.rs, 9.7.7.2 `setp`: tests/setp_half.rs,
        // and SASS HMUL2 (f16x2 registers): tests/hmul2.rs; LLVM IR on half and bfloat:
        // tests/llvm_ir.rs; 9.7.13.5 `atom` (`.add.noftz.f16`) its own.
        .filter(|v| {
            half.contains(&v.sources[0].ty.as_str())
                && v.family != "set"
                && v.family != "setp"
                && v.family != "cvt"
                && v.family != "atom"
                && !semfuzz_spec::sass::looks_like_sass(&v.text)
                && !v.is_llvm_ir()
                // 9.7.5's mixed-precision `add`/`sub` (an f16 or bf16 source, an f32
                // result): tests/mixed_precision.rs.
                && v.dests[0].ty != "f32"
        })
        .map(|v| (v.text.clone(), v.sources.len()))
        .collect();
    let extra: Vec<_> = in_spec.difference(&expected).collect();
    assert!(
        extra.is_empty(),
        "variants no 9.7.4 syntax line allows: {extra:?}"
    );
}

/// Every example line of 9.7.4.1-10, as written (operands included).
#[test]
fn every_example_resolves() {
    let examples = "
        add.f16 d0, a0, b0; add.rn.f16 d1, a1, b1; add.bf16 bd0, ba0, bb0; add.rn.bf16 bd1, ba1, bb1;
        add.f16x2 p3, p1, p2; add.bf16x2 p6, p4, p5; add.f16x2 f2, f0, f1; add.bf16x2 f5, f3, f4;
        sub.f16 d0, a0, b0; sub.rn.f16 d1, a1, b1; sub.bf16 bd0, ba0, bb0; sub.rn.bf16 bd1, ba1, bb1;
        sub.f16x2 p3, p1, p2; sub.bf16x2 p6, p4, p5; sub.f16x2 f2, f0, f1; sub.bf16x2 f5, f3, f4;
        mul.f16 d0, a0, b0; mul.rn.f16 d1, a1, b1; mul.bf16 bd0, ba0, bb0; mul.rn.bf16 bd1, ba1, bb1;
        mul.f16x2 p3, p1, p2; mul.bf16x2 p6, p4, p5; mul.f16x2 f2, f0, f1; mul.bf16x2 f5, f3, f4;
        fma.rn.f16 d0, a0, b0, c0; fma.rn.f16 d1, a1, b1, c1; fma.rn.relu.f16 d1, a1, b1, c1;
        fma.rn.oob.f16 d1, a1, b1, c1; fma.rn.oob.relu.f16 d1, a1, b1, c1;
        fma.rn.bf16 d1, a1, b1, c1; fma.rn.relu.bf16 d1, a1, b1, c1; fma.rn.oob.bf16 d1, a1, b1, c1;
        fma.rn.oob.relu.bf16 d1, a1, b1, c1; fma.rn.f16x2 p3, p1, p2, p2;
        fma.rn.relu.f16x2 p3, p1, p2, p2; fma.rn.oob.f16x2 p3, p1, p2, p2;
        fma.rn.oob.relu.f16x2 p3, p1, p2, p2; fma.rn.f16x2 f2, f0, f1, f1;
        fma.rn.bf16x2 f2, f0, f1, f1; fma.rn.relu.bf16x2 f2, f0, f1, f1;
        fma.rn.oob.bf16x2 f2, f0, f1, f1; fma.rn.oob.relu.bf16x2 f2, f0, f1, f1;
        neg.ftz.f16 x,f0; neg.bf16 x,b0; neg.bf16x2 x1,b1;
        abs.ftz.f16 x,f0; abs.bf16 x,b0; abs.bf16x2 x1,b1;
        min.ftz.f16 h0,h1,h2; min.f16x2 b0,b1,b2; min.NaN.f16x2 b0,b1,b2; min.bf16 h0, h1, h2;
        min.NaN.bf16x2 b0, b1, b2; min.xorsign.abs.bf16 Rd, Ra, Rb;
        max.ftz.f16 h0,h1,h2; max.f16x2 b0,b1,b2; max.NaN.f16x2 b0,b1,b2; max.xorsign.abs.f16 Rd, Ra, Rb;
        max.bf16 h0, h1, h2; max.NaN.bf16x2 b0, b1, b2; max.xorsign.abs.bf16x2 Rd, Ra, Rb;
        tanh.approx.f16 h1, h0; tanh.approx.f16x2 hd1, hd0; tanh.approx.bf16 b1, b0;
        tanh.approx.bf16x2 hb1, hb0;
        ex2.approx.f16 h1, h0; ex2.approx.f16x2 hd1, hd0; ex2.approx.ftz.bf16 b1, b2;
        ex2.approx.ftz.bf16x2 hb1, hb2;";
    let mut n = 0;
    for line in examples.split(';').map(str::trim).filter(|l| !l.is_empty()) {
        let (text, operands) = line.split_once(' ').unwrap();
        let sources = operands.split(',').count() - 1;
        let v = spec()
            .lookup(text, Some(sources))
            .unwrap_or_else(|d| panic!("`{line}`: {d}"));
        assert_eq!(v.text, text);
        n += 1;
    }
    assert_eq!(n, 69);
}

fn error(text: &str, n: usize) -> String {
    match spec().lookup(text, Some(n)) {
        Ok(v) => panic!("`{text}` unexpectedly names {}", v.text),
        Err(d) => format!("{}\n{}", d.message, d.hint.unwrap_or_default()),
    }
}

// ".rnd = { .rn }" for every half-precision form; .ftz and .sat only for .f16 and .f16x2.
#[test]
fn invalid_text_is_explained() {
    let e = error("mul.rz.f16", 2);
    assert!(
        e.contains("`.rz` is not allowed in `mul.rz.f16`") && e.contains("without it: `mul.f16`"),
        "{e}"
    );
    assert!(
        e.contains("mul{.rnd}{.ftz}{.sat}.f16 d, a, b; .rnd = { .rn }"),
        "the form shows the restriction: {e}"
    );
    // `add` has a form with `.rz` and an f16 source since 9.7.5: the mixed-precision add,
    // whose result is f32; the message names it.
    let e = error("add.rz.f16", 2);
    assert!(e.contains("did you mean `add.rz.f32.f16`?"), "{e}");
    let e = error("mul.rp.bf16x2", 2);
    assert!(e.contains("`.rp` is not allowed in `mul.rp.bf16x2`"), "{e}");
    // fma has no default rounding, so dropping `.rm` names no variant either: the message lists
    // the forms, whose syntax shows the restriction.
    let e = error("fma.rm.f16", 3);
    assert!(
        e.contains("`fma.rm.f16` matches no form of `fma`")
            && e.contains("fma.rnd{.ftz}{.sat}.f16 d, a, b, c; .rnd = { .rn }"),
        "{e}"
    );
    let e = error("mul.sat.bf16", 2);
    assert!(
        e.contains("`.sat` is not allowed in `mul.sat.bf16`")
            && e.contains("mul{.rnd}.bf16 d, a, b"),
        "{e}"
    );
    let e = error("sub.ftz.bf16", 2);
    assert!(e.contains("`.ftz` is not allowed in `sub.ftz.bf16`"), "{e}");
    let e = error("neg.ftz.bf16x2", 1);
    assert!(e.contains("`.ftz` is not allowed"), "{e}");
    let e = error("min.ftz.bf16", 2);
    assert!(e.contains("`.ftz` is not allowed"), "{e}");
    let e = error("fma.f16", 3);
    assert!(
        e.contains("lacks its required .rnd modifier") && e.contains("fma.rn.f16"),
        "{e}"
    );
    let e = error("fma.rn.sat.relu.f16", 3);
    assert!(e.contains("is not allowed in `fma.rn.sat.relu.f16`"), "{e}");
    let e = error("fma.rn.ftz.bf16", 3);
    assert!(e.contains("`.ftz` is not allowed"), "{e}");
    let e = error("fma.rn.ftz.oob.f16", 3);
    assert!(e.contains("`.ftz` is not allowed"), "{e}");
    let e = error("fma.rn.relu.oob.f16", 3);
    assert!(
        e.contains("out of order") && e.contains("fma.rn.oob.relu.f16"),
        "{e}"
    );
    let e = error("max.xorsign.f16", 2);
    assert!(e.contains("needs `.abs`"), "{e}");
    let e = error("min.f16", 3);
    assert!(e.contains("takes 2 (a, b)"), "{e}");
    let e = error("add.f16x4", 2);
    assert!(e.contains("`.f16x4` is not a modifier of `add`"), "{e}");
}

// ---- exhaustive unary ----

/// 9.7.4.5 neg "d = -a" and 9.7.4.6 abs "d = |a|", each lane, with ".ftz" flushing inputs and
/// results to sign-preserving zero and "NaN inputs yield an unspecified NaN".
fn unary_reference(f: Fmt, is_abs: bool, ftz: bool, x: u64) -> Option<u64> {
    if f.is_nan(x) {
        return None;
    }
    let x = if ftz { f.flush(x) } else { x };
    Some(if is_abs { x & !SIGN } else { x ^ SIGN })
}

fn check_part(text: &str, inputs: &[u64], lane: usize, got: &Accept, want: Option<u64>) {
    match want {
        None => assert!(
            is_any_nan(got),
            "{text} {inputs:x?} lane {lane}: want any NaN, spec says {got:?}"
        ),
        Some(w) => assert_eq!(
            *got,
            Accept::Exact(w),
            "{text} {inputs:x?} lane {lane}: want 0x{w:04x}"
        ),
    }
}

#[test]
fn unary_exhaustive() {
    let mut checked = 0u64;
    for (f, ftzs) in [(F16, &[false, true][..]), (BF16, &[false][..])] {
        for op in ["neg", "abs"] {
            for &ftz in ftzs {
                for x2 in [false, true] {
                    let text = format!(
                        "{op}{}.{}{}",
                        if ftz { ".ftz" } else { "" },
                        f.name(),
                        if x2 { "x2" } else { "" }
                    );
                    let v = spec().lookup(&text, Some(1)).unwrap();
                    let mut ev = Evaluator::new(&v.program);
                    let mut out = vec![Accept::default(); ev.n_parts()];
                    for x in 0..0x1_0000u64 {
                        // The high lane runs through all 65,536 values too, in another order.
                        let hi = (x * 40503 + 12345) & 0xFFFF;
                        let input = if x2 { pack(x, hi) } else { x };
                        ev.eval(&[input], &mut out);
                        for (lane, val) in [x, hi].into_iter().take(out.len()).enumerate() {
                            check_part(
                                &text,
                                &[input],
                                lane,
                                &out[lane],
                                unary_reference(f, op == "abs", ftz, val),
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert_eq!(checked, 6 * 3 * 65_536);
}

// ---- rounded arithmetic against rustc_apfloat ----

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Add,
    Sub,
    Mul,
    Fma,
}

/// One rounding (to nearest, ties to even: ".rn mantissa LSB rounds to nearest even") of the
/// operation in APFloat.
fn apfloat(f: Fmt, op: Op, a: u64, b: u64, c: u64) -> u64 {
    fn run<T: Float>(op: Op, a: u64, b: u64, c: u64) -> u64 {
        let (a, b, c) = (
            T::from_bits(a.into()),
            T::from_bits(b.into()),
            T::from_bits(c.into()),
        );
        let rm = ApRound::NearestTiesToEven;
        let r = match op {
            Op::Add => a.add_r(b, rm),
            Op::Sub => a.sub_r(b, rm),
            Op::Mul => a.mul_r(b, rm),
            Op::Fma => a.mul_add_r(b, c, rm),
        };
        r.value.to_bits() as u64
    }
    if f == F16 {
        run::<Half>(op, a, b, c)
    } else {
        run::<BFloat>(op, a, b, c)
    }
}

/// The modifiers of a variant, read from its text.
#[derive(Clone, Copy, Default, Debug)]
struct Mods {
    ftz: bool,
    sat: bool,
    relu: bool,
    oob: bool,
}

/// What 9.7.4 says one lane holds (None: "an unspecified NaN").
fn arith_reference(f: Fmt, op: Op, m: Mods, oob_nan: u64, a: u64, b: u64, c: u64) -> Option<u64> {
    // ".oob ... clamps the result to 0 if either of the operands is OOB NaN"; "+0.0". Either
    // factor, the marker of either sign (docs/ambiguities.md 12, 122).
    let is_oob = |x: u64| x & !SIGN == oob_nan;
    if m.oob && (is_oob(a) || is_oob(b)) {
        return Some(0);
    }
    // ".ftz flushes subnormal inputs and results to sign-preserving zero": a result when tiny
    // after rounding (docs/ambiguities.md 7).
    let fl = |x: u64| if m.ftz { f.flush(x) } else { x };
    let (a, b, c) = (fl(a), fl(b), fl(c));
    let r = apfloat(f, op, a, b, c);
    let rounded = match op {
        Op::Add => Rounded::Add,
        Op::Sub => Rounded::Sub,
        Op::Mul => Rounded::Mul,
        Op::Fma => Rounded::Fma,
    };
    let r = if m.ftz && tiny_after_rounding(f == BF16, rounded, a, b, c) {
        r & SIGN
    } else {
        r
    };
    if m.relu {
        // "clamps the result to 0 if negative. NaN result is converted to canonical NaN."
        return Some(if f.is_nan(r) {
            CANONICAL_16
        } else if r & SIGN != 0 {
            0
        } else {
            r
        });
    }
    if m.sat {
        // "clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f." (-0.0: +0.0)
        return Some(if f.is_nan(r) || r & SIGN != 0 {
            0
        } else if r > f.one() {
            f.one()
        } else {
            r
        });
    }
    if f.is_nan(r) {
        None
    } else {
        Some(r)
    }
}

/// Every add/sub/mul/fma variant of `opcode` on the half types, `cases` boundary-heavy inputs
/// each. Returns (cases, lanes checked, lanes where .sat/.relu/.oob changed the result).
fn differential(opcode: &str, cases: usize) -> (usize, usize, usize) {
    let s = spec();
    let (oob16, oobbf) = (spec_const("OOB_NAN_F16"), spec_const("OOB_NAN_BF16"));
    let op = match opcode {
        "add" => Op::Add,
        "sub" => Op::Sub,
        "mul" => Op::Mul,
        _ => Op::Fma,
    };
    let (mut total, mut lanes, mut special) = (0, 0, 0);
    let mut variants = 0;
    // 9.7.5's mixed-precision forms (an f32 result) are tests/mixed_precision.rs's.
    for v in s
        .variants
        .iter()
        .filter(|v| v.family == opcode && v.dests[0].ty != "f32")
    {
        let ty = v.sources[0].ty.as_str();
        let f = match ty {
            "f16" | "f16x2" => F16,
            "bf16" | "bf16x2" => BF16,
            _ => continue,
        };
        variants += 1;
        let tokens: Vec<&str> = v.text.split('.').collect();
        let m = Mods {
            ftz: tokens.contains(&"ftz"),
            sat: tokens.contains(&"sat"),
            relu: tokens.contains(&"relu"),
            oob: tokens.contains(&"oob"),
        };
        let oob_nan = if f == F16 { oob16 } else { oobbf };
        let n_lanes = if ty.ends_with("x2") { 2 } else { 1 };
        let mut ev = Evaluator::new(&v.program);
        let mut out = vec![Accept::default(); ev.n_parts()];
        assert_eq!(out.len(), n_lanes, "{}: one part per lane", v.text);
        let mut samples = Samples::new(s, v, 0x5EED ^ variants as u64);
        let mut inputs = vec![0u64; v.sources.len()];
        for _ in 0..cases {
            samples.fill(&mut inputs);
            ev.eval(&inputs, &mut out);
            for (lane, got) in out.iter().enumerate() {
                let x = |k: usize| inputs.get(k).map_or(0, |v| (v >> (16 * lane)) & 0xFFFF);
                let (a, b, c) = (x(0), x(1), x(2));
                let want = arith_reference(f, op, m, oob_nan, a, b, c);
                if (m.sat || m.relu || m.oob)
                    && want
                        != arith_reference(
                            f,
                            op,
                            Mods {
                                sat: false,
                                relu: false,
                                oob: false,
                                ..m
                            },
                            oob_nan,
                            a,
                            b,
                            c,
                        )
                {
                    special += 1;
                }
                check_part(&v.text, &inputs, lane, got, want);
                lanes += 1;
            }
            total += 1;
        }
    }
    let expected_variants = if opcode == "fma" { 24 } else { 20 };
    assert_eq!(
        variants, expected_variants,
        "{opcode}: half-precision variants"
    );
    (total, lanes, special)
}

// 9.7.4.1-4: "d = a + b", "d = a - b", "d = a * b", "d = a * b + c" rounded once to nearest
// even, with .ftz, .sat, .relu and .oob as written in the notes; every variant, per lane.
// 10.5 M cases in all (125,000 per variant over 84 variants), 15.75 M lanes.
const CASES_PER_VARIANT: usize = 125_000;

#[test]
fn add_against_apfloat() {
    let (cases, lanes, special) = differential("add", CASES_PER_VARIANT);
    assert!(
        cases == 20 * CASES_PER_VARIANT && lanes > cases && special > 10_000,
        "{cases} {lanes} {special}"
    );
}

#[test]
fn sub_against_apfloat() {
    let (cases, lanes, special) = differential("sub", CASES_PER_VARIANT);
    assert!(
        cases == 20 * CASES_PER_VARIANT && lanes > cases && special > 10_000,
        "{cases} {lanes} {special}"
    );
}

#[test]
fn mul_against_apfloat() {
    let (cases, lanes, special) = differential("mul", CASES_PER_VARIANT);
    assert!(
        cases == 20 * CASES_PER_VARIANT && lanes > cases && special > 10_000,
        "{cases} {lanes} {special}"
    );
}

#[test]
fn fma_against_apfloat() {
    let (cases, lanes, special) = differential("fma", CASES_PER_VARIANT);
    assert!(
        cases == 24 * CASES_PER_VARIANT && lanes > cases && special > 10_000,
        "{cases} {lanes} {special}"
    );
}

/// The references above must be able to fail: a spec whose half `add` forgets to flush its
/// result (or ignores .sat) is caught by the same comparison.
#[test]
fn reference_catches_a_wrong_spec() {
    let f = F16;
    let m = Mods {
        ftz: true,
        ..Mods::default()
    };
    // 0.125 * -(2^-11 - 2^-21): tiny after rounding, -2^-14 once rounded into f16; flushed
    // with .ftz (the reading an H200 follows), kept without.
    assert_eq!(
        arith_reference(f, Op::Mul, m, 0, 0x3000, 0x8fff, 0),
        Some(SIGN)
    );
    assert_eq!(
        arith_reference(f, Op::Mul, Mods::default(), 0, 0x3000, 0x8fff, 0),
        Some(0x8400)
    );
    // 2^-14 * 0.5: subnormal without .ftz, -0.0/+0.0 with it.
    assert_eq!(
        arith_reference(f, Op::Mul, Mods::default(), 0, F16_MIN_NORMAL, F16_HALF, 0),
        Some(0x0200)
    );
    assert_eq!(
        arith_reference(f, Op::Mul, m, 0, F16_MIN_NORMAL, F16_HALF, 0),
        Some(0)
    );
    assert_eq!(
        arith_reference(f, Op::Add, Mods { sat: true, ..m }, 0, F16_TWO, F16_ONE, 0),
        Some(F16_ONE)
    );
    assert_eq!(
        arith_reference(f, Op::Fma, Mods { relu: true, ..m }, 0, F16_INF, 0, 0),
        Some(CANONICAL_16)
    );
    assert_eq!(
        arith_reference(
            BF16,
            Op::Add,
            Mods::default(),
            0,
            BF16_INF,
            neg(BF16_INF),
            0
        ),
        None
    );
    // And the evaluator's answer for the flushed case differs from the unflushed reference.
    assert_ne!(
        eval("mul.ftz.f16", &[F16_MIN_NORMAL, F16_HALF])[0],
        Accept::Exact(0x0200)
    );
}

// ---- the two spec-language additions 9.7.4 needs ----

fn load(src: &str) -> Result<Spec, String> {
    let files = vec![
        SourceFile::new("prelude.sem", EMBEDDED[0].1),
        SourceFile::new("test.sem", src),
    ];
    Spec::from_files(files).map_err(|d| d.to_string())
}

/// A form may restrict a group as the manual's syntax blocks do (`; .rnd = { .rn }`), and a
/// required modifier that is not a format (`.relu` in `fma.rnd.relu.f16`) is a flag in `sem`.
#[test]
fn form_restrictions_and_literal_flags() {
    let src = "instr foo {
  form \"foo{.rnd}.f32 d, a\";
  form \"foo{.rnd}.twice.f16 d, a; .rnd = { .rn }\";
  group rnd = { .rn, .rz } default .rn fusable;
  sem { d = twice ? add(a, a, rnd) : a; }
}";
    let spec = load(src).unwrap_or_else(|e| panic!("{e}"));
    let mut texts: Vec<&str> = spec.variants.iter().map(|v| v.text.as_str()).collect();
    texts.sort();
    assert_eq!(
        texts,
        [
            "foo.f32",
            "foo.rn.f32",
            "foo.rn.twice.f16",
            "foo.rz.f32",
            "foo.twice.f16"
        ]
    );
    let run = |t: &str, x: u64| {
        let v = spec.lookup(t, Some(1)).unwrap();
        let mut out = [Accept::default()];
        Evaluator::new(&v.program).eval(&[x], &mut out);
        (out[0], v.fusable)
    };
    assert_eq!(
        run("foo.twice.f16", F16_ONE),
        (Accept::Exact(F16_TWO), true)
    );
    assert_eq!(
        run("foo.rn.twice.f16", F16_ONE),
        (Accept::Exact(F16_TWO), false)
    );
    assert_eq!(
        run("foo.rz.f32", 0x3F80_0000),
        (Accept::Exact(0x3F80_0000), false)
    );
    let e = spec.lookup("foo.rz.twice.f16", Some(1)).unwrap_err();
    assert!(e.message.contains("`.rz` is not allowed"), "{}", e.message);
}

#[test]
fn form_restriction_errors() {
    let head = "instr foo {\n  form \"foo{.rnd}.f32 d, a; ";
    let tail = "\";\n  group rnd = { .rn, .rz };\n  sem { d = a; }\n}";
    for (clause, location, message) in [
        (
            ".rnd = { .rm }",
            "test.sem:2:29",
            "`.rm` is not a member of group `rnd`",
        ),
        (
            ".mode = { .rn }",
            "test.sem:2:29",
            "`.mode` is not a group of this instruction",
        ),
        ("rnd = .rn", "test.sem:2:29", "expected `.group = { ... }`"),
        (
            ".rnd = .rn",
            "test.sem:2:29",
            "expected `{ .member, ... }` after `.rnd =`",
        ),
    ] {
        let e = load(&format!("{head}{clause}{tail}")).expect_err(clause);
        assert!(
            e.contains(location) && e.contains(message) && e.contains('^'),
            "{clause}:\n{e}"
        );
    }
    let e = load("instr foo {\n  form \"foo.f32 d, a; .rnd = { .rn }\";\n  group rnd = { .rn };\n  sem { d = a; }\n}").unwrap_err();
    assert!(
        e.contains("test.sem:2:23") && e.contains("this form does not use `.rnd`"),
        "{e}"
    );
}
