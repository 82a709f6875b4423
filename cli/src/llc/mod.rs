//! `semfuzz validate-llc [FILE.ll ...]`: translation validation of LLVM's NVPTX back end. Each
//! IR function is compiled for each target (llvmlite's LLVM through its target machine, or an
//! `llc` binary; `--llc all`: every one this machine has), the PTX function it becomes is read
//! with `semfuzz-ptx`, the IR function with `semfuzz-llir`, and the rule
//! `@f.ll:FUNC d, a, b => @f-sm_XX.ptx:FUNC d, a, b` (the PTX refines the IR: every result the
//! PTX may produce is one the IR allows, for every input) is posed to the prover `semfuzz prove`
//! uses, on its default route.
//!
//! Without files, the built-in catalogue (`catalogue.rs`) is validated. A spelling is skipped
//! at a target where its PTX is that of a stricter spelling of the same operation × type
//! already validated there: the `fast` spelling's IR allows at least what the plain one allows
//! (a fast-math flag only adds results, docs/llvm-ir-spec.md), so the stricter proof covers it.
//! The denormal spelling is always validated: preserve-sign inputs *must* be read as zero, so
//! it allows different results.

pub mod campaign;
mod catalogue;
mod compile;
mod fold;
mod independent;
mod repro;
pub mod run_lines;

use crate::eval::describe_operand;
use anyhow::{anyhow, Result};
use compile::Compiler;
use semfuzz_service::client::Reporter;
use semfuzz_service::model::NewLlcVerdict;
use semfuzz_smt::rules;
use semfuzz_smt::sequence;
use semfuzz_smt::solve::{Answer, Options};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::ir::{PartKind, Slot};
use semfuzz_spec::outcome::{describe, describe_accept, Accept};
use semfuzz_spec::Spec;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Every target LLVM's NVPTX back end knows of that semfuzz validates by default.
pub const TARGETS: &str = "sm_50,sm_60,sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120";

/// One function to validate.
struct Unit {
    /// The IR function's name.
    func: String,
    /// The module it is in (a key of the compiled output).
    module: String,
    /// The `.ll` file it was read from.
    ll: PathBuf,
    /// The `.ll` file compiled and judged: the function's minimal module
    /// ([`semfuzz_llir::minimal`]), what a bug report carries.
    compiled: PathBuf,
    /// The function's name in `compiled` (`f`).
    short: String,
    /// The catalogue's operation × type it spells (`fadd_f32`), for deduplication; `None` for
    /// functions of files.
    group: Option<String>,
}

/// A verdict of one function at one target.
#[derive(Clone)]
pub struct Verdict {
    /// `proved`, `counterexample`, `unknown` or `unsupported`.
    kind: &'static str,
    /// Why, for `unknown` and `unsupported`.
    detail: String,
    seconds: f64,
    /// A counterexample, confirmed or not.
    counterexample: Option<Counterexample>,
    /// What folding the function with the same LLVM found (`--fold`).
    fold: Option<fold::FoldSummary>,
}

/// Inputs on which the PTX returns what the IR does not allow.
#[derive(Clone)]
pub struct Counterexample {
    inputs: Vec<CexInput>,
    parts: Vec<CexPart>,
    /// Both evaluators agree with the solver.
    confirmed: bool,
    /// The command that compiled it.
    command: String,
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
    fn lines(&self, compiler: &str) -> Vec<String> {
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
        } else {
            "    NOT confirmed by the evaluators: a semfuzz bug, please report it".into()
        });
        lines.push(format!("    llc: {} ({compiler})", self.command));
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

/// One verdict row: the unit, the target, the compiler.
struct Row {
    unit: usize,
    sm: usize,
    compiler: usize,
    verdict: Verdict,
}

/// Validates every function at every target with every compiler asked for (or, with
/// `--run-lines`, at each file's own configurations), posting each compiler's verdicts to the
/// service when `reporter` is given; `Ok(false)` on a counterexample or an unknown.
pub fn run(spec: &Spec, args: &Args, opts: &Options, reporter: Option<&Reporter>) -> Result<bool> {
    if args.run_lines {
        return run_lines::run(spec, args, opts, reporter);
    }
    let cells = validate_all(spec, args, &compilers(&args.llc)?, opts, reporter)?;
    Ok(cells
        .iter()
        .all(|c| matches!(c.kind, "proved" | "unsupported")))
}

/// [`run`]'s work with the given compilers: prints each verdict, each compiler's table and the
/// regression ranges, writes `--json`, and returns every verdict.
fn validate_all(
    spec: &Spec,
    args: &Args,
    compilers: &[Compiler],
    opts: &Options,
    reporter: Option<&Reporter>,
) -> Result<Vec<Cell>> {
    let sms = targets(&args.sms)?;
    std::fs::create_dir_all(&args.work)
        .map_err(|e| anyhow!("cannot create {}: {e}", args.work.display()))?;
    let work = std::fs::canonicalize(&args.work)?;
    let (units, modules) = units(args, &work)?;
    // On a terminal, a bar on stderr with the rate; the verdict lines go above it.
    let bar = indicatif::ProgressBar::new((units.len() * sms.len() * compilers.len()) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} functions×targets  {per_sec}  eta {eta}  {msg}",
        )
        .expect("a valid template"),
    );
    let mut rows = Vec::new();
    let mut skipped = 0;
    for (ci, compiler) in compilers.iter().enumerate() {
        if compilers.len() > 1 {
            bar.suspend(|| outln!("== {} ==", compiler.label()));
        }
        let folder = if args.fold > 0 {
            Some(
                fold::folder_for(compiler)
                    .map_err(|e| anyhow!("--fold: no folder for {}: {e}", compiler.label()))?,
            )
        } else {
            None
        };
        bar.set_message(format!("{}: compiling", compiler.name));
        let ptx = compiler.compile(&modules, &sms)?;
        let mut posted = Vec::new();
        let ptx_dir = work.join(compiler.name.replace('/', "_"));
        std::fs::create_dir_all(&ptx_dir)?;
        for (si, sm) in sms.iter().enumerate() {
            // Per operation × type, the PTX bodies already validated at this target.
            let mut seen: HashSet<(String, String)> = HashSet::new();
            for (ui, u) in units.iter().enumerate() {
                bar.inc(1);
                bar.set_message(format!("{} {sm}", u.func));
                let compiled = &ptx[sm][&u.module];
                if let (Some(g), Ok(text)) = (&u.group, compiled) {
                    // Every compiled function has the same short name.
                    let body = text[text.find(".visible").unwrap_or(0)..].to_string();
                    if !seen.insert((g.clone(), body)) {
                        skipped += 1;
                        continue;
                    }
                }
                let fold = folder.as_ref().map(|f| (f, args.fold));
                let v = validate(spec, u, sm, compiled, &ptx_dir, compiler, opts, fold)?;
                let detail = if v.detail.is_empty() {
                    format!("{:.2}s", v.seconds)
                } else {
                    v.detail.clone()
                };
                bar.suspend(|| outln!("{} {sm}: {} ({detail})", u.func, v.kind));
                if let Some(c) = &v.counterexample {
                    bar.suspend(|| {
                        for l in c.lines(&compiler.label()) {
                            outln!("{l}");
                        }
                    });
                }
                let (new, reproducer) = stored(
                    u,
                    sm,
                    compiled,
                    compiler,
                    &v,
                    &ptx_dir,
                    args.repro.as_deref(),
                )?;
                if let Some(d) = reproducer {
                    bar.suspend(|| outln!("    reproducer: {}", d.display()));
                }
                if let Some(f) = &v.fold {
                    bar.suspend(|| {
                        for l in f.lines() {
                            outln!("{l}");
                        }
                    });
                }
                posted.push(new);
                rows.push(Row {
                    unit: ui,
                    sm: si,
                    compiler: ci,
                    verdict: v,
                });
            }
        }
        bar.suspend(|| table(&units, &sms, &rows, ci));
        if let Some(r) = reporter {
            let delivery = r.llc_verdicts(&posted)?;
            bar.suspend(|| crate::fuzz::report_delivery(r, &delivery));
        }
    }
    bar.finish_and_clear();
    if skipped > 0 {
        outln!("{skipped} skipped (a spelling whose PTX is that of a stricter one)");
    }
    if compilers.len() > 1 {
        ranges(&units, &sms, compilers, &rows);
    }
    if let Some(path) = &args.json {
        let json: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let v = &r.verdict;
                serde_json::json!({
                    "function": units[r.unit].func,
                    "target": sms[r.sm],
                    "verdict": v.kind,
                    "detail": v.detail,
                    "counterexample": v.counterexample.as_ref().map(|c| c.lines(&compilers[r.compiler].label())).unwrap_or_default(),
                    "seconds": v.seconds,
                    "llc": compilers[r.compiler].label(),
                    "fold": v.fold.as_ref().map(|f| serde_json::json!({
                        "counts": f.counts,
                        "examples": f.examples,
                        "error": f.error,
                    })),
                })
            })
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&json)? + "\n")
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    }
    Ok(rows
        .into_iter()
        .map(|r| Cell {
            func: units[r.unit].func.clone(),
            sm: sms[r.sm].clone(),
            kind: r.verdict.kind,
            detail: r.verdict.detail,
        })
        .collect())
}

/// The targets of `--sm` (`sm_70,sm_90`).
fn targets(sms: &str) -> Result<Vec<String>> {
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
fn stored(
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
fn units(args: &Args, work: &Path) -> Result<(Vec<Unit>, Vec<(String, PathBuf, String)>)> {
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

/// One compiler's function × target table and its totals.
fn table(units: &[Unit], sms: &[String], rows: &[Row], compiler: usize) {
    let verdicts: BTreeMap<(usize, usize), &str> = rows
        .iter()
        .filter(|r| r.compiler == compiler)
        .map(|r| ((r.unit, r.sm), r.verdict.kind))
        .collect();
    let width = units.iter().map(|u| u.func.len()).max().unwrap_or(8).max(8);
    let mut head = format!("{:width$}", "function");
    for sm in sms {
        head.push_str(&format!(" {sm:>14}"));
    }
    outln!("{}", head.trim_end());
    for (ui, u) in units.iter().enumerate() {
        let cells: Vec<&str> = (0..sms.len())
            .map(|si| verdicts.get(&(ui, si)).copied().unwrap_or("same PTX"))
            .collect();
        if cells.iter().all(|c| *c == "same PTX") {
            continue;
        }
        let mut line = format!("{:width$}", u.func);
        for c in cells {
            line.push_str(&format!(" {c:>14}"));
        }
        outln!("{}", line.trim_end());
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in verdicts.values() {
        *counts.entry(v).or_default() += 1;
    }
    let totals: Vec<String> = ["proved", "counterexample", "unknown", "unsupported"]
        .iter()
        .map(|k| format!("{} {k}", counts.get(k).copied().unwrap_or(0)))
        .collect();
    outln!("{}", totals.join(", "));
}

/// For each function and target with a counterexample under some LLVM, the versions it
/// appears in and what that makes it: "since ≤ 14, still in 22", "fixed in 19", "since 19".
/// libNVVM is no LLVM version: its verdicts are in its own table only.
fn ranges(units: &[Unit], sms: &[String], compilers: &[Compiler], rows: &[Row]) {
    let mut by_case: BTreeMap<(usize, usize), Vec<(usize, &str)>> = BTreeMap::new();
    for r in rows.iter().filter(|r| compilers[r.compiler].is_llvm()) {
        by_case
            .entry((r.unit, r.sm))
            .or_default()
            .push((r.compiler, r.verdict.kind));
    }
    let mut lines = Vec::new();
    for ((ui, si), mut verdicts) in by_case {
        if !verdicts.iter().any(|(_, k)| *k == "counterexample") {
            continue;
        }
        verdicts.sort_by_key(|(c, _)| compilers[*c].major());
        let versions = |kind: &str| -> Vec<String> {
            verdicts
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(c, _)| compilers[*c].llvm())
                .collect()
        };
        let mut said = vec![format!(
            "counterexample in {}",
            versions("counterexample").join(", ")
        )];
        let proved = versions("proved");
        if !proved.is_empty() {
            said.push(format!("proved in {}", proved.join(", ")));
        }
        lines.push(format!(
            "{} {}: {}: {}",
            units[ui].func,
            sms[si],
            said.join("; "),
            range(&verdicts, compilers)
        ));
    }
    if lines.is_empty() {
        return;
    }
    outln!(
        "regression ranges (LLVM {}):",
        compilers
            .iter()
            .filter(|c| c.is_llvm())
            .map(range_name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    for l in lines {
        outln!("  {l}");
    }
}

/// A compiler's LLVM as a regression range names it: a release by its major version (`19`), a
/// snapshot between releases in full (`24.0.0git (b010a18)`).
fn range_name(c: &Compiler) -> String {
    if c.commit.is_some() {
        c.llvm()
    } else {
        c.major().to_string()
    }
}

/// The history of one function at one target, from its verdicts oldest LLVM first. A fix first
/// seen in a snapshot is bounded by the release before it (`fixed after 22.1, before
/// 24.0.0git (b010a18)`): the snapshot is not a release it is "fixed in".
fn range(verdicts: &[(usize, &str)], compilers: &[Compiler]) -> String {
    let decided: Vec<(&Compiler, bool)> = verdicts
        .iter()
        .filter(|(_, k)| matches!(*k, "proved" | "counterexample"))
        .map(|(c, k)| (&compilers[*c], *k == "counterexample"))
        .collect();
    let (Some(first), Some(last)) = (decided.first(), decided.last()) else {
        return "no other version decided".into();
    };
    let start = decided
        .iter()
        .position(|(_, bad)| *bad)
        .expect("a counterexample");
    let since = if start == 0 {
        format!("since ≤ {}", range_name(first.0))
    } else {
        format!("since {}", range_name(decided[start].0))
    };
    let end = decided
        .iter()
        .rposition(|(_, bad)| *bad)
        .expect("a counterexample");
    if start + 1 == decided.len() {
        // Only the newest LLVM has it.
        return since;
    }
    if last.1 {
        return format!("{since}, still in {}", range_name(last.0));
    }
    let (bad, good) = (decided[end].0, decided[end + 1].0);
    if good.commit.is_some() {
        let major_minor: Vec<&str> = bad.version.split('.').take(2).collect();
        format!(
            "{since}, fixed after {}, before {}",
            major_minor.join("."),
            good.llvm()
        )
    } else {
        format!("{since}, fixed in {}", range_name(good))
    }
}

/// What a proof with loops says: that it covers the inputs on which each loop of either side
/// runs at most `n` times per entry (docs/llc-validation.md, "Loops").
fn unrolled_detail(n: u32) -> String {
    format!("loops unrolled to {n} iterations")
}

/// A rule variable's name for parameter `k` of slot `s`: the IR name where it is one.
fn var_name(s: &Slot, k: usize) -> String {
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

/// Validates one function at one target: reads its PTX (written into `ptx_dir`) and its IR, and
/// proves the refinement; with a folder, also folds it at the given number of boundary inputs.
#[allow(clippy::too_many_arguments)]
fn validate(
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
    let ir = match semfuzz_llir::load_unrolled(
        spec,
        &u.ll.display().to_string(),
        &text,
        Some(&u.func),
        unroll,
    ) {
        Ok(f) => f,
        Err(d) => return Ok(unsupported(located(&d))),
    };
    let ptx = match semfuzz_ptx::load_unrolled(
        spec,
        &ptx_path.display().to_string(),
        ptx_text,
        Some(&u.short),
        unroll,
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
    // for a 16-bit atomic) then stays in its block.
    let aligned: Vec<String> = ir
        .inputs
        .iter()
        .zip(&vars)
        .filter(|(s, _)| {
            ir.inputs
                .iter()
                .any(|b| b.name == format!("[{}+0..8]", s.name))
        })
        .map(|(_, v)| {
            let bits = semfuzz_spec::memory::BLOCK_ALIGN.trailing_zeros();
            format!("{v}[{}:0] == 0", bits - 1)
        })
        .collect();
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
        let proof = sequence::prove(spec, &rule, opts).map_err(|d| anyhow!("{d}"))?;
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
        .then(|| {
            format!(
                "assuming pointer arguments distinct, {} bytes each, {}-byte aligned, accesses aligned as the IR states",
                semfuzz_spec::memory::DEFAULT_BLOCK_BYTES,
                semfuzz_spec::memory::BLOCK_ALIGN
            )
        });
    let verdict = |kind, detail: String, counterexample| Verdict {
        kind,
        detail: match (&memory, detail.is_empty()) {
            (Some(m), true) => m.clone(),
            (Some(m), false) => format!("{detail}; {m}"),
            (None, _) => detail,
        },
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
                    value: describe_operand(spec, &ty, bits),
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
                command: compiler.command(&ll.display().to_string(), "-", sm, &adapted),
            };
            // An unconfirmed counterexample is the prover's or the evaluators' fault, not
            // LLVM's: it is no verdict about the PTX.
            verdict(
                if confirmed {
                    "counterexample"
                } else {
                    "unknown"
                },
                String::new(),
                Some(cex),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compilers(majors: &[u32]) -> Vec<Compiler> {
        majors
            .iter()
            .map(|m| Compiler {
                llc: compile::Llc::Binary(format!("llc-{m}")),
                name: format!("llc-{m}"),
                version: format!("{m}.0.1"),
                flags: Vec::new(),
                commit: None,
            })
            .collect()
    }

    #[test]
    fn regression_ranges_read_oldest_first_and_skip_undecided_versions() {
        let c = compilers(&[14, 15, 16, 19, 22]);
        let history = |kinds: &[&'static str]| {
            let verdicts: Vec<(usize, &str)> = kinds.iter().copied().enumerate().collect();
            range(&verdicts, &c)
        };
        assert_eq!(history(&["counterexample"; 5]), "since ≤ 14, still in 22");
        assert_eq!(
            history(&[
                "counterexample",
                "counterexample",
                "unsupported",
                "proved",
                "proved"
            ]),
            "since ≤ 14, fixed in 19"
        );
        assert_eq!(
            history(&[
                "proved",
                "proved",
                "proved",
                "counterexample",
                "counterexample"
            ]),
            "since 19, still in 22"
        );
        assert_eq!(
            history(&[
                "unsupported",
                "unsupported",
                "proved",
                "counterexample",
                "proved"
            ]),
            "since 19, fixed in 22"
        );
    }

    #[test]
    fn a_trunk_snapshot_ends_a_range_by_its_commit() {
        let mut c = compilers(&[14, 22, 24]);
        c[1].version = "22.1.0".into();
        c[2].version = "24.0.0git".into();
        c[2].commit = Some("b010a18d2b648cab83c83967ff26b8fde11acdc6".into());
        let history = |kinds: &[&'static str]| {
            let verdicts: Vec<(usize, &str)> = kinds.iter().copied().enumerate().collect();
            range(&verdicts, &c)
        };
        assert_eq!(
            history(&["counterexample"; 3]),
            "since ≤ 14, still in 24.0.0git (b010a18)"
        );
        assert_eq!(
            history(&["counterexample", "counterexample", "proved"]),
            "since ≤ 14, fixed after 22.1, before 24.0.0git (b010a18)"
        );
        assert_eq!(
            history(&["proved", "proved", "counterexample"]),
            "since 24.0.0git (b010a18)"
        );
    }
}
