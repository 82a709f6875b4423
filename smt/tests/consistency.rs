//! Evaluator ≡ Z3 for every variant: on boundary-heavy and random inputs, the formulas admit
//! each result the evaluator accepts and nothing else.

use semfuzz_smt::consistency::check_variant;
use semfuzz_spec::Spec;

#[test]
fn every_variant_agrees_with_z3() {
    let spec = Spec::embedded().expect("embedded specs load");
    let cases = 128;
    let mut failures = Vec::new();
    for v in &spec.variants {
        let report = check_variant(
            &spec,
            v,
            cases,
            7,
            10_000,
            semfuzz_jit::EvaluatorKind::Jit,
            || {},
        );
        if let Some((inputs, why)) = report.failure {
            failures.push(format!("{} {inputs:x?}: {why}", v.text));
        }
    }
    assert!(
        failures.is_empty(),
        "{} variants disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{} variants x {cases} inputs agree", spec.variants.len());
}

/// The check must be able to fail: a program whose outcome leaks an FP op's NaN bits (which
/// the formulas leave free) is caught.
#[test]
fn leaked_nan_bits_are_caught() {
    use semfuzz_spec::diag::SourceFile;
    let src = "instr leak {\n  form \"leak.f32 d, a, b\";\n  sem { d = add(a, b, .rn); }\n}";
    let files = vec![
        SourceFile::new("prelude.sem", semfuzz_spec::catalog::EMBEDDED[0].1),
        SourceFile::new("leak.sem", src),
    ];
    let spec = Spec::from_files(files).expect("loads");
    let v = spec.lookup("leak.f32", Some(2)).expect("variant");
    let mut checker = semfuzz_smt::consistency::Checker::new(&v.program, 10_000);
    let mut ev = semfuzz_spec::eval::Evaluator::new(&v.program);
    let inputs = [0x7f80_0000, 0xff80_0000]; // inf + -inf: invalid, NaN
    let mut out = vec![Default::default(); 1];
    ev.eval(&inputs, &mut out);
    let err = checker
        .check(&inputs, &out)
        .expect_err("Z3 admits other NaNs than the evaluator's");
    assert!(err.to_string().contains("admits"), "{err}");
    // And a number is fine.
    ev.eval(&[0x3f80_0000, 0x3f80_0000], &mut out);
    checker
        .check(&[0x3f80_0000, 0x3f80_0000], &out)
        .expect("1 + 1 agrees");
}

fn accepts_of(v: &semfuzz_spec::Variant, inputs: &[u64]) -> Vec<semfuzz_spec::outcome::Accept> {
    let mut ev = semfuzz_spec::eval::Evaluator::new(&v.program);
    let mut out = vec![Default::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// The check must be able to fail on bounded outcomes of two arguments: given the accept set
/// of other inputs, Z3 (whose formulas take the corner case or the uninterpreted division)
/// disagrees.
#[test]
fn two_argument_bounds_are_checked() {
    let spec = Spec::embedded().expect("embedded specs load");
    let v = spec.lookup("div.approx.f32", Some(2)).expect("variant");
    let mut checker = semfuzz_smt::consistency::Checker::new(&v.program, 10_000);
    let (one, three, zero) = (0x3f80_0000, 0x4040_0000, 0);
    let bounded = accepts_of(v, &[one, three]);
    let corner = accepts_of(v, &[one, zero]); // 1/+0: exactly +Inf
    checker.check(&[one, three], &bounded).expect("1/3 agrees");
    checker.check(&[one, zero], &corner).expect("1/0 agrees");
    // The formulas pin 1/0 to +Inf: the interval around 1/3 is rejected.
    let e = checker
        .check(&[one, zero], &bounded)
        .expect_err("must disagree");
    assert!(e.to_string().contains("rejects"), "{e}");
    // The formulas state 1/3 within 2 ulps of Z3's own division: +Inf is not among them.
    let e = checker
        .check(&[one, three], &corner)
        .expect_err("must disagree");
    assert!(e.to_string().contains("rejects"), "{e}");
}

/// A destination assigned by bit range (rcp.approx.ftz.f64: d[63:32], d[31:0]) is checked part
/// by part: a wrong low word is caught.
#[test]
fn bit_range_parts_are_checked() {
    let spec = Spec::embedded().expect("embedded specs load");
    let v = spec.lookup("rcp.approx.ftz.f64", Some(1)).expect("variant");
    let mut checker = semfuzz_smt::consistency::Checker::new(&v.program, 10_000);
    let a = 0x4000_0000_1234_5678u64;
    let mut acc = accepts_of(v, &[a]);
    assert_eq!(acc.len(), 2);
    checker.check(&[a], &acc).expect("agrees");
    acc[0] = semfuzz_spec::outcome::Accept::Exact(1);
    let e = checker
        .check(&[a], &acc)
        .expect_err("a low word of 1 must disagree");
    assert!(e.to_string().contains("part 0"), "{e}");
}

/// Approximations of two formats of one width (tanh on .f16 and .bf16) are different
/// uninterpreted functions: on the same input bits their results may differ.
#[test]
fn approximations_of_equal_width_are_distinct_functions() {
    use semfuzz_smt::encode::{encode_over, NanBits};
    use z3::ast::BV;
    let spec = Spec::embedded().expect("embedded specs load");
    let f16 = spec.lookup("tanh.approx.f16", Some(1)).expect("variant");
    let bf16 = spec.lookup("tanh.approx.bf16", Some(1)).expect("variant");
    let x = BV::from_u64(0x3c00, 16); // 1.0 in f16, 1.875 in bf16: both bounded
    let a = encode_over(&f16.program, "a_", NanBits::Free, vec![x.clone()]);
    let b = encode_over(&bf16.program, "b_", NanBits::Free, vec![x]);
    let solver = z3::Solver::new();
    solver.assert(a.constraints());
    solver.assert(b.constraints());
    solver.assert(a.parts[0].result.eq(&b.parts[0].result).not());
    assert_eq!(solver.check(), z3::SatResult::Sat);
}

/// Where the formulas state the bound (ulp bounds of rcp and div around Z3's IEEE division,
/// sqrt's relative bound through binary128 square roots), the evaluator's MPFR interval is
/// compared exactly: one ulp more or less on either end is a disagreement, for f32 and for the
/// 1.11.20 upper word of the f64 gross approximation.
#[test]
fn stated_bounds_are_compared_exactly() {
    use semfuzz_spec::outcome::Accept;
    let spec = Spec::embedded().expect("embedded specs load");
    for (text, input, part) in [
        ("rcp.approx.f32", 0x4040_0000u64, 0),
        ("rcp.approx.ftz.f32", 0x7e80_0000, 0), // 1/2^126: a subnormal end, flushed
        ("rcp.approx.ftz.f64", 0x4008_0000_1234_5678, 1),
        ("sqrt.approx.f32", 0x4000_0000, 0), // sqrt(2) within 2^-23 relative
        // sqrt(4) = 2 exactly: both ends 2 ± 2^-22 are f32 values, so the ends are exact
        // boundary cases of the relative bound.
        ("sqrt.approx.ftz.f32", 0x4080_0000, 0),
    ] {
        let v = spec.lookup(text, Some(1)).expect("variant");
        let mut checker = semfuzz_smt::consistency::Checker::new(&v.program, 10_000);
        let acc = accepts_of(v, &[input]);
        checker.check(&[input], &acc).expect("agrees");
        let Accept::Within { lo, hi, .. } = acc[part] else {
            panic!("{text}: a bounded part, got {:?}", acc[part]);
        };
        let shifted = |lo: u64, hi: u64| {
            let mut a = acc.clone();
            if let Accept::Within { lo: l, hi: h, .. } = &mut a[part] {
                (*l, *h) = (lo, hi);
            }
            a
        };
        // Bits one step up in magnitude (the ends here are positive).
        for (wrong, says) in [
            (shifted(lo, hi + 1), "rejects"),
            (shifted(lo + 1, hi), "admits"),
            (shifted(lo, hi - 1), "admits"),
        ] {
            let e = checker
                .check(&[input], &wrong)
                .expect_err("a wrong interval must disagree");
            assert!(e.to_string().contains(says), "{text}: {e}");
        }
    }
}

/// An ulp bound stops at zero in the formulas too (docs/ambiguities.md item 20): for
/// 2^-149 / 2, which rounds to +0, an interval reaching down to -2^-149 is one Z3 rejects.
#[test]
fn stated_ulp_bounds_stop_at_zero() {
    use semfuzz_spec::outcome::Accept;
    let spec = Spec::embedded().expect("embedded specs load");
    let v = spec.lookup("div.full.f32", Some(2)).expect("variant");
    let mut checker = semfuzz_smt::consistency::Checker::new(&v.program, 10_000);
    let inputs = [0x0000_0001, 0x4000_0000];
    let mut acc = accepts_of(v, &inputs);
    let Accept::Within { lo, hi, .. } = acc[0] else {
        panic!("a bounded part, got {:?}", acc[0]);
    };
    assert_eq!(
        (lo, hi),
        (0, 2),
        "[+0, 2 ulps] around the correctly rounded +0"
    );
    checker.check(&inputs, &acc).expect("agrees");
    if let Accept::Within { lo, .. } = &mut acc[0] {
        *lo = 0x8000_0001;
    }
    let e = checker
        .check(&inputs, &acc)
        .expect_err("an interval across zero must disagree");
    assert!(e.to_string().contains("rejects"), "{e}");
}
