//! What the fuzz targets (`fuzz_targets/*.rs`) share: the built-in spec, loaded once per
//! process, and the structured input that picks a variant and a legal input tuple for it.
//!
//! The targets assert the properties the issue names (never panic, errors located, printing
//! round-trips, evaluator ≡ Z3, evaluator ≡ host); a failed assertion is a crash libFuzzer
//! saves under `artifacts/TARGET/`.

use arbitrary::Arbitrary;
use semfuzz_spec::catalog::{ModifierKind, OperandRole};
use semfuzz_spec::diag::Diagnostic;
use semfuzz_spec::ir::mask;
use semfuzz_spec::{Spec, Variant};
use std::sync::OnceLock;

/// The spec compiled into the binary (the shipped `spec/isa/*.sem`), loaded on first use.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in spec loads"))
}

/// A variant and the raw values of its inputs, as libFuzzer's bytes decode through
/// `arbitrary`; [`VariantCase::pick`] turns them into a variant and an input tuple it accepts.
#[derive(Arbitrary, Debug)]
pub struct VariantCase {
    /// Which variant, modulo the number of candidates.
    pub variant: u16,
    /// The inputs in the variant's operand order; missing ones are 0, extra ones unused.
    pub inputs: Vec<u64>,
}

impl VariantCase {
    /// The candidate this case names, and its inputs: each masked to its operand's width, a
    /// modifier-member field (`.H1_H0`) reduced to a member index, as `semfuzz check` and the
    /// campaign generators only ever give.
    pub fn pick<'v>(&self, candidates: &[&'v Variant]) -> Option<(&'v Variant, Vec<u64>)> {
        if candidates.is_empty() {
            return None;
        }
        let v = candidates[usize::from(self.variant) % candidates.len()];
        let inputs = v
            .sources
            .iter()
            .enumerate()
            .map(|(i, src)| {
                let raw = self.inputs.get(i).copied().unwrap_or(0);
                match &src.role {
                    OperandRole::Modifier {
                        kind: ModifierKind::Member { members, .. },
                        ..
                    } => raw % members.len().max(1) as u64,
                    _ => raw & mask(src.width),
                }
            })
            .collect();
        Some((v, inputs))
    }
}

/// Panics (a libFuzzer crash) unless `d` points into the text: the project's error format
/// shows ` --> file:line:col`, the line and a caret for every error in a file.
pub fn assert_located(d: &Diagnostic, what: &str) {
    assert!(
        d.span.is_some(),
        "{what}: an error without a location:\n{d}"
    );
}

/// Inputs as `semfuzz check` reads them: hex, space-separated.
pub fn hex(inputs: &[u64]) -> String {
    inputs
        .iter()
        .map(|x| format!("0x{x:x}"))
        .collect::<Vec<_>>()
        .join(" ")
}
