//! `semfuzz selfcheck`: the evaluator and the Z3 encoding agree on every selected variant.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use semfuzz_jit::EvaluatorKind;
use semfuzz_smt::consistency::check_variant;
use semfuzz_spec::{Spec, Variant};
use std::time::Instant;

/// Checks each of `variants` on `cases` inputs, the accept sets from `evaluator`; returns
/// whether all agree.
pub fn run(
    spec: &Spec,
    variants: &[&Variant],
    cases: usize,
    seed: u64,
    evaluator: EvaluatorKind,
) -> Result<bool> {
    let cache = semfuzz_jit::Cache::new();
    let compiled = variants
        .iter()
        .filter(|v| cache.runs(&v.program, evaluator) == EvaluatorKind::Jit)
        .count();
    outln!(
        "libz3 {}; {} variants x {cases} inputs (seed {seed}); accept sets by {}",
        semfuzz_smt::z3_version(),
        variants.len(),
        match (evaluator, compiled) {
            (EvaluatorKind::Interp, _) => "the interpreter".to_string(),
            (_, n) if n == variants.len() => "the jit".to_string(),
            (_, n) => format!("the jit ({n} variants) and the interpreter (the rest)"),
        }
    );
    let bar = ProgressBar::new((variants.len() * cases) as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} checks  {per_sec}  eta {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let mut failed = 0;
    for v in variants {
        bar.set_message(v.text.clone());
        let report = check_variant(spec, v, cases, seed, 30_000, evaluator, || bar.inc(1));
        if let Some((inputs, why)) = report.failure {
            failed += 1;
            let ops: Vec<String> = inputs.iter().map(|i| format!("0x{i:x}")).collect();
            bar.suspend(|| outln!("DISAGREE {} {}: {why}", v.text, ops.join(" ")));
            bar.inc((cases - report.cases) as u64);
        }
    }
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    outln!(
        "{} variants agree, {failed} disagree ({} checks in {secs:.1} s, {:.0} checks/s)",
        variants.len() - failed,
        variants.len() * cases,
        (variants.len() * cases) as f64 / secs
    );
    Ok(failed == 0)
}
