//! Checks that the z3 crate is linked against the PyPI libz3 (not Debian's
//! 4.8.12) and that the fpbits glue works end to end.

use std::time::Instant;

use semfuzz_smt::fpbits::{
    fp_from_bits, fp_same, fp_to_bits, fp_to_bits_nan_as, rounding_mode, Rm,
};
use semfuzz_smt::z3::ast::{Ast, Float, BV};
use semfuzz_smt::z3::{SatResult, Solver};

fn version_tuple(v: &str) -> (u32, u32) {
    let mut it = v.split('.').map(|p| p.parse::<u32>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn linked_z3_is_recent() {
    let v = semfuzz_smt::z3_version();
    eprintln!("linked libz3 {v} ({})", semfuzz_smt::z3::full_version());
    assert!(
        version_tuple(&v) >= (4, 13),
        "linked libz3 is {v}; expected >= 4.13 (is Debian's libz3 being picked up? run `cargo xtask setup`)"
    );
}

#[test]
fn one_plus_two_is_three_f32() {
    let a = fp_from_bits(&BV::from_u64(1.0f32.to_bits() as u64, 32), 8, 24);
    let b = fp_from_bits(&BV::from_u64(2.0f32.to_bits() as u64, 32), 8, 24);
    let sum = a.add_with_rounding_mode(&b, &rounding_mode(Rm::NearestEven));
    let bits = fp_to_bits(&sum).simplify().as_u64().expect("constant");
    assert_eq!(bits as u32, 3.0f32.to_bits());
}

#[test]
fn rounding_modes_differ_on_inexact_sum() {
    // 1 + 2^-24 is a tie between 1 and 1+2^-23 in f32.
    let one = fp_from_bits(&BV::from_u64(1.0f32.to_bits() as u64, 32), 8, 24);
    let tiny = fp_from_bits(&BV::from_u64(2f32.powi(-24).to_bits() as u64, 32), 8, 24);
    let sum = |rm| {
        let s = one.add_with_rounding_mode(&tiny, &rounding_mode(rm));
        fp_to_bits(&s).simplify().as_u64().unwrap() as u32
    };
    let up = f32::from_bits(1.0f32.to_bits() + 1).to_bits();
    assert_eq!(sum(Rm::NearestEven), 1.0f32.to_bits());
    assert_eq!(sum(Rm::TowardZero), 1.0f32.to_bits());
    assert_eq!(sum(Rm::Down), 1.0f32.to_bits());
    assert_eq!(sum(Rm::Up), up);
    assert_eq!(sum(Rm::NearestAway), up);
}

#[test]
fn nan_bits_are_pinned() {
    let nan_in = fp_from_bits(&BV::from_u64(0xffc0_0001, 32), 8, 24);
    let canon = BV::from_u64(0x7fff_ffff, 32);
    let out = fp_to_bits_nan_as(&nan_in, &canon)
        .simplify()
        .as_u64()
        .unwrap();
    assert_eq!(out, 0x7fff_ffff);
}

/// Note: Z3's rewriter orders the arguments of `fp.add`, so this query
/// simplifies to `false` before any bit-blasting; it checks the plumbing and
/// costs well under a millisecond. `add_self_is_mul2_f32` below is a real
/// bit-blasted proof.
#[test]
fn add_rn_f32_is_commutative() {
    let xb = BV::new_const("x", 32);
    let yb = BV::new_const("y", 32);
    let x = fp_from_bits(&xb, 8, 24);
    let y = fp_from_bits(&yb, 8, 24);
    let rne = rounding_mode(Rm::NearestEven);
    let xy = x.add_with_rounding_mode(&y, &rne);
    let yx = y.add_with_rounding_mode(&x, &rne);
    let solver = Solver::new();
    // Structural equality: NaN == NaN, +0 != -0.
    solver.assert(fp_same(&xy, &yx).not());
    let t = Instant::now();
    let r = solver.check();
    eprintln!("f32 add.rn commutativity: {r:?} in {:?}", t.elapsed());
    assert_eq!(r, SatResult::Unsat);
}

/// x +.rn x == x *.rn 2.0 for every f32 bit pattern (incl. NaN, ±0, ±inf,
/// overflow). Not closed by rewriting: Z3 has to bit-blast an adder and a
/// multiplier (~0.1 s with libz3 5.4; Debian's 4.8.12 takes far longer).
#[test]
fn add_self_is_mul2_f32() {
    let x = fp_from_bits(&BV::new_const("x", 32), 8, 24);
    let rne = rounding_mode(Rm::NearestEven);
    let solver = Solver::new();
    solver.assert(
        fp_same(
            &x.add_with_rounding_mode(&x, &rne),
            &x.mul_with_rounding_mode(Float::from_f32(2.0), &rne),
        )
        .not(),
    );
    let t = Instant::now();
    let r = solver.check();
    eprintln!("f32 x+x == 2x (rn): {r:?} in {:?}", t.elapsed());
    assert_eq!(r, SatResult::Unsat);
}

/// The harness is not vacuous: add.rn and add.rz differ on some input.
#[test]
fn add_rn_differs_from_add_rz() {
    let x = fp_from_bits(&BV::new_const("x", 32), 8, 24);
    let y = fp_from_bits(&BV::new_const("y", 32), 8, 24);
    let solver = Solver::new();
    solver.assert(
        fp_same(
            &x.add_with_rounding_mode(&y, &rounding_mode(Rm::NearestEven)),
            &x.add_with_rounding_mode(&y, &rounding_mode(Rm::TowardZero)),
        )
        .not(),
    );
    assert_eq!(solver.check(), SatResult::Sat);
}

/// `solve::check_within` stops a check by itself at its timeout: here Z3 has no `timeout`
/// parameter, as when its own timer fires before the check resets the context and is lost
/// (a 1 ms `prove` once ran 407 s so). A 32-bit multiplier against shift-and-add is an
/// equivalence SAT solvers take minutes over. After the interrupt the context is usable: a
/// `simplify` rewrites and a model of the next query evaluates.
#[test]
fn check_within_interrupts_a_check_z3s_timer_would_not() {
    let x = BV::new_const("x", 32);
    let y = BV::new_const("y", 32);
    let shift_add = (0..32u32).fold(BV::from_u64(0, 32), |sum, k| {
        let bit = y.extract(k, k).eq(BV::from_u64(1, 1));
        sum.bvadd(bit.ite(
            &x.bvshl(BV::from_u64(u64::from(k), 32)),
            &BV::from_u64(0, 32),
        ))
    });
    let solver = Solver::new();
    solver.assert(x.bvmul(&y).eq(&shift_add).not());
    let t = Instant::now();
    let r = semfuzz_smt::solve::check_within(&solver, 200);
    eprintln!("multiplier equivalence, 200 ms: {r:?} in {:?}", t.elapsed());
    assert_eq!(r, SatResult::Unknown);
    assert_eq!(semfuzz_smt::solve::reason_unknown(&solver), "timeout");
    assert_eq!(
        x.bvadd(BV::from_u64(0, 32)).simplify().to_string(),
        "x",
        "the context is no longer cancelled"
    );
    let next = Solver::new();
    next.assert(x.bvmul(BV::from_u64(3, 32)).eq(BV::from_u64(9, 32)));
    assert_eq!(next.check(), SatResult::Sat);
    let model = next.get_model().expect("a model");
    assert_eq!(model.eval(&x, true).and_then(|v| v.as_u64()), Some(3));
}
