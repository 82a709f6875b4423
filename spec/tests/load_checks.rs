//! What loading checks beyond syntax, and the hints it gives, each from a reproduction in
//! issue 8: forms that spell one variant, out-of-order hints that would change the meaning,
//! wording, "did you mean", `.rna`, `{.A|.B}` in a form, and groups shared through a helper.

mod common;
use semfuzz_spec::catalog::EMBEDDED;
use semfuzz_spec::diag::{with_article, SourceFile};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;

/// The prelude plus `files` (name, text).
fn load(files: &[(&str, &str)]) -> Result<Spec, String> {
    let mut all = vec![SourceFile::new("prelude.sem", EMBEDDED[0].1)];
    all.extend(files.iter().map(|(n, t)| SourceFile::new(*n, *t)));
    Spec::from_files(all).map_err(|e| e.to_string())
}

fn load_err(files: &[(&str, &str)]) -> String {
    match load(files) {
        Ok(_) => panic!("expected a load error for {files:?}"),
        Err(e) => e,
    }
}

/// The trial's two lines for `cvt.rn.f16.f32` (the manual's `cvt.frnd{.ftz}{.sat}.f16.f32` and
/// `cvt.frnd2{.relu}{.satfinite}.f16.f32`), with a `sem` in which they differ.
const TWO_SPELLINGS: &str = r#"instr cvt {
  form "cvt.frnd{.ftz}{.sat}.f16.f32 d, a";
  form "cvt.frnd2{.relu}{.satfinite}.f16.f32 d, a";
  group frnd = { .rn, .rz, .rm, .rp };
  group frnd2 = { .rn, .rz };
  operand d: f16;
  sem { d = cvt(a, .f16, present(frnd2) ? .rz : frnd); }
}
"#;

#[test]
fn forms_spelling_one_variant_differently_are_a_load_error_naming_both() {
    let e = load_err(&[("cvt.sem", TWO_SPELLINGS)]);
    assert!(
        e.contains("cvt.sem:3:8"),
        "the second form is located:\n{e}"
    );
    assert!(e.contains("cvt.sem:2:8"), "the first form is named:\n{e}");
    assert!(
        e.contains("`cvt.rn.f16.f32`") && e.contains("mean different things"),
        "{e}"
    );
    assert!(e.contains("hint:"), "{e}");
}

#[test]
fn forms_spelling_one_variant_alike_merge_into_one() {
    let same = TWO_SPELLINGS.replace(
        "present(frnd2) ? .rz : frnd",
        "present(frnd2) ? frnd2 : frnd",
    );
    let spec = load(&[("cvt.sem", &same)]).unwrap_or_else(|e| panic!("{e}"));
    for text in ["cvt.rn.f16.f32", "cvt.rz.f16.f32"] {
        assert_eq!(spec.variants_named(text).len(), 1, "{text}");
        // Before: "`cvt.rn.f16.f32` has 2 forms", with a hint that could not be followed.
        let v = spec.lookup(text, Some(1)).unwrap_or_else(|d| panic!("{d}"));
        assert_eq!(v.text, text);
    }
    assert!(spec.lookup("cvt.rn.relu.f16.f32", Some(1)).is_ok());
    assert!(spec.lookup("cvt.rm.ftz.f16.f32", Some(1)).is_ok());
}

/// `min.f32 d, a, b` and `min.f32 d, a, b, c` spell one text with operands that tell them
/// apart: both stay, and the operand count chooses.
#[test]
fn forms_told_apart_by_their_operands_both_stay() {
    let spec = common::spec();
    assert_eq!(spec.variants_named("min.f32").len(), 2);
    assert_eq!(
        spec.lookup("min.f32", Some(3)).map(|v| v.sources.len()),
        Ok(3)
    );
}

/// The trial's `eval cvt.rn.f32.f16`: "the modifiers are out of order, write
/// `cvt.rn.f16.f32`", the opposite conversion. Swapping two type suffixes is no repair.
#[test]
fn out_of_order_hints_never_swap_types() {
    let trial = r#"instr cvt {
  form "cvt.frnd{.relu}.f16.f32 d, a";
  form "cvt.f32.f16 d, a";
  group frnd = { .rn, .rz };
  operand d: f16 if type == .f32 && present(frnd);
  operand d: f32;
  operand a: f32 if present(frnd);
  operand a: f16;
  sem { d = present(frnd) ? cvt(a, .f16, frnd) : cvt(a, .f32, .rn); }
}
"#;
    let spec = load(&[("cvt.sem", trial)]).unwrap_or_else(|e| panic!("{e}"));
    let e = spec
        .lookup("cvt.rn.f32.f16", None)
        .expect_err("no such variant")
        .to_string();
    assert!(
        !e.contains("cvt.rn.f16.f32"),
        "suggests the opposite conversion:\n{e}"
    );
    assert!(
        e.contains("`cvt.f32.f16`"),
        "suggests dropping the rounding:\n{e}"
    );
    // Swapping a type with a modifier of another kind is still a repair.
    let e = common::spec()
        .lookup("add.ftz.rn.f32", None)
        .expect_err("out of order")
        .to_string();
    assert!(
        e.contains("out of order") && e.contains("`add.rn.ftz.f32`"),
        "{e}"
    );
    // Members of one group swapped mean something else too (`set.lt.u32.f16` and
    // `set.lt.f16.u32`... are read by position): never suggested as a reordering.
    let e = common::spec()
        .lookup("cvt.rn.f32.f16", None)
        .expect_err("refused")
        .to_string();
    assert!(
        !e.contains("out of order") && !e.contains("cvt.rn.f16.f32"),
        "{e}"
    );
}

#[test]
fn type_names_take_the_article_they_are_read_with() {
    for (noun, with) in [
        ("f16", "an f16"),
        ("f32x2", "an f32x2"),
        ("bf16", "a bf16"),
        ("b32", "a b32"),
        ("pred", "a pred"),
        ("u32", "a u32"),
        ("s32", "an s32"),
        ("8-bit", "an 8-bit"),
        ("16-bit", "a 16-bit"),
        ("11-bit", "an 11-bit"),
        ("ieee(5, 11)", "an ieee(5, 11)"),
    ] {
        assert_eq!(with_article(noun), with);
    }
    // The trial's message: "expected a f16 for `d`".
    let e = load_err(&[(
        "t.sem",
        "instr foo {\n  form \"foo.f16x2 d, a\";\n  sem { d[0] = true; d[1] = a[1]; }\n}\n",
    )]);
    assert!(e.contains("expected an f16 for `d`"), "{e}");
}

#[test]
fn misspelt_functions_modifiers_groups_and_names_get_did_you_mean() {
    let e = load_err(&[(
        "t.sem",
        "instr foo {\n  form \"foo{.rnd}.f32 d, a\";\n  group rnd = { .rn, .rz };\n  sem { d = fmaa(a, a, a, rndd == .rz ? .rz : .rnn); }\n}\n",
    )]);
    assert!(
        e.contains("unknown function `fmaa`") && e.contains("did you mean `fma`?"),
        "{e}"
    );
    assert!(
        e.contains("unknown name `rndd`") && e.contains("did you mean `rnd`?"),
        "{e}"
    );
    assert!(
        e.contains("`.rnn` is not") && e.contains("did you mean `.rn` or `.rna`?"),
        "{e}"
    );
    let e = load_err(&[(
        "t.sem",
        "instr foo {\n  form \"foo{.rnd}.f32 d, a; .rndd = { .rz }\";\n  group rnd = { .rn, .rz };\n  sem { d = a; }\n}\n",
    )]);
    assert!(
        e.contains("`.rndd` is not a group") && e.contains("did you mean `rnd`?"),
        "{e}"
    );
    let e = load_err(&[(
        "t.sem",
        "instr foo {\n  form \"foo{.rnd}.f32 d, a; .rnd = { .rzz }\";\n  group rnd = { .rn, .rz };\n  sem { d = a; }\n}\n",
    )]);
    assert!(e.contains("did you mean `.rz`?"), "{e}");
    let e = common::spec()
        .lookup("add.rnn.f32", None)
        .expect_err("unknown")
        .to_string();
    assert!(e.contains("did you mean `.rn`?"), "{e}");
}

/// `.rna` (9.7.9.21: "rounding to nearest, with ties away from zero") is a rounding mode of
/// the language: it evaluates, and the rounding-mode hint lists it.
#[test]
fn rna_is_a_documented_rounding_mode() {
    let src = "instr r {\n  form \"r{.rnd}.f16 d, a\";\n  group rnd = { .rn, .rna } default .rn;\n  operand a: f32;\n  sem { d = cvt(a, .f16, rnd); }\n}\n";
    let spec = load(&[("r.sem", src)]).unwrap_or_else(|e| panic!("{e}"));
    // 1 + 2^-11 is halfway between the f16 values 1 and 1 + 2^-10.
    let tie = 0x3F80_1000;
    let eval = |text: &str| {
        let v = spec.lookup(text, Some(1)).unwrap_or_else(|d| panic!("{d}"));
        let mut ev = semfuzz_spec::eval::Evaluator::new(&v.program);
        let mut out = [Accept::default()];
        ev.eval(&[tie], &mut out);
        out[0]
    };
    assert_eq!(eval("r.rn.f16"), Accept::Exact(0x3C00));
    assert_eq!(eval("r.rna.f16"), Accept::Exact(0x3C01));
    let e = load_err(&[(
        "t.sem",
        "instr foo {\n  form \"foo.f32 d, a\";\n  sem { d = add(a, a, .f16); }\n}\n",
    )]);
    assert!(
        e.contains("is not a rounding mode") && e.contains(".rna"),
        "{e}"
    );
}

/// The trial's `{.FTZ|.FMZ}`: alternatives in a form are a named group, and the error says so.
#[test]
fn alternatives_in_a_form_point_to_a_group() {
    let e = load_err(&[(
        "t.sem",
        "instr FOO {\n  form \"FOO{.FTZ|.FMZ} Rd, Ra\";\n  operand Rd: f32;\n  operand Ra: f32;\n  sem { Rd = Ra; }\n}\n",
    )]);
    assert!(e.contains("t.sem:2:"), "{e}");
    assert!(
        e.contains("alternatives are a named group") && e.contains("group g = { .FTZ, .FMZ }"),
        "{e}"
    );
}

/// A helper in one file compares a member (`.H0_H1`) that another instruction's group of the
/// same name lacks: each instruction keeps its own group (the trial had to add `.H0_H1` to
/// HFMA2's `iswz` to reuse HMUL2's `component`); in an instruction's own `sem`, a member of
/// another instruction's group is an error.
#[test]
fn groups_resolve_per_instruction_through_shared_helpers() {
    let a = r#"instr AAA {
  form "AAA Rd, Ra{.iswz}";
  group iswz = { .H1_H0, .H0_H0, .H0_H1 } default .H1_H0;
  operand Rd: f16x2;
  operand Ra: f16x2;
  sem { for i in 0 .. 2 { Rd[i] = half(Ra, iswz(Ra), i); } }
}
def half(r, swz, i) {
  return swz == .H0_H0 ? r[0] : (swz == .H0_H1 ? r[1 - i] : r[i]);
}
"#;
    let b = r#"instr BBB {
  form "BBB Rd, Ra{.iswz}";
  group iswz = { .H1_H0, .H0_H0 } default .H1_H0;
  operand Rd: f16x2;
  operand Ra: f16x2;
  sem { for i in 0 .. 2 { Rd[i] = half(Ra, iswz(Ra), i); } }
}
"#;
    let spec = load(&[("a.sem", a), ("b.sem", b)]).unwrap_or_else(|e| panic!("{e}"));
    let v = spec.lookup("BBB", None).expect("BBB loads");
    let members = v
        .sources
        .iter()
        .find_map(|s| match &s.role {
            semfuzz_spec::catalog::OperandRole::Modifier {
                kind: semfuzz_spec::catalog::ModifierKind::Member { members, .. },
                ..
            } => Some(members.clone()),
            _ => None,
        })
        .expect("Ra.iswz");
    assert_eq!(members, ["H1_H0", "H0_H0"], "BBB's group is its own");
    // Ra = (lane 1: 0x4000, lane 0: 0x3C00); .H0_H0 (index 1) puts lane 0 in both.
    let mut ev = semfuzz_spec::eval::Evaluator::new(&v.program);
    let mut out = [Accept::default(), Accept::default()];
    ev.eval(&[0x4000_3C00, 1], &mut out);
    assert_eq!(out, [Accept::Exact(0x3C00), Accept::Exact(0x3C00)]);
    ev.eval(&[0x4000_3C00, 0], &mut out);
    assert_eq!(out, [Accept::Exact(0x3C00), Accept::Exact(0x4000)]);
    // Directly in BBB's `sem`, `.H0_H1` names nothing of BBB.
    let direct = b.replace(
        "half(Ra, iswz(Ra), i)",
        "iswz(Ra) == .H0_H1 ? Ra[1 - i] : Ra[i]",
    );
    let e = load_err(&[("a.sem", a), ("b.sem", &direct)]);
    assert!(
        e.contains("b.sem:6:") && e.contains("`.H0_H1` is not"),
        "{e}"
    );
    assert!(e.contains("a member of a group of `BBB`"), "{e}");
}

/// `type` in a form with two type suffixes (`.dtype.atype`: `cvt.rn.f16.f32`) is the last, the
/// source type; the destination takes its own type from an `operand` item.
#[test]
fn type_is_the_last_of_two_type_suffixes() {
    let src = "instr cvt {\n  form \"cvt.rn.f16.f32 d, a\";\n  sem { d = a; }\n}\n";
    let spec = load(&[("c.sem", src)]).unwrap_or_else(|e| panic!("{e}"));
    let v = spec.lookup("cvt.rn.f16.f32", Some(1)).expect("loads");
    assert_eq!(
        (v.dests[0].ty.as_str(), v.sources[0].ty.as_str()),
        ("f32", "f32")
    );
    let declared = src
        .replace("  sem", "  operand d: f16;\n  sem")
        .replace("d = a;", "d = cvt(a, .f16, .rn);");
    let spec = load(&[("c.sem", &declared)]).unwrap_or_else(|e| panic!("{e}"));
    let v = spec.lookup("cvt.rn.f16.f32", Some(1)).expect("loads");
    assert_eq!(
        (v.dests[0].ty.as_str(), v.sources[0].ty.as_str()),
        ("f16", "f32")
    );
}
