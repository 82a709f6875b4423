//! PTX ISA 9.7.5 Mixed Precision Floating-Point Instructions (`add`/`sub{.rnd}{.sat}.f32.atype`)
//! against an independent soft-float (`rustc_apfloat`, LLVM's APFloat): `a` widened exactly
//! from f16 or bf16 to f32, then added to or subtracted from `b` in f32 with the rounding
//! named, the result saturated to [0.0, 1.0] with a NaN to +0.0 where `.sat` asks.

mod common;
use common::{eval, Bits};
use rustc_apfloat::ieee::{BFloat, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};
use semfuzz_spec::outcome::Accept;

/// `a` (16 bits of `half` or `bfloat`) widened to f32; exact, so no rounding matters.
fn widen(bf16: bool, a: u64) -> Single {
    let mut lost = false;
    if bf16 {
        BFloat::from_bits(a as u128).convert(&mut lost).value
    } else {
        Half::from_bits(a as u128).convert(&mut lost).value
    }
}

fn reference(sub: bool, rnd: Round, sat: bool, bf16: bool, a: u64, b: u64) -> Option<u32> {
    let x = widen(bf16, a);
    let y = Single::from_bits(b as u128);
    let r = if sub {
        x.sub_r(y, rnd).value
    } else {
        x.add_r(y, rnd).value
    };
    if r.is_nan() {
        // "NaN results are flushed to +0.0f" under .sat; otherwise any NaN.
        return sat.then_some(0);
    }
    let r = if sat {
        if r.is_negative() {
            Single::ZERO
        } else if r > Single::from_u128(1).value {
            Single::from_u128(1).value
        } else {
            r
        }
    } else {
        r
    };
    Some(r.to_bits() as u32)
}

#[test]
fn mixed_add_and_sub_round_once_after_an_exact_widening() {
    let mut bits = Bits(0x9e37_79b9_7f4a_7c15);
    let roundings = [
        ("rn", Round::NearestTiesToEven),
        ("rz", Round::TowardZero),
        ("rm", Round::TowardNegative),
        ("rp", Round::TowardPositive),
    ];
    let mut checked = 0;
    for op in ["add", "sub"] {
        for (rname, rnd) in roundings {
            for sat in [false, true] {
                for (atype, bf16) in [("f16", false), ("bf16", true)] {
                    let instr =
                        format!("{op}.{rname}{}.f32.{atype}", if sat { ".sat" } else { "" });
                    for k in 0..2000 {
                        let a = bits.next() & 0xffff;
                        // Half the cases near a's magnitude, so the sum is inexact and close.
                        let b = if k % 2 == 0 {
                            bits.next() & 0xffff_ffff
                        } else {
                            let w = widen(bf16, a).to_bits() as u64;
                            (w ^ (bits.next() & 0x8000_ffff)) & 0xffff_ffff
                        };
                        let got = eval(&instr, &[a, b]);
                        match (reference(op == "sub", rnd, sat, bf16, a, b), &got[..]) {
                            (Some(want), [Accept::Exact(g)]) => {
                                assert_eq!(*g, want as u64, "{instr} {a:#x} {b:#x}")
                            }
                            (None, [Accept::AnyNan(_)]) => {}
                            (want, got) => panic!("{instr} {a:#x} {b:#x}: {want:x?} vs {got:?}"),
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 4 * 2 * 2 * 2000);
}

#[test]
fn the_default_rounding_is_rn_and_may_be_fused() {
    // "The default value of rounding modifier is .rn." (9.7.5.1)
    let v = common::spec()
        .lookup("add.f32.f16", Some(2))
        .expect("add.f32.f16");
    assert!(
        v.fusable,
        "no rounding modifier: the manual's licence to fuse"
    );
    assert_eq!(
        eval("add.f32.bf16", &[0x3f80, 0x3380_0000]),
        eval("add.rn.f32.bf16", &[0x3f80, 0x3380_0000])
    );
    // sm_100 and PTX ISA 8.6.
    assert!(common::requirement("add.rn.f32.f16", 2).contains("sm_100"));
}
