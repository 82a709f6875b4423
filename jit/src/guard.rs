//! Which ops only one arm of a select reads, so that the compiled row may branch around them.
//!
//! The variant IR is branch-free: a run-time `if` of a spec becomes a `select`, and both arms
//! are computed whatever the condition. That is what the interpreter does and what the SMT
//! encoding wants, and mostly what native code wants too (a select is one `cmov`). It is not
//! when an arm is expensive and its condition is a run-time *field* of the instruction: every
//! SASS half instruction converts each operand from f32 (`.iswz .F32`: an inline f32 → f16
//! rounding) in every row, although a row reads that conversion only when its operand's
//! `.iswz` field says `.F32`. A [`Group`] is such an arm: the ops whose every reader is that
//! arm (directly or through other ops of the group), worth a branch ([`MIN_COST`]), under a
//! condition that decodes narrow inputs only ([`FIELD_BITS`]), so that the branch follows a
//! field rather than the data (a field repeats across a campaign's batch far more than an
//! operand's class, and a mispredicted branch on data would cost more than the select saves).
//!
//! The plan only moves ops into a conditional block; each op keeps its lowering, so the
//! compiled values are the same bits (the equivalence tests run every variant both ways).

use semfuzz_spec::ir::{Op, Program, ValueId};

/// Least summed [`cost`] of a group worth a branch: one floating-point operation, or as many
/// integer ops as a mispredicted branch costs.
const MIN_COST: u32 = 8;

/// Widest input a guarding condition may read: the SASS operand fields (`.iswz` is 3 bits,
/// `-` and `|..|` 1 bit each) and predicates, not operand values.
const FIELD_BITS: u32 = 4;

/// The ops computed in a block of their own, entered when `cond` is `side`.
#[derive(Debug, PartialEq, Eq)]
pub struct Group {
    /// The condition of the selects that read the group.
    pub cond: ValueId,
    /// Which arm of those selects the group is (`true`: the first).
    pub side: bool,
    /// The ops of the group, in program order.
    pub members: Vec<ValueId>,
    /// The members read outside the group (by the selects), which leave its block.
    pub exported: Vec<ValueId>,
}

/// Where each group is emitted: before op [`Plan::at`]'s key, its first reader outside it.
#[derive(Debug, Default)]
pub struct Plan {
    /// For each op, the group it belongs to.
    pub group_of: Vec<Option<usize>>,
    /// The groups.
    pub groups: Vec<Group>,
    /// For each op, the groups to emit just before it (in the order given).
    pub at: Vec<Vec<usize>>,
}

/// How a value is read by one of its readers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// As arm `side` of a select on `cond`.
    Arm(ValueId, bool),
    /// Any other way.
    Plain,
}

/// A rough count of the machine instructions an op lowers to.
fn cost(op: &Op) -> u32 {
    match op {
        Op::Add(..)
        | Op::Sub(..)
        | Op::Mul(..)
        | Op::Div(..)
        | Op::Fma(..)
        | Op::Sqrt(..)
        | Op::Fmod(..)
        | Op::Cvt(..)
        | Op::RoundInt(..)
        | Op::FloatToInt { .. }
        | Op::IntToFloat { .. } => MIN_COST,
        _ => 1,
    }
}

/// Whether `v` depends on nothing but constants and inputs of at most [`FIELD_BITS`] bits,
/// through integer comparisons and bit operations.
fn decodes_fields(program: &Program, v: ValueId, memo: &mut [Option<bool>]) -> bool {
    if let Some(known) = memo[v as usize] {
        return known;
    }
    let op = &program.ops[v as usize];
    let leaf = match op {
        Op::Input(k) => Some(
            program
                .input_widths
                .get(*k as usize)
                .is_some_and(|&w| w <= FIELD_BITS),
        ),
        Op::Const(_) => Some(true),
        Op::BvEq(..)
        | Op::BvUlt(..)
        | Op::And(..)
        | Op::Or(..)
        | Op::Xor(..)
        | Op::Not(..)
        | Op::Extract { .. } => None,
        _ => Some(false),
    };
    // Operands come before the op, so the recursion is as deep as the condition's cone,
    // which for a field decode is a handful of ops.
    let known = leaf.unwrap_or_else(|| {
        op.args()
            .into_iter()
            .all(|a| decodes_fields(program, a, memo))
    });
    memo[v as usize] = Some(known);
    known
}

/// The groups of `program` (none where no arm is worth a branch).
pub fn plan(program: &Program) -> Plan {
    let n = program.ops.len();
    let mut reads: Vec<Vec<(usize, Read)>> = vec![Vec::new(); n];
    for (i, op) in program.ops.iter().enumerate() {
        match *op {
            Op::Select(c, a, b) => {
                reads[c as usize].push((i, Read::Plain));
                reads[a as usize].push((i, Read::Arm(c, true)));
                reads[b as usize].push((i, Read::Arm(c, false)));
            }
            _ => {
                for a in op.args() {
                    reads[a as usize].push((i, Read::Plain));
                }
            }
        }
    }
    let mut outcome_reads = Vec::new();
    for p in program.dests.iter().flat_map(|d| &d.parts) {
        p.outcome.values(&mut outcome_reads);
    }
    for c in &program.choices {
        c.values(&mut outcome_reads);
    }
    let mut rooted = vec![false; n];
    for &v in &outcome_reads {
        if let Some(r) = rooted.get_mut(v as usize) {
            *r = true;
        }
    }

    // An op's guard is the one arm every reader reaches it through; readers come after it,
    // so one pass from the end settles each.
    let mut guard: Vec<Option<(ValueId, bool)>> = vec![None; n];
    let mut fields = vec![None; n];
    for i in (0..n).rev() {
        let op = &program.ops[i];
        if rooted[i]
            || reads[i].is_empty()
            || matches!(op, Op::Input(_) | Op::Const(_) | Op::Choose(_))
        {
            continue;
        }
        // An arm chosen by the data is read whenever its select is.
        let mut guards = reads[i].iter().map(|&(reader, read)| match read {
            Read::Arm(c, side) if decodes_fields(program, c, &mut fields) => Some((c, side)),
            _ => guard[reader],
        });
        let first = guards.next().flatten();
        guard[i] = first.filter(|&f| guards.all(|g| g == Some(f)));
    }

    let mut groups: Vec<Group> = Vec::new();
    let mut group_of: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        if let Some((cond, side)) = guard[i] {
            let g = match groups.iter().position(|g| g.cond == cond && g.side == side) {
                Some(g) => g,
                None => {
                    groups.push(Group {
                        cond,
                        side,
                        members: Vec::new(),
                        exported: Vec::new(),
                    });
                    groups.len() - 1
                }
            };
            groups[g].members.push(i as ValueId);
            group_of[i] = Some(g);
        }
    }

    // A group is emitted at its first reader outside it, in the main flow: its condition and
    // every operand from outside must be there already, in the main flow, and every reader
    // must be in the main flow too (a reader inside another group would need the block
    // nested). Dissolving a group moves its ops to the main flow, which can invalidate
    // another's placement, hence the loop.
    let mut live: Vec<bool> = groups
        .iter()
        .map(|g| {
            g.members
                .iter()
                .map(|&m| cost(&program.ops[m as usize]))
                .sum::<u32>()
                >= MIN_COST
        })
        .collect();
    let mut first_reader = vec![n; groups.len()];
    loop {
        let in_live =
            |v: usize, group_of: &[Option<usize>], live: &[bool]| group_of[v].filter(|&g| live[g]);
        let mut changed = false;
        for g in 0..groups.len() {
            if !live[g] {
                continue;
            }
            let group = &groups[g];
            let mut at = n;
            let mut readers_in_main = true;
            for &m in &group.members {
                for &(reader, _) in &reads[m as usize] {
                    match in_live(reader, &group_of, &live) {
                        Some(h) if h == g => {}
                        Some(_) => readers_in_main = false,
                        None => at = at.min(reader),
                    }
                }
            }
            let cond_ok = in_live(group.cond as usize, &group_of, &live).is_none()
                && (group.cond as usize) < at;
            let operands_ok = group.members.iter().all(|&m| {
                program.ops[m as usize].args().into_iter().all(|a| {
                    match in_live(a as usize, &group_of, &live) {
                        Some(h) => h == g,
                        None => (a as usize) < at,
                    }
                })
            });
            if at == n || !readers_in_main || !cond_ok || !operands_ok {
                live[g] = false;
                changed = true;
            } else {
                first_reader[g] = at;
            }
        }
        if !changed {
            break;
        }
    }

    let mut plan = Plan {
        group_of: vec![None; n],
        groups: Vec::new(),
        at: vec![Vec::new(); n],
    };
    for (g, mut group) in groups.into_iter().enumerate() {
        if !live[g] {
            continue;
        }
        let id = plan.groups.len();
        group.exported = group
            .members
            .iter()
            .copied()
            .filter(|&m| {
                reads[m as usize]
                    .iter()
                    .any(|&(r, _)| group_of[r] != Some(g))
            })
            .collect();
        for &m in &group.members {
            plan.group_of[m as usize] = Some(id);
        }
        plan.at[first_reader[g]].push(id);
        plan.groups.push(group);
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use semfuzz_spec::Spec;

    fn program(text: &str, operands: usize) -> Program {
        let spec = Spec::embedded().expect("the embedded specs load");
        spec.lookup(text, Some(operands))
            .expect("the variant exists")
            .program
            .clone()
    }

    #[test]
    fn hmul2_branches_around_each_f32_conversion() {
        let p = program("HMUL2.FTZ", 8);
        let plan = plan(&p);
        // One group per source: its `.iswz .F32` conversion, read by both lanes' selects.
        assert_eq!(plan.groups.len(), 2, "{plan:?}");
        for g in &plan.groups {
            assert!(g.side);
            assert!(g
                .members
                .iter()
                .any(|&m| matches!(p.ops[m as usize], Op::Cvt(..))));
            assert!(matches!(p.ops[g.cond as usize], Op::BvEq(..)));
        }
    }

    #[test]
    fn data_dependent_and_cheap_arms_stay_selects() {
        // `min`'s arms are chosen by comparing the operands, and negation is one xor.
        for (text, n) in [("min.NaN.f32", 2), ("neg.f32", 1), ("add.rn.f32", 2)] {
            let plan = plan(&program(text, n));
            assert!(plan.groups.is_empty(), "{text}: {plan:?}");
        }
    }
}
