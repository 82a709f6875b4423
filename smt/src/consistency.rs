//! Evaluator ≡ Z3: on concrete inputs, the formulas must admit every result the evaluator's
//! accept set names, and nothing outside it.
//!
//! Bounded parts (`approx`, [`Accept::Within`]) are checked exactly where the formulas state
//! the bound ([`bound_in_z3`]: ulp bounds of `rcp` and `div`, whose reference Z3 computes as an
//! IEEE division, and `sqrt`'s relative bound, whose ends are binary128 square roots), so the
//! evaluator's MPFR interval is checked against Z3's. Elsewhere the
//! approximation is an uninterpreted function and the check is weaker: the formulas must admit
//! the reference (RN) value, both ends of the interval and a value just outside it (which
//! shows they took the bounded branch, not an exact corner case), and must admit no NaN (and,
//! under ftz, no subnormal); the interval itself is tested against MPFR in
//! spec/tests/approx.rs. Corner cases are ordinary exact outcomes and are checked exactly.
//! `any_value` ([`Accept::Any`]) admits everything on both sides.

use crate::encode::{bound_in_z3, encode_concrete, is_nan, order_key, NanBits};
use semfuzz_spec::ir::{Outcome, Program};
use semfuzz_spec::outcome::{describe_accept, Accept};
use std::fmt;
use z3::ast::{Bool, BV};
use z3::{Params, SatResult, Solver};

/// A disagreement between the evaluator and the formulas.
#[derive(Clone, Debug, PartialEq)]
pub enum Inconsistency {
    /// The formulas reject a result the evaluator accepts.
    Rejects {
        /// Destination part.
        part: usize,
        /// The result.
        bits: u64,
        /// The evaluator's accept set, described.
        expected: String,
    },
    /// The formulas allow a result the evaluator rejects.
    AdmitsMore {
        /// Destination part.
        part: usize,
        /// The extra result Z3 found.
        bits: u64,
        /// The evaluator's accept set, described.
        expected: String,
    },
    /// Z3 gave no answer in time.
    Unknown(String),
}

impl fmt::Display for Inconsistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Inconsistency::Rejects {
                part,
                bits,
                expected,
            } => {
                write!(
                    f,
                    "part {part}: Z3 rejects 0x{bits:x}, which the evaluator accepts ({expected})"
                )
            }
            Inconsistency::AdmitsMore {
                part,
                bits,
                expected,
            } => {
                write!(f, "part {part}: Z3 admits 0x{bits:x}, which the evaluator rejects (it allows {expected})")
            }
            Inconsistency::Unknown(why) => write!(f, "Z3 answered unknown: {why}"),
        }
    }
}

/// A solver for one program, reused across inputs.
pub struct Checker<'p> {
    solver: Solver,
    program: &'p Program,
    timeout_ms: u32,
}

/// Whether every bounded leaf of `o` has its bound stated in the formulas: elsewhere an
/// approximation is an uninterpreted function, which may take any number.
pub fn bounds_in_z3(o: &Outcome) -> bool {
    let mut leaves = Vec::new();
    o.leaves(&mut leaves);
    leaves.iter().all(|l| match l {
        Outcome::Within {
            func,
            bound,
            format,
            ..
        } => bound_in_z3(*func, *bound, *format),
        _ => true,
    })
}

/// `lo <= r <= hi` in the numeric order of `f` with -0 < +0 (`order_key`), on `width + 2`
/// signed bits.
fn in_order_range(r: &BV, f: semfuzz_fp::Format, lo: u64, hi: u64) -> Bool {
    let constant = |v: u64| order_key(&BV::from_u64(v, f.width()), f);
    constant(lo).bvsle(order_key(r, f)) & order_key(r, f).bvsle(constant(hi))
}

/// The accept set `a` as a formula over `r`; `bound_stated` says whether the formulas state
/// a bounded part's interval (otherwise only its no-NaN/no-subnormal facts are compared).
fn accept_formula(a: &Accept, r: &BV, bound_stated: bool) -> Bool {
    match a {
        Accept::AnyNan(f) => is_nan(r, *f),
        Accept::Within {
            format,
            ftz,
            lo,
            hi,
            ..
        } if bound_stated => {
            let x = crate::fpbits::fp_from_bits(r, format.exp_bits(), format.precision());
            let mut cs = vec![x.is_nan().not(), in_order_range(r, *format, *lo, *hi)];
            if *ftz {
                cs.push(x.is_subnormal().not());
            }
            Bool::and(&cs)
        }
        // Bounded parts: the formulas cannot know the bound (the approximation is an
        // uninterpreted function), so "nothing outside" is checked only for what the formulas
        // do state: no NaN, and no subnormal under ftz.
        Accept::Within { format, ftz, .. } => {
            let x = crate::fpbits::fp_from_bits(r, format.exp_bits(), format.precision());
            let mut cs = vec![x.is_nan().not()];
            if *ftz {
                cs.push(x.is_subnormal().not());
            }
            Bool::and(&cs)
        }
        Accept::Any(_) | Accept::Poison(_) | Accept::Ub(_) => Bool::from_bool(true),
        _ => Bool::or(
            &a.values()
                .iter()
                .map(|v| r.eq(BV::from_u64(*v, r.get_size())))
                .collect::<Vec<_>>(),
        ),
    }
}

impl<'p> Checker<'p> {
    /// A checker for `program`; `timeout_ms` bounds each query.
    pub fn new(program: &'p Program, timeout_ms: u32) -> Checker<'p> {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("timeout", timeout_ms);
        solver.set_params(&params);
        Checker {
            solver,
            program,
            timeout_ms,
        }
    }

    fn check_with(&self, extra: &[Bool]) -> SatResult {
        self.solver.push();
        for e in extra {
            self.solver.assert(e);
        }
        crate::solve::check_within(&self.solver, self.timeout_ms)
    }

    /// Checks one input tuple against the evaluator's accept sets for it.
    pub fn check(&mut self, inputs: &[u64], expected: &[Accept]) -> Result<(), Inconsistency> {
        let enc = encode_concrete(self.program, "", NanBits::Free, inputs);
        self.solver.push();
        self.solver.assert(enc.constraints());
        let result = self.check_encoded(&enc, expected);
        self.solver.pop(1);
        result
    }

    fn check_encoded(
        &self,
        enc: &crate::encode::Encoded,
        expected: &[Accept],
    ) -> Result<(), Inconsistency> {
        let stated: Vec<bool> = self
            .program
            .dests
            .iter()
            .flat_map(|d| d.parts.iter())
            .map(|p| bounds_in_z3(&p.outcome))
            .collect();
        // 1. Every value the evaluator accepts is allowed by the formulas.
        for (i, (part, acc)) in enc.parts.iter().zip(expected).enumerate() {
            let probes: Vec<u64> = match acc {
                Accept::AnyNan(f) => vec![f.default_nan(), f.neg(f.quiet(f.inf(false) | 1))],
                // The reference (RN) value, both ends, and, where the formulas do not state the
                // bound, a value just outside it: they must admit that too (the approximation
                // is unconstrained there), which shows that they took the bounded branch and
                // not an exact corner case. A stated bound is compared exactly in step 2.
                Accept::Within {
                    lo,
                    hi,
                    rep,
                    format: f,
                    ftz,
                } => {
                    // (An end of the interval may be a subnormal that ftz excludes.)
                    let mut p: Vec<u64> = [*rep, *lo, *hi]
                        .into_iter()
                        .filter(|b| acc.accepts(*b))
                        .collect();
                    let up = if f.sign_bit(*hi) {
                        if f.is_zero(*hi) {
                            0
                        } else {
                            *hi - 1
                        }
                    } else {
                        *hi + 1
                    };
                    if !(stated[i] || f.is_nan(up) || *ftz && f.is_subnormal(up) || acc.accepts(up))
                    {
                        p.push(up);
                    }
                    p
                }
                Accept::Any(f) => vec![f.zero(false), f.default_nan(), f.one(true)],
                Accept::Poison(w) | Accept::Ub(w) => vec![0, semfuzz_spec::ir::mask(*w)],
                _ => acc.values().to_vec(),
            };
            for bits in probes {
                let r =
                    self.check_with(&[part.result.eq(BV::from_u64(bits, part.result.get_size()))]);
                self.solver.pop(1);
                match r {
                    SatResult::Sat => {}
                    SatResult::Unsat => {
                        return Err(Inconsistency::Rejects {
                            part: i,
                            bits,
                            expected: describe_accept(part.kind, acc),
                        })
                    }
                    SatResult::Unknown => {
                        return Err(Inconsistency::Unknown(crate::solve::reason_unknown(
                            &self.solver,
                        )))
                    }
                }
            }
        }
        // 2. Nothing outside the evaluator's accept sets is allowed.
        let outside: Vec<Bool> = enc
            .parts
            .iter()
            .zip(expected)
            .zip(&stated)
            .map(|((part, acc), stated)| accept_formula(acc, &part.result, *stated).not())
            .collect();
        let r = self.check_with(&[Bool::or(&outside)]);
        let result = match r {
            SatResult::Unsat => Ok(()),
            SatResult::Unknown => Err(Inconsistency::Unknown(crate::solve::reason_unknown(
                &self.solver,
            ))),
            SatResult::Sat => {
                let model = self.solver.get_model();
                let mut found = Err(Inconsistency::Unknown(
                    "a model with no offending part".into(),
                ));
                for (i, (part, acc)) in enc.parts.iter().zip(expected).enumerate() {
                    let bits = model
                        .as_ref()
                        .and_then(|m| m.eval(&part.result, true))
                        .and_then(|b| b.as_u64());
                    if let Some(bits) = bits {
                        if !acc.accepts(bits) {
                            found = Err(Inconsistency::AdmitsMore {
                                part: i,
                                bits,
                                expected: describe_accept(part.kind, acc),
                            });
                            break;
                        }
                    }
                }
                found
            }
        };
        self.solver.pop(1);
        result
    }
}

/// The result of checking one variant on many inputs.
#[derive(Debug)]
pub struct VariantReport {
    /// Inputs checked.
    pub cases: usize,
    /// The first disagreement, with its inputs.
    pub failure: Option<(Vec<u64>, Inconsistency)>,
}

/// Checks `variant` on `cases` sampled inputs (seeded), the accept sets computed by the
/// evaluator `evaluator`, calling `progress` after each.
pub fn check_variant(
    spec: &semfuzz_spec::Spec,
    variant: &semfuzz_spec::Variant,
    cases: usize,
    seed: u64,
    timeout_ms: u32,
    evaluator: semfuzz_jit::EvaluatorKind,
    mut progress: impl FnMut(),
) -> VariantReport {
    let mut checker = Checker::new(&variant.program, timeout_ms);
    let mut ev = semfuzz_jit::Evaluator::of_kind(&variant.program, evaluator);
    let mut samples = semfuzz_spec::samples::Samples::new(spec, variant, seed);
    let mut inputs = vec![0; variant.sources.len()];
    let mut expected = vec![Accept::default(); ev.n_parts()];
    for done in 0..cases {
        samples.fill(&mut inputs);
        ev.eval(&inputs, &mut expected);
        if let Err(e) = checker.check(&inputs, &expected) {
            return VariantReport {
                cases: done + 1,
                failure: Some((inputs, e)),
            };
        }
        progress();
    }
    VariantReport {
        cases,
        failure: None,
    }
}
