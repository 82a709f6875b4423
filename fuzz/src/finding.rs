//! Findings: a case the spec rejects, classified, deduplicated by signature, with its count,
//! first and last sighting, and its smallest example.
//!
//! [`Finding`] is the JSON contract: `semfuzz fuzz --json` writes one per line, and the service
//! ingests exactly these objects. Fed back to `semfuzz check` as
//! `variant inputs... actual` (its [`Finding::check_line`]), every finding is a mismatch.

use semfuzz_backend::{Identity, Words};
use semfuzz_fp::Format;
use semfuzz_spec::catalog::{FormatInfo, ModifierKind, OperandRole};
use semfuzz_spec::ir::{Dest, PartKind};
use semfuzz_spec::outcome::{classify, describe, describe_accept, Accept, Mismatch};
use semfuzz_spec::{Spec, Variant};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::time::SystemTime;

/// One deduplicated discrepancy between a backend and the spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The variant's text (`add.rn.f32`).
    pub variant: String,
    /// The backend as named on the command line (`host`, `llvm:opt-16`).
    pub backend: String,
    /// The backend's version.
    pub backend_version: String,
    /// The machine or device the backend ran on.
    pub device: String,
    /// The kind of difference ([`Class`]'s text: `ulp-up-1`, `sign-of-zero`, ...).
    pub class: String,
    /// The destination part that differs (`d`, `d[1]`, `d[63:32]`).
    pub part: String,
    /// The deduplication key: a hash of variant, backend identity, class, part and
    /// operand classes (16 hex digits).
    pub signature: String,
    /// The class of each input operand (`+normal`, `-subnormal|qnan` for two lanes).
    pub operand_classes: Vec<String>,
    /// The smallest example's inputs, hex, in the variant's operand order (as `check` reads
    /// them).
    pub inputs: Vec<String>,
    /// What the spec allows in `part` for those inputs.
    pub expected: String,
    /// What the backend returned: the whole destination register, hex.
    pub actual: String,
    /// One line a person reads: the differing part, decoded, and the classification.
    pub detail: String,
    /// How many cases fell under this signature.
    pub count: u64,
    /// When the signature was first seen (RFC 3339, UTC).
    pub first_seen: String,
    /// When it was last seen (RFC 3339, UTC).
    pub last_seen: String,
}

impl Finding {
    /// The line `semfuzz check` reads to re-check the example: `variant inputs... actual`.
    pub fn check_line(&self) -> String {
        let mut words = vec![self.variant.clone()];
        words.extend(self.inputs.iter().cloned());
        words.push(self.actual.clone());
        words.join(" ")
    }
}

/// A classification of a rejected result, in words that are stable across releases: the
/// service filters and the dashboard group by them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// A NaN where the spec requires a number.
    NanForNumber,
    /// A number where the spec requires a NaN.
    NumberForNan,
    /// A NaN, but not one the spec allows (payload, sign, or the canonical pattern).
    WrongNan,
    /// A zero of the wrong sign.
    SignOfZero,
    /// A subnormal kept where flush-to-zero requires zero.
    FtzNotApplied,
    /// A zero where the spec requires a subnormal.
    FtzOverApplied,
    /// `.sat` (clamp to [0, 1]) or `.relu` (clamp at 0) not applied.
    Saturation,
    /// The right kind of number, off by `ulps` (bucketed: 1, 2, 3..4, 5..8, ...) up or down.
    Rounding {
        /// The bucket's lower end.
        lo: u64,
        /// The bucket's upper end.
        hi: u64,
        /// Too large.
        up: bool,
    },
    /// Outside an approximation's error bound by a bucketed number of ulps.
    BoundExceeded {
        /// The bucket's lower end.
        lo: u64,
        /// The bucket's upper end.
        hi: u64,
        /// Above the bound.
        up: bool,
    },
    /// Other differing bits (predicates, integers, the sign of a nonzero).
    Bits,
}

/// The power-of-two bucket of a count of ulps: 1, 2, 3..4, 5..8, 9..16, ...
fn bucket(n: u64) -> (u64, u64) {
    if n <= 2 {
        return (n, n);
    }
    let hi = n.next_power_of_two();
    (hi / 2 + 1, hi)
}

impl Class {
    /// Classifies `got` for part `kind`, which `expected` rejects, in `variant`.
    pub fn of(words: &Words<'_>, kind: PartKind, expected: &Accept, got: u64) -> Class {
        if let Some(class) = match kind {
            PartKind::Float(f) => saturation(words, f, expected, got),
            _ => None,
        } {
            return class;
        }
        match classify(kind, expected, got) {
            Mismatch::NanExpectedNumber => Class::NanForNumber,
            Mismatch::NumberExpectedNan => Class::NumberForNan,
            Mismatch::WrongNan => Class::WrongNan,
            Mismatch::SignOfZero => Class::SignOfZero,
            Mismatch::FtzOverApplied => Class::FtzOverApplied,
            Mismatch::FtzNotApplied => Class::FtzNotApplied,
            Mismatch::Ulps(n) => {
                let (lo, hi) = bucket(n.unsigned_abs());
                Class::Rounding { lo, hi, up: n > 0 }
            }
            Mismatch::BoundExceeded(n) => {
                let (lo, hi) = bucket(n.unsigned_abs());
                Class::BoundExceeded { lo, hi, up: n > 0 }
            }
            Mismatch::Bits => Class::Bits,
        }
    }
}

/// `.sat` and `.relu` clamp: a result outside [0, 1] (or below 0) where the spec gives the
/// clamp's end is the clamp missing, whatever the ulp distance.
fn saturation(words: &Words<'_>, f: Format, expected: &Accept, got: u64) -> Option<Class> {
    let Accept::Exact(want) = *expected else {
        return None;
    };
    let (sat, relu) = (words.has("sat"), words.has("relu"));
    if !(sat || relu) || f.is_nan(want) {
        return None;
    }
    let one = f.one(false);
    let at_end = want == f.zero(false) || (sat && want == one);
    let outside = f.is_nan(got) || f.sign_bit(got) && !f.is_zero(got) || sat && f.to_f64(got) > 1.0;
    (at_end && outside).then_some(Class::Saturation)
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let range = |lo: u64, hi: u64| {
            if lo == hi {
                format!("{lo}")
            } else {
                format!("{lo}..{hi}")
            }
        };
        match self {
            Class::NanForNumber => write!(f, "nan-for-number"),
            Class::NumberForNan => write!(f, "number-for-nan"),
            Class::WrongNan => write!(f, "wrong-nan"),
            Class::SignOfZero => write!(f, "sign-of-zero"),
            Class::FtzNotApplied => write!(f, "ftz-not-applied"),
            Class::FtzOverApplied => write!(f, "ftz-over-applied"),
            Class::Saturation => write!(f, "saturation"),
            Class::Rounding { lo, hi, up } => {
                write!(
                    f,
                    "ulp-{}-{}",
                    if *up { "up" } else { "down" },
                    range(*lo, *hi)
                )
            }
            Class::BoundExceeded { lo, hi, up } => write!(
                f,
                "bound-exceeded-{}-{}",
                if *up { "up" } else { "down" },
                range(*lo, *hi)
            ),
            Class::Bits => write!(f, "bits"),
        }
    }
}

/// The class of one floating-point encoding: `+zero`, `-subnormal`, `+normal`, `-inf`,
/// `qnan`, `snan`.
pub fn value_class(f: Format, bits: u64) -> &'static str {
    let neg = f.sign_bit(bits);
    match () {
        _ if f.is_nan(bits) && f.is_signaling_nan(bits) => "snan",
        _ if f.is_nan(bits) => "qnan",
        _ if f.is_inf(bits) => ["+inf", "-inf"][neg as usize],
        _ if f.is_zero(bits) => ["+zero", "-zero"][neg as usize],
        _ if f.is_subnormal(bits) => ["+subnormal", "-subnormal"][neg as usize],
        _ => ["+normal", "-normal"][neg as usize],
    }
}

/// The class of each input of `variant`: floating-point values by [`value_class`] (lanes
/// joined with `|`, lane 0 first), instruction fields by the member they select, anything
/// else `bits`.
pub fn operand_classes(spec: &Spec, variant: &Variant, inputs: &[u64]) -> Vec<String> {
    variant
        .sources
        .iter()
        .zip(inputs)
        .map(|(src, &v)| match &src.role {
            OperandRole::Modifier {
                kind: ModifierKind::Member { members, .. },
                ..
            } => members.get(v as usize).cloned().unwrap_or_default(),
            OperandRole::Modifier { kind, .. } => {
                format!(
                    "{}={v}",
                    if *kind == ModifierKind::Neg {
                        "neg"
                    } else {
                        "abs"
                    }
                )
            }
            _ => match spec.format(&src.ty) {
                Some(FormatInfo::Scalar(f)) => value_class(f, v).to_string(),
                Some(FormatInfo::Packed(f, n)) => (0..n)
                    .map(|l| value_class(f, v >> (l * f.width())))
                    .collect::<Vec<_>>()
                    .join("|"),
                None => "bits".to_string(),
            },
        })
        .collect()
}

/// The first part of `dest` whose accept set rejects `got`: its index and the set.
pub fn first_rejected(dest: &Dest, accepts: &[Accept], got: u64) -> Option<usize> {
    dest.parts.iter().zip(accepts).position(|(part, accept)| {
        !accept.accepts((got >> part.lo) & semfuzz_spec::ir::mask(part.width))
    })
}

/// How big an example is: the significant bits of its inputs (each value's bit length
/// without its trailing zeros), so `0x3f800000` (1.0) is smaller than `0x3f800001`.
pub fn example_size(inputs: &[u64]) -> u32 {
    inputs
        .iter()
        .map(|&v| {
            if v == 0 {
                0
            } else {
                64 - v.leading_zeros() - v.trailing_zeros()
            }
        })
        .sum()
}

/// Hex as `check` reads it, padded to the operand width.
pub fn hex(bits: u64, width: u32) -> String {
    format!("0x{:0w$x}", bits, w = (width as usize).div_ceil(4))
}

/// A finding as the campaign accumulates it, before it is written out.
#[derive(Clone, Debug)]
pub struct Record {
    /// The variant's index in the spec's catalogue.
    pub variant: usize,
    /// Its class.
    pub class: String,
    /// The differing part's index in the first destination.
    pub part: usize,
    /// The signature.
    pub signature: String,
    /// Operand classes of the first example (the same for every example under the
    /// signature).
    pub operand_classes: Vec<String>,
    /// The smallest example's inputs.
    pub inputs: Vec<u64>,
    /// The backend's result for it.
    pub actual: u64,
    /// The accept set of the differing part for it.
    pub expected: Accept,
    /// Cases under the signature.
    pub count: u64,
    /// First sighting.
    pub first_seen: SystemTime,
    /// Last sighting.
    pub last_seen: SystemTime,
}

impl Record {
    /// Adds `other` (same signature): counts add, sightings widen, the smaller example stays
    /// (ties broken by the inputs' order, so the result does not depend on thread timing).
    pub fn merge(&mut self, other: Record) {
        self.count += other.count;
        self.first_seen = self.first_seen.min(other.first_seen);
        self.last_seen = self.last_seen.max(other.last_seen);
        let key = |r: &Record| (example_size(&r.inputs), r.inputs.clone());
        if key(&other) < key(self) {
            self.inputs = other.inputs;
            self.actual = other.actual;
            self.expected = other.expected;
        }
    }

    /// The JSON form.
    pub fn finding(&self, spec: &Spec, backend: &Identity) -> Finding {
        let variant = &spec.variants[self.variant];
        let dest = &variant.program.dests[0];
        let part = &dest.parts[self.part];
        let got = (self.actual >> part.lo) & semfuzz_spec::ir::mask(part.width);
        let expected = describe_accept(part.kind, &self.expected);
        Finding {
            variant: variant.text.clone(),
            backend: backend.name.clone(),
            backend_version: backend.version.clone(),
            device: backend.device.clone(),
            class: self.class.clone(),
            part: dest.part_name(self.part),
            signature: self.signature.clone(),
            operand_classes: self.operand_classes.clone(),
            inputs: variant
                .sources
                .iter()
                .zip(&self.inputs)
                .map(|(s, &v)| hex(v, s.width))
                .collect(),
            detail: format!(
                "{} = {}, but the spec allows {}",
                dest.part_name(self.part),
                describe(part.kind, got),
                expected
            ),
            expected,
            actual: hex(self.actual, dest.width),
            count: self.count,
            first_seen: humantime::format_rfc3339_seconds(self.first_seen).to_string(),
            last_seen: humantime::format_rfc3339_seconds(self.last_seen).to_string(),
        }
    }
}

/// The signature of a finding: 16 hex digits of SHA-256 over its variant, backend identity,
/// class, part and operand classes.
pub fn signature(
    variant: &str,
    backend: &Identity,
    class: &str,
    part: &str,
    operand_classes: &[String],
) -> String {
    let mut h = Sha256::new();
    for field in [
        variant,
        &backend.name,
        &backend.version,
        &backend.device,
        class,
        part,
    ]
    .into_iter()
    .chain(operand_classes.iter().map(String::as_str))
    {
        h.update(field.as_bytes());
        h.update([0]);
    }
    h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
