//! SASS instruction text printed back (`spec/src/sass_print.rs`): the canonical spelling of
//! each example, and the round trip the `instr_text` fuzz target checks on arbitrary text.

use semfuzz_spec::sass::parse;
use semfuzz_spec::Spec;

/// (as written, as printed): defaults of the `.iswz` fields written out, `-`/`|..|` on
/// immediates folded into their bits (a 10-bit field keeps the top bits), RZ kept, constants in decimal, scheduling dropped.
const CASES: &[(&str, &str)] = &[
    ("HMUL2 R0, R1, R2;", "HMUL2 R0, R1.H1_H0, R2.H1_H0;"),
    (
        "@!P3 HMUL2.SAT R3, |R8|.H1_H1, -|c[0x6][0xed00]|;",
        "@!P3 HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;",
    ),
    (
        "HMUL2.F16_V2.FMZ.SAT R1, -|R4|.F32, -|RZ|.H0_H0;",
        "HMUL2.F16_V2.FMZ.SAT R1, -|R4|.F32, -|RZ|.H0_H0;",
    ),
    (
        "HMUL2 R0, R1, {-|-1.5|}, {-|1.5|};",
        "HMUL2 R0, R1.H1_H0, 0xbe00, 0xbe00;",
    ),
    (
        "HMUL2 R7, -|R3|.H0_H1, 0xad1c, 0xffff &req_6 ?WAIT4;",
        "HMUL2 R7, -|R3|.H0_H1, 0xad00, 0xffc0;",
    ),
    (
        "HMUL2.MRG_H1 R0, R1, R2;",
        "HMUL2.MRG_H1 R0, R1.H1_H0, R2.H1_H0;",
    ),
    // A constant predicate stays a predicate (it printed as `RZ`, found by `instr_text`), a
    // register predicate keeps its name, `.reuse` is dropped and `URZ` is the zero register.
    (
        "HMNMX2.BF16_V2.NAN.XORSIGN R5, |R0|.reuse, |R5|, !PT;",
        "HMNMX2.BF16_V2.NAN.XORSIGN R5, |R0|.H1_H0, |R5|.H1_H0, !PT;",
    ),
    (
        "HSET2.BF.LT.AND R0, R0.H0_H0, URZ.H0_H0, P2;",
        "HSET2.BF.LT.AND R0, R0.H0_H0, RZ.H0_H0, P2;",
    ),
    ("HADD2 R5, R0, UR6;", "HADD2 R5, R0.H1_H0, UR6.H1_H0;"),
];

#[test]
fn printing_gives_the_canonical_text_which_parses_to_the_same_instruction() {
    let spec = Spec::embedded().unwrap();
    for (text, canonical) in CASES {
        let first = parse(&spec, text).unwrap_or_else(|d| panic!("{text}:\n{d}"));
        let printed = first.to_string();
        assert_eq!(printed, *canonical, "printing {text}");
        let again = parse(&spec, &printed).unwrap_or_else(|d| panic!("{printed}:\n{d}"));
        assert!(std::ptr::eq(first.variant, again.variant), "{printed}");
        assert_eq!(first.input_sources(), again.input_sources(), "{printed}");
        assert_eq!(first.values, again.values, "{printed}");
        assert_eq!((&first.guard, &first.dest), (&again.guard, &again.dest));
    }
}
