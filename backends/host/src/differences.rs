//! Where the host's mapping knowingly differs from PTX: the classes of README.md's
//! "Differences from the spec a fallback without fix-ups has", by variant.
//!
//! One list for everything that must tell a known difference from a bug: the libFuzzer target
//! `eval_vs_host` fuzzes only variants outside it, and `tests/backend.rs` checks that every
//! variant it shows differing is inside it and every variant it shows exact is outside.

use semfuzz_backend::Words;
use semfuzz_spec::Variant;

/// The README class that `v` belongs to, or `None` when the host computes `v` exactly as PTX
/// specifies (so any difference is a bug in the mapping or the spec).
pub fn known_difference(v: &Variant) -> Option<&'static str> {
    let words = Words::of(v);
    let ty = words.ty().unwrap_or_default();
    let class = if matches!(words.opcode, "min" | "max") {
        "minss/maxss: NaN operand order, unordered ±0, `.NaN` not canonical"
    } else if words.opcode == "cvt" && ty == "bf16" && words.has("ftz") {
        // `ty` is a conversion's source: widening bf16 by a shift.
        "widening bf16 by a shift flushes nothing under `.ftz`"
    } else if words.has("ftz")
        && words.opcode != "cvt"
        && (ty.starts_with("f16") || matches!(words.opcode, "abs" | "neg"))
    {
        // A conversion between binary32 and binary16 flushes exactly, by MXCSR DAZ; binary32
        // arithmetic flushes as PTX does (tininess after rounding, docs/ambiguities.md 7).
        "no f16 flush; no flush under abs/neg.ftz"
    } else if words.modifiers.iter().any(|m| m.starts_with("bf16")) {
        // Every bf16 computation, and `cvt` to bf16, whose last type word is the f32 source:
        // so every type word is asked.
        "vcvtneps2bf16 flushes subnormal results"
    } else if matches!(words.opcode, "fma" | "mad") && ty.starts_with("f16") {
        "double rounding through binary32"
    } else if words.has("relu") {
        "`.relu` as maxss turns NaN into +0.0"
    } else if words.opcode == "abs" && ty == "f64" {
        "andpd clears a NaN's sign"
    } else if words.opcode == "div" && words.has("approx") {
        "div.approx's rule for 2^126 < |b| < 2^128"
    } else {
        return None;
    };
    Some(class)
}
