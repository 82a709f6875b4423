//! The compiled lowerings of the integer ops (issue 17's `BvSlt`, `BvMul`, `MulHi`,
//! `ShiftBy`) against Rust's own integer arithmetic on its native types and `i128`/`u128`, and
//! intermediate choices whose set is an approximation (an MPFR call-back) against the
//! interpreter, on programs built by hand.

use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::{Format, Round};
use semfuzz_jit::{compile, Evaluator, EvaluatorKind};
use semfuzz_spec::ir::{ApproxFn, Bound, Class, Dest, Op, Outcome, Part, PartKind, Program, Shift};
use semfuzz_spec::outcome::Accept;
use std::sync::Arc;

/// A program over two inputs of the given widths whose one result (`width` bits) is `op`
/// applied to them.
fn binary(widths: [u32; 2], op: Op, width: u32) -> Program {
    Program {
        input_widths: widths.to_vec(),
        ops: vec![Op::Input(0), Op::Input(1), op],
        widths: vec![widths[0], widths[1], width],
        dests: vec![Dest {
            name: "d".into(),
            width,
            parts: vec![Part {
                lo: 0,
                width,
                kind: PartKind::Bits,
                outcome: Outcome::Exact(2),
            }],
            by_range: false,
        }],
        choices: Vec::new(),
    }
}

/// Integer edges of `width` bits, shift amounts around it, and random bits.
fn operands(width: u32, rng: &mut SplitMix64) -> Vec<u64> {
    let m = semfuzz_spec::ir::mask(width);
    let min = 1u64 << (width - 1);
    let mut v = vec![
        0,
        1,
        2,
        m,
        m - 1,
        min,
        min - 1,
        min + 1,
        63,
        64,
        65,
        1 << 32,
        u64::MAX,
    ];
    v.extend((0..=u64::from(width) + 2).filter(|n| *n <= m));
    v.extend((0..200).map(|_| rng.next_u64()));
    v
}

/// Every pair of `operands` through the compiled `op`, against `model` (inputs masked to
/// their widths as the evaluator masks them).
fn check(name: &str, widths: [u32; 2], op: Op, width: u32, model: impl Fn(u64, u64) -> u64) {
    let program = binary(widths, op, width);
    let mut jit = Evaluator::compiled(&program, Arc::new(compile(&program).expect("compiles")));
    let mut rng = SplitMix64::new(u64::from(width) * 7 + widths[1] as u64);
    let xs = operands(widths[0], &mut rng);
    let ns = operands(widths[1], &mut rng);
    let inputs: Vec<u64> = xs
        .iter()
        .flat_map(|&x| ns.iter().flat_map(move |&n| [x, n]))
        .collect();
    let mut out = vec![Accept::default(); inputs.len() / 2];
    jit.eval_batch(&inputs, &mut out);
    for (pair, got) in inputs.chunks_exact(2).zip(&out) {
        let (x, n) = (
            pair[0] & semfuzz_spec::ir::mask(widths[0]),
            pair[1] & semfuzz_spec::ir::mask(widths[1]),
        );
        assert_eq!(
            *got,
            Accept::Exact(model(x, n)),
            "{name}/{width}: 0x{x:x}, 0x{n:x}"
        );
    }
}

macro_rules! int_ops {
    ($($u:ty, $s:ty, $w:expr;)*) => {$(
        check("slt", [$w, $w], Op::BvSlt($w, 0, 1), 1, |a, b| ((a as $s) < (b as $s)) as u64);
        check("mul", [$w, $w], Op::BvMul($w, 0, 1), $w, |a, b| (a as $u).wrapping_mul(b as $u) as u64);
        check("mul.hi.u", [$w, $w], Op::MulHi { width: $w, signed: false, a: 0, b: 1 }, $w, |a, b| {
            ((a as $u as u128 * b as $u as u128) >> $w) as $u as u64
        });
        check("mul.hi.s", [$w, $w], Op::MulHi { width: $w, signed: true, a: 0, b: 1 }, $w, |a, b| {
            ((a as $s as i128 * b as $s as i128) >> $w) as $u as u64
        });
        // Amounts from a register as wide as the value and from a 64-bit one.
        for aw in [$w, 64] {
            let amount = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
            let by = |kind| Op::ShiftBy { kind, width: $w, value: 0, amount: 1 };
            check("shl", [$w, aw], by(Shift::Left), $w, |x, n| {
                (x as $u).checked_shl(amount(n)).unwrap_or(0) as u64
            });
            check("shr.u", [$w, aw], by(Shift::Logical), $w, |x, n| {
                (x as $u).checked_shr(amount(n)).unwrap_or(0) as u64
            });
            check("shr.s", [$w, aw], by(Shift::Arithmetic), $w, |x, n| {
                let x = x as $s;
                x.checked_shr(amount(n)).unwrap_or(if x < 0 { -1 } else { 0 }) as $u as u64
            });
        }
    )*};
}

#[test]
fn integer_ops_agree_with_rusts_integers() {
    int_ops! {
        u8, i8, 8;
        u16, i16, 16;
        u32, i32, 32;
        u64, i64, 64;
    }
}

/// `x + 1.0` where `x` is a choice `choice` over input 0 (an `f32`), with the class test
/// `Finite(input)` as value 1 for a choice to branch on.
fn through_choice(choice: Outcome) -> Program {
    Program {
        input_widths: vec![32],
        ops: vec![
            Op::Input(0),
            Op::Class(Format::F32, Class::Finite, 0),
            Op::Choose(0),
            Op::Const(0x3f80_0000),
            Op::Add(Format::F32, Round::NearestEven, 2, 3),
        ],
        widths: vec![32, 1, 32, 32, 32],
        dests: vec![Dest {
            name: "d".into(),
            width: 32,
            parts: vec![Part {
                lo: 0,
                width: 32,
                kind: PartKind::Float(Format::F32),
                outcome: Outcome::Exact(4),
            }],
            by_range: false,
        }],
        choices: vec![choice],
    }
}

#[test]
fn approximations_read_by_later_ops_take_the_interpreters_value() {
    let ex2 = |bound| Outcome::Within {
        func: ApproxFn::Ex2,
        args: vec![0],
        format: Format::F32,
        bound,
        ftz: false,
    };
    let choices = [
        ex2(Bound::Ulps(2)),
        ex2(Bound::RelErr(-22.0)),
        // Only the branch taken calls MPFR; both must give the interpreter's value and flag.
        Outcome::Select(
            1,
            Box::new(ex2(Bound::Ulps(2))),
            Box::new(Outcome::AnyNan(Format::F32)),
        ),
        Outcome::Select(
            1,
            Box::new(Outcome::Exact(0)),
            Box::new(ex2(Bound::AbsErr(-20.0))),
        ),
    ];
    let mut g = BoundaryGen::new(Format::F32, 5);
    let inputs: Vec<u64> = (0..2000).map(|_| g.next().unwrap_or(0)).collect();
    for choice in choices {
        let program = through_choice(choice.clone());
        let mut jit = Evaluator::compiled(&program, Arc::new(compile(&program).expect("compiles")));
        let mut interp = Evaluator::of_kind(&program, EvaluatorKind::Interp);
        let (mut got, mut want) = (vec![Accept::default(); 2000], vec![Accept::default(); 2000]);
        jit.eval_batch(&inputs, &mut got);
        interp.eval_batch(&inputs, &mut want);
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{choice:?}: input 0x{:x}: compiled {:?}, interpreted {:?}",
                inputs[i], got[i], want[i]
            );
        }
        assert_eq!(jit.open_choices(), interp.open_choices(), "{choice:?}");
        assert!(
            jit.open_choices().iter().any(|o| *o),
            "{choice:?}: never open"
        );
    }
}
