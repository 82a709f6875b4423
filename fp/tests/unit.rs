//! Hand-checked behaviour of `semfuzz-fp`: format parameters and
//! validation, constants, classification, the documented NaN and
//! signed-zero rules, overflow per rounding mode, comparisons, and the
//! test-vector generator. Expected encodings come from IEEE 754-2019 and
//! Rust's native `f32`/`f64`.

use core::cmp::Ordering;

use semfuzz_fp::vectors::{boundary_values, BoundaryGen};
use semfuzz_fp::{
    add, compare, convert, div, fma, mul, round_to_integral, sqrt, sub, Format, FormatError, Round,
};

const F32: Format = Format::F32;
const RNE: Round = Round::NearestEven;

fn f32b(x: f32) -> u64 {
    x.to_bits() as u64
}

#[test]
fn predefined_formats() {
    let cases = [
        (Format::F16, 5, 11, 16, 0xFFFF),
        (Format::BF16, 8, 8, 16, 0xFFFF),
        (Format::F32, 8, 24, 32, 0xFFFF_FFFF),
        (Format::F64, 11, 53, 64, u64::MAX),
        (Format::TF32, 8, 11, 19, 0x7_FFFF),
    ];
    for (f, e, p, w, mask) in cases {
        assert_eq!(
            (f.exp_bits(), f.precision(), f.width(), f.mask()),
            (e, p, w, mask)
        );
    }
    assert_eq!((F32.bias(), F32.emin()), (127, -126));
    assert_eq!((Format::F16.bias(), Format::F16.emin()), (15, -14));
}

#[test]
fn format_validation() {
    assert_eq!(Format::try_ieee(1, 24), Err(FormatError::ExpBits(1)));
    assert_eq!(Format::try_ieee(25, 24), Err(FormatError::ExpBits(25)));
    assert_eq!(Format::try_ieee(8, 1), Err(FormatError::Precision(1)));
    assert_eq!(Format::try_ieee(3, 61), Err(FormatError::Precision(61)));
    assert_eq!(
        Format::try_ieee(11, 54),
        Err(FormatError::Width {
            exp_bits: 11,
            precision: 54
        })
    );
    assert_eq!(Format::try_ieee(8, 24), Ok(Format::F32));
    assert_eq!(Format::try_ieee(4, 60).map(Format::width), Ok(64));
    assert_eq!(Format::try_ieee(2, 2).map(Format::width), Ok(4));
    let message = Format::try_ieee(11, 54).unwrap_err().to_string();
    assert!(message.contains("65 bits"), "{message}");
}

#[test]
#[should_panic(expected = "exponent width")]
fn ieee_panics_on_invalid_format() {
    Format::ieee(1, 8);
}

#[test]
fn constants_match_native() {
    assert_eq!(F32.zero(false), f32b(0.0));
    assert_eq!(F32.zero(true), f32b(-0.0));
    assert_eq!(F32.inf(true), f32b(f32::NEG_INFINITY));
    assert_eq!(F32.max_finite(false), f32b(f32::MAX));
    assert_eq!(F32.max_finite(true), f32b(f32::MIN));
    assert_eq!(F32.min_normal(false), f32b(f32::MIN_POSITIVE));
    assert_eq!(F32.min_subnormal(false), f32b(f32::from_bits(1)));
    assert_eq!(F32.one(true), f32b(-1.0));
    assert_eq!(F32.default_nan(), 0x7FC0_0000);
    let f = Format::F64;
    assert_eq!(f.max_finite(false), f64::MAX.to_bits());
    assert_eq!(f.min_normal(true), (-f64::MIN_POSITIVE).to_bits());
    assert_eq!(f.one(false), 1.0f64.to_bits());
    assert_eq!(f.default_nan(), 0x7FF8_0000_0000_0000);
    let h = Format::F16;
    assert_eq!(
        (h.one(false), h.max_finite(false), h.default_nan()),
        (0x3C00, 0x7BFF, 0x7E00)
    );
    assert_eq!((h.min_normal(false), h.inf(true)), (0x0400, 0xFC00));
    assert_eq!(
        (Format::BF16.one(false), Format::BF16.default_nan()),
        (0x3F80, 0x7FC0)
    );
    assert_eq!(Format::TF32.one(false), 0x1_FC00);
}

#[test]
fn classification_matches_native() {
    for bits in boundary_values(F32) {
        let x = f32::from_bits(bits as u32);
        let what = format!("{bits:#x}");
        assert_eq!(F32.is_nan(bits), x.is_nan(), "{what}");
        assert_eq!(F32.is_inf(bits), x.is_infinite(), "{what}");
        assert_eq!(F32.is_zero(bits), x == 0.0, "{what}");
        assert_eq!(F32.is_subnormal(bits), x.is_subnormal(), "{what}");
        assert_eq!(F32.is_normal(bits), x.is_normal(), "{what}");
        assert_eq!(F32.is_finite(bits), x.is_finite(), "{what}");
        assert_eq!(F32.sign_bit(bits), x.is_sign_negative(), "{what}");
        assert_eq!(
            F32.is_quiet_nan(bits) || F32.is_signaling_nan(bits),
            x.is_nan(),
            "{what}"
        );
    }
    assert!(F32.is_signaling_nan(0x7F80_0001));
    assert!(!F32.is_quiet_nan(0x7F80_0001));
    assert!(F32.is_quiet_nan(0xFFC0_0000));
    assert!(!F32.is_signaling_nan(0x7F80_0000));
}

#[test]
fn bits_above_the_width_are_ignored() {
    let h = Format::F16;
    let junk = 0xABCD_0000;
    assert!(h.is_nan(junk | 0x7E00));
    assert!(h.is_zero(junk));
    assert!(!h.sign_bit(junk));
    assert_eq!(add(h, junk | 0x3C00, junk | 0x3C00, RNE), 0x4000);
    assert_eq!(h.neg(junk | 0x3C00), 0xBC00);
    assert_eq!(h.abs(junk | 0xBC00), 0x3C00);
    assert_eq!(h.copy_sign(junk | 0x3C00, junk | 0x8000), 0xBC00);
    assert_eq!(h.quiet(junk | 0x7C01), 0x7E01);
}

#[test]
fn sign_operations_apply_to_nans() {
    assert_eq!(F32.neg(0x7FC0_0001), 0xFFC0_0001);
    assert_eq!(F32.abs(0xFF80_0001), 0x7F80_0001);
    assert_eq!(F32.copy_sign(f32b(2.0), f32b(-0.0)), f32b(-2.0));
    assert_eq!(F32.quiet(0x7F80_0001), 0x7FC0_0001);
}

#[test]
fn to_f64_is_exact() {
    for bits in boundary_values(F32) {
        let native = f32::from_bits(bits as u32) as f64;
        let ours = F32.to_f64(bits);
        if native.is_nan() {
            assert!(ours.is_nan());
        } else {
            assert_eq!(ours.to_bits(), native.to_bits(), "{bits:#x}");
        }
    }
    assert_eq!(Format::F16.to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(Format::BF16.to_f64(0xC2F7), -123.5);
    // A NaN keeps its sign and left-aligned payload.
    assert_eq!(Format::F16.to_f64(0xFD01).to_bits(), 0xFFFC_0400_0000_0000);
}

#[test]
fn rounding_of_one_plus_half_ulp() {
    let one = F32.one(false);
    let half_ulp = f32b(2f32.powi(-24));
    let cases = [
        (Round::NearestEven, one, F32.neg(one)),
        (Round::NearestAway, one + 1, F32.neg(one + 1)),
        (Round::TowardZero, one, F32.neg(one)),
        (Round::Up, one + 1, F32.neg(one)),
        (Round::Down, one, F32.neg(one + 1)),
    ];
    for (rm, positive, negative) in cases {
        assert_eq!(add(F32, one, half_ulp, rm), positive, "{rm:?}");
        assert_eq!(sub(F32, F32.neg(one), half_ulp, rm), negative, "{rm:?}");
    }
    // Just above the tie every nearest mode rounds up.
    let above = half_ulp + 1;
    assert_eq!(add(F32, one, above, RNE), one + 1);
}

#[test]
fn nan_rule() {
    let (one, inf) = (F32.one(false), F32.inf(false));
    let snan = 0x7F80_0001;
    let qnan_neg = 0xFFC0_0002;
    // The first NaN operand wins, quieted, with sign and payload kept.
    assert_eq!(add(F32, snan, qnan_neg, RNE), 0x7FC0_0001);
    assert_eq!(add(F32, qnan_neg, snan, RNE), qnan_neg);
    assert_eq!(mul(F32, one, snan, RNE), 0x7FC0_0001);
    assert_eq!(
        sub(F32, one, qnan_neg, RNE),
        qnan_neg,
        "sub must not flip a NaN's sign"
    );
    assert_eq!(div(F32, snan, F32.zero(false), RNE), 0x7FC0_0001);
    assert_eq!(fma(F32, one, one, snan, RNE), 0x7FC0_0001);
    assert_eq!(fma(F32, F32.zero(false), inf, qnan_neg, RNE), qnan_neg);
    assert_eq!(sqrt(F32, qnan_neg, RNE), qnan_neg);
    assert_eq!(round_to_integral(F32, snan, RNE), 0x7FC0_0001);
    // Invalid operations without NaN operands give the default NaN.
    let dnan = F32.default_nan();
    let zero = F32.zero(false);
    assert_eq!(add(F32, inf, F32.neg(inf), RNE), dnan);
    assert_eq!(sub(F32, inf, inf, RNE), dnan);
    assert_eq!(mul(F32, zero, F32.neg(inf), RNE), dnan);
    assert_eq!(div(F32, zero, F32.zero(true), RNE), dnan);
    assert_eq!(div(F32, inf, inf, RNE), dnan);
    assert_eq!(sqrt(F32, F32.one(true), RNE), dnan);
    assert_eq!(sqrt(F32, F32.inf(true), RNE), dnan);
    assert_eq!(fma(F32, zero, inf, one, RNE), dnan);
    assert_eq!(fma(F32, inf, one, F32.inf(true), RNE), dnan);
    // Conversions keep the sign and left-align the payload.
    assert_eq!(convert(F32, Format::F16, 0x7FA0_0001, RNE), 0x7F00);
    assert_eq!(convert(Format::F16, F32, 0xFD01, RNE), 0xFFE0_2000);
}

#[test]
fn signed_zero_rules() {
    let (pz, nz) = (F32.zero(false), F32.zero(true));
    let one = F32.one(false);
    for rm in Round::ALL {
        let cancel = if rm == Round::Down { nz } else { pz };
        assert_eq!(add(F32, pz, nz, rm), cancel, "{rm:?}");
        assert_eq!(add(F32, nz, pz, rm), cancel, "{rm:?}");
        assert_eq!(add(F32, nz, nz, rm), nz, "{rm:?}");
        assert_eq!(add(F32, pz, pz, rm), pz, "{rm:?}");
        assert_eq!(sub(F32, pz, pz, rm), cancel, "{rm:?}");
        assert_eq!(sub(F32, nz, pz, rm), nz, "{rm:?}");
        assert_eq!(add(F32, one, F32.neg(one), rm), cancel, "{rm:?}");
        assert_eq!(fma(F32, one, one, F32.neg(one), rm), cancel, "{rm:?}");
        assert_eq!(fma(F32, pz, one, nz, rm), cancel, "{rm:?}");
        assert_eq!(fma(F32, nz, one, nz, rm), nz, "{rm:?}");
        assert_eq!(mul(F32, nz, one, rm), nz, "{rm:?}");
        assert_eq!(div(F32, pz, F32.neg(one), rm), nz, "{rm:?}");
        assert_eq!(sqrt(F32, nz, rm), nz, "{rm:?}");
        assert_eq!(
            round_to_integral(F32, f32b(-0.25), rm),
            if rm == Round::Down { f32b(-1.0) } else { nz },
            "{rm:?}"
        );
    }
    // A nonzero result that rounds to zero keeps the sign of the exact one.
    let tiny = F32.min_subnormal(true);
    assert_eq!(mul(F32, tiny, f32b(0.25), RNE), nz);
    assert_eq!(fma(F32, tiny, f32b(0.25), pz, RNE), nz);
}

#[test]
fn overflow_per_rounding_mode() {
    let max = F32.max_finite(false);
    let cases = [
        (Round::NearestEven, F32.inf(false)),
        (Round::NearestAway, F32.inf(false)),
        (Round::TowardZero, max),
        (Round::Up, F32.inf(false)),
        (Round::Down, max),
    ];
    for (rm, expected) in cases {
        assert_eq!(add(F32, max, max, rm), expected, "{rm:?}");
        assert_eq!(
            mul(F32, F32.neg(max), max, rm),
            F32.neg(match rm {
                Round::Up => max,
                Round::Down => F32.inf(false),
                _ => expected,
            }),
            "{rm:?}"
        );
    }
}

#[test]
fn round_to_integral_examples() {
    let cases = [
        (2.5, Round::NearestEven, 2.0),
        (2.5, Round::NearestAway, 3.0),
        (3.5, Round::NearestEven, 4.0),
        (2.5, Round::TowardZero, 2.0),
        (-2.5, Round::Down, -3.0),
        (-2.5, Round::Up, -2.0),
        (0.5, Round::Up, 1.0),
        (-0.5, Round::Up, -0.0),
        (0.5, Round::NearestEven, 0.0),
        (0.5, Round::NearestAway, 1.0),
        (1e-40, Round::Up, 1.0),
        (8388607.5, Round::NearestEven, 8388608.0),
        (16777215.0, Round::Down, 16777215.0),
    ];
    for (x, rm, expected) in cases {
        assert_eq!(
            round_to_integral(F32, f32b(x), rm),
            f32b(expected),
            "{x} {rm:?}"
        );
    }
}

#[test]
fn comparisons() {
    assert_eq!(compare(F32, f32b(0.0), f32b(-0.0)), Some(Ordering::Equal));
    assert_eq!(compare(F32, F32.default_nan(), F32.default_nan()), None);
    assert_eq!(compare(F32, f32b(1.0), 0x7F80_0001), None);
    let values = boundary_values(F32);
    for &a in &values {
        for &b in &values {
            let native = f32::from_bits(a as u32).partial_cmp(&f32::from_bits(b as u32));
            assert_eq!(compare(F32, a, b), native, "{a:#x} {b:#x}");
        }
    }
}

#[test]
fn exact_results_need_no_rounding() {
    for rm in Round::ALL {
        assert_eq!(sqrt(F32, f32b(6.25), rm), f32b(2.5));
        assert_eq!(div(F32, f32b(1.0), f32b(8.0), rm), f32b(0.125));
        assert_eq!(
            sqrt(Format::F64, 2f64.powi(-1074).to_bits(), rm),
            2f64.powi(-537).to_bits()
        );
        assert_eq!(
            convert(Format::F16, Format::F64, 0x0001, rm),
            2f64.powi(-24).to_bits()
        );
    }
}

#[test]
fn boundary_values_cover_the_edges() {
    let formats = [
        Format::F16,
        Format::BF16,
        Format::F32,
        Format::F64,
        Format::TF32,
        Format::ieee(5, 3),
        Format::ieee(2, 2),
        Format::ieee(4, 60),
    ];
    for f in formats {
        let values = boundary_values(f);
        assert_eq!(values, boundary_values(f), "deterministic");
        assert!(
            values.windows(2).all(|w| w[0] < w[1]),
            "sorted, no duplicates"
        );
        assert!(
            values.iter().all(|&x| x & !f.mask() == 0),
            "within the width"
        );
        for negative in [false, true] {
            for x in [
                f.zero(negative),
                f.min_subnormal(negative),
                f.min_normal(negative) - 1,
                f.min_normal(negative),
                f.one(negative),
                f.one(negative) + 1,
                f.one(negative) - 1,
                f.max_finite(negative),
                f.max_finite(negative) - 1,
                f.inf(negative),
                f.neg(f.default_nan()) ^ f.zero(!negative),
            ] {
                assert!(values.contains(&x), "{:?}: {x:#x} missing", f);
            }
        }
        let signaling = values.iter().filter(|&&x| f.is_signaling_nan(x)).count();
        assert_eq!(signaling > 0, f.precision() > 2, "{f:?}");
    }
}

#[test]
fn boundary_gen_is_deterministic_and_covers_every_class() {
    for f in [Format::F32, Format::F64, Format::F16, Format::ieee(2, 2)] {
        let a: Vec<u64> = BoundaryGen::new(f, 7).take(20_000).collect();
        let b: Vec<u64> = BoundaryGen::new(f, 7).take(20_000).collect();
        let c: Vec<u64> = BoundaryGen::new(f, 8).take(20_000).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&x| x & !f.mask() == 0));
        let count = |pred: &dyn Fn(u64) -> bool| a.iter().filter(|&&x| pred(x)).count();
        // Each class is common, not a one-in-a-million accident.
        for (class, n) in [
            ("zero", count(&|x| f.is_zero(x))),
            ("subnormal", count(&|x| f.is_subnormal(x))),
            ("normal", count(&|x| f.is_normal(x))),
            ("infinity", count(&|x| f.is_inf(x))),
            ("NaN", count(&|x| f.is_nan(x))),
            ("negative", count(&|x| f.sign_bit(x))),
        ] {
            assert!(n >= 200, "{f:?}: only {n} {class} values in 20000");
        }
    }
}

#[test]
fn sqrt_near_perfect_squares_matches_native() {
    // Roots just above and below an integer are where an integer square
    // root estimate is most easily off by one; Rust's native sqrt is
    // correctly rounded to nearest.
    for k in (1u64..1 << 24).step_by(997).chain([(1 << 24) - 1, 1 << 24]) {
        let square = (k * k) as f64;
        for x in [square, square.next_down(), square.next_up()] {
            let ours = sqrt(Format::F64, x.to_bits(), RNE);
            assert_eq!(ours, x.sqrt().to_bits(), "sqrt({x:e})");
            let x = x as f32;
            assert_eq!(sqrt(F32, f32b(x), RNE), f32b(x.sqrt()), "sqrt({x:e})");
        }
    }
}
