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
        let report = check_variant(&spec, v, cases, 7, 10_000, || {});
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
