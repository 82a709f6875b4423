//! No Rust outside the tests names an instruction (issue 8): every instruction, its syntax,
//! its encodings and its text rules are in `spec/isa/*.sem`. This test reads the non-test
//! Rust sources of the workspace and fails on any string literal that starts with an opcode
//! the specs define (`"HMUL2`, `"HFMA2.MMA`, `"add.rn.f32`, `"cvt.`).
//!
//! What is read: every `src/` of the crates that carry the spec language and what runs it
//! (spec, smt, fuzz, cli, service, fp, the backend API, the z3 and external backends), without
//! `#[cfg(test)]` items; `tests/`, `benches/` and `examples/` are test and measurement code.
//! Comments (doc comments included) are not literals. Left out: the backends whose job is to
//! map named instructions onto a machine (host: SSE/F16C; llvm: NVVM intrinsics; cuda: PTX
//! kernels; numba-sim: numba operations) — there an opcode is data about that machine.
//!
//! A PTX opcode is flagged when followed by `.` or by a space that no lowercase word follows
//! (`"add.rn"`, `"cvt "`, `"cvt %r"`), since the spec language's own functions share names with
//! opcodes (`"add"`, `"cvt"`, `"sqrt"` are functions of `sem`) and some opcodes are English
//! words (`"and the"`); a SASS opcode (upper case) is flagged in any literal it starts.

mod common;
use std::path::{Path, PathBuf};

/// The crates whose sources must not name an instruction.
const SCANNED: [&str; 8] = [
    "spec/src",
    "smt/src",
    "fuzz/src",
    "cli/src",
    "service/src",
    "fp/src",
    "backends/api/src",
    "backends/z3/src",
];

/// The string literals of Rust source `src`, with their line numbers, outside comments and
/// `#[cfg(test)]` items.
fn literals(src: &str) -> Vec<(usize, String)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Brace depth, and the depth at which a `#[cfg(test)]` item's body started.
    let mut depth = 0usize;
    let mut skip_from: Option<usize> = None;
    let mut cfg_test_pending = false;
    while i < b.len() {
        let rest = &src[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |n| n + 2);
            line += rest[..end].matches('\n').count();
            i += end;
        } else if rest.starts_with("#[cfg(test)]") {
            cfg_test_pending = true;
            i += "#[cfg(test)]".len();
        } else if let Some((len, body)) = string_at(rest) {
            if skip_from.is_none() {
                out.push((line, body.to_string()));
            }
            line += rest[..len].matches('\n').count();
            i += len;
        } else if let Some(after) = rest.strip_prefix('\'') {
            // A char literal (`'"'`, `'\''`, `'{'`) or a lifetime (`'a`).
            let close = match after.strip_prefix('\\') {
                Some(escaped) => escaped.find('\'').map(|n| n + 3),
                None => after
                    .char_indices()
                    .nth(1)
                    .filter(|&(_, c)| c == '\'')
                    .map(|(n, _)| n + 2),
            };
            i += close.unwrap_or(1);
        } else {
            match b[i] {
                b'{' => {
                    if cfg_test_pending && skip_from.is_none() {
                        skip_from = Some(depth);
                    }
                    cfg_test_pending = false;
                    depth += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if skip_from == Some(depth) {
                        skip_from = None;
                    }
                }
                // `#[cfg(test)] use ...;`: an item without a body.
                b';' if skip_from.is_none() => cfg_test_pending = false,
                b'\n' => line += 1,
                _ => {}
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    out
}

/// A string literal starting `rest` (`"..."`, `b"..."`, `r"..."`, `r#"..."#`): its length in
/// bytes and its body.
fn string_at(rest: &str) -> Option<(usize, &str)> {
    let r = rest.strip_prefix('b').unwrap_or(rest);
    let prefix = rest.len() - r.len();
    if let Some(raw) = r.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body_start = raw[hashes..].strip_prefix('"')?;
        let close = format!("\"{}", "#".repeat(hashes));
        let end = body_start.find(&close)?;
        let len = prefix + 1 + hashes + 1 + end + close.len();
        return Some((len, &body_start[..end]));
    }
    if prefix == 0 && !r.starts_with('"') {
        return None;
    }
    let body = r.strip_prefix('"')?;
    let mut escaped = false;
    for (n, c) in body.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some((prefix + 1 + n + 1, &body[..n])),
            _ => escaped = false,
        }
    }
    None
}

/// The opcode `literal` starts with, if it names an instruction.
fn names_instruction<'a>(literal: &str, opcodes: &'a [String]) -> Option<&'a str> {
    opcodes
        .iter()
        .find(|op| {
            literal.strip_prefix(op.as_str()).is_some_and(|after| {
                if op.starts_with(|c: char| c.is_ascii_uppercase()) {
                    !after.starts_with(|c: char| c.is_ascii_lowercase())
                } else {
                    // `"cvt "`, `"cvt %r1"`, but not English: `and`, `or`, `not`, `mov`, `st`
                    // are opcodes too, and `"and the driver"` or `"not {name}: {why}"` (a
                    // format string's placeholder) names none.
                    after.starts_with('.')
                        || after.strip_prefix(' ').is_some_and(|rest| {
                            !rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '{')
                        })
                }
            })
        })
        .map(String::as_str)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn opcodes() -> Vec<String> {
    let mut ops: Vec<String> = common::spec()
        .resolved
        .families
        .iter()
        .flat_map(|f| f.opcodes.iter().cloned())
        .collect();
    // Longest first, so that `HMUL2_32I` is reported rather than `HMUL2`.
    ops.sort_by_key(|o| std::cmp::Reverse(o.len()));
    ops
}

#[test]
fn no_string_literal_outside_the_tests_starts_with_an_opcode() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let opcodes = opcodes();
    let mut files = Vec::new();
    for dir in SCANNED {
        rust_files(&root.join(dir), &mut files);
    }
    assert!(
        files.len() > 20,
        "the scan found only {} files",
        files.len()
    );
    let mut found = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable source");
        let rel = f
            .strip_prefix(&root)
            .unwrap_or(f)
            .to_string_lossy()
            .replace('\\', "/");
        for (line, lit) in literals(&src) {
            if let Some(op) = names_instruction(&lit, &opcodes) {
                found.push(format!("{rel}:{line}: \"{lit}\" names `{op}`"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "instruction names in non-test Rust (move them into spec/isa/*.sem, or generate the text from the spec):\n{}",
        found.join("\n")
    );
}

/// The scanner itself: what it flags and what it leaves (so the test above can fail).
#[test]
fn the_scan_flags_code_literals_and_skips_comments_and_test_modules() {
    let opcodes = opcodes();
    let src = r###"
/// Doc comments may say "HMUL2 R0, R1, R2".
fn f() -> &'static str {
    let _c = '"';
    let _q = '\'';
    // "add.rn.f32" in a comment
    let _raw = r#"fine "HMUL2" inside"#;
    let _fn_name = "add";
    if variant.family == "HMUL2" { }
    "mul.rn.f16 d, a, b"
}
#[cfg(test)]
mod tests {
    fn g() { let _ = "HFMA2.MMA R0, R1, R2, -RZ"; { "add.rn.f32" } }
}
#[cfg(test)]
use std::fmt;
const AFTER: &str = "cvt.rn.f16.f32";
"###;
    let flagged: Vec<(usize, String)> = literals(src)
        .into_iter()
        .filter(|(_, l)| names_instruction(l, &opcodes).is_some())
        .collect();
    let lines: Vec<usize> = flagged.iter().map(|(l, _)| *l).collect();
    // `cvt` is flagged by its `.`, whether or not the loaded specs define it.
    let cvt_defined = opcodes.iter().any(|o| o == "cvt");
    let mut expected = vec![9, 10];
    if cvt_defined {
        expected.push(18);
    }
    assert_eq!(lines, expected, "{flagged:?}");
    assert_eq!(names_instruction("HMUL2_32I", &opcodes), Some("HMUL2_32I"));
    assert_eq!(names_instruction("add", &opcodes), None);
    assert_eq!(names_instruction("address", &opcodes), None);
    assert_eq!(names_instruction("add.rn.f32", &opcodes), Some("add"));
    assert_eq!(names_instruction("and.b32", &opcodes), Some("and"));
    assert_eq!(names_instruction("mov %r1", &opcodes), Some("mov"));
    assert_eq!(names_instruction("and the driver", &opcodes), None);
}
