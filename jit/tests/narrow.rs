//! The native lowerings of narrow-format arithmetic (f16, bf16, tf32, fp8, and f32 under a
//! directed rounding: computed in f64 and rounded once in integer code, `wide.rs`), their
//! comparisons and conversions, against `semfuzz-fp` (the interpreter's arithmetic), in every
//! rounding mode, on one-op programs built by hand.
//!
//! The operands are every pair (for `fma`, triple) of a set with each format's boundary
//! values and the cases where a lowering that skips the round-to-odd step goes wrong: a sum
//! whose exact value lies just beside a representable value or a midpoint, so that f64's
//! own rounding lands on it (`1 + 2^-40` in bf16 under `.rp` must give 1's successor).

use semfuzz_fp::vectors::{boundary_values, SplitMix64};
use semfuzz_fp::{self as fp, Format, Round};
use semfuzz_jit::{compile, Evaluator};
use semfuzz_spec::ir::{Cmp, Dest, Op, Outcome, Part, PartKind, Program};
use semfuzz_spec::outcome::Accept;
use std::sync::Arc;

/// The formats the f64 lowering takes (at most 8 exponent bits, 24 of precision).
const FORMATS: [Format; 6] = [
    Format::F16,
    Format::BF16,
    Format::TF32,
    Format::F32,
    Format::ieee(4, 4),
    Format::ieee(5, 3),
];

/// A program reading inputs of `widths` whose one result (`width` bits) is `op`.
fn program(widths: &[u32], op: Op, width: u32) -> Program {
    let n = widths.len();
    let mut ops: Vec<Op> = (0..n as u16).map(Op::Input).collect();
    ops.push(op);
    let mut all = widths.to_vec();
    all.push(width);
    Program {
        input_widths: widths.to_vec(),
        ops,
        widths: all,
        dests: vec![Dest {
            name: "d".into(),
            width,
            parts: vec![Part {
                lo: 0,
                width,
                kind: PartKind::Bits,
                outcome: Outcome::Exact(n as u32),
            }],
            by_range: false,
        }],
        choices: Vec::new(),
    }
}

/// Boundary values of `f`, the values next to 1 and to a power of two far below it (the
/// near-ties of a sum with a large exponent gap), and random encodings; `limit` of them.
fn operands(f: Format, limit: usize, rng: &mut SplitMix64) -> Vec<u64> {
    let mut v = boundary_values(f);
    let one = f.one(false);
    let t = f.precision() - 1;
    let mut near = vec![
        one,
        one + 1,
        one - 1,
        f.min_subnormal(false),
        f.min_normal(false),
    ];
    // Half a unit of 1, and its neighbours: 1 + that is a tie, or just beside one.
    for k in [t + 1, t + 2, t + 20] {
        let e = i64::from(f.bias()) - i64::from(k);
        if e > 0 {
            let p = (e as u64) << t;
            near.extend([p, p + 1, p - 1]);
        }
    }
    v.extend(near.iter().flat_map(|&x| [x, f.neg(x)]));
    v.sort_unstable();
    v.dedup();
    v.truncate(limit.saturating_sub(16));
    while v.len() < limit {
        v.push(rng.next_u64() & f.mask());
    }
    v
}

/// `op` compiled and run over `rows` (each `widths.len()` operands), against `model`.
fn check(
    name: &str,
    widths: &[u32],
    op: Op,
    width: u32,
    rows: &[u64],
    model: impl Fn(&[u64]) -> u64,
) {
    let p = program(widths, op, width);
    let mut jit = Evaluator::compiled(&p, Arc::new(compile(&p).expect("compiles")));
    let mut out = vec![Accept::default(); rows.len() / widths.len()];
    jit.eval_batch(rows, &mut out);
    for (row, got) in rows.chunks_exact(widths.len()).zip(&out) {
        let want = model(row);
        assert_eq!(
            *got,
            Accept::Exact(want),
            "{name}: {row:x?} gave {got:x?}, not {want:#x}"
        );
    }
}

fn pairs(xs: &[u64]) -> Vec<u64> {
    xs.iter()
        .flat_map(|&a| xs.iter().flat_map(move |&b| [a, b]))
        .collect()
}

#[test]
fn narrow_arithmetic_agrees_with_semfuzz_fp_in_every_mode() {
    let mut rng = SplitMix64::new(20);
    for f in FORMATS {
        let w = f.width();
        let xs = operands(f, 240, &mut rng);
        let two = pairs(&xs);
        let few = &xs[..40];
        let three: Vec<u64> = few
            .iter()
            .flat_map(|&a| {
                few.iter()
                    .flat_map(move |&b| few.iter().flat_map(move |&c| [a, b, c]))
            })
            .collect();
        for r in Round::ALL {
            let name = |op: &str| format!("{op} {f:?} {r:?}");
            check(&name("add"), &[w; 2], Op::Add(f, r, 0, 1), w, &two, |x| {
                fp::add(f, x[0], x[1], r)
            });
            check(&name("sub"), &[w; 2], Op::Sub(f, r, 0, 1), w, &two, |x| {
                fp::sub(f, x[0], x[1], r)
            });
            check(&name("mul"), &[w; 2], Op::Mul(f, r, 0, 1), w, &two, |x| {
                fp::mul(f, x[0], x[1], r)
            });
            check(
                &name("fma"),
                &[w; 3],
                Op::Fma(f, r, 0, 1, 2),
                w,
                &three,
                |x| fp::fma(f, x[0], x[1], x[2], r),
            );
        }
        for c in [Cmp::Eq, Cmp::Lt, Cmp::Le] {
            check(
                &format!("{c:?} {f:?}"),
                &[w; 2],
                Op::FCmp(f, c, 0, 1),
                1,
                &two,
                |x| {
                    use std::cmp::Ordering::*;
                    let o = fp::compare(f, x[0], x[1]);
                    (match c {
                        Cmp::Eq => o == Some(Equal),
                        Cmp::Lt => o == Some(Less),
                        Cmp::Le => matches!(o, Some(Less | Equal)),
                    }) as u64
                },
            );
        }
    }
}

#[test]
fn narrow_conversions_agree_with_semfuzz_fp_in_every_mode() {
    let mut rng = SplitMix64::new(21);
    for from in FORMATS {
        let xs = operands(from, 2000, &mut rng);
        for to in FORMATS {
            for r in Round::ALL {
                check(
                    &format!("cvt {from:?} -> {to:?} {r:?}"),
                    &[from.width()],
                    Op::Cvt(from, to, r, 0),
                    to.width(),
                    &xs,
                    |x| fp::convert(from, to, x[0], r),
                );
            }
        }
    }
}
