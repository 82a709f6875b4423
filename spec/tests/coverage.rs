//! Every syntax line of the ISA excerpt (`../shared/isa-docs`, built in from its copy in
//! `spec/isa-docs`) is covered by a spec form or refused with a reason; an uncovered line fails
//! the test.

mod common;
use semfuzz_spec::coverage::{cover, excerpt_lines, Status, SyntaxLine, ADDED, EXCERPT};

fn excerpt() -> Vec<SyntaxLine> {
    excerpt_lines(EXCERPT)
}

/// The built-in copy of the excerpt (`spec/isa-docs`) is `../shared/isa-docs`, file for file,
/// wherever the shared directory sits beside the repository (a clone elsewhere has only the
/// copy, which is then the excerpt the specs are held to), besides the files declared
/// `ADDED`, which the shared excerpt lacks.
#[test]
fn the_built_in_excerpt_is_the_shared_one() {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/isa-docs");
    let Ok(entries) = std::fs::read_dir(&shared) else {
        println!(
            "{} is absent: only the built-in copy is checked",
            shared.display()
        );
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    let built_in: Vec<&str> = EXCERPT
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !ADDED.contains(n))
        .collect();
    assert_eq!(
        names,
        built_in,
        "copy {} into spec/isa-docs and list it in coverage::EXCERPT",
        shared.display()
    );
    for (name, text) in EXCERPT.iter().filter(|(n, _)| !ADDED.contains(n)) {
        let original = std::fs::read_to_string(shared.join(name)).expect("readable");
        assert!(
            original == *text,
            "spec/isa-docs/{name} differs from {}: copy it again",
            shared.display()
        );
    }
}

/// A section semfuzz added to the excerpt says so, and where its text comes from, before any
/// of it, is in `spec/isa-docs`, and is not a file of the shared excerpt it would shadow.
#[test]
fn added_sections_are_declared_and_sourced() {
    assert!(!ADDED.is_empty());
    for name in ADDED {
        let (_, text) = EXCERPT
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} is declared ADDED but is not in EXCERPT"));
        let head: String = text.lines().take(12).collect::<Vec<_>>().join("\n");
        assert!(
            head.contains("not part of `shared/isa-docs`") && head.contains("Source:"),
            "{name} must open with its source and say it is not part of the shared excerpt"
        );
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/isa-docs")
            .join(name);
        assert!(
            !shared.exists(),
            "{name} is in the shared excerpt now: drop it from ADDED"
        );
    }
    let cvt: Vec<_> = EXCERPT
        .iter()
        .filter(|(n, _)| *n == "ptx-9.7.9.21-cvt.md")
        .collect();
    let cvt = excerpt_lines(&cvt.iter().map(|(n, t)| (n, t)).collect::<Vec<_>>());
    assert!(
        cvt.iter()
            .any(|l| l.text.starts_with("cvt.frnd2{.relu}{.satfinite}.f16x2.f32")),
        "the added cvt section's syntax lines are part of the excerpt's coverage"
    );
}

#[test]
fn every_excerpt_line_is_covered_or_refused() {
    let lines = excerpt();
    assert!(
        lines.len() > 60,
        "found only {} syntax lines: is the extractor broken?",
        lines.len()
    );
    let statuses = cover(common::spec(), &lines);
    let mut unexpected = Vec::new();
    let (mut covered, mut refused) = (0, 0);
    for (l, s) in lines.iter().zip(&statuses) {
        match s {
            Status::Covered(v) => {
                assert!(!v.is_empty(), "{} expands to no variant", l.text);
                covered += 1;
            }
            Status::Refused(_) => refused += 1,
            Status::Uncovered => {
                unexpected.push(format!("{}:{} ({}) {}", l.file, l.line, l.section, l.text))
            }
        }
    }
    assert!(
        unexpected.is_empty(),
        "uncovered syntax lines:\n{}",
        unexpected.join("\n")
    );
    println!(
        "{} syntax lines: {covered} covered, {refused} refused",
        lines.len()
    );
}

#[test]
fn the_extractor_finds_the_manual_lines() {
    let lines = excerpt();
    let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
    for expected in [
        "testp.op.type  p, a",
        "add{.rnd}{.ftz}{.sat}.f32  d, a, b",
        "mad{.ftz}{.sat}.f32      d, a, b, c",
        "rcp.approx.ftz.f64  d, a",
        "max{.NaN}{.xorsign.abs}.bf16x2         d, a, b",
        "set.CmpOp.BoolOp{.ftz}.f16.stype     d, a, b, {!}c",
    ] {
        assert!(texts.contains(&expected), "`{expected}` not extracted");
    }
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("HMUL2_32I{.fmz}{.SAT} Rd, Ra{.iswz},")),
        "SASS HMUL2_32I not extracted"
    );
}
