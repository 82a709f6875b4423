//! Each discrepancy class is caught and named: a mutant backend (the evaluator with one
//! deliberate bug) yields findings of exactly the classes its bug explains, and the correct
//! backends (the evaluator, Z3's models) yield none. Every finding re-checks as a mismatch.

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_fp::{Format, Round};
use semfuzz_fuzz::campaign::{self, Config, Counters, Report};
use semfuzz_fuzz::finding::Finding;
use semfuzz_fuzz::GeneratorKind;
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{Spec, Variant};
use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

const F32: Format = Format::ieee(8, 24);

/// What a mutant returns for one case: the inputs, the spec's accept set of the first part,
/// and the evaluator's representative result.
type Bug = fn(&[u64], &Accept, u64) -> u64;

/// The evaluator with one deliberate bug.
struct Mutant {
    identity: Identity,
    bug: Bug,
}

impl Backend for Mutant {
    fn identity(&self) -> &Identity {
        &self.identity
    }
    fn supports(&self, _: &Variant) -> Support {
        Support::Yes
    }
    fn run(
        &mut self,
        v: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        let mut ev = Evaluator::new(&v.program);
        let mut accepts = vec![Accept::default(); ev.n_parts()];
        let n = v.sources.len();
        for (i, o) in out.iter_mut().enumerate() {
            let row = &inputs[i * n..(i + 1) * n];
            let rep = semfuzz_fuzz::spec_backend::representative(&mut ev, &mut accepts, row, v);
            *o = Verdict::Bits((self.bug)(row, &accepts[0], rep));
        }
        Ok(())
    }
}

fn campaign_with(
    open: &campaign::Opener<'_>,
    instr: &str,
    generator: GeneratorKind,
    cases: u64,
    threads: usize,
) -> Report {
    // The first form of the text (min.NaN.f32 has a two- and a three-input form).
    let v = spec().variants_named(instr)[0];
    let config = Config {
        generator,
        cases: Some(cases),
        time: None,
        seed: 7,
        threads,
        resume: 0,
        evaluator: semfuzz_jit::EvaluatorKind::Jit,
    };
    campaign::run(
        spec(),
        &[v],
        open,
        None,
        &config,
        &Counters::default(),
        &AtomicBool::new(false),
    )
    .expect("campaign runs")
}

fn mutant(instr: &str, bug: Bug) -> Report {
    let open = move || -> Result<Box<dyn Backend>, BackendError> {
        Ok(Box::new(Mutant {
            identity: Identity {
                name: "mutant".into(),
                version: "1".into(),
                device: "test".into(),
            },
            bug,
        }))
    };
    campaign_with(&open, instr, GeneratorKind::Boundary, 20_000, 2)
}

fn classes(r: &Report) -> BTreeSet<String> {
    r.findings.iter().map(|f| f.class.clone()).collect()
}

/// The finding's example, re-run through the evaluator as `semfuzz check` does, is rejected.
fn assert_rechecks_as_mismatch(f: &Finding) {
    let line = f.check_line();
    let words: Vec<&str> = line.split_whitespace().collect();
    let (result, operands) = words[1..].split_last().expect("a result");
    let v = spec()
        .lookup(words[0], Some(operands.len()))
        .expect("the variant");
    let parse = |t: &str| u64::from_str_radix(t.trim_start_matches("0x"), 16).expect("hex");
    let inputs: Vec<u64> = operands.iter().map(|t| parse(t)).collect();
    let got = parse(result);
    let mut ev = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut accepts);
    let dest = &v.program.dests[0];
    assert!(
        semfuzz_fuzz::finding::first_rejected(dest, &accepts, got).is_some(),
        "{line} re-checks as ok"
    );
}

fn assert_only(r: &Report, allowed: &[&str], required: &str) {
    let got = classes(r);
    assert!(
        got.contains(required),
        "{required} not found; classes: {got:?}"
    );
    for c in &got {
        assert!(
            allowed.contains(&c.as_str()),
            "unexpected class {c}; classes: {got:?}"
        );
    }
    for f in &r.findings {
        assert_rechecks_as_mismatch(f);
    }
}

#[test]
fn wrong_sign_of_zero() {
    let r = mutant("add.rn.f32", |_, _, rep| {
        if F32.is_zero(rep) {
            rep ^ 0x8000_0000
        } else {
            rep
        }
    });
    // x + (-x) is -0 only under .rm: where add.rm.f32 gives that -0, it names the bug.
    assert_only(&r, &["sign-of-zero", "rounded-as-rm"], "sign-of-zero");
}

#[test]
fn nan_for_number() {
    let r = mutant("mul.rn.f32", |_, _, rep| {
        if F32.is_inf(rep) {
            0x7fc0_0000
        } else {
            rep
        }
    });
    assert_only(&r, &["nan-for-number"], "nan-for-number");
}

#[test]
fn number_for_nan() {
    let r = mutant(
        "add.rn.f32",
        |_, _, rep| if F32.is_nan(rep) { 0 } else { rep },
    );
    assert_only(&r, &["number-for-nan"], "number-for-nan");
}

#[test]
fn wrong_nan_pattern() {
    // min.NaN returns the canonical NaN 0x7fffffff exactly (PTX 9.7.3.11).
    let r = mutant("min.NaN.f32", |_, _, rep| {
        if F32.is_nan(rep) {
            0x7fc0_0000
        } else {
            rep
        }
    });
    assert_only(&r, &["wrong-nan"], "wrong-nan");
}

#[test]
fn ftz_over_applied() {
    let r = mutant("add.rn.f32", |_, _, rep| {
        if F32.is_subnormal(rep) {
            rep & 0x8000_0000
        } else {
            rep
        }
    });
    assert_only(&r, &["ftz-over-applied"], "ftz-over-applied");
}

#[test]
fn ftz_not_applied() {
    // add.rn.ftz.f32 computed without the flush of the result (inputs are normal here, so
    // their flush cannot matter).
    let r = mutant("add.rn.ftz.f32", |row, _, rep| {
        if row.iter().all(|&x| !F32.is_subnormal(x)) {
            semfuzz_fp::add(F32, row[0], row[1], Round::NearestEven)
        } else {
            rep
        }
    });
    // An unflushed NaN result has the payload the spec allows only through `any NaN`, so
    // NaN-ness is unaffected: the only difference is the subnormal kept.
    assert_only(&r, &["ftz-not-applied", "wrong-nan"], "ftz-not-applied");
}

#[test]
fn rounding_toward_zero_instead_of_nearest() {
    let r = mutant("add.rn.f32", |row, _, rep| {
        if row.iter().all(|&x| !F32.is_nan(x)) {
            semfuzz_fp::add(F32, row[0], row[1], Round::TowardZero)
        } else {
            rep
        }
    });
    // add.rz.f32 accepts every such result: the neighbour names the bug.
    assert_only(&r, &["rounded-as-rz"], "rounded-as-rz");
}

#[test]
fn saturation_not_applied() {
    let r = mutant("add.rn.sat.f32", |row, _, rep| {
        if row.iter().all(|&x| !F32.is_nan(x)) {
            semfuzz_fp::add(F32, row[0], row[1], Round::NearestEven)
        } else {
            rep
        }
    });
    // sat(-0) is +0 (docs/ambiguities.md 1), so an unclamped -0 is a wrong sign of zero.
    assert_only(&r, &["saturation", "sign-of-zero"], "saturation");
}

#[test]
fn approximation_bound_exceeded() {
    let r = mutant("ex2.approx.f32", |_, accept, rep| match accept {
        Accept::Within { .. } if F32.is_normal(rep) && rep & 0x7fff_ffff < 0x7f00_0000 => rep + 64,
        _ => rep,
    });
    let got = classes(&r);
    assert!(
        got.iter().all(|c| c.starts_with("bound-exceeded-up-")),
        "{got:?}"
    );
    assert!(!got.is_empty());
    for f in &r.findings {
        assert_rechecks_as_mismatch(f);
    }
}

#[test]
fn other_bits() {
    // set's integer destination: all ones where 0 is due, and the reverse.
    let r = mutant("set.lt.u32.f16", |_, _, rep| !rep & 0xffff_ffff);
    assert_only(&r, &["bits"], "bits");
}

#[test]
fn correct_backends_find_nothing() {
    for instr in [
        "add.rn.f32",
        "min.NaN.xorsign.abs.f32",
        "fma.rn.f16x2",
        "ex2.approx.f32",
        "add.f64",
    ] {
        let open = || semfuzz_fuzz::registry::open("spec");
        let r = campaign_with(&open, instr, GeneratorKind::Boundary, 20_000, 2);
        assert!(r.findings.is_empty(), "spec on {instr}: {:?}", r.findings);
        assert_eq!(r.cases, 20_000);
    }
    for instr in [
        "add.rn.f32",
        "min.NaN.f32",
        "add.f64",
        "rcp.approx.f32",
        "mul.rn.ftz.sat.f16x2",
    ] {
        let open = || semfuzz_fuzz::registry::open("z3");
        let r = campaign_with(&open, instr, GeneratorKind::Boundary, 300, 1);
        assert!(r.findings.is_empty(), "z3 on {instr}: {:?}", r.findings);
        assert!(r.skipped.is_empty(), "z3 skipped {instr}");
        assert_eq!(r.no_verdict, 0);
    }
}

#[test]
fn same_seed_same_findings_whatever_the_threads() {
    let key = |r: &Report| -> Vec<(String, String, u64, Vec<String>, String)> {
        let mut v: Vec<_> = r
            .findings
            .iter()
            .map(|f| {
                (
                    f.signature.clone(),
                    f.class.clone(),
                    f.count,
                    f.inputs.clone(),
                    f.actual.clone(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let bug: Bug = |row, _, rep| if row[0] & 0x3 == 1 { rep ^ 1 } else { rep };
    let run = |threads| {
        let open = move || -> Result<Box<dyn Backend>, BackendError> {
            Ok(Box::new(Mutant {
                identity: Identity {
                    name: "m".into(),
                    version: "1".into(),
                    device: "t".into(),
                },
                bug,
            }))
        };
        campaign_with(&open, "mul.rn.f32", GeneratorKind::Uniform, 50_000, threads)
    };
    let (a, b) = (run(1), run(2));
    assert!(!a.findings.is_empty());
    assert_eq!(key(&a), key(&b));
}

#[test]
fn exhaustive_covers_every_tuple_once() {
    // neg.f16 has 2^16 inputs: a mutant wrong on exactly one of them is found, once.
    let r = {
        let open = || -> Result<Box<dyn Backend>, BackendError> {
            Ok(Box::new(Mutant {
                identity: Identity {
                    name: "m".into(),
                    version: "1".into(),
                    device: "t".into(),
                },
                bug: |row, _, rep| if row[0] == 0x1234 { rep ^ 1 } else { rep },
            }))
        };
        let v = spec().lookup("neg.f16", None).expect("neg.f16");
        let config = Config {
            generator: GeneratorKind::Exhaustive,
            cases: None,
            time: None,
            seed: 1,
            threads: 2,
            resume: 0,
            evaluator: semfuzz_jit::EvaluatorKind::Jit,
        };
        campaign::run(
            spec(),
            &[v],
            &open,
            None,
            &config,
            &Counters::default(),
            &AtomicBool::new(false),
        )
        .expect("runs")
    };
    assert_eq!(r.cases, 65_536);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].count, 1);
    assert_eq!(r.findings[0].inputs, vec!["0x1234".to_string()]);
}

#[test]
fn a_different_number_is_not_a_rounding() {
    // The sign of every normal result flipped: billions of ulps away, not a rounding.
    let r = mutant("mul.rn.f32", |_, _, rep| {
        if F32.is_normal(rep) {
            rep ^ 0x8000_0000
        } else {
            rep
        }
    });
    assert_only(
        &r,
        &["wrong-value-up", "wrong-value-down"],
        "wrong-value-up",
    );
    assert!(classes(&r).contains("wrong-value-down"));
}

#[test]
fn a_subnormal_for_zero_is_ftz_only_where_the_variant_flushes() {
    // Without .ftz, the smallest subnormal where +0 is due is one ulp up, not FTZ left out.
    let r = mutant("mul.rn.f32", |_, _, rep| if rep == 0 { 1 } else { rep });
    // (Where the exact product is a positive tiny number, mul.rp.f32 gives just that.)
    assert_only(&r, &["ulp-up-1", "rounded-as-rp"], "ulp-up-1");
}

#[test]
fn zero_for_the_smallest_normal_is_a_flush_before_rounding() {
    // x86's FTZ tests tininess before rounding: a product that rounds up to the smallest
    // normal is flushed to zero; the spec flushes after rounding (ambiguities item 7).
    let r = mutant("mul.rn.ftz.f32", |_, _, rep| {
        if F32.abs(rep) == F32.min_normal(false) {
            rep & 0x8000_0000
        } else {
            rep
        }
    });
    assert_only(&r, &["ftz-over-applied"], "ftz-over-applied");
}

#[test]
fn a_neighbour_variant_names_the_missing_modifier() {
    // add.rn.ftz.f16 computed as add.rn.f16: subnormal inputs kept change results by many
    // ulps, but add.rn.f16 accepts each of them, so the class says what is missing.
    const F16: Format = Format::ieee(5, 11);
    let r = mutant("add.rn.ftz.f16", |row, _, rep| {
        if row.iter().all(|&x| !F16.is_nan(x)) {
            semfuzz_fp::add(F16, row[0], row[1], Round::NearestEven)
        } else {
            rep
        }
    });
    assert_only(&r, &["ftz-not-applied"], "ftz-not-applied");
}
