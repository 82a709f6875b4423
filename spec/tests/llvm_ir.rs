//! The LLVM IR specs (`spec/isa/llvm-fp.sem`; the LangRef text they encode is
//! `spec/isa-docs/llvm-langref-fp.md`) against independent models: LLVM's own APFloat
//! (`rustc_apfloat`) for the arithmetic, conversions, rounding and min/max, MPFR (`rug`) for
//! `llvm.sqrt`, Rust's float comparisons for `fcmp`, and LangRef's own examples. The rules
//! the IR adds to IEEE (NaN results, fast-math flags, denormal modes, poison) are checked on
//! cases built to hit each of them.

mod common;
use common::eval;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use semfuzz_spec::outcome::Accept;

/// A few hundred patterns of a `width`-bit format: the special values (zeros, infinities,
/// NaNs quiet and signaling, the smallest subnormal and normal, the largest, one) with both
/// signs, and pseudo-random patterns (a fixed LCG: the test is the same every run).
fn samples<F: Float>(width: u32) -> Vec<u64> {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let sign = 1u64 << (width - 1);
    let b = |f: F| f.to_bits() as u64;
    let mut out = Vec::new();
    for v in [
        b(F::ZERO),
        b(F::INFINITY),
        b(F::qnan(None)),
        b(F::snan(Some(1))),
        b(F::qnan(Some(5))),
        b(F::SMALLEST),
        b(F::smallest_normalized()),
        b(F::largest()),
        b(F::from_u128(1).value),
        b(F::from_u128(3).value),
        b(F::from_u128(10).value),
    ] {
        out.push(v);
        out.push(v ^ sign);
    }
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push((x >> 7) & mask);
    }
    out
}

/// What the evaluator accepts for `instr` on `inputs`: one part.
fn accept(instr: &str, inputs: &[u64]) -> Accept {
    let mut parts = eval(instr, inputs);
    assert_eq!(parts.len(), 1, "{instr}: one destination");
    parts.remove(0)
}

/// `instr` on `inputs` must give exactly `want`, or any NaN when `want` is a NaN
/// ("Behavior of Floating-Point NaN values" on NVPTX: docs/ambiguities.md 79).
fn expect_ieee<F: Float>(instr: &str, inputs: &[u64], want: F) {
    let got = accept(instr, inputs);
    if want.is_nan() {
        assert!(
            matches!(got, Accept::AnyNan(_)),
            "{instr} {inputs:x?}: a NaN result is any NaN, got {got:?}"
        );
    } else {
        assert_eq!(
            got,
            Accept::Exact(want.to_bits() as u64),
            "{instr} {inputs:x?}: APFloat gives {:#x}",
            want.to_bits()
        );
    }
}

/// fadd, fsub, fmul, fdiv, llvm.fma and llvm.fmuladd (where fused and unfused agree) of one
/// format against APFloat, rounding to nearest even ("Floating-Point Semantics").
fn arithmetic<F: Float>(ty: &str, width: u32) {
    let s = samples::<F>(width);
    let rn = Round::NearestTiesToEven;
    let f = |b: u64| F::from_bits(b.into());
    for (i, &a) in s.iter().enumerate() {
        for &b in s.iter().skip(i % 7).step_by(7) {
            let (x, y) = (f(a), f(b));
            expect_ieee(&format!("ir_fadd.{ty}"), &[a, b], x.add_r(y, rn).value);
            expect_ieee(&format!("ir_fsub.{ty}"), &[a, b], x.sub_r(y, rn).value);
            expect_ieee(&format!("ir_fmul.{ty}"), &[a, b], x.mul_r(y, rn).value);
            expect_ieee(&format!("ir_fdiv.{ty}"), &[a, b], x.div_r(y, rn).value);
            let c = s[(i * 31 + 5) % s.len()];
            expect_ieee(
                &format!("llvm_fma.{ty}"),
                &[a, b, c],
                x.mul_add_r(y, f(c), rn).value,
            );
        }
    }
}

#[test]
fn arithmetic_matches_apfloat_in_every_format() {
    arithmetic::<Half>("f16", 16);
    arithmetic::<BFloat>("bf16", 16);
    arithmetic::<Single>("f32", 32);
    arithmetic::<Double>("f64", 64);
}

/// The rounding intrinsics against APFloat's roundToIntegral: floor toward -inf, ceil toward
/// +inf, trunc toward zero, round halfway away from zero, rint, nearbyint and roundeven
/// halfway to even.
fn rounding<F: Float>(ty: &str, width: u32) {
    for a in samples::<F>(width) {
        let x = F::from_bits(a.into());
        for (name, rm) in [
            ("floor", Round::TowardNegative),
            ("ceil", Round::TowardPositive),
            ("trunc", Round::TowardZero),
            ("round", Round::NearestTiesToAway),
            ("rint", Round::NearestTiesToEven),
            ("nearbyint", Round::NearestTiesToEven),
            ("roundeven", Round::NearestTiesToEven),
        ] {
            expect_ieee(
                &format!("llvm_{name}.{ty}"),
                &[a],
                x.round_to_integral(rm).value,
            );
        }
    }
}

#[test]
fn rounding_intrinsics_match_apfloat() {
    rounding::<Half>("f16", 16);
    rounding::<BFloat>("bf16", 16);
    rounding::<Single>("f32", 32);
    rounding::<Double>("f64", 64);
    // LangRef "'llvm.round.*'": libm round rounds halfway cases away from zero: 2.5 -> 3.
    assert_eq!(
        accept("llvm_round.f32", &[0x4020_0000]),
        Accept::Exact(0x4040_0000)
    );
    assert_eq!(
        accept("llvm_roundeven.f32", &[0x4020_0000]),
        Accept::Exact(0x4000_0000)
    );
}

/// fptrunc and fpext against APFloat's conversion (round to nearest even).
#[test]
fn fptrunc_and_fpext_match_apfloat() {
    let rn = Round::NearestTiesToEven;
    let mut lost = false;
    for a in samples::<Double>(64) {
        let x = Double::from_bits(a.into());
        let r: Single = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fptrunc.f32.f64", &[a], r);
        let r: Half = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fptrunc.f16.f64", &[a], r);
        let r: BFloat = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fptrunc.bf16.f64", &[a], r);
    }
    for a in samples::<Single>(32) {
        let x = Single::from_bits(a.into());
        let r: Half = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fptrunc.f16.f32", &[a], r);
        let r: BFloat = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fptrunc.bf16.f32", &[a], r);
        let r: Double = x.convert_r(rn, &mut lost).value;
        expect_ieee("ir_fpext.f64.f32", &[a], r);
    }
    for a in samples::<Half>(16) {
        let r: Single = Half::from_bits(a.into()).convert_r(rn, &mut lost).value;
        expect_ieee("ir_fpext.f32.f16", &[a], r);
        let r: Single = BFloat::from_bits(a.into()).convert_r(rn, &mut lost).value;
        expect_ieee("ir_fpext.f32.bf16", &[a], r);
    }
}

/// fptosi/fptoui: "converts its floating-point operand into the nearest (rounding towards
/// zero) signed integer value. If the value cannot fit in ty2, the result is a poison value"
/// (any value here). Against APFloat's conversion to an integer of the width, whose status
/// says whether it fit; and sitofp/uitofp against APFloat's conversion from one.
#[test]
fn integer_conversions_match_apfloat() {
    let mut exact = false;
    for a in samples::<Single>(32) {
        let x = Single::from_bits(a.into());
        for w in [8usize, 16, 32, 64] {
            let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let s = x.to_i128_r(w, Round::TowardZero, &mut exact);
            let got = accept(&format!("ir_fptosi.i{w}.f32"), &[a]);
            if s.status.intersects(rustc_apfloat::Status::INVALID_OP) {
                assert!(
                    matches!(got, Accept::Poison(_)),
                    "fptosi {a:#x} to i{w}: poison, got {got:?}"
                );
            } else {
                assert_eq!(
                    got,
                    Accept::Exact(s.value as u64 & mask),
                    "fptosi {a:#x} to i{w}"
                );
            }
            let u = x.to_u128_r(w, Round::TowardZero, &mut exact);
            let got = accept(&format!("ir_fptoui.i{w}.f32"), &[a]);
            if u.status.intersects(rustc_apfloat::Status::INVALID_OP) {
                assert!(
                    matches!(got, Accept::Poison(_)),
                    "fptoui {a:#x} to i{w}: poison, got {got:?}"
                );
            } else {
                assert_eq!(got, Accept::Exact(u.value as u64), "fptoui {a:#x} to i{w}");
            }
        }
    }
    // LangRef's examples: "fptosi double -123.0 to i32 ; yields i32:-123", "fptoui double
    // 123.0 to i32 ; yields i32:123", and "fptoui float 1.04E+17 to i8 ; yields undefined".
    let d = |v: f64| v.to_bits();
    assert_eq!(
        accept("ir_fptosi.i32.f64", &[d(-123.0)]),
        Accept::Exact(0xFFFF_FF85)
    );
    assert_eq!(accept("ir_fptoui.i32.f64", &[d(123.0)]), Accept::Exact(123));
    assert!(matches!(
        accept("ir_fptoui.i8.f32", &[1.04e17f32.to_bits() as u64]),
        Accept::Poison(_)
    ));
    // An i1 holds 0 and -1 signed, 0 and 1 unsigned.
    assert_eq!(
        accept("ir_fptosi.i1.f32", &[(-1.0f32).to_bits() as u64]),
        Accept::Exact(1)
    );
    assert_eq!(
        accept("ir_fptoui.i1.f32", &[1.0f32.to_bits() as u64]),
        Accept::Exact(1)
    );
    assert!(matches!(
        accept("ir_fptosi.i1.f32", &[1.0f32.to_bits() as u64]),
        Accept::Poison(1)
    ));
    // sitofp/uitofp: "If the value cannot be exactly represented, it is rounded using the
    // default rounding mode."
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..500 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (s32, s64) = (x as u32 as i32, x as i64);
        let r = Single::from_i128(s32.into()).value;
        assert_eq!(
            accept("ir_sitofp.f32.i32", &[x as u32 as u64]),
            Accept::Exact(r.to_bits() as u64)
        );
        let r = Half::from_i128(s64.into()).value;
        assert_eq!(
            accept("ir_sitofp.f16.i64", &[x]),
            Accept::Exact(r.to_bits() as u64)
        );
        let r = Double::from_u128(x.into()).value;
        assert_eq!(
            accept("ir_uitofp.f64.i64", &[x]),
            Accept::Exact(r.to_bits() as u64)
        );
        let r = BFloat::from_u128((x as u16).into()).value;
        assert_eq!(
            accept("ir_uitofp.bf16.i16", &[x as u16 as u64]),
            Accept::Exact(r.to_bits() as u64)
        );
    }
    // "sitofp i8 -1 to double ; yields double:-1.0", "sitofp i32 257 to float ; yields
    // float:257.0".
    assert_eq!(
        accept("ir_sitofp.f64.i8", &[0xFF]),
        Accept::Exact((-1.0f64).to_bits())
    );
    assert_eq!(
        accept("ir_sitofp.f32.i32", &[257]),
        Accept::Exact(257.0f32.to_bits() as u64)
    );
}

/// fcmp's sixteen predicates against Rust's IEEE comparisons, NaNs and signed zeros included,
/// and LangRef's examples.
#[test]
fn fcmp_matches_rust_comparisons() {
    let s = samples::<Single>(32);
    for &a in &s {
        for &b in s.iter().step_by(5) {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            let u = x.is_nan() || y.is_nan();
            for (cond, want) in [
                ("false", false),
                ("oeq", x == y),
                ("ogt", x > y),
                ("oge", x >= y),
                ("olt", x < y),
                ("ole", x <= y),
                ("one", !u && x != y),
                ("ord", !u),
                ("ueq", u || x == y),
                ("ugt", u || x > y),
                ("uge", u || x >= y),
                ("ult", u || x < y),
                ("ule", u || x <= y),
                ("une", x != y),
                ("uno", u),
                ("true", true),
            ] {
                assert_eq!(
                    accept(&format!("ir_fcmp.{cond}.f32"), &[a, b]),
                    Accept::Exact(want.into()),
                    "fcmp {cond} {x} {y}"
                );
            }
        }
    }
    let f = |v: f32| v.to_bits() as u64;
    assert_eq!(
        accept("ir_fcmp.oeq.f32", &[f(4.0), f(5.0)]),
        Accept::Exact(0)
    );
    assert_eq!(
        accept("ir_fcmp.one.f32", &[f(4.0), f(5.0)]),
        Accept::Exact(1)
    );
    assert_eq!(
        accept("ir_fcmp.olt.f32", &[f(4.0), f(5.0)]),
        Accept::Exact(1)
    );
    assert_eq!(
        accept("ir_fcmp.ueq.f64", &[1.0f64.to_bits(), 2.0f64.to_bits()]),
        Accept::Exact(0)
    );
}

const F32_NEG_ZERO: u64 = 0x8000_0000;
const F32_QNAN: u64 = 0x7fc0_0000;
const F32_SNAN: u64 = 0x7f80_0001;

/// The min/max intrinsics against APFloat (minimum, maximum; minNum for the pairs that are not
/// two zeros, where LangRef now orders -0.0 < +0.0 and APFloat's 2008 minNum returns either),
/// and LangRef's own statements.
#[test]
fn min_max_intrinsics_follow_langref() {
    let s = samples::<Single>(32);
    let f = |b: u64| Single::from_bits(b.into());
    for &a in &s {
        for &b in s.iter().step_by(3) {
            let (x, y) = (f(a), f(b));
            expect_ieee("llvm_minimum.f32", &[a, b], x.minimum(y));
            expect_ieee("llvm_maximum.f32", &[a, b], x.maximum(y));
            let both_zero = x.is_zero() && y.is_zero();
            let snan = x.is_signaling() || y.is_signaling();
            if !(both_zero || snan) {
                expect_ieee("llvm_minnum.f32", &[a, b], x.min(y));
                expect_ieee("llvm_maxnum.f32", &[a, b], x.max(y));
                expect_ieee("llvm_minimumnum.f32", &[a, b], x.min(y));
                expect_ieee("llvm_maximumnum.f32", &[a, b], x.max(y));
            }
        }
    }
    let three = 3.0f32.to_bits() as u64;
    // "-0.0 is considered to be less than +0.0 for this intrinsic."
    assert_eq!(
        accept("llvm_minimum.f16", &[0x8000, 0]),
        Accept::Exact(0x8000)
    );
    assert_eq!(accept("llvm_maximum.f16", &[0x8000, 0]), Accept::Exact(0));
    // minnum: "-0.0 < +0.0 for the purposes of this intrinsic"; with nsz "the result of
    // minnum(-0.0, +0.0) may be either -0.0 or +0.0".
    assert_eq!(
        accept("llvm_minnum.f32", &[0, F32_NEG_ZERO]),
        Accept::Exact(F32_NEG_ZERO)
    );
    let either = accept("llvm_minnum.nsz.f32", &[0, F32_NEG_ZERO]);
    assert!(
        either.accepts(0) && either.accepts(F32_NEG_ZERO),
        "{either:?}"
    );
    // "If either operand is a qNaN, returns the other non-NaN operand."
    assert_eq!(
        accept("llvm_minnum.f32", &[F32_QNAN, three]),
        Accept::Exact(three)
    );
    assert_eq!(
        accept("llvm_maxnum.f32", &[three, F32_QNAN]),
        Accept::Exact(three)
    );
    // minimum: "If either operand is a NaN, returns NaN."
    assert!(matches!(
        accept("llvm_minimum.f32", &[F32_QNAN, three]),
        Accept::AnyNan(_)
    ));
    // minimumnum: "If one operand is NaN (including sNaN) and another operand is a number,
    // return the number."
    assert_eq!(
        accept("llvm_minimumnum.f32", &[F32_SNAN, three]),
        Accept::Exact(three)
    );
    // minnum with an sNaN: the number, or the quieted sNaN (docs/ambiguities.md 82).
    let got = accept("llvm_minnum.f32", &[F32_SNAN, three]);
    assert!(
        got.accepts(three) && got.accepts(0x7fc0_0001) && !got.accepts(F32_SNAN),
        "{got:?}"
    );
}

/// "'fneg'": "if the input is a NaN, then the quiet/signaling bit and payload are perfectly
/// preserved"; likewise llvm.fabs and llvm.copysign; and select returns its arm's bits.
#[test]
fn bitwise_operations_keep_nan_payloads() {
    for nan in [F32_SNAN, F32_QNAN | 0x1234, 0xffc0_0042] {
        assert_eq!(
            accept("ir_fneg.f32", &[nan]),
            Accept::Exact(nan ^ 0x8000_0000)
        );
        assert_eq!(
            accept("llvm_fabs.f32", &[nan]),
            Accept::Exact(nan & 0x7fff_ffff)
        );
        assert_eq!(
            accept("llvm_copysign.f32", &[nan, F32_NEG_ZERO]),
            Accept::Exact(nan | 0x8000_0000)
        );
        assert_eq!(accept("ir_select.f32", &[1, nan, 0]), Accept::Exact(nan));
        assert_eq!(accept("ir_bitcast.i32.f32", &[nan]), Accept::Exact(nan));
        assert_eq!(accept("ir_bitcast.f32.i32", &[nan]), Accept::Exact(nan));
    }
    // A math operation returns any NaN: fadd of an sNaN may be any NaN.
    assert!(matches!(
        accept("ir_fadd.f32", &[F32_SNAN, 0]),
        Accept::AnyNan(_)
    ));
    // llvm.canonicalize: "SNaNs must be quieted", the payload conserved, or NVPTX's single
    // canonical NaN.
    let c = accept("llvm_canonicalize.f32", &[F32_SNAN]);
    assert!(
        c.accepts(0x7fc0_0001) && c.accepts(0x7fff_ffff) && !c.accepts(F32_SNAN),
        "{c:?}"
    );
    assert_eq!(
        accept("llvm_canonicalize.f64", &[0x7ff0_0000_0000_0001]),
        Accept::Exact(0x7ff8_0000_0000_0001)
    );
}

/// Fast-math flags: nnan and ninf make a NaN or infinite argument or result poison (any
/// value) while every other case stays exact; nsz frees the sign of zeros; arcp allows
/// `a * (1.0 / b)`; afn any value. LangRef's select examples.
#[test]
fn fast_math_flags_allow_what_langref_says() {
    let f = |v: f32| v.to_bits() as u64;
    let (one, two) = (f(1.0), f(2.0));
    assert!(matches!(
        accept("ir_fadd.nnan.f32", &[F32_QNAN, two]),
        Accept::Poison(_)
    ));
    assert_eq!(
        accept("ir_fadd.nnan.f32", &[one, two]),
        Accept::Exact(f(3.0))
    );
    // The result would be a NaN: inf - inf.
    assert!(matches!(
        accept("ir_fsub.nnan.f32", &[f(f32::INFINITY), f(f32::INFINITY)]),
        Accept::Poison(_)
    ));
    // Without the flag, the NaN rule: any NaN, not any value.
    assert!(matches!(
        accept("ir_fadd.f32", &[F32_QNAN, two]),
        Accept::AnyNan(_)
    ));
    // ninf: an infinite argument, or an overflow.
    assert!(matches!(
        accept("ir_fmul.ninf.f32", &[f(f32::INFINITY), two]),
        Accept::Poison(_)
    ));
    assert!(matches!(
        accept("ir_fmul.ninf.f32", &[f(f32::MAX), two]),
        Accept::Poison(_)
    ));
    assert_eq!(
        accept("ir_fmul.ninf.f32", &[f(3.0), two]),
        Accept::Exact(f(6.0))
    );
    // nsz: 1 - 1 is +0.0 or -0.0; a division by a zero of either sign.
    let z = accept("ir_fsub.nsz.f32", &[one, one]);
    assert!(z.accepts(0) && z.accepts(F32_NEG_ZERO), "{z:?}");
    assert_eq!(accept("ir_fsub.f32", &[one, one]), Accept::Exact(0));
    let inf = accept("ir_fdiv.nsz.f32", &[one, 0]);
    assert!(
        inf.accepts(f(f32::INFINITY)) && inf.accepts(f(f32::NEG_INFINITY)),
        "{inf:?}"
    );
    // arcp: some quotient a / b differs from a * (1.0 / b) in float; both are allowed.
    let mut found = 0;
    for a in 1..200u32 {
        for b in [3.0f32, 7.0, 10.0, 11.0, 13.0] {
            let a = a as f32;
            let (q, p) = (a / b, a * (1.0 / b));
            if q != p {
                let got = accept("ir_fdiv.arcp.f32", &[f(a), f(b)]);
                assert!(got.accepts(f(q)) && got.accepts(f(p)), "{a}/{b}: {got:?}");
                assert_eq!(accept("ir_fdiv.f32", &[f(a), f(b)]), Accept::Exact(f(q)));
                found += 1;
            }
        }
    }
    assert!(
        found > 10,
        "only {found} quotients differ from the reciprocal product"
    );
    assert!(matches!(
        accept("llvm_sqrt.afn.f32", &[two]),
        Accept::Any(_)
    ));
    // "%Y = select nnan i1 true, float 0.0, float NaN ; yields float:0.0"; "%Z = select nnan
    // i1 false, float 0.0, float NaN ; yields float:poison".
    assert_eq!(
        accept("ir_select.nnan.f32", &[1, 0, F32_QNAN]),
        Accept::Exact(0)
    );
    assert!(matches!(
        accept("ir_select.nnan.f32", &[0, 0, F32_QNAN]),
        Accept::Poison(_)
    ));
    // fcmp nnan with a NaN argument: poison, either boolean.
    let p = accept("ir_fcmp.oeq.nnan.f32", &[F32_QNAN, one]);
    assert!(matches!(p, Accept::Poison(1)), "{p:?}");
    assert_eq!(
        accept("ir_fcmp.oeq.nnan.f32", &[one, one]),
        Accept::Exact(1)
    );
}

/// The denormal-fp-math modes: an input subnormal is read as zero (the sign kept, or +0.0),
/// a subnormal result may be flushed; and a text with mixed modes is refused with the reason.
#[test]
fn denormal_modes_flush_what_langref_says() {
    let tiny = 0x0000_0001u64; // the smallest f32 subnormal
    let one = 1.0f32.to_bits() as u64;
    let neg_tiny = tiny | 0x8000_0000;
    // ieee: exact.
    assert_eq!(accept("ir_fmul.f32", &[tiny, one]), Accept::Exact(tiny));
    // Input preserve-sign: "must treat any input denormal value as zero".
    assert_eq!(
        accept("ir_fmul.out_ps.in_ps.f32", &[neg_tiny, one]),
        Accept::Exact(F32_NEG_ZERO)
    );
    assert_eq!(
        accept("ir_fadd.out_pz.in_pz.f32", &[neg_tiny, 0]),
        Accept::Exact(0)
    );
    assert_eq!(
        accept("ir_fcmp.oeq.in_ps.f32", &[tiny, 0]),
        Accept::Exact(1)
    );
    assert_eq!(accept("ir_fcmp.oeq.f32", &[tiny, 0]), Accept::Exact(0));
    // Output: "denormal outputs may be flushed to zero ... It is not mandated". A subnormal
    // result from normal inputs: min_normal / 2.
    let min_normal = 0x0080_0000u64;
    let half = 0.5f32.to_bits() as u64;
    let r = accept(
        "ir_fmul.out_ps.in_ps.f32",
        &[min_normal | 0x8000_0000, half],
    );
    assert!(
        r.accepts(0x8040_0000) && r.accepts(F32_NEG_ZERO) && !r.accepts(0),
        "{r:?}"
    );
    let r = accept(
        "ir_fmul.out_pz.in_pz.f32",
        &[min_normal | 0x8000_0000, half],
    );
    assert!(
        r.accepts(0x8040_0000) && r.accepts(0) && !r.accepts(F32_NEG_ZERO),
        "{r:?}"
    );
    // fneg is no math operation: its subnormal stays.
    assert_eq!(accept("ir_fneg.f32", &[tiny]), Accept::Exact(neg_tiny));
    let d = common::spec()
        .lookup("ir_fadd.out_ps.in_pz.f32", Some(2))
        .expect_err("refused");
    assert!(
        d.message.contains("preserve-sign,preserve-sign"),
        "{}",
        d.message
    );
}

/// llvm.sqrt against MPFR: a square root of a normal f32 is normal, so MPFR at 24 bits with
/// its unbounded exponent rounds like binary32.
#[test]
fn sqrt_matches_mpfr() {
    for a in samples::<Single>(32) {
        let x = f32::from_bits(a as u32);
        let got = accept("llvm_sqrt.f32", &[a]);
        if x.is_nan() || x < 0.0 {
            assert!(matches!(got, Accept::AnyNan(_)), "sqrt {x}: {got:?}");
        } else if x.is_normal() {
            let want = rug::Float::with_val(24, x).sqrt().to_f32();
            assert_eq!(got, Accept::Exact(want.to_bits() as u64), "sqrt {x}");
        }
    }
}

/// What an integer instruction must give: `None` for poison (any value), else the bits.
fn expect_int(instr: &str, inputs: &[u64], want: Option<u64>) {
    let got = accept(instr, inputs);
    match want {
        Some(b) => assert_eq!(got, Accept::Exact(b), "{instr} {inputs:x?}"),
        // Poison (or, dividing by zero, undefined behaviour): any bits, of an i1 too.
        None => assert!(
            matches!(got, Accept::Poison(_) | Accept::Ub(_)),
            "{instr} {inputs:x?}: poison (any value), got {got:?}"
        ),
    }
}

/// The integer IR against Rust's own integer operations: every i8 value against every
/// seventh i8 value and every shift amount up to 9, and pseudo-random i32/i64 pairs, through add/sub/mul (nuw, nsw: Rust's checked arithmetic
/// says when each overflows), shl/lshr/ashr (exact, nuw, nsw, and an amount of the width or
/// more: poison), icmp's ten predicates, and trunc/zext/sext.
macro_rules! integer_ops {
    ($name:ident, $u:ty, $s:ty, $w:expr) => {
        fn $name(pairs: &[(u64, u64)]) {
            let ty = format!("i{}", $w);
            for &(a64, b64) in pairs {
                let (a, b) = (a64 as $u, b64 as $u);
                let (sa, sb) = (a as $s, b as $s);
                let m = |v: $u| v as u64;
                let at = |op: &str| format!("{op}.{ty}");
                for (op, wrap, u_ok, s_ok) in [
                    (
                        "ir_add",
                        a.wrapping_add(b),
                        a.checked_add(b).is_some(),
                        sa.checked_add(sb).is_some(),
                    ),
                    (
                        "ir_sub",
                        a.wrapping_sub(b),
                        a.checked_sub(b).is_some(),
                        sa.checked_sub(sb).is_some(),
                    ),
                    (
                        "ir_mul",
                        a.wrapping_mul(b),
                        a.checked_mul(b).is_some(),
                        sa.checked_mul(sb).is_some(),
                    ),
                ] {
                    expect_int(&at(op), &[a64, b64], Some(m(wrap)));
                    expect_int(
                        &at(&format!("{op}.nuw")),
                        &[a64, b64],
                        u_ok.then_some(m(wrap)),
                    );
                    expect_int(
                        &at(&format!("{op}.nsw")),
                        &[a64, b64],
                        s_ok.then_some(m(wrap)),
                    );
                }
                let n = b as u32;
                let fits = n < $w;
                let shl = a.checked_shl(n).unwrap_or(0);
                expect_int(&at("ir_shl"), &[a64, b64], fits.then_some(m(shl)));
                expect_int(
                    &at("ir_shl.nuw"),
                    &[a64, b64],
                    (fits && shl >> n == a).then_some(m(shl)),
                );
                expect_int(
                    &at("ir_shl.nsw"),
                    &[a64, b64],
                    (fits && ((shl as $s) >> n) == sa).then_some(m(shl)),
                );
                let lshr = a.checked_shr(n).unwrap_or(0);
                let ashr = sa.checked_shr(n).unwrap_or(0) as $u;
                expect_int(&at("ir_lshr"), &[a64, b64], fits.then_some(m(lshr)));
                expect_int(
                    &at("ir_lshr.exact"),
                    &[a64, b64],
                    (fits && lshr << n == a).then_some(m(lshr)),
                );
                expect_int(&at("ir_ashr"), &[a64, b64], fits.then_some(m(ashr)));
                expect_int(
                    &at("ir_ashr.exact"),
                    &[a64, b64],
                    (fits && ashr << n == a).then_some(m(ashr)),
                );
                expect_int(&at("ir_and"), &[a64, b64], Some(m(a & b)));
                expect_int(&at("ir_or"), &[a64, b64], Some(m(a | b)));
                expect_int(
                    &at("ir_or.disjoint"),
                    &[a64, b64],
                    (a & b == 0).then_some(m(a | b)),
                );
                expect_int(&at("ir_xor"), &[a64, b64], Some(m(a ^ b)));
                for (cond, want) in [
                    ("eq", a == b),
                    ("ne", a != b),
                    ("ugt", a > b),
                    ("uge", a >= b),
                    ("ult", a < b),
                    ("ule", a <= b),
                    ("sgt", sa > sb),
                    ("sge", sa >= sb),
                    ("slt", sa < sb),
                    ("sle", sa <= sb),
                ] {
                    expect_int(
                        &at(&format!("ir_icmp.{cond}")),
                        &[a64, b64],
                        Some(want.into()),
                    );
                }
            }
        }
    };
}
integer_ops!(i8_ops, u8, i8, 8);
integer_ops!(i32_ops, u32, i32, 32);
integer_ops!(i64_ops, u64, i64, 64);

#[test]
fn integer_instructions_match_rust() {
    let every_i8: Vec<(u64, u64)> = (0..=255u64)
        .flat_map(|a| (0..=255u64).step_by(7).chain(0..10).map(move |b| (a, b)))
        .collect();
    i8_ops(&every_i8);
    let mut x = 0x853c_49e6_748f_ea9bu64;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        x
    };
    let mut pairs = Vec::new();
    for _ in 0..1000 {
        let (a, b) = (next(), next());
        // Small amounts too, so that shifts are in range as often as not.
        pairs.push((a, b));
        pairs.push((a, b % 70));
        pairs.push((a >> (b % 64), b >> 58));
    }
    i64_ops(&pairs);
    let pairs32: Vec<(u64, u64)> = pairs
        .iter()
        .map(|&(a, b)| (a & 0xffff_ffff, b & 0xffff_ffff))
        .collect();
    i32_ops(&pairs32);
    // i1: add i1 1, 1 wraps to 0 (an unsigned overflow), and 1 is -1 signed.
    expect_int("ir_add.i1", &[1, 1], Some(0));
    expect_int("ir_add.nuw.i1", &[1, 1], None);
    expect_int("ir_mul.nsw.i1", &[1, 1], None);
    expect_int("ir_icmp.slt.i1", &[1, 0], Some(1));
    // LangRef's examples.
    expect_int("ir_shl.i32", &[1, 10], Some(1024));
    expect_int("ir_shl.i32", &[1, 32], None);
    expect_int("ir_lshr.i8", &[0xfe, 1], Some(0x7f));
    expect_int("ir_ashr.i8", &[0xfe, 1], Some(0xff));
    expect_int("ir_and.i32", &[15, 40], Some(8));
    expect_int("ir_or.i32", &[15, 40], Some(47));
    expect_int("ir_xor.i32", &[15, 40], Some(39));
    expect_int("ir_icmp.ule.i16", &[0xfffc, 5], Some(0));
    expect_int("ir_icmp.ult.i16", &[4, 5], Some(1));
}

/// llvm.smax/smin/umax/umin/abs against Rust's `max`, `min` and `unsigned_abs`; abs of
/// INT_MIN is INT_MIN, or poison with `is_int_min_poison`.
#[test]
fn integer_intrinsics_match_rust() {
    let mut x = 0x1234_5678_9abc_def1u64;
    for _ in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (a, b) = (x as u32, (x >> 32) as u32);
        let (sa, sb) = (a as i32, b as i32);
        let ops = [(a as u64), (b as u64)];
        expect_int("llvm_smax.i32", &ops, Some(sa.max(sb) as u32 as u64));
        expect_int("llvm_smin.i32", &ops, Some(sa.min(sb) as u32 as u64));
        expect_int("llvm_umax.i32", &ops, Some(a.max(b).into()));
        expect_int("llvm_umin.i32", &ops, Some(a.min(b).into()));
        expect_int("llvm_abs.i32", &[a.into()], Some(sa.unsigned_abs().into()));
        let poison = sa == i32::MIN;
        expect_int(
            "llvm_abs.poison.i32",
            &[a.into()],
            (!poison).then_some(sa.unsigned_abs().into()),
        );
    }
    expect_int("llvm_abs.i8", &[0x80], Some(0x80));
    expect_int("llvm_abs.poison.i8", &[0x80], None);
    expect_int("llvm_abs.poison.i8", &[0xff], Some(1));
    expect_int("llvm_smax.i8", &[0x80, 1], Some(1));
    expect_int("llvm_umax.i8", &[0x80, 1], Some(0x80));
}

/// trunc/zext/sext against Rust's casts, with trunc's nuw/nsw and zext's nneg, and
/// LangRef's examples; freeze is the identity (a value is never poison here).
#[test]
fn integer_casts_match_rust() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = x >> (x % 61);
        let t8 = v as u8;
        expect_int("ir_trunc.i8.i64", &[v], Some(t8.into()));
        expect_int(
            "ir_trunc.nuw.i8.i64",
            &[v],
            (v == t8 as u64).then_some(t8.into()),
        );
        expect_int(
            "ir_trunc.nsw.i8.i64",
            &[v],
            (v as i64 == t8 as i8 as i64).then_some(t8.into()),
        );
        let w = v as u32 as u64;
        expect_int("ir_zext.i64.i32", &[w], Some(w));
        expect_int("ir_sext.i64.i32", &[w], Some(v as u32 as i32 as i64 as u64));
        expect_int(
            "ir_zext.nneg.i64.i32",
            &[w],
            ((w as u32 as i32) >= 0).then_some(w),
        );
        expect_int(
            "ir_sext.i16.i8",
            &[v & 0xff],
            Some((v as u8 as i8 as i16 as u16).into()),
        );
        expect_int("ir_freeze.i64", &[v], Some(v));
    }
    expect_int("ir_trunc.i8.i32", &[257], Some(1));
    expect_int("ir_trunc.i1.i32", &[123], Some(1));
    expect_int("ir_trunc.i1.i32", &[122], Some(0));
    expect_int("ir_zext.i32.i1", &[1], Some(1));
    expect_int("ir_sext.i32.i1", &[1], Some(0xffff_ffff));
    expect_int("ir_sext.i16.i8", &[0xff], Some(0xffff));
    expect_int("ir_zext.nneg.i16.i8", &[0xff], None);
    expect_int("ir_freeze.f32", &[0x7f80_0001], Some(0x7f80_0001));
}

/// llvm.is.fpclass against the class APFloat gives each sample, bit by bit of the mask, and
/// LangRef's example: "the value 0x108 makes test for normal value".
#[test]
fn is_fpclass_tests_the_classes_langref_numbers() {
    for a in samples::<Single>(32) {
        let x = Single::from_bits(a.into());
        let neg = x.is_negative();
        let class = if x.is_signaling() {
            0
        } else if x.is_nan() {
            1
        } else if x.is_infinite() {
            if neg {
                2
            } else {
                9
            }
        } else if x.is_denormal() {
            if neg {
                4
            } else {
                7
            }
        } else if x.is_zero() {
            if neg {
                5
            } else {
                6
            }
        } else if neg {
            3
        } else {
            8
        };
        for bit in 0..10u64 {
            let want = u64::from(bit == class);
            assert_eq!(
                accept("llvm_is_fpclass.f32", &[a, 1 << bit]),
                Accept::Exact(want),
                "{a:#x} bit {bit}"
            );
        }
        let normal = u64::from(class == 3 || class == 8);
        assert_eq!(
            accept("llvm_is_fpclass.f32", &[a, 0x108]),
            Accept::Exact(normal),
            "{a:#x}"
        );
    }
}

/// llvm.fshl/fshr against the funnel shift done in twice the width: "the first two values are
/// concatenated as { %a : %b } ... shifted left, and the most significant bits are extracted"
/// (right: "the least significant bits"), the amount "modulo the element size"; and LangRef's
/// examples.
#[test]
fn funnel_shifts_match_the_double_width_shift() {
    let mut x = 0x0bad_cafe_dead_beefu64;
    for _ in 0..1000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (a, b, c) = (x as u32, (x >> 32) as u32, (x >> 20) as u32);
        let wide = u64::from(a) << 32 | u64::from(b);
        let ops = [u64::from(a), u64::from(b), u64::from(c)];
        expect_int(
            "llvm_fshl.i32",
            &ops,
            Some((wide << (c % 32)) >> 32 & 0xffff_ffff),
        );
        expect_int(
            "llvm_fshr.i32",
            &ops,
            Some((wide >> (c % 32)) & 0xffff_ffff),
        );
        let (a, b, c) = (x, x.rotate_left(17) ^ 0x5555, x >> 3);
        let wide = u128::from(a) << 64 | u128::from(b);
        let ops = [a, b, c];
        expect_int(
            "llvm_fshl.i64",
            &ops,
            Some(((wide << (c % 64)) >> 64) as u64),
        );
        expect_int("llvm_fshr.i64", &ops, Some((wide >> (c % 64)) as u64));
        // "If the first 2 arguments are identical, this is equivalent to a rotate".
        let r = (c % 64) as u32;
        expect_int("llvm_fshl.i64", &[a, a, c], Some(a.rotate_left(r)));
        expect_int("llvm_fshr.i64", &[a, a, c], Some(a.rotate_right(r)));
    }
    // LangRef's examples.
    expect_int("llvm_fshl.i8", &[255, 0, 15], Some(128));
    expect_int("llvm_fshl.i8", &[15, 15, 11], Some(120));
    expect_int("llvm_fshl.i8", &[0, 255, 8], Some(0));
    expect_int("llvm_fshr.i8", &[255, 0, 15], Some(254));
    expect_int("llvm_fshr.i8", &[15, 15, 11], Some(225));
    expect_int("llvm_fshr.i8", &[0, 255, 8], Some(255));
    // An i1 shifts by its amount modulo 1: never.
    for (a, b, c) in [(0, 1, 1), (1, 0, 1), (1, 0, 0)] {
        expect_int("llvm_fshl.i1", &[a, b, c], Some(a));
        expect_int("llvm_fshr.i1", &[a, b, c], Some(b));
    }
}

/// llvm.ldexp against APFloat's scalbn (one rounding to nearest even; LLVM folds ldexp with
/// it), over the sample patterns and exponents around every format's overflow, underflow and
/// subnormal thresholds, the clamp bounds and the ends of i32.
fn ldexp<F: Float>(ty: &str, width: u32) {
    let mut exps: Vec<i32> = vec![i32::MIN, i32::MIN + 1, i32::MAX, 0, 1, -1, 2, -2];
    for k in [
        11, 14, 15, 16, 24, 25, 30, 31, 40, 41, 42, 53, 126, 127, 128, 149, 150, 254, 260, 262,
        263, 277, 278, 279, 1022, 1023, 1024, 1074, 1075, 1076, 2045, 2098, 2099, 2100, 2200,
        100_000,
    ] {
        exps.extend([k, -k, k - 1, 1 - k]);
    }
    for a in samples::<F>(width) {
        let x = F::from_bits(a.into());
        for &n in &exps {
            let want = x.scalbn_r(n, Round::NearestTiesToEven);
            expect_ieee(&format!("llvm_ldexp.{ty}"), &[a, u64::from(n as u32)], want);
        }
    }
}

#[test]
fn ldexp_matches_apfloat_scalbn() {
    ldexp::<Half>("f16", 16);
    ldexp::<BFloat>("bf16", 16);
    ldexp::<Single>("f32", 32);
    ldexp::<Double>("f64", 64);
    // LangRef: "If the result underflows a zero with the same sign is returned. If the result
    // overflows, the result is an infinity with the same sign."
    assert_eq!(
        accept(
            "llvm_ldexp.f32",
            &[0xbf80_0000, u64::from((-200i32) as u32)]
        ),
        Accept::Exact(0x8000_0000)
    );
    assert_eq!(
        accept("llvm_ldexp.f32", &[0xbf80_0000, 200]),
        Accept::Exact(0xff80_0000)
    );
    // One rounding: 1.5 * 2^-149 is a tie between 1 and 2 units of the least subnormal, to
    // even (2); two roundings through 2^-148 would not see the tie.
    assert_eq!(
        accept(
            "llvm_ldexp.f32",
            &[0x3fc0_0000, u64::from((-149i32) as u32)]
        ),
        Accept::Exact(2)
    );
}

/// llvm.fptrunc.round against APFloat's conversion in each of the five rounding modes the
/// metadata names ("round.tonearest" ... "round.tonearestaway").
#[test]
fn fptrunc_round_matches_apfloat() {
    let modes = [
        ("rn", Round::NearestTiesToEven),
        ("rm", Round::TowardNegative),
        ("rp", Round::TowardPositive),
        ("rz", Round::TowardZero),
        ("rna", Round::NearestTiesToAway),
    ];
    let mut lost = false;
    for (m, rm) in modes {
        for a in samples::<Single>(32) {
            let x = Single::from_bits(a.into());
            let r: Half = x.convert_r(rm, &mut lost).value;
            expect_ieee(&format!("llvm_fptrunc_round.{m}.f16.f32"), &[a], r);
            let r: BFloat = x.convert_r(rm, &mut lost).value;
            expect_ieee(&format!("llvm_fptrunc_round.{m}.bf16.f32"), &[a], r);
        }
        for a in samples::<Double>(64) {
            let x = Double::from_bits(a.into());
            let r: Single = x.convert_r(rm, &mut lost).value;
            expect_ieee(&format!("llvm_fptrunc_round.{m}.f32.f64"), &[a], r);
            let r: Half = x.convert_r(rm, &mut lost).value;
            expect_ieee(&format!("llvm_fptrunc_round.{m}.f16.f64"), &[a], r);
        }
    }
}

/// frem against the host's fmod (Rust's `%` on floats): "the same output as a libm 'fmod'
/// function ... The remainder has the same sign as the dividend." f16 and bf16 through f32,
/// where their remainder is exact too; a NaN result is any NaN.
#[test]
fn frem_matches_the_host_fmod() {
    let rn = Round::NearestTiesToEven;
    let mut lost = false;
    let f32_of = |x: u64, w: u32| -> f32 {
        let wide: Single = match w {
            16 => Half::from_bits(x.into()).convert_r(rn, &mut false).value,
            _ => BFloat::from_bits(x.into()).convert_r(rn, &mut false).value,
        };
        f32::from_bits(wide.to_bits() as u32)
    };
    let s32 = samples::<Single>(32);
    for (i, &a) in s32.iter().enumerate() {
        for &b in s32.iter().skip(i % 7).step_by(7) {
            let want = f32::from_bits(a as u32) % f32::from_bits(b as u32);
            expect_ieee(
                "ir_frem.f32",
                &[a, b],
                Single::from_bits(want.to_bits().into()),
            );
        }
    }
    let s64 = samples::<Double>(64);
    for (i, &a) in s64.iter().enumerate() {
        for &b in s64.iter().skip(i % 7).step_by(7) {
            let want = f64::from_bits(a) % f64::from_bits(b);
            expect_ieee(
                "ir_frem.f64",
                &[a, b],
                Double::from_bits(want.to_bits().into()),
            );
        }
    }
    for (ty, w) in [("f16", 16), ("bf16", 17)] {
        let s = samples::<Half>(16);
        for (i, &a) in s.iter().enumerate() {
            for &b in s.iter().skip(i % 5).step_by(5) {
                let r = f32_of(a, w) % f32_of(b, w);
                let r = Single::from_bits(r.to_bits().into());
                let want = if w == 16 {
                    let h: Half = r.convert_r(rn, &mut lost).value;
                    h.to_bits() as u64
                } else {
                    let b: BFloat = r.convert_r(rn, &mut lost).value;
                    b.to_bits() as u64
                };
                let got = accept(&format!("ir_frem.{ty}"), &[a, b]);
                if r.is_nan() {
                    assert!(
                        matches!(got, Accept::AnyNan(_)),
                        "frem.{ty} {a:#x} {b:#x}: {got:?}"
                    );
                } else {
                    assert_eq!(got, Accept::Exact(want), "frem.{ty} {a:#x} {b:#x}");
                }
            }
        }
    }
    // LangRef's sign rule and fmod's special cases: -7 % 2 = -1, 7 % -2 = 1, -0 % 3 = -0,
    // 5 % inf = 5, inf % 2 and 5 % 0 are NaN; a huge dividend over a tiny divisor is exact.
    let f = |x: f64| x.to_bits();
    assert_eq!(
        accept("ir_frem.f64", &[f(-7.0), f(2.0)]),
        Accept::Exact(f(-1.0))
    );
    assert_eq!(
        accept("ir_frem.f64", &[f(7.0), f(-2.0)]),
        Accept::Exact(f(1.0))
    );
    assert_eq!(
        accept("ir_frem.f64", &[f(-0.0), f(3.0)]),
        Accept::Exact(f(-0.0))
    );
    assert_eq!(
        accept("ir_frem.f64", &[f(5.0), f(f64::INFINITY)]),
        Accept::Exact(f(5.0))
    );
    assert!(matches!(
        accept("ir_frem.f64", &[f(f64::INFINITY), f(2.0)]),
        Accept::AnyNan(_)
    ));
    assert!(matches!(
        accept("ir_frem.f64", &[f(5.0), f(0.0)]),
        Accept::AnyNan(_)
    ));
    let (big, tiny) = (f64::MAX, 5e-324);
    assert_eq!(
        accept("ir_frem.f64", &[f(big), f(tiny)]),
        Accept::Exact(f(big % tiny))
    );
    assert_eq!(
        accept("ir_frem.f64", &[f(big), f(3.0)]),
        Accept::Exact(f(big % 3.0))
    );
}

/// udiv/sdiv/urem/srem against Rust's checked division (`None` where LangRef says undefined
/// behaviour: a zero divisor, INT_MIN by -1), with `exact` poison where the remainder is
/// not zero; every i8 pair, pseudo-random i32 and i64 pairs.
#[test]
fn integer_division_matches_rust() {
    macro_rules! check {
        ($u:ty, $s:ty, $w:expr, $a:expr, $b:expr) => {{
            let (a, b): ($u, $u) = ($a, $b);
            let (sa, sb) = (a as $s, b as $s);
            let ty = format!("i{}", $w);
            let ops = [a as u64, b as u64];
            let bits = |x: $u| x as u64;
            expect_int(&format!("ir_udiv.{ty}"), &ops, a.checked_div(b).map(bits));
            expect_int(&format!("ir_urem.{ty}"), &ops, a.checked_rem(b).map(bits));
            expect_int(
                &format!("ir_sdiv.{ty}"),
                &ops,
                sa.checked_div(sb).map(|q| bits(q as $u)),
            );
            expect_int(
                &format!("ir_srem.{ty}"),
                &ops,
                sa.checked_rem(sb).map(|r| bits(r as $u)),
            );
            let exact_u = a.checked_rem(b).filter(|r| *r == 0).and(a.checked_div(b));
            expect_int(&format!("ir_udiv.exact.{ty}"), &ops, exact_u.map(bits));
            let exact_s = sa
                .checked_rem(sb)
                .filter(|r| *r == 0)
                .and(sa.checked_div(sb));
            expect_int(
                &format!("ir_sdiv.exact.{ty}"),
                &ops,
                exact_s.map(|q| bits(q as $u)),
            );
        }};
    }
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            if (a as u32 * 7 + b as u32).is_multiple_of(3) {
                check!(u8, i8, 8, a, b);
            }
        }
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..3000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // Small divisors too, so exact divisions and zero remainders occur.
        let small = (x >> 60) as u32;
        check!(u32, i32, 32, (x >> 32) as u32, x as u32 >> (x % 31));
        check!(u32, i32, 32, (x >> 32) as u32 & !0xf, small);
        check!(u64, i64, 64, x, x.rotate_left(9) >> (x % 63));
        check!(u64, i64, 64, x & !0xff, u64::from(small));
    }
    check!(u32, i32, 32, 0x8000_0000, u32::MAX);
    check!(u64, i64, 64, 1 << 63, u64::MAX);
    // i1: 1 is -1 signed; -1 / -1 overflows (INT_MIN / -1), 1 udiv 1 is 1.
    expect_int("ir_udiv.i1", &[1, 1], Some(1));
    expect_int("ir_sdiv.i1", &[1, 1], None);
    expect_int("ir_srem.i1", &[0, 1], Some(0));
    expect_int("ir_urem.i1", &[1, 0], None);
}

/// Pseudo-random values of every magnitude (a fixed LCG, shifted right by a varying amount so
/// that small values and long runs of zeros occur), after the boundary values of each width:
/// 0, 1, all ones, the sign bit alone and INT_MAX, for i8, i16, i32 and i64.
fn int_samples(n: usize) -> Vec<u64> {
    let mut out = Vec::new();
    for w in [8u32, 16, 32, 64] {
        let sign = 1u64 << (w - 1);
        let ones = u64::MAX >> (64 - w);
        out.extend([0, 1, 2, ones, sign, sign - 1, sign + 1, ones - 1]);
    }
    let mut x = 0x6a09_e667_f3bc_c908u64;
    for _ in 0..n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push(x >> (x % 64));
    }
    out
}

/// llvm.ctpop/ctlz/cttz/bitreverse/bswap against Rust's `count_ones`, `leading_zeros`,
/// `trailing_zeros`, `reverse_bits` and `swap_bytes`; a zero counts the width, or is poison
/// with `is_zero_poison` (`.poison`); LangRef's examples; i1 (no bswap: "an even number of
/// bytes").
#[test]
fn bit_manipulation_intrinsics_match_rust() {
    macro_rules! check {
        ($u:ty, $w:expr, $v:expr) => {{
            let a = $v as $u;
            let ty = format!("i{}", $w);
            let ops = [a as u64];
            let n = |k: u32| Some(u64::from(k));
            expect_int(&format!("llvm_ctpop.{ty}"), &ops, n(a.count_ones()));
            expect_int(&format!("llvm_ctlz.{ty}"), &ops, n(a.leading_zeros()));
            expect_int(&format!("llvm_cttz.{ty}"), &ops, n(a.trailing_zeros()));
            let nonzero = |k: u32| (a != 0).then_some(u64::from(k));
            expect_int(
                &format!("llvm_ctlz.poison.{ty}"),
                &ops,
                nonzero(a.leading_zeros()),
            );
            expect_int(
                &format!("llvm_cttz.poison.{ty}"),
                &ops,
                nonzero(a.trailing_zeros()),
            );
            expect_int(
                &format!("llvm_bitreverse.{ty}"),
                &ops,
                Some(a.reverse_bits() as u64),
            );
            if $w >= 16 {
                expect_int(
                    &format!("llvm_bswap.{ty}"),
                    &ops,
                    Some(a.swap_bytes() as u64),
                );
            }
        }};
    }
    for v in int_samples(3000) {
        check!(u8, 8, v);
        check!(u16, 16, v);
        check!(u32, 32, v);
        check!(u64, 64, v);
    }
    // LangRef: "llvm.ctlz(i32 2) = 30", "llvm.cttz(2) = 1", "0b10110110 becomes 0b01101101".
    expect_int("llvm_ctlz.i32", &[2], Some(30));
    expect_int("llvm_cttz.i32", &[2], Some(1));
    expect_int("llvm_bitreverse.i8", &[0b1011_0110], Some(0b0110_1101));
    expect_int("llvm_bswap.i32", &[0x0102_0304], Some(0x0403_0201));
    // i1: one bit, counted once; a zero counts its width, 1.
    for a in [0, 1] {
        expect_int("llvm_ctpop.i1", &[a], Some(a));
        expect_int("llvm_ctlz.i1", &[a], Some(1 - a));
        expect_int("llvm_cttz.i1", &[a], Some(1 - a));
        expect_int("llvm_bitreverse.i1", &[a], Some(a));
    }
    expect_int("llvm_cttz.poison.i1", &[0], None);
    assert!(
        common::spec().lookup("llvm_bswap.i8", Some(1)).is_err(),
        "bswap of one byte is not IR"
    );
}

/// The six `*.with.overflow` intrinsics against Rust's `overflowing_add/sub/mul` (unsigned and
/// signed): the wrapped result and the overflow bit, the struct's two elements as the two
/// destinations `d|p`, never poison ("well-defined for all argument values"); the saturating
/// ones against Rust's `saturating_add/sub` and a shift done in i128 and clamped, a shift
/// amount of the width or more poison (`sshl.sat`, `ushl.sat`); LangRef's i4 examples at i8
/// where they carry over.
#[test]
fn overflow_and_saturating_intrinsics_match_rust() {
    macro_rules! check {
        ($u:ty, $s:ty, $w:expr, $a:expr, $b:expr) => {{
            let (a, b) = ($a as $u, $b as $u);
            let (sa, sb) = (a as $s, b as $s);
            let ty = format!("i{}", $w);
            let ops = [a as u64, b as u64];
            let signed = |(r, o): ($s, bool)| (r as $u, o);
            for (op, (r, o)) in [
                ("sadd", signed(sa.overflowing_add(sb))),
                ("uadd", a.overflowing_add(b)),
                ("ssub", signed(sa.overflowing_sub(sb))),
                ("usub", a.overflowing_sub(b)),
                ("smul", signed(sa.overflowing_mul(sb))),
                ("umul", a.overflowing_mul(b)),
            ] {
                let text = format!("llvm_{op}_with_overflow.{ty}");
                assert_eq!(
                    eval(&text, &ops),
                    [Accept::Exact(r as u64), Accept::Exact(u64::from(o))],
                    "{text} {ops:x?}"
                );
            }
            let fits = (b as u64) < $w;
            let shifted = |x: i128| x << (b as u32 % $w);
            let s = shifted(i128::from(sa)).clamp(i128::from(<$s>::MIN), i128::from(<$s>::MAX));
            let u = shifted(i128::from(a)).min(i128::from(<$u>::MAX));
            for (op, want) in [
                ("sadd", Some(sa.saturating_add(sb) as $u)),
                ("ssub", Some(sa.saturating_sub(sb) as $u)),
                ("uadd", Some(a.saturating_add(b))),
                ("usub", Some(a.saturating_sub(b))),
                ("sshl", fits.then_some(s as $s as $u)),
                ("ushl", fits.then_some(u as $u)),
            ] {
                expect_int(&format!("llvm_{op}_sat.{ty}"), &ops, want.map(|x| x as u64));
            }
        }};
    }
    let s = int_samples(2000);
    for (k, &a) in s.iter().enumerate() {
        let b = s[(k * 7 + 3) % s.len()];
        check!(u8, i8, 8, a, b);
        check!(u16, i16, 16, a, b);
        check!(u32, i32, 32, a, b);
        check!(u64, i64, 64, a, b);
        // Small operands: products that fit, shift amounts in range as often as not.
        check!(u8, i8, 8, a, b % 10);
        check!(u32, i32, 32, a >> 20, b % 40);
        check!(u64, i64, 64, a >> (b % 64), b % 70);
    }
    // i1: 1 + 1 carries; signed, -1 + -1 = -2 does not fit; -1 * -1 = 1 does not either.
    assert_eq!(
        eval("llvm_uadd_with_overflow.i1", &[1, 1]),
        [Accept::Exact(0), Accept::Exact(1)]
    );
    assert_eq!(
        eval("llvm_sadd_with_overflow.i1", &[1, 1]),
        [Accept::Exact(0), Accept::Exact(1)]
    );
    assert_eq!(
        eval("llvm_smul_with_overflow.i1", &[1, 1]),
        [Accept::Exact(1), Accept::Exact(1)]
    );
    // LangRef: sadd.sat(5, 6) = 7 and (-4, -5) = -8 in i4; at i8, 100 + 100 and -100 + -100.
    expect_int("llvm_sadd_sat.i8", &[100, 100], Some(0x7f));
    expect_int("llvm_sadd_sat.i8", &[0x9c, 0x9c], Some(0x80));
    expect_int("llvm_usub_sat.i8", &[2, 6], Some(0));
    expect_int("llvm_sshl_sat.i8", &[0xfb, 5], Some(0x80));
    expect_int("llvm_ushl_sat.i8", &[3, 7], Some(0xff));
    expect_int("llvm_ushl_sat.i8", &[3, 8], None);
}

/// `select` on integers returns the chosen arm's bits, on every type from i1 to i64; the
/// float forms keep their flags and the integer ones have none.
#[test]
fn integer_select_returns_the_chosen_arm() {
    for v in int_samples(500) {
        let (a, b) = (v, !v.rotate_left(13));
        for (ty, w) in [("i8", 8), ("i16", 16), ("i32", 32), ("i64", 64)] {
            let m = u64::MAX >> (64 - w);
            let text = format!("ir_select.{ty}");
            expect_int(&text, &[1, a & m, b & m], Some(a & m));
            expect_int(&text, &[0, a & m, b & m], Some(b & m));
        }
    }
    expect_int("ir_select.i1", &[1, 0, 1], Some(0));
    expect_int("ir_select.i1", &[0, 0, 1], Some(1));
    assert!(common::spec().lookup("ir_select.nsz.i32", Some(3)).is_err());
    assert!(common::spec().lookup("ir_select.nsz.f32", Some(3)).is_ok());
}
