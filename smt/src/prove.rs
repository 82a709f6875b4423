//! Refinement queries: does every result one program allows lie in what another allows?

use crate::encode::{encode, encode_over, NanBits};
use semfuzz_spec::ir::Program;
use z3::ast::{Bool, BV};
use z3::{Params, SatResult, Solver};

/// The answer to a refinement query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It holds for every input.
    Proved,
    /// Inputs (in the source's operand order) and a result per destination part that the
    /// target allows and the source does not.
    Counterexample {
        /// Source operand bits.
        inputs: Vec<u64>,
        /// Result bits per destination part.
        results: Vec<u64>,
    },
    /// The solver gave up (timeout or incompleteness), with its reason.
    Unknown(String),
}

/// Why a query could not be posed.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// The destinations have different parts.
    #[error("the two sides' destinations differ: {0}")]
    Shape(String),
    /// The input mapping is not one source operand of the same width per target operand.
    #[error("input mapping {0:?} does not fit: the target takes {1} operands, the source {2} (widths must match)")]
    Inputs(Vec<usize>, usize, usize),
}

/// Checks that `tgt` refines `src`: for all inputs, every result `tgt` allows is allowed by
/// `src`. Target operand `i` is source operand `tgt_inputs[i]`.
pub fn refines(
    src: &Program,
    tgt: &Program,
    tgt_inputs: &[usize],
    timeout_ms: u32,
) -> Result<Verdict, ProveError> {
    let s = encode(src, "src_", NanBits::Pinned);
    if tgt_inputs.len() != tgt.input_widths.len()
        || tgt_inputs
            .iter()
            .enumerate()
            .any(|(t, &i)| i >= s.inputs.len() || s.inputs[i].get_size() != tgt.input_widths[t])
    {
        return Err(ProveError::Inputs(
            tgt_inputs.to_vec(),
            tgt.input_widths.len(),
            s.inputs.len(),
        ));
    }
    // The target reads the source's input terms themselves, so common subterms are shared.
    let t = encode_over(
        tgt,
        "tgt_",
        NanBits::Pinned,
        tgt_inputs.iter().map(|&i| s.inputs[i].clone()).collect(),
    );
    if s.parts.len() != t.parts.len()
        || s.parts
            .iter()
            .zip(&t.parts)
            .any(|(a, b)| a.result.get_size() != b.result.get_size())
    {
        return Err(ProveError::Shape(format!(
            "{} part(s) against {}",
            s.parts.len(),
            t.parts.len()
        )));
    }
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms);
    solver.set_params(&params);
    for (a, b) in s.parts.iter().zip(&t.parts) {
        solver.assert(a.result.eq(&b.result));
        solver.assert(&b.allowed);
    }
    solver.assert(
        Bool::and(
            &s.parts
                .iter()
                .map(|p| p.allowed.clone())
                .collect::<Vec<_>>(),
        )
        .not(),
    );
    Ok(match crate::solve::check_within(&solver, timeout_ms) {
        SatResult::Unsat => Verdict::Proved,
        SatResult::Unknown => Verdict::Unknown(crate::solve::reason_unknown(&solver)),
        SatResult::Sat => {
            let model = solver.get_model();
            let val = |bv: &BV| {
                model
                    .as_ref()
                    .and_then(|m| m.eval(bv, true))
                    .and_then(|b| b.as_u64())
                    .unwrap_or(0)
            };
            Verdict::Counterexample {
                inputs: s.inputs.iter().map(val).collect(),
                results: s.parts.iter().map(|p| val(&p.result)).collect(),
            }
        }
    })
}
