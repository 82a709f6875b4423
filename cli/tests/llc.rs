//! `semfuzz validate-llc` and `@file.ll` rule sides: llc's own output for simple IR is proved;
//! hand-written wrong PTX for correct IR is a counterexample both evaluators confirm; what the
//! reader does not model is `unsupported` with its location.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Runs `semfuzz ARGS` at the workspace root: (exit code, stdout, stderr).
fn semfuzz(args: &[&str]) -> (i32, String, String) {
    semfuzz_in(&root(), args)
}

/// Runs `semfuzz ARGS` in `dir` (so with its own `.semfuzz-cache`).
fn semfuzz_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("semfuzz")
        .expect("binary built")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The verdict word of `FUNC sm_XX: VERDICT (...)` in `out`.
fn verdict<'a>(out: &'a str, func: &str, sm: &str) -> &'a str {
    let head = format!("{func} {sm}: ");
    out.lines()
        .find_map(|l| l.strip_prefix(head.as_str()))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no line for {func} {sm} in:\n{out}"))
}

#[test]
fn llc_output_for_simple_ir_is_proved_on_sm_70_and_sm_90() {
    let work = tempfile::tempdir().expect("temp dir");
    let json = work.path().join("verdicts.json");
    let (code, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/simple.ll",
        "--sm",
        "sm_70,sm_90",
        "--work",
        work.path().to_str().expect("utf-8"),
        "--json",
        json.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    for func in ["fadd_f32", "fmul_f64", "fadd_bf16"] {
        for sm in ["sm_70", "sm_90"] {
            assert_eq!(verdict(&out, func, sm), "proved", "{out}{err}");
        }
    }
    assert!(
        out.contains("6 proved, 0 counterexample, 0 unknown, 0 unsupported"),
        "{out}"
    );
    // sm_70 has no bf16 add: llc's PTX is the f32 sum and integer rounding; sm_90 has one.
    let ptx = |sm: &str| {
        std::fs::read_to_string(
            work.path()
                .join("llvmlite")
                .join(format!("simple.fadd_bf16-{sm}.ptx")),
        )
        .expect("the PTX is kept")
    };
    assert!(ptx("sm_70").contains(".func") && !ptx("sm_70").contains("add.rn.bf16"));
    assert!(ptx("sm_90").contains("add.rn.bf16"), "{}", ptx("sm_90"));
    let rows: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("written")).expect("JSON");
    assert_eq!(rows.as_array().map(Vec::len), Some(6));
}

#[test]
fn hand_written_wrong_ptx_is_a_confirmed_counterexample() {
    let (code, out, err) = semfuzz(&["prove", "--no-cache", "cli/tests/llc/wrong.rules"]);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}{err}");
    for rule in [
        "ftz-added-under-ieee",
        "ftz-dropped-under-preserve-sign",
        "fadd-f64-rounded-through-f32",
        "min-selp-swapped",
        "half-in-b32-upper-bits",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{rule}: ")))
            .unwrap_or_else(|| panic!("{rule} missing:\n{out}"));
        assert!(line.contains("counterexample"), "{line}");
    }
    assert_eq!(
        out.matches("confirmed by the evaluator").count(),
        5,
        "{out}"
    );
    assert!(
        out.contains("ftz-kept-under-preserve-sign: proved"),
        "{out}"
    );
    assert!(out.contains("min-selp-right: proved"), "{out}");
    assert!(out.contains("half-in-b32-low-bits: proved"), "{out}");
    // What the caller left above the half, which the wrong function read, is shown.
    assert!(out.contains("    a.hi = 0x"), "{out}");
}

#[test]
fn what_the_reader_does_not_model_is_unsupported_with_its_location() {
    let work = tempfile::tempdir().expect("temp dir");
    let (_, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/correct.ll",
        "--sm",
        "sm_90",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert!(
        out.contains("load_f32 sm_90: unsupported (type `ptr` at correct.ll:33:24)"),
        "{out}{err}"
    );
}

#[test]
fn a_bad_target_list_is_refused() {
    let (code, _, err) = semfuzz(&["validate-llc", "cli/tests/llc/simple.ll", "--sm", "70"]);
    assert_eq!(code, 2);
    assert!(err.contains("`70` is not a target"), "{err}");
}

/// LLVM 22's sm_70 `llvm.fma.bf16` rounds the f32 fma to bf16, a second rounding: a real
/// counterexample, written out as a reproducer an LLVM bug report can be filed from.
#[test]
fn a_counterexample_gets_a_reproducer_directory() {
    let work = tempfile::tempdir().expect("temp dir");
    let repro = work.path().join("repro");
    let (code, out, err) = semfuzz(&[
        "validate-llc",
        "--only",
        "fma_bf16",
        "--sm",
        "sm_70",
        "--work",
        work.path().to_str().expect("utf-8"),
        "--repro",
        repro.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1, "a counterexample exits 1:\n{out}{err}");
    assert_eq!(
        verdict(&out, "fma_bf16", "sm_70"),
        "counterexample",
        "{out}"
    );
    let dir = repro.join("fma_bf16-sm_70-llvm22");
    assert!(
        out.contains(&format!("reproducer: {}", dir.display())),
        "{out}"
    );
    let report = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md");
    assert!(
        report.contains(
            "llc-22 -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_70 fma_bf16.ll -o fma_bf16.ptx"
        ),
        "{report}"
    );
    assert!(report.contains("@llvm.fma.bf16"), "{report}");
    assert!(report.contains("the IR allows"), "{report}");
    let cex: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("counterexample.json")).expect("counterexample.json"),
    )
    .expect("JSON");
    assert_eq!(cex["inputs"].as_array().map(Vec::len), Some(3), "{cex}");
    // The PTX in the directory is what was validated: an f32 fma, then a rounding to bf16.
    let ptx = std::fs::read_to_string(dir.join("fma_bf16.ptx")).expect("the PTX");
    assert!(ptx.contains("fma.rn.f32"), "{ptx}");
    assert!(dir.join("fma_bf16.ll").is_file() && dir.join("llc.sh").is_file());
}

/// `--llc all` validates with every compiler the machine has, under a header each, and ends
/// with the versions each counterexample appears in.
#[test]
fn every_llc_of_the_machine_validates_and_ranges_are_reported() {
    let work = tempfile::tempdir().expect("temp dir");
    let (_, out, err) = semfuzz(&[
        "validate-llc",
        "--llc",
        "all",
        "--only",
        "fadd_f32,fadd_f16,fma_bf16",
        "--sm",
        "sm_70",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    let headers: Vec<&str> = out.lines().filter(|l| l.starts_with("== ")).collect();
    assert!(
        headers
            .iter()
            .any(|h| h.starts_with("== llvmlite (LLVM 22.")),
        "{out}{err}"
    );
    // `cargo xtask setup` installs llvm-14, -15, -16 and -19.
    for n in [14, 15, 16, 19] {
        assert!(
            headers
                .iter()
                .any(|h| h.starts_with(&format!("== llc-{n} (LLVM {n}."))),
            "llc-{n} missing:\n{out}{err}"
        );
    }
    // LLVM 14 to 16 pass the half in a .b32, the later ones in a .b8[2]: each is read.
    for func in ["fadd_f32", "fadd_f16"] {
        assert_eq!(
            out.matches(&format!("{func} sm_70: proved")).count(),
            headers.len(),
            "{out}"
        );
    }
    let range = out
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("fma_bf16 sm_70: counterexample in")
        })
        .unwrap_or_else(|| panic!("no range for fma_bf16:\n{out}"));
    assert!(range.contains("still in 22"), "{range}");
}

/// `--fold N`: LLVM 22's folder computes `fneg` exactly where the PTX it emits under the
/// preserve-sign attributes (`neg.ftz.f32`) flushes: an opt-level difference, printed with its
/// input; where folder and PTX agree, every input is consistent.
#[test]
fn folding_is_judged_against_the_ir_and_the_ptx() {
    let work = tempfile::tempdir().expect("temp dir");
    let (_, out, err) = semfuzz(&[
        "validate-llc",
        "--fold",
        "64",
        "--only",
        "fneg_f32_ftz,fadd_f64",
        "--sm",
        "sm_70",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert!(out.contains("fadd_f64 sm_70: proved"), "{out}{err}");
    assert!(out.contains("    fold: 64 consistent\n"), "{out}");
    let fneg = &out[out.find("fneg_f32_ftz sm_70:").expect("fneg's verdict")..];
    let fold = fneg
        .lines()
        .find(|l| l.starts_with("    fold: "))
        .expect("a fold line under fneg");
    assert!(fold.contains("opt-level"), "{fold}");
    assert!(
        fneg.contains("opt-level (the IR allows 0x000000"),
        "an example with what the IR allows:\n{fneg}"
    );
}

/// A two-lane IR vector is proved one lane at a time: one query per lane (`NAME.laneJ`),
/// in which that lane's NaN is the lane's own outcome, with nothing under `exists`.
#[test]
fn a_two_lane_vector_is_proved_lane_by_lane() {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = root().join("cli/tests/llc/vector.ll");
    let (code, out, err) = semfuzz_in(
        work.path(),
        &[
            "validate-llc",
            ll.to_str().expect("utf-8"),
            "--sm",
            "sm_90",
            "--work",
            "llc",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    for func in ["fadd_v2f32", "fadd_v2bf16"] {
        assert_eq!(verdict(&out, func, "sm_90"), "proved", "{out}{err}");
    }
    // The same rule through `semfuzz prove`, which writes the queries it poses.
    let rules = work.path().join("v.rules");
    let mut text = String::new();
    for func in ["fadd_v2f32", "fadd_v2bf16"] {
        text.push_str(&format!(
            "name: {func}\n  @{}:{func} d, a, b\n=>\n  @llc/llvmlite/vector.{func}-sm_90.ptx:{func} d, a, b\n\n",
            ll.display()
        ));
    }
    std::fs::write(&rules, text).expect("written");
    let (code, out, err) = semfuzz_in(
        work.path(),
        &["prove", "--no-cache", "--emit-smt2", "smt", "v.rules"],
    );
    assert_eq!(code, 0, "{out}{err}");
    for func in ["fadd_v2f32", "fadd_v2bf16"] {
        assert!(out.contains(&format!("{func}: proved")), "{out}{err}");
        let smt = work.path().join("smt");
        assert!(
            !smt.join(format!("{func}.smt2")).exists(),
            "not posed whole"
        );
        for lane in 0..2 {
            let query = std::fs::read_to_string(smt.join(format!("{func}.lane{lane}.smt2")))
                .unwrap_or_else(|e| panic!("{func} lane {lane}: {e}"));
            assert!(!query.contains("exists"), "{func} lane {lane}:\n{query}");
        }
    }
}

/// An unknown is cached with the timeout it gave up within: the same timeout reads it back
/// (saying so), a longer one solves again, and the longer one is what is kept;
/// `--retry-unknown` solves again under any timeout, and its unknown is kept.
#[test]
fn a_cached_unknown_is_reused_under_the_same_timeout_and_solved_again_under_a_longer_one() {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = root().join("cli/tests/llc/vector.ll");
    // sm_70 has no bf16 add: the f32 sum rounded to bf16 by integer arithmetic, which no
    // solver proves equal to one rounding within a millisecond.
    let run = |timeout: &str, more: &[&str]| {
        let mut args = vec![
            "validate-llc",
            ll.to_str().expect("utf-8"),
            "--sm",
            "sm_70",
            "--work",
            "llc",
            "--timeout",
            timeout,
        ];
        args.extend(more);
        let (code, out, err) = semfuzz_in(work.path(), &args);
        assert_eq!(code, 1, "an unknown exits 1:\n{out}{err}");
        assert_eq!(
            verdict(&out, "fadd_v2bf16", "sm_70"),
            "unknown",
            "{out}{err}"
        );
        out.lines()
            .find(|l| l.starts_with("fadd_v2bf16 sm_70: "))
            .expect("a verdict line")
            .to_string()
    };
    let first = run("1ms", &[]);
    assert!(!first.contains("cached"), "{first}");
    let again = run("1ms", &[]);
    assert!(again.contains("d[0]: cached: z3"), "{again}");
    assert!(again.contains("gave up within 1 ms"), "{again}");
    let longer = run("2ms", &[]);
    assert!(!longer.contains("cached"), "solved again: {longer}");
    assert!(longer.contains("timeout after 2 ms"), "{longer}");
    let after = run("1ms", &[]);
    assert!(after.contains("gave up within 2 ms"), "{after}");
    let retried = run("1ms", &["--retry-unknown"]);
    assert!(!retried.contains("cached"), "solved again: {retried}");
    assert!(retried.contains("timeout after 1 ms"), "{retried}");
    assert!(
        run("1ms", &[]).contains("gave up within 1 ms"),
        "the retry is kept"
    );
}

/// The lemma library (smt/src/lemma.rs) at work: LLVM computes `fdiv half` as `cvt.f32.f16`,
/// `div.rn.f32`, `cvt.rn.f16.f32`, which the encoder rewrites to the one f16 division the IR
/// computes (innocuous double rounding), so the proof is structural; likewise `sqrt bfloat`.
#[test]
fn double_rounding_through_f32_is_proved_by_lemma() {
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out, err) = semfuzz_in(
        work.path(),
        &[
            "validate-llc",
            "--work",
            "llc",
            "--only",
            "fdiv_f16,sqrt_bf16",
            "--sm",
            "sm_70,sm_90",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    for sm in ["sm_70", "sm_90"] {
        assert_eq!(verdict(&out, "fdiv_f16", sm), "proved", "{out}{err}");
        assert_eq!(verdict(&out, "sqrt_bf16", sm), "proved", "{out}{err}");
    }
}
