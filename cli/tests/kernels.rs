//! Kernels as one thread (issue 28): `.entry` and `ptx_kernel` functions read the special
//! registers that place their thread as inputs, the same on both sides, bounded by what a
//! launch guarantees and by the kernel's launch attributes (semfuzz_spec::launch).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels")
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

/// A rule named `name` with the precondition line `pre` (or none): `source => target`.
fn rule(name: &str, pre: &str, source: &str, target: &str) -> String {
    format!("name: {name}\n{pre}  {source}\n=>\n  {target}\n\n")
}

const OPERANDS: &str = "d, out, o0, o1, tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, \
                        ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z, laneid";

/// The hand-written PTX relies on the launch: proved under `"nvvm.reqntid"="64"`, a
/// counterexample without it, whose thread is one a launch can have.
#[test]
fn the_launch_bounds_the_special_registers() {
    let work = tempfile::tempdir().expect("temp dir");
    let lane = fixtures().join("lane.ll");
    let text = std::fs::read_to_string(&lane).expect("fixture");
    let free = work.path().join("free.ll");
    std::fs::write(&free, text.replace("\"nvvm.reqntid\"=\"64\"", "nounwind")).expect("written");
    let ptx = fixtures().join("lane.ptx");
    let side = |file: &Path| format!("@{}:lane/0 {OPERANDS}", file.display());
    let rules = work.path().join("kernel.rules");
    let pre = "pre: out[3:0] == 0\n";
    std::fs::write(
        &rules,
        rule("bounded", pre, &side(&lane), &side(&ptx))
            + &rule("unbounded", pre, &side(&free), &side(&ptx)),
    )
    .expect("written");
    let (_, out) = semfuzz(&["prove", "--no-cache", rules.to_str().expect("utf-8")]);
    assert!(out.contains("bounded: proved"), "{out}");
    assert!(out.contains("unbounded: counterexample"), "{out}");
    let value = |name: &str| {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("no {name} in {out}"));
        u64::from_str_radix(line.split("0x").nth(1).expect("hex").trim(), 16).expect("hex")
    };
    let (tid, ntid) = (value("tid_x"), value("ntid_x"));
    assert!(tid >= 64 && tid < ntid, "{out}");
    let linear =
        value("tid_x") + value("ntid_x") * (value("tid_y") + value("ntid_y") * value("tid_z"));
    assert_eq!(value("laneid"), linear % 32, "{out}");
}

/// llc compiles a `ptx_kernel` to an `.entry` with its `.reqntid`; both read `%tid.x`, and the
/// translation is proved.
#[test]
fn a_kernel_validates_ir_to_ptx() {
    let work = tempfile::tempdir().expect("temp dir");
    let lane = fixtures().join("lane.ll");
    let (code, out) = semfuzz(&[
        "validate-llc",
        "--sm",
        "sm_70",
        "--work",
        work.path().to_str().expect("utf-8"),
        lane.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("lane sm_70: proved"), "{out}");
    let ptx =
        std::fs::read_to_string(work.path().join("llvmlite/lane.lane-sm_70.ptx")).expect("the PTX");
    for wanted in [".entry f(", ".reqntid 64", "%tid.x"] {
        assert!(ptx.contains(wanted), "{wanted}:\n{ptx}");
    }
}

/// Triton's vector add runs as one thread of a launch given concretely; a thread no launch of
/// it has is refused, saying why.
#[test]
fn eval_ptx_runs_a_kernel_thread_and_refuses_an_impossible_one() {
    let ptx = "ptx/fixtures/triton-3.9-exp-add-sm_80.ptx";
    // out, x, y, n, two unused pointers; x[0] = 1, y[0] = 2; then the special registers.
    let memory = [
        "0x1000",
        "0x2000",
        "0x3000",
        "0x8",
        "0x0",
        "0x0",
        "0x3f800000",
        "0x0",
        "0x40000000",
        "0x0",
        "0x0",
        "0x0",
    ];
    let thread = |tid: &str, ntid: &str, lane: &str| {
        let mut args = vec!["eval-ptx", ptx];
        args.extend(memory);
        args.extend([
            tid, "0x0", "0x0", ntid, "0x1", "0x1", "0x0", "0x0", "0x0", "0x1", "0x1",
        ]);
        args.extend(["0x1", lane]);
        semfuzz(&args)
    };
    let (code, out) = thread("0x0", "0x80", "0x0");
    assert_eq!(code, 0, "{out}");
    // exp(1) + 2, ex2.approx within its bound: the default choice's value.
    assert!(
        out.contains("[add_kernel_param_2+0..8] = 0x4096fc2a"),
        "{out}"
    );
    let (code, out) = thread("0xc8", "0x80", "0x8");
    assert_ne!(code, 0);
    assert!(
        out.contains("%tid.x = 0xc8 is not below %ntid.x = 0x80"),
        "{out}"
    );
    let (_, out) = thread("0x2", "0x100", "0x2");
    assert!(
        out.contains("%ntid.x = 0x100, but the kernel's launch requires 128"),
        "{out}"
    );
}

/// A special register that is no input of a thread is refused by name, on either side.
#[test]
fn other_special_registers_are_refused_by_name() {
    let work = tempfile::tempdir().expect("temp dir");
    let ptx = work.path().join("w.ptx");
    std::fs::write(
        &ptx,
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .func (.param .b32 r) w()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %warpid;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n",
    )
    .expect("written");
    let (_, out) = semfuzz(&["eval-ptx", ptx.to_str().expect("utf-8")]);
    assert!(
        out.contains("unsupported special register `%warpid`"),
        "{out}"
    );
    let ll = work.path().join("w.ll");
    std::fs::write(
        &ll,
        "define i32 @w() {\n  %w = call i32 @llvm.nvvm.read.ptx.sreg.warpid()\n  ret i32 %w\n}\ndeclare i32 @llvm.nvvm.read.ptx.sreg.warpid()\n",
    )
    .expect("written");
    let (_, out) = semfuzz(&[
        "validate-llc",
        "--sm",
        "sm_70",
        "--work",
        work.path().to_str().expect("utf-8"),
        ll.to_str().expect("utf-8"),
    ]);
    assert!(
        out.contains("unsupported (special register `%warpid`"),
        "{out}"
    );
}

/// A device function the kernel calls reads the kernel's special registers: it is the same
/// thread.
#[test]
fn a_callee_reads_the_callers_special_registers() {
    let ptx = fixtures().join("callee.ptx");
    let mut args = vec!["eval-ptx", "--func", "k", ptx.to_str().expect("utf-8")];
    // out, its memory, then %tid.x = 5 in a CTA of 64 threads, lane 5.
    args.extend([
        "0x1000", "0x0", "0x0", "0x5", "0x0", "0x0", "0x40", "0x1", "0x1",
    ]);
    args.extend(["0x0", "0x0", "0x0", "0x1", "0x1", "0x1", "0x5"]);
    let (code, out) = semfuzz(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("[out+0..8] = 0x5"), "{out}");
}

/// Inline `asm` whose text is PTX is read by the PTX reader with its constraint string
/// binding the operands: Triton's masked `ld.global` idiom is the same load written as IR,
/// both ways, and the idiom with its guard dropped by hand is a counterexample where the mask
/// is off.
#[test]
fn tritons_ld_global_idiom_is_the_ir_load() {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = fixtures().join("asm.ll");
    let rule = |name: &str, source: &str, target: &str| {
        format!(
            "name: {name}\npre: p[3:0] == 0\n  @{ll}:{source}/0 d, p, m, b0, b1\n=>\n  @{ll}:{target}/0 d, p, m, b0, b1\n\n",
            ll = ll.display()
        )
    };
    let rules = work.path().join("asm.rules");
    std::fs::write(
        &rules,
        rule("asm-refines-ir", "ir_load", "asm_load")
            + &rule("ir-refines-asm", "asm_load", "ir_load")
            + &rule("unguarded", "ir_load", "unguarded_load"),
    )
    .expect("written");
    let tied = format!(
        "name: tied\n  @{ll}:ir_increment d, x\n=>\n  @{ll}:tied_increment d, x\n",
        ll = ll.display()
    );
    std::fs::write(work.path().join("tied.rules"), tied).expect("written");
    let (_, out) = semfuzz(&[
        "prove",
        "--no-cache",
        work.path().join("tied.rules").to_str().expect("utf-8"),
    ]);
    assert!(out.contains("tied: proved"), "{out}");
    let (_, out) = semfuzz(&["prove", "--no-cache", rules.to_str().expect("utf-8")]);
    assert!(out.contains("asm-refines-ir: proved"), "{out}");
    assert!(out.contains("ir-refines-asm: proved"), "{out}");
    assert!(out.contains("unguarded: counterexample"), "{out}");
    assert!(out.contains("m = 0x0"), "the mask is off:\n{out}");
}

fn triton_installed() -> bool {
    let there = root().join(".deps/triton/triton").is_dir();
    if !there {
        eprintln!("skipped: no Triton wheel in .deps/triton (`cargo xtask setup` installs it)");
    }
    there
}

/// `validate-llc --llc triton` on the committed IR of Triton's `kernel` for `sm`.
fn validate_with_triton(kernel: &str, sm: &str) -> (i32, String) {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = root().join(format!("llir/fixtures/triton-3.9-{kernel}-{sm}.ll"));
    semfuzz(&[
        "validate-llc",
        "--llc",
        "triton",
        "--sm",
        sm,
        "--timeout",
        "120s",
        "--work",
        work.path().to_str().expect("utf-8"),
        ll.to_str().expect("utf-8"),
    ])
}

/// Triton's vector add (scripts/kernel-fixtures.py), its IR compiled by Triton's own LLVM
/// trunk: the kernel's inline-asm loads and stores, its special registers and its memory as
/// the result, IR to PTX, proved.
#[test]
fn tritons_vector_add_validates_ir_to_ptx() {
    if !triton_installed() {
        return;
    }
    let (code, out) = validate_with_triton("vector-add", "sm_90");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("vector_add sm_90: proved"), "{out}");
}

/// `eval-ptx --threads 32` reads the kernel as one CTA: a butterfly sum gives every lane the
/// warp's sum (0 + 1 + ... + 31 = 0x1f0), the CTA's place is fixed by `--ctaid`, and the
/// verdict lines say it raced nowhere. Read as one thread, the shuffle is refused by name.
#[test]
fn eval_ptx_runs_a_whole_cta() {
    let ptx = fixtures().join("warp_sum.ptx");
    let ptx = ptx.to_str().expect("utf-8 path");
    let mut args = vec![
        "eval-ptx".to_string(),
        ptx.to_string(),
        "--threads".into(),
        "32".into(),
        "--block-bytes".into(),
        "128".into(),
        "--ctaid".into(),
        "0".into(),
        "0x1000".into(),
        "0x2000".into(),
    ];
    args.extend((0..16u64).map(|k| format!("{:#x}", ((2 * k + 1) << 32) | (2 * k))));
    args.extend((0..16).map(|_| "0x0".to_string()));
    args.extend(["0x1", "0x1", "0x1"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = semfuzz(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("interp evaluator"), "{out}");
    for k in 0..16 {
        let line = format!("[out+{}..{}] = 0x1f0000001f0", 8 * k, 8 * k + 8);
        assert!(out.contains(&line), "{line} in {out}");
    }
    assert!(out.contains("race_free = 1 (true)"), "{out}");
    assert!(out.contains("warp_stores_agree = 1 (true)"), "{out}");
    // Compiled on request, the CTA's program gives the interpreter's results.
    let mut jit = args.clone();
    jit.splice(2..2, ["--evaluator", "jit"]);
    let (code, compiled) = semfuzz(&jit);
    assert_eq!(code, 0, "{compiled}");
    assert!(compiled.contains("jit evaluator"), "{compiled}");
    let results = |o: &str| {
        o.lines()
            .filter(|l| l.contains(" = "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(results(&compiled), results(&out));
    let (code, out) = semfuzz(&["eval-ptx", ptx, "0x1000", "0x2000"]);
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("warp collective") && out.contains("--threads"),
        "{out}"
    );
}

/// `prove` over a CTA (`@file.ptx:kernel[N,B]`): a warp's shuffle butterfly and a sum through
/// `.shared` after a barrier are the same integer sum, and the same f32 sum where they add in
/// the same order; shuffling up instead of across, and adding four floats in another order,
/// are counterexamples the evaluator confirms. An IR function is refused a thread count.
#[test]
fn prove_compares_kernels_over_a_cta() {
    let (code, out) = semfuzz(&["prove", "--no-cache", "cli/tests/cta/reductions.rules"]);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}");
    assert!(
        out.contains("4 rules: 2 proved, 2 counterexample, 0 unknown; 0 differ"),
        "{out}"
    );
    assert_eq!(
        out.matches("confirmed by the evaluator").count(),
        2,
        "{out}"
    );
    let work = tempfile::tempdir().expect("temporary directory");
    let rules = work.path().join("ir.rules");
    std::fs::write(
        &rules,
        "name: ir-cta\n  @f.ll:f[32] d, a\n=>\n  @f.ptx:f d, a\n",
    )
    .expect("written");
    std::fs::write(
        work.path().join("f.ll"),
        "define i32 @f(i32 %a) {\n  ret i32 %a\n}\n",
    )
    .expect("written");
    let (code, out) = semfuzz(&["prove", "--no-cache", rules.to_str().expect("utf-8")]);
    assert_ne!(code, 0, "{out}");
    assert!(
        out.contains("an LLVM IR function is read as one thread"),
        "{out}"
    );
}

/// Triton's elementwise kernel (scripts/kernel-fixtures.py): a masked bf16 load, `fpext` to
/// f32, a multiply by log2(e), `ex2.approx.f32` and a round to bf16 stored under the mask.
/// Its IR, compiled for sm_80 and for sm_90 by Triton's own LLVM, is proved with its memory
/// as the result: the bf16 NaN the IR may store follows the one the PTX stores, and the
/// approximation is the same function on both sides.
#[test]
fn tritons_exp_bf16_kernel_validates_ir_to_ptx() {
    if !triton_installed() {
        return;
    }
    for sm in ["sm_80", "sm_90"] {
        let (code, out) = validate_with_triton("exp-bf16", sm);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains(&format!("exp_bf16 {sm}: proved")), "{out}");
    }
}

/// The same kernel's committed PTX (Triton's own output) stores its first output word as
/// the IR says; with the store's predicate dropped by hand it writes where the mask is off,
/// a confirmed counterexample at a thread past `n`.
#[test]
fn an_unmasked_store_in_tritons_exp_bf16_kernel_is_caught() {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = root().join("llir/fixtures/triton-3.9-exp-bf16-sm_90.ll");
    let ptx = root().join("ptx/fixtures/triton-3.9-exp-bf16-sm_90.ptx");
    let text = std::fs::read_to_string(&ptx).expect("fixture");
    let unmasked = work.path().join("unmasked.ptx");
    let store = "@%p1 st.global.b16";
    assert!(text.contains(store), "the fixture's masked store");
    std::fs::write(&unmasked, text.replace(store, "st.global.b16")).expect("written");
    let special = OPERANDS
        .strip_prefix("d, out, o0, o1, ")
        .expect("the special registers follow the memory");
    let operands = format!("d, x, o, n, u, v, x0, x1, o0, o1, {special}");
    let side = |file: &Path| format!("@{}:exp_bf16/2 {operands}", file.display());
    let rules = work.path().join("exp.rules");
    std::fs::write(
        &rules,
        rule("triton", "", &side(&ll), &side(&ptx))
            + &rule("unmasked", "", &side(&ll), &side(&unmasked)),
    )
    .expect("written");
    let (_, out) = semfuzz(&[
        "prove",
        "--no-cache",
        "--timeout",
        "60s",
        rules.to_str().expect("utf-8"),
    ]);
    assert!(out.contains("triton: proved"), "{out}");
    assert!(out.contains("unmasked: counterexample"), "{out}");
    assert!(out.contains("confirmed"), "{out}");
}
