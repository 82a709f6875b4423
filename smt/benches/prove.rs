//! Times Z3 proofs about f32 `add.rn` (unsat of the negated property).
//! Run with `cargo bench -p semfuzz-smt --bench prove`.

use criterion::{criterion_group, criterion_main, Criterion};
use semfuzz_smt::fpbits::{fp_from_bits, fp_same, rounding_mode, Rm};
use semfuzz_smt::prove::{refines, Verdict};
use semfuzz_smt::z3::ast::{Float, BV};
use semfuzz_smt::z3::{SatResult, Solver};

fn prove_add_commutative_f32() -> SatResult {
    let x = fp_from_bits(&BV::new_const("x", 32), 8, 24);
    let y = fp_from_bits(&BV::new_const("y", 32), 8, 24);
    let rne = rounding_mode(Rm::NearestEven);
    let solver = Solver::new();
    solver.assert(
        fp_same(
            &x.add_with_rounding_mode(&y, &rne),
            &y.add_with_rounding_mode(&x, &rne),
        )
        .not(),
    );
    solver.check()
}

/// x +.rn x == x *.rn 2 on f32: needs real bit-blasting (the commutativity
/// query above is closed by Z3's rewriter, which orders `fp.add` arguments).
fn prove_add_self_is_mul2_f32() -> SatResult {
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
    solver.check()
}

fn bench(c: &mut Criterion) {
    println!("libz3 {}", semfuzz_smt::z3_version());
    assert_eq!(prove_add_commutative_f32(), SatResult::Unsat);
    assert_eq!(prove_add_self_is_mul2_f32(), SatResult::Unsat);
    let mut g = c.benchmark_group("z3");
    g.sample_size(10);
    g.bench_function("add_rn_f32_commutative", |b| {
        b.iter(prove_add_commutative_f32)
    });
    g.bench_function("add_self_is_mul2_f32", |b| {
        b.iter(prove_add_self_is_mul2_f32)
    });
    // The same property through the spec: the add.rn.f32 variant's whole outcome (NaN rule
    // included) refines itself with its operands swapped.
    let spec = semfuzz_spec::Spec::embedded().expect("specs load");
    for text in ["add.rn.f32", "fma.rn.f32"] {
        let n = if text.starts_with("fma") { 3 } else { 2 };
        let p = &spec.lookup(text, Some(n)).expect("variant").program;
        let swap: Vec<usize> = if n == 3 { vec![1, 0, 2] } else { vec![1, 0] };
        assert_eq!(
            refines(p, p, &swap, 600_000).expect("poses"),
            Verdict::Proved
        );
        g.bench_function(
            format!("spec_{}_commutative", text.replace('.', "_")),
            |b| b.iter(|| refines(p, p, &swap, 600_000)),
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
