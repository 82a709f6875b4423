//! `z3`: a backend whose results are models of the variant's Z3 encoding on the given inputs.
//!
//! It keeps the evaluator and the formulas honest from the campaign side: every result Z3
//! picks (any NaN where the formulas leave the NaN free, any member of a `one_of`, any value
//! within a stated bound) must be one the evaluator accepts, so a finding against `z3` is a
//! bug in one of the two. Variants with an approximation whose bound the formulas do not
//! state (an uninterpreted function, see `semfuzz_smt::encode::bound_in_z3`) are not
//! supported: Z3 may pick any number there.

#![warn(missing_docs)]

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_smt::consistency::bounds_in_z3;
use semfuzz_smt::encode::{encode_concrete, NanBits};
use semfuzz_spec::Variant;
use z3::{Params, SatResult, Solver};

/// How long one case may take the solver.
const TIMEOUT_MS: u32 = 10_000;

/// The Z3 backend.
pub struct Z3Backend {
    identity: Identity,
}

/// The backend's identity; Z3 is linked in, so it is always available.
pub fn probe(_arg: Option<&str>) -> Result<Identity, String> {
    Ok(Identity {
        name: "z3".to_string(),
        version: format!("Z3 {}", semfuzz_smt::z3_version()),
        device: "host (SMT model of the spec's formulas)".to_string(),
    })
}

/// Opens the backend; it takes no argument.
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    semfuzz_backend::takes_no_argument("z3", arg)?;
    let identity = probe(None).map_err(|reason| BackendError::Unavailable {
        backend: "z3".into(),
        reason,
    })?;
    Ok(Box::new(Z3Backend { identity }))
}

impl Backend for Z3Backend {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn supports(&self, variant: &Variant) -> Support {
        let dests = &variant.program.dests;
        if dests.is_empty() {
            return Support::No("the variant writes no destination".into());
        }
        if dests[0].parts.iter().all(|p| bounds_in_z3(&p.outcome)) {
            Support::Yes
        } else {
            Support::No(
                "an approximation whose error bound the Z3 encoding does not state \
                 (an uninterpreted function there may take any value)"
                    .into(),
            )
        }
    }

    fn batch_size(&self) -> usize {
        256
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        let program = &variant.program;
        let n = program.input_widths.len().max(1);
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("timeout", TIMEOUT_MS);
        solver.set_params(&params);
        for (row, verdict) in inputs.chunks_exact(n).zip(out.iter_mut()) {
            let enc = encode_concrete(program, "", NanBits::Free, row);
            solver.push();
            solver.assert(enc.constraints());
            *verdict = match semfuzz_smt::solve::check_within(&solver, TIMEOUT_MS) {
                SatResult::Sat => {
                    let model = solver.get_model().ok_or_else(|| {
                        BackendError::failed("z3", "Z3 said sat but gave no model")
                    })?;
                    let mut bits = 0u64;
                    let dest = &program.dests[0];
                    for (part, encoded) in dest.parts.iter().zip(&enc.parts) {
                        let value = model
                            .eval(&encoded.result, true)
                            .and_then(|v| v.as_u64())
                            .ok_or_else(|| {
                                BackendError::failed("z3", "the model has no value for a part")
                            })?;
                        bits |= value << part.lo;
                    }
                    Verdict::Bits(bits)
                }
                SatResult::Unsat => {
                    return Err(BackendError::failed(
                        "z3",
                        format!(
                            "the formulas of {} admit no result for inputs {row:x?}: \
                             the encoding is inconsistent",
                            variant.text
                        ),
                    ))
                }
                SatResult::Unknown => Verdict::NoVerdict,
            };
            solver.pop(1);
        }
        Ok(())
    }
}
