//! `semfuzz validate-llc --llc nvvm`: NVIDIA's libNVVM from the CUDA wheel. It compiles and
//! proves a correct function, each IR spelling reaches it as the option that licenses the same
//! (`-ftz=1` for the preserve-sign attributes), what its LLVM 7 cannot parse is a located
//! `unsupported`, and PTX broken by hand after compiling is a confirmed counterexample (a test of
//! the plumbing, not of libNVVM). Skipped, saying so, only where `cargo xtask setup` has not
//! installed the wheel.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Whether setup installed libNVVM and cuda-bindings into `.deps/py`; says why a test is
/// skipped if not.
fn nvvm_installed() -> bool {
    let py = root().join(".deps/py");
    let there = py.join("nvidia/cu13/lib/libnvvm.so.4").is_file()
        && py.join("cuda/bindings/nvvm.pxd").is_file();
    if !there {
        eprintln!(
            "skipped: no libNVVM in .deps/py (`cargo xtask setup` installs nvidia-cuda-nvcc, \
             which brings nvidia-nvvm, and cuda-bindings)"
        );
    }
    there
}

/// Runs `semfuzz ARGS` at the workspace root: (exit code, stdout and stderr).
fn semfuzz(args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("semfuzz")
        .expect("binary built")
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// `validate-llc --llc nvvm --only ONLY --sm SMS` in `work`.
fn validate(only: &str, sms: &str, work: &Path) -> (i32, String) {
    semfuzz(&[
        "validate-llc",
        "--llc",
        "nvvm",
        "--only",
        only,
        "--sm",
        sms,
        "--work",
        work.to_str().expect("utf-8"),
    ])
}

/// The verdict line of `FUNC sm_XX: ...` in `out`.
fn line<'a>(out: &'a str, func: &str, sm: &str) -> &'a str {
    let head = format!("{func} {sm}: ");
    out.lines()
        .find(|l| l.starts_with(head.as_str()))
        .unwrap_or_else(|| panic!("no line for {func} {sm} in:\n{out}"))
}

#[test]
fn libnvvm_proves_a_correct_function_with_the_option_its_ir_licenses() {
    if !nvvm_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out) = validate(
        "fadd_f32,fadd_f32_ftz,fadd_bf16",
        "sm_75,sm_100",
        work.path(),
    );
    assert_eq!(code, 0, "{out}");
    for f in ["fadd_f32", "fadd_f32_ftz"] {
        for sm in ["sm_75", "sm_100"] {
            assert!(line(&out, f, sm).contains(": proved"), "{out}");
        }
    }
    // The preserve-sign attributes reach libNVVM as -ftz=1 (it ignores the attributes): the
    // PTX flushes, and the module it read has its data layout, triple and IR version.
    let ptx =
        std::fs::read_to_string(work.path().join("nvvm/fadd_f32_ftz-sm_75.ptx")).expect("PTX");
    assert!(
        ptx.contains("add.ftz.f32") || ptx.contains("add.rn.ftz.f32"),
        "{ptx}"
    );
    let plain = std::fs::read_to_string(work.path().join("nvvm/fadd_f32-sm_75.ptx")).expect("PTX");
    assert!(!plain.contains(".ftz"), "{plain}");
    // bf16 at sm_75 (libNVVM's LLVM 7) is a located unsupported naming the type; sm_100's
    // libNVVM is built on LLVM 22 and reads it.
    let bf = line(&out, "fadd_bf16", "sm_75");
    assert!(
        bf.contains(": unsupported (") && bf.contains("unsupported bfloat at f.ll:"),
        "{bf}"
    );
    assert!(bf.contains("nvvm (libNVVM 13.5 (CUDA 13.5."), "{bf}");
    assert!(
        line(&out, "fadd_bf16", "sm_100").contains(": proved"),
        "{out}"
    );
    // A target libNVVM does not know is that target's verdict.
    let (_, old) = validate("fadd_f32", "sm_70", work.path());
    assert!(
        line(&old, "fadd_f32", "sm_70").contains("does not know sm_70"),
        "{old}"
    );
}

#[test]
fn libnvvm_ptx_broken_by_hand_is_a_confirmed_counterexample() {
    if !nvvm_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out) = validate("fmul_f32", "sm_90", work.path());
    assert_eq!(code, 0, "{out}");
    let ptx = std::fs::read_to_string(work.path().join("nvvm/fmul_f32-sm_90.ptx")).expect("PTX");
    let mul = ptx
        .lines()
        .find(|l| l.trim_start().starts_with("mul."))
        .unwrap_or_else(|| panic!("no mul in {ptx}"))
        .split_whitespace()
        .next()
        .expect("an opcode")
        .to_string();
    let ll = work.path().join("fmul_f32.min.ll");
    let rules = |name: &str, ptx: &str| {
        let p = work.path().join(format!("{name}.ptx"));
        std::fs::write(&p, ptx).expect("written");
        format!(
            "name: {name}\n  @{}:f d, a, b\n=>\n  @{}:f d, a, b\n",
            ll.display(),
            p.display()
        )
    };
    // The same PTX, and the same with its multiply rounded toward zero by hand.
    let text = rules("as-compiled", &ptx) + &rules("rz", &ptx.replace(&mul, "mul.rz.f32"));
    let file = work.path().join("nvvm.rules");
    std::fs::write(&file, text).expect("written");
    let (_, out) = semfuzz(&["prove", "--no-cache", file.to_str().expect("utf-8")]);
    assert!(out.contains("as-compiled: proved"), "{out}");
    let rz = out
        .lines()
        .find(|l| l.starts_with("rz: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(rz.contains("counterexample"), "{out}");
    assert!(out.contains("confirmed by the evaluator"), "{out}");
}

#[test]
fn a_libnvvm_reproducer_carries_its_driver_and_reruns_with_the_wheel() {
    if !nvvm_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let repro = work.path().join("repro");
    // docs/nvvm.md class 1: `llvm.round` is `cvt.rni` (halfway cases to even) at sm_75.
    let (code, out) = semfuzz(&[
        "validate-llc",
        "--llc",
        "nvvm",
        "--only",
        "round_f32",
        "--sm",
        "sm_75",
        "--work",
        work.path().to_str().expect("utf-8"),
        "--repro",
        repro.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        line(&out, "round_f32", "sm_75").contains(": counterexample"),
        "{out}"
    );
    assert!(out.contains("confirmed by both evaluators"), "{out}");
    let dir = repro.join("round_f32-sm_75-nvvm13");
    let report =
        std::fs::read_to_string(dir.join("REPORT.md")).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(
        report.starts_with("# [libNVVM] `round_f32` at sm_75"),
        "{report}"
    );
    assert!(
        report.contains(
            "python3 nvvm.py -arch=compute_75 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 f.ll -o f.ptx"
        ),
        "{report}"
    );
    assert!(
        report.contains("the PTX semfuzz judged, byte for byte"),
        "{report}"
    );
    // The script, as a maintainer runs it in a directory holding only what it names.
    let fresh = tempfile::tempdir().expect("temp dir");
    for f in ["f.ll", "nvvm.py", "llc.sh"] {
        std::fs::copy(dir.join(f), fresh.path().join(f)).expect("copied");
    }
    let run = std::process::Command::new("sh")
        .arg("llc.sh")
        .env("PYTHONPATH", root().join(".deps/py"))
        .current_dir(fresh.path())
        .output()
        .expect("sh runs");
    assert!(run.status.success(), "{run:?}");
    let again = std::fs::read_to_string(fresh.path().join("f.ptx")).expect("f.ptx");
    assert!(again.contains("cvt.rni.f32.f32"), "{again}");
    let judged = std::fs::read_to_string(dir.join("f.ptx")).expect("f.ptx");
    assert_eq!(again, judged);
}

/// `-prec-div=0` is passed where every `fdiv float` carries an `!fpmath` bound of at least 2.5
/// ulps, and libNVVM's approximate division is judged against that bound: within it, proved;
/// against a bound it does not meet, or with the division made coarser by hand, a confirmed
/// counterexample.
#[test]
fn libnvvm_approximate_division_is_judged_against_its_licence() {
    if !nvvm_installed() {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out) = validate("fdiv_f32,fdiv_f32_fpmath", "sm_90", work.path());
    assert_eq!(code, 0, "{out}");
    assert!(
        line(&out, "fdiv_f32_fpmath", "sm_90").contains(": proved"),
        "{out}"
    );
    let ptx =
        std::fs::read_to_string(work.path().join("nvvm/fdiv_f32_fpmath-sm_90.ptx")).expect("PTX");
    assert!(
        ptx.contains("div.full.f32"),
        "-prec-div=0 was not passed:\n{ptx}"
    );
    let ieee = std::fs::read_to_string(work.path().join("nvvm/fdiv_f32-sm_90.ptx")).expect("PTX");
    assert!(!ieee.contains("div.full"), "{ieee}");

    let ll = work.path().join("fdiv_f32_fpmath.min.ll");
    let text = std::fs::read_to_string(&ll).expect("the catalogue's module");
    let half_ulp = work.path().join("half_ulp.ll");
    std::fs::write(&half_ulp, text.replace("float 2.5", "float 0.5")).expect("written");
    let rules = |name: &str, ll: &Path, ptx: &str| {
        let p = work.path().join(format!("{name}.ptx"));
        std::fs::write(&p, ptx).expect("written");
        format!(
            "name: {name}\n  @{}:f d, a, b\n=>\n  @{}:f d, a, b\n",
            ll.display(),
            p.display()
        )
    };
    let text = rules("as-compiled", &ll, &ptx)
        + &rules("half-ulp", &half_ulp, &ptx)
        + &rules(
            "approx",
            &ll,
            &ptx.replace("div.full.f32", "div.approx.f32"),
        );
    let file = work.path().join("fpmath.rules");
    std::fs::write(&file, text).expect("written");
    let (_, out) = semfuzz(&["prove", "--no-cache", file.to_str().expect("utf-8")]);
    let verdict = |name: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name} in {out}"))
    };
    assert!(verdict("as-compiled").contains("proved"), "{out}");
    assert!(verdict("half-ulp").contains("counterexample"), "{out}");
    assert!(verdict("approx").contains("counterexample"), "{out}");
}
