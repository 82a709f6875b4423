//! Refinement proofs through the spec encoding.

use semfuzz_smt::prove::{refines, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::time::Instant;

fn spec() -> Spec {
    Spec::embedded().expect("embedded specs load")
}

#[test]
fn add_and_mul_are_commutative() {
    let spec = spec();
    for text in [
        "add.rn.f32",
        "mul.rz.f32",
        "add.rm.ftz.f32",
        "min.NaN.f32",
        "max.f32",
    ] {
        let p = &spec.lookup(text, Some(2)).unwrap().program;
        let start = Instant::now();
        let verdict = refines(p, p, &[1, 0], 120_000).unwrap();
        assert_eq!(verdict, Verdict::Proved, "{text}");
        println!(
            "{text} commutative: proved in {:.2} s",
            start.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn sub_is_not_commutative_and_the_counterexample_reproduces() {
    let spec = spec();
    let p = &spec.lookup("sub.rn.f32", Some(2)).unwrap().program;
    let Verdict::Counterexample { inputs, results } = refines(p, p, &[1, 0], 120_000).unwrap()
    else {
        panic!("sub.rn.f32 proved commutative");
    };
    // The target (b - a) allows `results`; the source (a - b) must not.
    let mut ev = Evaluator::new(p);
    let mut out = [Accept::default()];
    ev.eval(&inputs, &mut out);
    assert!(
        !out[0].accepts(results[0]),
        "a - b allows the counterexample's result"
    );
    ev.eval(&[inputs[1], inputs[0]], &mut out);
    assert!(
        out[0].accepts(results[0]),
        "b - a does not allow the counterexample's result"
    );
}

#[test]
fn default_rounding_is_rn() {
    let spec = spec();
    let plain = &spec.lookup("add.f32", Some(2)).unwrap().program;
    let rn = &spec.lookup("add.rn.f32", Some(2)).unwrap().program;
    let rz = &spec.lookup("add.rz.f32", Some(2)).unwrap().program;
    assert_eq!(
        refines(rn, plain, &[0, 1], 60_000).unwrap(),
        Verdict::Proved
    );
    assert_eq!(
        refines(plain, rn, &[0, 1], 60_000).unwrap(),
        Verdict::Proved
    );
    assert!(matches!(
        refines(rz, plain, &[0, 1], 60_000).unwrap(),
        Verdict::Counterexample { .. }
    ));
}
