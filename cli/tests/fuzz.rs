//! `semfuzz fuzz` and `semfuzz backends` as a user meets them: the backends listed with their
//! availability, clear errors for bad arguments, Ctrl-C ending a campaign with its summary
//! and findings file.

use assert_cmd::cargo::CommandCargoExt;
use std::process::{Command, Stdio};
use std::time::Duration;

fn semfuzz() -> Command {
    Command::cargo_bin("semfuzz").expect("binary built")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = semfuzz().args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn backends_lists_each_with_its_availability() {
    let (code, out, _) = run(&["backends"]);
    assert_eq!(code, 0);
    for name in ["z3", "spec"] {
        let line = out
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"));
        assert!(line.contains("available"), "{line}");
    }
}

#[test]
fn unknown_backend_names_the_backends() {
    let (code, _, err) = run(&["fuzz", "--backend", "qemu", "--instr", "add.rn.f32"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no backend `qemu`"), "{err}");
    assert!(err.contains("semfuzz backends"), "{err}");
}

#[test]
fn exhaustive_refuses_wide_variants() {
    let (code, _, err) = run(&[
        "fuzz", "--backend", "spec", "--instr", "add.rn.f32", "--generator", "exhaustive",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 32 input bits"), "{err}");
}

#[test]
fn bad_duration_and_generator_are_explained() {
    let (code, _, err) = run(&["fuzz", "--backend", "spec", "--instr", "add.rn.f32", "--time", "ten"]);
    assert_eq!(code, 2);
    assert!(err.contains("30s, 10m, 2h"), "{err}");
    let (code, _, err) = run(&[
        "fuzz", "--backend", "spec", "--instr", "add.rn.f32", "--generator", "random",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("boundary, uniform, exhaustive, witness"), "{err}");
}

#[test]
fn no_matching_variant_is_an_error() {
    let (code, _, err) = run(&["fuzz", "--backend", "spec", "--instr", "ad.rn.f33"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no variant matches"), "{err}");
}

#[test]
fn ctrl_c_prints_the_summary_and_writes_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("findings.jsonl");
    let child = semfuzz()
        .args(["fuzz", "--backend", "spec", "--instr", "add.rn.f32", "--time", "1h", "--json"])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child's pid; no memory is involved.
    let rc = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0, "SIGINT delivered");
    let out = child.wait_with_output().expect("ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("interrupted; spec"), "{stdout}");
    assert!(json.exists(), "the findings file is written");
}
