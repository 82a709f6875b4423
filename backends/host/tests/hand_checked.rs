//! Hand-checked results of the host instructions under each rounding mode
//! and FTZ/DAZ setting. Expected values are worked out from IEEE 754-2019
//! and the Intel SDM's definitions of MXCSR.FTZ/DAZ. Every test does
//! nothing (with a note) on hosts without the instructions.

use std::hint::black_box;

use semfuzz_host::{self as host, Mode, Op2, Round};

fn skip() -> bool {
    let missing = !host::available();
    if missing {
        eprintln!("note: host lacks x86-64 SSE2/FMA/F16C; nothing to check");
    }
    missing
}

const ONE: u32 = 0x3F80_0000;
/// 2^-24: half an ulp of 1.0 in binary32.
const HALF_ULP: u32 = 0x3380_0000;
/// 2^-126, the smallest normal binary32 number.
const MIN_NORMAL: u32 = 0x0080_0000;
const NEG: u32 = 0x8000_0000;

fn mode(round: Round) -> Mode {
    Mode::ieee(round)
}

#[test]
fn tie_rounds_per_mode() {
    if skip() {
        return;
    }
    // 1 + 2^-24 is exactly between 1 and 1 + 2^-23.
    let cases = [
        (Round::NearestEven, ONE, NEG | ONE),
        (Round::TowardZero, ONE, NEG | ONE),
        (Round::Down, ONE, NEG | (ONE + 1)),
        (Round::Up, ONE + 1, NEG | ONE),
    ];
    for (round, positive, negative) in cases {
        assert_eq!(
            host::f32_op2(Op2::Add, ONE, HALF_ULP, mode(round)),
            Some(positive),
            "{round:?}"
        );
        assert_eq!(
            host::f32_op2(Op2::Sub, NEG | ONE, HALF_ULP, mode(round)),
            Some(negative),
            "{round:?}"
        );
    }
    // 1 + 3 * 2^-25 is above the tie.
    let above = HALF_ULP + (1 << 22);
    assert_eq!(
        host::f32_op2(Op2::Add, ONE, above, mode(Round::NearestEven)),
        Some(ONE + 1)
    );
    // Binary64: 1 + 2^-53 under Up.
    let one = 1.0f64.to_bits();
    let half = 2f64.powi(-53).to_bits();
    assert_eq!(
        host::f64_op2(Op2::Add, one, half, mode(Round::Up)),
        Some(one + 1)
    );
    assert_eq!(
        host::f64_op2(Op2::Add, one, half, mode(Round::NearestEven)),
        Some(one)
    );
}

#[test]
fn mul_and_div_round_per_mode() {
    if skip() {
        return;
    }
    // 1/3 = 0x3EAAAAAA remainder 2/3 ulp: nearest and up give ...AB.
    let three = 3.0f32.to_bits();
    let expect = [
        (Round::NearestEven, 0x3EAA_AAAB),
        (Round::TowardZero, 0x3EAA_AAAA),
        (Round::Down, 0x3EAA_AAAA),
        (Round::Up, 0x3EAA_AAAB),
    ];
    for (round, third) in expect {
        assert_eq!(
            host::f32_op2(Op2::Div, ONE, three, mode(round)),
            Some(third),
            "{round:?}"
        );
    }
    // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: only Up rounds the tail away.
    let x = ONE + 1;
    assert_eq!(
        host::f32_op2(Op2::Mul, x, x, mode(Round::Up)),
        Some(ONE + 3)
    );
    assert_eq!(
        host::f32_op2(Op2::Mul, x, x, mode(Round::TowardZero)),
        Some(ONE + 2)
    );
}

#[test]
fn fma_rounds_once() {
    if skip() {
        return;
    }
    // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; a separate multiply would
    // round the product's 2^-24 tail away (a tie, to even) and give 2^-11.
    let a = ONE + (1 << 11);
    assert_eq!(
        host::f32_fma(a, a, NEG | ONE, mode(Round::NearestEven)),
        Some(0x3A00_0400)
    );
    assert_eq!(
        host::f32_op2(Op2::Mul, a, a, mode(Round::NearestEven)),
        Some(ONE + (1 << 12))
    );
    let b = 1.0f64.to_bits() + (1 << 26); // 1 + 2^-26
    let minus_one = (-1.0f64).to_bits();
    // (1 + 2^-26)^2 - 1 = 2^-25 + 2^-52.
    let expected = (2f64.powi(-25) + 2f64.powi(-52)).to_bits();
    assert_eq!(
        host::f64_fma(b, b, minus_one, mode(Round::NearestEven)),
        Some(expected)
    );
}

#[test]
fn sqrt_rounds_per_mode() {
    if skip() {
        return;
    }
    // sqrt(2) = 0x3FB504F3.33...: only Up rounds up.
    let two = 2.0f32.to_bits();
    assert_eq!(
        host::f32_sqrt(two, mode(Round::NearestEven)),
        Some(0x3FB5_04F3)
    );
    assert_eq!(host::f32_sqrt(two, mode(Round::Up)), Some(0x3FB5_04F4));
    assert_eq!(host::f32_sqrt(two, mode(Round::Down)), Some(0x3FB5_04F3));
    let two = 2.0f64.to_bits();
    assert_eq!(
        host::f64_sqrt(two, mode(Round::NearestEven)),
        Some(2f64.sqrt().to_bits())
    );
}

#[test]
fn ftz_flushes_tiny_results() {
    if skip() {
        return;
    }
    let half = 0.5f32.to_bits();
    let ieee = mode(Round::NearestEven);
    let ftz = Mode { ftz: true, ..ieee };
    // 2^-126 * 0.5 = 2^-127, a subnormal.
    assert_eq!(
        host::f32_op2(Op2::Mul, MIN_NORMAL, half, ieee),
        Some(0x0040_0000)
    );
    assert_eq!(host::f32_op2(Op2::Mul, MIN_NORMAL, half, ftz), Some(0));
    assert_eq!(
        host::f32_op2(Op2::Mul, NEG | MIN_NORMAL, half, ftz),
        Some(NEG)
    );
    // A subnormal input still counts without DAZ.
    assert_eq!(
        host::f32_op2(Op2::Add, 1, MIN_NORMAL, ftz),
        Some(MIN_NORMAL + 1)
    );
    let tiny = f64::MIN_POSITIVE.to_bits();
    assert_eq!(
        host::f64_op2(Op2::Div, tiny, 2.0f64.to_bits(), Mode { ftz: true, ..ieee }),
        Some(0)
    );
}

#[test]
fn daz_zeroes_subnormal_inputs() {
    if skip() {
        return;
    }
    let ieee = mode(Round::Up);
    let daz = Mode { daz: true, ..ieee };
    assert_eq!(host::f32_op2(Op2::Add, 1, 0, ieee), Some(1));
    assert_eq!(host::f32_op2(Op2::Add, 1, 0, daz), Some(0));
    assert_eq!(host::f32_op2(Op2::Add, NEG | 1, NEG, daz), Some(NEG));
    assert_eq!(host::f32_sqrt(1, daz), Some(0));
    assert_eq!(host::f32_sqrt(1, ieee), Some(0x1A35_04F4)); // sqrt(2^-149) rounded up
    assert_eq!(host::f64_to_f32(1, ieee), Some(1));
    assert_eq!(host::f64_to_f32(1, daz), Some(0));
}

#[test]
fn conversions() {
    if skip() {
        return;
    }
    // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in binary16.
    let tie = ONE + (1 << 12);
    assert_eq!(host::f32_to_f16(tie, Round::NearestEven), Some(0x3C00));
    assert_eq!(host::f32_to_f16(tie, Round::Up), Some(0x3C01));
    assert_eq!(host::f32_to_f16(tie, Round::TowardZero), Some(0x3C00));
    assert_eq!(host::f32_to_f16(NEG | tie, Round::Down), Some(0xBC01));
    // 65520 is half-way between the largest binary16 (65504) and 2^16.
    let big = 65520.0f32.to_bits();
    assert_eq!(host::f32_to_f16(big, Round::NearestEven), Some(0x7C00));
    assert_eq!(host::f32_to_f16(big, Round::TowardZero), Some(0x7BFF));
    assert_eq!(host::f16_to_f32(0x0001), Some(0x3380_0000)); // 2^-24
    assert_eq!(host::f16_to_f32(0xC000), Some((-2.0f32).to_bits()));
    let x = (1.0f64 + 2f64.powi(-24)).to_bits();
    assert_eq!(host::f64_to_f32(x, mode(Round::NearestEven)), Some(ONE));
    assert_eq!(host::f64_to_f32(x, mode(Round::Up)), Some(ONE + 1));
}

#[test]
fn nearest_away_is_unsupported() {
    let m = mode(Round::NearestAway);
    assert_eq!(host::f32_op2(Op2::Add, ONE, ONE, m), None);
    assert_eq!(host::f64_sqrt(1.0f64.to_bits(), m), None);
    assert_eq!(host::f32_to_f16(ONE, Round::NearestAway), None);
    assert_eq!(host::f64_to_f32(1.0f64.to_bits(), m), None);
}

#[test]
fn caller_environment_is_restored() {
    if skip() {
        return;
    }
    let odd = Mode {
        round: Round::Up,
        ftz: true,
        daz: true,
    };
    assert!(host::f32_op2(Op2::Add, ONE, HALF_ULP, odd).is_some());
    // Native arithmetic afterwards still rounds to nearest and keeps
    // subnormals.
    let sum = black_box(1.0f32) + black_box(f32::from_bits(HALF_ULP));
    assert_eq!(sum.to_bits(), ONE);
    let tiny = black_box(f32::MIN_POSITIVE) * black_box(0.5f32);
    assert_eq!(tiny.to_bits(), 0x0040_0000);
    assert_eq!(
        black_box(f32::from_bits(1)) + black_box(0.0f32),
        f32::from_bits(1)
    );
}

#[test]
fn available_on_x86_64_with_the_features() {
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        host::available(),
        is_x86_feature_detected!("fma") && is_x86_feature_detected!("f16c")
    );
    #[cfg(not(target_arch = "x86_64"))]
    assert!(!host::available());
}
