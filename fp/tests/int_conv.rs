//! `to_int` and `from_int` (float <-> integer conversions) against two independent models:
//! the host CPU through Rust's own `as` casts (which saturate and give 0 for NaN, and convert
//! integers to floats to nearest, ties to even) after `round_ties_even`, `trunc`, `floor` and
//! `ceil`, for f32 and f64; and LLVM's APFloat (`rustc_apfloat`) in every format and direction.
//! Every 16-bit source is tried; 32- and 64-bit sources on boundary and random inputs.

mod common;

use common::{format_name, mode_name, seed, MODES};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, Round as ApRound};
use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::{from_int, to_int, Format, Round};

/// The integer types: width and signedness.
const INTS: [(u32, bool); 8] = [
    (8, false),
    (16, false),
    (32, false),
    (64, false),
    (8, true),
    (16, true),
    (32, true),
    (64, true),
];

fn ap_round(rm: Round) -> ApRound {
    match rm {
        Round::NearestEven => ApRound::NearestTiesToEven,
        Round::TowardZero => ApRound::TowardZero,
        Round::Down => ApRound::TowardNegative,
        Round::Up => ApRound::TowardPositive,
        Round::NearestAway => ApRound::NearestTiesToAway,
    }
}

fn int_name(width: u32, signed: bool) -> String {
    format!("{}{width}", if signed { 's' } else { 'u' })
}

fn mask(width: u32) -> u64 {
    u64::MAX >> (64 - width)
}

/// APFloat's saturating conversion of the value `x` (NaN: 0) to the integer type.
fn ap_to_int<T: Float>(x: T, rm: Round, width: u32, signed: bool) -> u64 {
    let mut exact = false;
    let r = if signed {
        x.to_i128_r(width as usize, ap_round(rm), &mut exact).value as u64
    } else {
        x.to_u128_r(width as usize, ap_round(rm), &mut exact).value as u64
    };
    r & mask(width)
}

/// APFloat's conversion of the integer `bits` to `T`'s format.
fn ap_from_int<T: Float>(bits: u64, width: u32, signed: bool, rm: Round) -> u64 {
    let v = bits & mask(width);
    let r: T = if signed {
        let shift = 64 - width;
        T::from_i128_r(i128::from(((v << shift) as i64) >> shift), ap_round(rm)).value
    } else {
        T::from_u128_r(u128::from(v), ap_round(rm)).value
    };
    r.to_bits() as u64
}

fn ap_format_to_int(f: Format, x: u64, rm: Round, width: u32, signed: bool) -> u64 {
    match f {
        Format::F16 => ap_to_int(Half::from_bits(x.into()), rm, width, signed),
        Format::BF16 => ap_to_int(BFloat::from_bits(x.into()), rm, width, signed),
        Format::F32 => ap_to_int(Single::from_bits(x.into()), rm, width, signed),
        Format::F64 => ap_to_int(Double::from_bits(x.into()), rm, width, signed),
        _ => unreachable!("the tested formats"),
    }
}

fn ap_format_from_int(f: Format, x: u64, width: u32, signed: bool, rm: Round) -> u64 {
    match f {
        Format::F16 => ap_from_int::<Half>(x, width, signed, rm),
        Format::BF16 => ap_from_int::<BFloat>(x, width, signed, rm),
        Format::F32 => ap_from_int::<Single>(x, width, signed, rm),
        Format::F64 => ap_from_int::<Double>(x, width, signed, rm),
        _ => unreachable!("the tested formats"),
    }
}

/// The host's integral value of `x` in direction `rm`.
fn host_round(x: f64, rm: Round) -> f64 {
    match rm {
        Round::NearestEven => x.round_ties_even(),
        Round::TowardZero => x.trunc(),
        Round::Down => x.floor(),
        Round::Up => x.ceil(),
        Round::NearestAway => x.round(),
    }
}

/// The host's saturating cast of the integral `x` (exact in f64 for every f32 and f64 input).
fn host_cast(x: f64, width: u32, signed: bool) -> u64 {
    (match (width, signed) {
        (8, false) => x as u8 as u64,
        (16, false) => x as u16 as u64,
        (32, false) => x as u32 as u64,
        (64, false) => x as u64,
        (8, true) => x as i8 as u64,
        (16, true) => x as i16 as u64,
        (32, true) => x as i32 as u64,
        (64, true) => x as i64 as u64,
        _ => unreachable!("the tested widths"),
    }) & mask(width)
}

/// The host's conversion of an integer to f32 (as bits) or f64, to nearest even.
fn host_from_int(f: Format, bits: u64, width: u32, signed: bool) -> u64 {
    let shift = 64 - width;
    let v = bits & mask(width);
    let s = ((v << shift) as i64) >> shift;
    match (f, signed) {
        (Format::F32, true) => (s as f32).to_bits() as u64,
        (Format::F32, false) => (v as f32).to_bits() as u64,
        (Format::F64, true) => (s as f64).to_bits(),
        (Format::F64, false) => (v as f64).to_bits(),
        _ => unreachable!("the host formats"),
    }
}

/// Float inputs near the integer boundaries of every tested type (±2^k and its float
/// neighbours, the halves between small integers), then boundary-heavy and random ones.
fn float_inputs(f: Format, n_random: usize) -> Vec<u64> {
    let mut v = Vec::new();
    let to_bits = |x: f64| semfuzz_fp::convert(Format::F64, f, x.to_bits(), Round::NearestEven);
    for k in 0..=65 {
        for sign in [1.0, -1.0] {
            let b = to_bits(sign * 2f64.powi(k));
            v.extend([b.wrapping_sub(1), b, b + 1]);
        }
    }
    for i in -40..=40 {
        v.push(to_bits(f64::from(i) + 0.5));
        v.push(to_bits(f64::from(i) + 0.25));
        v.push(to_bits(f64::from(i) - 0.75));
    }
    let mut gen = BoundaryGen::new(f, seed(&format_name(f)));
    let mut rng = SplitMix64::new(seed("random") ^ u64::from(f.width()));
    for _ in 0..n_random {
        v.push(gen.next().unwrap_or_default());
        v.push(rng.next_u64() & f.mask());
    }
    v.into_iter().map(|x| x & f.mask()).collect()
}

/// Integer inputs: the ends of every type's range and their neighbours, powers of two and
/// their neighbours (where float rounding happens), and random values of every magnitude.
fn int_inputs(width: u32, n_random: usize) -> Vec<u64> {
    if width <= 16 {
        return (0..=mask(width)).collect();
    }
    let mut v = Vec::new();
    for k in 0..64 {
        let p = 1u64 << k;
        for d in [0u64, 1, 2, 3] {
            v.extend([
                p.wrapping_add(d),
                p.wrapping_sub(d),
                p.wrapping_neg().wrapping_add(d),
            ]);
        }
        // Ties of every float precision below 64 bits: p plus half a unit of bit j.
        for j in 1..k.min(40) {
            v.push(p | (1 << (j - 1)));
            v.push(p | (1 << (j - 1)) | 1);
        }
    }
    let mut rng = SplitMix64::new(seed(&format!("ints{width}")));
    for _ in 0..n_random {
        let x = rng.next_u64();
        v.push(x >> rng.below(64));
        v.push(x);
    }
    v.into_iter().map(|x| x & mask(width)).collect()
}

fn check(label: &str, input: u64, ours: u64, theirs: u64, bad: &mut usize) {
    if ours != theirs {
        *bad += 1;
        if *bad <= 10 {
            eprintln!("MISMATCH {label}: input {input:#x}: ours {ours:#x}, reference {theirs:#x}");
        }
    }
}

#[test]
fn to_int_matches_apfloat_exhaustively_on_16_bit_formats() {
    for f in [Format::F16, Format::BF16] {
        for rm in Round::ALL {
            for (width, signed) in INTS {
                let label = format!(
                    "to_int {}->{} {}",
                    format_name(f),
                    int_name(width, signed),
                    mode_name(rm)
                );
                let mut bad = 0;
                for x in 0..=0xFFFF {
                    let ours = to_int(f, x, rm, width, signed);
                    let theirs = ap_format_to_int(f, x, rm, width, signed);
                    check(&label, x, ours, theirs, &mut bad);
                }
                assert_eq!(bad, 0, "{label}: {bad} mismatches");
            }
        }
    }
}

#[test]
fn to_int_matches_apfloat_and_host_on_32_and_64_bit_formats() {
    for f in [Format::F32, Format::F64] {
        let inputs = float_inputs(f, 20_000);
        for rm in Round::ALL {
            for (width, signed) in INTS {
                let label = format!(
                    "to_int {}->{} {}",
                    format_name(f),
                    int_name(width, signed),
                    mode_name(rm)
                );
                let mut bad = 0;
                for &x in &inputs {
                    let ours = to_int(f, x, rm, width, signed);
                    check(
                        &label,
                        x,
                        ours,
                        ap_format_to_int(f, x, rm, width, signed),
                        &mut bad,
                    );
                    let value = f.to_f64(x);
                    let host = host_cast(host_round(value, rm), width, signed);
                    check(&format!("{label} (host)"), x, ours, host, &mut bad);
                }
                assert_eq!(bad, 0, "{label}: {bad} mismatches");
            }
        }
    }
}

#[test]
fn from_int_matches_apfloat_in_every_format_and_direction() {
    for (width, signed) in INTS {
        let inputs = int_inputs(width, 20_000);
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            for rm in Round::ALL {
                let label = format!(
                    "from_int {}->{} {}",
                    int_name(width, signed),
                    format_name(f),
                    mode_name(rm)
                );
                let mut bad = 0;
                for &x in &inputs {
                    let ours = from_int(f, x, width, signed, rm);
                    let theirs = ap_format_from_int(f, x, width, signed, rm);
                    check(&label, x, ours, theirs, &mut bad);
                }
                assert_eq!(bad, 0, "{label}: {bad} mismatches");
            }
        }
    }
}

#[test]
fn from_int_to_nearest_matches_host_casts() {
    for (width, signed) in INTS {
        let inputs = int_inputs(width, 20_000);
        for f in [Format::F32, Format::F64] {
            let label = format!(
                "from_int {}->{} rne (host)",
                int_name(width, signed),
                format_name(f)
            );
            let mut bad = 0;
            for &x in &inputs {
                let ours = from_int(f, x, width, signed, Round::NearestEven);
                check(
                    &label,
                    x,
                    ours,
                    host_from_int(f, x, width, signed),
                    &mut bad,
                );
            }
            assert_eq!(bad, 0, "{label}: {bad} mismatches");
        }
    }
}

#[test]
fn to_int_examples() {
    let f = Format::F32;
    let b = |x: f32| u64::from(x.to_bits());
    // NaN gives 0 and infinities saturate, in every direction.
    for rm in MODES {
        assert_eq!(to_int(f, b(f32::NAN), rm, 32, true), 0);
        assert_eq!(to_int(f, b(f32::INFINITY), rm, 8, true), 0x7F);
        assert_eq!(to_int(f, b(f32::NEG_INFINITY), rm, 8, true), 0x80);
        assert_eq!(to_int(f, b(f32::NEG_INFINITY), rm, 16, false), 0);
    }
    // Ties: to even with rn, away from zero with rna.
    assert_eq!(to_int(f, b(2.5), Round::NearestEven, 32, true), 2);
    assert_eq!(
        to_int(f, b(-2.5), Round::NearestAway, 32, true),
        (-3i64 as u64) & mask(32)
    );
    // A negative value rounding to zero is 0 for an unsigned type; below -0.5 it saturates.
    assert_eq!(to_int(f, b(-0.4), Round::NearestEven, 32, false), 0);
    assert_eq!(to_int(f, b(-0.4), Round::Down, 32, false), 0);
    assert_eq!(to_int(f, b(300.0), Round::TowardZero, 8, false), 0xFF);
    // The smallest subnormal rounds up to 1 toward +inf.
    assert_eq!(to_int(f, 1, Round::Up, 32, true), 1);
}
