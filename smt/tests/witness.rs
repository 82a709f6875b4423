//! Witnesses reach what their reasons say: each boundary is checked with the project's
//! soft-float under the rounding modes that define it, each branch by running the program.

use semfuzz_fp::{self as fp, Format, Round};
use semfuzz_smt::witness::{witnesses, Witness, WitnessReport};
use semfuzz_spec::catalog::{ModifierKind, OperandRole};
use semfuzz_spec::ir::{Op, Outcome, Program};
use semfuzz_spec::{Spec, Variant};

const TIMEOUT_MS: u32 = 2000;

fn spec() -> Spec {
    Spec::embedded().expect("embedded specs load")
}

fn variant<'s>(spec: &'s Spec, text: &str, n_sources: usize) -> &'s Variant {
    spec.lookup(text, Some(n_sources)).expect("variant exists")
}

/// The witnesses whose reason contains `kind`.
fn of_kind<'r>(r: &'r WitnessReport, kind: &str) -> Vec<&'r Witness> {
    r.witnesses
        .iter()
        .filter(|w| w.reason.contains(kind))
        .collect()
}

/// Every value of `program` on `inputs`.
fn run(program: &Program, inputs: &[u64]) -> Vec<u64> {
    let mut values = Vec::with_capacity(program.ops.len());
    for op in &program.ops {
        let v = match op {
            Op::Input(k) => inputs[*k as usize],
            op => op.exec(&values),
        };
        values.push(v);
    }
    values
}

/// Which values of `program` its destinations read on inputs with these `values`: through
/// every argument of an op, but only the taken arm of a select.
fn live(program: &Program, values: &[u64]) -> Vec<bool> {
    fn outcome(o: &Outcome, values: &[u64], live: &mut [bool]) {
        match o {
            Outcome::Select(c, a, b) => {
                live[*c as usize] = true;
                outcome(if values[*c as usize] != 0 { a } else { b }, values, live);
            }
            leaf => {
                let mut read = Vec::new();
                leaf.values(&mut read);
                for r in read {
                    live[r as usize] = true;
                }
            }
        }
    }
    let mut live = vec![false; program.ops.len()];
    for d in &program.dests {
        for p in &d.parts {
            outcome(&p.outcome, values, &mut live);
        }
    }
    for i in (0..program.ops.len()).rev() {
        if !live[i] {
            continue;
        }
        match &program.ops[i] {
            Op::Select(c, a, b) => {
                live[*c as usize] = true;
                live[if values[*c as usize] != 0 { *a } else { *b } as usize] = true;
            }
            op => {
                for a in op.args() {
                    live[a as usize] = true;
                }
            }
        }
    }
    live
}

/// Each `select vN on ...: true|false` witness reaches select N (the destinations read it)
/// and makes its condition what it says.
fn check_branches(v: &Variant, r: &WitnessReport) -> usize {
    let mut checked = 0;
    for w in &r.witnesses {
        let Some(rest) = w.reason.split("select v").nth(1) else {
            continue;
        };
        let id: usize = rest[..rest.find(' ').unwrap()].parse().unwrap();
        let Op::Select(c, _, _) = v.program.ops[id] else {
            panic!("{}: v{id} is not a select", w.reason);
        };
        let taken = w.reason.ends_with("true");
        let values = run(&v.program, &w.inputs);
        assert!(
            live(&v.program, &values)[id],
            "{} {:x?}: {} does not reach v{id}",
            v.text,
            w.inputs,
            w.reason
        );
        assert_eq!(
            values[c as usize] != 0,
            taken,
            "{} {:x?}: {}",
            v.text,
            w.inputs,
            w.reason
        );
        checked += 1;
    }
    checked
}

type BinOp = fn(Format, u64, u64, Round) -> u64;

/// The tie, overflow and just-below-overflow witnesses of a binary op on lane `lane` (bits
/// `lo..lo+width` of each operand) are what their reasons say.
fn check_boundaries(r: &WitnessReport, f: Format, op: BinOp, lane: &str, lo: u32) -> usize {
    let at = |w: &Witness, rm| {
        let a = (w.inputs[0] >> lo) & f.mask();
        let b = (w.inputs[1] >> lo) & f.mask();
        op(f, a, b, rm)
    };
    let mut checked = 0;
    for w in r.witnesses.iter().filter(|w| w.reason.starts_with(lane)) {
        let mag = |rm| f.abs(at(w, rm));
        if w.reason.contains("tie") {
            assert_ne!(
                at(w, Round::NearestEven),
                at(w, Round::NearestAway),
                "{w:x?}"
            );
        } else if w.reason.contains("just below overflow") {
            assert_eq!(mag(Round::NearestEven), f.max_finite(false), "{w:x?}");
            assert!(
                f.is_inf(at(w, Round::Up)) || f.is_inf(at(w, Round::Down)),
                "{w:x?}"
            );
        } else if w.reason.contains("overflow") {
            assert!(f.is_inf(at(w, Round::NearestEven)), "{w:x?}");
            assert_eq!(mag(Round::TowardZero), f.max_finite(false), "{w:x?}");
        } else if w.reason.contains("subnormal threshold") {
            assert_eq!(mag(Round::NearestEven), f.min_normal(false), "{w:x?}");
            assert!(f.is_subnormal(at(w, Round::TowardZero)), "{w:x?}");
        } else {
            continue;
        }
        checked += 1;
    }
    checked
}

#[test]
fn add_rn_f32_reaches_a_tie_and_both_sides_of_overflow() {
    let spec = spec();
    let v = variant(&spec, "add.rn.f32", 2);
    let r = witnesses(&spec, v, TIMEOUT_MS);
    for kind in ["tie", "overflow (", "just below overflow", "is_nan"] {
        assert!(!of_kind(&r, kind).is_empty(), "no `{kind}` witness: {r:x?}");
    }
    // A sum below the smallest normal is exact: no subnormal-threshold witness can exist.
    assert!(of_kind(&r, "subnormal threshold").is_empty(), "{r:x?}");
    assert_eq!(check_boundaries(&r, Format::F32, fp::add, "", 0), 3);
    assert_eq!(r.unknown, 0, "{r:x?}");
}

#[test]
fn mul_rn_f32_reaches_the_subnormal_threshold() {
    let spec = spec();
    let v = variant(&spec, "mul.rn.f32", 2);
    let r = witnesses(&spec, v, TIMEOUT_MS);
    assert_eq!(of_kind(&r, "subnormal threshold").len(), 1, "{r:x?}");
    assert_eq!(check_boundaries(&r, Format::F32, fp::mul, "", 0), 4);
}

#[test]
fn min_and_max_witnesses_reach_both_sides_of_every_nan_branch() {
    let spec = spec();
    let f = Format::F32;
    for (text, canonical) in [("min.NaN.f32", true), ("max.f32", false)] {
        let v = variant(&spec, text, 2);
        let r = witnesses(&spec, v, TIMEOUT_MS);
        // min.NaN: a NaN, else b NaN, else the comparison (both ways), then the canonical NaN
        // test (both ways); max: the same selects, then the outcome's NaN test.
        assert_eq!(
            check_branches(v, &r),
            if canonical { 8 } else { 6 },
            "{r:x?}"
        );
        let nan = |w: &&Witness, k: usize| f.is_nan(w.inputs[k]);
        let sides = [
            r.witnesses.iter().any(|w| nan(&w, 0)),
            r.witnesses.iter().any(|w| !nan(&w, 0) && nan(&w, 1)),
            r.witnesses.iter().any(|w| !nan(&w, 0) && !nan(&w, 1)),
        ];
        assert_eq!(sides, [true; 3], "{text}: {r:x?}");
        let outcome = of_kind(&r, "outcome select on is_nan");
        assert_eq!(outcome.len(), if canonical { 0 } else { 2 }, "{r:x?}");
        for w in outcome {
            let d = run(&v.program, &w.inputs)[16];
            assert_eq!(f.is_nan(d), w.reason.ends_with("true"), "{w:x?}");
        }
    }
}

#[test]
fn half_precision_and_packed_variants_get_witnesses_per_lane() {
    let spec = spec();
    let f = Format::F16;
    let scalar = witnesses(&spec, variant(&spec, "mul.rn.f16", 2), TIMEOUT_MS);
    assert_eq!(
        check_boundaries(&scalar, f, fp::mul, "", 0),
        4,
        "{scalar:x?}"
    );
    let packed = witnesses(&spec, variant(&spec, "mul.rn.f16x2", 2), TIMEOUT_MS);
    for (lane, lo) in [("d[0]: ", 0), ("d[1]: ", 16)] {
        assert_eq!(
            check_boundaries(&packed, f, fp::mul, lane, lo),
            4,
            "{lane}{packed:x?}"
        );
    }
}

#[test]
fn witnesses_are_deterministic() {
    let spec = spec();
    for (text, n) in [("add.rn.f32", 2), ("fma.rn.f16x2", 3)] {
        let v = variant(&spec, text, n);
        assert_eq!(
            witnesses(&spec, v, TIMEOUT_MS),
            witnesses(&spec, v, TIMEOUT_MS)
        );
    }
}

/// SASS operand modifiers are inputs too; a member index stays below the member count.
#[test]
fn sass_modifier_fields_stay_in_range() {
    let spec = spec();
    let v = spec
        .variants
        .iter()
        .find(|v| v.text == "HMUL2.FTZ" && v.sources.len() == 8)
        .expect("the register form of HMUL2.FTZ");
    let r = witnesses(&spec, v, 300);
    assert!(r.witnesses.len() > 20, "{r:x?}");
    let mut members_seen = std::collections::BTreeSet::new();
    for w in &r.witnesses {
        assert_eq!(w.inputs.len(), v.sources.len());
        for (s, x) in v.sources.iter().zip(&w.inputs) {
            if let OperandRole::Modifier {
                kind: ModifierKind::Member { members, .. },
                ..
            } = &s.role
            {
                assert!((*x as usize) < members.len(), "{} = {x}", s.name);
                members_seen.insert((s.name.clone(), *x));
            }
        }
    }
    // Every swizzle of both operands is some branch's witness.
    assert_eq!(members_seen.len(), 10, "{members_seen:?}");
    assert!(check_branches(v, &r) > 20);
}
