//! `semfuzz validate-llc [FILE.ll ...]`: translation validation of LLVM's NVPTX back end and
//! NVIDIA's libNVVM, as a command. The work is `semfuzz-tv`'s (compile, read both sides, pose
//! the refinement, confirm, report); this module prints each verdict, each compiler's table
//! and the regression ranges across LLVM versions, and posts verdicts to the service.

pub mod run_lines;

use anyhow::{anyhow, Result};
use semfuzz_service::client::Reporter;
use semfuzz_smt::solve::Options;
use semfuzz_spec::Spec;
use semfuzz_tv::{
    compilers, fold, stored, targets, units, validate, Args, Cell, Compiler, Unit, Verdict,
};
use std::collections::{BTreeMap, HashSet};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn compilers(majors: &[u32]) -> Vec<Compiler> {
        majors
            .iter()
            .map(|m| Compiler {
                llc: semfuzz_tv::compile::Llc::Binary(format!("llc-{m}")),
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
