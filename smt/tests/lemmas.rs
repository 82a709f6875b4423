//! The lemma library (`smt/src/lemma.rs`): every lemma the record says is proved holds on a
//! sample (boundary values against each other, then 2^20 random tuples; the whole space is
//! `semfuzz lemmas --prove`, docs/BENCHMARKS.md), and false twins are refuted, so the
//! checker can fail.

use semfuzz_fp::Format;
use semfuzz_smt::lemma::{proved, DoubleRounding, LemmaOp, LEMMAS};

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
