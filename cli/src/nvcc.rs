//! `semfuzz validate-nvcc`: prints `semfuzz_tv::nvcc`'s verdicts as they come, then one table
//! per target (function × configuration) and the totals.

use anyhow::Result;
use semfuzz_smt::solve::Options;
use semfuzz_spec::Spec;
use semfuzz_tv::nvcc;
use std::path::Path;

/// Runs the catalogue; `Ok(false)` on a counterexample or an unknown.
pub fn run(
    spec: &Spec,
    sms: &[String],
    configs: &[String],
    only: &[String],
    work: &Path,
    opts: &Options,
) -> Result<bool> {
    let configs = nvcc::configs(configs)?;
    let rows = nvcc::run(spec, &configs, sms, only, work, opts, |row| {
        let v = &row.verdict;
        let detail = if v.detail.is_empty() {
            format!("{:.2}s", v.seconds)
        } else {
            v.detail.clone()
        };
        outln!(
            "{} {} {}: {} ({detail})",
            row.function,
            row.config,
            row.sm,
            v.kind
        );
        if let Some(c) = &v.counterexample {
            for line in c.lines(&row.compiler.label()) {
                outln!("{line}");
            }
        }
    })?;
    let width = rows
        .iter()
        .map(|r| r.function.len())
        .max()
        .unwrap_or(8)
        .max(8);
    for sm in sms {
        let mut head = format!("{:width$}", sm);
        for c in &configs {
            head.push_str(&format!(" {:>15}", c.name));
        }
        outln!("{head}");
        let mut seen = Vec::new();
        for r in rows.iter().filter(|r| &r.sm == sm) {
            if seen.contains(&&r.function) {
                continue;
            }
            seen.push(&r.function);
            let mut line = format!("{:width$}", r.function);
            for c in &configs {
                let kind = rows
                    .iter()
                    .find(|x| x.function == r.function && &x.sm == sm && x.config == c.name)
                    .map_or("-", |x| x.verdict.kind);
                line.push_str(&format!(" {kind:>15}"));
            }
            outln!("{line}");
        }
    }
    let count = |k: &str| rows.iter().filter(|r| r.verdict.kind == k).count();
    outln!(
        "{} proved, {} counterexample, {} unknown, {} unsupported",
        count("proved"),
        count("counterexample"),
        count("unknown"),
        count("unsupported")
    );
    Ok(count("counterexample") == 0 && count("unknown") == 0)
}
