//! What a real GPU computed (docs/gpu.md, `docs/gpu/*/`), re-checked against the spec on every
//! run, with no GPU: each recorded line (`INSTR OPERAND... GPU-RESULT`) must be accepted,
//! except those in a record's `hardware-vs-manual.txt`, where the GPU contradicts the manual
//! and the spec keeps the manual's word: each of those must be rejected. A spec change that
//! contradicts the hardware, or silently starts accepting a documented deviation, fails here.

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
        let (code, problems) = check(&file);
        if code != 0 {
            failures.push(format!("{}:\n  {}", file.display(), problems.join("\n  ")));
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
