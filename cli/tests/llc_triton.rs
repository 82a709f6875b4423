//! `semfuzz validate-llc --llc triton`: LLVM trunk as Triton's wheel bundles it. Trunk proves
//! what LLVM 22 proves, still has two of LLVM 22's bug classes (confirmed counterexamples), ends
//! a function it aborts on with LLVM's message and goes on, and its reproducer reruns with the
//! wheel. Skipped, saying so, where `cargo xtask setup` has not installed the wheel.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Whether setup linked Triton's wheel as `.deps/triton`; says why a test is skipped if not.
fn triton_installed() -> bool {
    let there = root().join(".deps/triton/triton").is_dir();
    if !there {
        eprintln!(
            "skipped: no Triton wheel in .deps/triton (`cargo xtask setup` installs it into \
             ~/.cache/semfuzz and links it there)"
        );
    }
    there
}

/// Runs `semfuzz ARGS` at the workspace root: (exit code, stdout, stderr).
fn semfuzz(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("semfuzz")
        .expect("binary built")
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `validate-llc --llc LLC --only ONLY --sm SMS` in `work`.
fn validate(llc: &str, only: &str, sms: &str, work: &Path, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "validate-llc",
        "--llc",
        llc,
        "--only",
        only,
        "--sm",
        sms,
        "--work",
        work.to_str().expect("utf-8"),
    ];
    args.extend(extra);
    let (code, out, err) = semfuzz(&args);
    (code, format!("{out}{err}"))
}

/// The verdict line of `FUNC sm_XX: ...` in `out`.
fn line<'a>(out: &'a str, func: &str, sm: &str) -> &'a str {
    let head = format!("{func} {sm}: ");
    out.lines()
        .find(|l| l.starts_with(head.as_str()))
        .unwrap_or_else(|| panic!("no line for {func} {sm} in:\n{out}"))
}

#[test]
fn trunk_proves_what_llvm_22_proves_and_still_has_classes_2_and_4() {
    if !triton_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let only = "fadd_f32,fmul_f16,fdiv_f64,fneg_f32_ftz,fmul_bf16_ftz";
    let (_, old) = validate("llvmlite", only, "sm_70", work.path(), &[]);
    let (code, out) = validate("triton", only, "sm_70", work.path(), &[]);
    assert_eq!(code, 1, "a counterexample exits 1:\n{out}");
    for f in ["fadd_f32", "fmul_f16", "fdiv_f64"] {
        assert!(line(&old, f, "sm_70").contains(": proved"), "{old}");
        assert!(line(&out, f, "sm_70").contains(": proved"), "{out}");
    }
    // Class 2: `fneg float` under preserve-sign is `neg.ftz.f32`, which flushes a subnormal
    // the IR only negates. Class 4: `fmul bfloat` at sm_70 is `mul.rn.ftz.f32` on the widened
    // operands, flushing a product that is a normal bf16 after rounding.
    for f in ["fneg_f32_ftz", "fmul_bf16_ftz"] {
        assert!(line(&out, f, "sm_70").contains(": counterexample"), "{out}");
    }
    assert_eq!(
        out.matches("confirmed by both evaluators").count(),
        2,
        "{out}"
    );
    // The snapshot's version and commit, read from the library, in every label; the command
    // names the module trunk read, in its `denormal_fpenv` spelling.
    let label = out
        .lines()
        .find_map(|l| l.split_once("(triton (LLVM ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no label:\n{out}"));
    assert!(
        label.contains("git (") && label.contains("))"),
        "a snapshot's version and short commit: {label}"
    );
    let ll = work.path().join("triton/fneg_f32_ftz.ll");
    let text = std::fs::read_to_string(&ll).expect("the module trunk compiled");
    assert!(text.contains("denormal_fpenv(preservesign)"), "{text}");
    assert!(!text.contains("denormal-fp-math"), "{text}");
    let ptx =
        std::fs::read_to_string(work.path().join("triton/fneg_f32_ftz-sm_70.ptx")).expect("PTX");
    assert!(ptx.contains("neg.ftz.f32"), "{ptx}");
}

#[test]
fn an_llvm_fatal_error_is_that_functions_verdict_and_the_run_goes_on() {
    if !triton_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    // Class 6: trunk still cannot select `llvm.canonicalize.bf16` at sm_70; the functions
    // compiled after it, in a new process, are still validated.
    let (_, out) = validate(
        "triton",
        "canonicalize_bf16,fadd_f32",
        "sm_70,sm_90",
        work.path(),
        &[],
    );
    let crashed = line(&out, "canonicalize_bf16", "sm_70");
    assert!(crashed.contains(": unsupported ("), "{out}");
    assert!(
        crashed.contains("LLVM ERROR: Cannot select") && crashed.contains("fcanonicalize"),
        "{crashed}"
    );
    assert!(crashed.contains("triton (LLVM "), "{crashed}");
    assert!(
        line(&out, "fadd_f32", "sm_90").contains(": proved"),
        "{out}"
    );
}

#[test]
fn trunk_ptx_broken_by_hand_is_a_confirmed_counterexample() {
    if !triton_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out) = validate("triton", "fadd_f32", "sm_70", work.path(), &[]);
    assert_eq!(code, 0, "{out}");
    let ptx = std::fs::read_to_string(work.path().join("triton/fadd_f32-sm_70.ptx")).expect("PTX");
    assert!(ptx.contains("add.rn.f32"), "{ptx}");
    let ll = work.path().join("fadd_f32.min.ll");
    let rules = |name: &str, ptx: &str| {
        let p = work.path().join(format!("{name}.ptx"));
        std::fs::write(&p, ptx).expect("written");
        format!(
            "name: {name}\n  @{}:f d, a, b\n=>\n  @{}:f d, a, b\n",
            ll.display(),
            p.display()
        )
    };
    // The same PTX, and the same with its rounding mode changed by hand.
    let text = rules("as-compiled", &ptx) + &rules("rz", &ptx.replace("add.rn.f32", "add.rz.f32"));
    let file = work.path().join("triton.rules");
    std::fs::write(&file, text).expect("written");
    let (_, out, err) = semfuzz(&["prove", "--no-cache", file.to_str().expect("utf-8")]);
    assert!(out.contains("as-compiled: proved"), "{out}{err}");
    let rz = out
        .lines()
        .find(|l| l.starts_with("rz: "))
        .unwrap_or_else(|| panic!("{out}{err}"));
    assert!(rz.contains("counterexample"), "{out}");
    assert!(out.contains("confirmed by the evaluator"), "{out}");
}

#[test]
fn a_trunk_reproducer_names_the_commit_and_reruns_with_the_wheel() {
    if !triton_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let repro = work.path().join("repro");
    let (_, out) = validate(
        "triton",
        "fneg_f32_ftz",
        "sm_70",
        work.path(),
        &["--repro", repro.to_str().expect("utf-8")],
    );
    let dir = repro.join("fneg_f32_ftz-sm_70-llvm24");
    let report =
        std::fs::read_to_string(dir.join("REPORT.md")).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(
        report.contains("With the `llc` of LLVM trunk at llvm-project commit `"),
        "{report}"
    );
    assert!(
        report.contains("llc -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_70 f.ll -o f.ptx"),
        "{report}"
    );
    assert!(
        report.contains("the PTX semfuzz judged, byte for byte"),
        "{report}"
    );
    let ll = std::fs::read_to_string(dir.join("f.ll")).expect("f.ll");
    assert!(ll.contains("denormal_fpenv(preservesign)"), "{ll}");
    // The Python line, as a maintainer runs it in a directory holding only `f.ll`.
    let cex: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("counterexample.json")).expect("counterexample.json"),
    )
    .expect("JSON");
    let python = cex["python"].as_str().expect("the Python line");
    assert!(report.contains(python), "{report}");
    let fresh = tempfile::tempdir().expect("temp dir");
    std::fs::write(fresh.path().join("f.ll"), &ll).expect("written");
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg(python)
        .env("PYTHONPATH", root().join(".deps/triton"))
        .current_dir(fresh.path())
        .output()
        .expect("sh runs");
    assert!(run.status.success(), "{run:?}");
    let again = std::fs::read_to_string(fresh.path().join("f.ptx")).expect("f.ptx");
    let judged = std::fs::read_to_string(dir.join("f.ptx")).expect("f.ptx");
    assert_eq!(again.trim_end(), judged.trim_end());
}
