//! What a real GPU computed (docs/gpu.md, `docs/gpu/*/`), re-checked against the spec on every
//! run, with no GPU: each recorded line (`INSTR OPERAND... GPU-RESULT`) must be accepted,
//! except the lines of the record's `hardware-vs-manual.txt`, where the GPU contradicts the
//! manual and the spec keeps the manual's word: each of those must be rejected. A spec change
//! that contradicts the hardware, or silently starts accepting a documented deviation, fails
//! here.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The check files of every record: the findings and the probes' outputs.
fn record_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/gpu");
    let mut files = Vec::new();
    for record in std::fs::read_dir(&root).expect("docs/gpu exists") {
        let record = record.expect("readable").path();
        for f in std::fs::read_dir(&record).expect("a record folder") {
            let f = f.expect("readable").path();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("probe-") || name.starts_with("findings-") {
                files.push(f);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no GPU record under {}", root.display());
    files
}

/// The checked text of a `mismatch: line N: TEXT: why` line (`TEXT` as the file has it, up to
/// its comment).
fn mismatched_text(problem: &str) -> Option<&str> {
    let rest = problem.strip_prefix("mismatch: line ")?;
    let (_, rest) = rest.split_once(": ")?;
    Some(rest.split_once(": ")?.0.trim())
}

/// The lines of a record's `hardware-vs-manual.txt`, without comments.
fn deviations(record: &Path) -> Vec<String> {
    let path = record.join("hardware-vs-manual.txt");
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// `semfuzz check -q FILE`: the exit code and the mismatch lines.
fn check(file: &Path) -> (i32, Vec<String>) {
    let out = Command::cargo_bin("semfuzz")
        .expect("binary built")
        .args(["check", "-q"])
        .arg(file)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let problems = stdout
        .lines()
        .filter(|l| l.starts_with("mismatch: ") || l.starts_with("error: "))
        .map(str::to_string)
        .collect();
    (out.status.code().unwrap_or(-1), problems)
}

#[test]
fn every_recorded_gpu_result_is_what_the_spec_allows() {
    let mut failures = Vec::new();
    for file in record_files() {
        let known = deviations(file.parent().expect("in a record folder"));
        let (_, problems) = check(&file);
        let unexplained: Vec<&String> = problems
            .iter()
            .filter(|p| !mismatched_text(p).is_some_and(|t| known.iter().any(|k| k == t)))
            .collect();
        if !unexplained.is_empty() {
            let lines: Vec<&str> = unexplained.iter().map(|p| p.as_str()).collect();
            failures.push(format!("{}:\n  {}", file.display(), lines.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn documented_hardware_deviations_are_still_rejected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/gpu");
    for record in std::fs::read_dir(&root).expect("docs/gpu exists") {
        let deviations = record
            .expect("readable")
            .path()
            .join("hardware-vs-manual.txt");
        if !deviations.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&deviations).expect("readable");
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .count();
        let (_, problems) = check(&deviations);
        assert_eq!(
            problems.len(),
            lines,
            "{}: every line is a deviation the spec rejects; these are accepted or unreadable:\n{}",
            deviations.display(),
            problems.join("\n")
        );
        assert!(
            problems.iter().all(|p| p.starts_with("mismatch: ")),
            "{problems:?}"
        );
    }
}
