//! `validate-llc --fold N`: LLVM's constant folder against its own code generator. Each
//! validated function is folded with the same LLVM's `instcombine` at N boundary inputs and
//! at the counterexample's, and each folded constant judged against the IR (a folding bug
//! where the IR does not allow it) and against the PTX (where the IR allows it but the PTX
//! cannot compute it, the program's result changes with the optimisation level):
//! `semfuzz_llvm::fold_check`.

use crate::compile::{Compiler, Llc};
use semfuzz_llvm::fold_check::{boundary_inputs, fold_check, FoldKind};
use semfuzz_llvm::Folder;
use semfuzz_spec::Spec;
use std::collections::BTreeMap;

/// What folding one function at one target found.
#[derive(Clone, Default)]
pub struct FoldSummary {
    /// Inputs per verdict name (`consistent`, `opt-level`, ...).
    pub counts: BTreeMap<&'static str, usize>,
    /// The first input of each verdict that is a finding (`folding-bug`, `opt-level`).
    pub examples: Vec<String>,
    /// Why folding was not possible, if it was not.
    pub error: Option<String>,
}

impl FoldSummary {
    /// The lines printed under the function's verdict.
    pub fn lines(&self) -> Vec<String> {
        if let Some(e) = &self.error {
            return vec![format!("    fold: not checked ({e})")];
        }
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        let mut lines = vec![format!("    fold: {}", counts.join(", "))];
        lines.extend(self.examples.iter().map(|e| format!("      {e}")));
        lines
    }
}

/// The folder of the same LLVM as `compiler`: llvmlite's for llvmlite, `opt-N` beside `llc-N`.
pub fn folder_for(compiler: &Compiler) -> Result<Folder, String> {
    match &compiler.llc {
        Llc::Llvmlite => Folder::find(None),
        Llc::Binary(_) => Folder::find(Some(&format!("opt-{}", compiler.major()))),
        // Triton exposes trunk's pipelines (`llvm.optimize_module`) but no folder is built on
        // them yet.
        Llc::Triton => Err("no instcombine folder drives Triton's LLVM yet".into()),
        // libNVVM's optimiser is not exposed apart from its code generator.
        Llc::Nvvm => Err("libNVVM has no instcombine of its own to drive".into()),
        Llc::Nvcc => Err("nvcc compiles CUDA C: there is no IR to fold".into()),
    }
}

/// Folds `func` of the module `ir_text` at `count` boundary inputs and at `extra` rows, and
/// judges each folded constant against the IR and the PTX program `ptx`.
pub fn check(
    spec: &Spec,
    ir_text: &str,
    func: &str,
    ptx: &semfuzz_spec::ir::Program,
    count: usize,
    extra: Vec<Vec<u64>>,
    folder: &Folder,
) -> FoldSummary {
    let verdicts = boundary_inputs(ir_text, func, count, 0).and_then(|mut inputs| {
        inputs.extend(extra);
        fold_check(spec, ir_text, func, ptx, &inputs, folder)
    });
    let verdicts = match verdicts {
        Ok(v) => v,
        Err(e) => {
            return FoldSummary {
                error: Some(e.lines().next().unwrap_or("").to_string()),
                ..FoldSummary::default()
            }
        }
    };
    let mut summary = FoldSummary::default();
    for v in &verdicts {
        let n = summary.counts.entry(v.kind.name()).or_default();
        *n += 1;
        if *n == 1 && matches!(v.kind, FoldKind::FoldingBug | FoldKind::OptLevel) {
            summary.examples.push(v.to_string());
        }
    }
    summary
}
