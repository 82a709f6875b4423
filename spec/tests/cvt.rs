//! PTX ISA 9.7.9.21 `cvt` between `.f32` and the half formats (the text relied on is
//! `spec/isa-docs/ptx-9.7.9.21-cvt.md`): every variant against an independent reference, LLVM's
//! APFloat (`rustc_apfloat`) with the modifiers' rules written here from the manual's prose.
//! Widening is checked on every 16-bit input; narrowing on every value of the half format
//! with its f32 neighbours, the midpoints between neighbouring half values (the ties) with
//! theirs, and random f32 patterns, in all four roundings.

mod common;
use common::spec;
use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round as ApRound};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;

/// A half format of the tests.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Half16 {
    F16,
    Bf16,
}

impl Half16 {
    fn name(self) -> &'static str {
        match self {
            Half16::F16 => "f16",
            Half16::Bf16 => "bf16",
        }
    }
    /// MAX_NORM, the largest finite value, positive.
    fn max_norm(self) -> u64 {
        match self {
            Half16::F16 => 0x7BFF,
            Half16::Bf16 => 0x7F7F,
        }
    }
    fn one(self) -> u64 {
        match self {
            Half16::F16 => 0x3C00,
            Half16::Bf16 => 0x3F80,
        }
    }
    fn is_nan(self, b: u64) -> bool {
        match self {
            Half16::F16 => b & 0x7C00 == 0x7C00 && b & 0x3FF != 0,
            Half16::Bf16 => b & 0x7F80 == 0x7F80 && b & 0x7F != 0,
        }
    }
    /// The value of half pattern `b` as f32 bits, and whether the conversion was inexact.
    fn widen(self, b: u64) -> u64 {
        let mut inexact = false;
        let r: Single = match self {
            Half16::F16 => Half::from_bits(b.into()).convert(&mut inexact).value,
            Half16::Bf16 => BFloat::from_bits(b.into()).convert(&mut inexact).value,
        };
        assert!(!inexact, "{self:?} {b:#x} widens exactly");
        r.to_bits() as u64
    }
    /// f32 bits rounded to this format by APFloat.
    fn narrow(self, x: u64, rm: ApRound) -> u64 {
        let mut inexact = false;
        let s = Single::from_bits(x.into());
        match self {
            Half16::F16 => {
                let r: Half = s.convert_r(rm, &mut inexact).value;
                r.to_bits() as u64
            }
            Half16::Bf16 => {
                let r: BFloat = s.convert_r(rm, &mut inexact).value;
                r.to_bits() as u64
            }
        }
    }
}

const F32_SIGN: u64 = 0x8000_0000;
const F32_ONE: u64 = 0x3F80_0000;

fn f32_is_nan(x: u64) -> bool {
    x & 0x7F80_0000 == 0x7F80_0000 && x & 0x7F_FFFF != 0
}

fn f32_is_subnormal(x: u64) -> bool {
    x & 0x7F80_0000 == 0 && x & 0x7F_FFFF != 0
}

/// The modifiers of a variant, read from its text (`cvt.rn.relu.satfinite.f16x2.f32`).
#[derive(Clone, Copy, Debug)]
struct Mods {
    rm: ApRound,
    ftz: bool,
    sat: bool,
    relu: bool,
    satfinite: bool,
}

fn mods(text: &str) -> Mods {
    let has = |m: &str| text.split('.').any(|t| t == m);
    let rm = if has("rz") {
        ApRound::TowardZero
    } else if has("rm") {
        ApRound::TowardNegative
    } else if has("rp") {
        ApRound::TowardPositive
    } else {
        ApRound::NearestTiesToEven
    };
    Mods {
        rm,
        ftz: has("ftz"),
        sat: has("sat"),
        relu: has("relu"),
        satfinite: has("satfinite"),
    }
}

/// What 9.7.9.21 says `cvt` from .f32 to `fmt` gives for `x` (None: "an unspecified NaN").
fn narrow_reference(fmt: Half16, m: Mods, x: u64) -> Option<u64> {
    // ".ftz ... flush single-precision subnormal inputs ... to sign-preserving zero"
    let x = if m.ftz && f32_is_subnormal(x) {
        x & F32_SIGN
    } else {
        x
    };
    if f32_is_nan(x) {
        // ".sat: NaN results are flushed to positive zero"; ".relu: NaN results are
        // converted to canonical NaN"; ".satfinite: ... the result is NaN".
        return if m.sat {
            Some(0)
        } else if m.relu {
            Some(0x7FFF)
        } else {
            None
        };
    }
    let max_norm = fmt.max_norm();
    // ".satfinite: If the absolute value of input (ignoring sign) is greater than MAX_NORM of
    // the specified destination format, then the result is sign-preserved MAX_NORM": the
    // input is compared, before any rounding.
    let beyond = {
        let mag = Single::from_bits((x & !F32_SIGN).into());
        let max = Single::from_bits(fmt.widen(max_norm).into());
        mag > max
    };
    let sign16 = if x & F32_SIGN != 0 { 0x8000 } else { 0 };
    let mut r = if m.satfinite && beyond {
        sign16 | max_norm
    } else {
        fmt.narrow(x, m.rm)
    };
    if m.sat {
        // "limits the result to the range [0.0, 1.0]" (-0.0 to +0.0: docs/ambiguities.md).
        let negative = r & 0x8000 != 0;
        r = if negative || r == 0 {
            0
        } else if r > fmt.one() {
            fmt.one()
        } else {
            r
        };
    }
    if m.relu && r & 0x8000 != 0 {
        // "clamps the result to 0 if negative" (-0.0 included: docs/ambiguities.md).
        r = 0;
    }
    Some(r)
}

/// What 9.7.9.21 says `cvt` from `fmt` to .f32 gives for `h`.
fn widen_reference(fmt: Half16, m: Mods, h: u64) -> Option<u64> {
    if fmt.is_nan(h) {
        return if m.sat { Some(0) } else { None };
    }
    let mut r = fmt.widen(h);
    // ".ftz ... flush single-precision subnormal ... results" (a .bf16 subnormal is one).
    if m.ftz && f32_is_subnormal(r) {
        r &= F32_SIGN;
    }
    if m.sat {
        let negative = r & F32_SIGN != 0;
        r = if negative || r == 0 {
            0
        } else if r > F32_ONE {
            F32_ONE
        } else {
            r
        };
    }
    Some(r)
}

fn accepts(a: &Accept, expected: Option<u64>, nan_of: impl Fn(u64) -> bool, got: u64) -> bool {
    match expected {
        Some(e) => *a == Accept::Exact(e),
        None => matches!(a, Accept::AnyNan(_)) && nan_of(got),
    }
}

/// The conversions between .f32 and the half formats (spec/tests/cvt_complete.rs has the
/// others).
fn cvt_variants() -> Vec<&'static Variant> {
    let between = [
        ".f16.f32",
        ".bf16.f32",
        ".f16x2.f32",
        ".bf16x2.f32",
        ".f32.f16",
        ".f32.bf16",
    ];
    spec()
        .variants
        .iter()
        .filter(|v| v.family == "cvt" && between.iter().any(|b| v.text.ends_with(b)))
        .collect()
}

/// The format a variant converts to or from, besides .f32.
fn half_of(v: &Variant) -> Half16 {
    if v.text.contains("bf16") {
        Half16::Bf16
    } else {
        Half16::F16
    }
}

#[test]
fn there_are_58_conversions_between_f32_and_the_half_formats() {
    let vs = cvt_variants();
    assert_eq!(
        vs.len(),
        58,
        "{:?}",
        vs.iter().map(|v| &v.text).collect::<Vec<_>>()
    );
    for v in vs {
        assert!(
            v.text.ends_with(".f32")
                || v.text.ends_with(".f32.f16")
                || v.text.ends_with(".f32.bf16"),
            "{}",
            v.text
        );
    }
}

/// Every 16-bit input of every widening variant (`cvt{.ftz}{.sat}.f32.{f16,bf16}`).
#[test]
fn widening_is_exact_on_every_16_bit_input() {
    let mut checked = 0u64;
    for v in cvt_variants()
        .into_iter()
        .filter(|v| v.dests[0].ty == "f32")
    {
        let (fmt, m) = (half_of(v), mods(&v.text));
        let mut ev = Evaluator::new(&v.program);
        let mut out = [Accept::default()];
        for h in 0..=0xFFFF_u64 {
            ev.eval(&[h], &mut out);
            let expected = widen_reference(fmt, m, h);
            let got = out[0].representative();
            assert!(
                accepts(&out[0], expected, f32_is_nan, got),
                "{} {h:#06x}: spec {:?}, reference {expected:x?}",
                v.text,
                out[0]
            );
            checked += 1;
        }
    }
    // .f16: plain, .ftz, .sat, .ftz.sat; .bf16: plain, .ftz (no .sat: entry 51).
    assert_eq!(checked, 6 * 65536);
}

/// f32 inputs around every value of the half format: the value, its f32 neighbours, the
/// midpoint to the next half value (a tie) and the midpoint's neighbours; both signs; the
/// largest finite values and what lies beyond them; then random patterns.
fn narrowing_inputs(fmt: Half16) -> Vec<u64> {
    let mut xs = Vec::new();
    for h in 0..0x7C00_u64.min(if fmt == Half16::F16 { 0x7C00 } else { 0x7F80 }) {
        let v = fmt.widen(h);
        let next = fmt.widen(h + 1);
        let mid = (v + next) / 2; // both positive, same binade or adjacent: the f32 midpoint
        for x in [v, v + 1, v.wrapping_sub(1), mid, mid - 1, mid + 1] {
            xs.push(x);
            xs.push(x | F32_SIGN);
        }
    }
    if fmt == Half16::Bf16 {
        for h in 0x7C00..0x7F80_u64 {
            let v = fmt.widen(h);
            let mid = (v + fmt.widen(h + 1)) / 2;
            for x in [v, mid, mid + 1] {
                xs.push(x);
                xs.push(x | F32_SIGN);
            }
        }
    }
    // Beyond MAX_NORM up to and including infinity, NaNs, and random patterns.
    for x in [
        0x7F7F_FFFF,
        0x7F80_0000,
        0x7F80_0001,
        0x7FC0_0000,
        0x7FFF_FFFF,
        0x477F_F000,
        0x477F_EFFF,
        0x477F_E001,
        0x4780_0000,
    ] {
        xs.push(x);
        xs.push(x | F32_SIGN);
    }
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..200_000 {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        xs.push((z ^ (z >> 31)) & 0xFFFF_FFFF);
    }
    xs
}

#[test]
fn narrowing_matches_apfloat_in_every_rounding_with_relu_satfinite_sat_and_ftz() {
    let mut checked = 0u64;
    for fmt in [Half16::F16, Half16::Bf16] {
        let xs = narrowing_inputs(fmt);
        let narrow: Vec<&Variant> = cvt_variants()
            .into_iter()
            .filter(|v| {
                v.dests[0].ty.starts_with(fmt.name())
                    && v.text.ends_with(&format!(".{}.f32", fmt.name()))
            })
            .collect();
        assert_eq!(
            narrow.len(),
            if fmt == Half16::F16 { 22 } else { 14 },
            "{fmt:?}"
        );
        for v in narrow {
            let m = mods(&v.text);
            let mut ev = Evaluator::new(&v.program);
            let mut out = [Accept::default()];
            for &x in &xs {
                ev.eval(&[x], &mut out);
                let expected = narrow_reference(fmt, m, x);
                let got = out[0].representative();
                if m.ftz && f32_is_subnormal(x) {
                    // docs/ambiguities.md 123: the flushed input's result or the kept one's.
                    let kept = narrow_reference(fmt, Mods { ftz: false, ..m }, x);
                    let mut want: Vec<u64> = [expected, kept].into_iter().flatten().collect();
                    want.dedup();
                    let mut allowed = out[0].values().to_vec();
                    allowed.dedup();
                    assert_eq!(allowed, want, "{} {x:#010x}", v.text);
                } else {
                    assert!(
                        accepts(&out[0], expected, |b| fmt.is_nan(b), got),
                        "{} {x:#010x}: spec {:?}, reference {expected:x?}",
                        v.text,
                        out[0]
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000_000, "{checked} cases");
}

/// "the value converted from input a is stored in the upper half of d and the value converted
/// from input b is stored in the lower half of d": lane 1 (bits 31..16) from `a`.
#[test]
fn packed_conversions_put_a_in_the_upper_half() {
    for fmt in [Half16::F16, Half16::Bf16] {
        let xs = narrowing_inputs(fmt);
        for v in cvt_variants()
            .into_iter()
            .filter(|v| v.dests[0].ty == format!("{}x2", fmt.name()))
        {
            let m = mods(&v.text);
            let mut ev = Evaluator::new(&v.program);
            let mut out = [Accept::default(), Accept::default()];
            for pair in xs.chunks(2).step_by(7) {
                let (a, b) = (pair[0], pair[pair.len() - 1]);
                ev.eval(&[a, b], &mut out);
                // Part 0 is lane 0, the lower half.
                for (part, x) in [(0, b), (1, a)] {
                    let expected = narrow_reference(fmt, m, x);
                    let got = out[part].representative();
                    assert!(
                        accepts(&out[part], expected, |h| fmt.is_nan(h), got),
                        "{} a={a:#x} b={b:#x} lane {part}: spec {:?}, reference {expected:x?}",
                        v.text,
                        out[part]
                    );
                }
            }
        }
    }
    // The manual's example: "cvt.rz.f16x2.f32 b1, f, f1; // convert two fp32 values to packed
    // fp16 outputs", with f = 1.0 and f1 = 2.0.
    let parts = common::eval("cvt.rz.f16x2.f32", &[0x3F80_0000, 0x4000_0000]);
    assert_eq!(parts, [Accept::Exact(0x4000), Accept::Exact(0x3C00)]);
}

/// `cvt.rn.f16.f32` is spelled by the general line and by the `.relu`/`.satfinite` line; both
/// mean the same conversion, so it is one variant, valid since PTX ISA 1.0 (the general line),
/// and `eval` takes it without asking which form.
#[test]
fn the_two_spellings_of_cvt_rn_f16_f32_are_one_variant() {
    for text in [
        "cvt.rn.f16.f32",
        "cvt.rz.f16.f32",
        "cvt.rn.bf16.f32",
        "cvt.rz.bf16.f32",
    ] {
        let vs = spec().variants_named(text);
        assert_eq!(vs.len(), 1, "{text}");
        assert!(spec().lookup(text, None).is_ok(), "{text}");
    }
    let v = spec().lookup("cvt.rn.f16.f32", None).expect("loads");
    assert_eq!(v.requirement.ptx, Some((1, 0)));
    assert_eq!(v.requirement.sm, None);
    let v = spec().lookup("cvt.rn.relu.f16.f32", None).expect("loads");
    assert_eq!(
        (v.requirement.ptx, v.requirement.sm),
        (Some((7, 0)), Some(80))
    );
    let v = spec()
        .lookup("cvt.rn.satfinite.f16.f32", None)
        .expect("loads");
    assert_eq!(
        (v.requirement.ptx, v.requirement.sm),
        (Some((8, 1)), Some(80))
    );
    let v = spec().lookup("cvt.ftz.f32.bf16", None).expect("loads");
    assert_eq!(
        (v.requirement.ptx, v.requirement.sm),
        (Some((7, 8)), Some(90))
    );
}

/// What the general line allows but the prose forbids is refused, with the manual's reason.
#[test]
fn forbidden_combinations_are_refused_with_the_manual_reason() {
    for (text, why) in [
        ("cvt.f16.f32", "Rounding modifier is mandatory"),
        ("cvt.ftz.bf16.f32", "Rounding modifier is mandatory"),
        ("cvt.rn.f32.f16", "Floating-point rounding is illegal"),
        ("cvt.rz.f32.bf16", "Floating-point rounding is illegal"),
        ("cvt.rn.sat.bf16.f32", "Applies to .f16, .f32, and .f64"),
        ("cvt.sat.f32.bf16", "Applies to .f16, .f32, and .f64"),
        ("cvt.ftz.sat.f32.bf16", "Applies to .f16, .f32, and .f64"),
    ] {
        let e = spec().lookup(text, None).expect_err(text).to_string();
        assert!(
            e.contains("is not supported") && e.contains(why),
            "{text}: {e}"
        );
    }
}
