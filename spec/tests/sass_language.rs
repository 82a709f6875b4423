//! The SASS side of the spec language: what used to be HMUL2-specific Rust is declared in the
//! `.sem` files. Each test is a defect's reproduction from issue 8, run on a small spec of its
//! own loaded with `Spec::load_dir` (as `--spec-dir` does), next to the shipped prelude.

mod common;
use common::spec;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{sass, Spec};
use std::path::PathBuf;

/// A spec directory holding the shipped prelude and `extra` as `test.sem`.
fn spec_dir(name: &str, extra: &str) -> Spec {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("semfuzz-sass-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("isa");
    std::fs::copy(root.join("prelude.sem"), dir.join("prelude.sem")).expect("prelude");
    std::fs::write(dir.join("test.sem"), extra).expect("write");
    let spec = Spec::load_dir(&dir).unwrap_or_else(|e| panic!("{name}:\n{e}"));
    std::fs::remove_dir_all(&dir).ok();
    spec
}

fn run(spec: &Spec, text: &str, values: &[u64]) -> Vec<Accept> {
    let i = sass::parse(spec, text).unwrap_or_else(|d| panic!("{text}:\n{d}"));
    let inputs = i.inputs(values).unwrap_or_else(|e| panic!("{text}: {e}"));
    let mut ev = Evaluator::new(&i.variant.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    out
}

fn error(spec: &Spec, text: &str) -> String {
    match sass::parse(spec, text) {
        Ok(_) => panic!("`{text}` parses, but should be refused"),
        Err(d) => format!("{d}"),
    }
}

/// An f32 FFMA with an immediate and a constant form: nothing half-precision about it.
const FFMA: &str = r#"
instr FFMA {
  form "FFMA Rd, Ra, {{-}{|}#Imm32{|}}, Rc" sm_50;
  form "FFMA Rd, Ra, c[#BankU05][#AddrU16], Rc" sm_50;
  operand Rd: f32;
  operand Ra: f32;
  operand Imm32: f32;
  operand c: f32;
  operand Rc: f32;
  sem {
    let r = fma(Ra, present(c) ? c : Imm32, Rc, .rn);
    Rd = is_nan(r) ? any_nan(r) : r;
  }
}
"#;

// "`eval 'FFMA R0, R1, 1.5, R2' 0x3f800000 0x3f800000` gives `0x3f800000` where 2.5 is right":
// every immediate was read as an fp16 pattern and cut to the field width.
#[test]
fn an_f32_immediate_is_read_as_an_f32() {
    let s = spec_dir("ffma", FFMA);
    let one = 0x3F80_0000;
    assert_eq!(
        run(&s, "FFMA R0, R1, 1.5, R2", &[one, one]),
        vec![Accept::Exact(0x4020_0000)]
    );
    let i = sass::parse(&s, "FFMA R0, R1, 1.5, R2").unwrap();
    assert_eq!(i.fixed("Imm32"), Some(0x3FC0_0000));
    // Hex is an f32 pattern of up to 32 bits; braces fold the sign as for any format.
    let i = sass::parse(&s, "FFMA R0, R1, {-|0xbfc00000|}, R2").unwrap();
    assert_eq!(i.fixed("Imm32"), Some(0xBFC0_0000));
    let i = sass::parse(&s, "FFMA R0, R1, -0.125, R2").unwrap();
    assert_eq!(i.fixed("Imm32"), Some(0xBE00_0000));
    // Exactness and width are the f32's, and the hint says so ("an f32", not "a f32").
    let e = error(&s, "FFMA R0, R1, 0x1ffffffff, R2");
    assert!(
        e.contains("does not fit in 32 bits") && e.contains("this immediate is an f32"),
        "{e}"
    );
    assert!(error(&s, "FFMA R0, R1, 0.1, R2").contains("not exactly representable in f32"));
}

// An integer immediate (`bN`) is an integer, not a float pattern.
#[test]
fn an_integer_immediate_is_read_as_an_integer() {
    let s = spec_dir(
        "iadd",
        r#"
instr IADDI {
  form "IADDI Rd, Ra, {{-}#Imm8}" sm_50;
  operand Rd: b32;
  operand Ra: b32;
  operand Imm8: b8;
  sem { Rd = Ra + zext(Imm8, 32); }
}
"#,
    );
    assert_eq!(run(&s, "IADDI R0, R1, 200", &[5]), vec![Accept::Exact(205)]);
    assert_eq!(run(&s, "IADDI R0, R1, 0x10", &[5]), vec![Accept::Exact(21)]);
    assert!(error(&s, "IADDI R0, R1, 256").contains("does not fit in b8"));
    assert!(error(&s, "IADDI R0, R1, {-1}").contains("takes no `-`"));
    assert!(error(&s, "IADDI R0, R1, 1.5").contains("expected an integer immediate"));
}

// "the `.iswz`-on-a-constant hint quotes the HMUL2 manual for any instruction (e.g.
// `HADD2 R0, R1, c[0][4].H0_H0`)". A form without a member on its constant gets the generic
// message; HMUL2's quote comes from its spec's `text` rule and only from there.
#[test]
fn a_member_on_a_constant_is_refused_in_the_instruction_s_own_words() {
    let s = spec_dir("ffma-c", FFMA);
    let e = error(&s, "FFMA R0, R1, c[0][4].H0_H0, R2");
    assert!(e.contains("`.H0_H0` cannot follow operand c"), "{e}");
    assert!(e.contains("the syntax of `FFMA` writes c without"), "{e}");
    assert!(!e.contains("HMUL2"), "{e}");
    // The shipped HADD2 takes `.iswz` on its constant, as cuobjdump prints it.
    let i = sass::parse(spec(), "HADD2 R0, R1, c[0][4].H0_H0").unwrap();
    assert_eq!(i.values, ["R1", "c[0][4]"]);
    // HMUL2 (SM 5.3 text): the manual's sentence, declared in sass-hmul2.sem.
    let e = error(spec(), "HMUL2 R0, R1, c[0][4].H0_H0");
    assert!(e.contains("For HMUL2 with a constant 'Sb' operand"), "{e}");
}

/// A swizzle group whose members are named as HMUL2's, but without an f32 reading declared.
const NO_F32_READING: &str = r#"
instr HSWZ {
  form "HSWZ Rd, Ra{.fmt}" sm_50;
  group fmt = { .H1_H0, .F32 } default .H1_H0;
  operand Rd: f16x2;
  operand Ra: f16x2;
  sem { Rd = Ra; }
}
"#;

// "a register is an f32 when a group member is literally named `F32`": the f32 reading is
// declared (`operand Ra: f32 if iswz(Ra) == .F32;`), whatever the member is called.
#[test]
fn how_a_register_is_shown_comes_from_the_spec_not_a_member_name() {
    let s = spec_dir("swz", NO_F32_READING);
    let i = sass::parse(&s, "HSWZ R0, R1.F32").unwrap();
    assert_eq!(i.value_type(0), "f16x2");
    let renamed = NO_F32_READING
        .replace("{ .H1_H0, .F32 }", "{ .H1_H0, .W }")
        .replace(
            "operand Ra: f16x2;",
            "operand Ra: f32 if fmt(Ra) == .W;\n  operand Ra: f16x2;",
        );
    let s = spec_dir("swz-w", &renamed);
    assert_eq!(
        sass::parse(&s, "HSWZ R0, R1.W").unwrap().value_type(0),
        "f32"
    );
    assert_eq!(
        sass::parse(&s, "HSWZ R0, R1").unwrap().value_type(0),
        "f16x2"
    );
    // The shipped HMUL2 declares it.
    let i = sass::parse(spec(), "HMUL2 R0, R1.F32, R2").unwrap();
    assert_eq!((i.value_type(0), i.value_type(1)), ("f32", "f16x2"));
}

// "'is not an input format of operand' is HMUL2 wording for every group": the message names
// the group the form writes after the operand.
#[test]
fn a_wrong_member_names_its_group() {
    let s = spec_dir("swz-bad", NO_F32_READING);
    let e = error(&s, "HSWZ R0, R1.H0_H0");
    assert!(
        e.contains("`.H0_H0` is not a member of `.fmt`, which operand Ra takes"),
        "{e}"
    );
    assert!(e.contains("write one of .H1_H0 .F32"), "{e}");
    assert!(!e.contains("input format"), "{e}");
}

// "`sass.rs` special-cases `variant.family == "HMUL2"` for the shared sign/abs rule": the rule
// is a `text` item of the spec, and any instruction can declare one.
#[test]
fn text_rules_are_declared_and_checked_for_any_instruction() {
    let s = spec_dir(
        "pair",
        r#"
instr HPAIR {
  form "HPAIR Rd, Ra, {{-}{|}#H1{|}}, {{-}{|}#H0{|}}" sm_50;
  operand Rd: f16x2;
  operand Ra: f16x2;
  operand H1: f16;
  operand H0: f16;
  text sign(H1) == sign(H0) else "both halves share one sign bit";
  sem { Rd = Ra; }
}
"#,
    );
    sass::parse(&s, "HPAIR R0, R1, -1, {-2}").unwrap();
    let e = error(&s, "HPAIR R0, R1, -1, 2");
    assert!(e.contains("\"both halves share one sign bit\""), "{e}");
    assert!(
        e.contains("the spec requires `sign(H1) == sign(H0)`"),
        "{e}"
    );
    assert!(e.contains("test.sem:8"), "{e}");
}

// A text rule is checked when the spec loads: only functions of the text, on operands that
// exist, with a located error.
#[test]
fn a_bad_text_rule_is_a_load_error() {
    let dir = std::env::temp_dir().join(format!("semfuzz-sass-badrule-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("isa");
    std::fs::copy(root.join("prelude.sem"), dir.join("prelude.sem")).unwrap();
    for (rule, says) in [
        ("text sign(Ra) == 0 else \"x\";", "`Ra` is not an immediate"),
        (
            "text negated(Rq) else \"x\";",
            "`Rq` is an operand of no form",
        ),
        (
            "text fabs(Ra) else \"x\";",
            "`fabs` is not a function of the text",
        ),
        (
            "text negated(Ra) + 1 else \"x\";",
            "is not a condition on the text",
        ),
    ] {
        let text = format!(
            "instr HBAD {{\n  form \"HBAD Rd, {{-}}Ra, {{{{-}}#H0}}\" sm_50;\n  operand Rd: f16;\n  operand Ra: f16;\n  operand H0: f16;\n  {rule}\n  sem {{ Rd = Ra; }}\n}}\n"
        );
        std::fs::write(dir.join("test.sem"), text).unwrap();
        let e = match Spec::load_dir(&dir) {
            Ok(_) => panic!("{rule} loads"),
            Err(e) => format!("{e}"),
        };
        assert!(e.contains(says) && e.contains("test.sem:6:"), "{rule}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

// HMUL2's fp10 fields are declared `f16[15:6]`: the text writes an fp16, the field keeps its
// upper ten bits; another instruction's f16 immediates keep all sixteen.
#[test]
fn bits_of_a_format_are_an_immediate_type() {
    let i = sass::parse(spec(), "HMUL2 R0, R1, 0x3c3f, 0x403f;").unwrap();
    assert_eq!(i.fixed("Immfp10H1"), Some(0x3C3F >> 6));
    let i = sass::parse(spec(), "HADD2 R0, R1, 0x3c3f, 0x403f").unwrap();
    assert_eq!(i.fixed("ImmH1"), Some(0x3C3F));
    let list: Vec<String> = spec()
        .variants
        .iter()
        .filter(|v| v.text == "HMUL2")
        .flat_map(|v| v.sources.iter().map(|s| format!("{}:{}", s.name, s.ty)))
        .collect();
    assert!(
        list.contains(&"Immfp10H1:f16[15:6]".to_string()),
        "{list:?}"
    );
}
