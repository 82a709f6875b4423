//! `validate-llc --repro DIR`: one directory per confirmed counterexample, with everything an
//! upstream LLVM bug report needs, and the report itself.

use super::{Counterexample, Verdict};
use anyhow::{anyhow, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What one counterexample was found on.
pub struct Case<'a> {
    /// The IR function's name.
    pub func: &'a str,
    /// The target.
    pub sm: &'a str,
    /// The compiled module (the function alone with its declarations).
    pub ll_text: &'a str,
    /// The PTX the compiler wrote.
    pub ptx_text: &'a str,
    /// `llvmlite (LLVM 22.1.0)`.
    pub compiler_label: &'a str,
    /// LLVM's major version.
    pub major: u32,
}

/// Writes `DIR/FUNC-sm_XX-llvmN/`: `FUNC.ll`, `FUNC.ptx`, `llc.sh`, `counterexample.json` and
/// `REPORT.md`; returns the directory.
pub fn write(dir: &Path, case: &Case, verdict: &Verdict, cex: &Counterexample) -> Result<PathBuf> {
    let out = dir.join(format!("{}-{}-llvm{}", case.func, case.sm, case.major));
    std::fs::create_dir_all(&out).map_err(|e| anyhow!("cannot create {}: {e}", out.display()))?;
    let ll = format!("{}.ll", case.func);
    let ptx = format!("{}.ptx", case.func);
    let command = command(case);
    std::fs::write(out.join(&ll), case.ll_text)?;
    std::fs::write(out.join(&ptx), case.ptx_text)?;
    std::fs::write(
        out.join("llc.sh"),
        format!("#!/bin/sh\n# {}\n{command}\n", case.compiler_label),
    )?;
    let json = serde_json::json!({
        "function": case.func,
        "target": case.sm,
        "llc": case.compiler_label,
        "command": command,
        "inputs": cex.inputs.iter().map(|i| serde_json::json!({
            "name": i.name, "bits": format!("{:#x}", i.bits), "value": i.value,
        })).collect::<Vec<_>>(),
        "results": cex.parts.iter().map(|p| serde_json::json!({
            "name": p.name, "ir_allows": p.allows, "ptx_computes": p.computes,
            "ptx_bits": format!("{:#x}", p.bits),
        })).collect::<Vec<_>>(),
        "seconds": verdict.seconds,
    });
    std::fs::write(
        out.join("counterexample.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )?;
    std::fs::write(out.join("REPORT.md"), report(case, cex))?;
    Ok(out)
}

/// The llc command that compiles the reproducer's `FUNC.ll` into `FUNC.ptx`.
fn command(case: &Case) -> String {
    format!(
        "llc-{} -O2 -mtriple={} -mcpu={} {f}.ll -o {f}.ptx",
        case.major,
        super::compile::TRIPLE,
        case.sm,
        f = case.func
    )
}

/// The bug report, in the shape LLVM's issue tracker asks for: a title, the reproducer, what
/// was expected and what happened. `REPORT.md` of the reproducer, and what `--report` posts.
pub fn report(case: &Case, cex: &Counterexample) -> String {
    let command = command(case);
    let mut r = String::new();
    let inputs: Vec<String> = cex
        .inputs
        .iter()
        .map(|i| format!("{} = {}", i.name, i.value))
        .collect();
    let _ = writeln!(
        r,
        "# [NVPTX] `{}` at {}: the PTX returns a value the IR does not allow\n",
        case.func, case.sm
    );
    let _ = writeln!(
        r,
        "Found by `semfuzz validate-llc` with {}: it proves, for every input, that the PTX the \
         NVPTX back end emits returns only what LangRef allows the IR function to return, and \
         on this function and target it found inputs where it does not.\n",
        case.compiler_label
    );
    let _ = writeln!(r, "## Reproducer\n\n```llvm\n{}```\n", case.ll_text);
    let _ = writeln!(r, "```sh\n{command}\n```\n");
    let body = case
        .ptx_text
        .find(".visible")
        .map_or(case.ptx_text, |i| &case.ptx_text[i..]);
    let _ = writeln!(
        r,
        "emits\n\n```ptx\n{}```\n",
        body.trim_end().to_string() + "\n"
    );
    let _ = writeln!(r, "## Inputs\n\n`{}`\n", inputs.join(", "));
    let _ = writeln!(r, "## Expected and actual\n");
    for p in &cex.parts {
        let _ = writeln!(
            r,
            "- `{}`: the IR allows {}; the PTX computes {} (bits `{:#x}`).",
            p.name, p.allows, p.computes, p.bits
        );
    }
    let _ = writeln!(
        r,
        "\nBoth values were confirmed by evaluating the IR and the PTX on these inputs with \
         semfuzz's executable semantics (LangRef's floating-point rules for the IR, the PTX ISA \
         for the PTX): the PTX's value is the one the PTX ISA specifies for this PTX; it was \
         not run on a GPU."
    );
    r
}
