//! Fold against codegen over a module and the PTX llc emitted for it: for every function of
//! the `.ll` that the `.ptx` also defines, `fold_check` at `N` boundary inputs (default 1024),
//! the count of each verdict, and the first `folding-bug` and `opt-level` lines.
//!
//! `cargo run --example fold_codegen -- FILE.ll FILE.ptx [N] [--folder opt-16] [--witness-ms MS]`
//! (the default folder is llvmlite's LLVM, as the `llvm` backend's; `--witness-ms` adds Z3's
//! witnesses of one-instruction functions, each query given about MS milliseconds).

use semfuzz_llvm::fold_check::{boundary_inputs, fold_check, witness_inputs, FoldKind};
use semfuzz_llvm::Folder;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::Spec;
use std::collections::BTreeMap;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let folder_arg = option(&mut args, "--folder")?;
    let witness_ms: Option<u32> = match option(&mut args, "--witness-ms")? {
        Some(t) => Some(
            t.parse()
                .map_err(|_| format!("`{t}` is not milliseconds"))?,
        ),
        None => None,
    };
    let [ll, ptx, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: fold_codegen FILE.ll FILE.ptx [N] [--folder opt-16] [--witness-ms MS]".into(),
        );
    };
    let n: usize = match rest.first() {
        Some(t) => t.parse().map_err(|_| format!("`{t}` is not a count"))?,
        None => 1024,
    };
    let spec = Spec::embedded().map_err(|e| e.to_string())?;
    let folder = Folder::find(folder_arg.as_deref())?;
    println!("folder: {}", folder.version()?);
    let ll_text = std::fs::read_to_string(ll).map_err(|e| format!("{ll}: {e}"))?;
    let ptx_text = std::fs::read_to_string(ptx).map_err(|e| format!("{ptx}: {e}"))?;
    let module = semfuzz_llir::parse(&SourceFile::new(ll.as_str(), ll_text.as_str()))
        .map_err(|d| d.to_string())?;
    let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
    for f in &module.functions {
        let program = match semfuzz_ptx::load(&spec, ptx, &ptx_text, Some(&f.name)) {
            Ok(p) => p.program,
            Err(d) => {
                println!("{}: PTX unsupported ({})", f.name, d.message);
                continue;
            }
        };
        let mut inputs = boundary_inputs(&ll_text, &f.name, n, 1)?;
        if let Some(ms) = witness_ms {
            inputs.extend(witness_inputs(&spec, &ll_text, &f.name, ms).unwrap_or_default());
        }
        let verdicts = match fold_check(&spec, &ll_text, &f.name, &program, &inputs, &folder) {
            Ok(v) => v,
            Err(e) => {
                println!(
                    "{}: unsupported ({})",
                    f.name,
                    e.lines().next().unwrap_or("")
                );
                continue;
            }
        };
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for v in &verdicts {
            *counts.entry(v.kind.name()).or_default() += 1;
            *totals.entry(v.kind.name()).or_default() += 1;
        }
        let line: Vec<String> = counts.iter().map(|(k, c)| format!("{c} {k}")).collect();
        println!("{}: {}", f.name, line.join(", "));
        for kind in [FoldKind::FoldingBug, FoldKind::OptLevel] {
            if let Some(v) = verdicts.iter().find(|v| v.kind == kind) {
                println!("    {v}");
            }
        }
    }
    let line: Vec<String> = totals.iter().map(|(k, c)| format!("{c} {k}")).collect();
    println!("total: {}", line.join(", "));
    Ok(())
}

/// Removes `--name VALUE` from `args`: the value, if given.
fn option(args: &mut Vec<String>, name: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == name) {
        Some(i) if i + 1 < args.len() => {
            let value = args.remove(i + 1);
            args.remove(i);
            Ok(Some(value))
        }
        Some(_) => Err(format!("{name} needs a value")),
        None => Ok(None),
    }
}
