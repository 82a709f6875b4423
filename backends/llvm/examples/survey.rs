//! Runs LLVM backends over variants and compares with the evaluator: how many cases fold, how
//! many agree, the first disagreements, and the speed (cases/s and the process start-up's share
//! of a batch, for docs/BENCHMARKS.md).
//!
//! `cargo run --release -p semfuzz-llvm --example survey -- [--backend llvm|opt-16|+ir+daz|+nvvm:opt-16] [--cases N] VARIANT[/SOURCES]...`
//! (`--backend` takes what follows `llvm` in the backend's name)

use semfuzz_backend::{Support, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{classify, describe_accept, Accept};
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::time::Instant;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1).peekable();
    let (mut arg, mut cases, mut texts) = (None, 16384usize, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--backend" => arg = args.next().filter(|b| b != "llvm"),
            "--cases" => {
                cases = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .ok_or("--cases N")?
            }
            _ => texts.push(a),
        }
    }
    let spec = Spec::embedded().map_err(|e| e.to_string())?;
    let mut backend = semfuzz_llvm::open(arg.as_deref()).map_err(|e| e.to_string())?;
    println!("{}", backend.identity());
    for text in &texts {
        // `min.NaN.f32/2` picks the form with two sources.
        let (name, sources) = match text.split_once('/') {
            Some((name, n)) => (name, n.parse().ok()),
            None => (text.as_str(), None),
        };
        let variant = spec.lookup(name, sources).map_err(|e| e.to_string())?;
        if let Support::No(why) = backend.supports(variant) {
            println!("{text}: unsupported: {why}");
            continue;
        }
        let n = variant.sources.len();
        let mut samples = Samples::new(&spec, variant, 7);
        let mut inputs = vec![0; cases * n];
        for row in inputs.chunks_exact_mut(n) {
            samples.fill(row);
        }
        let mut out = vec![Verdict::Unsupported; cases];
        let t = Instant::now();
        backend
            .run(variant, &inputs[..n], &mut out[..1])
            .map_err(|e| e.to_string())?;
        let startup = t.elapsed().as_secs_f64();
        let t = Instant::now();
        backend
            .run(variant, &inputs, &mut out)
            .map_err(|e| e.to_string())?;
        let batch = t.elapsed().as_secs_f64();
        let mut eval = Evaluator::new(&variant.program);
        let parts = &variant.program.dests[0].parts;
        let mut accepts = vec![Accept::Exact(0); eval.n_parts()];
        let (mut folded, mut agree, mut shown) = (0, 0, 0);
        for (row, verdict) in inputs.chunks_exact(n).zip(&out) {
            let Verdict::Bits(bits) = *verdict else {
                continue;
            };
            folded += 1;
            eval.eval(row, &mut accepts);
            let bad: Vec<String> = parts
                .iter()
                .zip(&accepts)
                .filter_map(|(p, a)| {
                    let got = bits >> p.lo & (u64::MAX >> (64 - p.width));
                    (!a.accepts(got)).then(|| {
                        format!(
                            "got {got:#x}, spec {} ({})",
                            describe_accept(p.kind, a),
                            classify(p.kind, a, got)
                        )
                    })
                })
                .collect();
            if bad.is_empty() {
                agree += 1;
            } else if shown < 4 {
                shown += 1;
                let hex: Vec<String> = row.iter().map(|v| format!("{v:#x}")).collect();
                println!("  {text} {}: {}", hex.join(" "), bad.join("; "));
            }
        }
        println!(
            "{text}: {folded}/{cases} folded, {agree} agree, {} disagree; {:.0} cases/s, start-up {:.3} s = {:.1}% of the batch",
            folded - agree,
            cases as f64 / batch,
            startup,
            100.0 * startup / batch
        );
    }
    Ok(())
}
