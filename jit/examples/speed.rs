//! Evaluations per second of the interpreter and the compiled evaluator on the same
//! boundary-heavy batch, in one run (docs/BENCHMARKS.md, "Compiled evaluator"):
//! `cargo run --profile test -p semfuzz-jit --example speed [VARIANT | TARGET:FUNCTION ...]`,
//! where `sm_70:fadd_bf16` names a function of the committed llc fixture
//! `ptx/fixtures/llvm22-sm_70.ptx`.
//!
//! Columns: the interpreter's `eval_batch`; the compiled `eval_batch` (values natively, outcome
//! trees resolved by the shared resolver); the compiled accept-set test (`screen`) of the
//! representatives, which is what a campaign runs per case when nothing is rejected.

use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::Format;
use semfuzz_jit::{compile, Evaluator, EvaluatorKind};
use semfuzz_spec::ir::{mask, PartKind, Program};
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
    "HFMA2.FMZ.SAT",
    "HSET2.NE.AND",
    "HMNMX2.FTZ.XORSIGN",
    "ex2.approx.f32",
    "sm_70:fadd_bf16",
    "sm_70:minimum_bf16",
    "sm_70:minimum_v2f32",
    "sm_70:fma_v2bf16",
    "sm_70:minimum_v2bf16",
];

/// Seconds this thread has run on a CPU (Linux's `schedstat`), so that a rate does not count
/// the time other processes held the CPU; `None` where the kernel does not say.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Evaluations per second of `f` run over one batch, timed over at least 0.3 s of this
/// thread's CPU time (of wall time where the CPU time is not known).
fn rate(mut f: impl FnMut()) -> f64 {
    f();
    let wall = Instant::now();
    let clock = || cpu_seconds().unwrap_or_else(|| wall.elapsed().as_secs_f64());
    let (start, mut n) = (clock(), 0u64);
    while clock() - start < 0.3 {
        f();
        n += 1;
    }
    (n * BATCH as u64) as f64 / (clock() - start)
}

fn main() {
    let spec = Spec::embedded().expect("the embedded specs load");
    let names: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if names.is_empty() {
        DEFAULT.to_vec()
    } else {
        names.iter().map(String::as_str).collect()
    };
    println!("| variant or function | IR ops | interp evals/s | jit evals/s | jit/interp | jit screen/s | screen/interp |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for name in names {
        let Some((program, inputs, size)) = workload(&spec, name) else {
            continue;
        };
        let (program, ni) = (&program, program.input_widths.len());
        let code = Arc::new(compile(program).expect("compiles"));
        let mut interp = Evaluator::of_kind(program, EvaluatorKind::Interp);
        let mut jit = Evaluator::compiled(program, code);
        let mut out = vec![Accept::default(); BATCH * interp.n_parts()];
        // Best of three, alternating, so that a burst of load on a shared machine does not
        // land on one evaluator only.
        let (mut r_interp, mut r_jit) = (0f64, 0f64);
        for _ in 0..3 {
            r_interp = r_interp.max(rate(|| interp.eval_batch(&inputs, &mut out)));
            r_jit = r_jit.max(rate(|| jit.eval_batch(&inputs, &mut out)));
        }
        let np = jit.n_parts();
        let dest = &program.dests[0];
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
            (0..3)
                .map(|_| {
                    rate(|| {
                        jit.screen(&inputs, ni, &got, &mut flags);
                    })
                })
                .fold(0f64, f64::max)
        } else {
            f64::NAN
        };
        println!(
            "| `{name}` | {size} | {:.1} M | {:.1} M | {:.1} | {:.1} M | {:.1} |",
            r_interp / 1e6,
            r_jit / 1e6,
            r_jit / r_interp,
            r_screen / 1e6,
            r_screen / r_interp
        );
    }
}

/// The program `name` denotes (a variant, or `TARGET:FUNCTION` of a fixture module), a batch
/// of boundary-heavy inputs for it, and its size as the table shows it; `None` (with a
/// message) when there is no such program.
fn workload(spec: &Spec, name: &str) -> Option<(Program, Vec<u64>, String)> {
    let Some((target, func)) = name.split_once(':') else {
        let Some(v) = spec.variants.iter().find(|v| v.text == name) else {
            eprintln!("no variant {name}");
            return None;
        };
        let ni = v.sources.len();
        let mut samples = Samples::new(spec, v, 42);
        let mut inputs = vec![0; BATCH * ni];
        for row in inputs.chunks_exact_mut(ni.max(1)) {
            samples.fill(row);
        }
        return Some((v.program.clone(), inputs, v.program.ops.len().to_string()));
    };
    let path = format!(
        "{}/../ptx/fixtures/llvm22-{target}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path)
        .map_err(|e| eprintln!("{path}: {e}"))
        .ok()?;
    let f = semfuzz_ptx::load(spec, &path, &text, Some(func))
        .map_err(|d| eprintln!("{name} does not read: {}", d.message))
        .ok()?;
    // Float edges of each input's format (of the float format of its width where the reader
    // only knows bits, as for llc's `.b16` halves), else random bits.
    let mut rng = SplitMix64::new(42);
    let mut gens: Vec<Option<BoundaryGen>> = f
        .inputs
        .iter()
        .map(|s| match (s.kind, s.width) {
            (PartKind::Float(f), _) => Some(f),
            (_, 16) if func.contains("bf16") => Some(Format::BF16),
            (_, 16) => Some(Format::F16),
            (_, 32) => Some(Format::F32),
            (_, 64) => Some(Format::F64),
            _ => None,
        })
        .map(|f| f.map(|f| BoundaryGen::new(f, rng.next_u64())))
        .collect();
    let inputs = (0..BATCH)
        .flat_map(|_| {
            gens.iter_mut()
                .zip(&f.inputs)
                .map(|(g, s)| match g {
                    Some(g) => g.next().unwrap_or(0),
                    None => rng.next_u64() & mask(s.width),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let size = format!(
        "{} ({} PTX instructions)",
        f.program.ops.len(),
        f.instructions
    );
    Some((f.program, inputs, size))
}
