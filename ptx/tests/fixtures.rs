//! llc's output read and evaluated: every function of every committed fixture module reads
//! into a program, and functions with an independent model agree with it.

use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert};
use semfuzz_ptx::syntax::parse;
use semfuzz_ptx::{read_function, PtxFunction};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::path::Path;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

const TARGETS: [&str; 10] = [
    "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120",
];

fn module_text(sm: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/llvm22-{sm}.ptx"));
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    (path.display().to_string(), text)
}

fn function(sm: &str, name: &str) -> PtxFunction {
    let (path, text) = module_text(sm);
    let m = parse(&SourceFile::new(path, text)).expect("parses");
    read_function(spec(), &m, Some(name)).unwrap_or_else(|d| panic!("{sm} {name}: {d}"))
}

#[test]
fn every_fixture_function_reads() {
    let mut failures = Vec::new();
    let mut read = 0;
    for sm in TARGETS {
        let (path, text) = module_text(sm);
        let m = parse(&SourceFile::new(path, text)).expect("parses");
        for f in &m.functions {
            match read_function(spec(), &m, Some(&f.name)) {
                Ok(p) => {
                    read += 1;
                    // It evaluates, too.
                    let mut ev = Evaluator::new(&p.program);
                    let mut out = vec![Accept::default(); ev.n_parts()];
                    ev.eval(&vec![0; ev.n_inputs()], &mut out);
                }
                Err(d) => failures.push(format!("{sm} {}: {}", f.name, d.message)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{read} read, {} not:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Boundary-heavy 16-bit patterns and a deterministic spread of the rest.
fn halves() -> Vec<u16> {
    let mut v: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80,
        0xff80, 0x7f81, 0x7fc0, 0xffc1, 0x4000, 0x3f81, 0x3fff, 0x4b80, 0x0100,
    ];
    let mut x: u32 = 0x1234_5678;
    for _ in 0..300 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(x as u16);
    }
    v
}

fn eval2(f: &PtxFunction, a: u64, b: u64) -> Accept {
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&[a, b], &mut out);
    out[0]
}

/// LLVM writes `fadd bfloat` for targets without a bf16 add as an f32 add and a
/// round-to-nearest-even by integer arithmetic; on sm_90 as `add.rn.bf16`. Both must be the
/// bf16 sum rounded once (LLVM APFloat's), and a NaN where it is a NaN.
#[test]
fn bf16_sum_is_rounded_once_on_every_target() {
    for sm in TARGETS {
        let f = function(sm, "fadd_bf16");
        for &a in &halves() {
            for &b in halves().iter().step_by(7) {
                let got = eval2(&f, u64::from(a), u64::from(b));
                let x = BFloat::from_bits(u128::from(a));
                let y = BFloat::from_bits(u128::from(b));
                let want = (x + y).value;
                if want.is_nan() {
                    assert!(
                        !matches!(got, Accept::Exact(v) if !BFloat::from_bits(u128::from(v)).is_nan()),
                        "{sm}: {a:#06x}+{b:#06x} must be a NaN, got {got:?}"
                    );
                } else {
                    assert_eq!(
                        got,
                        Accept::Exact(want.to_bits() as u64),
                        "{sm}: {a:#06x}+{b:#06x}"
                    );
                }
            }
        }
    }
}

/// `fmul half` on sm_50 (no f16 arithmetic): widen to f32, multiply, narrow with `cvt.rn`.
/// f16 × f16 is exact in f32, so that is the product rounded once.
#[test]
fn f16_product_through_f32_is_rounded_once() {
    for sm in ["sm_50", "sm_60", "sm_90"] {
        let f = function(sm, "fmul_f16");
        for &a in &halves() {
            for &b in halves().iter().step_by(11) {
                let got = eval2(&f, u64::from(a), u64::from(b));
                let x = Half::from_bits(u128::from(a));
                let y = Half::from_bits(u128::from(b));
                let want = (x * y).value;
                if want.is_nan() {
                    assert!(
                        !matches!(got, Accept::Exact(v) if !Half::from_bits(u128::from(v)).is_nan()),
                        "{sm}"
                    );
                } else {
                    assert_eq!(
                        got,
                        Accept::Exact(want.to_bits() as u64),
                        "{sm}: {a:#06x}*{b:#06x}"
                    );
                }
            }
        }
    }
}

/// `fpext bfloat to float` is exact: the bits shifted up (a NaN stays a NaN).
#[test]
fn bf16_to_f32_is_exact() {
    for sm in ["sm_70", "sm_90"] {
        let f = function(sm, "fpext_bf16_f32");
        for &a in &halves() {
            let mut ev = Evaluator::new(&f.program);
            let mut out = vec![Accept::default(); 1];
            ev.eval(&[u64::from(a)], &mut out);
            let x = BFloat::from_bits(u128::from(a));
            let want: Single = x.convert(&mut false).value;
            if want.is_nan() {
                assert!(
                    !matches!(out[0], Accept::Exact(v) if !Single::from_bits(u128::from(v)).is_nan())
                );
            } else {
                assert_eq!(
                    out[0],
                    Accept::Exact(want.to_bits() as u64),
                    "{sm}: {a:#06x}"
                );
            }
        }
    }
}
