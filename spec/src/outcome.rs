//! What the ISA allows a destination part to hold, whether a backend's bits are allowed, and
//! how a rejected result differs (the classification findings are filed under).

use crate::ir::PartKind;
use semfuzz_fp::Format;
use std::fmt;

/// The most values a `one_of` may list (NaN propagation over three inputs needs three).
pub const MAX_ONE_OF: usize = 4;

/// The accept set of one destination part for one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accept {
    /// Exactly these bits.
    Exact(u64),
    /// Any NaN of the format.
    AnyNan(Format),
    /// Any of the first `len` values.
    OneOf {
        /// How many of `values` are used.
        len: u8,
        /// The values.
        values: [u64; MAX_ONE_OF],
    },
    /// Any non-NaN value `v` of the format with `lo <= v <= hi` in numeric order (`-0 < +0`);
    /// with `ftz`, never a subnormal. The bounded outcome of an approximation (`approx`).
    Within {
        /// Lowest accepted encoding.
        lo: u64,
        /// Highest accepted encoding.
        hi: u64,
        /// The correctly rounded (RN, flushed under `ftz`) reference: the representative.
        rep: u64,
        /// The format.
        format: Format,
        /// Subnormals are not accepted (flush-to-zero).
        ftz: bool,
    },
    /// Any bits at all (`any_value`): a "best effort" approximation, an undefined result, a
    /// licence without a bound.
    Any(Format),
    /// LLVM IR poison of this many bits (`poison`): any bits.
    Poison(u32),
    /// LLVM IR immediate undefined behaviour (`undefined`): anything.
    Ub(u32),
}

/// Total numeric order key of a non-NaN encoding, with `-0 < +0`.
pub fn order_key(f: Format, bits: u64) -> i64 {
    let mag = (bits & !(1u64 << (f.width() - 1))) as i64;
    if f.sign_bit(bits) {
        -mag - 1
    } else {
        mag
    }
}

impl Default for Accept {
    fn default() -> Accept {
        Accept::Exact(0)
    }
}

impl Accept {
    /// Whether `bits` is in the set.
    pub fn accepts(&self, bits: u64) -> bool {
        match *self {
            Accept::Exact(b) => b == bits,
            Accept::AnyNan(f) => f.is_nan(bits),
            Accept::OneOf { len, values } => values[..len as usize].contains(&bits),
            Accept::Within {
                lo,
                hi,
                format: f,
                ftz,
                ..
            } => {
                !(f.is_nan(bits) || ftz && f.is_subnormal(bits))
                    && (order_key(f, lo)..=order_key(f, hi)).contains(&order_key(f, bits))
            }
            Accept::Any(_) | Accept::Poison(_) | Accept::Ub(_) => true,
        }
    }

    /// Whether some member of the set has `low` as its low `n` bits: how a destination part
    /// wider than what is compared is judged (a 32-bit SASS result against a 16-bit PTX one).
    /// The high bits of a NaN or of a bounded value are tried one by one, up to 2^24 of them;
    /// past that such a set is taken to allow any high bits (no part is that much wider than
    /// what it is compared with).
    pub fn accepts_low(&self, low: u64, n: u32) -> bool {
        let mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        let low = low & mask;
        match *self {
            Accept::Exact(b) => b & mask == low,
            Accept::OneOf { len, values } => values[..len as usize].iter().any(|v| v & mask == low),
            Accept::Any(_) | Accept::Poison(_) | Accept::Ub(_) => true,
            Accept::AnyNan(f) | Accept::Within { format: f, .. } => {
                let width = f.width();
                if n >= width {
                    return self.accepts(low);
                }
                let high_bits = width - n;
                if let Accept::AnyNan(_) = self {
                    // Every high bit set (the exponent's included) is the likeliest NaN.
                    let full = if width >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << width) - 1
                    };
                    return f.is_nan(low | (full & !mask));
                }
                high_bits > 24 || (0..1u64 << high_bits).any(|h| self.accepts(h << n | low))
            }
        }
    }

    /// One member of the set: the value a backend is most likely to produce.
    pub fn representative(&self) -> u64 {
        match *self {
            Accept::Exact(b) => b,
            Accept::AnyNan(f) => f.default_nan(),
            Accept::OneOf { values, .. } => values[0],
            Accept::Within { rep, .. } => rep,
            Accept::Any(f) => f.zero(false),
            Accept::Poison(_) | Accept::Ub(_) => 0,
        }
    }

    /// A few members spread over the set, the representative first: a bounded value's
    /// lowest and highest encodings, every listed value, a NaN with a payload other than the
    /// default's, any bits' all-ones. For searches whose question is whether some member lies
    /// outside another set (a refinement's counterexample), where the representative alone
    /// may be the one member inside.
    pub fn probes(&self) -> Vec<u64> {
        let mut out = vec![self.representative()];
        let mut push = |v: u64| {
            if !out.contains(&v) {
                out.push(v);
            }
        };
        match *self {
            Accept::Exact(_) => {}
            Accept::OneOf { len, values } => values[..len as usize].iter().for_each(|&v| push(v)),
            Accept::Within { lo, hi, .. } => {
                push(lo);
                push(hi);
            }
            Accept::AnyNan(f) => push(f.mask()),
            Accept::Any(f) => push(f.mask()),
            Accept::Poison(w) | Accept::Ub(w) => push(crate::ir::mask(w)),
        }
        out
    }

    /// The listed values (for `Exact` and `OneOf`; empty for the other sets).
    pub fn values(&self) -> &[u64] {
        match self {
            Accept::Exact(b) => std::slice::from_ref(b),
            Accept::AnyNan(_)
            | Accept::Within { .. }
            | Accept::Any(_)
            | Accept::Poison(_)
            | Accept::Ub(_) => &[],
            Accept::OneOf { len, values } => &values[..*len as usize],
        }
    }
}

/// Renders bits as the part's kind reads them: `0x3f800000 (1)`, `0x7fc00000 (qNaN)`.
pub fn describe(kind: PartKind, bits: u64) -> String {
    match kind {
        PartKind::Pred => format!("{bits} ({})", if bits != 0 { "true" } else { "false" }),
        PartKind::Bits => format!("0x{bits:x}"),
        PartKind::Float(f) => {
            let hex = format!("0x{:0w$x}", bits, w = (f.width() as usize).div_ceil(4));
            if f.is_nan(bits) {
                let payload = bits & ((1u64 << (f.precision() - 2)) - 1);
                let sign = if f.sign_bit(bits) { "-" } else { "" };
                let kind = if f.is_signaling_nan(bits) {
                    "sNaN"
                } else {
                    "qNaN"
                };
                format!("{hex} ({sign}{kind} payload 0x{payload:x})")
            } else {
                let v = f.to_f64(bits);
                let sub = if f.is_subnormal(bits) {
                    ", subnormal"
                } else {
                    ""
                };
                let a = v.abs();
                if a != 0.0 && !a.is_infinite() && !(1e-4..1e16).contains(&a) {
                    format!("{hex} ({v:e}{sub})")
                } else {
                    format!("{hex} ({v}{sub})")
                }
            }
        }
    }
}

/// Renders an accept set.
pub fn describe_accept(kind: PartKind, a: &Accept) -> String {
    match a {
        Accept::Exact(b) => describe(kind, *b),
        Accept::AnyNan(_) => "any NaN".to_string(),
        Accept::OneOf { .. } => {
            let vs: Vec<String> = a.values().iter().map(|b| describe(kind, *b)).collect();
            format!("one of {}", vs.join(" | "))
        }
        Accept::Within {
            lo, hi, rep, ftz, ..
        } => format!(
            "any value in [{}, {}]{} (correctly rounded: {})",
            describe(kind, *lo),
            describe(kind, *hi),
            if *ftz { ", subnormals flushed" } else { "" },
            describe(kind, *rep)
        ),
        Accept::Any(_) => {
            "any value: no bound is stated here (a \"best effort\" approximation, an undefined result or a licence without a bound)".to_string()
        }
        Accept::Poison(_) => "poison (LLVM IR: any value, and what reads it is poison)".to_string(),
        Accept::Ub(_) => "undefined behaviour (LLVM IR: the function may do anything)".to_string(),
    }
}

/// How a rejected result differs from what the ISA allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// A NaN where a number was required.
    NanExpectedNumber,
    /// A number where a NaN was required.
    NumberExpectedNan,
    /// A NaN, but not one of the allowed NaNs (payload or sign).
    WrongNan,
    /// Zero of the wrong sign.
    SignOfZero,
    /// A zero where a subnormal was required: flush-to-zero applied where it should not be.
    FtzOverApplied,
    /// A subnormal where zero was required: flush-to-zero not applied.
    FtzNotApplied,
    /// The right kind of number, off by this many units in the last place (+: too large).
    Ulps(i64),
    /// Bits that differ otherwise (integers, predicates, sign of a nonzero).
    Bits,
    /// Outside an approximation's bound by this many ulps beyond the nearest end of the
    /// accepted interval (+: above it).
    BoundExceeded(i64),
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::NanExpectedNumber => write!(f, "NaN where a number is required"),
            Mismatch::NumberExpectedNan => write!(f, "a number where NaN is required"),
            Mismatch::WrongNan => write!(f, "a NaN the ISA does not allow here"),
            Mismatch::SignOfZero => write!(f, "wrong sign of zero"),
            Mismatch::FtzOverApplied => write!(f, "subnormal flushed to zero (FTZ over-applied)"),
            Mismatch::FtzNotApplied => write!(f, "subnormal not flushed (FTZ not applied)"),
            Mismatch::Ulps(n) => write!(
                f,
                "off by {} ulp {}",
                n.unsigned_abs(),
                if *n > 0 { "up" } else { "down" }
            ),
            Mismatch::Bits => write!(f, "different bits"),
            Mismatch::BoundExceeded(n) => write!(
                f,
                "bound exceeded by {} ulp {}",
                n.unsigned_abs(),
                if *n > 0 { "up" } else { "down" }
            ),
        }
    }
}

/// The position of a non-NaN value on the number line, in ulps from +0 (signed).
pub(crate) fn ordinal(f: Format, bits: u64) -> i64 {
    let mag = (bits & !(1u64 << (f.width() - 1))) as i64;
    if f.sign_bit(bits) {
        -mag
    } else {
        mag
    }
}

/// Classifies `got`, which `expected` rejects.
pub fn classify(kind: PartKind, expected: &Accept, got: u64) -> Mismatch {
    let PartKind::Float(f) = kind else {
        return Mismatch::Bits;
    };
    let want = expected.representative();
    match (expected, f.is_nan(got)) {
        (Accept::AnyNan(_), false) => return Mismatch::NumberExpectedNan,
        (_, true) if f.is_nan(want) => return Mismatch::WrongNan,
        (_, true) => return Mismatch::NanExpectedNumber,
        (_, false) if f.is_nan(want) => return Mismatch::NumberExpectedNan,
        _ => {}
    }
    if let Accept::Within { lo, hi, ftz, .. } = *expected {
        if ftz && f.is_subnormal(got) {
            return Mismatch::FtzNotApplied;
        }
        // A zero just past the interval's zero end (-0 below [+0, ..]) differs in sign only.
        if f.is_zero(got) && (f.is_zero(lo) || f.is_zero(hi)) {
            return Mismatch::SignOfZero;
        }
        let k = order_key(f, got);
        // Saturating: two f64 ordinals of opposite signs differ by more than an i64 holds.
        return Mismatch::BoundExceeded(if k > order_key(f, hi) {
            ordinal(f, got).saturating_sub(ordinal(f, hi))
        } else {
            ordinal(f, got).saturating_sub(ordinal(f, lo))
        });
    }
    if f.is_zero(got) && f.is_zero(want) {
        return Mismatch::SignOfZero;
    }
    if f.is_zero(got) && f.is_subnormal(want) {
        return Mismatch::FtzOverApplied;
    }
    if f.is_subnormal(got) && f.is_zero(want) {
        return Mismatch::FtzNotApplied;
    }
    Mismatch::Ulps(ordinal(f, got).saturating_sub(ordinal(f, want)))
}

#[cfg(test)]
mod tests {
    use super::Accept;
    use semfuzz_fp::Format;

    /// f64 results of opposite signs far apart are more ulps apart than an i64 counts: the
    /// count saturates (a `frem double` counterexample of LLVM's frem.ll overflowed it).
    #[test]
    fn ulps_between_distant_f64_of_opposite_signs_saturate() {
        let got = 0x7fef_ffff_ffff_ffff; // the largest f64
        let want = 0xffef_ffff_ffff_ffff; // its negation
        let m = super::classify(
            crate::ir::PartKind::Float(Format::F64),
            &Accept::Exact(want),
            got,
        );
        assert!(matches!(m, super::Mismatch::Ulps(i64::MAX)), "{m:?}");
    }

    // The low 16 bits of a 32-bit part: some member must have them, whatever its high bits.
    #[test]
    fn a_set_accepts_low_bits_when_some_member_has_them() {
        assert!(Accept::Exact(0xFFFF_FFFF).accepts_low(0xFFFF, 16));
        assert!(!Accept::Exact(0xFFFF_FFFF).accepts_low(0xFFFE, 16));
        // Every f32 NaN has its low 16 bits free but not its exponent: 0 is a NaN's low half
        // (0x7FC00000), and no low 24 bits with a zero mantissa and exponent bit 0 clear are.
        let nan = Accept::AnyNan(Format::F32);
        assert!(nan.accepts_low(0, 16));
        assert!(!nan.accepts_low(0, 23));
        assert!(nan.accepts_low(0x0080_0001, 24));
        assert!(!nan.accepts_low(0x0000_0001, 24));
        // A bounded f32 around 1.0 (0x3F800000 .. 0x3F800002): low halves 0, 1, 2 only.
        let near_one = Accept::Within {
            lo: 0x3F80_0000,
            hi: 0x3F80_0002,
            rep: 0x3F80_0001,
            format: Format::F32,
            ftz: false,
        };
        assert!(near_one.accepts_low(2, 16));
        assert!(!near_one.accepts_low(3, 16));
    }
}
