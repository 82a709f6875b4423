//! Evaluations per second of the interpreter and the compiled evaluator on the same
//! boundary-heavy batch, in one run (docs/BENCHMARKS.md, "Compiled evaluator"):
//! `cargo run --profile test -p semfuzz-jit --example speed [VARIANT...]`.
//!
//! Columns: the interpreter's `eval_batch`; the compiled `eval_batch` (values natively, outcome
//! trees resolved by the shared resolver); the compiled accept-set test (`screen`) of the
//! representatives, which is what a campaign runs per case when nothing is rejected.

use semfuzz_jit::{compile, Evaluator, EvaluatorKind};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::sync::Arc;
use std::time::Instant;

const BATCH: usize = 4096;
const DEFAULT: &[&str] = &[
    "add.rn.f32",
    "fma.rz.f64",
    "add.rn.f16",
    "fma.rn.bf16x2",
    "set.lt.u32.f16x2",
    "HMUL2.FTZ",
    "ex2.approx.f32",
];

/// Evaluations per second of `f` run over one batch, timed over at least 0.3 s.
fn rate(mut f: impl FnMut()) -> f64 {
    f();
    let (start, mut n) = (Instant::now(), 0u64);
    while start.elapsed().as_secs_f64() < 0.3 {
        f();
        n += 1;
    }
    (n * BATCH as u64) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let spec = Spec::embedded().expect("the embedded specs load");
    let names: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if names.is_empty() {
        DEFAULT.to_vec()
    } else {
        names.iter().map(String::as_str).collect()
    };
    println!("| variant | IR ops | interp evals/s | jit evals/s | jit/interp | jit screen/s | screen/interp |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for name in names {
        let Some(v) = spec.variants.iter().find(|v| v.text == name) else {
            eprintln!("no variant {name}");
            continue;
        };
        let ni = v.sources.len();
        let mut samples = Samples::new(&spec, v, 42);
        let mut inputs = vec![0; BATCH * ni];
        for row in inputs.chunks_exact_mut(ni.max(1)) {
            samples.fill(row);
        }
        let code = Arc::new(compile(&v.program).expect("compiles"));
        let mut interp = Evaluator::of_kind(&v.program, EvaluatorKind::Interp);
        let mut jit = Evaluator::compiled(&v.program, code);
        let mut out = vec![Accept::default(); BATCH * interp.n_parts()];
        let r_interp = rate(|| interp.eval_batch(&inputs, &mut out));
        let r_jit = rate(|| jit.eval_batch(&inputs, &mut out));
        let np = jit.n_parts();
        let dest = &v.program.dests[0];
        let got: Vec<u64> = out
            .chunks_exact(np)
            .map(|res| {
                dest.parts
                    .iter()
                    .zip(res)
                    .fold(0, |b, (p, a)| b | a.representative() << p.lo)
            })
            .collect();
        let mut flags = vec![0u8; BATCH];
        let screened = jit.screen(&inputs, ni, &got, &mut flags);
        let r_screen = if screened {
            rate(|| {
                jit.screen(&inputs, ni, &got, &mut flags);
            })
        } else {
            f64::NAN
        };
        println!(
            "| `{name}` | {} | {:.1} M | {:.1} M | {:.1} | {:.1} M | {:.1} |",
            v.program.ops.len(),
            r_interp / 1e6,
            r_jit / 1e6,
            r_jit / r_interp,
            r_screen / 1e6,
            r_screen / r_interp
        );
    }
}
