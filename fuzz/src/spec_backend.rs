//! `spec`: the evaluator itself as a backend. Each result is its accept set's representative
//! (the exact bits, the default NaN, the first of a `one_of`, the correctly rounded value of
//! an approximation), so a campaign against it never finds anything: it is the control
//! experiment, and the baseline the benchmarks measure the other backends against.

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_jit::{compile, Compiled, Evaluator, EvaluatorKind};
use semfuzz_spec::ir::Program;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;
use std::collections::HashMap;
use std::sync::Arc;

/// The evaluator as a backend.
pub struct SpecBackend {
    identity: Identity,
    kind: EvaluatorKind,
    /// Per program address: the program compiled, and its code (`None`: unsupported). The
    /// program is kept to check that an address still holds the same program. Keyed by
    /// address, not by the variant's text: the forms of one instruction share a text, and a
    /// campaign over them alternates between them batch by batch.
    compiled: HashMap<usize, (Program, Option<Arc<Compiled>>)>,
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
    /// A new instance with the default evaluator.
    pub fn new() -> SpecBackend {
        SpecBackend::with_evaluator(EvaluatorKind::default())
    }

    /// A new instance whose results come from the evaluator `kind` (where it supports a
    /// variant).
    pub fn with_evaluator(kind: EvaluatorKind) -> SpecBackend {
        SpecBackend {
            identity: probe(None).unwrap_or_else(|_| unreachable!("spec is always available")),
            kind,
            compiled: HashMap::new(),
            accepts: Vec::new(),
        }
    }

    /// The evaluator for `variant`, compiled once per variant.
    fn evaluator<'v>(&mut self, variant: &'v Variant) -> Evaluator<'v> {
        if self.kind == EvaluatorKind::Interp {
            return Evaluator::interpreted(&variant.program);
        }
        let at = &variant.program as *const Program as usize;
        let fresh = || {
            (
                variant.program.clone(),
                compile(&variant.program).ok().map(Arc::new),
            )
        };
        let entry = self.compiled.entry(at).or_insert_with(fresh);
        // An unsupported program is not compiled again; a different one at the address is.
        if entry.0 != variant.program {
            *entry = fresh();
        }
        match &entry.1 {
            Some(code) => Evaluator::compiled(&variant.program, Arc::clone(code)),
            None => Evaluator::interpreted(&variant.program),
        }
    }
}

impl Default for SpecBackend {
    fn default() -> SpecBackend {
        SpecBackend::new()
    }
}

/// The destination register the evaluator's representatives make from one row's accept sets.
pub fn compose(accepts: &[Accept], variant: &Variant) -> u64 {
    variant.program.dests[0]
        .parts
        .iter()
        .zip(accepts)
        .fold(0, |bits, (part, a)| bits | (a.representative() << part.lo))
}

/// The destination register the evaluator's representatives make for one input tuple.
pub fn representative(
    ev: &mut Evaluator<'_>,
    accepts: &mut [Accept],
    row: &[u64],
    variant: &Variant,
) -> u64 {
    ev.eval(row, accepts);
    compose(accepts, variant)
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
        let mut ev = self.evaluator(variant);
        let np = ev.n_parts().max(1);
        let n = variant.sources.len();
        self.accepts.clear();
        self.accepts.resize(out.len() * np, Accept::default());
        if n == 0 {
            for res in self.accepts.chunks_exact_mut(np) {
                ev.eval(&[], res);
            }
        } else {
            ev.eval_batch(&inputs[..out.len() * n], &mut self.accepts);
        }
        for (verdict, res) in out.iter_mut().zip(self.accepts.chunks_exact(np)) {
            *verdict = Verdict::Bits(compose(res, variant));
        }
        Ok(())
    }
}
