//! PTX ISA 9.7.4.7 `min` and 9.7.4.8 `max` on `.f16`, `.f16x2`, `.bf16`, `.bf16x2`: every
//! variant against the manual's pseudo-code written again here, with comparisons done by an
//! independent soft-float (`rustc_apfloat`), on boundary-heavy inputs (≥ 10 M lanes in all).

mod common;
use common::spec;
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::Float;
// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use std::cmp::Ordering;

const SIGN: u64 = 0x8000;
/// DESIGN.md: "The canonical 16-bit NaN is 0x7FFF" (docs/ambiguities.md item 18).
const CANONICAL_NAN_16: u64 = 0x7FFF;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    F16,
    Bf16,
}

impl Kind {
    fn is_nan(self, x: u64) -> bool {
        match self {
            Kind::F16 => Half::from_bits(x.into()).is_nan(),
            Kind::Bf16 => BFloat::from_bits(x.into()).is_nan(),
        }
    }

    fn is_subnormal(self, x: u64) -> bool {
        match self {
            Kind::F16 => Half::from_bits(x.into()).is_denormal(),
            Kind::Bf16 => BFloat::from_bits(x.into()).is_denormal(),
        }
    }

    /// APFloat's IEEE comparison (`None` for NaN; `-0 == +0`).
    fn compare(self, a: u64, b: u64) -> Option<Ordering> {
        match self {
            Kind::F16 => Half::from_bits(a.into()).partial_cmp(&Half::from_bits(b.into())),
            Kind::Bf16 => BFloat::from_bits(a.into()).partial_cmp(&BFloat::from_bits(b.into())),
        }
    }
}

/// What one lane may hold.
#[derive(Debug, PartialEq)]
enum Want {
    Bits(u64),
    AnyNan,
}

#[derive(Clone, Copy)]
struct Mods {
    is_max: bool,
    ftz: bool,
    nan: bool,
    xorsign_abs: bool,
}

/// The Semantics block of 9.7.4.7/9.7.4.8 for one lane, with the Notes: ".ftz flushes
/// subnormal inputs and results to sign-preserving zero" and "If values of both inputs are
/// 0.0, then +0.0 > -0.0".
fn reference(k: Kind, m: Mods, a: u64, b: u64) -> Want {
    let flush = |x: u64| {
        if m.ftz && k.is_subnormal(x) {
            x & SIGN
        } else {
            x
        }
    };
    let (mut a, mut b) = (flush(a), flush(b));
    // ".xorsign considers the sign bit of both inputs before applying .abs".
    let xorsign = (a ^ b) & SIGN;
    if m.xorsign_abs {
        a &= !SIGN;
        b &= !SIGN;
    }
    let (na, nb) = (k.is_nan(a), k.is_nan(b));
    if m.nan && (na || nb) {
        return Want::Bits(CANONICAL_NAN_16);
    }
    if na && nb {
        return Want::AnyNan;
    }
    let d = if na {
        b
    } else if nb {
        a
    } else {
        let a_first = match k.compare(a, b).expect("neither is NaN") {
            Ordering::Less => !m.is_max,
            Ordering::Greater => m.is_max,
            // Equal values differ only in the sign of zero: -0.0 < +0.0.
            Ordering::Equal => (a & SIGN != 0) != m.is_max,
        };
        if a_first {
            a
        } else {
            b
        }
    };
    // "If the result of min is NaN then the .xorsign and .abs modifiers will be ignored" (d is
    // never NaN here: both-NaN returned above).
    let d = if m.xorsign_abs {
        (d & !SIGN) | xorsign
    } else {
        d
    };
    Want::Bits(flush(d))
}

fn check(text: &str, inputs: &[u64], lane: usize, got: &Accept, want: &Want) {
    let ok = match want {
        Want::Bits(w) => *got == Accept::Exact(*w),
        Want::AnyNan => matches!(got, Accept::AnyNan(_)),
    };
    assert!(
        ok,
        "{text} {inputs:x?} lane {lane}: the manual gives {want:x?}, the spec {got:x?}"
    );
}

/// Every half min/max variant on `cases` inputs each; returns the lanes checked.
fn differential(opcode: &str, cases: usize) -> usize {
    let s = spec();
    let (mut variants, mut lanes) = (0, 0);
    for v in s.variants.iter().filter(|v| v.family == opcode) {
        let ty = v.sources[0].ty.as_str();
        let kind = match ty {
            "f16" | "f16x2" => Kind::F16,
            "bf16" | "bf16x2" => Kind::Bf16,
            _ => continue,
        };
        variants += 1;
        let tokens: Vec<&str> = v.text.split('.').collect();
        let m = Mods {
            is_max: opcode == "max",
            ftz: tokens.contains(&"ftz"),
            nan: tokens.contains(&"NaN"),
            xorsign_abs: tokens.contains(&"xorsign"),
        };
        let mut ev = Evaluator::new(&v.program);
        let mut out = vec![Accept::default(); ev.n_parts()];
        let mut samples = Samples::new(s, v, 0xD1FF ^ variants as u64);
        let mut inputs = vec![0u64; v.sources.len()];
        for _ in 0..cases {
            samples.fill(&mut inputs);
            ev.eval(&inputs, &mut out);
            for (lane, got) in out.iter().enumerate() {
                let x = |k: usize| (inputs[k] >> (16 * lane)) & 0xFFFF;
                check(&v.text, &inputs, lane, got, &reference(kind, m, x(0), x(1)));
                lanes += 1;
            }
        }
    }
    // 9.7.4.7/9.7.4.8 syntax: {.ftz}{.NaN}{.xorsign.abs} on f16 and f16x2 (8 each),
    // {.NaN}{.xorsign.abs} on bf16 and bf16x2 (4 each).
    assert_eq!(variants, 24, "{opcode}: half-precision variants");
    lanes
}

/// 24 variants × 140,000 inputs, half of them packed: 5.04 M lanes per opcode, 10.08 M in all.
const CASES_PER_VARIANT: usize = 140_000;

#[test]
fn min_against_the_pseudo_code() {
    assert_eq!(
        differential("min", CASES_PER_VARIANT),
        36 * CASES_PER_VARIANT
    );
}

#[test]
fn max_against_the_pseudo_code() {
    assert_eq!(
        differential("max", CASES_PER_VARIANT),
        36 * CASES_PER_VARIANT
    );
}

/// The reference must be able to tell min from max, honour the zero order and the NaN rules.
#[test]
fn the_reference_is_not_vacuous() {
    let min = Mods {
        is_max: false,
        ftz: false,
        nan: false,
        xorsign_abs: false,
    };
    let max = Mods {
        is_max: true,
        ..min
    };
    let (one, two, neg_zero, qnan) = (0x3C00, 0x4000, 0x8000, 0x7E00);
    assert_eq!(reference(Kind::F16, min, one, two), Want::Bits(one));
    assert_eq!(reference(Kind::F16, max, one, two), Want::Bits(two));
    assert_eq!(reference(Kind::F16, min, 0, neg_zero), Want::Bits(neg_zero));
    assert_eq!(reference(Kind::F16, max, neg_zero, 0), Want::Bits(0));
    assert_eq!(reference(Kind::F16, min, qnan, two), Want::Bits(two));
    assert_eq!(
        reference(Kind::F16, Mods { nan: true, ..min }, qnan, two),
        Want::Bits(CANONICAL_NAN_16)
    );
    // -1 xorsign.abs 2: min(|-1|, |2|) = 1 with sign 1 ^ 0.
    assert_eq!(
        reference(
            Kind::Bf16,
            Mods {
                xorsign_abs: true,
                ..min
            },
            0xBF80,
            0x4000
        ),
        Want::Bits(0xBF80)
    );
    // A spec that ignored .ftz would be caught: f16 0x0001 is subnormal.
    assert_eq!(
        reference(Kind::F16, Mods { ftz: true, ..max }, 0x0001, 0x8000),
        Want::Bits(0)
    );
}
