//! Differential tests against `rustc_apfloat`, the Rust port of LLVM's
//! APFloat (a second, independently written soft-float): add, sub, mul,
//! div, fma and round_to_integral in binary16, bfloat16, binary32 and
//! binary64, and conversions between every pair of them, in all five
//! rounding directions. APFloat has no square root; `vs_mpfr` covers it.

mod common;

use common::{differential, CASES, FORMATS};
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as ApRound};
use semfuzz_fp::{Format, Round};

fn ap_round(rm: Round) -> ApRound {
    match rm {
        Round::NearestEven => ApRound::NearestTiesToEven,
        Round::TowardZero => ApRound::TowardZero,
        Round::Down => ApRound::TowardNegative,
        Round::Up => ApRound::TowardPositive,
        Round::NearestAway => ApRound::NearestTiesToAway,
    }
}

fn ap<T: Float>(bits: u64) -> T {
    T::from_bits(bits.into())
}

fn bits<T: Float>(x: T) -> u64 {
    // APFloat keeps the encoding in the low bits of a u128; every format
    // here is at most 64 bits wide.
    x.to_bits() as u64
}

/// Every operation of one format against APFloat type `T`.
fn arithmetic<T: Float>(f: Format) {
    for rm in Round::ALL {
        let r = ap_round(rm);
        differential(
            CASES,
            "add",
            f,
            f,
            rm,
            |[a, b]| semfuzz_fp::add(f, a, b, rm),
            |[a, b]| bits(ap::<T>(a).add_r(ap(b), r).value),
        );
        differential(
            CASES,
            "sub",
            f,
            f,
            rm,
            |[a, b]| semfuzz_fp::sub(f, a, b, rm),
            |[a, b]| bits(ap::<T>(a).sub_r(ap(b), r).value),
        );
        differential(
            CASES,
            "mul",
            f,
            f,
            rm,
            |[a, b]| semfuzz_fp::mul(f, a, b, rm),
            |[a, b]| bits(ap::<T>(a).mul_r(ap(b), r).value),
        );
        differential(
            CASES,
            "div",
            f,
            f,
            rm,
            |[a, b]| semfuzz_fp::div(f, a, b, rm),
            |[a, b]| bits(ap::<T>(a).div_r(ap(b), r).value),
        );
        differential(
            CASES,
            "fma",
            f,
            f,
            rm,
            |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
            |[a, b, c]| bits(ap::<T>(a).mul_add_r(ap(b), ap(c), r).value),
        );
        differential(
            CASES,
            "round_to_integral",
            f,
            f,
            rm,
            |[a]| semfuzz_fp::round_to_integral(f, a, rm),
            |[a]| bits(ap::<T>(a).round_to_integral(r).value),
        );
    }
}

/// Conversion from APFloat type `S` (format `from`) to `T` (format `to`).
fn conversion<S: Float + FloatConvert<T>, T: Float>(from: Format, to: Format) {
    for rm in Round::ALL {
        differential(
            CASES,
            "convert",
            from,
            to,
            rm,
            |[a]| semfuzz_fp::convert(from, to, a, rm),
            |[a]| {
                let mut loses_info = false;
                bits::<T>(ap::<S>(a).convert_r(ap_round(rm), &mut loses_info).value)
            },
        );
    }
}

/// Conversions from `S` (format `from`) to each of the other formats.
fn conversions_from<S>(from: Format)
where
    S: Float
        + FloatConvert<Half>
        + FloatConvert<BFloat>
        + FloatConvert<Single>
        + FloatConvert<Double>,
{
    for to in FORMATS.into_iter().filter(|&to| to != from) {
        match to {
            Format::F16 => conversion::<S, Half>(from, to),
            Format::BF16 => conversion::<S, BFloat>(from, to),
            Format::F32 => conversion::<S, Single>(from, to),
            _ => conversion::<S, Double>(from, to),
        }
    }
}

#[test]
fn f16_matches_apfloat() {
    arithmetic::<Half>(Format::F16);
}

#[test]
fn bf16_matches_apfloat() {
    arithmetic::<BFloat>(Format::BF16);
}

#[test]
fn f32_matches_apfloat() {
    arithmetic::<Single>(Format::F32);
}

#[test]
fn f64_matches_apfloat() {
    arithmetic::<Double>(Format::F64);
}

#[test]
fn conversions_from_f16_match_apfloat() {
    conversions_from::<Half>(Format::F16);
}

#[test]
fn conversions_from_bf16_match_apfloat() {
    conversions_from::<BFloat>(Format::BF16);
}

#[test]
fn conversions_from_f32_match_apfloat() {
    conversions_from::<Single>(Format::F32);
}

#[test]
fn conversions_from_f64_match_apfloat() {
    conversions_from::<Double>(Format::F64);
}
