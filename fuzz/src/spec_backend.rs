//! `spec`: the evaluator itself as a backend. Each result is its accept set's representative
//! (the exact bits, the default NaN, the first of a `one_of`, the correctly rounded value of
//! an approximation), so a campaign against it never finds anything: it is the control
//! experiment, and the baseline the benchmarks measure the other backends against.

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;

/// The evaluator as a backend.
pub struct SpecBackend {
    identity: Identity,
    accepts: Vec<Accept>,
}

/// The backend's identity; it is always available.
pub fn probe(_arg: Option<&str>) -> Result<Identity, String> {
    Ok(Identity {
        name: "spec".into(),
        version: format!("semfuzz {}", env!("CARGO_PKG_VERSION")),
        device: "host (the spec's evaluator)".into(),
    })
}

/// Opens the backend; it takes no argument.
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    semfuzz_backend::takes_no_argument("spec", arg)?;
    Ok(Box::new(SpecBackend::new()))
}

impl SpecBackend {
    /// A new instance.
    pub fn new() -> SpecBackend {
        SpecBackend {
            identity: probe(None).unwrap_or_else(|_| unreachable!("spec is always available")),
            accepts: Vec::new(),
        }
    }
}

impl Default for SpecBackend {
    fn default() -> SpecBackend {
        SpecBackend::new()
    }
}

/// The destination register the evaluator's representatives make for one input tuple.
pub fn representative(
    ev: &mut Evaluator<'_>,
    accepts: &mut [Accept],
    row: &[u64],
    variant: &Variant,
) -> u64 {
    ev.eval(row, accepts);
    variant.program.dests[0]
        .parts
        .iter()
        .zip(accepts.iter())
        .fold(0, |bits, (part, a)| bits | (a.representative() << part.lo))
}

impl Backend for SpecBackend {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn supports(&self, _variant: &Variant) -> Support {
        Support::Yes
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        let mut ev = Evaluator::new(&variant.program);
        self.accepts.clear();
        self.accepts.resize(ev.n_parts(), Accept::default());
        let n = variant.sources.len();
        for (i, verdict) in out.iter_mut().enumerate() {
            let row = &inputs[i * n..(i + 1) * n];
            *verdict = Verdict::Bits(representative(&mut ev, &mut self.accepts, row, variant));
        }
        Ok(())
    }
}
