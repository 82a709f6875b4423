//! Identical work proved by structure (issue 29's "identical work must be proved by
//! structure, not search"), as hardware equivalence checkers do it: shared operations
//! abstracted (Burch and Dill's uninterpreted functions) and internal points proved equal and
//! merged (SAT sweeping).
//!
//! A multiplication, a division or a floating-point operation that the source and the target
//! both compute from the same inputs is the same Z3 term on both sides (Z3 hash-conses its
//! terms). Replacing each such term by a fresh constant gives a query that bit-blasts no
//! circuit the two sides share. Where the sides then still differ (LLVM's rotated loops join
//! the same iterations under path conditions written differently), a target term that
//! agrees with a source term on sampled inputs and that the solver proves equal to it (a
//! small query: what both are built from is abstracted in it too) becomes that source term,
//! lowest first, so the work built on it becomes shared in turn. The query left asks about
//! conditions and wiring alone.
//!
//! Sound for proofs only: a shared term mentions only what both sides mention (the inputs and
//! the output; each side's choices and fresh bits carry its own prefix), so any model of the
//! original query is a model of the abstracted one with each constant set to its term's value,
//! and a merged pair is equal in every model (where [`Sides::within`] holds, which every model
//! satisfies). An unsatisfiable abstraction proves the rule; a satisfiable one says nothing
//! (the constants may take values no input gives), and the caller asks the original query.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Dynamic};
use z3::{AstKind, DeclKind, SortKind};

/// Whether a term costs a solver a circuit worth not building twice: an arithmetic
/// operation, not a bit-vector read as a float (`to_fp` of one bit-vector, which is wiring).
fn expensive(t: &Dynamic) -> bool {
    use DeclKind::*;
    if t.kind() != AstKind::App {
        return false;
    }
    let kind = t.decl().kind();
    if kind == FpaToFp && matches!(&t.children()[..], [x] if x.sort_kind() == SortKind::Bv) {
        return false;
    }
    matches!(
        kind,
        Bmul | Bsdiv
            | Budiv
            | Bsrem
            | Burem
            | Bsmod
            | Bsdiv0
            | Budiv0
            | Bsrem0
            | Burem0
            | Bsmod0
            | BsdivI
            | BudivI
            | BsremI
            | BuremI
            | BsmodI
            | FpaAdd
            | FpaSub
            | FpaMul
            | FpaDiv
            | FpaRem
            | FpaFma
            | FpaSqrt
            | FpaRoundToIntegral
            | FpaToFp
            | FpaToFpUnsigned
            | FpaToUbv
            | FpaToSbv
    )
}

/// Every application reachable from `roots` outside quantifiers (a term under one may mention
/// its bound variables), children before parents, each with its depth (a leaf's is 0).
fn terms(roots: &[Bool]) -> Vec<(Dynamic, u32)> {
    let roots: Vec<Dynamic> = roots.iter().map(|r| Dynamic::from_ast(r)).collect();
    terms_of(&roots)
}

/// [`terms`] of any roots.
fn terms_of(roots: &[Dynamic]) -> Vec<(Dynamic, u32)> {
    let mut depth: HashMap<Dynamic, u32> = HashMap::new();
    let mut order = Vec::new();
    let mut stack: Vec<(Dynamic, bool)> = roots.iter().map(|r| (r.clone(), false)).collect();
    while let Some((t, expanded)) = stack.pop() {
        if t.kind() != AstKind::App && t.kind() != AstKind::Numeral || depth.contains_key(&t) {
            continue;
        }
        let children = t.children();
        if expanded {
            let d = children
                .iter()
                .map(|c| depth.get(c).map_or(0, |d| d + 1))
                .max()
                .unwrap_or(0);
            depth.insert(t.clone(), d);
            order.push((t, d));
        } else {
            stack.push((t, true));
            stack.extend(children.into_iter().map(|c| (c, false)));
        }
    }
    order
}

/// A fresh constant standing for `t`.
fn fresh(t: &Dynamic) -> Dynamic {
    Dynamic::fresh_const("shared", &t.get_sort())
}

/// Integer parameter `k` of `t`'s declaration (`extract`'s bounds, `zero_extend`'s count).
fn parameter(t: &Dynamic, k: u32) -> u32 {
    let ctx = t.get_ctx().get_z3_context();
    // SAFETY: `t` is an application of `ctx` (its kind was checked), and every declaration
    // asked here has integer parameters up to `k` (Z3's `extract`, `zero_extend`, ...).
    unsafe {
        let app = z3_sys::Z3_to_app(ctx, t.get_z3_ast()).expect("an application");
        let decl = z3_sys::Z3_get_app_decl(ctx, app).expect("a declaration");
        z3_sys::Z3_get_decl_int_parameter(ctx, decl, k) as u32
    }
}

/// A term's sort as a key: its width, 0 for a Boolean.
fn sort_key(t: &Dynamic) -> Option<u32> {
    match t.sort_kind() {
        SortKind::Bool => Some(0),
        _ => width(t),
    }
}

/// A term's width in bits: a bit-vector's size, a Boolean's 1; `None` for other sorts and
/// past 64 bits.
fn width(t: &Dynamic) -> Option<u32> {
    match t.sort_kind() {
        SortKind::Bool => Some(1),
        SortKind::Bv => t.as_bv().map(|b| b.get_size()).filter(|w| *w <= 64),
        _ => None,
    }
}

/// What evaluating a term needs of it, read from Z3 once rather than once per sample.
struct Node {
    kind: DeclKind,
    /// Its width.
    w: u32,
    /// Its first operand's width (its own where it has none).
    aw: u32,
    /// Its value where it is a numeral; `extract`'s low bit.
    constant: u64,
    /// Each operand's width (`concat`'s).
    widths: Vec<u32>,
}

impl Node {
    /// `t`, of width `w`; `None` for an operand of a sort this evaluator does not know.
    fn of(t: &Dynamic, children: &[Dynamic], w: u32) -> Option<Node> {
        let kind = t.decl().kind();
        let widths: Option<Vec<u32>> = children.iter().map(width).collect();
        let widths = widths?;
        let constant = match kind {
            DeclKind::Bnum => t.as_bv()?.as_u64()?,
            DeclKind::Extract => u64::from(parameter(t, 1)),
            _ => 0,
        };
        Some(Node {
            kind,
            w,
            aw: widths.first().copied().unwrap_or(w),
            constant,
            widths,
        })
    }
}

/// The value of `node` given its operands', `None` for what this evaluator does not know
/// (the floating-point operations among them: only their shared instances are abstracted).
fn evaluate(node: &Node, args: &[u64]) -> Option<u64> {
    use DeclKind::*;
    let (w, aw) = (node.w, node.aw);
    let m = semfuzz_spec::ir::mask(w);
    let am = semfuzz_spec::ir::mask(aw);
    let signed = |v: u64| -> i64 {
        let shift = 64 - aw;
        ((v << shift) as i64) >> shift
    };
    let fold = |f: fn(u64, u64) -> u64| args.iter().copied().reduce(f);
    let b = |c: bool| u64::from(c);
    let v = match node.kind {
        Bnum => node.constant,
        True => 1,
        False => 0,
        Eq | Iff => b(args.windows(2).all(|p| p[0] == p[1])),
        Distinct => b(args[0] != args[1]),
        Ite => {
            if args[0] != 0 {
                args[1]
            } else {
                args[2]
            }
        }
        And => b(args.iter().all(|a| *a != 0)),
        Or => b(args.iter().any(|a| *a != 0)),
        Xor => args[0] ^ args[1],
        Not => b(args[0] == 0),
        Implies => b(args[0] == 0 || args[1] != 0),
        Badd => fold(u64::wrapping_add)?,
        Bsub => args[0].wrapping_sub(args[1]),
        Bmul => fold(u64::wrapping_mul)?,
        Bneg => args[0].wrapping_neg(),
        Band => fold(|x, y| x & y)?,
        Bor => fold(|x, y| x | y)?,
        Bxor => fold(|x, y| x ^ y)?,
        Bnot => !args[0],
        Bshl => args[0]
            .checked_shl(u32::try_from(args[1]).ok()?)
            .unwrap_or(0),
        Blshr => (args[0] & am)
            .checked_shr(u32::try_from(args[1]).ok()?)
            .unwrap_or(0),
        Bashr => {
            let by = u32::try_from(args[1]).unwrap_or(63).min(63);
            (signed(args[0]) >> by) as u64
        }
        Budiv | Budiv0 | BudivI => (args[0] & am).checked_div(args[1] & am).unwrap_or(am),
        Burem | Burem0 | BuremI => (args[0] & am).checked_rem(args[1] & am).unwrap_or(args[0]),
        Uleq => b(args[0] & am <= args[1] & am),
        Ult => b(args[0] & am < args[1] & am),
        Ugeq => b(args[0] & am >= args[1] & am),
        Ugt => b(args[0] & am > args[1] & am),
        Sleq => b(signed(args[0]) <= signed(args[1])),
        Slt => b(signed(args[0]) < signed(args[1])),
        Sgeq => b(signed(args[0]) >= signed(args[1])),
        Sgt => b(signed(args[0]) > signed(args[1])),
        Extract => (args[0] & am) >> node.constant,
        ZeroExt => args[0] & am,
        SignExt => signed(args[0]) as u64,
        Concat => {
            let mut v = 0u64;
            for (a, cw) in args.iter().zip(&node.widths) {
                v = (v << cw) | (a & semfuzz_spec::ir::mask(*cw));
            }
            v
        }
        _ => return None,
    };
    Some(v & m)
}

/// A leaf's value in sample `k`: small numbers in three samples of four (so that loop trip
/// counts vary and stay within their bound), any bits in the fourth; fixed by the leaf's
/// name, so that every round samples the same inputs.
fn leaf_value(t: &Dynamic, k: usize, w: u32) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (t.to_string(), k).hash(&mut h);
    let r = h.finish();
    (if k % 4 == 3 { r } else { r % 17 }) & semfuzz_spec::ir::mask(w)
}

/// Adds to `values` the values of the terms of `order` (children first) in each of
/// [`SAMPLES`] samples; a constant that stands for a term (`meaning`) takes that term's
/// values. A term this evaluator does not know gets none.
fn sample(
    order: &[(Dynamic, u32)],
    meaning: &HashMap<Dynamic, Dynamic>,
    values: &mut HashMap<Dynamic, Vec<u64>>,
) {
    for (t, _) in order {
        let Some(w) = width(t).filter(|_| !values.contains_key(t)) else {
            continue;
        };
        let children = t.children();
        let sig = if children.is_empty() && t.decl().kind() == DeclKind::Uninterpreted {
            match meaning.get(t) {
                Some(m) => match values.get(m) {
                    Some(v) => v.clone(),
                    None => continue,
                },
                None => (0..SAMPLES).map(|k| leaf_value(t, k, w)).collect(),
            }
        } else {
            let args: Option<Vec<&Vec<u64>>> = children.iter().map(|c| values.get(c)).collect();
            let (Some(args), Some(node)) = (args, Node::of(t, &children, w)) else {
                continue;
            };
            let mut a = vec![0; args.len()];
            let sig: Option<Vec<u64>> = (0..SAMPLES)
                .map(|k| {
                    for (slot, v) in a.iter_mut().zip(&args) {
                        *slot = v[k];
                    }
                    evaluate(&node, &a)
                })
                .collect();
            let Some(sig) = sig else { continue };
            sig
        };
        values.insert(t.clone(), sig);
    }
}

/// The two sides of a query, as [`abstract_shared`] reads them.
pub struct Sides {
    /// What the target's alternatives state.
    pub target: Vec<Bool>,
    /// What the source's alternatives state, their definitions too.
    pub source: Vec<Bool>,
    /// Facts every model of the query satisfies (each side ran within its loops' bound):
    /// two terms equal where these hold are merged, since the query asks nothing elsewhere.
    pub within: Vec<Bool>,
}

/// How long one candidate equality may take the solver.
const CANDIDATE_MS: u32 = 300;
/// How many assignments tell candidate pairs apart.
const SAMPLES: usize = 256;
/// How many expensive terms a target computes before its work is worth abstracting: below
/// it, the solvers decide the whole query about as fast.
const LARGE_WORK: usize = 8;
/// How many target terms agreeing with a source term on every sample are tried against it.
const PARTNERS: usize = 4;
/// How many rounds of abstraction and merging a query gets.
const ROUNDS: usize = 256;

/// Whether `s` and `t` are equal wherever `within` holds, as the solver proves within
/// `ms` milliseconds. The values both are built from (bit-vectors, not conditions) become
/// fresh constants first: equal for any values of them, equal for theirs; the conditions,
/// whose relations a proof usually needs, stay.
fn proved_equal(s: &Dynamic, t: &Dynamic, within: &[Bool], ms: u32) -> bool {
    let in_s: HashSet<Dynamic> = terms_of(std::slice::from_ref(s))
        .into_iter()
        .map(|(x, _)| x)
        .collect();
    let common: Vec<(Dynamic, Dynamic)> = terms_of(std::slice::from_ref(t))
        .into_iter()
        .filter(|(x, _)| {
            in_s.contains(x) && x.sort_kind() == SortKind::Bv && !x.children().is_empty()
        })
        .map(|(x, _)| {
            let c = fresh(&x);
            (x, c)
        })
        .collect();
    let pairs: Vec<(&Dynamic, &Dynamic)> = common.iter().map(|(a, b)| (a, b)).collect();
    let mut differ: Vec<Bool> = within.iter().map(|f| f.substitute(&pairs)).collect();
    differ.push(s.substitute(&pairs).eq(t.substitute(&pairs)).not());
    crate::solve::z3(&differ, &[], ms) == crate::solve::Answer::Proved
}

/// How far above the lowest pair proved equal a round goes on trying others: pairs close in
/// depth rarely contain one another, and those higher up are easier once these are merged.
const DEPTH_SLACK: u32 = 2;

/// The lowest pairs (a source term, a target term) that agree on every sample and that the
/// solver proves equal, among those not tried before: the first found, and the others within
/// [`DEPTH_SLACK`] of its depth.
fn provable_pairs(
    source: &[(Dynamic, u32)],
    target: &[(Dynamic, u32)],
    within: &[Bool],
    meanings: &[(Dynamic, Dynamic)],
    tried: &mut HashSet<(Dynamic, Dynamic)>,
    deadline: Instant,
) -> Vec<(Dynamic, Dynamic)> {
    let in_target: HashSet<&Dynamic> = target.iter().map(|(t, _)| t).collect();
    let in_source: HashSet<&Dynamic> = source.iter().map(|(t, _)| t).collect();
    // Each constant is sampled as the term it stands for, in the order they were made (a
    // term may mention earlier constants), so that samples follow the inputs.
    let meaning: HashMap<Dynamic, Dynamic> = meanings.iter().cloned().collect();
    let mut sig = HashMap::new();
    for (_, m) in meanings {
        let order = terms_of(std::slice::from_ref(m));
        sample(&order, &meaning, &mut sig);
    }
    let mut all: Vec<(Dynamic, u32)> = source.to_vec();
    all.extend(target.iter().cloned());
    all.extend(terms(within));
    sample(&all, &meaning, &mut sig);
    // Only the samples where the facts hold tell terms apart.
    let kept: Vec<usize> = (0..SAMPLES)
        .filter(|k| {
            within
                .iter()
                .all(|f| sig.get(&Dynamic::from_ast(f)).is_none_or(|v| v[*k] == 1))
        })
        .collect();
    for v in sig.values_mut() {
        *v = kept.iter().map(|k| v[*k]).collect();
    }
    // Target terms by (values, sort): the partners a source term may have.
    type Partners<'a> = HashMap<(&'a Vec<u64>, u32), Vec<(&'a Dynamic, u32)>>;
    let mut by_value: Partners = HashMap::new();
    for (t, d) in target {
        if in_source.contains(t) || t.children().is_empty() || expensive(t) {
            continue;
        }
        if let (Some(v), Some(w)) = (sig.get(t), sort_key(t)) {
            if v.iter().any(|x| *x != v[0]) {
                by_value.entry((v, w)).or_default().push((t, *d));
            }
        }
    }
    // An expensive term is never a candidate: it becomes shared once what it is built on is
    // merged, and a solver asked about it would build its circuit.
    let mut pairs: Vec<(u32, &Dynamic, &Dynamic)> = source
        .iter()
        .filter(|(s, _)| !in_target.contains(s) && !s.children().is_empty() && !expensive(s))
        .flat_map(|(s, d)| {
            let partners = sig
                .get(s)
                .zip(sort_key(s))
                .and_then(|key| by_value.get(&key))
                .map_or(&[][..], Vec::as_slice);
            partners
                .iter()
                .take(PARTNERS)
                .map(move |(t, e)| ((*d).max(*e), s, *t))
        })
        .collect();
    pairs.sort_by_key(|(d, ..)| *d);
    let mut proved = Vec::new();
    let mut lowest = None;
    for (depth, s, t) in pairs {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || lowest.is_some_and(|l| depth > l + DEPTH_SLACK) {
            break;
        }
        if !tried.insert((s.clone(), t.clone())) {
            continue;
        }
        let ms = u32::try_from(left.as_millis()).unwrap_or(u32::MAX);
        if proved_equal(s, t, within, ms.min(CANDIDATE_MS)) {
            lowest.get_or_insert(depth);
            proved.push((s.clone(), t.clone()));
        }
    }
    proved
}

/// `query` with the work both sides share abstracted, where the target does at least
/// [`LARGE_WORK`] expensive operations: every expensive term that both sides
/// reach becomes a fresh constant; where they share none, the target's terms that the solver
/// proves equal to source terms (found by sampling, tried lowest first, equal where
/// [`Sides::within`] holds) become those source terms, which makes the terms above them
/// shared; round after round, until nothing changes or `budget` is spent. `None` where
/// nothing changed.
pub fn abstract_shared(sides: &Sides, query: &[Bool], budget: Duration) -> Option<Vec<Bool>> {
    let deadline = Instant::now() + budget;
    let (mut target, mut source, mut within, mut query) = (
        sides.target.clone(),
        sides.source.clone(),
        sides.within.clone(),
        query.to_vec(),
    );
    let mut tried = HashSet::new();
    // (constant, the term it stands for), in the order made.
    let mut meanings: Vec<(Dynamic, Dynamic)> = Vec::new();
    let mut changed = false;
    let target_work = terms(&target).iter().filter(|(t, _)| expensive(t)).count();
    if target_work < LARGE_WORK {
        return None;
    }
    for _ in 0..ROUNDS {
        let (t_terms, s_terms) = (terms(&target), terms(&source));
        let in_target: HashSet<&Dynamic> = t_terms.iter().map(|(t, _)| t).collect();
        let shared: Vec<(Dynamic, Dynamic)> = s_terms
            .iter()
            .filter(|(s, _)| in_target.contains(s) && expensive(s))
            .map(|(s, _)| (s.clone(), fresh(s)))
            .collect();
        meanings.extend(shared.iter().map(|(term, c)| (c.clone(), term.clone())));
        // The target's term becomes the source's: the two sides then share what is built on
        // it, and the term keeps its meaning (a fresh constant would lose how it relates to
        // the others).
        let round = if shared.is_empty() {
            provable_pairs(&s_terms, &t_terms, &within, &meanings, &mut tried, deadline)
                .into_iter()
                .map(|(s, t)| (t, s))
                .collect()
        } else {
            shared
        };
        if round.is_empty() {
            break;
        }
        changed = true;
        // Z3 replaces the outermost term the list names, so a shared term inside another
        // one stays hidden in that one's constant.
        let pairs: Vec<(&Dynamic, &Dynamic)> = round.iter().map(|(a, b)| (a, b)).collect();
        for formulas in [&mut target, &mut source, &mut within, &mut query] {
            for f in formulas.iter_mut() {
                *f = f.substitute(&pairs);
            }
        }
    }
    changed.then_some(query)
}

/// How long the solver may take to show that a NaN's replacement is a NaN ([`nan_blind`]):
/// the replacement does no arithmetic, so it is wiring.
const NAN_MS: u32 = 200;

/// `query` with each floating-point `ite(fp.isNaN(x), y, x)` whose `y` is a NaN at every input
/// replaced by `x`: the same value, since the floating-point sort has one NaN. A side that
/// picks a NaN's bits before computing on it (the target's canonical NaN of `sqrt.rn.f64`
/// fed to `div.rn.f64`, the source's pinned one) then computes on the same term as the
/// other, and the work both do becomes one term that [`abstract_all_work`] abstracts once.
/// `y` must do no expensive work, so that asking whether it is always a NaN is quick; past
/// `deadline` the rest stay as they are.
fn nan_blind(query: &[Bool], deadline: Instant) -> Vec<Bool> {
    let mut query = query.to_vec();
    loop {
        let found: Vec<(Dynamic, Dynamic)> = terms(&query)
            .into_iter()
            .filter_map(|(t, _)| {
                if t.sort_kind() != SortKind::FloatingPoint || t.decl().kind() != DeclKind::Ite {
                    return None;
                }
                let [c, y, x] = <[Dynamic; 3]>::try_from(t.children()).ok()?;
                let tested = c.children();
                let is_nan_of_x = c.kind() == AstKind::App
                    && c.decl().kind() == DeclKind::FpaIsNan
                    && tested.first() == Some(&x);
                let cheap = || {
                    terms_of(std::slice::from_ref(&y))
                        .iter()
                        .all(|(u, _)| !expensive(u))
                };
                let always_nan = || {
                    if Instant::now() >= deadline {
                        return None;
                    }
                    let not_nan = y.as_float().map(|f| f.is_nan().not())?;
                    Some(crate::solve::z3(&[not_nan], &[], NAN_MS) == crate::solve::Answer::Proved)
                };
                (is_nan_of_x && cheap() && always_nan() == Some(true)).then_some((t, x))
            })
            .collect();
        if found.is_empty() {
            return query;
        }
        let pairs: Vec<(&Dynamic, &Dynamic)> = found.iter().map(|(a, b)| (a, b)).collect();
        query = query.iter().map(|f| f.substitute(&pairs)).collect();
    }
}

/// `query` with every expensive term (outside quantifiers) replaced by a fresh constant, the
/// same term by the same constant: sound for proofs as [`abstract_shared`]'s constants are
/// (a model of `query` is one of the result with each constant set to its term's value), and
/// enough where the two sides do the same work once their conditions are settled. NaNs are
/// made blind to their bits first ([`nan_blind`], until `deadline`). `None` where `query` has
/// no such term.
pub fn abstract_all_work(query: &[Bool], deadline: Instant) -> Option<Vec<Bool>> {
    let query = nan_blind(query, deadline);
    let query = query.as_slice();
    let work: Vec<(Dynamic, Dynamic)> = terms(query)
        .into_iter()
        .filter(|(t, _)| expensive(t))
        .map(|(t, _)| {
            let c = fresh(&t);
            (t, c)
        })
        .collect();
    if work.is_empty() {
        return None;
    }
    let pairs: Vec<(&Dynamic, &Dynamic)> = work.iter().map(|(a, b)| (a, b)).collect();
    Some(query.iter().map(|f| f.substitute(&pairs)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    /// [`abstract_shared`] of `query` posed on a target stating `t` and a source stating
    /// `s`, with no loops, within 5 s.
    fn abstract_two(t: &Bool, s: &Bool, query: &[Bool]) -> Option<Vec<Bool>> {
        let sides = Sides {
            target: vec![t.clone()],
            source: vec![s.clone()],
            within: Vec::new(),
        };
        abstract_shared(&sides, query, Duration::from_secs(5))
    }

    fn unsat(query: &[Bool]) -> bool {
        let solver = z3::Solver::new();
        for q in query {
            solver.assert(q);
        }
        solver.check() == z3::SatResult::Unsat
    }

    /// [`LARGE_WORK`] rounds of a product and a shift, as a hash function's.
    fn chain(v: BV) -> BV {
        (0..LARGE_WORK as u64).fold(v, |acc, k| {
            acc.bvmul(BV::from_u64(0x9e37_79b1 + 2 * k, 32))
                .bvxor(acc.bvlshr(BV::from_u64(7 + k, 32)))
        })
    }

    fn inputs() -> (BV, BV, BV, BV) {
        (
            BV::new_const("x", 32),
            BV::new_const("y", 32),
            BV::new_const("n", 32),
            BV::new_const("out", 32),
        )
    }

    #[test]
    fn shared_products_become_constants_and_the_rest_stays() {
        let (x, _, n, out) = inputs();
        // The source picks the chain where n > 0; the target where 1 <= n, written
        // differently: the same choice, the same products.
        let source = n.bvsgt(BV::from_u64(0, 32)).ite(&chain(x.clone()), &x);
        let target = BV::from_u64(1, 32).bvsle(&n).ite(&chain(x.clone()), &x);
        let (t, s) = (out.eq(&target), out.eq(&source));
        let abstracted = abstract_two(&t, &s, &[t.clone(), s.not()]).expect("shared");
        assert!(unsat(&abstracted));
        assert!(!format!("{abstracted:?}").contains("bvmul"));
        // A target that differs stays satisfiable, whatever is abstracted.
        let other = out.eq(chain(x.clone()).bvadd(BV::from_u64(1, 32)));
        let q = abstract_two(&other, &s, &[other.clone(), s.not()]).expect("shared");
        assert!(!unsat(&q));
        // An abstraction that keeps what a proof needs proves it (v + v = v << 1 of any
        // v); one that loses it does not (v * v = v + v is false of some v).
        let v = chain(x.clone());
        let twice = out.eq(v.bvadd(&v));
        let shifted = out.eq(v.bvshl(BV::from_u64(1, 32)));
        let q = abstract_two(&twice, &shifted, &[twice.clone(), shifted.not()]).expect("shared");
        assert!(unsat(&q));
        let squared = out.eq(v.bvmul(&v));
        let q = abstract_two(&squared, &twice, &[squared.clone(), twice.not()]).expect("shared");
        assert!(!unsat(&q));
        // Small work is left to the solvers.
        let small = out.eq(x.bvmul(&n));
        assert!(abstract_two(&small, &small, &[small.clone(), small.not()]).is_none());
    }

    /// `sqrt.rn.f64` then `div.rn.f64` on both sides, one side picking a NaN's bits between
    /// them (a canonical NaN, or the input's quieted): the same value in the floating-point
    /// sort, so with NaNs made blind the two divisions are one term and the query is proved
    /// by structure. A side that puts a number there instead is not rewritten and not proved.
    #[test]
    fn a_nan_picked_between_two_operations_is_the_same_value() {
        use crate::fpbits::fp_from_bits;
        let (a, b, out) = (
            BV::new_const("a", 64),
            BV::new_const("b", 64),
            z3::ast::Float::new_const("out", 11, 53),
        );
        let rne = z3::ast::RoundingMode::round_nearest_ties_to_even();
        let (fa, fb) = (fp_from_bits(&a, 11, 53), fp_from_bits(&b, 11, 53));
        let root = fa.sqrt_with_rounding_mode(&rne);
        let quieted = fp_from_bits(&a.bvor(BV::from_u64(1 << 51, 64)), 11, 53);
        let nan = z3::ast::Float::nan(&crate::fpbits::fp_sort(11, 53));
        let picked = root.is_nan().ite(&fa.is_nan().ite(&quieted, &nan), &root);
        let source = out.eq(root.div_with_rounding_mode(&fb, &rne));
        let target = out.eq(picked.div_with_rounding_mode(&fb, &rne));
        let query = [target.clone(), source.not()];
        let soon = Instant::now() + Duration::from_secs(5);
        let abstracted = abstract_all_work(&query, soon).expect("work");
        assert!(unsat(&abstracted));
        // A number in the NaN's place: another value, left as it is.
        let other = root.is_nan().ite(&fa, &root);
        let target = out.eq(other.div_with_rounding_mode(&fb, &rne));
        let abstracted = abstract_all_work(&[target, source.not()], soon).expect("work");
        assert!(!unsat(&abstracted));
    }

    #[test]
    fn terms_proved_equal_are_merged_and_the_work_above_them_becomes_shared() {
        let (x, y, n, out) = inputs();
        // A value joined under conditions written differently, then the same chain of
        // products on each side: shared only once the joins are known equal.
        let joined_source = n.bvsgt(BV::from_u64(0, 32)).ite(&x, &y);
        let joined_target = BV::from_u64(1, 32).bvsle(&n).ite(&x, &y);
        let t = out.eq(chain(joined_target));
        let s = out.eq(chain(joined_source));
        let q = abstract_two(&t, &s, &[t.clone(), s.not()]).expect("merged");
        assert!(unsat(&q));
        assert!(!format!("{q:?}").contains("bvmul"));
        // Joins that differ (n >= 0 against n > 0) are never merged.
        let off = out.eq(chain(n.bvsge(BV::from_u64(0, 32)).ite(&x, &y)));
        if let Some(q) = abstract_two(&off, &s, &[off.clone(), s.not()]) {
            assert!(!unsat(&q));
        }
        // Joins equal only within what every model satisfies (0 < n < 100, as a loop bound
        // gives) are merged under that fact (the target's `n <u 100` is then the source's
        // `0 < n`), and never without it.
        let within = vec![n.bvsgt(BV::from_u64(0, 32)), n.bvslt(BV::from_u64(100, 32))];
        let bounded_target = out.eq(chain(n.bvult(BV::from_u64(100, 32)).ite(&x, &y)));
        let sides = Sides {
            target: vec![bounded_target.clone()],
            source: vec![s.clone()],
            within: within.clone(),
        };
        let mut query = within.clone();
        query.extend([bounded_target.clone(), s.not()]);
        let q = abstract_shared(&sides, &query, Duration::from_secs(5)).expect("merged");
        assert!(unsat(&q));
        let unbounded = Sides {
            within: Vec::new(),
            ..sides
        };
        let query = [bounded_target, s.not()];
        if let Some(q) = abstract_shared(&unbounded, &query, Duration::from_secs(5)) {
            assert!(!unsat(&q));
        }
    }
}
