//! PTX ISA 9.7.9.21 `cvt` between the integer types and the float formats .f16, .bf16, .f32
//! and .f64 (the text relied on is `spec/isa-docs/ptx-9.7.9.21-cvt.md`): every such variant
//! against independent models written here from the manual's prose: Rust's integer
//! operations on `i128` (integer to integer), the host CPU through `as` casts after
//! `round_ties_even`/`trunc`/`floor`/`ceil` (f32 and f64 to and from integers), and LLVM's
//! APFloat (`rustc_apfloat`) for every format and rounding. Every 8- and 16-bit source is
//! tried; 32- and 64-bit sources on boundary and random inputs.

mod common;
use common::spec;
use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as ApRound};
use semfuzz_fp::vectors::SplitMix64;
use semfuzz_fp::Format;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;

const INTS: [&str; 8] = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"];
const FLOATS: [&str; 4] = ["f16", "bf16", "f32", "f64"];

fn is_int(t: &str) -> bool {
    INTS.contains(&t)
}

fn int_width(t: &str) -> u32 {
    t[1..].parse().expect("an integer type")
}

fn signed(t: &str) -> bool {
    t.starts_with('s')
}

fn mask(w: u32) -> u64 {
    u64::MAX >> (64 - w)
}

fn format(t: &str) -> Format {
    match t {
        "f16" => Format::F16,
        "bf16" => Format::BF16,
        "f32" => Format::F32,
        "f64" => Format::F64,
        _ => panic!("not a float type: {t}"),
    }
}

/// The integer `x` of type `t` as an i128.
fn int_value(t: &str, x: u64) -> i128 {
    let w = int_width(t);
    let x = x & mask(w);
    if signed(t) {
        i128::from(((x << (64 - w)) as i64) >> (64 - w))
    } else {
        i128::from(x)
    }
}

/// A variant's text read back: modifiers, destination and source types.
struct Text {
    mods: Vec<String>,
    dtype: String,
    atype: String,
}

fn parse(v: &Variant) -> Text {
    let parts: Vec<&str> = v.text.split('.').collect();
    let n = parts.len();
    Text {
        mods: parts[1..n - 2].iter().map(|s| s.to_string()).collect(),
        dtype: parts[n - 2].to_string(),
        atype: parts[n - 1].to_string(),
    }
}

impl Text {
    fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
    /// The rounding written (integer or floating), as APFloat's.
    fn round(&self) -> ApRound {
        for (m, r) in [
            ("rn", ApRound::NearestTiesToEven),
            ("rni", ApRound::NearestTiesToEven),
            ("rz", ApRound::TowardZero),
            ("rzi", ApRound::TowardZero),
            ("rm", ApRound::TowardNegative),
            ("rmi", ApRound::TowardNegative),
            ("rp", ApRound::TowardPositive),
            ("rpi", ApRound::TowardPositive),
        ] {
            if self.has(m) {
                return r;
            }
        }
        ApRound::NearestTiesToEven
    }
}

/// The cvt variants from `atype` to `dtype` kinds chosen by `keep`.
fn variants(keep: impl Fn(&Text) -> bool) -> Vec<(&'static Variant, Text)> {
    spec()
        .variants
        .iter()
        .filter(|v| v.family == "cvt" && v.sources.len() == 1)
        .map(|v| (v, parse(v)))
        .filter(|(_, t)| keep(t))
        .collect()
}

/// Sources of a type: every value of 8 and 16 bits; for wider ones the ends of every
/// integer range and of every float format's range, powers of two and their neighbours,
/// halves (ties), and random patterns.
fn inputs(width: u32, is_float: bool, n_random: usize) -> Vec<u64> {
    if width <= 16 {
        return (0..=mask(width)).collect();
    }
    let mut v = Vec::new();
    for k in 0..64 {
        let p = 1u64 << k;
        for d in [0u64, 1, 2] {
            v.extend([
                p.wrapping_add(d),
                p.wrapping_sub(d),
                p.wrapping_neg().wrapping_add(d),
                p.wrapping_neg().wrapping_sub(d),
            ]);
        }
    }
    if is_float {
        let f = if width == 32 {
            Format::F32
        } else {
            Format::F64
        };
        let from = |x: f64| {
            semfuzz_fp::convert(Format::F64, f, x.to_bits(), semfuzz_fp::Round::NearestEven)
        };
        for k in 0..=66 {
            for s in [1.0, -1.0] {
                let b = from(s * 2f64.powi(k));
                v.extend([b.wrapping_sub(1), b, b + 1]);
            }
        }
        for i in -20..=20 {
            for frac in [0.5, 0.25, 0.75] {
                v.push(from(f64::from(i) + frac));
            }
        }
        for b in [
            f.inf(false),
            f.inf(true),
            f.default_nan(),
            f.max_finite(false),
            f.max_finite(true),
            1,
            f.min_normal(false),
            f.zero(true),
        ] {
            v.push(b);
        }
    }
    let mut rng = SplitMix64::new(0x5EED ^ u64::from(width));
    for _ in 0..n_random {
        let x = rng.next_u64();
        v.push(x);
        v.push(x >> rng.below(64));
    }
    v.into_iter().map(|x| x & mask(width)).collect()
}

fn eval_one(ev: &mut Evaluator, x: u64) -> Accept {
    let mut out = [Accept::default()];
    ev.eval(&[x], &mut out);
    out[0]
}

// ---- integer to integer ----

/// Table 15: "sext = sign-extend; zext = zero-extend; chop = keep only low bits that fit";
/// ".sat limits the result to MININT..MAXINT for the size of the operation".
fn int_reference(d: &str, a: &str, sat: bool, x: u64) -> u64 {
    let v = int_value(a, x);
    let w = int_width(d);
    let (lo, hi) = if signed(d) {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    };
    let v = if sat { v.clamp(lo, hi) } else { v };
    (v as u64) & mask(w)
}

#[test]
fn integer_conversions_match_i128_arithmetic() {
    let vs = variants(|t| is_int(&t.dtype) && is_int(&t.atype));
    // 64 pairs without .sat, and .sat where the destination cannot hold every source value:
    // all but the 26 pairs whose destination holds the source's range (u8 into 7 types, u16
    // into 5, u32 into 3, u64 into 1, s8 into 4, s16 into 3, s32 into 2, s64 into 1).
    let sat = vs.iter().filter(|(_, t)| t.has("sat")).count();
    assert_eq!(vs.len() - sat, 64);
    assert_eq!(sat, 64 - 26);
    for (v, t) in vs {
        let mut ev = Evaluator::new(&v.program);
        for x in inputs(int_width(&t.atype), false, 5_000) {
            let expected = int_reference(&t.dtype, &t.atype, t.has("sat"), x);
            assert_eq!(
                eval_one(&mut ev, x),
                Accept::Exact(expected),
                "{} {x:#x}",
                v.text
            );
        }
    }
}

// ---- float to integer ----

fn ap_to_int<T: Float>(x: T, r: ApRound, d: &str) -> u64 {
    let w = int_width(d) as usize;
    let mut exact = false;
    let v = if signed(d) {
        x.to_i128_r(w, r, &mut exact).value as u64
    } else {
        x.to_u128_r(w, r, &mut exact).value as u64
    };
    v & mask(w as u32)
}

fn host_round(x: f64, r: ApRound) -> f64 {
    match r {
        ApRound::NearestTiesToEven => x.round_ties_even(),
        ApRound::TowardZero => x.trunc(),
        ApRound::TowardNegative => x.floor(),
        ApRound::TowardPositive => x.ceil(),
        _ => unreachable!("the integer roundings"),
    }
}

/// Rust's saturating `as` cast of an integral f64 (NaN: 0).
fn host_cast(x: f64, d: &str) -> u64 {
    (match d {
        "u8" => x as u8 as u64,
        "u16" => x as u16 as u64,
        "u32" => x as u32 as u64,
        "u64" => x as u64,
        "s8" => x as i8 as u64,
        "s16" => x as i16 as u64,
        "s32" => x as i32 as u64,
        "s64" => x as i64 as u64,
        _ => unreachable!(),
    }) & mask(int_width(d))
}

/// What 9.7.9.21 says a float-to-integer cvt gives: the value rounded per `.rni .rzi .rmi
/// .rpi`, "clamped to the destination range by default", and for NaN "1. Zero if source is
/// not .f64 and destination is not .s64, .u64. 2. Otherwise 1 << (BitWidth(dst) - 1)".
fn f2i_reference(t: &Text, x: u64) -> u64 {
    let f = format(&t.atype);
    let x = if t.has("ftz") && f == Format::F32 && f.is_subnormal(x) {
        x & 0x8000_0000
    } else {
        x
    };
    let w = int_width(&t.dtype);
    if f.is_nan(x) {
        return if t.atype == "f64" || w == 64 {
            1 << (w - 1)
        } else {
            0
        };
    }
    let r = t.round();
    let ap = match f {
        Format::F16 => ap_to_int(Half::from_bits(x.into()), r, &t.dtype),
        Format::BF16 => ap_to_int(BFloat::from_bits(x.into()), r, &t.dtype),
        Format::F32 => ap_to_int(Single::from_bits(x.into()), r, &t.dtype),
        _ => ap_to_int(Double::from_bits(x.into()), r, &t.dtype),
    };
    if matches!(f, Format::F32 | Format::F64) {
        let host = host_cast(host_round(f.to_f64(x), r), &t.dtype);
        assert_eq!(
            ap, host,
            "APFloat and the host disagree on {} {x:#x}",
            t.atype
        );
    }
    ap
}

#[test]
fn float_to_integer_conversions_match_apfloat_and_the_host() {
    let vs = variants(|t| is_int(&t.dtype) && !is_int(&t.atype));
    // 4 roundings x 8 destinations x 4 sources, .sat from all but .bf16, and .ftz (with and
    // without .sat) from .f32.
    assert_eq!(vs.len(), 4 * 8 * 4 + 4 * 8 * 3 + 4 * 8 * 2);
    for (v, t) in vs {
        let mut ev = Evaluator::new(&v.program);
        let f = format(&t.atype);
        for x in inputs(f.width(), true, 3_000) {
            let expected = f2i_reference(&t, x);
            assert_eq!(
                eval_one(&mut ev, x),
                Accept::Exact(expected),
                "{} {x:#x}",
                v.text
            );
        }
    }
}

// ---- integer to float ----

fn ap_from_int<T: Float>(v: i128, r: ApRound) -> u64 {
    T::from_i128_r(v, r).value.to_bits() as u64
}

/// The integer rounded to the destination format as IEEE 754 says, then `.sat` ("limits the
/// result to the range [0.0, 1.0]").
fn i2f_reference(t: &Text, x: u64) -> u64 {
    let v = int_value(&t.atype, x);
    let r = t.round();
    let f = format(&t.dtype);
    let bits = match f {
        Format::F16 => ap_from_int::<Half>(v, r),
        Format::BF16 => ap_from_int::<BFloat>(v, r),
        Format::F32 => ap_from_int::<Single>(v, r),
        _ => ap_from_int::<Double>(v, r),
    };
    if r == ApRound::NearestTiesToEven && f == Format::F32 {
        assert_eq!(
            bits,
            u64::from((v as f32).to_bits()),
            "the host's i->f32 of {v}"
        );
    }
    if r == ApRound::NearestTiesToEven && f == Format::F64 {
        assert_eq!(bits, (v as f64).to_bits(), "the host's i->f64 of {v}");
    }
    if t.has("sat") {
        if v <= 0 {
            f.zero(false)
        } else {
            f.one(false)
        }
    } else {
        bits
    }
}

#[test]
fn integer_to_float_conversions_match_apfloat_and_the_host() {
    let vs = variants(|t| !is_int(&t.dtype) && is_int(&t.atype));
    // 4 roundings x 8 sources x 4 destinations, .sat on f16/f32/f64, .ftz to .f32.
    assert_eq!(vs.len(), 4 * 8 * (4 + 3 + 2));
    for (v, t) in vs {
        let mut ev = Evaluator::new(&v.program);
        for x in inputs(int_width(&t.atype), false, 3_000) {
            let expected = i2f_reference(&t, x);
            assert_eq!(
                eval_one(&mut ev, x),
                Accept::Exact(expected),
                "{} {x:#x}",
                v.text
            );
        }
    }
}

/// 6.5.1: "Conversions to floating-point that are beyond the range of floating-point numbers
/// are represented with the maximum floating-point value (IEEE 754 Inf for f32 and f64, and
/// ~131,000 for f16)". Chosen reading (docs/ambiguities.md, "cvt"): IEEE rounding, so 70000
/// is +inf under .rn and .rp and 65504 (MAX_NORM) under .rz and .rm.
#[test]
fn integers_beyond_f16_round_as_ieee_says() {
    use common::exact;
    assert_eq!(exact("cvt.rn.f16.u32", &[70_000]), 0x7C00);
    assert_eq!(exact("cvt.rp.f16.u32", &[70_000]), 0x7C00);
    assert_eq!(exact("cvt.rz.f16.u32", &[70_000]), 0x7BFF);
    assert_eq!(
        exact("cvt.rm.f16.s32", &[(-70_000i64 as u64) & 0xFFFF_FFFF]),
        0xFC00
    );
    assert_eq!(
        exact("cvt.rz.f16.s32", &[(-70_000i64 as u64) & 0xFFFF_FFFF]),
        0xFBFF
    );
}

/// "NaN input results in following value: 1. Zero if source is not .f64 and destination is
/// not .s64, .u64. 2. Otherwise 1 << (BitWidth(dst) - 1)". The second case read as written:
/// an .f64 source *or* a 64-bit destination (docs/ambiguities.md, "cvt").
#[test]
fn nan_to_integer_follows_the_two_cases() {
    use common::exact;
    assert_eq!(exact("cvt.rzi.s32.f32", &[0x7FC0_0000]), 0);
    assert_eq!(exact("cvt.rni.u16.f16", &[0x7E00]), 0);
    assert_eq!(
        exact("cvt.rzi.s32.f64", &[0x7FF8_0000_0000_0000]),
        0x8000_0000
    );
    assert_eq!(exact("cvt.rzi.u8.f64", &[0xFFF8_0000_0000_0001]), 0x80);
    assert_eq!(exact("cvt.rzi.s64.f32", &[0x7FC0_0000]), 1 << 63);
    assert_eq!(exact("cvt.rmi.u64.bf16", &[0x7FC1]), 1 << 63);
    // Out of range values saturate, infinities included.
    assert_eq!(exact("cvt.rzi.s32.f32", &[0x7F80_0000]), 0x7FFF_FFFF);
    assert_eq!(exact("cvt.rzi.s32.f32", &[0xFF80_0000]), 0x8000_0000);
    assert_eq!(exact("cvt.rzi.u32.f32", &[0xBF80_0000]), 0);
}

// ---- float to float ----

fn ap_cvt<S: Float + FloatConvert<T>, T: Float>(x: u64, r: ApRound) -> u64 {
    let mut loses = false;
    let y: T = S::from_bits(x.into()).convert_r(r, &mut loses).value;
    y.to_bits() as u64
}

fn ap_convert_from<S>(to: Format, x: u64, r: ApRound) -> u64
where
    S: Float
        + FloatConvert<Half>
        + FloatConvert<BFloat>
        + FloatConvert<Single>
        + FloatConvert<Double>,
{
    match to {
        Format::F16 => ap_cvt::<S, Half>(x, r),
        Format::BF16 => ap_cvt::<S, BFloat>(x, r),
        Format::F32 => ap_cvt::<S, Single>(x, r),
        _ => ap_cvt::<S, Double>(x, r),
    }
}

fn ap_convert(from: Format, to: Format, x: u64, r: ApRound) -> u64 {
    match from {
        Format::F16 => ap_convert_from::<Half>(to, x, r),
        Format::BF16 => ap_convert_from::<BFloat>(to, x, r),
        Format::F32 => ap_convert_from::<Single>(to, x, r),
        _ => ap_convert_from::<Double>(to, x, r),
    }
}

fn ap_round_int(f: Format, x: u64, r: ApRound) -> u64 {
    fn go<T: Float>(x: u64, r: ApRound) -> u64 {
        T::from_bits(x.into()).round_to_integral(r).value.to_bits() as u64
    }
    match f {
        Format::F16 => go::<Half>(x, r),
        Format::BF16 => go::<BFloat>(x, r),
        Format::F32 => go::<Single>(x, r),
        _ => go::<Double>(x, r),
    }
}

/// A float-to-float cvt: ".ftz" flushes .f32 subnormal inputs (unless `keep_input`) and
/// results; the value is converted (rounded per `.frnd`) or rounded to an integral value
/// (`.irnd`); ".sat limits the result to the range [0.0, 1.0]. NaN results are flushed to
/// positive zero"; other NaN results are unspecified (None).
fn f2f_reference(t: &Text, x: u64, keep_input: bool) -> Option<u64> {
    let (from, to) = (format(&t.atype), format(&t.dtype));
    let ftz = t.has("ftz");
    let flush = |f: Format, b: u64| {
        if ftz && f == Format::F32 && f.is_subnormal(b) {
            b & 0x8000_0000
        } else {
            b
        }
    };
    let x = if keep_input { x } else { flush(from, x) };
    let integral = ["rni", "rzi", "rmi", "rpi"].iter().any(|m| t.has(m));
    let r = if integral {
        ap_round_int(from, x, t.round())
    } else {
        ap_convert(from, to, x, t.round())
    };
    let r = flush(to, r);
    if t.has("sat") {
        let v = to.to_f64(r);
        return Some(if to.is_nan(r) || v <= 0.0 {
            to.zero(false)
        } else if v >= 1.0 {
            to.one(false)
        } else {
            r
        });
    }
    (!to.is_nan(r)).then_some(r)
}

#[test]
fn float_conversions_and_integral_rounding_match_apfloat() {
    let vs = variants(|t| {
        FLOATS.contains(&t.dtype.as_str())
            && FLOATS.contains(&t.atype.as_str())
            && !t.has("relu")
            && !t.has("satfinite")
    });
    let mut seen = 0;
    for (v, t) in vs {
        seen += 1;
        let from = format(&t.atype);
        let to = format(&t.dtype);
        let mut ev = Evaluator::new(&v.program);
        for x in inputs(from.width(), true, 3_000) {
            let expected = f2f_reference(&t, x, false);
            let got = eval_one(&mut ev, x);
            // docs/ambiguities.md 123: to a half format, .ftz may keep a subnormal input.
            let half = matches!(to, Format::F16 | Format::BF16);
            let ok = match expected {
                Some(e) if half && t.has("ftz") && from.is_subnormal(x) => {
                    let kept = f2f_reference(&t, x, true).expect("a number");
                    let mut want = vec![e, kept];
                    want.dedup();
                    let mut allowed = got.values().to_vec();
                    allowed.dedup();
                    allowed == want
                }
                Some(e) => got == Accept::Exact(e),
                None => matches!(got, Accept::AnyNan(_)),
            };
            assert!(
                ok,
                "{} {x:#x}: spec {got:?}, reference {expected:x?}",
                v.text
            );
            if let Accept::AnyNan(_) = got {
                assert!(to.is_nan(got.representative()));
            }
        }
    }
    assert!(seen > 100, "{seen} float-to-float variants");
}

/// Every `cvt` form LLVM 22 emits (`ptx/fixtures/forms.txt`) is specified.
#[test]
fn every_cvt_form_llvm_emits_is_specified() {
    let forms = include_str!("../../ptx/fixtures/forms.txt");
    let mut n = 0;
    for line in forms.lines().filter(|l| l.starts_with("cvt.")) {
        let text = line.split_whitespace().next().expect("a form");
        spec()
            .lookup(text, None)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        n += 1;
    }
    assert!(n >= 70, "{n} cvt forms");
}

/// Between .f16 and .bf16 the rounding may be left out and is then .rn, as ptxas 13.5
/// assembles it (docs/ambiguities.md, "cvt"): on every input, the result is `cvt.rn`'s.
#[test]
fn half_to_half_without_a_rounding_is_rn() {
    for (plain, rn) in [
        ("cvt.f16.bf16", "cvt.rn.f16.bf16"),
        ("cvt.bf16.f16", "cvt.rn.bf16.f16"),
    ] {
        let p = spec().lookup(plain, None).expect(plain);
        let r = spec().lookup(rn, None).expect(rn);
        let (mut ep, mut er) = (Evaluator::new(&p.program), Evaluator::new(&r.program));
        let mut differ_from_rz = 0;
        let rz = spec()
            .lookup(&rn.replace(".rn.", ".rz."), None)
            .expect("rz");
        let mut ez = Evaluator::new(&rz.program);
        for x in 0..=0xFFFF {
            let got = eval_one(&mut ep, x);
            assert_eq!(got, eval_one(&mut er, x), "{plain} {x:#x}");
            differ_from_rz += usize::from(got != eval_one(&mut ez, x));
        }
        assert!(differ_from_rz > 1000, "{plain}: {differ_from_rz}");
    }
}

/// What the prose forbids is refused, with the manual's reason.
#[test]
fn forbidden_integer_and_rounding_combinations_are_refused() {
    for (text, why) in [
        ("cvt.s32.f32", "Integer rounding is required"),
        ("cvt.rn.s32.f32", "Integer rounding is required"),
        ("cvt.f32.s32", "Floating-point rounding is required"),
        ("cvt.rni.f32.s32", "Integer rounding is illegal"),
        ("cvt.rni.f16.f32", "Integer rounding is illegal"),
        ("cvt.rni.s32.s16", "Integer rounding is illegal"),
        ("cvt.rn.s32.s16", "Floating-point rounding is illegal"),
        ("cvt.rn.f64.f32", "Floating-point rounding is illegal"),
        ("cvt.rn.f32.f32", "Floating-point rounding is illegal"),
        ("cvt.f32.f64", "Rounding modifier is mandatory"),
        ("cvt.f16.f64", "Rounding modifier is mandatory"),
        ("cvt.sat.s32.s16", "saturation is not possible"),
        ("cvt.sat.u64.u32", "saturation is not possible"),
        ("cvt.ftz.f64.f16", "either .dtype or .atype is .f32"),
        ("cvt.rzi.ftz.s32.f64", "either .dtype or .atype is .f32"),
        ("cvt.rzi.sat.s32.bf16", "Applies to .f16, .f32, and .f64"),
    ] {
        let e = spec().lookup(text, None).expect_err(text).to_string();
        assert!(
            e.contains("is not supported") && e.contains(why),
            "{text}: {e}"
        );
    }
    // And what it allows is not.
    for text in [
        "cvt.sat.u32.s32",
        "cvt.sat.s32.u32",
        "cvt.sat.s8.s16",
        "cvt.rzi.sat.s32.f32",
        "cvt.rni.ftz.f32.f32",
        "cvt.rn.ftz.f32.f64",
        "cvt.f64.bf16",
    ] {
        spec()
            .lookup(text, None)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
    }
    let v = spec().lookup("cvt.rn.bf16.s64", None).expect("loads");
    assert_eq!(
        (v.requirement.ptx, v.requirement.sm),
        (Some((7, 8)), Some(90))
    );
    let v = spec().lookup("cvt.rn.f32.f64", None).expect("loads");
    assert_eq!(v.requirement.sm, Some(13));
}
