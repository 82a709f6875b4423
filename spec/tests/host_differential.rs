//! The specs of 9.7.3's rounded f32/f64 arithmetic against the host CPU (x86-64 SSE/FMA under
//! MXCSR rounding, with FTZ+DAZ for `.ftz`), an implementation independent of semfuzz-fp.
//! NaN results are checked against the spec's NaN rule, which accepts x86's quiet NaNs.
//!
//! `.ftz` included: x86 FTZ flushes a result that is tiny after rounding with an unbounded
//! exponent, which is how the spec reads PTX's "flushes subnormal results" since an H200 showed
//! it does the same (docs/ambiguities.md 7), so no difference is expected, also where the
//! result rounds to ±2^emin (until then, the test counted those as a known difference).

mod common;
use common::spec;
use semfuzz_fp::Round;
use semfuzz_host::{self as host, Mode, Op2};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{describe_accept, Accept};
use semfuzz_spec::samples::Samples;

fn host_result(op: &str, is_f64: bool, m: Mode, x: &[u64]) -> Option<u64> {
    let op2 = |o| {
        if is_f64 {
            host::f64_op2(o, x[0], x[1], m)
        } else {
            host::f32_op2(o, x[0] as u32, x[1] as u32, m).map(u64::from)
        }
    };
    match op {
        "add" => op2(Op2::Add),
        "sub" => op2(Op2::Sub),
        "mul" => op2(Op2::Mul),
        "div" => op2(Op2::Div),
        "fma" if is_f64 => host::f64_fma(x[0], x[1], x[2], m),
        "fma" => host::f32_fma(x[0] as u32, x[1] as u32, x[2] as u32, m).map(u64::from),
        "sqrt" if is_f64 => host::f64_sqrt(x[0], m),
        "sqrt" => host::f32_sqrt(x[0] as u32, m).map(u64::from),
        _ => None,
    }
}

/// Returns how many cases ran.
fn run(op: &str, rnd: &str, round: Round, ftz: bool, ty: &str, cases: usize) -> usize {
    let text = format!("{op}.{rnd}{}.{ty}", if ftz { ".ftz" } else { "" });
    let v = spec()
        .variants
        .iter()
        .find(|v| v.text == text)
        .unwrap_or_else(|| panic!("no variant {text}"));
    let mode = Mode {
        round,
        ftz,
        daz: ftz,
    };
    let mut ev = Evaluator::new(&v.program);
    let mut samples = Samples::new(spec(), v, 0x5eed ^ cases as u64);
    let (mut inputs, mut out) = (vec![0; v.sources.len()], [Accept::default()]);
    let mut failures = Vec::new();
    for _ in 0..cases {
        samples.fill(&mut inputs);
        ev.eval(&inputs, &mut out);
        let got = host_result(op, ty == "f64", mode, &inputs).expect("host op");
        if out[0].accepts(got) {
            continue;
        }
        if failures.len() < 5 {
            let kind = v.program.dests[0].parts[0].kind;
            failures.push(format!(
                "{text} {inputs:x?}: host 0x{got:x}, spec {}",
                describe_accept(kind, &out[0])
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cases
}

#[test]
fn rounded_arithmetic_matches_the_host_cpu() {
    if !host::available() {
        eprintln!("skipped: the host CPU lacks SSE2/FMA/F16C");
        return;
    }
    let modes = [
        ("rn", Round::NearestEven),
        ("rz", Round::TowardZero),
        ("rm", Round::Down),
        ("rp", Round::Up),
    ];
    let mut total = 0;
    let mut add = |n: usize| total += n;
    for op in ["add", "sub", "mul", "div", "fma", "sqrt"] {
        for ty in ["f32", "f64"] {
            for (rnd, round) in modes {
                add(run(op, rnd, round, false, ty, 1_000_000));
                if ty == "f32" {
                    add(run(op, rnd, round, true, ty, 250_000));
                }
            }
        }
    }
    println!("{total} cases: all agree with the host CPU");
}

/// LLVM's preserve-sign mode (`"denormal-fp-math"="preserve-sign,preserve-sign"`) describes
/// a flush-to-zero environment: what x86 computes with FTZ and DAZ set (inputs read as zero,
/// tiny results flushed) and with DAZ alone (results kept) must both be allowed by the IR's
/// spec (docs/ambiguities.md 182). The listed inputs are exact results just below 2^-126
/// that round up to it, which the FTZ bit flushes: a spec that lets only subnormal rounded
/// results be flushed (reading (c)) fails on each.
#[test]
fn the_ir_preserve_sign_mode_allows_what_the_host_ftz_computes() {
    if !host::available() {
        eprintln!("skipped: the host CPU lacks SSE2/FMA/F16C");
        return;
    }
    let boundary: [(&str, &[u64]); 5] = [
        ("mul", &[0x00ff_ffff, 0x3f00_0000]),
        ("mul", &[0x3f7f_fffe, 0x0080_0001]),
        ("div", &[0x00ff_ffff, 0x4000_0000]),
        ("div", &[0x3fff_ffff, 0xff00_0000]),
        ("fma", &[0x00ff_ffff, 0x3f00_0000, 0x8000_0000]),
    ];
    let mut failures = Vec::new();
    let mut checked = 0;
    for (op, ir) in [
        ("add", "ir_fadd"),
        ("sub", "ir_fsub"),
        ("mul", "ir_fmul"),
        ("div", "ir_fdiv"),
        ("fma", "llvm_fma"),
    ] {
        let text = format!("{ir}.out_ps.in_ps.f32");
        let v = spec()
            .variants
            .iter()
            .find(|v| v.text == text)
            .unwrap_or_else(|| panic!("no variant {text}"));
        let mut ev = Evaluator::new(&v.program);
        let mut samples = Samples::new(spec(), v, 0xf72);
        let (mut inputs, mut out) = (vec![0; v.sources.len()], [Accept::default()]);
        let listed = boundary
            .iter()
            .filter(|(o, _)| *o == op)
            .map(|(_, x)| x.to_vec());
        let sampled = std::iter::repeat_with(|| {
            samples.fill(&mut inputs);
            inputs.clone()
        });
        for x in listed.chain(sampled.take(200_000)) {
            ev.eval(&x, &mut out);
            for ftz in [true, false] {
                let mode = Mode {
                    round: Round::NearestEven,
                    ftz,
                    daz: true,
                };
                let got = host_result(op, false, mode, &x).expect("host op");
                checked += 1;
                if !out[0].accepts(got) && failures.len() < 5 {
                    let kind = v.program.dests[0].parts[0].kind;
                    failures.push(format!(
                        "{text} {x:x?}: the host (FTZ {ftz}, DAZ) gives 0x{got:x}, the spec allows {}",
                        describe_accept(kind, &out[0])
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("{checked} host results: all allowed by the IR's preserve-sign mode");
}
