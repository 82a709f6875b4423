//! The approximate instructions (ptx-9.7.3-approx.sem): every corner-case table exactly, and
//! the bounded outcomes against an MPFR reference and an independent host-libm approximation.
#![allow(clippy::nonminimal_bool, clippy::manual_strip)]

mod common;

use common::{eval, spec, F32_INF, F32_NEG_ZERO, F32_ONE};
use rug::Float;
use semfuzz_fp::Format;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{classify, Accept, Mismatch};
use semfuzz_spec::samples::Samples;
use std::time::Instant;

const F32: Format = Format::F32;
const NEG_INF: u64 = 0xff80_0000;
const QNAN: u64 = 0x7fc0_0000;
const SUB: u64 = 0x0000_0001; // +min subnormal
const NEG_SUB: u64 = 0x8000_0001;
const NEG_ONE: u64 = 0xbf80_0000;

fn is_any_nan(a: &Accept) -> bool {
    matches!(a, Accept::AnyNan(_))
}

/// Checks a table: (input, Some(exact result) or None for "NaN").
fn table(instr: &str, rows: &[(u64, Option<u64>)]) {
    for &(x, want) in rows {
        let r = eval(instr, &[x]);
        match want {
            Some(b) => assert_eq!(r, vec![Accept::Exact(b)], "{instr} {x:#x}"),
            None => assert!(is_any_nan(&r[0]), "{instr} {x:#x}: NaN expected, got {r:?}"),
        }
    }
}

#[test]
fn rcp_approx_table() {
    // 9.7.3.13: | -Inf | -0.0 | -0.0 | -Inf | +0.0 | +Inf | +Inf | +0.0 | NaN | NaN |
    for i in ["rcp.approx.f32", "rcp.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, Some(F32_NEG_ZERO)),
                (F32_NEG_ZERO, Some(NEG_INF)),
                (0, Some(F32_INF)),
                (F32_INF, Some(0)),
                (QNAN, None),
                (0xff80_0001, None),
            ],
        );
    }
    // .ftz: a subnormal input is flushed first, so it meets the ±0 rows.
    table(
        "rcp.approx.ftz.f32",
        &[(SUB, Some(F32_INF)), (NEG_SUB, Some(NEG_INF))],
    );
    // Without .ftz it is an ordinary input: 1/min_subnormal overflows, RN is +Inf.
    assert!(matches!(
        eval("rcp.approx.f32", &[SUB])[0],
        Accept::Within { hi: F32_INF, .. }
    ));
}

#[test]
fn sqrt_approx_table() {
    // 9.7.3.15: | -Inf | NaN | -normal | NaN | -0.0 | -0.0 | +0.0 | +0.0 | +Inf | +Inf | NaN | NaN |
    for i in ["sqrt.approx.f32", "sqrt.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, None),
                (NEG_ONE, None),
                (0xff7f_ffff, None),
                (F32_NEG_ZERO, Some(F32_NEG_ZERO)),
                (0, Some(0)),
                (F32_INF, Some(F32_INF)),
                (QNAN, None),
            ],
        );
    }
    table("sqrt.approx.f32", &[(NEG_SUB, None)]); // chosen reading: negative subnormal is NaN
    table(
        "sqrt.approx.ftz.f32",
        &[(NEG_SUB, Some(F32_NEG_ZERO)), (SUB, Some(0))],
    );
}

#[test]
fn rsqrt_approx_table() {
    // 9.7.3.16: | -Inf | NaN | -normal | NaN | -0.0 | -Inf | +0.0 | +Inf | +Inf | +0.0 | NaN | NaN |
    for i in ["rsqrt.approx.f32", "rsqrt.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, None),
                (NEG_ONE, None),
                (F32_NEG_ZERO, Some(NEG_INF)),
                (0, Some(F32_INF)),
                (F32_INF, Some(0)),
                (QNAN, None),
            ],
        );
    }
    table(
        "rsqrt.approx.ftz.f32",
        &[(NEG_SUB, Some(NEG_INF)), (SUB, Some(F32_INF))],
    );
    let d = |x: f64| x.to_bits();
    let i = "rsqrt.approx.f64";
    table(
        i,
        &[
            (d(f64::NEG_INFINITY), None),
            (d(-1.0), None),
            (d(-0.0), Some(d(f64::NEG_INFINITY))),
            (d(0.0), Some(d(f64::INFINITY))),
            (d(f64::INFINITY), Some(0)),
            // 9.7.3: f64 NaN payloads are kept (rsqrt_approx_f64_keeps_nan_payloads).
            (d(f64::NAN), Some(d(f64::NAN))),
        ],
    );
    // No bound is stated for .f64 (chosen reading): any value for positive finite inputs.
    assert!(matches!(eval(i, &[d(2.0)])[0], Accept::Any(_)));
    assert!(eval(i, &[d(2.0)])[0].accepts(d(-123.0)));
}

#[test]
fn lg2_approx_table() {
    // 9.7.3.20: | -Inf | NaN | -normal | NaN | -0.0 | -Inf | +0.0 | -Inf | +Inf | +Inf | NaN | NaN |
    for i in ["lg2.approx.f32", "lg2.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, None),
                (NEG_ONE, None),
                (F32_NEG_ZERO, Some(NEG_INF)),
                (0, Some(NEG_INF)),
                (F32_INF, Some(F32_INF)),
                (QNAN, None),
            ],
        );
    }
    table(
        "lg2.approx.ftz.f32",
        &[(SUB, Some(NEG_INF)), (NEG_SUB, Some(NEG_INF))],
    );
    table("lg2.approx.f32", &[(NEG_SUB, None)]);
}

#[test]
fn ex2_approx_table() {
    // 9.7.3.21: | -Inf | +0.0 | -0.0 | +1.0 | +0.0 | +1.0 | +Inf | +Inf | NaN | NaN |
    for i in ["ex2.approx.f32", "ex2.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, Some(0)),
                (F32_NEG_ZERO, Some(F32_ONE)),
                (0, Some(F32_ONE)),
                (F32_INF, Some(F32_INF)),
                (QNAN, None),
            ],
        );
    }
    table("ex2.approx.ftz.f32", &[(NEG_SUB, Some(F32_ONE))]);
}

/// The exact value of the function at `x`, 200 bits.
fn reference(func: &str, x: f32) -> Float {
    let mut v = Float::with_val(200, x);
    match func {
        "rcp" => v.recip_mut(),
        "sqrt" => v.sqrt_mut(),
        "rsqrt" => v.recip_sqrt_mut(),
        "lg2" => v.log2_mut(),
        "ex2" => v.exp2_mut(),
        _ => unreachable!(),
    }
    v
}

/// An independent quick approximation, as a backend might compute it: host f64 libm,
/// rounded to f32 (and flushed under .ftz). Not the reference.
fn host(func: &str, x: f32, ftz: bool) -> u64 {
    let x = f64::from(x);
    let y = match func {
        "rcp" => 1.0 / x,
        "sqrt" => x.sqrt(),
        "rsqrt" => 1.0 / x.sqrt(),
        "lg2" => x.log2(),
        "ex2" => x.exp2(),
        _ => unreachable!(),
    } as f32;
    if ftz && y.is_subnormal() {
        u64::from((0.0f32).copysign(y).to_bits())
    } else {
        u64::from(y.to_bits())
    }
}

/// The next encoding above (numerically) a non-NaN f32.
fn next_up(b: u64) -> u64 {
    if b == F32_NEG_ZERO {
        0
    } else if b & 0x8000_0000 != 0 {
        b - 1
    } else {
        b + 1
    }
}

fn next_down(b: u64) -> u64 {
    if b == 0 {
        F32_NEG_ZERO
    } else if b & 0x8000_0000 != 0 {
        b + 1
    } else {
        b - 1
    }
}

/// Whether `v` is within the bound of the exact `fx` (an independent restatement in MPFR).
fn within_bound(bound: &str, fx: &Float, v: u64) -> bool {
    let y = f32::from_bits(v as u32);
    if !y.is_finite() {
        return false;
    }
    let err = Float::with_val(200, Float::with_val(200, y) - fx).abs();
    let (k, rel) = match bound {
        "rel-23" => (-23.0, true),
        "rel-22.9" => (-22.9, true),
        "rel-22" => (-22.0, true),
        "abs-22" => (-22.0, false),
        _ => unreachable!(),
    };
    let mut b = Float::with_val(200, k);
    b.exp2_mut();
    if rel {
        b *= fx.clone().abs();
    }
    err <= b
}

/// Inputs at the edges of stated ranges and of the formats.
fn edges(func: &str) -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        SUB,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        F32_ONE,
        0x3f7f_ffff,
        0x3f80_0001,
    ];
    if func == "lg2" {
        // The range (0.5, 2) of the absolute bound, and its neighbours.
        v.extend([
            0x3eff_ffff,
            0x3f00_0000,
            0x3f00_0001,
            0x3fff_ffff,
            0x4000_0000,
            0x4000_0001,
        ]);
    }
    if func == "ex2" {
        // Overflow at 128, the subnormal range below -126, underflow below -149.
        v.extend([
            0x42ff_ffff,
            0x4300_0000,
            0xc2fc_0000,
            0xc2fc_0001,
            0xc315_0000,
            0xc316_0000,
            0xc2fe_0000,
        ]);
    }
    let neg: Vec<u64> = v.iter().map(|b| b | 0x8000_0000).collect();
    v.extend(neg);
    v
}

/// Runs `n` sampled inputs plus the edges through `instr` and checks every bounded outcome.
fn bounds(instr: &str, func: &str, bound: &str, n: usize) {
    let t0 = Instant::now();
    let ftz = instr.contains(".ftz");
    let v = spec().lookup(instr, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0xA9920);
    let mut out = [Accept::default()];
    let mut input = [0u64];
    let edges = edges(func);
    let mut bounded = 0;
    for i in 0..n + edges.len() {
        if i < edges.len() {
            input[0] = edges[i];
        } else {
            samples.fill(&mut input);
            if matches!(func, "sqrt" | "rsqrt" | "lg2") {
                // Negative inputs are NaN (the tables above): sample the bounded half.
                input[0] &= 0x7fff_ffff;
            }
        }
        ev.eval(&input, &mut out);
        let acc = out[0];
        let Accept::Within { lo, hi, rep, .. } = acc else {
            continue;
        };
        bounded += 1;
        let x = f32::from_bits(input[0] as u32);
        let bound = match bound {
            "mixed" if x > 0.5 && x < 2.0 => "abs-22",
            "mixed" => "rel-22",
            b => b,
        };
        assert!(
            acc.accepts(rep),
            "{instr} {x:e}: RN reference rejected: {acc:?}"
        );
        let h = host(func, x, ftz);
        assert!(
            acc.accepts(h),
            "{instr} {x:e}: host libm value {h:#x} rejected: {acc:?}"
        );
        let (up, down) = (next_up(hi), next_down(lo));
        for o in [up, down] {
            if !F32.is_nan(o) && !(acc.accepts(o)) {
                assert!(matches!(
                    classify(semfuzz_spec::ir::PartKind::Float(F32), &acc, o),
                    Mismatch::BoundExceeded(_) | Mismatch::SignOfZero | Mismatch::FtzNotApplied
                ));
            }
        }
        if bound.starts_with("ulps") {
            // At most N encodings from RN; N+1 is outside (unless clamped at ±Inf or at a
            // flushed subnormal).
            let nu: i64 = bound[4..].parse().unwrap();
            let ord = |b: u64| {
                if b & 0x8000_0000 != 0 {
                    -((b & 0x7fff_ffff) as i64)
                } else {
                    b as i64
                }
            };
            if !F32.is_inf(hi) && !F32.is_nan(up) && !(ftz && F32.is_subnormal(up)) {
                assert!(
                    !acc.accepts(up),
                    "{instr} {x:e}: {up:#x} past the bound accepted"
                );
                if !(ftz && (F32.is_zero(rep) || F32.is_zero(hi))) {
                    // (Under .ftz a flushed RN result moves the end to the zero.)
                    assert_eq!(ord(hi) - ord(rep), nu, "{instr} {x:e}");
                }
            }
            if !F32.is_inf(lo) && !F32.is_nan(down) && !(ftz && F32.is_subnormal(down)) {
                assert!(
                    !acc.accepts(down),
                    "{instr} {x:e}: {down:#x} past the bound accepted"
                );
            }
        } else if i % 16 == 0 || i < edges.len() {
            // Both ends are inside the bound and the next encodings beyond are not: checked
            // against MPFR directly (a restatement independent of the evaluator's rounding).
            let fx = reference(func, x);
            let ok = |b: u64| (ftz && F32.is_zero(b)) || within_bound(bound, &fx, b);
            assert!(
                ok(lo) && ok(hi),
                "{instr} {x:e}: an end of [{lo:#x}, {hi:#x}] is out of bound"
            );
            if !F32.is_nan(up) && !F32.is_inf(up) {
                assert!(
                    !within_bound(bound, &fx, up),
                    "{instr} {x:e}: {up:#x} is within the bound but rejected"
                );
                assert!(!acc.accepts(up));
            }
            if !F32.is_nan(down) && !F32.is_inf(down) && !(ftz && F32.is_subnormal(lo)) {
                assert!(
                    !within_bound(bound, &fx, down),
                    "{instr} {x:e}: {down:#x} is within the bound but rejected"
                );
                assert!(!acc.accepts(down));
            }
        }
    }
    assert!(bounded > n / 4, "{instr}: only {bounded} bounded outcomes");
    println!(
        "{instr}: {} inputs, {bounded} bounded, {:?}",
        n + edges.len(),
        t0.elapsed()
    );
}

const N: usize = 1_000_000;
const N_FTZ: usize = 200_000;

#[test]
fn rcp_approx_bound() {
    bounds("rcp.approx.f32", "rcp", "ulps1", N);
    bounds("rcp.approx.ftz.f32", "rcp", "ulps1", N_FTZ);
}

#[test]
fn sqrt_approx_bound() {
    bounds("sqrt.approx.f32", "sqrt", "rel-23", N);
    bounds("sqrt.approx.ftz.f32", "sqrt", "rel-23", N_FTZ);
}

#[test]
fn rsqrt_approx_bound() {
    bounds("rsqrt.approx.f32", "rsqrt", "rel-22.9", N);
    bounds("rsqrt.approx.ftz.f32", "rsqrt", "rel-22.9", N_FTZ);
}

#[test]
fn lg2_approx_bound() {
    // The absolute bound in (0.5, 2) and the relative bound elsewhere: inputs of both ranges.
    bounds("lg2.approx.f32", "lg2", "mixed", N);
    bounds("lg2.approx.ftz.f32", "lg2", "mixed", N_FTZ);
}

#[test]
fn ex2_approx_bound() {
    bounds("ex2.approx.f32", "ex2", "ulps2", N);
    bounds("ex2.approx.ftz.f32", "ex2", "ulps2", N_FTZ);
}

/// A bounded outcome rejects a far value with the bound-exceeded classification.
#[test]
fn bound_exceeded_is_classified() {
    let a = eval("ex2.approx.f32", &[F32_ONE])[0]; // 2^1 = 2.0, ±2 ulps
    assert!(a.accepts(0x4000_0000) && a.accepts(0x4000_0002) && a.accepts(0x3fff_fffe));
    assert!(!a.accepts(0x4000_0003));
    assert_eq!(
        classify(semfuzz_spec::ir::PartKind::Float(F32), &a, 0x4000_0005),
        Mismatch::BoundExceeded(3)
    );
}

// ---------------------------------------------------------------------------------------------
// Helpers generic in the format (the half-precision forms, the 1.11.20 upper word).

const F16: Format = Format::F16;
const BF16: Format = Format::BF16;
const PART_F32: semfuzz_spec::ir::PartKind = semfuzz_spec::ir::PartKind::Float(F32);

/// Signed position on the number line in encodings from zero (±0 are both 0).
fn ord_of(f: Format, b: u64) -> i64 {
    let mag = (b & !(1u64 << (f.width() - 1))) as i64;
    if f.sign_bit(b) {
        -mag
    } else {
        mag
    }
}

/// The encoding at ordinal `o`: +0 for 0.
fn from_ord(f: Format, o: i64) -> u64 {
    if o < 0 {
        f.neg(o.unsigned_abs())
    } else {
        o as u64
    }
}

/// The next encoding above a non-NaN value (+Inf stays).
fn up_of(f: Format, b: u64) -> u64 {
    if b == f.inf(false) {
        b
    } else if b == f.zero(true) {
        f.zero(false)
    } else {
        from_ord(f, ord_of(f, b) + 1)
    }
}

/// The next encoding below a non-NaN value (-Inf stays; below +0 is -0).
fn down_of(f: Format, b: u64) -> u64 {
    if b == f.inf(true) {
        b
    } else if b == f.zero(false) {
        f.zero(true)
    } else {
        from_ord(f, ord_of(f, b) - 1)
    }
}

/// The exact value of an encoding (±Inf included).
fn value_of(f: Format, b: u64) -> Float {
    Float::with_val(200, f.to_f64(b))
}

/// The error the manual states, restated independently of the evaluator.
#[derive(Clone, Copy, Debug)]
enum Err2 {
    /// `|y - f(x)| <= 2^k`
    Abs(f64),
    /// `|y - f(x)| <= 2^k |f(x)|`
    Rel(f64),
}

/// The values a stated error admits around the exact `fx`: `[fx - e, fx + e]`, computed once
/// per input so that testing a candidate allocates nothing.
struct Ball {
    fx: Float,
    lo: Float,
    hi: Float,
}

impl Ball {
    fn new(fx: Float, e: Err2) -> Ball {
        let (k, rel) = match e {
            Err2::Abs(k) => (k, false),
            Err2::Rel(k) => (k, true),
        };
        let mut lim = Float::with_val(200, k);
        lim.exp2_mut();
        if rel {
            lim *= fx.clone().abs();
        }
        let lo = Float::with_val(200, &fx - &lim);
        let hi = Float::with_val(200, &fx + &lim);
        Ball { fx, lo, hi }
    }

    /// Whether `v` meets the bound, or is one of the two values of the format next to `fx` (a
    /// bound finer than the format cannot exclude those: docs/ambiguities.md).
    fn admits(&self, f: Format, v: u64) -> bool {
        if f.is_nan(v) {
            return false;
        }
        if self.fx.is_zero() {
            // MPFR's exponent range ends at 2^(-2^30): 2^x below it underflows to +0 (bf16
            // ex2 of x < -2^30). The exact value is positive and tiny; under the .ftz of
            // those variants only +0 is next to it.
            return v == f.zero(false);
        }
        let y = f.to_f64(v);
        if y.is_finite() && self.lo <= y && self.hi >= y {
            return true;
        }
        let (up, down) = (up_of(f, v), down_of(f, v));
        (self.fx >= y && self.fx < f.to_f64(up) && up != v)
            || (self.fx > f.to_f64(down) && self.fx <= y && down != v)
    }
}

/// Checks one bounded accept set against the restated bound: both ends are admitted and the
/// encodings just beyond them are not (so the evaluator's interval is exactly the admitted
/// one). Under `ftz` a zero end stands for flushed subnormals and is not checked, nor are
/// subnormals beyond an end. Panics with `what`.
fn check_interval(f: Format, ball: &Ball, acc: &Accept, ftz: bool, what: &str) {
    let Accept::Within { lo, hi, rep, .. } = *acc else {
        panic!("{what}: a bounded outcome expected, got {acc:?}");
    };
    assert!(acc.accepts(rep), "{what}: RN reference {rep:#x} rejected");
    let exempt = |b: u64| ftz && f.is_zero(b);
    for end in [lo, hi] {
        assert!(
            exempt(end) || ball.admits(f, end),
            "{what}: the end {end:#x} of [{lo:#x}, {hi:#x}] is out of [{}, {}]",
            ball.lo,
            ball.hi
        );
    }
    for (beyond, end) in [(up_of(f, hi), hi), (down_of(f, lo), lo)] {
        if beyond == end || (ftz && f.is_subnormal(beyond)) {
            continue;
        }
        assert!(
            !acc.accepts(beyond),
            "{what}: {beyond:#x} beyond the end accepted"
        );
        assert!(
            !ball.admits(f, beyond),
            "{what}: {beyond:#x} is within the bound but rejected"
        );
    }
}

/// The exact value of a one-argument function at an encoding of `f`, 200 bits.
fn reference_of(func: &str, f: Format, x: u64) -> Float {
    let mut v = value_of(f, x);
    match func {
        "sin" => v.sin_mut(),
        "cos" => v.cos_mut(),
        "tanh" => v.tanh_mut(),
        "ex2" => v.exp2_mut(),
        _ => unreachable!(),
    }
    v
}

// ---------------------------------------------------------------------------------------------
// 9.7.3.8 div.approx, div.full

const F32_MAX: u64 = 0x7f7f_ffff;
const TWO_126: u64 = 0x7e80_0000;
const TWO_M126: u64 = 0x0080_0000;

/// 9.7.3.8: "For 2^126 < |b| < 2^128, if a is infinity, div.approx.f32 returns NaN, otherwise
/// it returns a sign-preserving zero." The other special operands follow "computed as
/// d = a * (1/b)" (chosen reading, docs/ambiguities.md).
#[test]
fn div_approx_rules() {
    for i in ["div.approx.f32", "div.approx.ftz.f32"] {
        let at = |a: u64, b: u64| eval(i, &[a, b])[0];
        for b in [TWO_126 + 1, 0x7f00_0000, F32_MAX] {
            for sb in [0, 0x8000_0000] {
                let b = b | sb;
                // a infinite: NaN.
                assert!(is_any_nan(&at(F32_INF, b)), "{i} inf/{b:#x}");
                assert!(is_any_nan(&at(NEG_INF, b)), "{i} -inf/{b:#x}");
                // Otherwise a zero with the sign of the quotient (chosen reading: a * (1/b)).
                for a in [F32_ONE, NEG_ONE, 0, F32_NEG_ZERO, F32_MAX, 0x0000_0001] {
                    let want = (a ^ b) & 0x8000_0000;
                    assert_eq!(at(a, b), Accept::Exact(want), "{i} {a:#x}/{b:#x}");
                }
                assert!(is_any_nan(&at(QNAN, b)));
            }
        }
        // |b| = 2^126 is in the bounded range: ±2 ulp of the quotient.
        let acc = at(F32_ONE, TWO_126);
        assert!(acc.accepts(0x0080_0000) && acc.accepts(0x0080_0002));
        if i.contains("ftz") {
            // 2^-126 - 1 ulp would be subnormal: flushed to +0.
            assert!(acc.accepts(0) && !acc.accepts(0x007f_ffff));
        } else {
            assert!(acc.accepts(0x007f_fffe) && !acc.accepts(0x007f_fffd));
        }
        // b = ±0: a * ±Inf; b = ±Inf: a * ±0; NaN operands; 0/0 and Inf/Inf.
        assert_eq!(at(F32_ONE, F32_NEG_ZERO), Accept::Exact(NEG_INF));
        assert_eq!(at(NEG_ONE, F32_NEG_ZERO), Accept::Exact(F32_INF));
        assert_eq!(at(F32_ONE, F32_INF), Accept::Exact(0));
        assert_eq!(at(NEG_ONE, F32_INF), Accept::Exact(F32_NEG_ZERO));
        assert!(is_any_nan(&at(0, 0)));
        assert!(is_any_nan(&at(F32_INF, F32_INF)));
        assert!(is_any_nan(&at(F32_ONE, QNAN)));
        // a = ±Inf or ±0 with |b| in the bounded range: exactly ±Inf, ±0 (1/b finite).
        assert_eq!(at(F32_INF, NEG_ONE), Accept::Exact(NEG_INF));
        assert_eq!(at(F32_NEG_ZERO, NEG_ONE), Accept::Exact(0));
        assert_eq!(at(0, TWO_M126), Accept::Exact(0));
    }
    // A subnormal b without .ftz is outside both stated ranges: any value (chosen reading).
    let a = eval("div.approx.f32", &[F32_ONE, 0x007f_ffff])[0];
    assert_eq!(a, Accept::Any(F32));
    assert!(a.accepts(QNAN) && a.accepts(0x1234_5678));
    // Under .ftz it is flushed first: 1 / ±0.
    assert_eq!(
        eval("div.approx.ftz.f32", &[F32_ONE, 0x807f_ffff])[0],
        Accept::Exact(NEG_INF)
    );
    assert_eq!(
        eval("div.approx.ftz.f32", &[0x0000_0001, F32_ONE])[0],
        Accept::Exact(0)
    );
}

/// 9.7.3.8 div.full: no table; chosen reading: the IEEE quotient's special values.
#[test]
fn div_full_special_operands() {
    for i in ["div.full.f32", "div.full.ftz.f32"] {
        let at = |a: u64, b: u64| eval(i, &[a, b])[0];
        assert!(is_any_nan(&at(0, F32_NEG_ZERO)));
        assert!(is_any_nan(&at(F32_INF, NEG_INF)));
        assert!(is_any_nan(&at(QNAN, F32_ONE)) && is_any_nan(&at(F32_ONE, 0xff80_0001)));
        assert_eq!(at(NEG_ONE, 0), Accept::Exact(NEG_INF));
        assert_eq!(at(F32_INF, NEG_ONE), Accept::Exact(NEG_INF));
        assert_eq!(at(F32_NEG_ZERO, NEG_ONE), Accept::Exact(0));
        assert_eq!(at(F32_ONE, NEG_INF), Accept::Exact(F32_NEG_ZERO));
        // "full range": |b| above 2^126 is an ordinary bounded quotient, unlike div.approx.
        let acc = at(0x7f00_0000, 0x7f00_0000);
        assert!(acc.accepts(F32_ONE) && acc.accepts(0x3f80_0002) && !acc.accepts(0x3f80_0003));
    }
    // Subnormal operands: ordinary inputs without .ftz, zeros with it.
    assert!(matches!(
        eval("div.full.f32", &[F32_ONE, 0x0000_0001])[0],
        Accept::Within { rep: F32_INF, .. }
    ));
    assert_eq!(
        eval("div.full.ftz.f32", &[F32_ONE, 0x0000_0001])[0],
        Accept::Exact(F32_INF)
    );
}

/// The next f32 above/below by `k` encodings, as ordinals; None beyond ±Inf.
fn f32_at(o: i64) -> Option<u64> {
    (o.abs() <= 0x7f80_0000).then(|| from_ord(F32, o))
}

/// `div` against the host's IEEE division (the correctly rounded quotient, an independent
/// reference): exactly the encodings within 2 of it are accepted (flushed under .ftz).
fn div_bounds(instr: &str, n: usize) {
    let t0 = Instant::now();
    let ftz = instr.contains(".ftz");
    let approx = instr.contains(".approx");
    let v = spec().lookup(instr, Some(2)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0xD1F);
    let mut rng = semfuzz_fp::vectors::SplitMix64::new(0xD1F);
    let mut out = [Accept::default()];
    let edges_b = [
        TWO_M126,
        TWO_M126 + 1,
        0x007f_ffff,
        TWO_126,
        TWO_126 - 1,
        TWO_126 + 1,
        F32_MAX,
        F32_ONE,
        0x3f80_0001,
        0x3f7f_ffff,
    ];
    let edges_a = [
        F32_ONE,
        F32_MAX,
        0x0000_0001,
        0x0080_0000,
        0x4b80_0000,
        0x0040_0000,
    ];
    let mut edges = Vec::new();
    for &a in &edges_a {
        for &b in &edges_b {
            for s in [0, 0x8000_0000] {
                edges.push([a ^ s, b]);
                edges.push([a, b ^ s]);
            }
        }
    }
    let (mut bounded, mut wrong_rejected) = (0, 0);
    for i in 0..n + edges.len() {
        let input = if i < edges.len() {
            edges[i]
        } else if i % 2 == 0 {
            let mut x = [0; 2];
            samples.fill(&mut x);
            x
        } else {
            // Quotients of every magnitude: both operands random bits.
            [rng.next_u64() & 0xffff_ffff, rng.next_u64() & 0xffff_ffff]
        };
        ev.eval(&input, &mut out);
        let acc = out[0];
        let (a, b) = (
            f32::from_bits(input[0] as u32),
            f32::from_bits(input[1] as u32),
        );
        let (fa, fb) = if ftz {
            let fl = |x: f32| {
                if x.is_subnormal() {
                    0.0f32.copysign(x)
                } else {
                    x
                }
            };
            (fl(a), fl(b))
        } else {
            (a, b)
        };
        let in_range = !approx || (fb.abs() >= f32::MIN_POSITIVE && fb.abs() <= 2f32.powi(126));
        if !fa.is_finite() || !fb.is_finite() || fa == 0.0 || fb == 0.0 || !in_range {
            continue;
        }
        let Accept::Within { rep, .. } = acc else {
            panic!("{instr} {a:e}/{b:e}: bounded outcome expected, got {acc:?}");
        };
        bounded += 1;
        let q = fa / fb; // IEEE RN on the host (no FTZ): the correctly rounded quotient
        let rn = u64::from(q.to_bits());
        let flush = |x: u64| {
            if ftz && F32.is_subnormal(x) {
                F32.zero(F32.sign_bit(x))
            } else {
                x
            }
        };
        assert_eq!(rep, flush(rn), "{instr} {a:e}/{b:e}: reference");
        let o = ord_of(F32, rn);
        for k in -2..=2 {
            if let Some(x) = f32_at(o + k) {
                // Never past zero (ulp_bounds_do_not_cross_zero): the other sign is rejected.
                let x = if F32.is_zero(x) {
                    F32.zero(F32.sign_bit(rn))
                } else {
                    x
                };
                if F32.sign_bit(x) != F32.sign_bit(rn) {
                    assert!(
                        !acc.accepts(x),
                        "{instr} {a:e}/{b:e}: {x:#x} ({k:+} ulp) has the wrong sign"
                    );
                    continue;
                }
                assert!(
                    acc.accepts(flush(x)),
                    "{instr} {a:e}/{b:e}: {x:#x} ({k:+} ulp) rejected"
                );
                if ftz && F32.is_subnormal(x) {
                    assert!(
                        !acc.accepts(x),
                        "{instr}: unflushed subnormal {x:#x} accepted"
                    );
                }
            }
        }
        for k in [-3i64, 3] {
            if let Some(x) = f32_at(o + k) {
                if !(ftz && F32.is_subnormal(x)) && !F32.is_zero(x) {
                    assert!(
                        !acc.accepts(x),
                        "{instr} {a:e}/{b:e}: {x:#x} ({k:+} ulp) accepted"
                    );
                    assert!(matches!(
                        classify(PART_F32, &acc, x),
                        Mismatch::BoundExceeded(_)
                    ));
                    wrong_rejected += 1;
                }
            }
        }
    }
    assert!(bounded > n / 4, "{instr}: only {bounded} bounded outcomes");
    assert!(
        wrong_rejected > n / 4,
        "{instr}: few wrong candidates tried"
    );
    println!(
        "{instr}: {} inputs, {bounded} bounded, {:?}",
        n + edges.len(),
        t0.elapsed()
    );
}

#[test]
fn div_approx_bound() {
    div_bounds("div.approx.f32", N);
    div_bounds("div.approx.ftz.f32", N_FTZ);
}

#[test]
fn div_full_bound() {
    div_bounds("div.full.f32", N);
    div_bounds("div.full.ftz.f32", N_FTZ);
}

// ---------------------------------------------------------------------------------------------
// 9.7.3.14 rcp.approx.ftz.f64, 9.7.3.17 rsqrt.approx.ftz.f64

const CANONICAL_NAN_F64: u64 = 0x7fff_ffff_0000_0000;

/// Evaluates a gross approximation: (low word accept set, upper word accept set).
fn gross(instr: &str, a: u64) -> (Accept, Accept) {
    let r = eval(instr, &[a]);
    assert_eq!(r.len(), 2, "{instr}: two parts, d[31:0] and d[63:32]");
    (r[0], r[1])
}

/// Checks a gross-approximation table: (a[63:32], Some(d[63:32]) or None for any NaN).
fn gross_table(instr: &str, rows: &[(u64, Option<u32>)]) {
    for &(hi, want) in rows {
        // The low word of a is ignored ("ignore the least-significant 32 bits of a").
        for low in [0u64, 1, 0xffff_ffff, 0x8000_0000] {
            let a = (hi << 32) | low;
            let (lo_acc, hi_acc) = gross(instr, a);
            // "zero the least significant 32 mantissa bits of .f64 destination d"
            assert_eq!(lo_acc, Accept::Exact(0), "{instr} {a:#x}: low word");
            match want {
                Some(w) => assert_eq!(hi_acc, Accept::Exact(u64::from(w)), "{instr} {a:#x}"),
                None => assert!(
                    matches!(hi_acc, Accept::AnyNan(_)),
                    "{instr} {a:#x}: NaN expected, got {hi_acc:?}"
                ),
            }
        }
    }
}

#[test]
fn rcp_approx_ftz_f64_table() {
    // 9.7.3.14: | -Inf | -0.0 | -subnormal | -Inf | -0.0 | -Inf | +0.0 | +Inf | +subnormal |
    // +Inf | +Inf | +0.0 | NaN | NaN |, "Input NaNs map to a canonical NaN with encoding
    // 0x7fffffff00000000."
    let i = "rcp.approx.ftz.f64";
    gross_table(
        i,
        &[
            (0xfff0_0000, Some(0x8000_0000)),
            (0x800f_ffff, Some(0xfff0_0000)),
            (0x8000_0001, Some(0xfff0_0000)),
            (0x8000_0000, Some(0xfff0_0000)),
            (0x0000_0000, Some(0x7ff0_0000)),
            (0x0000_0001, Some(0x7ff0_0000)),
            (0x000f_ffff, Some(0x7ff0_0000)),
            (0x7ff0_0000, Some(0x0000_0000)),
            (0x7ff8_0000, Some(0x7fff_ffff)),
            (0x7ff0_0001, Some(0x7fff_ffff)),
            (0xfff8_1234, Some(0x7fff_ffff)),
            (0x7fff_ffff, Some(0x7fff_ffff)),
        ],
    );
    // The table classifies a[63:32]: an .f64 NaN whose payload is only in the low word has an
    // infinite upper word (chosen reading, docs/ambiguities.md).
    assert_eq!(gross(i, 0x7ff0_0000_0000_0001).1, Accept::Exact(0));
    // A subnormal .f64 whose upper word is zero is a zero input.
    assert_eq!(
        gross(i, 0x0000_0000_0000_0001).1,
        Accept::Exact(0x7ff0_0000)
    );
    // As one 64-bit result: the canonical NaN, and nothing else, for a NaN input.
    let v = spec().lookup(i, Some(1)).expect("variant");
    let d = &v.program.dests[0];
    assert_eq!(
        (d.part_name(0), d.part_name(1)),
        ("d[31:0]".into(), "d[63:32]".into())
    );
    let (lo, hi) = gross(i, 0x7ff8_0000_0000_0000);
    let ok = |r: u64| lo.accepts(r & 0xffff_ffff) && hi.accepts(r >> 32);
    assert!(ok(CANONICAL_NAN_F64));
    assert!(!ok(0x7ff8_0000_0000_0000) && !ok(0x7fff_ffff_0000_0001));
    // The result is flushed: 1/tmp below 2^-1022 (upper words above 2^1022) can only be the
    // zero of its sign.
    for (a, z) in [
        (0x7fe8_0000_0000_0000u64, 0u64),
        (0xffef_ffff_0000_0000, 0x8000_0000),
    ] {
        let acc = gross(i, a).1;
        assert!(acc.accepts(z), "{a:#x}: {acc:?}");
        for other in [z ^ 0x8000_0000, z | 1, z | 0x5_5555, z | 0x10_0000] {
            assert!(!acc.accepts(other), "{a:#x}: {other:#x} accepted");
        }
    }
}

#[test]
fn rsqrt_approx_ftz_f64_table() {
    // 9.7.3.17: | -Inf | NaN | -subnormal | -Inf | -0.0 | -Inf | +0.0 | +Inf | +subnormal |
    // +Inf | +Inf | +0.0 | NaN | NaN |
    let i = "rsqrt.approx.ftz.f64";
    gross_table(
        i,
        &[
            (0xfff0_0000, None),
            (0x800f_ffff, Some(0xfff0_0000)),
            (0x8000_0001, Some(0xfff0_0000)),
            (0x8000_0000, Some(0xfff0_0000)),
            (0x0000_0000, Some(0x7ff0_0000)),
            (0x0000_0001, Some(0x7ff0_0000)),
            (0x7ff0_0000, Some(0x0000_0000)),
            (0x7ff8_0000, Some(0x7fff_ffff)),
            (0xfff0_0001, Some(0x7fff_ffff)),
            // -normal is not in the table: NaN (chosen reading), any NaN in the upper word.
            (0xbff0_0000, None),
            (0xffef_ffff, None),
            (0x8010_0000, None),
        ],
    );
    // Chosen reading: a NaN made from a number is any NaN, with the low word zero.
    let (lo, hi) = gross(i, 0xbff0_0000_0000_0000);
    assert!(hi.accepts(0x7ff8_0000) && hi.accepts(0x7fff_ffff) && hi.accepts(0xfff0_0001));
    assert!(!hi.accepts(0x7ff0_0000) && !lo.accepts(1));
}

/// rcp/rsqrt.approx.ftz.f64 on 1 M inputs: the upper word is within GROSS_APPROX_ULPS (1)
/// encodings of 1.11.20 of the correctly rounded 1/tmp (1/sqrt(tmp)), computed here by
/// rounding MPFR's value to 21 bits; the low word of a never matters.
fn gross_bounds(instr: &str, n: usize) {
    let t0 = Instant::now();
    let hi_fmt = Format::ieee(11, 21);
    let rsqrt = instr.starts_with("rsqrt");
    let v = spec().lookup(instr, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0x6055);
    let mut out = [Accept::default(); 2];
    let mut edges: Vec<u64> = [
        0x0010_0000u64, // smallest normal upper word
        0x0010_0001,
        0x3ff0_0000,
        0x3fef_ffff,
        0x3ff0_0001,
        0x7fcf_ffff, // 1/tmp just above 2^-1022 (normal)
        0x7fd0_0000, // 1/tmp = 2^-1022 exactly
        0x7fd0_0001, // below: subnormal, flushed
        0x7fef_ffff,
    ]
    .iter()
    .map(|h| h << 32 | 0xdead_beef)
    .collect();
    if !rsqrt {
        let neg: Vec<u64> = edges.iter().map(|a| a | 1 << 63).collect();
        edges.extend(neg);
    }
    let mut bounded = 0;
    for i in 0..n + edges.len() {
        let a = if i < edges.len() {
            edges[i]
        } else {
            let mut x = [0];
            samples.fill(&mut x);
            if rsqrt {
                x[0] &= !(1 << 63); // negative inputs are NaN (table above)
            }
            x[0]
        };
        ev.eval(&[a], &mut out);
        assert_eq!(out[0], Accept::Exact(0), "{instr} {a:#x}: low word");
        let tw = a >> 32;
        if !hi_fmt.is_normal(tw) {
            continue;
        }
        // The other low words give the same outcome.
        let mut again = [Accept::default(); 2];
        ev.eval(&[tw << 32 | (a.rotate_left(7) & 0xffff_ffff)], &mut again);
        assert_eq!(
            again, out,
            "{instr} {a:#x}: the low word of a changed the result"
        );
        let acc = out[1];
        let Accept::Within { rep, .. } = acc else {
            panic!("{instr} {a:#x}: bounded upper word expected, got {acc:?}");
        };
        bounded += 1;
        let t = Float::with_val(200, f64::from_bits(tw << 32));
        let exact = if rsqrt { t.recip_sqrt() } else { t.recip() };
        if exact.clone().abs() < f64::MIN_POSITIVE {
            // A subnormal result: flushed to the zero of its sign.
            let z = if exact.is_sign_negative() {
                0x8000_0000
            } else {
                0
            };
            assert_eq!(rep, z, "{instr} {a:#x}: flushed result");
            assert!(acc.accepts(z) && !acc.accepts(z | 1) && !acc.accepts(z ^ 0x8000_0000));
            continue;
        }
        let rounded = Float::with_val(21, &exact).to_f64();
        let rn_bits = rounded.to_bits();
        assert_eq!(rn_bits & 0xffff_ffff, 0, "21 bits fit the upper word");
        let rn = rn_bits >> 32;
        assert_eq!(rep, rn, "{instr} {a:#x}: reference");
        let o = ord_of(hi_fmt, rn);
        for k in -1..=1 {
            let x = from_ord(hi_fmt, o + k);
            if hi_fmt.is_normal(x) {
                assert!(acc.accepts(x), "{instr} {a:#x}: {x:#x} ({k:+}) rejected");
            }
        }
        for k in [-2, 2] {
            let x = from_ord(hi_fmt, o + k);
            if hi_fmt.is_normal(x) {
                assert!(!acc.accepts(x), "{instr} {a:#x}: {x:#x} ({k:+}) accepted");
            }
        }
    }
    assert!(bounded > n / 4, "{instr}: only {bounded} bounded outcomes");
    println!(
        "{instr}: {} inputs, {bounded} bounded, {:?}",
        n + edges.len(),
        t0.elapsed()
    );
}

#[test]
fn rcp_approx_ftz_f64_bound() {
    gross_bounds("rcp.approx.ftz.f64", N);
}

#[test]
fn rsqrt_approx_ftz_f64_bound() {
    gross_bounds("rsqrt.approx.ftz.f64", N);
}

// ---------------------------------------------------------------------------------------------
// 9.7.3.18 sin, 9.7.3.19 cos

#[test]
fn sin_cos_approx_tables() {
    // 9.7.3.18: | -Inf | NaN | -0.0 | -0.0 | +0.0 | +0.0 | +Inf | NaN | NaN | NaN |
    for i in ["sin.approx.f32", "sin.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, None),
                (F32_NEG_ZERO, Some(F32_NEG_ZERO)),
                (0, Some(0)),
                (F32_INF, None),
                (QNAN, None),
            ],
        );
    }
    // 9.7.3.19: | -Inf | NaN | -0.0 | +1.0 | +0.0 | +1.0 | +Inf | NaN | NaN | NaN |
    for i in ["cos.approx.f32", "cos.approx.ftz.f32"] {
        table(
            i,
            &[
                (NEG_INF, None),
                (F32_NEG_ZERO, Some(F32_ONE)),
                (0, Some(F32_ONE)),
                (F32_INF, None),
                (QNAN, None),
            ],
        );
    }
    // .ftz flushes a subnormal input first.
    table("sin.approx.ftz.f32", &[(NEG_SUB, Some(F32_NEG_ZERO))]);
    table("cos.approx.ftz.f32", &[(SUB, Some(F32_ONE))]);
    // Outside [-100pi, 100pi] "only best effort is provided": any value, and it says so.
    for i in ["sin.approx.f32", "cos.approx.ftz.f32"] {
        for x in [0x439d_1463, 0xc39d_1463, F32_MAX, 0x4b00_0000] {
            let a = eval(i, &[x])[0];
            assert_eq!(a, Accept::Any(F32), "{i} {x:#x}");
            assert!(a.accepts(QNAN) && a.accepts(F32_INF));
            let shown = semfuzz_spec::outcome::describe_accept(PART_F32, &a);
            assert!(shown.contains("best effort"), "{shown}");
        }
        assert!(matches!(eval(i, &[0x439d_1462])[0], Accept::Within { .. }));
    }
}

/// sin/cos on 1 M inputs each: in [-2pi, 2pi] within 2^-20.5, in [-100pi, 100pi] within
/// 2^-14.7 (the ranges from MPFR's pi, independent of the spec's constants), any value
/// outside; the ends of every interval checked against MPFR.
fn sin_cos_bounds(instr: &str, func: &str, n: usize) {
    let t0 = Instant::now();
    let ftz = instr.contains(".ftz");
    let v = spec().lookup(instr, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0x51C05);
    let mut rng = semfuzz_fp::vectors::SplitMix64::new(0x51C05);
    let pi = Float::with_val(200, rug::float::Constant::Pi);
    let two_pi = Float::with_val(200, &pi * 2u32);
    let hundred_pi = Float::with_val(200, &pi * 100u32);
    let mut out = [Accept::default()];
    let mut edges: Vec<u64> = vec![
        0x40c9_0fda, // largest f32 <= 2pi
        0x40c9_0fdb, // smallest f32 > 2pi
        0x439d_1462, // largest f32 <= 100pi
        0x439d_1463,
        0x4049_0fdb, // pi: sin near zero
        0x3fc9_0fdb, // pi/2: cos near zero
        0x4396_cbe4, // 301.5929 ~ 96pi
        SUB,
        0x0080_0000,
        0x3380_0000,
    ];
    let neg: Vec<u64> = edges.iter().map(|b| b | 0x8000_0000).collect();
    edges.extend(neg);
    let (mut near, mut far, mut any, mut wrong_rejected) = (0, 0, 0, 0);
    let mut i = 0;
    // Until `n` inputs have met a bound (the edges first).
    while near + far < n || i < edges.len() {
        i += 1;
        let i = i - 1;
        // Uniform over [-2pi, 2pi] and [-100pi, 100pi], then the boundary-heavy mix.
        let mut uniform = |width: f64| {
            let u = rng.next_u64() as f64 / u64::MAX as f64 - 0.5;
            u64::from(((u * width) as f32).to_bits())
        };
        let x = if i < edges.len() {
            edges[i]
        } else {
            match i % 4 {
                0 => uniform(12.6),
                1 => uniform(630.0),
                _ => {
                    let mut x = [0];
                    samples.fill(&mut x);
                    x[0]
                }
            }
        };
        ev.eval(&[x], &mut out);
        let acc = out[0];
        let xf = f32::from_bits(x as u32);
        if !xf.is_finite() || xf == 0.0 || (ftz && xf.is_subnormal()) {
            continue;
        }
        let mag = Float::with_val(200, xf).abs();
        let bound = if mag <= two_pi {
            near += 1;
            Err2::Abs(-20.5)
        } else if mag <= hundred_pi {
            far += 1;
            Err2::Abs(-14.7)
        } else {
            any += 1;
            assert_eq!(
                acc,
                Accept::Any(F32),
                "{instr} {xf:e}: best effort expected"
            );
            continue;
        };
        let ball = Ball::new(reference_of(func, F32, x), bound);
        check_interval(F32, &ball, &acc, ftz, &format!("{instr} {xf:e}"));
        // A wrong implementation: the host's value pushed just past the bound.
        let host = if func == "sin" {
            f64::from(xf).sin()
        } else {
            f64::from(xf).cos()
        };
        let lim = match bound {
            Err2::Abs(k) | Err2::Rel(k) => 2f64.powf(k),
        };
        let wrong = u64::from(((host + 1.01 * lim) as f32).to_bits());
        if !ball.admits(F32, wrong) {
            assert!(
                !acc.accepts(wrong),
                "{instr} {xf:e}: wrong {wrong:#x} accepted"
            );
            wrong_rejected += 1;
        }
        let good = u64::from((host as f32).to_bits());
        assert!(
            acc.accepts(good) || (ftz && F32.is_subnormal(good)),
            "{instr} {xf:e}: host value rejected"
        );
    }
    assert!(
        near > n / 5 && far > n / 5 && any > 0,
        "{instr}: {near} {far} {any}"
    );
    assert!(
        wrong_rejected > n / 3,
        "{instr}: {wrong_rejected} wrong values tried"
    );
    println!(
        "{instr}: {i} inputs ({near} in 2pi, {far} in 100pi, {any} best effort), {:?}",
        t0.elapsed()
    );
}

#[test]
fn sin_approx_bound() {
    sin_cos_bounds("sin.approx.f32", "sin", N);
    sin_cos_bounds("sin.approx.ftz.f32", "sin", N_FTZ);
}

#[test]
fn cos_approx_bound() {
    sin_cos_bounds("cos.approx.f32", "cos", N);
    sin_cos_bounds("cos.approx.ftz.f32", "cos", N_FTZ);
}

// ---------------------------------------------------------------------------------------------
// 9.7.3.22 tanh.approx.f32, 9.7.4.9 tanh.approx.{f16,f16x2,bf16,bf16x2},
// 9.7.4.10 ex2.approx.{f16,f16x2}, ex2.approx.ftz.{bf16,bf16x2}

/// The encodings of ±1.0, ±0, ±Inf, a quiet NaN and ±min subnormal in `f`.
struct Specials {
    one: u64,
    neg_one: u64,
    zero: u64,
    neg_zero: u64,
    inf: u64,
    neg_inf: u64,
    nan: u64,
    sub: u64,
    neg_sub: u64,
}

fn specials(f: Format) -> Specials {
    Specials {
        one: f.one(false),
        neg_one: f.one(true),
        zero: f.zero(false),
        neg_zero: f.zero(true),
        inf: f.inf(false),
        neg_inf: f.inf(true),
        nan: f.default_nan(),
        sub: 1,
        neg_sub: f.neg(1),
    }
}

/// A table for a scalar or packed variant: every row in every lane (the other lane holding
/// `filler`), each lane's outcome the row's.
fn lane_table(instr: &str, f: Format, rows: &[(u64, Option<u64>)]) {
    let lanes = if instr.ends_with("x2") { 2 } else { 1 };
    let w = f.width();
    let filler = f.one(false);
    for &(x, want) in rows {
        for lane in 0..lanes {
            let input = if lanes == 1 {
                x
            } else if lane == 0 {
                x | filler << w
            } else {
                filler | x << w
            };
            let r = eval(instr, &[input]);
            assert_eq!(r.len(), lanes, "{instr}: one outcome per lane");
            match want {
                Some(b) => assert_eq!(r[lane], Accept::Exact(b), "{instr} lane {lane} {x:#x}"),
                None => assert!(is_any_nan(&r[lane]), "{instr} lane {lane} {x:#x}: {r:?}"),
            }
        }
    }
}

#[test]
fn tanh_approx_tables() {
    // 9.7.3.22 and 9.7.4.9: | -Inf | -1.0 | -0.0 | -0.0 | +0.0 | +0.0 | +Inf | 1.0 | NaN | NaN |
    for (instr, f) in [
        ("tanh.approx.f32", F32),
        ("tanh.approx.f16", F16),
        ("tanh.approx.f16x2", F16),
        ("tanh.approx.bf16", BF16),
        ("tanh.approx.bf16x2", BF16),
    ] {
        let s = specials(f);
        lane_table(
            instr,
            f,
            &[
                (s.neg_inf, Some(s.neg_one)),
                (s.neg_zero, Some(s.neg_zero)),
                (s.zero, Some(s.zero)),
                (s.inf, Some(s.one)),
                (s.nan, None),
                (s.nan | s.neg_zero | 1, None),
            ],
        );
    }
    // 9.7.3.22: "The subnormal inputs gets passed through to the output" (chosen reading:
    // exactly).
    for x in [SUB, NEG_SUB, 0x007f_ffff, 0x8040_0000] {
        assert_eq!(eval("tanh.approx.f32", &[x]), vec![Accept::Exact(x)]);
    }
    // 9.7.4.9 has no such sentence: a subnormal .f16 gets the absolute bound.
    let a = eval("tanh.approx.f16", &[1])[0];
    assert!(matches!(a, Accept::Within { .. }) && a.accepts(0) && a.accepts(1));
}

#[test]
fn ex2_approx_half_tables() {
    // 9.7.4.10, ex2.approx.f16: | -Inf | +0.0 | -0.0 | +1.0 | +0.0 | +1.0 | +Inf | +Inf | NaN |
    // NaN |; "For the .f16 type, subnormal inputs are supported."
    for instr in ["ex2.approx.f16", "ex2.approx.f16x2"] {
        let s = specials(F16);
        lane_table(
            instr,
            F16,
            &[
                (s.neg_inf, Some(s.zero)),
                (s.neg_zero, Some(s.one)),
                (s.zero, Some(s.one)),
                (s.inf, Some(s.inf)),
                (s.nan, None),
            ],
        );
        // A subnormal input is not flushed: 2^x for tiny x is bounded, 1.0 among the values.
        let a = eval(instr, &[s.sub | s.sub << 16])[0];
        assert!(matches!(a, Accept::Within { ftz: false, .. }) && a.accepts(s.one));
        // Nor is a subnormal result (chosen reading): 2^-20 is the .f16 subnormal 0x0010.
        let a = eval(instr, &[0xcd00 | 0xcd00 << 16])[0]; // -20.0
        assert!(a.accepts(0x0010) && !a.accepts(s.zero));
    }
    // ex2.approx.ftz.bf16: | -Inf | +0.0 | -subnormal | +1.0 | -0.0 | +1.0 | +0.0 | +1.0 |
    // +subnormal | +1.0 | +Inf | +Inf | NaN | NaN |
    for instr in ["ex2.approx.ftz.bf16", "ex2.approx.ftz.bf16x2"] {
        let s = specials(BF16);
        lane_table(
            instr,
            BF16,
            &[
                (s.neg_inf, Some(s.zero)),
                (s.neg_sub, Some(s.one)),
                (0x807f, Some(s.one)),
                (s.neg_zero, Some(s.one)),
                (s.zero, Some(s.one)),
                (s.sub, Some(s.one)),
                (0x007f, Some(s.one)),
                (s.inf, Some(s.inf)),
                (s.nan, None),
            ],
        );
        // "flushes subnormal ... results": 2^-130 is a bf16 subnormal, flushed to +0.
        let a = eval(instr, &[0xc302])[0]; // -130.0
        assert!(a.accepts(s.zero) && !a.accepts(0x0008) && !a.accepts(s.neg_zero));
    }
}

/// "target/PTX version requirements as written": 9.7.3.8, .14, .17, .18, .19, .22 and
/// 9.7.4.9/10.
#[test]
fn approximation_requirements() {
    for (instr, ptx, sm) in [
        ("div.approx.f32", (1, 4), None),
        ("div.full.ftz.f32", (1, 4), None),
        ("rcp.approx.ftz.f64", (2, 1), Some(20)),
        ("rsqrt.approx.ftz.f64", (4, 0), Some(20)),
        ("sin.approx.f32", (1, 4), None),
        ("cos.approx.ftz.f32", (1, 4), None),
        ("tanh.approx.f32", (7, 0), Some(75)),
        ("tanh.approx.f16", (7, 0), Some(75)),
        ("tanh.approx.f16x2", (7, 0), Some(75)),
        ("tanh.approx.bf16", (7, 8), Some(90)),
        ("tanh.approx.bf16x2", (7, 8), Some(90)),
        ("ex2.approx.f16", (7, 0), Some(75)),
        ("ex2.approx.f16x2", (7, 0), Some(75)),
        ("ex2.approx.ftz.bf16", (7, 8), Some(90)),
        ("ex2.approx.ftz.bf16x2", (7, 8), Some(90)),
    ] {
        let v = spec().lookup(instr, None).expect(instr);
        assert_eq!(v.requirement.ptx, Some(ptx), "{instr}");
        assert_eq!(v.requirement.sm, sm, "{instr}");
    }
    // Forms the manual does not have: no .ftz on the f16 and half tanh forms, bf16 ex2
    // only with it, sin/cos without .approx.
    for bad in [
        "ex2.approx.ftz.f16",
        "ex2.approx.bf16",
        "tanh.approx.ftz.f16",
        "div.full.f64",
        "rcp.approx.f64",
    ] {
        assert!(spec().lookup(bad, None).is_err(), "{bad} should be unknown");
    }
    let e = spec()
        .lookup("sin.f32", None)
        .expect_err("legacy")
        .to_string();
    assert!(e.contains("sin.approx.ftz.f32"), "{e}");
}

/// tanh.approx.f32 on 1 M inputs: within 2^-11 relative of MPFR's tanh ("over the entire
/// floating point range"), subnormals passed through.
#[test]
fn tanh_approx_f32_bound() {
    let t0 = Instant::now();
    let instr = "tanh.approx.f32";
    let v = spec().lookup(instr, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0x7A4);
    let mut rng = semfuzz_fp::vectors::SplitMix64::new(0x7A4);
    let mut out = [Accept::default()];
    let mut edges: Vec<u64> = vec![0x0080_0000, 0x3980_0000, F32_ONE, 0x4110_0000, F32_MAX];
    let neg: Vec<u64> = edges.iter().map(|b| b | 0x8000_0000).collect();
    edges.extend(neg);
    let (mut bounded, mut wrong_rejected) = (0, 0);
    for i in 0..N + edges.len() {
        let x = if i < edges.len() {
            edges[i]
        } else if i % 2 == 0 {
            // |x| < 16, where tanh is not yet 1 in f32.
            let u = rng.next_u64() as f64 / u64::MAX as f64 - 0.5;
            u64::from(((u * 32.0) as f32).to_bits())
        } else {
            let mut x = [0];
            samples.fill(&mut x);
            x[0]
        };
        ev.eval(&[x], &mut out);
        let xf = f32::from_bits(x as u32);
        if !xf.is_normal() {
            continue;
        }
        bounded += 1;
        let ball = Ball::new(reference_of("tanh", F32, x), Err2::Rel(-11.0));
        check_interval(F32, &ball, &out[0], false, instr);
        let host = f64::from(xf).tanh();
        assert!(
            out[0].accepts(u64::from((host as f32).to_bits())),
            "{instr} {xf:e}: host"
        );
        // A wrong implementation: 2^-10 relative off.
        let wrong = u64::from(((host * (1.0 + 2f64.powi(-10))) as f32).to_bits());
        if !ball.admits(F32, wrong) {
            assert!(
                !out[0].accepts(wrong),
                "{instr} {xf:e}: {wrong:#x} accepted"
            );
            wrong_rejected += 1;
        }
    }
    assert!(
        bounded > N / 2 && wrong_rejected > N / 2,
        "{bounded} {wrong_rejected}"
    );
    println!(
        "{instr}: {} inputs, {bounded} bounded, {:?}",
        N + edges.len(),
        t0.elapsed()
    );
}

/// Every 16-bit input of a scalar half-precision approximation against MPFR, and the x2 form
/// lane by lane against it (every input in each lane, the other lane another input).
fn exhaustive_16(instr: &str, f: Format, func: &str, e: Err2) {
    let t0 = Instant::now();
    let ftz = instr.contains(".ftz");
    let v = spec().lookup(instr, Some(1)).expect("variant");
    let mut ev = Evaluator::new(&v.program);
    let mut out = [Accept::default()];
    let mut scalar = Vec::with_capacity(1 << 16);
    let (mut bounded, mut wrong_rejected) = (0, 0);
    for x in 0..1u64 << 16 {
        ev.eval(&[x], &mut out);
        scalar.push(out[0]);
        let Accept::Within { rep, .. } = out[0] else {
            continue;
        };
        bounded += 1;
        let ball = Ball::new(reference_of(func, f, x), e);
        check_interval(f, &ball, &out[0], ftz, &format!("{instr} {x:#06x}"));
        // A wrong implementation: the reference 3 encodings off, where that is outside.
        let wrong = from_ord(f, ord_of(f, rep) + 3);
        if !f.is_nan(wrong) && !ball.admits(f, wrong) && !(ftz && f.is_subnormal(wrong)) {
            assert!(
                !out[0].accepts(wrong),
                "{instr} {x:#06x}: {wrong:#x} accepted"
            );
            wrong_rejected += 1;
        }
    }
    assert!(bounded > 1 << 13, "{instr}: only {bounded} bounded");
    assert!(
        wrong_rejected > 100,
        "{instr}: only {wrong_rejected} wrong values tried"
    );
    let packed = format!("{instr}x2");
    let pv = spec().lookup(&packed, Some(1)).expect("packed variant");
    let mut pev = Evaluator::new(&pv.program);
    let mut pout = [Accept::default(); 2];
    for x in 0..1u64 << 16 {
        let y = (x.reverse_bits() >> 48) ^ 0x5a5a;
        pev.eval(&[x | y << 16], &mut pout);
        assert_eq!(
            pout,
            [scalar[x as usize], scalar[y as usize]],
            "{packed} {x:#x} {y:#x}"
        );
    }
    println!(
        "{instr}: all 65536 inputs ({bounded} bounded), {packed}: 65536 pairs, {:?}",
        t0.elapsed()
    );
}

#[test]
fn tanh_approx_f16_exhaustive() {
    // 9.7.4.9: "The maximum absolute error for .f16 type is 2-10.987."
    exhaustive_16("tanh.approx.f16", F16, "tanh", Err2::Abs(-10.987));
}

#[test]
fn tanh_approx_bf16_exhaustive() {
    // 9.7.4.9: "The maximum absolute error for .bf16 type is 2-8."
    exhaustive_16("tanh.approx.bf16", BF16, "tanh", Err2::Abs(-8.0));
}

#[test]
fn ex2_approx_f16_exhaustive() {
    // 9.7.4.10: "The maximum relative error for .f16 type is 2-9.9."
    exhaustive_16("ex2.approx.f16", F16, "ex2", Err2::Rel(-9.9));
}

#[test]
fn ex2_approx_ftz_bf16_exhaustive() {
    // 9.7.4.10: "The maximum relative error for .bf16 type is 2-7."
    exhaustive_16("ex2.approx.ftz.bf16", BF16, "ex2", Err2::Rel(-7.0));
}

/// A relative bound finer than the format (subnormal and overflowing .f16 results of ex2)
/// still admits the two neighbours of the exact value, and only them (chosen reading,
/// docs/ambiguities.md).
#[test]
fn bound_finer_than_the_format_admits_the_neighbours() {
    // 2^-24.5 lies between 0 and the smallest subnormal 2^-24; 2^-9.9 relative holds neither.
    let a = eval("ex2.approx.f16", &[0xce20])[0]; // -24.5
    assert!(a.accepts(0x0000) && a.accepts(0x0001));
    assert!(!a.accepts(0x0002) && !a.accepts(0x8000));
    // 2^16 overflows .f16: the largest finite value and +Inf, and within 2^-9.9 below.
    let a = eval("ex2.approx.f16", &[0x4c00])[0]; // 16.0
    assert!(a.accepts(0x7bff) && a.accepts(0x7c00) && a.accepts(0x7bfe));
    assert!(!a.accepts(0x7bfd));
}

/// docs/ambiguities.md item 20: an ulp bound counts encodings from the correctly rounded value
/// but never past zero, so the approximation of a positive value is never negative (9.7.3.21
/// ex2: 2^a > 0, and the table's "-Inf → +0.0" keeps the sign) and a negative quotient never
/// positive. +0 stays acceptable where the correctly rounded result is tiny.
#[test]
fn ulp_bounds_do_not_cross_zero() {
    let accepts = |instr: &str, inputs: &[u64], bits: u64| eval(instr, inputs)[0].accepts(bits);
    // 2^-150 rounds to +0: +0 and the first two positive subnormals are within 2 ulps.
    let tiny = 0xc316_0000; // -150.0
    for (bits, ok) in [
        (0x0000_0000, true),
        (0x0000_0002, true),
        (0x0000_0003, false),
        (0x8000_0000, false),
        (0x8000_0001, false),
        (0x8000_0002, false),
    ] {
        assert_eq!(
            accepts("ex2.approx.f32", &[tiny], bits),
            ok,
            "ex2(-150) {bits:#x}"
        );
    }
    assert!(!accepts("ex2.approx.ftz.f32", &[tiny], F32_NEG_ZERO));
    assert!(accepts("ex2.approx.ftz.f32", &[tiny], 0));
    // 2^-149 / 2 = 2^-150 (ties to +0); -2^-149 / 2 the same with the other sign.
    for instr in ["div.full.f32", "div.approx.f32"] {
        assert!(accepts(instr, &[SUB, 0x4000_0000], 0x0000_0002), "{instr}");
        assert!(!accepts(instr, &[SUB, 0x4000_0000], 0x8000_0001), "{instr}");
        assert!(
            accepts(instr, &[NEG_SUB, 0x4000_0000], F32_NEG_ZERO),
            "{instr}"
        );
        assert!(!accepts(instr, &[NEG_SUB, 0x4000_0000], 0), "{instr}");
        assert!(!accepts(instr, &[NEG_SUB, 0x4000_0000], SUB), "{instr}");
    }
}

/// 9.7.3: "NaN payloads are supported for double-precision instructions (except for
/// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64, which maps input NaNs to a canonical NaN)":
/// rsqrt.approx.f64 returns its input NaN, quieted; the .ftz form the canonical NaN.
#[test]
fn rsqrt_approx_f64_keeps_nan_payloads() {
    for (x, want) in [
        (0x7ff8_0000_0000_1234u64, 0x7ff8_0000_0000_1234u64),
        (0x7ff0_0000_0000_1234, 0x7ff8_0000_0000_1234), // signalling: quieted
        (0xfff8_0000_0000_0001, 0xfff8_0000_0000_0001),
    ] {
        assert_eq!(
            eval("rsqrt.approx.f64", &[x]),
            vec![Accept::Exact(want)],
            "{x:#x}"
        );
        // The gross form classifies the upper word (item 28): 0x7ff00000 is an infinity there.
        if x >> 32 & 0x000f_ffff != 0 {
            assert_eq!(
                eval("rsqrt.approx.ftz.f64", &[x])[1],
                Accept::Exact(0x7fff_ffff),
                "{x:#x}: the canonical NaN's upper word"
            );
        }
    }
    // A NaN the instruction makes (rsqrt of a negative number) has no payload to keep.
    assert!(is_any_nan(
        &eval("rsqrt.approx.f64", &[0xbff0_0000_0000_0000])[0]
    ));
}
