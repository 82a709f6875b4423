//! `semfuzz fuzz` and `semfuzz backends` as a user meets them: the backends listed with their
//! availability, clear errors for bad arguments, Ctrl-C ending a campaign with its summary
//! and findings file.

use assert_cmd::cargo::CommandCargoExt;
use std::process::{Command, Stdio};
use std::time::Duration;

fn semfuzz() -> Command {
    Command::cargo_bin("semfuzz").expect("binary built")
}

/// Waits until `pid` catches SIGINT (its bit in `SigCgt` of /proc/PID/status), so a Ctrl-C
/// sent then reaches the campaign's handler and not the default action: loading the catalogue
/// before the handler is installed takes from a fraction of a second to several on a loaded
/// machine, which a fixed sleep cannot know. Then `then` more, for the campaign to make
/// progress.
fn interrupt_when_ready(pid: u32, then: Duration) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let caught = status
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & 1 << (libc::SIGINT - 1) != 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "semfuzz installed no SIGINT handler within 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(then);
    // SAFETY: kill(2) on our own child's pid; no memory is involved.
    let rc = unsafe { libc::kill(pid as libc::pid_t, libc::SIGINT) };
    assert_eq!(rc, 0, "SIGINT delivered");
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
    assert!(out.contains("\nevaluator: jit (Cranelift"), "{out}");
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
        "fuzz",
        "--backend",
        "spec",
        "--instr",
        "add.rn.f32",
        "--generator",
        "exhaustive",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 32 input bits"), "{err}");
}

#[test]
fn bad_duration_and_generator_are_explained() {
    let (code, _, err) = run(&[
        "fuzz",
        "--backend",
        "spec",
        "--instr",
        "add.rn.f32",
        "--time",
        "ten",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("30s, 10m, 2h"), "{err}");
    let (code, _, err) = run(&[
        "fuzz",
        "--backend",
        "spec",
        "--instr",
        "add.rn.f32",
        "--generator",
        "random",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("boundary, uniform, exhaustive, witness"),
        "{err}"
    );
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
        .args([
            "fuzz",
            "--backend",
            "spec",
            "--instr",
            "add.rn.f32",
            "--time",
            "1h",
            "--json",
        ])
        .arg(&json)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    interrupt_when_ready(child.id(), Duration::from_millis(500));
    let out = child.wait_with_output().expect("ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("interrupted; spec"), "{stdout}");
    assert!(json.exists(), "the findings file is written");
}

/// Runs a campaign and returns its findings file's JSON lines.
fn findings(args: &[&str]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("f.jsonl");
    let out = semfuzz()
        .args(["fuzz"])
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&json)
        .expect("the findings file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn every_host_finding_rechecks_as_a_mismatch_and_the_seed_fixes_them() {
    // minss returns its second operand when either is NaN, and does not order -0 and +0:
    // what a fallback without fix-ups computes for PTX min.
    let args = [
        "--backend",
        "host",
        "--instr",
        "{min,max}.f32",
        "--instr",
        "fma.rn.f16",
        "--cases",
        "30000",
        "--seed",
        "5",
        "--threads",
        "2",
    ];
    let found = findings(&args);
    assert!(!found.is_empty(), "the host's minss differs from PTX min");
    let classes: std::collections::BTreeSet<&str> = found
        .iter()
        .map(|f| f["class"].as_str().expect("class"))
        .collect();
    for c in ["nan-for-number", "sign-of-zero"] {
        assert!(classes.contains(c), "{c} missing from {classes:?}");
    }
    let lines: String = found
        .iter()
        .map(|f| {
            let mut words = vec![f["variant"].as_str().expect("variant").to_string()];
            for i in f["inputs"].as_array().expect("inputs") {
                words.push(i.as_str().expect("hex").to_string());
            }
            words.push(f["actual"].as_str().expect("actual").to_string());
            words.join(" ") + "\n"
        })
        .collect();
    let out = assert_cmd::Command::cargo_bin("semfuzz")
        .expect("binary built")
        .args(["check", "-"])
        .write_stdin(lines)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("0 passed, {} failed", found.len())),
        "every finding is a mismatch: {text}"
    );
    let key = |v: &[serde_json::Value]| -> Vec<String> {
        let mut k: Vec<String> = v
            .iter()
            .map(|f| {
                format!(
                    "{} {} {} {}",
                    f["signature"], f["count"], f["inputs"], f["actual"]
                )
            })
            .collect();
        k.sort();
        k
    };
    assert_eq!(
        key(&found),
        key(&findings(&args)),
        "same seed, same findings"
    );
}

#[test]
fn an_interrupted_exhaustive_run_says_where_to_resume() {
    let child = semfuzz()
        .args([
            "fuzz",
            "--backend",
            "spec",
            "--instr",
            "{add.rn.f16}",
            "--generator",
            "exhaustive",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("starts");
    interrupt_when_ready(child.id(), Duration::from_millis(1500));
    let out = child.wait_with_output().expect("ends");
    let text = String::from_utf8_lossy(&out.stdout);
    let from: u64 = text
        .lines()
        .find_map(|l| l.split("go on with --resume ").nth(1))
        .unwrap_or_else(|| panic!("no resume hint: {text}"))
        .trim()
        .parse()
        .expect("a case index");
    assert!(from > 0 && from.is_multiple_of(1024), "{from}");
    // Going on from there runs the cases after it, not the first ones again.
    let (code, out, err) = run(&[
        "fuzz",
        "--backend",
        "spec",
        "--instr",
        "{add.rn.f16}",
        "--generator",
        "exhaustive",
        "--resume",
        &from.to_string(),
        "--cases",
        "4096",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("4096 cases"), "{out}");
}
