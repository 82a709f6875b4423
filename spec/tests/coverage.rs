//! Every syntax line of the ISA excerpt (`../shared/isa-docs`, beside the repository) is covered
//! by a spec form, refused with a reason, or on the list of lines still to be specified.

mod common;
use semfuzz_spec::coverage::{cover, normalize, syntax_lines, Status, SyntaxLine};

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

/// Lines not specified yet (the remaining approximations). A line leaves this list
/// when its spec lands; a line may never go uncovered otherwise.
const PENDING: &[&str] = &[
    "div.approx{.ftz}.f32 d, a, b",
    "div.full{.ftz}.f32 d, a, b",
    "rcp.approx.ftz.f64 d, a",
    "rsqrt.approx.ftz.f64 d, a",
    "sin.approx{.ftz}.f32 d, a",
    "cos.approx{.ftz}.f32 d, a",
    "tanh.approx.f32 d, a",
    "tanh.approx.type d, a",
    "ex2.approx.atype d, a",
    "ex2.approx.ftz.btype d, a",
];

#[test]
fn every_excerpt_line_is_covered_refused_or_pending() {
    let lines = excerpt();
    assert!(
        lines.len() > 60,
        "found only {} syntax lines: is the extractor broken?",
        lines.len()
    );
    let statuses = cover(common::spec(), &lines);
    let mut unexpected = Vec::new();
    let mut still_pending = Vec::new();
    let (mut covered, mut refused, mut pending) = (0, 0, 0);
    for (l, s) in lines.iter().zip(&statuses) {
        match s {
            Status::Covered(v) => {
                assert!(!v.is_empty(), "{} expands to no variant", l.text);
                covered += 1;
            }
            Status::Refused(_) => refused += 1,
            Status::Uncovered if PENDING.contains(&normalize(&l.text).as_str()) => {
                pending += 1;
                still_pending.push(normalize(&l.text));
            }
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
    let stale: Vec<_> = PENDING
        .iter()
        .filter(|p| !still_pending.iter().any(|s| s == *p))
        .collect();
    assert!(
        stale.is_empty(),
        "these PENDING lines are covered now (or no longer in the excerpt); remove them: {stale:?}"
    );
    println!(
        "{} syntax lines: {covered} covered, {refused} refused, {pending} pending",
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
