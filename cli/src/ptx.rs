//! `semfuzz eval-ptx` and `semfuzz check-ptx`: a whole PTX function, as a compiler wrote it,
//! on given arguments.

use crate::operand::parse_hex;
use anyhow::{Context, Result};
use semfuzz_fp::Format;
use semfuzz_jit::{Evaluator, EvaluatorKind};
use semfuzz_ptx::{PtxFunction, Slot};
use semfuzz_smt::reach::{reachable, Reach};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::ir::PartKind;
use semfuzz_spec::launch;
use semfuzz_spec::outcome::{classify, describe, describe_accept, Accept};
use semfuzz_spec::{Diagnostic, Spec};
use std::io::Read;
use std::path::Path;

/// How long Z3 may take to say whether a result is reachable through the function's choices.
const REACH_TIMEOUT_MS: u32 = 10_000;

/// How `eval-ptx` and `check-ptx` read a function: as one thread, or as a CTA.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct Shape {
    /// Read the kernel as one CTA of N threads along x (%tid.x = 0 .. N-1, %laneid its lane),
    /// or XxY or XxYxZ along x, y and z (`32x4`: %tid.x fastest, warps of 32 consecutive
    /// threads): warp collectives gather their lanes, `bar.sync` ends a phase, and a data race
    /// between barriers is reported (`race_free = 0`); the inputs are the CTA's, its results
    /// the memory it leaves.
    #[arg(long, value_name = "N|XxY|XxYxZ", value_parser = semfuzz_ptx::parse_shape)]
    threads: Option<[u32; 3]>,
    /// With --threads: how many bytes each pointer parameter's block holds (a multiple of 8;
    /// default 8 per thread).
    #[arg(long, value_name = "BYTES", requires = "threads")]
    block_bytes: Option<u32>,
    /// With --threads: how many bytes an `.extern .shared` array (Triton's `global_smem[]`,
    /// sized at launch) holds (default 8 per thread).
    #[arg(long, value_name = "BYTES", requires = "threads")]
    shared_bytes: Option<u32>,
    /// With --threads: the CTA's place in the grid along x (%ctaid = (X, 0, 0)); without it
    /// %ctaid is an input. At 0, a row offset `%ctaid.x * stride` folds away, which makes a
    /// row kernel several times smaller to evaluate.
    #[arg(long, value_name = "X", requires = "threads")]
    ctaid: Option<u32>,
}

impl Shape {
    fn cta(&self) -> Option<semfuzz_ptx::Cta> {
        self.threads.map(|shape| {
            let mut cta = semfuzz_ptx::Cta::shaped(shape);
            if let Some(bytes) = self.block_bytes {
                cta.block_bytes = bytes;
            }
            if let Some(bytes) = self.shared_bytes {
                cta.extern_shared_bytes = bytes;
            }
            cta.ctaid = self.ctaid;
            cta
        })
    }
}

/// Reads function `func` (or the only one) of the `.ptx` file at `path`, as one thread or as
/// the CTA `shape` gives.
pub fn load(spec: &Spec, path: &Path, func: Option<&str>, shape: Shape) -> Result<PtxFunction> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    Ok(match shape.cta() {
        Some(cta) => {
            semfuzz_ptx::load_cta(spec, &name, &text, func, semfuzz_ptx::DEFAULT_UNROLL, cta)?
        }
        None => semfuzz_ptx::load(spec, &name, &text, func)?,
    })
}

/// The evaluator asked for; by default the JIT for one thread and the interpreter for a CTA.
/// A CTA's program is large and Cranelift's register allocation grows faster than linearly
/// in it: Triton's softmax as 128 threads at `--ctaid 0`, 21,926 ops, compiles in about 2 s and
/// then runs some 6× as many rows per second as the interpreter, which starts at once, so the
/// JIT wins only past some 20,000 rows; with `%ctaid` an input it is 735,788 ops, beyond minutes
/// (docs/cta.md, docs/BENCHMARKS.md "A CTA").
fn evaluator_for(f: &PtxFunction, asked: Option<EvaluatorKind>) -> EvaluatorKind {
    asked.unwrap_or(if f.cta.is_some() {
        EvaluatorKind::Interp
    } else {
        EvaluatorKind::Jit
    })
}

/// An argument as written: a hex bit pattern, or a decimal exact in the format of a
/// floating-point parameter.
fn parse_arg(slot: &Slot, text: &str) -> Result<u64, Diagnostic> {
    let what = format!("argument {}", slot.name);
    match slot.kind {
        PartKind::Float(f) if !text.starts_with("0x") && !text.starts_with("0X") => {
            crate::operand::decimal_bits(f, &format_name(f), text).map_err(|e| {
                let d = Diagnostic::plain(format!("{what}: {}", e.message));
                match e.hint {
                    Some(h) => d.with_hint(h),
                    None => d,
                }
            })
        }
        _ => parse_hex(text, slot.width, &what),
    }
}

fn format_name(f: Format) -> String {
    format!("f{}", f.width())
}

fn parse_args(f: &PtxFunction, args: &[String]) -> Result<Vec<u64>, Diagnostic> {
    if args.len() != f.inputs.len() {
        return Err(Diagnostic::plain(format!(
            "`{}` takes {} argument{}, but {} {} given",
            f.name,
            f.inputs.len(),
            if f.inputs.len() == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { "was" } else { "were" }
        ))
        .with_hint(format!("its inputs, in order: {}", input_names(f))));
    }
    let inputs: Vec<u64> = f
        .inputs
        .iter()
        .zip(args)
        .map(|(slot, text)| parse_arg(slot, text))
        .collect::<Result<_, _>>()?;
    // A kernel's special registers must place a thread of some launch of it; a CTA's threads
    // are placed already, its own place in the grid is the input.
    let special = |r: &str| f.inputs.iter().position(|s| s.name == r).map(|k| inputs[k]);
    let cta_place = |r: &str| match f.cta {
        Some(cta) => cta.special_register(r, 0).or(special(r)).or(Some(0)),
        None => special(r),
    };
    if special(launch::SPECIAL_REGISTERS[0]).is_some() || special("%nctaid.x").is_some() {
        if let Some(why) = f.launch.violation(|r| cta_place(r).unwrap_or(0)) {
            return Err(Diagnostic::plain(format!(
                "no thread of a launch of `{}` sees these special registers: {why}",
                f.name
            ))
            .with_hint(
                "each %tid is below its %ntid, each %ctaid below its %nctaid, %ntid within the \
                 kernel's .reqntid/.maxntid, and %laneid the thread's linear index modulo 32",
            ));
        }
    }
    Ok(inputs)
}

fn input_names(f: &PtxFunction) -> String {
    f.inputs
        .iter()
        .map(|s| format!("{} ({} bits)", s.name, s.width))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `semfuzz eval-ptx FILE [--func NAME] [--evaluator jit|interp] ARG...`.
pub fn eval(
    spec: &Spec,
    path: &Path,
    func: Option<&str>,
    args: &[String],
    evaluator: Option<EvaluatorKind>,
    shape: Shape,
) -> Result<()> {
    let f = load(spec, path, func, shape)?;
    let evaluator = evaluator_for(&f, evaluator);
    let inputs = parse_args(&f, args)?;
    let mut ev = Evaluator::of_kind(&f.program, evaluator);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    outln!(
        "{} ({}: {} instructions, {} ops; {} evaluator)",
        f.name,
        path.display(),
        f.instructions,
        f.program.ops.len(),
        ev.kind().name()
    );
    for (slot, bits) in f.inputs.iter().zip(&inputs) {
        outln!("  {} = {}", slot.name, describe(slot.kind, *bits));
    }
    for (slot, a) in f.results.iter().zip(&out) {
        outln!("  {} = {}", slot.name, describe_accept(slot.kind, a));
    }
    // A function with loops is read unrolled: its last part says whether this input stayed
    // within the bound (`semfuzz_ptx::BOUNDED`).
    if let (Some(n), Some(Accept::Exact(0))) = (f.unrolled, out.last()) {
        outln!(
            "note: this input runs a loop more than {n} times, the bound semfuzz unrolls loops to: the results above are not the function's"
        );
    }
    if ev.met_open_choice() {
        // Which choices were open: the interpreter keeps every choice's set of the row.
        let mut interp = semfuzz_spec::eval::Evaluator::new(&f.program);
        interp.eval(&inputs, &mut out);
        let sites: Vec<String> = (0..f.program.choices.len())
            .filter(|k| !matches!(interp.choice_set(*k), Accept::Exact(_)))
            .map(|k| f.choice_sites[k].clone())
            .collect();
        outln!(
            "note: the results above follow the default choice of {}, which the ISA leaves open and a later instruction reads; other choices may give other results (`semfuzz check-ptx` decides any result with Z3)",
            sites.join(", ")
        );
    }
    Ok(())
}

/// `semfuzz check-ptx FILE [--func NAME] [--evaluator jit|interp] [LINES|-]`: lines
/// `ARG... RESULT...`.
#[allow(clippy::too_many_arguments)]
pub fn check(
    spec: &Spec,
    path: &Path,
    func: Option<&str>,
    lines: Option<&Path>,
    quiet: bool,
    evaluator: Option<EvaluatorKind>,
    gpu: Option<&str>,
    shape: Shape,
) -> Result<bool> {
    let f = load(spec, path, func, shape)?;
    let evaluator = evaluator_for(&f, evaluator);
    if f.cta.is_some() && gpu.is_some() {
        anyhow::bail!(
            "check-ptx --backend runs a function as one thread on the GPU; --threads is checked against the spec only"
        );
    }
    let (name, text) = match lines {
        Some(p) if p != Path::new("-") => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .read_to_string(&mut text)
                .context("cannot read standard input")?;
            ("<stdin>".to_string(), text)
        }
    };
    let file = SourceFile::new(name, text);
    let ev = Evaluator::of_kind(&f.program, evaluator);
    let (mut passed, mut failed) = (0usize, 0usize);
    let ran = match gpu {
        Some(device) => Some(run_on_gpu(&f, path, device, &file.text)?),
        None => None,
    };
    // The GPU's results are appended: the line printed back is one `check-ptx` reads.
    let lines: Vec<(usize, String)> = file
        .text
        .lines()
        .enumerate()
        .filter_map(|(n, raw)| {
            let content = raw.split('#').next().unwrap_or("").trim();
            match &ran {
                _ if content.is_empty() => None,
                None => Some((n, content.to_string())),
                Some((_, results)) => Some((n, format!("{content} {}", results[&n]))),
            }
        })
        .collect();
    let who = ran.as_ref().map(|(who, _)| who);
    for chunk in lines.chunks(LINES_PER_ROUND) {
        for ((n, line), problems) in chunk.iter().zip(check_lines(&f, &ev, chunk)) {
            match (problems, who) {
                (Ok(problems), _) if problems.is_empty() => {
                    passed += 1;
                    if !quiet {
                        match who {
                            Some(who) => outln!("{line}  # {who}: ok"),
                            None => outln!("ok"),
                        }
                    }
                }
                (Ok(problems), Some(who)) => {
                    failed += 1;
                    outln!("{line}  # {who}: mismatch: {}", problems.join("; "));
                }
                (Ok(problems), None) => {
                    failed += 1;
                    outln!("mismatch: line {}: {line}: {}", n + 1, problems.join("; "));
                }
                (Err(mut d), _) => {
                    failed += 1;
                    d.message = format!("line {}: {}", n + 1, d.message);
                    outln!("{d}");
                }
            }
        }
    }
    outln!(
        "{passed} passed, {failed} failed ({} evaluator)",
        ev.kind().name()
    );
    Ok(failed == 0)
}

/// How many lines `check-ptx` judges between two prints of its verdicts: a CTA's row takes
/// 0.1 ms in the interpreter, so a round is under a second and progress shows.
const LINES_PER_ROUND: usize = 4096;

/// The problems of each of `lines`, judged by as many workers as the machine has cores, each
/// with its own sibling of `ev` (a CTA's rows are independent; the compiled code is shared).
fn check_lines(
    f: &PtxFunction,
    ev: &Evaluator,
    lines: &[(usize, String)],
) -> Vec<Result<Vec<String>, Diagnostic>> {
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(lines.len().div_ceil(MIN_LINES_PER_WORKER))
        .max(1);
    let share = lines.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(share)
            .map(|part| {
                let mut ev = ev.sibling();
                scope.spawn(move || {
                    let mut out = vec![Accept::default(); ev.n_parts()];
                    part.iter()
                        .map(|(_, line)| check_line(f, &mut ev, &mut out, line))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a check-ptx worker does not panic"))
            .collect()
    })
}

/// Below this many lines a second worker costs more than it saves.
const MIN_LINES_PER_WORKER: usize = 64;

/// Runs every line's arguments through the function on the GPU `device` (`cuda` or
/// `cuda:N`) in one launch; returns the device's name and, by line index, its results as hex
/// words of the results' widths.
fn run_on_gpu(
    f: &PtxFunction,
    path: &Path,
    device: &str,
    lines: &str,
) -> Result<(String, std::collections::HashMap<usize, String>)> {
    let ordinal = match device.split_once(':') {
        None if device == "cuda" => None,
        Some(("cuda", n)) => Some(n),
        _ => anyhow::bail!(
            "--backend {device}: check-ptx runs a function on a GPU: write `cuda` or `cuda:N`"
        ),
    };
    let module =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::new();
    let mut at = Vec::new();
    for (n, raw) in lines.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let words: Vec<String> = content.split_whitespace().map(String::from).collect();
        if words.len() != f.inputs.len() {
            anyhow::bail!(
                "line {}: `{}` takes {} arguments ({}); with --backend the GPU computes the results, so write only those",
                n + 1,
                f.name,
                f.inputs.len(),
                input_names(f)
            );
        }
        rows.push(parse_args(f, &words).map_err(|d| anyhow::anyhow!("line {}: {d}", n + 1))?);
        at.push(n);
    }
    let (who, results) = semfuzz_cuda::call_function(ordinal, &module, &f.name, &rows)
        .map_err(|why| anyhow::anyhow!("{device}: {why}"))?;
    if results.first().is_some_and(|r| r.len() != f.results.len()) {
        anyhow::bail!(
            "`{}` returns {} values on the GPU, but semfuzz reads {} results",
            f.name,
            results[0].len(),
            f.results.len()
        );
    }
    let text = at
        .into_iter()
        .zip(results)
        .map(|(n, words)| {
            let hex: Vec<String> = f
                .results
                .iter()
                .zip(words)
                .map(|(slot, w)| {
                    format!(
                        "{:#0d$x}",
                        w & semfuzz_spec::ir::mask(slot.width),
                        d = 2 + slot.width.div_ceil(4) as usize
                    )
                })
                .collect();
            (n, hex.join(" "))
        })
        .collect();
    Ok((who.name, text))
}

/// The problems of one line (none when the function may produce its results).
fn check_line(
    f: &PtxFunction,
    ev: &mut Evaluator,
    out: &mut [Accept],
    content: &str,
) -> Result<Vec<String>, Diagnostic> {
    let words: Vec<String> = content.split_whitespace().map(String::from).collect();
    let (ni, nr) = (f.inputs.len(), f.results.len());
    if words.len() != ni + nr {
        return Err(Diagnostic::plain(format!(
            "`{}` takes {ni} argument{} and gives {nr} result{}, but the line has {} value{}",
            f.name,
            if ni == 1 { "" } else { "s" },
            if nr == 1 { "" } else { "s" },
            words.len(),
            if words.len() == 1 { "" } else { "s" }
        ))
        .with_hint(format!(
            "write the arguments ({}), then the results ({})",
            input_names(f),
            f.results
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let inputs = parse_args(f, &words[..ni])?;
    let results: Vec<u64> = f
        .results
        .iter()
        .zip(&words[ni..])
        .map(|(slot, w)| parse_hex(w, slot.width, &format!("result {}", slot.name)))
        .collect::<Result<_, _>>()?;
    ev.eval(&inputs, out);
    let problems: Vec<String> = f
        .results
        .iter()
        .zip(out.iter())
        .zip(&results)
        .filter(|((_, a), bits)| !a.accepts(**bits))
        .map(|((slot, a), bits)| {
            format!(
                "{} = {}, but the spec allows {} [{}]",
                slot.name,
                describe(slot.kind, *bits),
                describe_accept(slot.kind, a),
                classify(slot.kind, a, *bits)
            )
        })
        .collect();
    if problems.is_empty() || !ev.met_open_choice() {
        return Ok(problems);
    }
    // The evaluator followed one choice; another may give what was observed.
    Ok(
        match reachable(&f.program, &inputs, &results, REACH_TIMEOUT_MS) {
            Reach::Reachable => Vec::new(),
            Reach::Unreachable => problems
                .into_iter()
                .map(|p| format!("{p}, and no other choice the ISA leaves open gives it (Z3)"))
                .collect(),
            Reach::Unknown => problems
                .into_iter()
                .map(|p| format!("{p}; whether another choice gives it is unknown (Z3 timed out)"))
                .collect(),
            Reach::Unbounded => problems
                .into_iter()
                .map(|p| format!("{p}; whether another choice gives it is unknown (an approximation on its way, such as ex2.approx or rsqrt.approx, has no bound Z3 can state)"))
                .collect(),
        },
    )
}
