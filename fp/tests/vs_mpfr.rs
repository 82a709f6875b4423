//! Differential tests against GNU MPFR (through `rug`), emulating each IEEE
//! format exactly: results are computed at the format's precision inside its
//! exponent range and then passed through `mpfr_subnormalize`, the recipe of
//! the MPFR manual (section "Exponent range") for correctly rounded
//! subnormals.
//!
//! Covers what APFloat lacks (square root) and checks `fma` against a third
//! implementation, on boundary-heavy inputs for binary16, bfloat16,
//! binary32 and binary64; then checks every operation exhaustively on small
//! formats (8 bits and less), where every corner of the generic code is
//! reachable, including formats with two exponent bits.

mod common;

use std::os::raw::c_int;

use common::{differential, exhaustive, CASES, FORMATS, MODES};
use gmp_mpfr_sys::mpfr::{self, mpfr_t, rnd_t};
use rug::float::Special;
use rug::Float;
use semfuzz_fp::{Format, Round};

/// The MPFR rounding mode for one of [`MODES`].
fn rnd(rm: Round) -> rnd_t {
    match rm {
        Round::NearestEven => rnd_t::RNDN,
        Round::TowardZero => rnd_t::RNDZ,
        Round::Down => rnd_t::RNDD,
        Round::Up => rnd_t::RNDU,
        Round::NearestAway => panic!("MPFR has no rounding mode for ties away from zero"),
    }
}

/// The exact value of an encoding, decoded without `semfuzz-fp`.
fn decode(f: Format, bits: u64) -> Float {
    let p = f.precision();
    let t = p - 1;
    let negative = bits >> (f.width() - 1) & 1 != 0;
    let field = (bits >> t) & ((1 << f.exp_bits()) - 1);
    let frac = bits & ((1 << t) - 1);
    let magnitude = if field == (1 << f.exp_bits()) - 1 {
        if frac != 0 {
            return Float::with_val(p, Special::Nan);
        }
        Float::with_val(p, Special::Infinity)
    } else if field == 0 {
        // Subnormals and zero: frac * 2^(emin - t).
        Float::with_val(p, frac) << (f.emin() - t as i32)
    } else {
        Float::with_val(p, frac | 1 << t) << (field as i32 - f.bias() - t as i32)
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// The encoding of `x`, which must be representable in `f` (NaNs all map to
/// one NaN); panics otherwise. Written without `semfuzz-fp`.
fn encode(f: Format, x: &Float) -> u64 {
    let p = f.precision();
    let t = p - 1;
    let sign = (x.is_sign_negative() as u64) << (f.width() - 1);
    let max_field = (1u64 << f.exp_bits()) - 1;
    if x.is_nan() {
        return max_field << t | 1 << (t - 1);
    }
    if x.is_infinite() {
        return sign | max_field << t;
    }
    if x.is_zero() {
        return sign;
    }
    let (m, e) = x.to_integer_exp().expect("finite");
    let mut m = m.abs().to_u64().expect("significand fits in 64 bits");
    let mut e = e;
    let tz = m.trailing_zeros();
    m >>= tz;
    e += tz as i32;
    let len = 64 - m.leading_zeros() as i32;
    let lead = e + len - 1;
    assert!(len <= p as i32, "{x} has more than {p} bits");
    if lead >= f.emin() {
        let field = (lead + f.bias()) as u64;
        assert!(field < max_field, "{x} overflows");
        sign | field << t | ((m << (p as i32 - len)) & ((1 << t) - 1))
    } else {
        let shift = e - (f.emin() - t as i32);
        assert!(shift >= 0, "{x} is below the subnormal grid");
        sign | m << shift
    }
}

/// Runs `op` into a result of `f`'s precision, then applies `f`'s exponent
/// range and subnormals, and encodes the result. The operation itself runs
/// in MPFR's default (practically unbounded) exponent range, so its inputs
/// may lie outside `f`'s; `mpfr_check_range` then rounds overflow and
/// underflow and `mpfr_subnormalize` the subnormal range, both using the
/// ternary value so that nothing is rounded twice.
fn in_format(f: Format, rnd: rnd_t, op: impl FnOnce(*mut mpfr_t, rnd_t) -> c_int) -> u64 {
    let mut r = Float::new(f.precision());
    // MPFR significands are in [1/2, 1), so its exponents are one above
    // IEEE's; the smallest one is that of the smallest subnormal.
    let emin = f.emin() - f.precision() as i32 + 2;
    let emax = f.bias() + 1;
    // SAFETY: `r` is an initialised MPFR number; the exponent range is
    // thread-local (checked by `mpfr_is_thread_safe`) and restored before
    // returning.
    unsafe {
        let ternary = op(r.as_raw_mut(), rnd);
        let (old_min, old_max) = (mpfr::get_emin(), mpfr::get_emax());
        mpfr::set_emin(emin.into());
        mpfr::set_emax(emax.into());
        let ternary = mpfr::check_range(r.as_raw_mut(), ternary, rnd);
        mpfr::subnormalize(r.as_raw_mut(), ternary, rnd);
        mpfr::set_emin(old_min);
        mpfr::set_emax(old_max);
    }
    encode(f, &r)
}

#[test]
fn mpfr_is_thread_safe() {
    // The tests run on several threads, each narrowing the exponent range.
    // SAFETY: a pure query.
    assert_ne!(
        unsafe { mpfr::buildopt_tls_p() },
        0,
        "MPFR built without thread-local state"
    );
}

#[test]
fn encoding_round_trips_through_mpfr() {
    for f in FORMATS {
        for bits in semfuzz_fp::vectors::boundary_values(f) {
            if !f.is_nan(bits) {
                assert_eq!(encode(f, &decode(f, bits)), bits, "{bits:#x}");
            }
        }
    }
}

fn mpfr_sqrt(f: Format, a: u64, rnd: rnd_t) -> u64 {
    let x = decode(f, a);
    // SAFETY: initialised operands; see `in_format`.
    in_format(f, rnd, |r, rnd| unsafe { mpfr::sqrt(r, x.as_raw(), rnd) })
}

fn mpfr_fma(f: Format, [a, b, c]: [u64; 3], rnd: rnd_t) -> u64 {
    let (x, y, z) = (decode(f, a), decode(f, b), decode(f, c));
    // SAFETY: initialised operands; see `in_format`.
    in_format(f, rnd, |r, rnd| unsafe {
        mpfr::fma(r, x.as_raw(), y.as_raw(), z.as_raw(), rnd)
    })
}

type Mpfr2 = unsafe extern "C" fn(*mut mpfr_t, *const mpfr_t, *const mpfr_t, rnd_t) -> c_int;
type Ours2 = fn(Format, u64, u64, Round) -> u64;

const OPS2: [(&str, Ours2, Mpfr2); 4] = [
    ("add", semfuzz_fp::add, mpfr::add),
    ("sub", semfuzz_fp::sub, mpfr::sub),
    ("mul", semfuzz_fp::mul, mpfr::mul),
    ("div", semfuzz_fp::div, mpfr::div),
];

fn mpfr_op2(op: Mpfr2, f: Format, [a, b]: [u64; 2], rnd: rnd_t) -> u64 {
    let (x, y) = (decode(f, a), decode(f, b));
    // SAFETY: initialised operands; see `in_format`.
    in_format(f, rnd, |r, rnd| unsafe {
        op(r, x.as_raw(), y.as_raw(), rnd)
    })
}

fn mpfr_convert(from: Format, to: Format, a: u64, rnd: rnd_t) -> u64 {
    let x = decode(from, a);
    // SAFETY: initialised operands; see `in_format`.
    in_format(to, rnd, |r, rnd| unsafe { mpfr::set(r, x.as_raw(), rnd) })
}

/// MPFR's `rint` rounds ties to even under RNDN; `rint_round` rounds ties
/// away from zero (the exact integer then fits, so its own RNDN is moot).
fn mpfr_round_to_integral(f: Format, a: u64, rm: Round) -> u64 {
    let x = decode(f, a);
    // SAFETY: initialised operands; see `in_format`.
    match rm {
        Round::NearestAway => in_format(f, rnd_t::RNDN, |r, rnd| unsafe {
            mpfr::rint_round(r, x.as_raw(), rnd)
        }),
        _ => in_format(f, rnd(rm), |r, rnd| unsafe {
            mpfr::rint(r, x.as_raw(), rnd)
        }),
    }
}

#[test]
fn sqrt_matches_mpfr() {
    for f in FORMATS {
        for rm in MODES {
            differential(
                CASES,
                "sqrt",
                f,
                f,
                rm,
                |[a]| semfuzz_fp::sqrt(f, a, rm),
                |[a]| mpfr_sqrt(f, a, rnd(rm)),
            );
        }
    }
}

#[test]
fn sqrt_nearest_away_matches_mpfr() {
    // A square root is never a tie in these formats: a (p+1)-bit midpoint
    // squares to more than p bits, and no root is subnormal (that needs a
    // tiny exponent range). So ties-away must agree with ties-to-even.
    for f in FORMATS {
        differential(
            CASES,
            "sqrt",
            f,
            f,
            Round::NearestAway,
            |[a]| semfuzz_fp::sqrt(f, a, Round::NearestAway),
            |[a]| mpfr_sqrt(f, a, rnd_t::RNDN),
        );
    }
}

#[test]
fn fma_matches_mpfr() {
    for f in FORMATS {
        for rm in MODES {
            differential(
                CASES,
                "fma",
                f,
                f,
                rm,
                |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
                |args| mpfr_fma(f, args, rnd(rm)),
            );
        }
    }
}

/// Small formats: E5M2 and E4M3-shaped 8-bit formats, a 6-bit one, and
/// formats with only two exponent bits (no exponent between emin and emax
/// but 0 and 1), whose square roots can be subnormal.
const SMALL: [Format; 5] = [
    Format::ieee(5, 3),
    Format::ieee(4, 4),
    Format::ieee(3, 3),
    Format::ieee(2, 5),
    Format::ieee(2, 2),
];

#[test]
fn small_formats_arithmetic_exhaustive() {
    for f in SMALL {
        for rm in MODES {
            for (name, ours, theirs) in OPS2 {
                exhaustive(
                    name,
                    f,
                    f,
                    rm,
                    |[a, b]| ours(f, a, b, rm),
                    |args| mpfr_op2(theirs, f, args, rnd(rm)),
                );
            }
        }
    }
}

#[test]
fn small_formats_fma_exhaustive() {
    for f in SMALL.into_iter().filter(|f| f.width() <= 7) {
        for rm in MODES {
            exhaustive(
                "fma",
                f,
                f,
                rm,
                |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
                |args| mpfr_fma(f, args, rnd(rm)),
            );
        }
    }
}

#[test]
fn unary_operations_exhaustive() {
    let formats = [Format::F16, Format::BF16].into_iter().chain(SMALL);
    for f in formats {
        for rm in MODES {
            exhaustive(
                "sqrt",
                f,
                f,
                rm,
                |[a]| semfuzz_fp::sqrt(f, a, rm),
                |[a]| mpfr_sqrt(f, a, rnd(rm)),
            );
        }
        for rm in Round::ALL {
            exhaustive(
                "round_to_integral",
                f,
                f,
                rm,
                |[a]| semfuzz_fp::round_to_integral(f, a, rm),
                |[a]| mpfr_round_to_integral(f, a, rm),
            );
        }
    }
}

#[test]
fn conversions_exhaustive() {
    let pairs = [
        (Format::F16, Format::BF16),
        (Format::BF16, Format::F16),
        (Format::F16, Format::ieee(5, 3)),
        (Format::F16, Format::ieee(4, 4)),
        (Format::BF16, Format::ieee(2, 5)),
        (Format::ieee(5, 3), Format::ieee(4, 4)),
        (Format::ieee(4, 4), Format::ieee(5, 3)),
        (Format::ieee(3, 3), Format::F16),
        (Format::F16, Format::TF32),
    ];
    for (from, to) in pairs {
        for rm in MODES {
            exhaustive(
                "convert",
                from,
                to,
                rm,
                |[a]| semfuzz_fp::convert(from, to, a, rm),
                |[a]| mpfr_convert(from, to, a, rnd(rm)),
            );
        }
    }
}

/// Formats at the limits of what `Format` accepts: the widest precision
/// (60 bits, with a 4-bit exponent, and with a 2-bit one), the widest
/// exponent (24 bits) and a 64-bit format with a long exponent.
const EXTREME: [Format; 4] = [
    Format::ieee(4, 60),
    Format::ieee(2, 60),
    Format::ieee(24, 40),
    Format::ieee(20, 44),
];

/// Cases per operation and mode on the extreme formats: fewer than
/// [`CASES`], since these formats guard the generic code's limits rather
/// than anything the specs use.
const EXTREME_CASES: usize = 100_000;

#[test]
fn extreme_formats_match_mpfr() {
    for f in EXTREME {
        for rm in MODES {
            for (name, ours, theirs) in OPS2 {
                differential(
                    EXTREME_CASES,
                    name,
                    f,
                    f,
                    rm,
                    |[a, b]| ours(f, a, b, rm),
                    |args| mpfr_op2(theirs, f, args, rnd(rm)),
                );
            }
            differential(
                EXTREME_CASES,
                "fma",
                f,
                f,
                rm,
                |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
                |args| mpfr_fma(f, args, rnd(rm)),
            );
            differential(
                EXTREME_CASES,
                "sqrt",
                f,
                f,
                rm,
                |[a]| semfuzz_fp::sqrt(f, a, rm),
                |[a]| mpfr_sqrt(f, a, rnd(rm)),
            );
            differential(
                EXTREME_CASES,
                "round_to_integral",
                f,
                f,
                rm,
                |[a]| semfuzz_fp::round_to_integral(f, a, rm),
                |[a]| mpfr_round_to_integral(f, a, rm),
            );
            differential(
                EXTREME_CASES,
                "convert",
                f,
                Format::F32,
                rm,
                |[a]| semfuzz_fp::convert(f, Format::F32, a, rm),
                |[a]| mpfr_convert(f, Format::F32, a, rnd(rm)),
            );
        }
    }
}
