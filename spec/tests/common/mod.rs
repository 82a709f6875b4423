//! Shared helpers for the spec tests.
#![allow(dead_code)]

// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

/// The embedded specs, loaded once per test binary.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        Spec::embedded().unwrap_or_else(|e| panic!("embedded specs fail to load:\n{e}"))
    })
}

/// Evaluates `instr` on `inputs`; one accept set per destination part.
pub fn eval(instr: &str, inputs: &[u64]) -> Vec<Accept> {
    let v = spec()
        .lookup(instr, Some(inputs.len()))
        .unwrap_or_else(|d| panic!("{instr}: {d}"));
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// Evaluates a one-part instruction whose ISA result is a single bit pattern.
pub fn exact(instr: &str, inputs: &[u64]) -> u64 {
    match eval(instr, inputs)[..] {
        [Accept::Exact(b)] => b,
        ref other => panic!("{instr} {inputs:x?}: expected one exact result, got {other:?}"),
    }
}

/// The requirement (`PTX ISA 4.2, sm_53`) of the variant `instr` with `n_sources` sources.
pub fn requirement(instr: &str, n_sources: usize) -> String {
    spec()
        .lookup(instr, Some(n_sources))
        .unwrap_or_else(|d| panic!("{instr}: {d}"))
        .requirement
        .to_string()
}

/// Why `instr` with `n_sources` sources is refused: the message and its hint.
pub fn refusal(instr: &str, n_sources: usize) -> String {
    let d = spec()
        .lookup(instr, Some(n_sources))
        .err()
        .unwrap_or_else(|| panic!("{instr} resolved"));
    format!("{} {}", d.message, d.hint.unwrap_or_default())
}

pub const F32_ONE: u64 = 0x3f80_0000;
pub const F32_TWO: u64 = 0x4000_0000;
pub const F32_THREE: u64 = 0x4040_0000;
pub const F32_NEG_ZERO: u64 = 0x8000_0000;
pub const F32_INF: u64 = 0x7f80_0000;
pub const F32_NEG_INF: u64 = 0xff80_0000;
pub const F32_QNAN: u64 = 0x7fc0_0000;
pub const F32_MIN_SUB: u64 = 0x0000_0001;
pub const F32_MIN_NORMAL: u64 = 0x0080_0000;
pub const F32_CANONICAL_NAN: u64 = 0x7fff_ffff;

pub fn neg32(x: u64) -> u64 {
    x ^ 0x8000_0000
}
