//! docs/upstream/ (issue 30 item 4): each report is rerun through the compiler it names, so a
//! report that stopped being true (the compiler fixed, the PTX changed, the counterexample no
//! longer confirmed) fails here instead of staying in the docs.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ is in the workspace")
        .to_path_buf()
}

fn semfuzz(args: &[&str]) -> (String, String) {
    let out = Command::cargo_bin("semfuzz")
        .expect("binary built")
        .current_dir(root())
        .args(args)
        .output()
        .expect("semfuzz runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A PTX module without its comment lines (the banner names the compiler's build).
fn code(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect()
}

/// The report directories, each with its `counterexample.json`, or `None` for a crash's (whose
/// `abort.json` names the compiler, the target and LLVM's message).
fn reports() -> Vec<(PathBuf, Option<serde_json::Value>)> {
    let dir = root().join("docs/upstream");
    let mut reports: Vec<_> = std::fs::read_dir(&dir)
        .expect("docs/upstream exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let json = std::fs::read_to_string(p.join("counterexample.json"))
                .ok()
                .map(|t| serde_json::from_str(&t).expect("counterexample.json parses"));
            (p, json)
        })
        .collect();
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    reports
}

#[test]
fn every_report_still_holds_for_its_compiler() {
    let reports = reports();
    assert!(reports.len() >= 10, "{reports:?}");
    let work = tempfile::tempdir().expect("tempdir");
    for (k, (dir, json)) in reports.iter().enumerate() {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let ll = dir.join("f.ll");
        assert!(ll.is_file(), "{name}: no f.ll");
        assert!(dir.join("REPORT.md").is_file(), "{name}: no REPORT.md");
        let Some(json) = json else {
            // A crash: the compiler must still abort with the message the report quotes.
            let abort: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join("abort.json")).unwrap_or_else(|e| {
                    panic!("{name}: neither counterexample.json nor abort.json: {e}")
                }),
            )
            .expect("abort.json parses");
            let target = abort["target"].as_str().unwrap();
            let (out, err) = semfuzz(&[
                "validate-llc",
                ll.to_str().unwrap(),
                "--llc",
                abort["llc"].as_str().unwrap(),
                "--sm",
                target,
                "--work",
                work.path().join(format!("w{k}")).to_str().unwrap(),
            ]);
            assert!(
                out.contains(&format!("f {target}: unsupported"))
                    && out.contains(abort["message"].as_str().unwrap()),
                "{name}: the compiler no longer aborts so:\n{out}{err}"
            );
            continue;
        };
        let compiler = json["llc"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        let target = json["target"].as_str().unwrap();
        let repro = work.path().join(format!("r{k}"));
        let (out, err) = semfuzz(&[
            "validate-llc",
            ll.to_str().unwrap(),
            "--llc",
            compiler,
            "--sm",
            target,
            "--work",
            work.path().join(format!("w{k}")).to_str().unwrap(),
            "--repro",
            repro.to_str().unwrap(),
        ]);
        assert!(
            out.contains(&format!("f {target}: counterexample")),
            "{name}: no longer a counterexample with {compiler} at {target}:\n{out}{err}"
        );
        assert!(
            out.contains("confirmed by both evaluators"),
            "{name}: not confirmed:\n{out}"
        );
        let written = std::fs::read_dir(&repro)
            .expect("--repro wrote a directory")
            .flatten()
            .next()
            .expect("one reproducer")
            .path();
        let now = std::fs::read_to_string(written.join("f.ptx")).unwrap();
        let then = std::fs::read_to_string(dir.join("f.ptx")).unwrap();
        assert_eq!(
            code(&now),
            code(&then),
            "{name}: the compiler's PTX changed"
        );
    }
}
