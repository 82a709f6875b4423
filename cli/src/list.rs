//! `semfuzz list`.

use anyhow::{Context, Result};
use semfuzz_spec::coverage::{cover, excerpt_lines, Status, SyntaxLine, EXCERPT};
use semfuzz_spec::{Spec, Variant};
use std::path::Path;

/// The table (or JSON array) of `variants`.
pub fn run(variants: &[&Variant], json: bool) -> Result<()> {
    if json {
        let items: Vec<_> = variants
            .iter()
            .map(|v| {
                let ops = |os: &[semfuzz_spec::catalog::OperandSig]| {
                    os.iter()
                        .map(
                            |o| serde_json::json!({"name": o.name, "type": o.ty, "width": o.width}),
                        )
                        .collect::<Vec<_>>()
                };
                serde_json::json!({
                    "instr": v.text,
                    "opcode": v.family,
                    "syntax": v.syntax,
                    "signature": v.signature(),
                    "dests": ops(&v.dests),
                    "sources": ops(&v.sources),
                    "ptx": v.requirement.ptx.map(|(a, b)| format!("{a}.{b}")),
                    "sm": v.requirement.sm,
                    "may_fuse": v.fusable,
                })
            })
            .collect();
        crate::emit(&format!("{}\n", serde_json::to_string_pretty(&items)?));
        return Ok(());
    }
    // A warp collective's signature names its 32 lane operands: it overflows its column
    // rather than pushing every other line's types off the screen.
    const WIDEST_ALIGNED: usize = 60;
    let width = variants
        .iter()
        .map(|v| v.signature().len())
        .filter(|&w| w <= WIDEST_ALIGNED)
        .max()
        .unwrap_or(0);
    for v in variants {
        let types: Vec<String> = v
            .dests
            .iter()
            .chain(&v.sources)
            .map(|o| format!("{}:{}", o.name, o.ty))
            .collect();
        let fuse = if v.fusable {
            "  [no rounding modifier: may be fused into fma]"
        } else {
            ""
        };
        crate::emit(&format!(
            "{:width$}  {:28}  {}{fuse}\n",
            v.signature(),
            types.join(" "),
            v.requirement
        ));
    }
    eprintln!("{} variants", variants.len());
    Ok(())
}

/// `semfuzz list --coverage`: every syntax line of the excerpt, and what covers it. Returns
/// false (exit 1) when a line is uncovered.
pub fn coverage(spec: &Spec, dir: Option<&Path>, json: bool) -> Result<bool> {
    let (lines, source) = match dir {
        None => (
            excerpt_lines(EXCERPT),
            "the ISA excerpt built into semfuzz".to_string(),
        ),
        Some(dir) => (read_excerpt(dir)?, dir.display().to_string()),
    };
    let statuses = cover(spec, &lines);
    let uncovered = statuses.iter().filter(|s| **s == Status::Uncovered).count();
    if json {
        let items: Vec<_> = lines
            .iter()
            .zip(&statuses)
            .map(|(l, s)| {
                let (status, detail) = match s {
                    Status::Covered(v) => ("covered", serde_json::json!(v)),
                    Status::Refused(why) => ("refused", serde_json::json!(why)),
                    Status::Uncovered => ("uncovered", serde_json::Value::Null),
                };
                serde_json::json!({"file": l.file, "line": l.line, "section": l.section, "syntax": l.text,
                    "status": status, "detail": detail, "evaluator": status == "covered", "z3": status == "covered"})
            })
            .collect();
        crate::emit(&format!("{}\n", serde_json::to_string_pretty(&items)?));
    } else {
        for (l, s) in lines.iter().zip(&statuses) {
            let what = match s {
                Status::Covered(v) => format!(
                    "{} variant{} (evaluator + Z3): {}",
                    v.len(),
                    if v.len() == 1 { "" } else { "s" },
                    v.join(" ")
                ),
                Status::Refused(why) => format!("refused: {why}"),
                Status::Uncovered => "UNCOVERED".to_string(),
            };
            let syntax = l.text.split_whitespace().collect::<Vec<_>>().join(" ");
            crate::emit(&format!("{:10} {:54} {what}\n", l.section, syntax));
        }
    }
    eprintln!(
        "{} syntax lines in {source}: {} covered, {} refused, {uncovered} uncovered",
        lines.len(),
        statuses
            .iter()
            .filter(|s| matches!(s, Status::Covered(_)))
            .count(),
        statuses
            .iter()
            .filter(|s| matches!(s, Status::Refused(_)))
            .count()
    );
    Ok(uncovered == 0)
}

/// The syntax lines of the `*.md` files in `dir`.
fn read_excerpt(dir: &Path) -> Result<Vec<SyntaxLine>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| {
        format!(
            "cannot read the ISA excerpt in {} (leave out --isa-docs to use the one built in)",
            dir.display()
        )
    })? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            files.push((name, text));
        }
    }
    Ok(excerpt_lines(&files))
}
