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
            (d(f64::NAN), None),
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
