//! Translation validation of compilers to PTX: each IR function is compiled for each target
//! (llvmlite's LLVM through its target machine, an `llc` binary, Triton's trunk LLVM, or
//! NVIDIA's libNVVM), the PTX function it becomes is read with `semfuzz-ptx`, the IR function
//! with `semfuzz-llir`, and the rule `@f.ll:FUNC d, a, b => @f-sm_XX.ptx:FUNC d, a, b` (the
//! PTX refines the IR: every result the PTX may produce is one the IR allows, for every input)
//! is posed to the prover `semfuzz prove` uses, on its default route. A counterexample is
//! confirmed by both evaluators and recomputed in exact arithmetic ([`independent`]), and
//! becomes a bug report a maintainer can replay ([`repro`]).
//!
//! The CLI's `validate-llc`, the service's workers and the tests call this crate: [`units`]
//! reads the functions asked for, [`Compiler::compile`] compiles them, [`validate`] judges one
//! function at one target, [`stored`] turns a verdict into what the service keeps.
//!
//! Without files, the built-in catalogue ([`catalogue`]) is validated. A spelling is skipped
//! at a target where its PTX is that of a stricter spelling of the same operation × type
//! already validated there: the `fast` spelling's IR allows at least what the plain one allows
//! (a fast-math flag only adds results, docs/llvm-ir-spec.md), so the stricter proof covers it.
//! The denormal spelling is always validated: preserve-sign inputs *must* be read as zero, so
//! it allows different results.

pub mod campaign;
pub mod catalogue;
pub mod compile;
pub mod fold;
pub mod independent;
pub mod nvcc;
pub mod repro;

pub use compile::Compiler;

use anyhow::{anyhow, Result};
use semfuzz_service::model::NewLlcVerdict;
use semfuzz_smt::rules;
use semfuzz_smt::sequence;
use semfuzz_smt::solve::{Answer, Options};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::ir::{PartKind, Slot};
use semfuzz_spec::outcome::{describe, describe_accept, Accept};
use semfuzz_spec::Spec;
use std::path::{Path, PathBuf};

/// Every target LLVM's NVPTX back end knows of that semfuzz validates by default.
pub const TARGETS: &str = "sm_50,sm_60,sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120";

/// One function to validate.
pub struct Unit {
    /// The IR function's name.
    pub func: String,
    /// The module it is in (a key of the compiled output).
    pub module: String,
    /// The `.ll` file it was read from.
    pub ll: PathBuf,
    /// The `.ll` file compiled and judged: the function's minimal module
    /// ([`semfuzz_llir::minimal`]), what a bug report carries.
    pub compiled: PathBuf,
    /// The function's name in `compiled` (`f`).
    pub short: String,
    /// The catalogue's operation × type it spells (`fadd_f32`), for deduplication; `None` for
    /// functions of files.
    pub group: Option<String>,
}

/// A verdict of one function at one target.
#[derive(Clone)]
pub struct Verdict {
    /// `proved`, `counterexample`, `unknown` or `unsupported`.
    pub kind: &'static str,
    /// Why, for `unknown` and `unsupported`.
    pub detail: String,
    pub seconds: f64,
    /// A counterexample, confirmed or not.
    pub counterexample: Option<Counterexample>,
    /// What folding the function with the same LLVM found (`--fold`).
    pub fold: Option<fold::FoldSummary>,
}

/// Inputs on which the PTX returns what the IR does not allow.
#[derive(Clone)]
pub struct Counterexample {
    inputs: Vec<CexInput>,
    parts: Vec<CexPart>,
    /// Both evaluators agree with the solver.
    confirmed: bool,
    /// The PTX's result follows a pick of a value the ISA leaves open (an unspecified NaN, an
    /// approximation within its bound) that a later instruction reads: a GPU computes one
    /// pick, maybe not this one.
    target_picked: bool,
    /// Whether the PTX can compute it at all is undecided ([`sequence::Confirmation`]).
    target_undecided: bool,
    /// The command that compiled it.
    command: String,
    /// The tool the command runs (`llc`, `nvcc`), which the printed line names.
    tool: &'static str,
}

/// One input of a counterexample.
#[derive(Clone)]
struct CexInput {
    name: String,
    bits: u64,
    /// The bits read in the input's type.
    value: String,
}

/// One result part of a counterexample.
#[derive(Clone)]
struct CexPart {
    name: String,
    /// How its bits read.
    kind: PartKind,
    /// What the IR allows.
    source: Accept,
    /// What the IR allows, described.
    allows: String,
    /// What the PTX computes, described.
    computes: String,
    bits: u64,
}

impl Counterexample {
    /// The lines printed under the verdict's line.
    pub fn lines(&self, compiler: &str) -> Vec<String> {
        let mut lines: Vec<String> = self
            .inputs
            .iter()
            .map(|i| format!("    {} = {}", i.name, i.value))
            .collect();
        for p in &self.parts {
            lines.push(format!(
                "    {}: the IR allows {}; the PTX computes {}",
                p.name, p.allows, p.computes
            ));
        }
        lines.push(if self.confirmed {
            "    confirmed by both evaluators (the IR spec's and the PTX spec's)".into()
        } else if self.target_undecided {
            "    NOT confirmed: the PTX reaches this value through an approximation whose bound the solver leaves free (rsqrt.approx, ex2.approx), and whether a pick within the ISA's bound reaches it is undecided".into()
        } else {
            "    NOT confirmed by the evaluators: a semfuzz bug, please report it".into()
        });
        if self.target_picked {
            lines.push(
                "    the PTX's value follows one pick of a value the ISA leaves open (an unspecified NaN, an approximation within its bound) that a later instruction reads: a GPU computes one pick and may not return this one; run the PTX on one (`check-ptx --backend cuda`) before calling it a bug".into(),
            );
        }
        lines.push(format!("    {}: {} ({compiler})", self.tool, self.command));
        lines
    }
}

/// What `validate-llc` was asked.
#[derive(Clone)]
pub struct Args {
    /// `.ll` files (none: the built-in catalogue).
    pub files: Vec<PathBuf>,
    /// `llvmlite`, an llc name or a path, or `all`.
    pub llc: String,
    /// Targets, comma-separated.
    pub sms: String,
    /// Where to write the verdicts as JSON.
    pub json: Option<PathBuf>,
    /// Where the `.ll` and `.ptx` files go.
    pub work: PathBuf,
    /// Where each counterexample's reproducer directory goes.
    pub repro: Option<PathBuf>,
    /// Only the catalogue functions whose names match one of these patterns.
    pub only: Vec<String>,
    /// Fold each function at this many boundary inputs (0: not at all).
    pub fold: usize,
    /// Validate each file at the configurations of its own `RUN:` lines ([`run_lines`]).
    pub run_lines: bool,
}

/// One function's verdict at one target with one compiler, as the totals count it.
pub struct Cell {
    /// The IR function.
    pub func: String,
    /// The target.
    pub sm: String,
    /// `proved`, `counterexample`, `unknown` or `unsupported`.
    pub kind: &'static str,
    /// Why, for `unknown` and `unsupported`.
    pub detail: String,
}

impl Cell {
    /// An `unsupported` cell that no compile was needed for.
    pub fn unsupported(func: &str, sm: &str, why: &str) -> Cell {
        Cell {
            func: func.to_string(),
            sm: sm.to_string(),
            kind: "unsupported",
            detail: why.to_string(),
        }
    }
}

/// The compilers `--llc` names: one, or `all` this machine has.
pub fn compilers(llc: &str) -> Result<Vec<Compiler>> {
    if llc == "all" {
        Compiler::all()
    } else {
        Ok(vec![Compiler::named(llc)?])
    }
}

/// The targets of `--sm` (`sm_70,sm_90`).
pub fn targets(sms: &str) -> Result<Vec<String>> {
    let sms: Vec<String> = sms
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if let Some(bad) = sms.iter().find(|s| {
        s.as_str() != compile::DEFAULT_CPU
            && !s
                .strip_prefix("sm_")
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
    }) {
        return Err(anyhow!(
            "--sm: `{bad}` is not a target (write sm_70, sm_90a, ..., or `{}` for LLVM's own default)",
            compile::DEFAULT_CPU
        ));
    }
    Ok(sms)
}

/// A verdict as the service stores it (`--report`, a worker's `validate-llc` unit), with the
/// bug report of a confirmed counterexample (its command replayed in a directory under
/// `ptx_dir`); with `repro`, also that counterexample's reproducer directory, written into
/// `repro` and returned.
pub fn stored(
    u: &Unit,
    sm: &str,
    compiled: &Result<String, String>,
    compiler: &Compiler,
    v: &Verdict,
    ptx_dir: &Path,
    repro: Option<&Path>,
) -> Result<(NewLlcVerdict, Option<PathBuf>)> {
    let mut report = String::new();
    let mut reproducer = None;
    if let (Some(c), Ok(ptx_text)) = (&v.counterexample, compiled) {
        if c.confirmed {
            // The module in the spelling the compiler read: what a maintainer's `llc` reads.
            let ll_text = compiler.adapt(&std::fs::read_to_string(&u.compiled)?);
            let case = repro::Case {
                func: &u.func,
                short: &u.short,
                sm,
                ll_text: &ll_text,
                ptx_text,
                compiler,
            };
            let replay = case.replay(&ptx_dir.join("replay").join(format!("{}-{sm}", u.module)))?;
            report = repro::report(&case, c, &replay);
            if let Some(dir) = repro {
                reproducer = Some(repro::write(dir, &case, v, c, &replay)?);
            }
        }
    }
    let new = NewLlcVerdict {
        llvm: compiler.llvm(),
        compiler: compiler.label(),
        function: u.func.clone(),
        target: sm.to_string(),
        verdict: v.kind.to_string(),
        detail: v.detail.clone(),
        counterexample: v
            .counterexample
            .as_ref()
            .map(|c| c.lines(&compiler.label()).join("\n"))
            .unwrap_or_default(),
        report,
        seconds: v.seconds,
    };
    Ok((new, reproducer))
}

/// The functions to validate and the modules to compile (name, file, text).
#[allow(clippy::type_complexity)]
pub fn units(args: &Args, work: &Path) -> Result<(Vec<Unit>, Vec<(String, PathBuf, String)>)> {
    let mut modules = Vec::new();
    let mut units = Vec::new();
    if args.files.is_empty() {
        // A name is itself; a glob (`fadd_*`) is matched over the whole name.
        let patterns = args
            .only
            .iter()
            .map(|p| {
                semfuzz_spec::pattern::Pattern::parse(p)
                    .map(|pattern| (p.as_str(), pattern))
                    .map_err(|e| anyhow!("--only: {}", e.message))
            })
            .collect::<Result<Vec<_>>>()?;
        let is_glob = |p: &str| p.contains(['*', '?', '[']);
        for f in catalogue::functions() {
            let chosen = patterns.is_empty()
                || patterns
                    .iter()
                    .any(|(text, p)| *text == f.name || (is_glob(text) && p.matches(&f.name)));
            if !chosen {
                continue;
            }
            let ll = work.join(format!("{}.ll", f.name));
            std::fs::write(&ll, &f.text)?;
            let module =
                semfuzz_llir::parse(&SourceFile::new(ll.display().to_string(), f.text.as_str()))?;
            let func = module
                .functions
                .iter()
                .find(|m| m.name == f.name)
                .ok_or_else(|| anyhow!("catalogue function {} is not in its module", f.name))?;
            let (unit, text) = minimal_unit(work, &f.name, &module, func, &ll, Some(f.group))?;
            modules.push((unit.module.clone(), unit.compiled.clone(), text));
            units.push(unit);
        }
        if units.is_empty() {
            return Err(anyhow!(
                "--only {}: no catalogue function matches\n  hint: names are OP_TYPE[_fast|_ftz] (fadd_f32, fma_v2f16_ftz, fptrunc_f16_f32); globs like 'fadd_*' work",
                args.only.join(",")
            ));
        }
        return Ok((units, modules));
    }
    for f in &args.files {
        let text =
            std::fs::read_to_string(f).map_err(|e| anyhow!("cannot read {}: {e}", f.display()))?;
        let ll = std::fs::canonicalize(f)?;
        let module = semfuzz_llir::parse(&SourceFile::new(f.display().to_string(), text.as_str()))?;
        let stem = f
            .file_stem()
            .map_or("module".into(), |s| s.to_string_lossy().into_owned());
        // Each function compiled alone, in its minimal module: a function the back end cannot
        // select fails only itself.
        for func in &module.functions {
            let key = format!("{stem}.{}", func.name);
            let (unit, text) = minimal_unit(work, &key, &module, func, &ll, None)?;
            modules.push((unit.module.clone(), unit.compiled.clone(), text));
            units.push(unit);
        }
    }
    Ok((units, modules))
}

/// The unit of `func` of `module` (read from `ll`), compiled as its minimal module, written to
/// `work/KEY.min.ll`; with that module's text.
fn minimal_unit(
    work: &Path,
    key: &str,
    module: &semfuzz_llir::Module,
    func: &semfuzz_llir::syntax::Function,
    ll: &Path,
    group: Option<String>,
) -> Result<(Unit, String)> {
    let min = semfuzz_llir::minimal(module, func);
    let text = min.to_string().trim_start().to_string();
    let compiled = work.join(format!("{key}.min.ll"));
    std::fs::write(&compiled, &text)
        .map_err(|e| anyhow!("cannot write {}: {e}", compiled.display()))?;
    let unit = Unit {
        func: func.name.clone(),
        module: key.to_string(),
        ll: ll.to_path_buf(),
        compiled,
        short: min.functions[0].name.clone(),
        group,
    };
    Ok((unit, text))
}
/// What a proof with loops says: that it covers the inputs on which each loop of either side
/// runs at most `n` times per entry (docs/llc-validation.md, "Loops").
fn unrolled_detail(n: u32) -> String {
    format!("loops unrolled to {n} iterations")
}

/// A rule variable's name for parameter `k` of slot `s`: the IR name where it is one.
fn var_name(s: &Slot, k: usize) -> String {
    // A special register as the launch names it: `%tid.x` is `tid_x`.
    if semfuzz_spec::launch::SPECIAL_REGISTERS.contains(&s.name.as_str()) {
        return s.name.trim_start_matches('%').replace('.', "_");
    }
    let n = s.name.trim_start_matches('%');
    if n.starts_with(|c: char| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && n != "d"
    {
        n.to_string()
    } else {
        format!("x{k}")
    }
}

/// What a verdict on a function with memory assumes of its pointer arguments
/// (docs/llc-validation.md, "Memory").
fn memory_assumption(ir: &semfuzz_llir::IrFunction) -> String {
    let bytes = ir.layout.block_bytes;
    let align = semfuzz_spec::memory::BLOCK_ALIGN;
    let shared = &ir.overlapping;
    let pointers = ir.inputs.iter().any(|s| s.name.starts_with("[%"));
    let mut parts = Vec::new();
    if pointers && shared.is_empty() {
        let why = if ir.layout.aliasing.is_empty() {
            ""
        } else {
            " (--may-alias: no two accessed that may overlap, `noalias` ones never)"
        };
        parts.push(format!(
            "pointer arguments distinct{why}, {bytes} bytes each, {align}-byte aligned"
        ));
    } else if pointers {
        let name = |n: &u16| ir.inputs[usize::from(*n)].name.clone();
        let names: Vec<String> = shared.iter().map(name).collect();
        let within = u64::from(bytes) * (shared.len() as u64 - 1);
        parts.push(format!(
            "pointer arguments {} may overlap (--may-alias): each within {within} bytes of {}, which is {align}-byte aligned; any other distinct; blocks {bytes} bytes each",
            names.join(", "),
            names[0],
        ));
    }
    let globals = ir.layout.globals.as_deref().unwrap_or_default();
    if !globals.is_empty() {
        let named: Vec<String> = globals
            .iter()
            .map(|(n, b)| format!("@{n} ({b} bytes)"))
            .collect();
        parts.push(format!(
            "module variables {} start with any contents",
            named.join(", ")
        ));
    }
    parts.push("accesses aligned as the IR states".into());
    format!("assuming {}", parts.join("; "))
}

/// Validates one function at one target: reads its PTX (written into `ptx_dir`) and its IR, and
/// proves the refinement; with a folder, also folds it at the given number of boundary inputs.
#[allow(clippy::too_many_arguments)]
pub fn validate(
    spec: &Spec,
    u: &Unit,
    sm: &str,
    compiled: &Result<String, String>,
    ptx_dir: &Path,
    compiler: &Compiler,
    opts: &Options,
    folder: Option<(&semfuzz_llvm::Folder, usize)>,
) -> Result<Verdict> {
    let unsupported = |detail: String| Verdict {
        kind: "unsupported",
        detail,
        seconds: 0.0,
        counterexample: None,
        fold: None,
    };
    let located = |d: &semfuzz_spec::Diagnostic| match &d.span {
        Some(s) => {
            let (line, col) = s.file.line_col(s.start);
            let file = Path::new(&s.file.name)
                .file_name()
                .map_or(s.file.name.clone(), |f| f.to_string_lossy().into_owned());
            // The verdict already says `unsupported`.
            let what = d.message.strip_prefix("unsupported ").unwrap_or(&d.message);
            format!("{what} at {file}:{line}:{col}")
        }
        None => d.message.clone(),
    };
    let ptx_text = match compiled {
        Ok(p) => p,
        Err(why) => return Ok(unsupported(format!("{}: {why}", compiler.label()))),
    };
    let ptx_path = ptx_dir.join(format!("{}-{sm}.ptx", u.module));
    std::fs::write(&ptx_path, ptx_text)?;
    let text = std::fs::read_to_string(&u.ll)?;
    let unroll = opts.unroll.unwrap_or(semfuzz_llir::DEFAULT_UNROLL);
    let mut licences = semfuzz_llir::Licences::from_llc_flags(&compiler.flags);
    // LLVM 14-19 were measured to read the attribute (`div.approx.f32`, a contracted `fma`),
    // LLVM 22 and trunk not; 20 and 21 are given the benefit of the doubt, which widens what
    // the IR allows and so can only withhold a claim (docs/ambiguities.md 185).
    licences.unsafe_fp_math_attribute = compiler.is_llvm() && compiler.major() < 22;
    let ir = match semfuzz_llir::load_licensed(
        spec,
        &u.ll.display().to_string(),
        &text,
        Some(&u.func),
        unroll,
        &licences,
        opts.may_alias,
    ) {
        Ok(f) => f,
        Err(d) => return Ok(unsupported(located(&d))),
    };
    let ptx = match semfuzz_ptx::load_with_blocks(
        spec,
        &ptx_path.display().to_string(),
        ptx_text,
        Some(&u.short),
        unroll,
        &ir.layout,
    ) {
        Ok(f) => f,
        Err(d) => return Ok(unsupported(format!("PTX: {}", located(&d)))),
    };
    let widths = |s: &[Slot]| s.iter().map(|s| s.width).collect::<Vec<_>>();
    // A parameter may be wider than the IR's argument: a subword scalar promoted to a `.b32`
    // holds it in its low bits (the rule's step reads it so).
    // A return parameter may likewise be wider than the IR's result: the caller reads its low
    // bits (docs/ambiguities.md 110).
    let holds = |ir: &Slot, ptx: &Slot| ir.width <= ptx.width;
    // A declared function's call results and arguments (`@callee#N`, both readers) pair up
    // by name, never by position alone.
    let calls = |slots: &[Slot]| -> Vec<(usize, String)> {
        let all = slots.iter().enumerate();
        all.filter(|(_, s)| s.name.starts_with('@'))
            .map(|(k, s)| (k, s.name.clone()))
            .collect()
    };
    for (i, p) in [(&ir.inputs, &ptx.inputs), (&ir.results, &ptx.results)] {
        let (i, p) = (calls(i), calls(p));
        if i != p {
            let names = |c: &[(usize, String)]| {
                let n: Vec<&str> = c.iter().map(|(_, n)| n.as_str()).collect();
                format!("[{}]", n.join(", "))
            };
            return Ok(unsupported(format!(
                "the PTX's calls of declared functions {} are not the IR's {}",
                names(&p),
                names(&i)
            )));
        }
    }
    let all_hold = |ir: &[Slot], ptx: &[Slot]| {
        ir.len() == ptx.len() && ir.iter().zip(ptx).all(|(i, p)| holds(i, p))
    };
    if !all_hold(&ir.inputs, &ptx.inputs) || !all_hold(&ir.results, &ptx.results) {
        return Ok(unsupported(format!(
            "the PTX takes {:?} bits and returns {:?}, the IR {:?} and {:?}",
            widths(&ptx.inputs),
            widths(&ptx.results),
            widths(&ir.inputs),
            widths(&ir.results)
        )));
    }
    let vars: Vec<String> = ir
        .inputs
        .iter()
        .enumerate()
        .map(|(k, s)| var_name(s, k))
        .collect();
    // The blocks' alignment the verdict states is a precondition on their pointers: a target
    // that rounds an address down (`and.b64 %rd1, %rd2, -4`, the 32-bit CAS loop LLVM writes
    // for a 16-bit atomic) then stays in its block. A region's is on the pointer it is placed
    // around (`[%p-16+0..8]`); the others in it point anywhere in it.
    let aligned: Vec<String> = ir
        .inputs
        .iter()
        .zip(&vars)
        .filter(|(s, _)| {
            ir.inputs.iter().any(|b| {
                b.name == format!("[{}+0..8]", s.name)
                    || b.name.starts_with(&format!("[{}-", s.name))
            })
        })
        .map(|(_, v)| {
            let bits = semfuzz_spec::memory::BLOCK_ALIGN.trailing_zeros();
            format!("{v}[{}:0] == 0", bits - 1)
        })
        .collect();
    // A kernel's special registers are bounded by its launch in the query itself
    // (semfuzz_smt::sequence), as for any rule with a kernel on its source side.
    let pre = if aligned.is_empty() {
        String::new()
    } else {
        format!("pre: {}\n", aligned.join(" && "))
    };
    let operands = std::iter::once("d".to_string())
        .chain(vars)
        .collect::<Vec<_>>()
        .join(", ");
    // The IR side is the minimal module compiled (read above from the file it came from, for
    // errors located there): what a reproducer carries is what was judged. A function with
    // several results (memory) gets one rule per result (`func/k`), the first that is not
    // proved giving the verdict.
    let n = ir.results.len();
    let licensed = Options {
        licences: licences.clone(),
        ..opts.clone()
    };
    let mut seconds = 0.0;
    let mut proved = None;
    for k in 0..n {
        let which = if n > 1 {
            format!("/{k}")
        } else {
            String::new()
        };
        let rule_text = format!(
            "name: {}-{sm}\n{pre}  @{}:{}{which} {operands}\n=>\n  @{}:{}{which} {operands}\n",
            u.func,
            u.compiled.display(),
            u.short,
            ptx_path.display(),
            u.short
        );
        let file = SourceFile::new(
            ptx_dir.join("validate-llc.rules").display().to_string(),
            rule_text,
        );
        let rule = rules::parse(&file)
            .map_err(|e| anyhow!("{}", e[0]))?
            .remove(0);
        let proof = sequence::prove(spec, &rule, &licensed).map_err(|d| anyhow!("{d}"))?;
        seconds += proof.solved.seconds;
        let done = !matches!(proof.solved.answer, Answer::Proved);
        proved = Some(proof);
        if done {
            break;
        }
    }
    let proof = proved.expect("a function has a result");
    let fold = folder.map(|(folder, count)| {
        let counterexample_row = match &proof.solved.answer {
            Answer::Counterexample(values) => vec![proof
                .query
                .inputs()
                .into_iter()
                .map(|i| {
                    let name = format!("in_{}", proof.query.vars[i].name);
                    values.get(&name).copied().unwrap_or(0)
                })
                .collect()],
            _ => Vec::new(),
        };
        fold::check(
            spec,
            &text,
            &u.func,
            &ptx.program,
            count,
            counterexample_row,
            folder,
        )
    });
    // The bound a loop of either side was unrolled to: a proof covers the inputs both sides
    // run within it, and says so (a counterexample is an input within it, so it stands).
    let unrolled = ir.unrolled.or(ptx.unrolled);
    // What a verdict on memory assumes (docs/llc-validation.md, "Memory").
    let memory = ir
        .results
        .iter()
        .any(|r| r.name == semfuzz_spec::memory::IN_BOUNDS)
        .then(|| memory_assumption(&ir));
    // What the verdict rests on besides the IR: the licences read off the compiler's flags,
    // and the function attributes read as fast-math flags.
    let (unsafe_math, flag_like): (Vec<&String>, Vec<&String>) = ir
        .attributes_read
        .iter()
        .partition(|a| *a == semfuzz_llir::UNSAFE_FP_MATH);
    let attributes = (!flag_like.is_empty()).then(|| {
        let named: Vec<String> = flag_like
            .iter()
            .map(|a| format!("\"{a}\"=\"true\""))
            .collect();
        format!(
            "reading {} as the fast-math flag on every operation (docs/ambiguities.md 183)",
            named.join(", ")
        )
    });
    let unsafe_math = (!unsafe_math.is_empty()).then(|| {
        format!(
            "reading \"unsafe-fp-math\"=\"true\" as {} does: contract, afn, arcp and nsz on every operation, div.approx.f32 for fdiv float (docs/ambiguities.md 185)",
            compiler.label()
        )
    });
    let assumed: Vec<String> = licences
        .describe()
        .filter(|_| ir.licensed)
        .into_iter()
        .chain(attributes)
        .chain(unsafe_math)
        .chain(memory)
        .collect();
    let verdict = |kind, detail: String, counterexample| Verdict {
        kind,
        detail: std::iter::once(detail)
            .filter(|d| !d.is_empty())
            .chain(assumed.iter().cloned())
            .collect::<Vec<_>>()
            .join("; "),
        seconds,
        counterexample,
        fold: fold.clone(),
    };
    Ok(match &proof.solved.answer {
        Answer::Proved => verdict(
            "proved",
            unrolled.map_or(String::new(), unrolled_detail),
            None,
        ),
        Answer::Unknown(why) => verdict("unknown", why.clone(), None),
        Answer::Counterexample(values) => {
            let q = &proof.query;
            let inputs = q
                .shown_inputs(values)
                .into_iter()
                .map(|(name, ty, bits)| CexInput {
                    name,
                    bits,
                    value: spec.describe_operand(&ty, bits),
                })
                .collect();
            let c = proof
                .confirmation
                .as_ref()
                .expect("a counterexample is confirmed");
            let parts = c
                .parts
                .iter()
                .map(|p| CexPart {
                    name: p.name.clone(),
                    kind: p.kind,
                    source: p.source,
                    allows: if c.source_picked {
                        format!(
                            "{} at one pick of its intermediate choices (no pick allows what the PTX computes)",
                            describe_accept(p.kind, &p.source)
                        )
                    } else {
                        describe_accept(p.kind, &p.source)
                    },
                    computes: describe(p.kind, p.target),
                    bits: p.target,
                })
                .collect();
            let confirmed = c.confirmed();
            // The command names the module in the spelling this compiler read (trunk's
            // `denormal_fpenv`), beside the PTX, where that is not the file judged.
            let judged = std::fs::read_to_string(&u.compiled)?;
            let adapted = compiler.adapt(&judged);
            let ll = if adapted == judged {
                u.compiled.clone()
            } else {
                let p = ptx_dir.join(format!("{}.ll", u.module));
                std::fs::write(&p, &adapted)?;
                p
            };
            let cex = Counterexample {
                inputs,
                parts,
                confirmed,
                target_picked: c.target_picked,
                target_undecided: c.target_undecided,
                command: compiler.command(&ll.display().to_string(), "-", sm, &adapted),
                tool: match compiler.llc {
                    compile::Llc::Nvcc => "nvcc",
                    _ => "llc",
                },
            };
            // An unconfirmed counterexample is the prover's or the evaluators' fault, not
            // LLVM's: it is no verdict about the PTX.
            let detail = if c.target_picked {
                "the PTX's value rests on one pick of a value the ISA leaves open".into()
            } else {
                String::new()
            };
            verdict(
                if confirmed {
                    "counterexample"
                } else {
                    "unknown"
                },
                detail,
                Some(cex),
            )
        }
    })
}
