//! Every syntax line of the ISA excerpt (`../shared/isa-docs`, beside the repository) is covered
//! by a spec form or refused with a reason; an uncovered line fails the test.

mod common;
use semfuzz_spec::coverage::{cover, syntax_lines, Status, SyntaxLine};

/// The excerpt's directory: `shared/isa-docs` beside the repository root.
fn isa_docs() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/isa-docs")
}

fn excerpt() -> Vec<SyntaxLine> {
    let dir = isa_docs();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the ISA excerpt must be at {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut lines = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        lines.extend(syntax_lines(&name, &text));
    }
    lines
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
