//! A function's vector result as lanes, so that its refinement can be posed lane by lane.
//!
//! A function reader gives a result as one destination part of the whole width (an LLVM IR
//! `<2 x bfloat>` is 32 bits, its lanes concatenated), and each lane's open outcome (which NaN
//! an `fadd` returns) is then an intermediate [`Op::Choose`] that the refinement query
//! quantifies, every lane's choices under one `exists`. [`split`] makes each lane a part of
//! its own with that outcome; [`independent`] says when the parts share no intermediate
//! choice; [`project`] keeps one part, for a query about that lane alone.

use semfuzz_spec::ir::{Builder, Dest, Op, Outcome, PartKind, Program, ValueId};
use std::collections::HashSet;

/// `p` re-emitted op by op through a fresh [`Builder`] with the destinations `dests` makes
/// (given the builder, each old value's new id, and the choices renumbered); what no new
/// destination reads is dropped by [`Builder::finish`].
fn rebuild(
    p: &Program,
    dests: impl FnOnce(&mut Builder, &[ValueId], &[Outcome]) -> Vec<Dest>,
) -> Program {
    let mut b = Builder::default();
    let mut map: Vec<ValueId> = Vec::with_capacity(p.ops.len());
    for (op, w) in p.ops.iter().zip(&p.widths) {
        let mut op = op.clone();
        for a in op.args_mut() {
            *a = map[*a as usize];
        }
        map.push(b.emit(op, *w));
    }
    let mut choices = p.choices.clone();
    for c in &mut choices {
        c.renumber(&map);
    }
    let dests = dests(&mut b, &map, &choices);
    b.finish(p.input_widths.clone(), dests, choices).0
}

/// The value holding bits `lo .. lo + width` of `v`, found through the concatenations and
/// extractions that moved it (a vector built lane by lane); `None` where another op made it.
fn lane_value(b: &Builder, v: ValueId, lo: u32, width: u32) -> Option<ValueId> {
    if lo == 0 && b.widths[v as usize] == width {
        return Some(v);
    }
    match *b.op(v) {
        Op::Concat {
            hi,
            lo: low,
            lo_width,
        } => {
            if lo + width <= lo_width {
                lane_value(b, low, lo, width)
            } else if lo >= lo_width {
                lane_value(b, hi, lo - lo_width, width)
            } else {
                None
            }
        }
        Op::Extract { value, lo: at, .. } => lane_value(b, value, lo + at, width),
        _ => None,
    }
}

/// Every value `roots` read, through ops' arguments and the outcomes of the choices they
/// reach; `reads[v]` counts the readers of `v` among them (a root itself is not a read).
fn cone(b: &Builder, roots: &[ValueId], choices: &[Outcome]) -> (HashSet<ValueId>, Vec<usize>) {
    let mut seen = HashSet::new();
    let mut reads = vec![0usize; b.widths.len()];
    let mut stack = roots.to_vec();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        let mut args = b.op(v).args();
        if let Op::Choose(k) = b.op(v) {
            choices[*k as usize].values(&mut args);
        }
        for a in args {
            reads[a as usize] += 1;
            stack.push(a);
        }
    }
    (seen, reads)
}

/// `p`, whose one destination of one exact part is `lanes` lanes of `kind`, with that part
/// split into one part per lane. A lane that is an intermediate choice nothing else reads
/// gets the choice's outcome as its own (the result is "any NaN of the set" in that lane,
/// a formula over the lane's bits, as for an instruction's result); any other lane is its
/// exact bits. The lanes' values are those of the whole, so the program means what `p`
/// means. `None` when `p` is not such a program.
pub fn split(p: &Program, lanes: u32, kind: PartKind) -> Option<Program> {
    let [dest] = p.dests.as_slice() else {
        return None;
    };
    let ([part], true) = (dest.parts.as_slice(), lanes > 1 && dest.width % lanes == 0) else {
        return None;
    };
    let Outcome::Exact(whole) = part.outcome else {
        return None;
    };
    let width = dest.width / lanes;
    Some(rebuild(p, |b, map, choices| {
        let whole = map[whole as usize];
        let values: Vec<ValueId> = (0..lanes)
            .map(|l| {
                lane_value(b, whole, l * width, width)
                    .unwrap_or_else(|| b.extract(whole, l * width, width))
            })
            .collect();
        let (_, reads) = cone(b, &values, choices);
        let parts = values
            .iter()
            .enumerate()
            .map(|(l, &v)| {
                let alone =
                    reads[v as usize] == 0 && values.iter().filter(|&&u| u == v).count() == 1;
                let outcome = match b.op(v) {
                    Op::Choose(k) if alone => choices[*k as usize].clone(),
                    _ => Outcome::Exact(v),
                };
                semfuzz_spec::ir::Part {
                    lo: l as u32 * width,
                    width,
                    kind,
                    outcome,
                }
            })
            .collect();
        vec![Dest {
            name: dest.name.clone(),
            width: dest.width,
            parts,
            by_range: false,
        }]
    }))
}

/// `p`, whose first destination is `lanes` bytes of one exact part (a PTX function returning
/// an `<N x i1>` as LLVM does, lane k in byte k), with that destination `lanes` bits: lane k
/// bit 0 of byte k, the bits above it no part of the result (docs/ambiguities.md 112). Any
/// later destination (the loop bound's) is kept. `None` when `p` is not such a program.
pub fn bool_bytes(p: &Program, lanes: u32) -> Option<Program> {
    let (dest, rest) = p.dests.split_first()?;
    let ([part], true) = (dest.parts.as_slice(), dest.width == 8 * lanes) else {
        return None;
    };
    let Outcome::Exact(whole) = part.outcome else {
        return None;
    };
    Some(rebuild(p, |b, map, _| {
        let whole = map[whole as usize];
        let mut bits = b.extract(whole, 0, 1);
        for l in 1..lanes {
            let lane = b.extract(whole, 8 * l, 1);
            bits = b.concat(lane, bits);
        }
        let mut dests = vec![Dest::whole(
            dest.name.clone(),
            lanes,
            PartKind::Bits,
            Outcome::Exact(bits),
        )];
        for d in rest {
            let mut d = d.clone();
            for part in &mut d.parts {
                part.outcome.renumber(map);
            }
            dests.push(d);
        }
        dests
    }))
}

/// The intermediate choices ([`Op::Choose`]) the outcome of part `j` of `p`'s one
/// destination depends on.
fn choices_of(p: &Program, j: usize) -> HashSet<u16> {
    let mut stack = Vec::new();
    p.dests[0].parts[j].outcome.values(&mut stack);
    let mut seen = HashSet::new();
    let mut found = HashSet::new();
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        let op = &p.ops[v as usize];
        if let Op::Choose(k) = op {
            found.insert(*k);
            p.choices[*k as usize].values(&mut stack);
        }
        stack.extend(op.args());
    }
    found
}

/// Whether `p` has one destination of several parts, no two of which depend on the same
/// intermediate choice: then the set of results is the product of the parts' sets, and a
/// refinement holds exactly when it holds part by part (each part's choices picked apart
/// from the others').
pub fn independent(p: &Program) -> bool {
    let [dest] = p.dests.as_slice() else {
        return false;
    };
    if dest.parts.len() < 2 {
        return false;
    }
    let mut taken = HashSet::new();
    (0..dest.parts.len()).all(|j| choices_of(p, j).into_iter().all(|k| taken.insert(k)))
}

/// `p` computing only part `j` of its one destination (kept at its place in the register),
/// without what only the other parts need.
pub fn project(p: &Program, j: usize) -> Program {
    rebuild(p, |_, map, _| {
        let d = &p.dests[0];
        let mut part = d.parts[j].clone();
        part.outcome.renumber(map);
        vec![Dest {
            name: d.name.clone(),
            width: d.width,
            parts: vec![part],
            by_range: d.by_range,
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use semfuzz_spec::Spec;

    fn read(spec: &Spec, text: &str) -> Program {
        semfuzz_llir::load(spec, "t.ll", text, None)
            .expect("reads")
            .program
    }

    const FADD: &str = "define <2 x bfloat> @f(<2 x bfloat> %a, <2 x bfloat> %b) {\n  %r = fadd <2 x bfloat> %a, %b\n  ret <2 x bfloat> %r\n}\n";

    #[test]
    fn each_lane_of_a_vector_fadd_is_a_part_with_its_own_nan_outcome() {
        let spec = Spec::embedded().expect("specs load");
        let whole = read(&spec, FADD);
        assert_eq!(whole.dests[0].parts.len(), 1);
        assert_eq!(whole.choices.len(), 2, "one NaN choice per lane");
        let kind = PartKind::Float(semfuzz_fp::Format::BF16);
        let lanes = split(&whole, 2, kind).expect("splits");
        let parts = &lanes.dests[0].parts;
        assert_eq!(
            parts.iter().map(|p| (p.lo, p.width)).collect::<Vec<_>>(),
            [(0, 16), (16, 16)]
        );
        // The lanes' choices became their parts' outcomes: nothing is left to quantify.
        assert!(lanes.choices.is_empty(), "{:?}", lanes.choices);
        assert!(parts
            .iter()
            .all(|p| p.kind == kind && !matches!(p.outcome, Outcome::Exact(_))));
        assert!(independent(&lanes));
        let high = project(&lanes, 1);
        assert_eq!(high.dests[0].parts.len(), 1);
        assert_eq!(high.dests[0].parts[0].lo, 16);
        assert!(high.ops.len() < lanes.ops.len(), "lane 0's ops are dropped");
    }

    #[test]
    fn lanes_sharing_a_choice_are_not_independent() {
        let spec = Spec::embedded().expect("specs load");
        // Lane 1 squares lane 0's sum: both read the NaN lane 0's `fadd` chooses.
        let text = "define <2 x float> @f(<2 x float> %a, <2 x float> %b) {\n  %s = fadd <2 x float> %a, %b\n  %e = extractelement <2 x float> %s, i32 0\n  %m = fmul float %e, %e\n  %r = insertelement <2 x float> %s, float %m, i32 1\n  ret <2 x float> %r\n}\n";
        let lanes = split(
            &read(&spec, text),
            2,
            PartKind::Float(semfuzz_fp::Format::F32),
        )
        .expect("splits");
        let parts = &lanes.dests[0].parts;
        assert!(
            matches!(parts[0].outcome, Outcome::Exact(_)),
            "lane 0's choice is read by lane 1, so it stays a choice: {:?}",
            parts[0].outcome
        );
        assert!(!independent(&lanes));
    }
}
