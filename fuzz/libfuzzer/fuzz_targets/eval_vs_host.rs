//! An arbitrary variant that the host backend implements exactly as PTX specifies, and an
//! arbitrary input tuple: the host's result is in the evaluator's accept set, part by part.
//!
//! The classes where a CPU fallback without fix-ups differs from PTX
//! (backends/host/README.md, "Differences from the spec", each asserted in the host's
//! `tests/backend.rs`) are left out: they are findings for campaigns, not crashes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_backend::{Backend, Support, Verdict, Words};
use semfuzz_libfuzzer::{hex, spec, VariantCase};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::{describe_accept, Accept};
use semfuzz_spec::Variant;
use std::sync::{Mutex, OnceLock};

/// Whether `v` is outside every known-difference class of the host backend's README.
fn exact_on_host(v: &Variant) -> bool {
    let words = Words::of(v);
    let ty = words.ty().unwrap_or_default();
    let known_difference =
        // minss/maxss: NaN operand order, unordered ±0, `.NaN` not canonical.
        matches!(words.opcode, "min" | "max")
        // FTZ tininess before rounding; no f16 flush; no flush under abs/neg.ftz.
        || words.has("ftz")
        // vcvtneps2bf16 flushes subnormal results: every bf16 computation, and `cvt` to bf16
        // (whose last type is the f32 source, so every type word is asked).
        || words.modifiers.iter().any(|m| m.starts_with("bf16"))
        // Double rounding through f32.
        || (matches!(words.opcode, "fma" | "mad") && ty.starts_with("f16"))
        // maxss turns a NaN into +0.0.
        || words.has("relu")
        // andpd clears a NaN's sign.
        || (words.opcode == "abs" && ty == "f64")
        // div.approx's rule for 2^126 < |b| < 2^128.
        || (words.opcode == "div" && words.has("approx"));
    !known_difference
}

/// The host backend, and the variants it runs exactly.
struct Host {
    /// `None` where the CPU lacks the instructions.
    backend: Mutex<Option<Box<dyn Backend>>>,
    variants: Vec<&'static Variant>,
}

fn host() -> &'static Host {
    static HOST: OnceLock<Host> = OnceLock::new();
    HOST.get_or_init(|| match semfuzz_host::open(None) {
        Ok(backend) => {
            let variants = spec()
                .variants
                .iter()
                .filter(|v| exact_on_host(v) && backend.supports(v) == Support::Yes)
                .collect::<Vec<_>>();
            eprintln!(
                "eval_vs_host: {} variants outside the known differences",
                variants.len()
            );
            Host {
                backend: Mutex::new(Some(backend)),
                variants,
            }
        }
        Err(e) => {
            eprintln!("note: {e}; eval_vs_host has nothing to run");
            Host {
                backend: Mutex::new(None),
                variants: Vec::new(),
            }
        }
    })
}

fuzz_target!(|case: VariantCase| {
    let host = host();
    let Some((v, inputs)) = case.pick(&host.variants) else {
        return;
    };
    let mut guard = host.backend.lock().unwrap_or_else(|e| e.into_inner());
    let Some(backend) = guard.as_mut() else {
        return;
    };
    let mut out = [Verdict::NoVerdict];
    if let Err(e) = backend.run(v, &inputs, &mut out) {
        panic!("host failed on {}: {e}", v.text);
    }
    let Verdict::Bits(bits) = out[0] else { return };
    let mut ev = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut accepts);
    let dest = &v.program.dests[0];
    for (p, part) in dest.parts.iter().enumerate() {
        let got = (bits >> part.lo) & mask(part.width);
        assert!(
            accepts[p].accepts(got),
            "{} {}: host 0x{bits:x}, part {} = 0x{got:x}, the spec allows {}",
            v.text,
            hex(&inputs),
            dest.part_name(p),
            describe_accept(part.kind, &accepts[p])
        );
    }
});
