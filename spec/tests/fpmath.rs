//! LLVM's `!fpmath` bound on `fdiv float` (`ir_fdiv.fpmathK.f32`, docs/ambiguities.md 173)
//! against LangRef's own definition, computed exactly with an independent soft-float
//! (`rustc_apfloat`, LLVM's APFloat): every value within N ulps of the exact quotient, with
//! LangRef's ulp(x), must be accepted, so that no result the licence allows is ever called a
//! miscompile.

mod common;
use common::{eval, Bits};
use rustc_apfloat::ieee::{Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use semfuzz_spec::outcome::Accept;

fn single(bits: u64) -> Single {
    Single::from_bits(u128::from(bits as u32))
}

fn quad(x: Single) -> Quad {
    let mut lost = false;
    x.convert(&mut lost).value
}

/// LangRef's ulp(a/b): "If x is a real number that lies between two finite consecutive
/// floating-point numbers a and b, without being equal to one of them, then ulp(x) = |b - a|,
/// otherwise ulp(x) is the distance between the two non-equal finite floating-point numbers
/// nearest x" (for a representable x: x and its nearer neighbour).
fn ulp_of_quotient(a: Single, b: Single) -> Single {
    let down = a.div_r(b, Round::TowardNegative).value;
    let up = a.div_r(b, Round::TowardPositive).value;
    if down != up {
        return (up - down).value.abs();
    }
    let below = (down - down.next_down().value).value.abs();
    let above = (down.next_up().value - down).value.abs();
    if below < above {
        below
    } else {
        above
    }
}

/// Whether `|d - a/b| <= n·ulp(a/b)`, computed as `|d·b - a| <= n·ulp·|b|` in binary128,
/// where every step is exact: d·b has 48 significant bits, d·b and a are within a few
/// ulps of each other, and ulp is a power of two.
fn within_langref(d: Single, a: Single, b: Single, half_ulps: u32) -> bool {
    let (dq, aq, bq) = (quad(d), quad(a), quad(b));
    let exact = |r: rustc_apfloat::StatusAnd<Quad>| {
        assert_eq!(r.status, rustc_apfloat::Status::OK, "an inexact step");
        r.value
    };
    let err = exact(exact(dq * bq) - aq).abs();
    let n = exact(Quad::from_u128(u128::from(half_ulps)).value / Quad::from_u128(2).value);
    let bound = exact(exact(n * quad(ulp_of_quotient(a, b))) * bq.abs());
    err <= bound
}

/// Finite nonzero pairs whose quotient is finite and nonzero in f32: random ones, and ones
/// whose quotient lies just around a power of two, where the spacing halves below.
fn pairs() -> Vec<(u64, u64)> {
    let mut bits = Bits(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::new();
    while out.len() < 6000 {
        let k = out.len();
        let (a, b) = if k % 2 == 0 {
            (bits.next() & 0xffff_ffff, bits.next() & 0xffff_ffff)
        } else {
            // a = ±2^e moved by a few encodings, b = 1 moved by a few encodings.
            let e = 1 + bits.next() % 253;
            let a = ((e << 23) as i64 + (bits.next() % 9) as i64 - 4) as u64;
            let b = (0x3f80_0000_i64 + (bits.next() % 9) as i64 - 4) as u64;
            (a | (bits.next() & 0x8000_0000), b)
        };
        let (x, y) = (single(a), single(b));
        let q = x.div_r(y, Round::NearestTiesToEven).value;
        if x.is_finite()
            && y.is_finite()
            && !x.is_zero()
            && !y.is_zero()
            && q.is_finite()
            && !q.is_zero()
        {
            out.push((a & 0xffff_ffff, b & 0xffff_ffff));
        }
    }
    out
}

#[test]
fn every_value_langref_allows_is_accepted() {
    let mut checked = 0;
    let mut only_near_powers_of_two = 0;
    for (a, b) in pairs() {
        let (x, y) = (single(a), single(b));
        let rn = x.div_r(y, Round::NearestTiesToEven).value.to_bits() as i64;
        for k in 1..=8u32 {
            let instr = format!("ir_fdiv.fpmath{k}.f32");
            let got = eval(&instr, &[a, b]);
            let [set @ Accept::Within { .. }] = &got[..] else {
                panic!("{instr} {a:#x} {b:#x}: {got:?}");
            };
            // Candidates up to 2k + 2 encodings away on the quotient's side of zero.
            let sign = rn & 0x8000_0000;
            let magnitude = rn & 0x7fff_ffff;
            for j in -(2 * k as i64 + 2)..=(2 * k as i64 + 2) {
                let m = magnitude + j;
                if !(0..0x7f80_0000).contains(&m) {
                    continue;
                }
                let d = (sign | m) as u64;
                if within_langref(single(d), x, y, k) {
                    assert!(
                        set.accepts(d),
                        "{instr} {a:#x} / {b:#x}: {d:#x} is within {}/2 ulps of the quotient \
                         but not accepted ({set:?})",
                        k
                    );
                    checked += 1;
                    // Counted: values LangRef allows more than ⌊k/2 + 1/2⌋ encodings away,
                    // which only the power-of-two boundary has.
                    if j.unsigned_abs() > u64::from(k).div_ceil(2) {
                        only_near_powers_of_two += 1;
                    }
                }
                // The interval is k encodings around the rounded quotient.
                assert_eq!(
                    set.accepts(d),
                    j.abs() <= k as i64,
                    "{instr} {a:#x} {b:#x} {d:#x}"
                );
            }
        }
    }
    assert!(checked > 100_000, "{checked}");
    // The boundary cases, which make the interval 2N and not N + 1/2, were exercised.
    assert!(only_near_powers_of_two > 1000, "{only_near_powers_of_two}");
}

#[test]
fn special_operands_keep_the_exact_quotient() {
    let (inf, nan, one, zero) = (0x7f80_0000, 0x7fc0_0000, 0x3f80_0000, 0);
    assert!(matches!(
        eval("ir_fdiv.fpmath5.f32", &[one, zero])[..],
        [Accept::Exact(0x7f80_0000)]
    ));
    assert!(matches!(
        eval("ir_fdiv.fpmath5.f32", &[zero, one])[..],
        [Accept::Exact(0)]
    ));
    assert!(matches!(
        eval("ir_fdiv.fpmath5.f32", &[one, inf])[..],
        [Accept::Exact(0)]
    ));
    assert!(matches!(
        eval("ir_fdiv.fpmath5.f32", &[inf, inf])[..],
        [Accept::AnyNan(_)]
    ));
    assert!(matches!(
        eval("ir_fdiv.fpmath5.f32", &[nan, one])[..],
        [Accept::AnyNan(_)]
    ));
}

#[test]
fn under_preserve_sign_tiny_quotients_are_free_and_others_bounded() {
    let v = "ir_fdiv.fpmath5.out_ps.in_ps.f32";
    // 2^-126 / 3 is subnormal: any value (the interval may be flushed).
    assert!(matches!(
        eval(v, &[0x0080_0000, 0x4040_0000])[..],
        [Accept::Any(_)]
    ));
    // 1 / 3: the same interval as without the mode.
    assert_eq!(
        eval(v, &[0x3f80_0000, 0x4040_0000]),
        eval("ir_fdiv.fpmath5.f32", &[0x3f80_0000, 0x4040_0000])
    );
    // A subnormal dividend is read as zero.
    assert!(matches!(
        eval(v, &[0x0000_0001, 0x4040_0000])[..],
        [Accept::Exact(0)]
    ));
}

#[test]
fn the_bound_does_not_combine_with_arcp_or_other_types() {
    for refused in [
        "ir_fdiv.arcp.fpmath5.f32",
        "ir_fdiv.fpmath5.f64",
        "ir_fdiv.fpmath5.out_pz.in_pz.f32",
    ] {
        let why = common::refusal(refused, 2);
        assert!(
            why.contains("`!fpmath` is specified on fdiv float"),
            "{refused}: {why}"
        );
    }
}
