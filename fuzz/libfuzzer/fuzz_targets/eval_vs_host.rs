//! An arbitrary variant that the host backend implements exactly as PTX specifies, and an
//! arbitrary input tuple: the host's result is in the evaluator's accept set, part by part.
//!
//! The classes where a CPU fallback without fix-ups differs from PTX
//! (`semfuzz_host::known_difference`, the rows of backends/host/README.md's "Differences from
//! the spec") are left out: they are findings for campaigns, not crashes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_backend::{Backend, Support, Verdict};
use semfuzz_libfuzzer::{hex, spec, VariantCase};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::{describe_accept, Accept};
use semfuzz_spec::Variant;
use std::sync::{Mutex, OnceLock};

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
                .filter(|v| {
                    semfuzz_host::known_difference(v).is_none()
                        && backend.supports(v) == Support::Yes
                })
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
