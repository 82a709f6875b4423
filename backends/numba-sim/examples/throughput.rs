//! End-to-end throughput of `numba-sim` or an `external:CMD` backend (generate + run +
//! compare with the evaluator), and the share of the run spent starting the process:
//! `cargo run --release -p semfuzz-numba-sim --example throughput -- numba-sim fma.rn.f32 20000`.

use semfuzz_backend::{Backend, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::time::Instant;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [backend, text, cases] = &args[..] else {
        return Err(
            "usage: throughput BACKEND VARIANT CASES (BACKEND: numba-sim or external:CMD)".into(),
        );
    };
    let cases: usize = cases.parse().map_err(|e| format!("CASES: {e}"))?;
    let spec = Spec::embedded().map_err(|e| format!("{e:?}"))?;
    let v = spec.lookup(text, None).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut b: Box<dyn Backend> = match backend.strip_prefix("external:") {
        Some(cmd) => semfuzz_external::open(Some(cmd)),
        None => semfuzz_numba_sim::open(None),
    }
    .map_err(|e| e.to_string())?;
    let startup = start.elapsed();
    let (n_src, batch) = (v.sources.len(), b.batch_size());
    let mut samples = Samples::new(&spec, v, 1);
    let mut eval = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); eval.n_parts()];
    let (mut done, mut rejected) = (0, 0);
    while done < cases {
        let n = batch.min(cases - done);
        let mut inputs = vec![0; n * n_src];
        inputs
            .chunks_exact_mut(n_src)
            .for_each(|row| samples.fill(row));
        let mut out = vec![Verdict::NoVerdict; n];
        b.run(v, &inputs, &mut out).map_err(|e| e.to_string())?;
        for (row, verdict) in inputs.chunks_exact(n_src).zip(&out) {
            eval.eval(row, &mut accepts);
            if let Verdict::Bits(bits) = verdict {
                rejected += usize::from(!accepts[0].accepts(*bits));
            }
        }
        done += n;
    }
    let total = start.elapsed();
    println!(
        "{backend} {text}: {cases} cases in {:.2} s = {:.0} cases/s; start-up {:.2} s = {:.1}% of the run; {rejected} rejected; {}",
        total.as_secs_f64(),
        cases as f64 / total.as_secs_f64(),
        startup.as_secs_f64(),
        100.0 * startup.as_secs_f64() / total.as_secs_f64(),
        b.identity()
    );
    Ok(())
}
