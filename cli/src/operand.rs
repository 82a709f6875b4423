//! Operand values as `eval` and `check` take them: hex bit patterns everywhere, and for an
//! operand of a scalar floating-point format (`f32`, `f16`, …) a decimal, `inf`, `-inf` or
//! `nan` that is exact in that format. Packed operands (`f32x2`, `f16x2`), predicates, bit
//! types and SASS register values stay hex: a decimal would not say which lane it is.

use semfuzz_fp::{convert, Format, Round};
use semfuzz_spec::catalog::{FormatInfo, OperandSig};
use semfuzz_spec::outcome::describe;
use semfuzz_spec::{Diagnostic, Spec};
use std::cmp::Ordering;

/// How a malformed value should be written, for hints.
const HEX_HINT: &str = "write a hex bit pattern like 0x3f800000";

/// A source operand as written in `eval`/`check`: a hex bit pattern, a decimal exact in a
/// scalar float operand's format, or `!0x1` for an operand the form writes `{!}c` (9.7.7.1
/// `set`), which `sem` then reads negated. `what` names the operand in errors.
pub fn parse_operand(
    spec: &Spec,
    src: &OperandSig,
    text: &str,
    what: &str,
) -> Result<u64, Diagnostic> {
    let (negated, value) = match text.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let float = match spec.format(&src.ty) {
        Some(FormatInfo::Scalar(f)) => Some(f),
        _ => None,
    };
    let bits = match float {
        Some(f) if !is_hex(value) => decimal_bits(f, &src.ty, value).map_err(|e| {
            let d = Diagnostic::plain(format!("{what}: {}", e.message));
            match e.hint {
                Some(h) => d.with_hint(h),
                None => d,
            }
        })?,
        _ => parse_hex(value, src.width, what)?,
    };
    src.read(negated, bits)
        .map_err(|e| Diagnostic::plain(format!("{what}: {e}")))
}

fn is_hex(text: &str) -> bool {
    text.starts_with("0x") || text.starts_with("0X")
}

/// Parses a hex bit pattern (`0x3f80_0000`) that must fit in `width` bits.
pub fn parse_hex(text: &str, width: u32, what: &str) -> Result<u64, Diagnostic> {
    let not_hex = || {
        Diagnostic::plain(format!("{what}: `{text}` is not a hex bit pattern")).with_hint(HEX_HINT)
    };
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .ok_or_else(not_hex)?;
    let v = u64::from_str_radix(&digits.replace('_', ""), 16).map_err(|_| not_hex())?;
    if width < 64 && v >> width != 0 {
        return Err(
            Diagnostic::plain(format!("{what}: `{text}` does not fit in {width} bits")).with_hint(
                format!(
                    "a {width}-bit value has at most {} hex digits",
                    width.div_ceil(4)
                ),
            ),
        );
    }
    Ok(v)
}

/// The hex values of what a SASS instruction reads (in order of first appearance; errors
/// name the register or constant a value is for), and its variant's inputs made from them.
pub fn sass_inputs<S: AsRef<str>>(
    sass: &semfuzz_spec::sass::SassInstr,
    texts: &[S],
) -> Result<(Vec<u64>, Vec<u64>), Diagnostic> {
    let mut values = Vec::new();
    for (k, text) in texts.iter().enumerate() {
        let what = sass
            .values
            .get(k)
            .map_or_else(|| format!("value {}", k + 1), |n| n.clone());
        values.push(parse_hex(text.as_ref(), 64, &what)?);
    }
    let inputs = sass.inputs(&values).map_err(Diagnostic::plain)?;
    Ok((values, inputs))
}

/// Why a decimal operand was refused.
#[derive(Debug, PartialEq)]
pub struct DecimalError {
    /// What is wrong.
    pub message: String,
    /// What to write instead.
    pub hint: Option<String>,
}

/// A decimal as digits and a power of ten: `0.d1d2d3… × 10^exp`, `digits` without leading or
/// trailing zeros (empty for zero).
#[derive(Debug, PartialEq)]
struct Decimal {
    negative: bool,
    digits: String,
    exp: i64,
}

impl Decimal {
    /// Reads `[+-]digits[.digits][e[+-]digits]` (or `.digits`); `None` if it is not one.
    fn parse(text: &str) -> Option<Decimal> {
        let (negative, rest) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() && frac.is_empty() || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let exp10: i64 = match exp {
            None => 0,
            Some(e) => {
                let body = e.strip_prefix(['+', '-']).unwrap_or(e);
                if body.is_empty() || !all_digits(body) {
                    return None;
                }
                // Beyond any format: saturate rather than overflow.
                let magnitude = body.parse::<i64>().unwrap_or(i64::MAX / 4).min(1 << 40);
                if e.starts_with('-') {
                    -magnitude
                } else {
                    magnitude
                }
            }
        };
        let all = format!("{int}{frac}");
        let leading = all.len() - all.trim_start_matches('0').len();
        let digits = all.trim_matches('0').to_string();
        let exp = if digits.is_empty() {
            0
        } else {
            int.len() as i64 - leading as i64 + exp10
        };
        Some(Decimal {
            negative,
            digits,
            exp,
        })
    }

    /// The exact value of a finite double.
    fn of_f64(v: f64) -> Decimal {
        // `{:.Ne}` prints exact digits (padding with zeros); 767 covers every f64.
        let s = format!("{:.767e}", v.abs());
        Decimal::parse(&s).unwrap_or(Decimal {
            negative: false,
            digits: String::new(),
            exp: 0,
        })
    }

    /// Compares magnitudes.
    fn cmp_abs(&self, other: &Decimal) -> Ordering {
        match (self.digits.is_empty(), other.digits.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            // Without leading zeros, a larger exponent is a larger number; then the digits
            // compare as strings (no trailing zeros, so a longer prefix-equal one is larger).
            (false, false) => self
                .exp
                .cmp(&other.exp)
                .then_with(|| self.digits.cmp(&other.digits)),
        }
    }
}

/// Whether every value of `f` is a double (so the exact tests below can go through `f64`).
fn within_f64(f: Format) -> bool {
    f.precision() <= Format::F64.precision() && f.exp_bits() <= Format::F64.exp_bits()
}

/// The bits of a decimal operand in format `f`, named `name` in errors (`1.5`, `-0`, `6.1e-5`,
/// `inf`, `-inf`, `nan`: the quiet NaN with payload 0), when it is exact there; otherwise an
/// error naming the two nearest values of `f` with their bits.
pub fn decimal_bits(f: Format, name: &str, text: &str) -> Result<u64, DecimalError> {
    let (negative, word) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    match word.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => return Ok(f.inf(negative)),
        "nan" => {
            let nan = f.default_nan();
            return Ok(if negative { f.neg(nan) } else { nan });
        }
        _ => {}
    }
    let malformed = || DecimalError {
        message: format!("`{text}` is neither a hex bit pattern nor a decimal"),
        hint: Some(format!(
            "{HEX_HINT}, or a decimal exact in {name}: 1.5, -0, 6.103515625e-5, inf, -inf, nan"
        )),
    };
    let x = Decimal::parse(text).ok_or_else(malformed)?;
    if !within_f64(f) {
        return Err(DecimalError {
            message: format!(
                "`{text}`: decimals are read only in formats within f64, and {name} is wider"
            ),
            hint: Some(HEX_HINT.into()),
        });
    }
    // The correctly rounded double, then where the exact value lies around it.
    let v = text.parse::<f64>().map_err(|_| malformed())?.abs();
    let (below, above) = match (v.is_finite(), x.cmp_abs(&Decimal::of_f64(v))) {
        (true, Ordering::Equal) => {
            let bits = convert(Format::F64, f, v.to_bits(), Round::NearestEven);
            if convert(f, Format::F64, bits, Round::NearestEven) == v.to_bits() {
                return Ok(if negative { f.neg(bits) } else { bits });
            }
            (v, v)
        }
        (true, Ordering::Less) => (v.next_down(), v),
        (true, Ordering::Greater) => (v, v.next_up()),
        // Beyond the largest double.
        (false, _) => (f64::MAX, f64::INFINITY),
    };
    let lo = convert(Format::F64, f, below.to_bits(), Round::Down);
    let hi = convert(Format::F64, f, above.to_bits(), Round::Up);
    let (lo, hi) = if negative {
        (f.neg(hi), f.neg(lo))
    } else {
        (lo, hi)
    };
    let kind = semfuzz_spec::ir::PartKind::Float(f);
    Err(DecimalError {
        message: format!(
            "`{text}` is not exact in {name}: it lies between {} and {}",
            describe(kind, lo),
            describe(kind, hi)
        ),
        hint: Some("write the value you mean in hex, e.g. one of these two".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
    use rustc_apfloat::{Float, Round as ApRound, Status};
    use semfuzz_fp::vectors::SplitMix64;

    /// The independent answer (LLVM's APFloat): the bits when exact, else the two neighbours.
    fn apfloat<F: Float>(text: &str) -> Result<u64, (u64, u64)> {
        let near = F::from_str_r(text, ApRound::NearestTiesToEven).expect("APFloat parses it");
        if near.status & Status::INEXACT == Status::OK {
            return Ok(near.value.to_bits() as u64);
        }
        let down = F::from_str_r(text, ApRound::TowardNegative).expect("parses");
        let up = F::from_str_r(text, ApRound::TowardPositive).expect("parses");
        Err((down.value.to_bits() as u64, up.value.to_bits() as u64))
    }

    fn ours(f: Format, text: &str) -> Result<u64, (u64, u64)> {
        decimal_bits(f, "f", text).map_err(|e| {
            // The neighbours are the two hex numbers of the message.
            let hex: Vec<u64> = e
                .message
                .split(['(', ' ', ')'])
                .filter_map(|w| w.strip_prefix("0x"))
                .filter_map(|h| u64::from_str_radix(h, 16).ok())
                .collect();
            assert_eq!(hex.len(), 2, "{}", e.message);
            (hex[0], hex[1])
        })
    }

    fn agree(f: Format, text: &str) {
        let theirs = match f.width() {
            16 if f == Format::F16 => apfloat::<Half>(text),
            16 => apfloat::<BFloat>(text),
            32 => apfloat::<Single>(text),
            _ => apfloat::<Double>(text),
        };
        assert_eq!(ours(f, text), theirs, "{text} in {f:?}");
    }

    #[test]
    fn the_issue_examples() {
        assert_eq!(decimal_bits(Format::F32, "f32", "1.5"), Ok(0x3fc0_0000));
        assert_eq!(decimal_bits(Format::F32, "f32", "0.5"), Ok(0x3f00_0000));
        assert_eq!(decimal_bits(Format::F32, "f32", "-0"), Ok(0x8000_0000));
        assert_eq!(decimal_bits(Format::F64, "f64", "0"), Ok(0));
        assert_eq!(decimal_bits(Format::F16, "f16", "-inf"), Ok(0xfc00));
        assert_eq!(decimal_bits(Format::F32, "f32", "nan"), Ok(0x7fc0_0000));
        assert_eq!(decimal_bits(Format::BF16, "bf16", "-NaN"), Ok(0xffc0));
        assert_eq!(ours(Format::F32, "0.1"), Err((0x3dcc_cccc, 0x3dcc_cccd)));
        assert_eq!(ours(Format::F32, "-0.1"), Err((0xbdcc_cccd, 0xbdcc_cccc)));
        // 6.1e-5 is near the f16 normal boundary 2^-14 = 6.103515625e-5, exact only written so.
        assert!(decimal_bits(Format::F16, "f16", "6.1e-5").is_err());
        assert_eq!(
            decimal_bits(Format::F16, "f16", "6.103515625e-5"),
            Ok(0x0400)
        );
        let e = decimal_bits(Format::F32, "f32", "0.1").expect_err("inexact");
        assert_eq!(
            e.message,
            "`0.1` is not exact in f32: it lies between 0x3dcccccc (0.09999999403953552) and 0x3dcccccd (0.10000000149011612)"
        );
        let e = decimal_bits(Format::F32, "f32", "1.0.0").expect_err("malformed");
        assert!(e
            .message
            .contains("neither a hex bit pattern nor a decimal"));
        for bad in ["", "-", ".", "e5", "1e", "1e+", "0x", "1_0", "++1", "1.5f"] {
            assert!(decimal_bits(Format::F32, "f32", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn agrees_with_apfloat_on_edges() {
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            for text in [
                "1",
                "0.1",
                "-0.1",
                "65504",
                "65505",
                "65520",
                "1e5",
                "3.4028235e38",
                "3.4028234663852886e38",
                "3.5e38",
                "1e39",
                "-1e39",
                "1e308",
                "1.8e308",
                "1e400",
                "-1e400",
                "1e-400",
                "-1e-400",
                "5e-324",
                "4.9406564584124654e-324",
                "1e-45",
                "1.401298464324817e-45",
                "5.960464477539063e-8",
                "5.9604644775390625e-8",
                "2.98e-8",
                "0.000000000000000000000000000000000000000000001",
                "123456789",
                "16777217",
                "9007199254740993",
                "0.30000000000000004",
                "1e-5",
                ".5",
                "5.",
                "+2.5",
                "00012.5000",
                "6.103515625e-5",
                "6.1e-5",
                "1e+2",
                "2E-3",
            ] {
                agree(f, text);
            }
        }
    }

    #[test]
    fn every_value_reads_back_from_its_exact_decimal_and_near_ones_are_refused() {
        let mut rng = SplitMix64::new(12);
        for f in [Format::F16, Format::BF16, Format::F32, Format::F64] {
            for _ in 0..2000 {
                let bits = rng.next_u64() & f.mask();
                if !f.is_finite(bits) {
                    continue;
                }
                let v = f.to_f64(bits);
                // Exact: every digit of the value.
                let exact = format!("{:.800e}", v);
                assert_eq!(decimal_bits(f, "f", &exact), Ok(bits), "{exact}");
                // Shortest round-trip digits, a digit more or less: APFloat decides.
                for text in [format!("{v:e}"), format!("{v:.3e}"), format!("{v:.17e}")] {
                    agree(f, &text);
                }
            }
        }
    }
}
