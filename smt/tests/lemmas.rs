//! The lemma library (`smt/src/lemma.rs`): every lemma the record says is proved holds on a
//! sample (boundary values against each other, then 2^20 random tuples; the whole space is
//! `semfuzz lemmas --prove`, docs/BENCHMARKS.md), and false twins are refuted, so the
//! checker can fail.

use semfuzz_fp::Format;
use semfuzz_smt::lemma::{
    integer_rounding_proved, proved, DoubleRounding, IntegerRounding, Lemma, LemmaOp,
    BF16_BY_INTEGERS, LEMMAS,
};

#[test]
fn every_lemma_is_recorded_proved_and_holds_on_a_sample() {
    for lemma in LEMMAS {
        assert!(
            proved(lemma.op, lemma.narrow, lemma.wide),
            "{} is not recorded as proved in smt/lemmas.txt (run `semfuzz lemmas --prove`)",
            lemma.name()
        );
        if let Err(e) = lemma.sample(1 << 20, 0x5eed) {
            panic!("{}: {e}", lemma.name());
        }
    }
}

#[test]
fn sqrt_is_checked_over_its_whole_space_here() {
    for lemma in LEMMAS.iter().filter(|l| l.op == LemmaOp::Sqrt) {
        let proof = lemma
            .prove(1)
            .unwrap_or_else(|e| panic!("{}: {e}", lemma.name()));
        assert_eq!(proof.checked, 1 << 16);
    }
}

/// f16 (p = 11) through a wide format of 13 bits (< 2p + 2) rounds twice wrongly: 1 + (2^-11 +
/// 2^-14) is just above the midpoint 1 + 2^-11 of two f16 values, and 13 bits round it onto
/// the midpoint, which ties to the even 1.
#[test]
fn too_few_bits_are_refuted() {
    let twin = DoubleRounding {
        op: LemmaOp::Add,
        narrow: Format::F16,
        wide: Format::ieee(5, 13),
    };
    let e = twin
        .at(0x3c00, 0x1080)
        .expect_err("a double-rounding error");
    println!("{}: {e}", twin.name());
    assert_eq!((e.once, e.twice), (0x3c01, 0x3c00));
    for op in LemmaOp::ALL {
        let twin = DoubleRounding {
            op,
            narrow: Format::F16,
            wide: Format::ieee(5, 13),
        };
        let e = twin
            .sample(1 << 16, 1)
            .expect_err("too few bits give a counterexample");
        println!("{}: {e}", twin.name());
        assert!(!proved(op, Format::F16, twin.wide));
    }
    // bf16 (p = 8) through 10 bits. (Through 16, still fewer than 2p + 2, the sample finds
    // none for division: the theorem's bound is sufficient, not necessary.)
    let twin = DoubleRounding {
        op: LemmaOp::Div,
        narrow: Format::BF16,
        wide: Format::ieee(8, 10),
    };
    let e = twin.sample(1 << 16, 1).expect_err("too few bits");
    println!("{}: {e}", twin.name());
}

/// LLVM's integer rounding of an f32 to bfloat is recorded proved and holds on a sample; its
/// twins are refuted where they differ: adding 0x8000 rounds the tie 1 + 2^-8 away from the
/// even 1, and without the NaN arm the signaling NaN 0x7f800001 becomes infinity.
#[test]
fn the_integer_rounding_to_bfloat_is_proved_and_its_twins_refuted() {
    let lemma = Lemma::Integer(BF16_BY_INTEGERS);
    assert!(
        lemma.is_recorded(),
        "{} is not in smt/lemmas.txt",
        lemma.name()
    );
    assert!(integer_rounding_proved());
    BF16_BY_INTEGERS
        .sample(1 << 20, 0x5eed)
        .unwrap_or_else(|e| panic!("{}: {e}", lemma.name()));
    let away = IntegerRounding {
        bias: 0x8000,
        ..BF16_BY_INTEGERS
    };
    let e = away.at(0x3f80_8000).expect_err("a tie rounded away");
    assert_eq!((e.once, e.twice), (0x3f80, 0x3f81));
    away.sample(1 << 20, 1).expect_err("the sample finds a tie");
    let loud = IntegerRounding {
        quiets: false,
        ..BF16_BY_INTEGERS
    };
    let e = loud
        .at(0x7f80_0001)
        .expect_err("a NaN rounded like a number");
    assert_eq!((e.once, e.twice), (0x7fc0, 0x7f80));
    for twin in [away, loud] {
        assert!(!Lemma::Integer(twin).is_recorded(), "{}", twin.name());
    }
}
