//! SASS HFMA2, HADD2, HMNMX2, HSET2 and HMUL2's `.BF16_V2` (spec/isa/sass-hfma2.sem,
//! sass-hadd2.sem, sass-hmnmx2.sem, sass-hset2.sem, sass-hmul2.sem),
//! read as the instruction text ptxas 13.5 emits for the excerpt's half-precision PTX, against
//! an independent model on `rustc_apfloat` (LLVM's APFloat) over boundary-heavy lane values:
//! every pair (and for fma every triple) of the boundary values of f16, or of bf16 under
//! `.BF16_V2`, in both lanes.

mod common;
use common::{spec, tiny_after_rounding, Rounded};
use rustc_apfloat::ieee::{BFloat, Half};
use rustc_apfloat::{Float, Round as ApRound};
use semfuzz_fp::vectors::{boundary_values, SplitMix64};
use semfuzz_fp::Format;
// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::sass;

const NEG: u64 = 0x8000;
const CANONICAL_NAN: u64 = 0x7FFF;

/// Evaluates SASS text on the values it reads; one accept set per lane.
fn run(text: &str, values: &[u64]) -> Vec<Accept> {
    prepare(text)(values)
}

/// SASS text parsed once, as a function of the values it reads.
fn prepare(text: &str) -> impl FnMut(&[u64]) -> Vec<Accept> + '_ {
    let i = sass::parse(spec(), text).unwrap_or_else(|d| panic!("{text}:\n{d}"));
    let mut ev = Evaluator::new(&i.variant.program);
    move |values| {
        let inputs = i.inputs(values).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut out = vec![Accept::default(); ev.n_parts()];
        ev.eval(&inputs, &mut out);
        out
    }
}

fn pack(hi: u64, lo: u64) -> u64 {
    hi << 16 | lo
}

/// A lane format: fp16, or bf16 where the text writes `.BF16_V2`. Both keep the sign in bit 15
/// and have the canonical NaN 0x7FFF.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lane {
    F16,
    Bf16,
}
use Lane::{Bf16, F16};

/// `body` computed in the lane's `rustc_apfloat` type, `t` reading lane bits as that type;
/// the result's bits.
macro_rules! in_format {
    ($lane:expr, |$t:ident| $body:expr) => {
        match $lane {
            F16 => {
                let $t = |x: u64| Half::from_bits(x.into());
                $body.to_bits() as u64
            }
            Bf16 => {
                let $t = |x: u64| BFloat::from_bits(x.into());
                $body.to_bits() as u64
            }
        }
    };
}

impl Lane {
    fn format(self) -> Format {
        match self {
            F16 => Format::F16,
            Bf16 => Format::BF16,
        }
    }

    fn exponent_mask(self) -> u64 {
        match self {
            F16 => 0x7C00,
            Bf16 => 0x7F80,
        }
    }

    fn one(self) -> u64 {
        match self {
            F16 => 0x3C00,
            Bf16 => 0x3F80,
        }
    }

    fn is_nan(self, x: u64) -> bool {
        let e = self.exponent_mask();
        x & e == e && x & !e & 0x7FFF != 0
    }

    fn flush(self, x: u64) -> u64 {
        if x & self.exponent_mask() == 0 {
            x & NEG
        } else {
            x
        }
    }

    /// [+0.0, 1.0], NaN and -0.0 to +0.0 (PTX 9.7.4 and HMUL2's .SAT).
    fn saturate(self, x: u64) -> u64 {
        if self.is_nan(x) || x & NEG != 0 {
            0
        } else if x > self.one() {
            self.one()
        } else {
            x
        }
    }

    /// The value the model expects: exact bits, any NaN, or the canonical NaN.
    fn expect(self, x: u64, nan_is_canonical: bool) -> Accept {
        match (self.is_nan(x), nan_is_canonical) {
            (true, false) => Accept::AnyNan(self.format()),
            (true, true) => Accept::Exact(CANONICAL_NAN),
            (false, _) => Accept::Exact(x),
        }
    }

    /// The boundary values plus a few random ones: the lane inputs.
    fn values(self) -> Vec<u64> {
        let mut v = boundary_values(self.format());
        let mut rng = SplitMix64::new(8);
        v.extend((0..8).map(|_| rng.next_u64() & 0xFFFF));
        v
    }

    fn fma(self, a: u64, b: u64, c: u64) -> u64 {
        in_format!(self, |t| t(a)
            .mul_add_r(t(b), t(c), ApRound::NearestTiesToEven)
            .value)
    }

    fn add(self, a: u64, b: u64) -> u64 {
        in_format!(self, |t| t(a).add_r(t(b), ApRound::NearestTiesToEven).value)
    }

    fn mul(self, a: u64, b: u64) -> u64 {
        in_format!(self, |t| t(a).mul_r(t(b), ApRound::NearestTiesToEven).value)
    }

    fn partial_cmp(self, x: u64, y: u64) -> Option<std::cmp::Ordering> {
        match self {
            F16 => Half::from_bits(x.into()).partial_cmp(&Half::from_bits(y.into())),
            Bf16 => BFloat::from_bits(x.into()).partial_cmp(&BFloat::from_bits(y.into())),
        }
    }
}

/// Checks `text` lane by lane: for each pair of lane-0 inputs (`x`, `y`) the register values
/// `values(x, y)` (lane 1 gets another pair, to catch a lane mix-up) against `model`.
fn check2(
    lane: Lane,
    text: &str,
    values: impl Fn(u64, u64) -> Vec<u64>,
    model: impl Fn(u64, u64) -> Accept,
) {
    let vs = lane.values();
    let mut n = 0;
    let mut eval = prepare(text);
    for (k, &x) in vs.iter().enumerate() {
        for &y in &vs {
            let (x1, y1) = (vs[(k * 7 + 3) % vs.len()], y ^ NEG);
            let v0 = values(x, y);
            let v1 = values(x1, y1);
            let regs: Vec<u64> = v0.iter().zip(&v1).map(|(lo, hi)| pack(*hi, *lo)).collect();
            let got = eval(&regs);
            let want = vec![model(x, y), model(x1, y1)];
            assert_eq!(got, want, "{text} {regs:#x?}");
            n += 1;
        }
    }
    assert!(n > 1000, "{n} cases");
}

// fma.rn{.ftz}{.sat}{.relu}.f16x2 -> HFMA2.MMA{.FTZ}{.SAT|.RELU} R5, R0, R5, R4 (sm_90), and
// fma.rn{.relu}.bf16x2 -> HFMA2.MMA.BF16_V2{.RELU}: one rounding, inputs and result flushed
// under .FTZ, .SAT's and .RELU's clamps.
#[test]
fn hfma2_registers_are_fma_rn_per_lane() {
    for (lane, text, ftz, sat, relu) in [
        (F16, "HFMA2.MMA R5, R0, R1, R2", false, false, false),
        (F16, "HFMA2.MMA.FTZ R5, R0, R1, R2", true, false, false),
        (F16, "HFMA2.SAT R5, R0, R1, R2", false, true, false),
        (F16, "HFMA2.MMA.FTZ.RELU R5, R0, R1, R2", true, false, true),
        (F16, "HFMA2.RELU R5, R0, R1, R2", false, false, true),
        (
            Bf16,
            "HFMA2.MMA.BF16_V2 R5, R0, R1, R2",
            false,
            false,
            false,
        ),
        (
            Bf16,
            "HFMA2.BF16_V2.RELU R5, R0, R1, R2",
            false,
            false,
            true,
        ),
    ] {
        let model = |a: u64, b: u64, c: u64| {
            let f = |x: u64| if ftz { lane.flush(x) } else { x };
            let (a, b, c) = (f(a), f(b), f(c));
            let r = lane.fma(a, b, c);
            let r = if ftz && tiny_after_rounding(lane == Bf16, Rounded::Fma, a, b, c) {
                r & NEG
            } else {
                r
            };
            if sat {
                lane.expect(lane.saturate(r), false)
            } else if relu {
                // 9.7.4.4: "clamps the result to 0 if negative. NaN result is converted to
                // canonical NaN"; -0.0 counts as negative (docs/ambiguities.md).
                lane.expect(
                    if !lane.is_nan(r) && r & NEG != 0 {
                        0
                    } else {
                        r
                    },
                    true,
                )
            } else {
                lane.expect(r, false)
            }
        };
        let vs = lane.values();
        let mut rng = SplitMix64::new(3);
        let mut eval = prepare(text);
        for &a in &vs {
            for &b in &vs {
                for _ in 0..6 {
                    let c = vs[rng.below(vs.len() as u64) as usize];
                    let (a1, b1, c1) = (b, c, a ^ NEG);
                    let got = eval(&[pack(a1, a), pack(b1, b), pack(c1, c)]);
                    assert_eq!(
                        got,
                        vec![model(a, b, c), model(a1, b1, c1)],
                        "{text} a={a:#x} b={b:#x} c={c:#x}"
                    );
                }
            }
        }
    }
}

// add.f16x2 -> HFMA2.MMA R5, R0, 1, 1, R5: a*1 + b rounds once, as add.rn does; mul.f16x2 ->
// HFMA2.MMA R5, R0, R5, -RZ: a*b + (-0.0) keeps the sign of a zero product. The bf16x2 forms
// add .BF16_V2 (the immediate 1 is then a bf16).
#[test]
fn hfma2_with_one_or_negative_rz_is_add_or_mul() {
    let add = Lane::add as fn(Lane, u64, u64) -> u64;
    let mul = Lane::mul as fn(Lane, u64, u64) -> u64;
    for (lane, text, op) in [
        (F16, "HFMA2.MMA R5, R0, 1, 1, R1", add),
        (Bf16, "HFMA2.MMA.BF16_V2 R5, R0, 1, 1, R1", add),
        (F16, "HFMA2.MMA R5, R0, R1, -RZ", mul),
        (Bf16, "HFMA2.MMA.BF16_V2 R5, R0, R1, -RZ", mul),
    ] {
        check2(
            lane,
            text,
            |x, y| vec![x, y],
            |x, y| lane.expect(op(lane, x, y), false),
        );
    }
}

// fma.rn.f16 with c a parameter (sm_80): c[0x0] [0x168].H0_H0, as cuobjdump spaces it.
#[test]
fn hfma2_constant_operand_with_a_swizzle() {
    let (a, b) = (0x4200, 0x3800); // 3, 0.5
    let got = run(
        "HFMA2 R0, R0.H0_H0, R5.H0_H0, c[0x0] [0x168].H0_H0",
        &[a, b, 0x1234_3C00],
    );
    // 3 * 0.5 + 1 = 2.5 in both lanes (each source replicates its lower half).
    assert_eq!(got, vec![Accept::Exact(0x4100), Accept::Exact(0x4100)]);
    // The constant in the b position, without a swizzle: both halves.
    let got = run(
        "HFMA2.MMA R5, R0, c[0x0][0x168], -RZ",
        &[pack(a, a), pack(b, 0x4000)],
    );
    assert_eq!(got, vec![Accept::Exact(0x4600), Accept::Exact(0x3E00)]);
}

// fma.rn.bf16x2 with c the constant 0xbfc0bf80 (sm_80): `HFMA2.BF16_V2 R5, R0, R5, -1.5, -1`,
// the immediates bf16 values (H1, H0); and `.F32` converts toward zero into bf16.
#[test]
fn hfma2_bf16_v2_reads_bf16_immediates_and_f32_sources() {
    let (two, three) = (0x4000, 0x4040);
    // 2 * 3 - 1 = 5 (0x40A0) in lane 0, 3 * 3 - 1.5 = 7.5 (0x40F0) in lane 1.
    let got = run(
        "HFMA2.BF16_V2 R5, R0, R5, -1.5, -1",
        &[pack(three, two), pack(three, three)],
    );
    assert_eq!(got, vec![Accept::Exact(0x40A0), Accept::Exact(0x40F0)]);
    // 0x3F81FFFF (1.0156249) truncates to 0x3F81; +0 keeps it (fp16 would give 0x3C08).
    let got = run("HFMA2.BF16_V2 R5, R0.F32, 1, 1, RZ", &[0x3F81_FFFF]);
    assert_eq!(got, vec![Accept::Exact(0x3F81); 2]);
}

// fma.rn.oob.relu.{f16,bf16}x2 -> HFMA2{.BF16_V2}.OOB.RELU R5, R0, R5, R4 (sm_90): a lane
// with the OOB NaN (0x7FF7 of either sign, ptx-9.7.4-half-precision.sem) in a factor is +0.0;
// in c alone, or any other NaN, it is a NaN as usual (the canonical one under .RELU).
#[test]
fn hfma2_oob_zeroes_the_lanes_that_read_the_oob_nan() {
    const OOB: u64 = 0x7FF7;
    for (lane, text) in [
        (F16, "HFMA2.OOB.RELU R5, R0, R1, R2"),
        (Bf16, "HFMA2.BF16_V2.OOB.RELU R5, R0, R1, R2"),
    ] {
        let one = lane.one();
        let two = lane.add(one, one);
        let three = lane.add(two, one);
        let mut eval = prepare(text);
        // a's lane 0, then b's lane 1 (with the sign set), is the OOB NaN.
        let got = eval(&[pack(one, OOB), pack(one, one), pack(one, one)]);
        assert_eq!(got, vec![Accept::Exact(0), Accept::Exact(two)], "{text}");
        let got = eval(&[pack(two, one), pack(0x8000 | OOB, one), pack(one, one)]);
        assert_eq!(got, vec![Accept::Exact(two), Accept::Exact(0)], "{text}");
        // c's lane 1 is the OOB NaN: c is no factor, so the lane is the NaN of the sum.
        let got = eval(&[pack(two, one), pack(one, one), pack(OOB, one)]);
        assert_eq!(
            got,
            vec![Accept::Exact(two), Accept::Exact(CANONICAL_NAN)],
            "{text}"
        );
        // b's lane 1 is another NaN: not the marker.
        let got = eval(&[pack(one, two), pack(0x7FFF, one), pack(one, one)]);
        assert_eq!(
            got,
            vec![Accept::Exact(three), Accept::Exact(CANONICAL_NAN)],
            "{text}"
        );
        // Without .OOB the marker is a NaN like any other.
        let plain = text.replace(".OOB", "");
        let got = run(&plain, &[pack(one, OOB), pack(one, one), pack(one, one)]);
        assert_eq!(
            got,
            vec![Accept::Exact(CANONICAL_NAN), Accept::Exact(two)],
            "{plain}"
        );
    }
}

// .FMZ (ASSUMPTION: HMUL2's rule on the product): a zero factor makes the product +0.0 even
// against infinity or NaN, and +0 + c is c (or +0 for c = -0).
#[test]
fn hfma2_fmz_forces_a_positive_zero_product() {
    let inf = 0x7C00;
    let got = run(
        "HFMA2.FMZ R0, R1, R2, R3",
        &[pack(0, 0x8000), pack(0x7E00, inf), pack(NEG, 0x3C00)],
    );
    assert_eq!(got, vec![Accept::Exact(0x3C00), Accept::Exact(0)]);
    // Without .FMZ, 0 * inf is invalid: a NaN.
    let got = run("HFMA2 R0, R1, R2, R3", &[0, pack(0, inf), 0]);
    assert_eq!(got[0], Accept::AnyNan(Format::F16));
}

// add/sub{.ftz}{.sat}.f16 -> HADD2{.FTZ}{.SAT} R0, R0.H0_H0, {-}R5.H0_H0; add.rn.bf16 ->
// HADD2.BF16_V2; mul.rn.bf16 -> HMUL2.BF16_V2 R0, R0.H0_H0, R5.H0_H0, and HMUL2's .FTZ and
// .SAT on bf16 lanes (ASSUMPTION: their meanings unchanged).
#[test]
fn hadd2_and_hmul2_bf16_v2_round_once_per_lane() {
    let add = Lane::add as fn(Lane, u64, u64) -> u64;
    let mul = Lane::mul as fn(Lane, u64, u64) -> u64;
    for (lane, text, op, neg_b, ftz, sat) in [
        (F16, "HADD2 R0, R1, R2", add, false, false, false),
        (F16, "HADD2.FTZ.SAT R0, R1, -R2", add, true, true, true),
        (F16, "HADD2.FTZ R0, R1, R2", add, false, true, false),
        (F16, "HADD2.SAT R0, R1, -R2", add, true, false, true),
        (Bf16, "HADD2.BF16_V2 R0, R1, R2", add, false, false, false),
        (Bf16, "HADD2.BF16_V2 R0, R1, -R2", add, true, false, false),
        (Bf16, "HMUL2.BF16_V2 R0, R1, R2", mul, false, false, false),
        (
            Bf16,
            "HMUL2.BF16_V2.FTZ.SAT R0, R1, -R2",
            mul,
            true,
            true,
            true,
        ),
    ] {
        check2(
            lane,
            text,
            |x, y| vec![x, y],
            |x, y| {
                let f = |v: u64| if ftz { lane.flush(v) } else { v };
                let y = if neg_b { y ^ NEG } else { y };
                let (x, y) = (f(x), f(y));
                let r = op(lane, x, y);
                // .FTZ flushes a result tiny after rounding (docs/ambiguities.md 7).
                let rounded = if text.starts_with("HMUL2") {
                    Rounded::Mul
                } else {
                    Rounded::Add
                };
                let r = if ftz && tiny_after_rounding(lane == Bf16, rounded, x, y, 0) {
                    r & NEG
                } else {
                    r
                };
                lane.expect(if sat { lane.saturate(r) } else { r }, false)
            },
        );
    }
}

// add.f16x2 with b a constant: `HADD2 R5, R0, 1.5, 1` (H1, H0); sub: `-1.5, -1`; bf16x2:
// `HADD2.BF16_V2 R5, R0, 1.5, 1`, the same numbers as bf16.
#[test]
fn hadd2_immediates_are_whole_fp16_in_h1_h0_order() {
    let got = run("HADD2 R5, R0, 1.5, 1", &[pack(0x3C00, 0x3C00)]);
    assert_eq!(got, vec![Accept::Exact(0x4000), Accept::Exact(0x4100)]);
    let got = run("HADD2 R5, R0, -1.5, -1", &[pack(0x3C00, 0x3C00)]);
    assert_eq!(got, vec![Accept::Exact(0), Accept::Exact(0xB800)]);
    // An fp16 immediate keeps all 16 bits (HMUL2's fp10 fields do not apply here).
    let got = run("HADD2 R5, RZ, 0x3c01, 0x3c01", &[]);
    assert_eq!(got, vec![Accept::Exact(0x3C01), Accept::Exact(0x3C01)]);
    let got = run("HADD2.BF16_V2 R5, R0, 1.5, 1", &[pack(0x3F80, 0x3F80)]);
    assert_eq!(got, vec![Accept::Exact(0x4000), Accept::Exact(0x4020)]);
}

// neg.f16x2 -> HADD2 R5, -R0, -RZ.H0_H0 and abs.f16x2 -> HADD2 R5, |R0|, -RZ.H0_H0;
// neg.bf16x2 -> HFMA2.BF16_V2 R5, -RZ.H0_H0, RZ.H0_H0, -R0 and abs.bf16 -> the same with
// |R0|.H0_H0: the sign flipped or cleared for every number, zeros included.
#[test]
fn hadd2_with_negative_rz_is_neg_and_abs() {
    for (lane, neg, abs) in [
        (F16, "HADD2 R5, -R0, -RZ.H0_H0", "HADD2 R5, |R0|, -RZ.H0_H0"),
        (
            Bf16,
            "HFMA2.BF16_V2 R5, -RZ.H0_H0, RZ.H0_H0, -R0",
            "HFMA2.BF16_V2 R5, -RZ.H0_H0, RZ.H0_H0, |R0|",
        ),
    ] {
        let (mut neg_of, mut abs_of) = (prepare(neg), prepare(abs));
        for &x in &lane.values() {
            if lane.is_nan(x) {
                continue;
            }
            let got = neg_of(&[pack(x, x)]);
            assert_eq!(got, vec![Accept::Exact(x ^ NEG); 2], "{neg} {x:#x}");
            let got = abs_of(&[pack(x, x)]);
            assert_eq!(got, vec![Accept::Exact(x & !NEG); 2], "{abs} {x:#x}");
        }
    }
}

/// IEEE minNum/maxNum with -0.0 < +0.0 (PTX 9.7.4.7/8), on lane bits; None: a NaN.
fn min_max(lane: Lane, x: u64, y: u64, max: bool, nan: bool) -> Option<u64> {
    match (lane.is_nan(x), lane.is_nan(y)) {
        (true, true) => return None,
        (true, false) | (false, true) if nan => return None,
        (true, false) => return Some(y),
        (false, true) => return Some(x),
        _ => {}
    }
    let key = |v: u64| -> i32 {
        if v & NEG != 0 {
            -((v & 0x7FFF) as i32) - 1
        } else {
            v as i32
        }
    };
    let x_first = if max {
        key(x) > key(y)
    } else {
        key(x) < key(y)
    };
    Some(if x_first || key(x) == key(y) { x } else { y })
}

// min/max{.ftz}{.NaN}{.xorsign.abs}.f16x2 -> HMNMX2{.FTZ}{.NAN}{.XORSIGN} R5, R0, R5, PT
// (min) / !PT (max), with `|R0|, |R5|` for .xorsign.abs; the .bf16x2 forms with .BF16_V2.
#[test]
fn hmnmx2_is_min_with_pt_and_max_with_not_pt() {
    for (lane, text, max, ftz, nan, xorsign) in [
        (F16, "HMNMX2 R5, R0, R1, PT", false, false, false, false),
        (F16, "HMNMX2 R5, R0, R1, !PT", true, false, false, false),
        (
            F16,
            "HMNMX2.FTZ.NAN R5, R0, R1, PT",
            false,
            true,
            true,
            false,
        ),
        (F16, "HMNMX2.NAN R5, R0, R1, !PT", true, false, true, false),
        (F16, "HMNMX2.FTZ R5, R0, R1, !PT", true, true, false, false),
        (
            F16,
            "HMNMX2.FTZ.NAN.XORSIGN R5, |R0|, |R1|, PT",
            false,
            true,
            true,
            true,
        ),
        (
            F16,
            "HMNMX2.XORSIGN R5, |R0|, |R1|, !PT",
            true,
            false,
            false,
            true,
        ),
        (
            Bf16,
            "HMNMX2.BF16_V2 R5, R0, R1, PT",
            false,
            false,
            false,
            false,
        ),
        (
            Bf16,
            "HMNMX2.BF16_V2.NAN R5, R0, R1, !PT",
            true,
            false,
            true,
            false,
        ),
        (
            Bf16,
            "HMNMX2.BF16_V2.NAN.XORSIGN R5, |R0|, |R1|, PT",
            false,
            false,
            true,
            true,
        ),
        (
            Bf16,
            "HMNMX2.BF16_V2.XORSIGN R5, |R0|, |R1|, !PT",
            true,
            false,
            false,
            true,
        ),
    ] {
        check2(
            lane,
            text,
            |x, y| vec![x, y],
            |x, y| {
                let f = |v: u64| if ftz { lane.flush(v) } else { v };
                let (a, b) = if xorsign {
                    (f(x) & !NEG, f(y) & !NEG)
                } else {
                    (f(x), f(y))
                };
                // 9.7.4.7: "the sign bit of the result is the XOR of the sign bits of both
                // inputs", taken before .abs; a NaN result ignores it.
                let xor = (x ^ y) & NEG;
                match min_max(lane, a, b, max, nan) {
                    Some(r) if xorsign => Accept::Exact(f(r & !NEG | xor)),
                    Some(r) => Accept::Exact(r),
                    None if nan => Accept::Exact(CANONICAL_NAN),
                    None => Accept::AnyNan(lane.format()),
                }
            },
        );
    }
    // A predicate register chooses at run time (ASSUMPTION: true is min).
    let (one, two) = (0x3C00, 0x4000);
    let regs = [pack(one, one), pack(two, two)];
    assert_eq!(
        run("HMNMX2 R5, R0, R1, P0", &[regs[0], regs[1], 1])[0],
        Accept::Exact(one)
    );
    assert_eq!(
        run("HMNMX2 R5, R0, R1, P0", &[regs[0], regs[1], 0])[0],
        Accept::Exact(two)
    );
}

/// 9.7.7.1's comparisons on lane bits, by the manual's CmpOp name (lower case), from
/// `rustc_apfloat`'s ordering (None: unordered).
fn compare(lane: Lane, op: &str, x: u64, y: u64) -> bool {
    use std::cmp::Ordering::*;
    let o = lane.partial_cmp(x, y);
    let unordered = o.is_none();
    match op {
        "eq" => o == Some(Equal),
        "ne" => matches!(o, Some(Less | Greater)),
        "lt" => o == Some(Less),
        "le" => matches!(o, Some(Less | Equal)),
        "gt" => o == Some(Greater),
        "ge" => matches!(o, Some(Greater | Equal)),
        "equ" => unordered || o == Some(Equal),
        "neu" => unordered || matches!(o, Some(Less | Greater)),
        "ltu" => unordered || o == Some(Less),
        "leu" => unordered || matches!(o, Some(Less | Equal)),
        "gtu" => unordered || o == Some(Greater),
        "geu" => unordered || matches!(o, Some(Greater | Equal)),
        "num" => !unordered,
        _ => unordered,
    }
}

// set.CmpOp{.ftz}.BoolOp.{u32,f16x2}.f16x2 -> HSET2{.BF}.CmpOp{.FTZ}.BoolOp R5, R0, R5, Pp:
// per lane the comparison combined with the predicate; 0xFFFF/0 halves, or 1.0/0 with .BF.
#[test]
fn hset2_compares_each_lane_and_combines_the_predicate() {
    let ops = [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    ];
    for (k, op) in ops.iter().enumerate() {
        let (bf, ftz) = (k % 2 == 0, k % 3 == 0);
        // set on .bf16x2 -> HSET2.BF16_V2.
        let lane = if k % 4 == 1 { Bf16 } else { F16 };
        for (bool_op, p) in [("AND", true), ("OR", false), ("XOR", true)] {
            let text = format!(
                "HSET2{}{}.{}{}.{bool_op} R5, R0, R1, {}",
                if matches!(lane, Bf16) { ".BF16_V2" } else { "" },
                if bf { ".BF" } else { "" },
                op.to_uppercase(),
                if ftz { ".FTZ" } else { "" },
                if p { "PT" } else { "!PT" }
            );
            let half = |x: u64, y: u64| {
                let f = |v: u64| if ftz { lane.flush(v) } else { v };
                let t = compare(lane, op, f(x), f(y));
                let r = match bool_op {
                    "AND" => t && p,
                    "OR" => t || p,
                    _ => t ^ p,
                };
                match (r, bf) {
                    (true, true) => lane.one(),
                    (true, false) => 0xFFFF,
                    (false, _) => 0,
                }
            };
            let vs = lane.values();
            let mut eval = prepare(&text);
            for (i, &x) in vs.iter().enumerate() {
                for &y in &vs {
                    let (x1, y1) = (y, vs[(i * 5 + 1) % vs.len()]);
                    let got = eval(&[pack(x1, x), pack(y1, y)]);
                    let want = if bf {
                        vec![Accept::Exact(half(x, y)), Accept::Exact(half(x1, y1))]
                    } else {
                        vec![Accept::Exact(half(x1, y1) << 16 | half(x, y))]
                    };
                    assert_eq!(got, want, "{text} x={x:#x} y={y:#x} x1={x1:#x} y1={y1:#x}");
                }
            }
        }
    }
}

// sm_90 passes an f16x2 kernel parameter in a uniform register: `HADD2 R5, R0, UR6` reads UR6
// as `HADD2 R5, R0, R6` reads R6, and URZ is zero; a uniform register is never a destination.
#[test]
fn a_uniform_register_source_is_read_as_a_register() {
    let (a, b) = (pack(0x3C00, 0x4000), pack(0x3800, 0x3C00));
    assert_eq!(
        run("HADD2 R5, R0, UR6", &[a, b]),
        run("HADD2 R5, R0, R6", &[a, b])
    );
    assert_eq!(
        run("HFMA2.MMA R5, R0, UR6, -URZ", &[a, b]),
        run("HFMA2.MMA R5, R0, R6, -RZ", &[a, b])
    );
    // Register numbers are plain decimals: `R+1` (which `u32::from_str` reads as 1) is no
    // register.
    for text in [
        "HADD2 UR5, R0, R1",
        "HADD2 R5, R0, UR63",
        "HADD2 R5, R0, R+1",
    ] {
        let err = sass::parse(spec(), text).err().map(|d| d.to_string());
        assert!(err.is_some(), "{text} was accepted");
    }
}

// cuobjdump marks operand-cache reuse on a register (`|R0|.reuse.H0_H0`, `R0.reuse`): a
// scheduling hint, read as if absent.
#[test]
fn reuse_flags_are_ignored() {
    let (a, b) = (pack(0x3C00, 0xC000), pack(0x3800, 0x3C00));
    assert_eq!(
        run("HADD2.FTZ R4, |R0|.reuse.H0_H0, -RZ.H0_H0", &[a]),
        run("HADD2.FTZ R4, |R0|.H0_H0, -RZ.H0_H0", &[a])
    );
    assert_eq!(
        run("HFMA2.MMA R5, R0.reuse, R1.reuse, -RZ", &[a, b]),
        run("HFMA2.MMA R5, R0, R1, -RZ", &[a, b])
    );
}
