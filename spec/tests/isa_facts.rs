//! The ISA's own statements about the instructions of PTX ISA 9.7.3, one test each, citing
//! the sentence.

mod common;
use common::*;
use semfuzz_spec::catalog::Requirement;
use semfuzz_spec::outcome::Accept;

// 9.7.3.11 min: "If values of both inputs are 0.0, then +0.0 > -0.0."
#[test]
fn min_max_order_signed_zeros() {
    for (a, b) in [(0, F32_NEG_ZERO), (F32_NEG_ZERO, 0)] {
        assert_eq!(
            exact("min.f32", &[a, b]),
            F32_NEG_ZERO,
            "min(0x{a:x}, 0x{b:x})"
        );
        assert_eq!(exact("max.f32", &[a, b]), 0, "max(0x{a:x}, 0x{b:x})");
        assert_eq!(exact("min.f64", &[a << 32, b << 32]), F32_NEG_ZERO << 32);
        assert_eq!(exact("max.f64", &[a << 32, b << 32]), 0);
    }
}

// 9.7.3.11: "If .NaN modifier is specified, then the result is canonical NaN if any of the
// inputs is NaN."; min_num: "else if (isNaN(x)) z = y;"
#[test]
fn min_nan_modifier_gives_canonical_nan() {
    assert_eq!(
        exact("min.NaN.f32", &[F32_QNAN, F32_ONE]),
        F32_CANONICAL_NAN
    );
    assert_eq!(
        exact("max.NaN.f32", &[F32_ONE, 0xffc0_1234]),
        F32_CANONICAL_NAN
    );
    assert_eq!(exact("min.f32", &[F32_QNAN, F32_ONE]), F32_ONE);
    assert_eq!(exact("max.f32", &[F32_TWO, F32_QNAN]), F32_TWO);
    // Both NaN without .NaN: "z = NaN", unspecified for .f32 (9.7.3 intro).
    assert!(matches!(
        eval("min.f32", &[F32_QNAN, F32_QNAN])[0],
        Accept::AnyNan(_)
    ));
}

// 9.7.3.3: "add.sat.f32 clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f."
#[test]
fn saturation_flushes_nan_to_positive_zero() {
    assert_eq!(exact("add.sat.f32", &[F32_INF, F32_NEG_INF]), 0);
    assert_eq!(exact("mul.sat.f32", &[F32_QNAN, F32_ONE]), 0);
    assert_eq!(exact("fma.rn.sat.f32", &[0, F32_INF, F32_ONE]), 0);
    assert_eq!(exact("add.sat.f32", &[F32_ONE, F32_ONE]), F32_ONE);
    assert_eq!(exact("sub.sat.f32", &[F32_ONE, F32_THREE]), 0);
    assert_eq!(exact("mul.sat.f32", &[0x3f00_0000, F32_ONE]), 0x3f00_0000);
}

// Ambiguity resolved in prelude.sem `saturate`: -0.0 saturates to +0.0.
#[test]
fn saturation_of_negative_zero_is_positive_zero() {
    assert_eq!(exact("add.sat.f32", &[F32_NEG_ZERO, F32_NEG_ZERO]), 0);
    assert_eq!(exact("mul.sat.f32", &[F32_NEG_ZERO, F32_ONE]), 0);
}

// 9.7.3.3: "add.ftz.f32 ... flushes subnormal inputs and results to sign-preserving zero."
#[test]
fn ftz_is_sign_preserving() {
    let neg_sub = neg32(F32_MIN_SUB);
    assert_eq!(exact("add.ftz.f32", &[neg_sub, F32_NEG_ZERO]), F32_NEG_ZERO);
    assert_eq!(exact("add.f32", &[neg_sub, F32_NEG_ZERO]), neg_sub);
    // A result that underflows to a subnormal: 2^-126 * -0.5 = -2^-127.
    assert_eq!(
        exact("mul.ftz.f32", &[F32_MIN_NORMAL, 0xbf00_0000]),
        F32_NEG_ZERO
    );
    assert_eq!(
        exact("mul.f32", &[F32_MIN_NORMAL, 0xbf00_0000]),
        0x8040_0000
    );
    // Flushed inputs: subnormal * 2^126 would be normal without .ftz.
    assert_eq!(exact("mul.rn.ftz.f32", &[0x0040_0000, 0x7e80_0000]), 0);
    assert_eq!(
        exact("mul.rn.f32", &[0x0040_0000, 0x7e80_0000]),
        0x3f00_0000
    );
    assert_eq!(exact("abs.ftz.f32", &[neg_sub]), 0);
    assert_eq!(exact("neg.ftz.f32", &[F32_MIN_SUB]), F32_NEG_ZERO);
}

// 9.7.3.1 testp: "As a special case, positive and negative zero are considered normal numbers."
#[test]
fn testp_zero_is_normal() {
    for z in [0, F32_NEG_ZERO] {
        assert_eq!(exact("testp.normal.f32", &[z]), 1);
        assert_eq!(exact("testp.subnormal.f32", &[z]), 0);
    }
    assert_eq!(exact("testp.normal.f64", &[1 << 63]), 1);
    assert_eq!(exact("testp.subnormal.f32", &[F32_MIN_SUB]), 1);
    assert_eq!(exact("testp.normal.f32", &[F32_MIN_SUB]), 0);
    // "testp.finite: True if the input is not infinite or NaN"; "testp.number: not NaN".
    assert_eq!(exact("testp.finite.f32", &[F32_INF]), 0);
    assert_eq!(exact("testp.number.f32", &[F32_INF]), 1);
    assert_eq!(exact("testp.notanumber.f64", &[0x7ff0_0000_0000_0001]), 1);
    assert_eq!(exact("testp.infinite.f32", &[F32_NEG_INF]), 1);
}

// 9.7.3.2: "Copy sign bit of a into value of b, and return the result as d."
#[test]
fn copysign_copies_the_sign_of_a_into_b() {
    assert_eq!(
        exact("copysign.f32", &[neg32(F32_ONE), F32_TWO]),
        neg32(F32_TWO)
    );
    assert_eq!(exact("copysign.f32", &[F32_TWO, neg32(F32_ONE)]), F32_ONE);
    assert_eq!(
        exact("copysign.f64", &[1 << 63, 0x7ff8_0000_0000_0001]),
        0xfff8_0000_0000_0001
    );
    // Chosen reading (ptx-9.7.3-floating-point.sem): a NaN b gives an unspecified NaN for .f32.
    assert!(matches!(
        eval("copysign.f32", &[0, 0xffc0_0001])[0],
        Accept::AnyNan(_)
    ));
}

// 9.7.3.11: "Store the minimum of a, b and optionally c in d."
#[test]
fn three_input_min_max() {
    assert_eq!(exact("min.f32", &[F32_THREE, F32_ONE, F32_TWO]), F32_ONE);
    assert_eq!(exact("max.f32", &[F32_ONE, F32_TWO, F32_THREE]), F32_THREE);
    assert_eq!(exact("min.f32", &[F32_QNAN, F32_THREE, F32_TWO]), F32_TWO);
    assert_eq!(
        exact("min.NaN.f32", &[F32_ONE, F32_TWO, F32_QNAN]),
        F32_CANONICAL_NAN
    );
    // .abs: "the magnitude of destination operand d is the minimum of absolute values".
    assert_eq!(
        exact("min.abs.f32", &[neg32(F32_THREE), F32_TWO, neg32(F32_ONE)]),
        F32_ONE
    );
    assert_eq!(
        exact("max.abs.f32", &[neg32(F32_THREE), F32_TWO, neg32(F32_ONE)]),
        F32_THREE
    );
}

// 9.7.3.11: ".xorsign ... the sign bit of destination d is equal to the XOR of the sign bits of
// both inputs"; "considers the sign bit of both inputs before applying .abs"; "If the result
// of min is NaN then the .xorsign and .abs modifiers will be ignored."
#[test]
fn xorsign_abs() {
    assert_eq!(
        exact("min.xorsign.abs.f32", &[neg32(F32_TWO), F32_THREE]),
        neg32(F32_TWO)
    );
    assert_eq!(
        exact("min.xorsign.abs.f32", &[neg32(F32_TWO), neg32(F32_THREE)]),
        F32_TWO
    );
    assert_eq!(
        exact("max.xorsign.abs.f32", &[F32_ONE, neg32(F32_THREE)]),
        neg32(F32_THREE)
    );
    assert_eq!(
        exact("max.NaN.xorsign.abs.f32", &[neg32(F32_ONE), F32_QNAN]),
        F32_CANONICAL_NAN
    );
    assert_eq!(
        exact("min.xorsign.abs.f32", &[neg32(F32_ONE), F32_QNAN]),
        neg32(F32_ONE)
    );
}

// 9.7.3: "NaN payloads are supported for double-precision instructions"; IEEE 754 §6.2.3.
#[test]
fn f64_nan_payloads_propagate() {
    let a = 0x7ff0_0000_0000_0001; // signaling, payload 1
    let b = 0xfff8_0000_0000_0002;
    match eval("add.f64", &[a, b])[0] {
        Accept::OneOf { len: 2, values } => assert_eq!(&values[..2], &[0x7ff8_0000_0000_0001, b]),
        ref other => panic!("{other:?}"),
    }
    assert_eq!(exact("mul.rz.f64", &[0x3ff0_0000_0000_0000, b]), b);
    // An invalid operation with no NaN input: a NaN the manual does not name.
    assert!(matches!(
        eval("add.f64", &[0x7ff0_0000_0000_0000, 0xfff0_0000_0000_0000])[0],
        Accept::AnyNan(_)
    ));
    // "Single-precision instructions return an unspecified NaN."
    assert!(matches!(
        eval("add.f32", &[F32_QNAN, F32_ONE])[0],
        Accept::AnyNan(_)
    ));
}

// 9.7.3.9: "For abs.f64, NaN input is passed through unchanged." "For abs.f32, NaN input
// yields unspecified NaN." 9.7.3.10 neg: "NaN inputs yield an unspecified NaN."
#[test]
fn abs_and_neg_of_nan() {
    assert_eq!(
        exact("abs.f64", &[0xfff8_0000_0000_00ab]),
        0xfff8_0000_0000_00ab
    );
    assert!(matches!(
        eval("abs.f32", &[0xffc0_0000])[0],
        Accept::AnyNan(_)
    ));
    assert!(matches!(
        eval("neg.f64", &[0x7ff8_0000_0000_0000])[0],
        Accept::AnyNan(_)
    ));
    assert_eq!(exact("abs.f32", &[neg32(F32_TWO)]), F32_TWO);
    assert_eq!(exact("neg.f64", &[0]), 1 << 63);
}

// 9.7.3.3: "For .f32x2 instruction type, forms input vectors ... added in parallel".
#[test]
fn f32x2_lanes_are_independent() {
    let a = (F32_TWO << 32) | F32_ONE;
    let b = (F32_ONE << 32) | F32_TWO;
    assert_eq!(
        eval("add.rn.f32x2", &[a, b]),
        vec![Accept::Exact(F32_THREE), Accept::Exact(F32_THREE)]
    );
    let r = eval(
        "mul.rz.ftz.f32x2",
        &[(F32_INF << 32) | F32_MIN_SUB, F32_ONE],
    ); // lane 1 of b is +0
    assert!(
        matches!(r[1], Accept::AnyNan(_)),
        "inf * 0 in lane 1: {r:?}"
    );
    assert_eq!(r[0], Accept::Exact(0), "lane 0 flushes its subnormal input");
}

// 9.7.3.3: "The default value of rounding modifier is .rn ... may be optimized to use
// fused-multiply-add".
#[test]
fn default_rounding_is_rn_and_fusable() {
    let s = spec();
    let plain = s.lookup("add.f32", Some(2)).unwrap();
    let rn = s.lookup("add.rn.f32", Some(2)).unwrap();
    assert!(plain.fusable && !rn.fusable);
    assert_eq!(
        exact("add.f32", &[F32_ONE, 0x3380_0000]),
        exact("add.rn.f32", &[F32_ONE, 0x3380_0000])
    );
    assert_eq!(exact("add.rp.f32", &[F32_ONE, 0x3380_0000]), 0x3f80_0001);
}

// Target ISA notes, per form and per modifier.
#[test]
fn requirements() {
    let req = |t: &str, n| spec().lookup(t, Some(n)).unwrap().requirement;
    assert_eq!(
        req("min.NaN.f32", 2),
        Requirement {
            ptx: Some((7, 0)),
            sm: Some(80)
        }
    );
    assert_eq!(
        req("min.NaN.xorsign.abs.f32", 2),
        Requirement {
            ptx: Some((7, 2)),
            sm: Some(86)
        }
    );
    assert_eq!(
        req("min.f32", 3),
        Requirement {
            ptx: Some((8, 8)),
            sm: Some(100)
        }
    );
    assert_eq!(
        req("add.f32x2", 2),
        Requirement {
            ptx: Some((8, 6)),
            sm: Some(100)
        }
    );
    assert_eq!(req("add.rm.f32", 2).sm, Some(20));
    assert_eq!(req("add.rz.f32", 2).sm, None);
    assert_eq!(req("div.rz.f64", 2).sm, Some(20));
    assert_eq!(req("div.rn.f64", 2).sm, Some(13));
    assert_eq!(
        req("rcp.rp.f64", 1),
        Requirement {
            ptx: Some((2, 0)),
            sm: Some(20)
        }
    );
}

// 9.7.3.6: "fma.f32 computes the product of a and b to infinite precision and then adds c".
#[test]
fn fma_rounds_once() {
    // (1 + 2^-23)^2 - (1 + 2^-22) = 2^-46, lost by a separately rounded multiply.
    let x = 0x3f80_0001;
    assert_eq!(exact("fma.rn.f32", &[x, x, 0xbf80_0002]), 0x2880_0000);
    assert_eq!(exact("mad.rn.f32", &[x, x, 0xbf80_0002]), 0x2880_0000);
}

// 9.7.3.13/15: "d = 1 / a", "d = sqrt(a)".
#[test]
fn rcp_and_sqrt() {
    assert_eq!(exact("rcp.rn.f32", &[F32_TWO]), 0x3f00_0000);
    assert_eq!(exact("rcp.rn.f32", &[F32_NEG_ZERO]), F32_NEG_INF);
    assert_eq!(exact("sqrt.rn.f32", &[0x4080_0000]), F32_TWO);
    assert_eq!(exact("sqrt.rn.f32", &[F32_NEG_ZERO]), F32_NEG_ZERO);
    assert!(matches!(
        eval("sqrt.rn.f32", &[neg32(F32_ONE)])[0],
        Accept::AnyNan(_)
    ));
    assert_eq!(
        exact("sqrt.rz.f64", &[0x4000_0000_0000_0000]),
        0x3ff6_a09e_667f_3bcc
    );
    assert_eq!(
        exact("sqrt.rp.f64", &[0x4000_0000_0000_0000]),
        0x3ff6_a09e_667f_3bcd
    );
}

// 9.7.3 ".ftz ... flushing subnormal inputs and results to sign-preserving zero", read as
// tininess after rounding (docs/ambiguities.md 7): what an H200 computed
// (backends/cuda/probes/ftz-tininess.txt, docs/gpu.md). Each line separates the readings.
#[test]
fn ftz_flushes_results_tiny_after_rounding_as_the_gpu_does() {
    for (text, inputs, gpu) in [
        // exactly (1 - 2^-24)·2^-126: tiny after rounding, 2^-126 once rounded into f32.
        (
            "mul.rn.ftz.f32",
            &[0x00ff_ffff, 0x3f00_0000][..],
            0x0000_0000,
        ),
        // (1 - 2^-46)·2^-126 rounds to 2^-126 at 24 bits: not tiny after rounding.
        ("mul.rn.ftz.f32", &[0x3f7f_fffe, 0x0080_0001], 0x0080_0000),
        ("mul.rm.ftz.f32", &[0xbf7f_fffe, 0x0080_0001], 0x8080_0000),
        (
            "fma.rn.ftz.f32",
            &[0x3f7f_fffe, 0x0080_0001, 0],
            0x0080_0000,
        ),
        ("div.rp.ftz.f32", &[0x0080_0000, 0x3f80_0001], 0x0000_0000),
        ("rcp.rp.ftz.f32", &[0x7e80_0001], 0x0000_0000),
        ("mul.rn.ftz.f16", &[0x3bfe, 0x0401], 0x0400),
        ("cvt.rn.ftz.f32.f64", &[0x380f_ffff_ffff_ffff], 0x0080_0000),
    ] {
        assert_eq!(exact(text, inputs), gpu, "{text} {inputs:x?}");
    }
    assert_eq!(
        eval("mul.rn.ftz.f16x2", &[0x3bfe_3bfe, 0x0401_0401]),
        [Accept::Exact(0x0400), Accept::Exact(0x0400)],
        "each lane as the f16 form"
    );
    // Without .ftz the rounded result is kept.
    assert_eq!(
        exact("mul.rn.f32", &[0x00ff_ffff, 0x3f00_0000]),
        0x0080_0000
    );
}
