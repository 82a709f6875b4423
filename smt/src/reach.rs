//! Whether a program can produce given results on given inputs, over every choice it makes.
//!
//! The evaluator answers this alone for a single instruction (its accept sets are exact). A
//! PTX function whose intermediate results hold choices (a NaN's payload that a later
//! instruction reads) has result sets the evaluator only samples; `check-ptx` asks here when
//! the sampled choices do not produce what was observed.

use crate::encode::{bound_in_z3, encode_concrete, NanBits};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::{mask, Outcome, Program};
use semfuzz_spec::outcome::Accept;
use z3::{Params, SatResult, Solver};

/// What Z3 says of a result vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Some choices produce it.
    Reachable,
    /// No choices produce it.
    Unreachable,
    /// Z3 did not decide within the timeout.
    Unknown,
    /// Z3 found choices that give it, through an approximation whose bound its formulas do not
    /// state (`ex2.approx`, `rsqrt.approx`: a free function there), so they prove nothing.
    Unbounded,
}

/// Whether `program` can leave `results` (one value per destination part, in order) on
/// `inputs`, some choice of every intermediate and final choice made.
pub fn reachable(program: &Program, inputs: &[u64], results: &[u64], timeout_ms: u32) -> Reach {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms);
    solver.set_params(&params);
    let enc = encode_concrete(program, "", NanBits::Free, inputs);
    solver.assert(enc.constraints());
    for (part, bits) in enc.parts.iter().zip(results) {
        solver.assert(
            part.result
                .eq(z3::ast::BV::from_u64(*bits, part.result.get_size())),
        );
    }
    match crate::solve::check_within(&solver, timeout_ms) {
        // An approximation whose bound the formulas do not state (`ex2`, `rsqrt`, `lg2`) is
        // a free function there: any result of it is satisfiable, so a model proves nothing,
        // while `unsat` still holds for every function within the bound.
        SatResult::Sat if leaves_a_bound_free(program) => Reach::Unbounded,
        SatResult::Sat => Reach::Reachable,
        SatResult::Unsat => Reach::Unreachable,
        SatResult::Unknown => Reach::Unknown,
    }
}

/// Whether some choice of `program` is an approximation the formulas leave uninterpreted
/// ([`bound_in_z3`] false).
pub fn leaves_a_bound_free(program: &Program) -> bool {
    fn free(o: &Outcome) -> bool {
        match o {
            Outcome::Within {
                func,
                bound,
                format,
                ..
            } => !bound_in_z3(*func, *bound, *format),
            Outcome::Select(_, a, b) => free(a) || free(b),
            _ => false,
        }
    }
    program.choices.iter().any(free)
        || program
            .dests
            .iter()
            .flat_map(|d| &d.parts)
            .any(|p| free(&p.outcome))
}

/// Whether `program` can leave `out` (its first destination's bits) on `inputs`: the
/// evaluator's representative choices first, which decide alone where the program met no open
/// choice (a single instruction, whose accept sets are exact); otherwise Z3 over every choice,
/// within `timeout_ms` (`None`: Z3 did not decide, or was not asked).
pub fn allows(
    program: &Program,
    inputs: &[u64],
    out: u64,
    timeout_ms: Option<u32>,
) -> Option<bool> {
    let mut ev = Evaluator::new(program);
    let mut acc = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut acc);
    let bits: Vec<u64> = program.dests[0]
        .parts
        .iter()
        .map(|p| (out >> p.lo) & mask(p.width))
        .collect();
    if acc.iter().zip(&bits).all(|(a, b)| a.accepts(*b)) {
        return Some(true);
    }
    if !ev.met_open_choice() {
        return Some(false);
    }
    match reachable(program, inputs, &bits, timeout_ms?) {
        Reach::Reachable => Some(true),
        Reach::Unreachable => Some(false),
        Reach::Unknown | Reach::Unbounded => None,
    }
}
