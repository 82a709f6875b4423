//! Witness inputs: for each run-time branch and each rounding boundary of a variant's
//! program, an input tuple that reaches it.
//!
//! A random or boundary-heavy input stream rarely hits an exact rounding tie or a result just
//! below the overflow threshold; Z3 finds such inputs directly. Every goal is "this branch or
//! boundary, and the op it concerns is *live*": its value reaches a destination part along the
//! select arms the inputs take, so a witness for the inner select of `min` really gets past
//! the outer NaN tests, and a boundary of a lane's multiply is one of that lane's inputs.
//! Each goal is first tried on a few hundred boundary-heavy and special-value tuples (Z3's
//! simplifier folds the ops on constants, far cheaper than solving); Z3 solves the rest.
//!
//! The boundaries are stated with the op's result under several rounding modes, which the FP
//! theory expresses directly (`x` the exact result, `max` the largest finite value):
//! - exact tie: RNE and RNA round `x` differently (x is halfway, and the even neighbour is the
//!   one toward zero);
//! - overflow: RZ gives ±max while RNE gives ±infinity (|x| >= max + ½ulp, x finite);
//! - just below overflow: RNE gives ±max while rounding away from zero gives ±infinity
//!   (max < |x| < max + ½ulp);
//! - subnormal threshold: RNE gives ±min-normal while RZ gives a subnormal (x is just below
//!   the smallest normal, so tininess before and after rounding disagree).
//!
//! NaN results are the format's default NaN ([`NanBits::Pinned`]): a witness never relies on
//! a NaN payload Z3 chose.
//!
//! Queries are bounded by a Z3 resource limit (`rlimit`), deterministic unlike a wall clock,
//! sized so that a query spends at most about `timeout_ms` of CPU on the project's development
//! machine, with a wall-clock limit of ten times that as a backstop (a shared machine's load
//! stretches wall time, and a query cut by the clock is where determinism ends). Each call
//! works in a fresh Z3 context with fixed random seeds, so the same variant gives the same
//! witnesses in the same order.

use crate::encode::{encode, float, rounded, truth, NanBits};
use semfuzz_fp::{Format, Round};
use semfuzz_spec::catalog::{FormatInfo, ModifierKind, OperandRole};
use semfuzz_spec::ir::{Class, Cmp, Op, Outcome, Program, Shift, ValueId};
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::collections::{BTreeSet, HashSet};
use z3::ast::{Ast, Bool, Float, BV};
use z3::{Params, SatResult, Solver};

/// One input tuple Z3 found, and the spec branch or rounding boundary it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    /// One value per entry of `variant.sources`, in order (as `semfuzz check` reads them).
    pub inputs: Vec<u64>,
    /// What it reaches, e.g. `tie: add.rn.f32(a, b) is halfway (rn and rna differ)`.
    pub reason: String,
}

/// The witnesses of one variant, and how many queries found none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WitnessReport {
    /// The witnesses, in the program's op order.
    pub witnesses: Vec<Witness>,
    /// Queries Z3 proved unsatisfiable (the branch or boundary cannot be reached).
    pub unsat: usize,
    /// Queries Z3 gave up on (resource or time limit).
    pub unknown: usize,
}

/// Z3 resource units (`rlimit`) per millisecond of CPU: 3,000 to 4,500 measured on this
/// project's development machine on f32 and f64 division and fma queries (docs/BENCHMARKS.md).
const RLIMIT_PER_MS: u64 = 3_000;

/// Boundary-heavy input tuples tried on each goal before Z3 is asked, and at most as many
/// combinations of special values ([`candidates`]): an ordinary branch (a NaN operand, a
/// zero) is usually among them, and evaluating a goal on constants costs Z3's simplifier well
/// under a millisecond where solving it can take seconds (fma, f64).
const SAMPLES: usize = 256;

/// Seed of those tuples (fixed: witnesses are deterministic).
const SAMPLE_SEED: u64 = 7;

/// Witnesses for `variant`: for each run-time branch of its lowered program (each select
/// condition, both ways) and each rounding boundary of each rounded FP operation (an exact
/// tie, just below overflow, at the subnormal threshold), an input tuple reaching it.
/// Queries that time out or are unsatisfiable are skipped (counted in the report).
pub fn witnesses(spec: &Spec, variant: &Variant, timeout_ms: u32) -> WitnessReport {
    // A fresh context per call: Z3's answers depend on its terms' internal ids, which a
    // context reused from earlier calls numbers differently.
    z3::with_z3_config(&z3::Config::new(), || in_context(spec, variant, timeout_ms))
}

fn in_context(spec: &Spec, variant: &Variant, timeout_ms: u32) -> WitnessReport {
    let program = &variant.program;
    let enc = encode(program, "w_", NanBits::Pinned);
    let names = Names::new(spec, variant);
    let values = enc.values();
    let mut domain = enc.ctx.definitions();
    for (input, source) in enc.inputs.iter().zip(&variant.sources) {
        if let OperandRole::Modifier {
            kind: ModifierKind::Member { members, .. },
            ..
        } = &source.role
        {
            // A field wide enough for more indices than there are members: bound it.
            let count = members.len() as u64;
            if count <= semfuzz_spec::ir::mask(input.get_size()) {
                domain.push(input.bvult(BV::from_u64(count, input.get_size())));
            }
        }
    }
    let live = liveness(program, &values);
    let parts = parts_reaching(program);
    let n_parts: usize = program.dests.iter().map(|d| d.parts.len()).sum();
    let mut goals: Vec<(Bool, String)> = Vec::new();
    for (i, op) in program.ops.iter().enumerate() {
        let live_i = &live[i];
        if live_i.as_bool() == Some(false) {
            continue;
        }
        let prefix = names.parts_prefix(&parts[i], n_parts);
        if let Op::Select(c, _, _) = op {
            let cond = truth(&values[*c as usize]);
            for (taken, g) in [(true, cond.clone()), (false, cond.not())] {
                goals.push((
                    live_i & g,
                    format!(
                        "{prefix}select v{i} on {}: {taken}",
                        names.value(program, *c, 2)
                    ),
                ));
            }
        }
        for (goal, what) in boundaries(op, &values) {
            goals.push((
                live_i & goal,
                format!("{prefix}{what}: {}", names.value(program, i as ValueId, 2)),
            ));
        }
    }
    for d in &program.dests {
        for (j, part) in d.parts.iter().enumerate() {
            let name = d.part_name(j);
            let all = Bool::from_bool(true);
            outcome_branches(&part.outcome, &all, &values, &mut |path, c| {
                let cond = truth(&values[c as usize]);
                for (taken, g) in [(true, cond.clone()), (false, cond.not())] {
                    goals.push((
                        path & g,
                        format!(
                            "{name}: outcome select on {}: {taken}",
                            names.value(program, c, 2)
                        ),
                    ));
                }
            });
        }
    }
    let query = Query {
        domain,
        inputs: &enc.inputs,
        rlimit: u64::from(timeout_ms) * RLIMIT_PER_MS,
        timeout_ms: timeout_ms.saturating_mul(10),
    };
    let candidates = candidates(spec, variant);
    let mut report = WitnessReport::default();
    let mut asked = HashSet::new();
    let mut seen: Vec<Vec<u64>> = Vec::new();
    for (goal, reason) in goals {
        let goal = goal.simplify();
        if goal.as_bool() == Some(false) {
            report.unsat += 1;
            continue;
        }
        if !asked.insert(goal.clone()) {
            continue;
        }
        let sampled = candidates
            .iter()
            .find(|c| !seen.contains(c) && query.holds(&goal, c))
            .cloned();
        match sampled.map_or_else(|| query.solve(&goal, &seen), Answer::Sat) {
            Answer::Sat(inputs) => {
                seen.push(inputs.clone());
                report.witnesses.push(Witness { inputs, reason });
            }
            Answer::Unsat => report.unsat += 1,
            Answer::Unknown => report.unknown += 1,
        }
    }
    report
}

/// The tuples tried on each goal before Z3: boundary-heavy samples, then every combination of
/// a few special values per operand (0, -0, ±inf, NaN, 1, the smallest subnormal, the largest
/// finite value) up to [`SAMPLES`] tuples, e.g. inf × 0 for an invalid multiplication, which
/// random tuples of wide formats rarely hold and Z3 bit-blasts slowly.
fn candidates(spec: &Spec, variant: &Variant) -> Vec<Vec<u64>> {
    let mut samples = Samples::new(spec, variant, SAMPLE_SEED);
    let mut tuples: Vec<Vec<u64>> = (0..SAMPLES)
        .map(|_| {
            let mut tuple = vec![0; variant.sources.len()];
            samples.fill(&mut tuple);
            tuple
        })
        .collect();
    let specials: Vec<Vec<u64>> = variant
        .sources
        .iter()
        .map(|s| match (&s.role, spec.format(&s.ty)) {
            (
                OperandRole::Modifier {
                    kind: ModifierKind::Member { members, .. },
                    ..
                },
                _,
            ) => (0..members.len() as u64).collect(),
            (_, Some(FormatInfo::Scalar(f))) => special_values(f, 1),
            (_, Some(FormatInfo::Packed(f, n))) => special_values(f, n),
            _ => vec![0, 1],
        })
        .collect();
    // Mixed radix over the operands, the first fastest.
    let combinations = specials.iter().map(Vec::len).product::<usize>();
    for mut k in 0..combinations.min(SAMPLES) {
        let mut tuple = Vec::with_capacity(specials.len());
        for values in &specials {
            tuple.push(values[k % values.len()]);
            k /= values.len();
        }
        tuples.push(tuple);
    }
    tuples
}

/// A few special values of `f`, each in all `lanes` lanes of a register.
fn special_values(f: Format, lanes: u32) -> Vec<u64> {
    [
        f.zero(false),
        f.zero(true),
        f.inf(false),
        f.inf(true),
        f.default_nan(),
        f.one(false),
        f.min_subnormal(false),
        f.max_finite(false),
    ]
    .into_iter()
    .map(|x| (0..lanes).fold(0, |acc, l| acc | (x << (l * f.width()))))
    .collect()
}

/// For each value, the formula under which it reaches a destination part: an argument of a
/// non-select op is live when the op is, a select's condition too, and its arms each when
/// the select is live and the condition picks that arm; outcome trees likewise.
fn liveness(program: &semfuzz_spec::ir::Program, values: &[BV]) -> Vec<Bool> {
    let n = program.ops.len();
    let mut uses: Vec<Vec<Bool>> = vec![Vec::new(); n];
    for d in &program.dests {
        for p in &d.parts {
            outcome_uses(&p.outcome, &Bool::from_bool(true), values, &mut uses);
        }
    }
    let mut live = vec![Bool::from_bool(false); n];
    for i in (0..n).rev() {
        let l = match uses[i].as_slice() {
            [] => Bool::from_bool(false),
            [one] => one.clone(),
            many => Bool::or(many).simplify(),
        };
        if l.as_bool() != Some(false) {
            match &program.ops[i] {
                Op::Select(c, a, b) => {
                    let cond = truth(&values[*c as usize]);
                    uses[*c as usize].push(l.clone());
                    uses[*a as usize].push(&l & &cond);
                    uses[*b as usize].push(&l & cond.not());
                }
                op => {
                    for a in op.args() {
                        uses[a as usize].push(l.clone());
                    }
                }
            }
        }
        live[i] = l;
    }
    live
}

/// Records in `uses` the path conditions under which `o` reads each value.
fn outcome_uses(o: &Outcome, path: &Bool, values: &[BV], uses: &mut [Vec<Bool>]) {
    match o {
        Outcome::Select(c, a, b) => {
            let cond = truth(&values[*c as usize]);
            uses[*c as usize].push(path.clone());
            outcome_uses(a, &(path & &cond), values, uses);
            outcome_uses(b, &(path & cond.not()), values, uses);
        }
        leaf => {
            let mut read = Vec::new();
            leaf.values(&mut read);
            for v in read {
                uses[v as usize].push(path.clone());
            }
        }
    }
}

/// Calls `branch(path, cond)` for each select of the outcome tree, in preorder, with the
/// path condition under which it is reached.
fn outcome_branches(
    o: &Outcome,
    path: &Bool,
    values: &[BV],
    branch: &mut impl FnMut(&Bool, ValueId),
) {
    if let Outcome::Select(c, a, b) = o {
        branch(path, *c);
        let cond = truth(&values[*c as usize]);
        outcome_branches(a, &(path & &cond), values, branch);
        outcome_branches(b, &(path & cond.not()), values, branch);
    }
}

/// The destination parts (numbered across destinations) whose outcome reads each value,
/// directly or through other ops.
fn parts_reaching(program: &semfuzz_spec::ir::Program) -> Vec<BTreeSet<usize>> {
    let mut reach = vec![BTreeSet::new(); program.ops.len()];
    let mut k = 0;
    for d in &program.dests {
        for p in &d.parts {
            let mut read = Vec::new();
            p.outcome.values(&mut read);
            for v in read {
                reach[v as usize].insert(k);
            }
            k += 1;
        }
    }
    for i in (0..program.ops.len()).rev() {
        let r = reach[i].clone();
        for a in program.ops[i].args() {
            reach[a as usize].extend(r.iter().copied());
        }
    }
    reach
}

/// The rounding-boundary goals of a rounded op (none for other ops), with their names.
/// Goals that cannot hold are not posed: a widening conversion is exact, and a square root
/// never overflows, never rounds to a subnormal (its result is at least
/// 2^((emin - p + 1) / 2) >= 2^emin for every format with p <= bias) and is never a tie.
fn boundaries(op: &Op, values: &[BV]) -> Vec<(Bool, &'static str)> {
    let Some((f, _)) = rounded(op, values, None) else {
        return Vec::new();
    };
    let mut kinds = vec![true; 4];
    match op {
        Op::Sqrt(..) => return Vec::new(),
        // A sum below the smallest normal is exact (both operands are multiples of the
        // smallest subnormal), so sums never round at the subnormal threshold.
        Op::Add(..) | Op::Sub(..) => kinds[3] = false,
        Op::Cvt(from, to, ..)
            if to.exp_bits() >= from.exp_bits() && to.precision() >= from.precision() =>
        {
            return Vec::new()
        }
        _ => {}
    }
    let under = |r: Round| {
        rounded(op, values, Some(r))
            .map(|(_, x)| x)
            .expect("a rounded op")
    };
    let (rne, rna, rz, up, down) = (
        under(Round::NearestEven),
        under(Round::NearestAway),
        under(Round::TowardZero),
        under(Round::Up),
        under(Round::Down),
    );
    let constant = |bits: u64| float(&BV::from_u64(bits, f.width()), f);
    let is_abs = |x: &Float, bits: u64| x.unary_abs().eq(constant(bits));
    let max = f.max_finite(false);
    let goals = [
        (rne.eq(&rna).not(), "tie (rn and rna differ)"),
        (
            is_abs(&rz, max) & rne.is_infinite(),
            "overflow (rn gives infinity, rz max-finite)",
        ),
        (
            is_abs(&rne, max) & (up.is_infinite() | down.is_infinite()),
            "just below overflow (rn gives max-finite, rounding away from zero infinity)",
        ),
        (
            is_abs(&rne, f.min_normal(false)) & rz.is_subnormal(),
            "subnormal threshold (rn gives min-normal, rz a subnormal)",
        ),
    ];
    goals
        .into_iter()
        .zip(kinds)
        .filter_map(|(g, posed)| posed.then_some(g))
        .collect()
}

enum Answer {
    Sat(Vec<u64>),
    Unsat,
    Unknown,
}

/// What every query of a variant shares.
struct Query<'e> {
    /// Facts about the inputs (modifier fields below their member count).
    domain: Vec<Bool>,
    inputs: &'e [BV],
    rlimit: u64,
    timeout_ms: u32,
}

impl Query<'_> {
    /// Whether `goal` holds on the inputs `tuple` (Z3 folds the ops on constants).
    fn holds(&self, goal: &Bool, tuple: &[u64]) -> bool {
        let constants: Vec<BV> = self
            .inputs
            .iter()
            .zip(tuple)
            .map(|(i, v)| BV::from_u64(*v, i.get_size()))
            .collect();
        let pairs: Vec<(&BV, &BV)> = self.inputs.iter().zip(&constants).collect();
        let domain = Bool::and(&self.domain);
        (goal & domain).substitute(&pairs).simplify().as_bool() == Some(true)
    }

    /// One fresh solver per query: Z3's non-incremental FP tactic bit-blasts far faster than
    /// the incremental core a `push` would switch it to.
    fn check(&self, goal: &Bool, exclude: &[Vec<u64>]) -> (SatResult, Option<Vec<u64>>, u64) {
        let solver = Solver::new();
        let mut params = Params::new();
        params.set_u32("timeout", self.timeout_ms);
        params.set_u32("rlimit", u32::try_from(self.rlimit).unwrap_or(u32::MAX));
        params.set_u32("random_seed", 0);
        solver.set_params(&params);
        for d in &self.domain {
            solver.assert(d);
        }
        solver.assert(goal);
        for tuple in exclude {
            let same: Vec<Bool> = self
                .inputs
                .iter()
                .zip(tuple)
                .map(|(i, v)| i.eq(BV::from_u64(*v, i.get_size())))
                .collect();
            solver.assert(Bool::and(&same).not());
        }
        let before = resources_used(&solver);
        let result = crate::solve::check_within(&solver, self.timeout_ms);
        let used = resources_used(&solver).saturating_sub(before);
        let model = (result == SatResult::Sat).then(|| {
            let m = solver.get_model();
            self.inputs
                .iter()
                .map(|i| {
                    m.as_ref()
                        .and_then(|m| m.eval(i, true))
                        .and_then(|b| b.as_u64())
                        .unwrap_or(0)
                })
                .collect()
        });
        (result, model, used)
    }

    /// Solves `goal`; a trivial answer (all zeros, or a tuple an earlier goal already gave)
    /// is asked once more with those tuples excluded, when the first answer was cheap.
    fn solve(&self, goal: &Bool, seen: &[Vec<u64>]) -> Answer {
        match self.check(goal, &[]) {
            (SatResult::Sat, Some(inputs), used) => {
                let trivial = inputs.iter().all(|&v| v == 0) || seen.contains(&inputs);
                if trivial && used < self.rlimit / 4 {
                    let mut exclude = seen.to_vec();
                    exclude.push(vec![0; inputs.len()]);
                    if let (SatResult::Sat, Some(other), _) = self.check(goal, &exclude) {
                        return Answer::Sat(other);
                    }
                }
                Answer::Sat(inputs)
            }
            (SatResult::Unsat, ..) => Answer::Unsat,
            _ => Answer::Unknown,
        }
    }
}

/// Z3's resource counter (`rlimit count`), which counts across the context.
fn resources_used(solver: &Solver) -> u64 {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
        Some(z3::StatisticsValue::Double(d)) => d as u64,
        None => 0,
    }
}

/// How values are shown in reasons.
struct Names<'v> {
    spec: &'v Spec,
    variant: &'v Variant,
}

impl<'v> Names<'v> {
    fn new(spec: &'v Spec, variant: &'v Variant) -> Names<'v> {
        Names { spec, variant }
    }

    /// `d[1]: ` when the op reaches some but not all of several parts.
    fn parts_prefix(&self, reach: &BTreeSet<usize>, n_parts: usize) -> String {
        if n_parts <= 1 || reach.len() == n_parts || reach.is_empty() {
            return String::new();
        }
        let mut names = Vec::new();
        let mut k = 0;
        for d in &self.variant.program.dests {
            for j in 0..d.parts.len() {
                if reach.contains(&k) {
                    names.push(d.part_name(j));
                }
                k += 1;
            }
        }
        format!("{}: ", names.join(", "))
    }

    /// Value `v` as an expression over the sources, `depth` ops deep, then `vN`.
    fn value(&self, program: &semfuzz_spec::ir::Program, v: ValueId, depth: u32) -> String {
        let op = &program.ops[v as usize];
        let arg = |a: &ValueId| self.value(program, *a, depth.saturating_sub(1));
        let round = |r: &Round| match r {
            Round::NearestEven => "rn",
            Round::TowardZero => "rz",
            Round::Down => "rm",
            Round::Up => "rp",
            Round::NearestAway => "rna",
        };
        let fmt = |f: &Format| self.spec.format_name(*f);
        let rounding_op = |name: &str, r: &Round, formats: &str, args: &[String]| {
            format!("{name}.{}.{formats}({})", round(r), args.join(", "))
        };
        match op {
            Op::Input(k) => return self.variant.sources[*k as usize].name.clone(),
            Op::Const(c) => return format!("0x{c:x}"),
            Op::Extract { value, lo, width }
                if matches!(program.ops[*value as usize], Op::Input(_)) =>
            {
                return match width {
                    1 => format!("{}[{lo}]", arg(value)),
                    _ => format!("{}[{}:{lo}]", arg(value), lo + width - 1),
                };
            }
            _ if depth == 0 => return format!("v{v}"),
            _ => {}
        }
        match op {
            // The rounding ops, named as the spec language's functions they lower: `name.rounding
            // .formats(args)`, formats as a conversion writes them (destination first).
            Op::Add(f, r, a, b)
            | Op::Sub(f, r, a, b)
            | Op::Mul(f, r, a, b)
            | Op::Div(f, r, a, b) => {
                let name = match op {
                    Op::Add(..) => "add",
                    Op::Sub(..) => "sub",
                    Op::Mul(..) => "mul",
                    _ => "div",
                };
                rounding_op(name, r, &fmt(f), &[arg(a), arg(b)])
            }
            Op::Fma(f, r, a, b, c) => rounding_op("fma", r, &fmt(f), &[arg(a), arg(b), arg(c)]),
            Op::Sqrt(f, r, a) => rounding_op("sqrt", r, &fmt(f), &[arg(a)]),
            Op::Cvt(from, to, r, a) => {
                rounding_op("cvt", r, &format!("{}.{}", fmt(to), fmt(from)), &[arg(a)])
            }
            Op::Class(_, c, a) => {
                let name = match c {
                    Class::Nan => "is_nan",
                    Class::SignalingNan => "is_snan",
                    Class::Inf => "is_inf",
                    Class::Zero => "is_zero",
                    Class::Subnormal => "is_subnormal",
                    Class::Normal => "is_normal",
                    Class::Finite => "is_finite",
                };
                format!("{name}({})", arg(a))
            }
            Op::And(1, a, b) => format!("({} & {})", arg(a), arg(b)),
            Op::Or(1, a, b) => format!("({} | {})", arg(a), arg(b)),
            Op::Xor(1, a, b) => format!("({} ^ {})", arg(a), arg(b)),
            Op::Not(1, a) => format!("!{}", arg(a)),
            Op::BvEq(a, b) => format!("({} == {})", arg(a), arg(b)),
            Op::BvUlt(a, b) => format!("({} <u {})", arg(a), arg(b)),
            Op::Extract {
                value,
                lo,
                width: 1,
            } => format!("{}[{lo}]", arg(value)),
            Op::FCmp(_, c, a, b) => {
                let sym = match c {
                    Cmp::Eq => "==",
                    Cmp::Lt => "<",
                    Cmp::Le => "<=",
                };
                format!("({} {sym} {})", arg(a), arg(b))
            }
            _ => format!("v{v}"),
        }
    }
}

/// Input tuples on which a program that computes a fused multiply-add of exact widenings of
/// its inputs in a wide format and rounds it to their narrow format rounds twice: one list of
/// `(program input, bits)` per tuple. Such double rounding differs from the one rounding of
/// the narrow `fma` where the wide result is exactly halfway between two narrow numbers
/// while the exact one is not; a solver rarely finds those inputs, so they are built: a
/// product `a·b` that is itself a narrow midpoint (two odd significands whose product has
/// p + 1 bits, exact in the wide format) and an addend of either sign far below the wide
/// format's half ulp there (the format's smallest subnormal or normal), which the wide
/// rounding drops, so the narrow rounding ties to even where the exact sum lies off the tie.
/// The narrow rounding is `cvt.rn` or LLVM's integer rounding to bfloat
/// ([`crate::encode::integer_rounding`]); a widening is `cvt` or bfloat's bits shifted into
/// an f32. Whether a tuple is a counterexample is for the evaluators to say.
pub fn midpoint_inputs(program: &Program) -> Vec<Vec<(u16, u64)>> {
    let ops = &program.ops;
    let known = |k: ValueId| match ops[k as usize] {
        Op::Const(c) => Some(c),
        _ => None,
    };
    // The input `k` widens from `narrow` to `wide`, if it is one.
    let widened = |k: ValueId, narrow: Format, wide: Format| -> Option<u16> {
        match ops[number(program, k) as usize] {
            Op::Cvt(from, to, _, v) if from == narrow && to == wide => match ops[v as usize] {
                Op::Input(n) => Some(n),
                _ => None,
            },
            Op::ShiftBy {
                kind: Shift::Left,
                width,
                value,
                amount,
            } if width == wide.width()
                && known(amount) == Some(u64::from(width - narrow.width())) =>
            {
                match ops[value as usize] {
                    Op::Concat { hi, lo, .. } if known(hi) == Some(0) => match ops[lo as usize] {
                        Op::Input(n) => Some(n),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (k, op) in ops.iter().enumerate() {
        let (wide, narrow, rounded) = match *op {
            Op::Cvt(wide, narrow, Round::NearestEven, v) => (wide, narrow, v),
            Op::Select(..) => match crate::encode::integer_rounding(ops, k as ValueId, known) {
                Some(v) => (Format::F32, Format::BF16, v),
                None => continue,
            },
            _ => continue,
        };
        let Op::Fma(f, Round::NearestEven, a, b, c) = ops[number(program, rounded) as usize] else {
            continue;
        };
        if f != wide || narrow.precision() >= wide.precision() {
            continue;
        }
        let (Some(a), Some(b), Some(c)) = (
            widened(a, narrow, wide),
            widened(b, narrow, wide),
            widened(c, narrow, wide),
        ) else {
            continue;
        };
        for (x, y) in midpoint_factors(narrow) {
            for z in [narrow.min_subnormal(false), narrow.min_normal(false)] {
                for sign in [0, narrow.zero(true)] {
                    out.push(vec![(a, x), (b, y), (c, z | sign)]);
                }
            }
        }
    }
    out
}

/// The op whose number `v` is: itself, or where `v` is an intermediate choice that is that
/// op's result or a NaN (a PTX instruction's NaN payload), that op.
fn number(program: &Program, v: ValueId) -> ValueId {
    let Op::Choose(k) = program.ops[v as usize] else {
        return v;
    };
    match &program.choices[usize::from(k)] {
        Outcome::Exact(e) => *e,
        Outcome::Select(_, a, b) => match (&**a, &**b) {
            (Outcome::AnyNan(_), Outcome::Exact(e)) | (Outcome::Exact(e), Outcome::AnyNan(_)) => *e,
            _ => v,
        },
        _ => v,
    }
}

/// Pairs of numbers of `f` in [1, 2) whose product is exactly halfway between two numbers of
/// `f`: odd significands `m`, `n` below 2^p with `m·n` of p + 1 bits.
fn midpoint_factors(f: Format) -> Vec<(u64, u64)> {
    let p = f.precision();
    let mut out = Vec::new();
    for m in (3u64..64).step_by(2) {
        // The smallest odd n with m·n above 2^p, and the next few.
        let lo = ((1u64 << p) / m + 1) | 1;
        for n in (lo..lo + 8).step_by(2) {
            if n >= 1 << p || m * n >= 1 << (p + 1) {
                break;
            }
            let in_one_two = |v: u64| {
                let bits = 64 - v.leading_zeros();
                let x = v as f64 / f64::from(1u32 << (bits - 1));
                semfuzz_fp::convert(Format::F64, f, x.to_bits(), Round::NearestEven)
            };
            out.push((in_one_two(m), in_one_two(n)));
        }
        if out.len() >= 24 {
            break;
        }
    }
    out
}
