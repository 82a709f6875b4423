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

/// `semfuzz prove --no-cache RULES` with every verdict the one its `expect:` says: the
/// summary line says `summary` and `confirmed` counterexamples are confirmed by the evaluator.
/// Returns the output.
fn prove_as_expected(rules: &str, summary: &str, confirmed: usize) -> String {
    prove_with(rules, &[], summary, confirmed)
}

/// [`prove_as_expected`] with more options (`--timeout 60s`) before the rules file.
fn prove_with(rules: &str, extra: &[&str], summary: &str, confirmed: usize) -> String {
    let mut args = vec!["prove", "--no-cache"];
    args.extend(extra);
    args.push(rules);
    let (code, out, err) = semfuzz(&args);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}{err}");
    assert!(out.contains(summary), "{out}");
    assert_eq!(
        out.matches("confirmed by the evaluator").count(),
        confirmed,
        "{out}"
    );
    out
}

/// `semfuzz validate-llc --run-lines FILE [EXTRA...]` with its own work directory (kept, for
/// the compiled PTX): the directory, stdout and stderr.
fn validate_run_lines(file: &str, extra: &[&str]) -> (tempfile::TempDir, String, String) {
    let work = tempfile::tempdir().expect("temp dir");
    let mut args = vec!["validate-llc", "--run-lines", file];
    args.extend(extra);
    args.extend(["--work", work.path().to_str().expect("utf-8")]);
    let (_, out, err) = semfuzz(&args);
    (work, out, err)
}

/// `validate-llc --run-lines cli/tests/llc/FILE` (compiled at test time) proves every one of
/// its `cells` function × RUN-line cells.
fn all_run_lines_proved(file: &str, cells: usize) {
    let (_work, out, err) =
        validate_run_lines(&format!("cli/tests/llc/{file}"), &["--timeout", "20s"]);
    let row = format!("| {file} | {cells} | {cells} | 0 | 0 | 0 |");
    assert!(out.contains(&row), "{out}{err}");
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

/// Poison as LangRef defines it (docs/ambiguities.md 78, 86): where the IR is poison or
/// undefined the PTX may do anything, and nowhere else; each rule of poison.rules has a wrong
/// twin that only the right reading of `select`, `freeze`, division by zero or a `noundef`
/// argument catches.
#[test]
fn poison_and_undefined_behaviour_allow_anything_and_nothing_more() {
    let out = prove_as_expected(
        "cli/tests/llc/poison.rules",
        "12 rules: 6 proved, 6 counterexample, 0 unknown; 0 differ",
        6,
    );
    // FuzzX NVPTX #002 is reported on the one input where the IR is defined and differs.
    let fuzzx = out
        .split("fuzzx-002: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(fuzzx.starts_with("counterexample"), "{fuzzx}");
    assert!(fuzzx.contains("    x = 0xffff\n"), "{fuzzx}");
    assert!(
        fuzzx.contains("source allows 0xffff8000; target produced 0x8000"),
        "{fuzzx}"
    );
}

/// Memory (docs/llc-validation.md, "Memory"): llc's loads and stores through pointer
/// parameters (a load-add-store, a computed index, a vector load, a store alone, a store
/// under a branch or a predicate, a pointer through `ptrtoint`/`inttoptr`) are proved; a
/// store to the wrong offset or past the block, a load through `inttoptr` at the wrong offset,
/// a dropped branch or predicate and a narrower load are confirmed counterexamples (`ldu`, read
/// as `ld.global.nc`, proved in a load's place and caught at the wrong offset); a stored
/// poison allows any bytes there and nowhere else, a load of a poison byte is poison, an
/// out-of-bounds load of the IR is undefined behaviour; a load at a known offset past the first
/// 16 bytes grows the blocks to hold it (llc's proved, the next word caught), where it was out
/// of bounds at every input before and a proof said nothing; a speculative load stays in
/// bounds within `dereferenceable(32)` and faults where nothing is promised.
#[test]
fn memory_is_compared_byte_by_byte_and_every_broken_twin_is_caught() {
    let out = prove_as_expected(
        "cli/tests/llc/memory.rules",
        "26 rules: 15 proved, 11 counterexample, 0 unknown; 0 differ",
        11,
    );
    // The store past the block is caught by `in_bounds`, not by the bytes it left alone.
    let oob = out
        .split("store-only-out-of-bounds: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        oob.contains("in_bounds: source allows 1 (true); target produced 0 (false)"),
        "{oob}"
    );
}

/// `--may-alias` (docs/ambiguities.md 100): pointer arguments that are not `noalias` point into
/// one region. llc 22's reload after a store through another pointer and its two-word copy
/// are proved there (compiled at test time, and the committed PTX), as is its forwarded load
/// under `noalias`; the same forwarding without `noalias`, and a copy that stores a word before
/// loading the next, are counterexamples where the pointers overlap (`q = p`, `d = s + 4`),
/// while without `--may-alias` the forwarding is proved: the flag is what finds it.
#[test]
fn may_alias_lets_pointer_arguments_overlap_and_noalias_keeps_them_apart() {
    let out = prove_with(
        "cli/tests/llc/alias.rules",
        &["--may-alias"],
        "5 rules: 3 proved, 2 counterexample, 0 unknown; 0 differ",
        2,
    );
    let copy = out
        .split("copy2-interleaved-overwrites-its-source: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    let address = |name: &str| {
        let line = copy
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} = 0x")))
            .unwrap_or_else(|| panic!("{copy}"));
        u64::from_str_radix(line.trim().trim_start_matches(&format!("{name} = 0x")), 16)
            .expect("hex")
    };
    assert_eq!(address("dst").wrapping_sub(address("src")), 4, "{copy}");

    let dir = tempfile::tempdir().expect("temp dir");
    let fixtures = root().join("cli/tests/llc");
    let rule = format!(
        "name: distinct\nexpect: proved\n  @{0}/alias.ll:reload/0 d, p, q, p0, p1, q0, q1\n=>\n  @{0}/alias.ptx:reload_forwarded/0 d, p, q, p0, p1, q0, q1\n",
        fixtures.display()
    );
    let rules = dir.path().join("distinct.rules");
    std::fs::write(&rules, rule).expect("writes");
    prove_as_expected(
        rules.to_str().expect("utf-8"),
        "1 rules: 1 proved, 0 counterexample",
        0,
    );

    let (_work, out, err) = validate_run_lines(
        "cli/tests/llc/alias.ll",
        &["--may-alias", "--timeout", "20s"],
    );
    assert!(
        out.contains("| alias.ll | 3 | 3 | 0 | 0 | 0 |"),
        "{out}{err}"
    );
    assert!(
        out.contains("reload sm_80: proved (assuming pointer arguments %p, %q may overlap (--may-alias): each within 16 bytes of %p"),
        "{out}"
    );
}

/// Module variables a function may write (docs/ambiguities.md 184): llc 22's reads and writes
/// of `global`s (an `i32` counter, a table written at a computed index, an internal `@g.x` that
/// PTX calls `g_$_x`, an external one, one in the generic space) are proved, compiled at test
/// time and as committed; a stale count stored back, a table indexed past its end and a
/// dropped store are confirmed counterexamples.
#[test]
fn module_variables_are_blocks_whose_contents_are_inputs_and_results() {
    prove_as_expected(
        "cli/tests/llc/globals.rules",
        "10 rules: 7 proved, 3 counterexample, 0 unknown; 0 differ",
        3,
    );
    all_run_lines_proved("globals.ll", 3);
}

/// `"unsafe-fp-math"="true"` (docs/ambiguities.md 185): llc-19 contracts a multiply-add and
/// divides with `div.approx.f32` under it, which the IR alone calls counterexamples (the
/// committed llc-19 PTX, proved against the IR by `prove`, which knows no compiler); validate-llc
/// reads the attribute as LLVM 19 does and proves both, saying so, and LLVM 22, which ignores
/// it, compiles the IR as written and is proved without the reading.
#[test]
fn unsafe_fp_math_is_read_where_the_compiler_reads_it() {
    prove_as_expected(
        "cli/tests/llc/unsafe-fp-math.rules",
        "2 rules: 0 proved, 2 counterexample, 0 unknown; 0 differ",
        2,
    );
    for (llc, read) in [("llc-19", true), ("llvmlite", false)] {
        let work = tempfile::tempdir().expect("temp dir");
        let (_, out, err) = semfuzz(&[
            "validate-llc",
            "cli/tests/llc/unsafe-fp-math.ll",
            "--llc",
            llc,
            "--sm",
            "sm_80",
            "--timeout",
            "20s",
            "--work",
            work.path().to_str().expect("utf-8"),
        ]);
        for func in ["mul_add", "divide"] {
            assert_eq!(verdict(&out, func, "sm_80"), "proved", "{llc}: {out}{err}");
        }
        assert_eq!(
            out.matches("reading \"unsafe-fp-math\"=\"true\" as llc-19")
                .count(),
            if read { 2 } else { 0 },
            "{llc}: {out}"
        );
    }
}

/// Memory a function allocates itself (docs/ambiguities.md 179): llc 22's `.local` depots for
/// IR `alloca`s, compiled at test time at -O2 and at -O0 (through `cvta.local`, and an offset
/// added with `or.b64` that holds only for an aligned depot), are proved; the hand-broken
/// twins (an element stored to the wrong place, a dropped store whose element the PTX then
/// reads unwritten, an off-by-one load, an unswapped copy) are confirmed counterexamples; at
/// -O0 a vector lane at a 64-bit index is read through the depot, the index `or`ed in.
#[test]
fn allocas_and_local_depots_are_blocks_of_their_own() {
    prove_as_expected(
        "cli/tests/llc/local.rules",
        "9 rules: 5 proved, 4 counterexample, 0 unknown; 0 differ",
        4,
    );
    all_run_lines_proved("local.ll", 8);
}

/// Constant tables (docs/ambiguities.md 180): an IR `constant` and the initialised `.global`
/// LLVM writes for it are read through their initializers; llc 22's lookups (compiled at test
/// time) are proved, through a register or the symbol; a wrong table, a zero-extended element
/// and an index past the table are confirmed counterexamples.
#[test]
fn constant_tables_are_read_through_their_initializers() {
    prove_as_expected(
        "cli/tests/llc/constants.rules",
        "6 rules: 3 proved, 3 counterexample, 0 unknown; 0 differ",
        3,
    );
    all_run_lines_proved("constants.ll", 3);
}

/// Flush-to-zero chains and selected divisions (docs/ambiguities.md 182): llc 22's `.ftz`
/// instructions for preserve-sign operations are proved (a tiny product that rounds up to
/// 2^-126 may be flushed), as is a `select` of two quotients LLVM turns into one division of the
/// selected parameter (case by case over the flag, all work abstracted); a divisor not flushed,
/// a product rounded toward zero and a swapped select are confirmed counterexamples.
#[test]
fn flush_chains_and_selected_divisions_are_proved_by_structure() {
    prove_as_expected(
        "cli/tests/llc/ftz-chains.rules",
        "8 rules: 5 proved, 3 counterexample, 0 unknown; 0 differ",
        3,
    );
    all_run_lines_proved("ftz-chains.ll", 5);
}

/// Issue 28's two-loop benchmark (docs/BENCHMARKS.md): llc 22's PTX for two loops of 12
/// hash rounds each, whose rotated loops give the unrolled iterations other path conditions
/// than the IR's, is proved by structure (the products both sides compute abstracted, the
/// loop exits' joins proved equal and merged: smt/src/shared_work.rs); the second loop one
/// iteration short and one changed multiplier are confirmed counterexamples.
#[test]
fn two_loops_are_proved_by_their_shared_work() {
    prove_with(
        "cli/tests/llc/two-loops.rules",
        &["--timeout", "60s"],
        "3 rules: 1 proved, 2 counterexample, 0 unknown; 0 differ",
        2,
    );
}

/// LLVM's memory intrinsics of a constant length (docs/llc-validation.md, "Memory"): llc 22's
/// word copies for `memcpy` (`align 4`), its byte copies where no alignment is promised, one
/// 64-bit move for `memmove` and replicated words for `memset` are proved; a skipped word, a
/// half move, a short fill and a byte replicated twice are counterexamples the evaluator
/// confirms; a `memset` of poison allows any bytes there and none past them.
#[test]
fn memory_intrinsics_copy_and_fill_byte_by_byte() {
    prove_as_expected(
        "cli/tests/llc/mem-intrinsics.rules",
        "12 rules: 7 proved, 5 counterexample, 0 unknown; 0 differ",
        5,
    );
}

/// Atomics, one thread at a time (docs/llc-validation.md, "Atomics"): llc's `atom.global.add.u32`,
/// `atom.acquire.sys.global.cas.b32` (after `fence.sc.sys`) and `atom.shared.add.f32` are
/// proved; FuzzX NVPTX #033 (`atom.global.add.f32` flushes `0x1 + 0x1`-like sums the IR's
/// IEEE mode keeps) and the hand-broken twins (an atom at the wrong offset, a flushing
/// `atom.global` where the IR's memory is shared) are counterexamples; `red` is proved as
/// atom's operation without its old value, and a plain `ld.relaxed`/`st.relaxed` pair as the
/// atomic (one thread).
#[test]
fn atomics_read_modify_write_the_block_and_flushes_are_caught() {
    prove_as_expected(
        "cli/tests/llc/atomics.rules",
        "10 rules: 7 proved, 3 counterexample, 0 unknown; 0 differ",
        3,
    );
}

/// `validate-llc` finds FuzzX NVPTX #033 by itself (`atomicrmw fadd ptr addrspace(1)` in IEEE
/// mode becomes a flushing `atom.global.add.f32`) and proves the rest, among them the 32-bit
/// CAS loop LLVM writes for a 16-bit `xchg`, whose address rounded down stays in its block
/// only under the blocks' stated alignment (a precondition of every memory verdict).
#[test]
fn validate_llc_finds_fuzzx_033_and_proves_the_cas_loop() {
    let work = tempfile::tempdir().expect("temp dir");
    let (_, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/atomics.ll",
        "--sm",
        "sm_90",
        "--timeout",
        "20s",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(
        verdict(&out, "fadd_global", "sm_90"),
        "counterexample",
        "{out}{err}"
    );
    assert!(out.contains("confirmed by both evaluators"), "{out}");
    for func in [
        "add_i32",
        "cas_i32",
        "fadd_shared",
        "xchg_half",
        "add_unused",
    ] {
        assert_eq!(verdict(&out, func, "sm_90"), "proved", "{func}: {out}{err}");
    }
}

/// llc flags that license what the IR alone forbids (docs/ambiguities.md 105, 177): under
/// `-nvptx-allow-ftz-atomics` the flushing `atom.add.f32` is proved, and a counterexample
/// without it; under `-nvptx-prec-divf32=0 -nvptx-prec-sqrtf32=0` `div.approx.f32` and
/// `sqrt.approx.f32` are proved, and counterexamples against the same IR without the licence.
/// Each verdict resting on a licence says so; the others do not.
#[test]
fn llc_licences_widen_what_the_ir_allows_and_say_so() {
    let (work, out, err) = validate_run_lines("cli/tests/llc/licences.ll", &["--timeout", "20s"]);
    let text = format!("\n{out}");
    let runs: Vec<&str> = text.split("\n== ").skip(1).collect();
    assert_eq!(runs.len(), 3, "{out}{err}");
    let (allow, strict, approximate) = (runs[0], runs[1], runs[2]);
    let ftz =
        "(reading -nvptx-allow-ftz-atomics as licensing atomicrmw fadd float flushing or not;";
    assert!(
        allow.contains(&format!("add sm_70: proved {ftz}")),
        "{allow}"
    );
    assert!(
        allow.contains("div sm_70: proved (0."),
        "not licensed: {allow}"
    );
    assert_eq!(
        verdict(strict, "add", "sm_70"),
        "counterexample",
        "{strict}"
    );
    assert!(strict.contains("confirmed by both evaluators"), "{strict}");
    let approx = "proved (reading -nvptx-prec-divf32=0 -nvptx-prec-sqrtf32=0 as licensing div.approx.f32 for fdiv float, sqrt.approx.f32 for llvm.sqrt.f32)";
    for func in ["div", "root"] {
        assert!(
            approximate.contains(&format!("{func} sm_70: {approx}")),
            "{func}: {approximate}"
        );
    }
    let ptx = std::fs::read_dir(work.path().join("llvmlite"))
        .expect("compiled")
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .collect::<String>();
    assert!(
        ptx.contains("div.approx.f32"),
        "the licence was used: {ptx}"
    );
    prove_as_expected(
        "cli/tests/llc/licences.rules",
        "2 rules: 0 proved, 2 counterexample",
        2,
    );
}

/// A call of a declared function is a free function of its arguments (docs/ambiguities.md
/// 178): LLVM's PTX for `calls.ll` is proved, returned value and arguments alike, and PTX
/// that passes other arguments or returns another call's result is a counterexample.
#[test]
fn calls_of_declared_functions_must_pass_the_same_arguments() {
    prove_as_expected(
        "cli/tests/llc/calls.rules",
        "8 rules: 5 proved, 3 counterexample",
        3,
    );
    let (_work, out, err) = validate_run_lines("cli/tests/llc/calls.ll", &[]);
    for func in ["test_call_flipped", "twice"] {
        assert_eq!(verdict(&out, func, "sm_80"), "proved", "{func}: {out}{err}");
    }
}

/// `extractelement`/`insertelement` at a variable lane: LLVM 22's load through a vector
/// parameter's address at a variable offset is proved, and a twin that scales the lane index
/// by 4 bytes is caught; the byte-vector insert is proved through `validate-llc`. The fp16
/// conversion intrinsics, read as casts, likewise.
#[test]
fn variable_lanes_and_fp16_conversions_are_read() {
    prove_as_expected(
        "cli/tests/llc/lanes.rules",
        "2 rules: 1 proved, 1 counterexample",
        1,
    );
    // And `llvm.convert.to.fp16`/`from.fp16`: `fptrunc`/`fpext` through an `i16`.
    prove_as_expected(
        "cli/tests/llc/fp16-conversions.rules",
        "3 rules: 2 proved, 1 counterexample",
        1,
    );
    let (_work, out, err) = validate_run_lines("cli/tests/llc/lanes.ll", &[]);
    for func in ["pick", "put8"] {
        assert_eq!(verdict(&out, func, "sm_80"), "proved", "{func}: {out}{err}");
    }
}

/// LangRef `contract` (docs/ambiguities.md 92): with the flag on the product and the sum, the
/// fused fma and the two roundings are both allowed; a fused subtraction that loses the
/// product's sign, and fusion the flags do not license, are counterexamples.
#[test]
fn contract_allows_the_fused_and_the_unfused_result_and_nothing_else() {
    // The fused sum's proof takes 1-4 s alone and over 10 s on two loaded cores.
    let (code, out, err) = semfuzz(&[
        "prove",
        "--no-cache",
        "--timeout",
        "60s",
        "cli/tests/llc/contract.rules",
    ]);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}{err}");
    assert!(
        out.contains("6 rules: 3 proved, 3 counterexample, 0 unknown; 0 differ"),
        "{out}"
    );
}

/// What LLVM 22 really writes for poison.ll: widening through `nsw` (`mul.wide.s32`) proved,
/// FuzzX NVPTX #002 a counterexample at x = 0xffff (not at a poison input), #003 (a guarded
/// 64-bit shift whose guard LLVM drops) a counterexample, at both targets.
#[test]
fn llc_widening_through_no_wrap_flags_is_proved() {
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/poison.ll",
        "--sm",
        "sm_70,sm_90",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 1, "a counterexample:\n{out}{err}");
    for sm in ["sm_70", "sm_90"] {
        for func in [
            "shl_nsw_sext",
            "mul_nsw_sext",
            "mul_sext",
            "select_poison_arm",
            "freeze_xor",
            "udiv_unused",
            "guarded_shl_i32",
            "noundef_argument",
            "unused_argument",
        ] {
            assert_eq!(
                verdict(&out, func, sm),
                "proved",
                "{func} {sm}:\n{out}{err}"
            );
        }
        assert_eq!(
            verdict(&out, "shl15_nsw_sext", sm),
            "counterexample",
            "{out}"
        );
        // FuzzX NVPTX #003: the shift's poison is on the arm the select never takes.
        assert_eq!(
            verdict(&out, "guarded_shl_i64", sm),
            "counterexample",
            "{out}"
        );
    }
    let guarded = out
        .split("guarded_shl_i64 sm_90: counterexample")
        .nth(1)
        .expect("#003's counterexample");
    assert!(
        guarded.contains("the IR allows 0x0; the PTX computes 0x"),
        "{guarded}"
    );
    assert_eq!(out.matches("    x = 0xffff\n").count(), 2, "{out}");
    assert!(
        out.contains("the IR allows 0xffff8000; the PTX computes 0x8000"),
        "{out}"
    );
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
        "select-i64-selp-swapped",
        "uaddo-carry-le",
    ] {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{rule}: ")))
            .unwrap_or_else(|| panic!("{rule} missing:\n{out}"));
        assert!(line.contains("counterexample"), "{line}");
    }
    assert_eq!(
        out.matches("confirmed by the evaluator").count(),
        7,
        "{out}"
    );
    assert!(
        out.contains("ftz-kept-under-preserve-sign: proved"),
        "{out}"
    );
    assert!(out.contains("min-selp-right: proved"), "{out}");
    assert!(out.contains("half-in-b32-low-bits: proved"), "{out}");
    assert!(out.contains("select-i64-selp-right: proved"), "{out}");
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
        out.contains("cas_weak sm_90: unsupported (`cmpxchg weak` at correct.ll:35:8)"),
        "{out}{err}"
    );
}

/// Integer IR (int.ll): select, pointers, the bit-manipulation, overflow and saturation
/// intrinsics, as llc compiles them, each proved at sm_70 and sm_90.
#[test]
fn integer_ir_is_proved_on_sm_70_and_sm_90() {
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/int.ll",
        "--sm",
        "sm_70,sm_90",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    for func in [
        "select_i32",
        "select_i64",
        "select_ptr",
        "ctpop_i32",
        "cttz_i32",
        "bswap_i32",
        "bswap_i64",
        "uaddo_i32",
        "smulo_i32",
        "sadd_sat_i32",
        "uadd_sat_i32",
        "usub_sat_i32",
        "sshl_sat_i32",
    ] {
        for sm in ["sm_70", "sm_90"] {
            assert_eq!(verdict(&out, func, sm), "proved", "{out}{err}");
        }
    }
    // With both arms parameters, LLVM 22 selects the parameters' addresses
    // (`mov.b64 %rd1, f_param_2`: the function is compiled as its minimal module, renamed
    // `@f`) and loads through the one selected (docs/ambiguities.md 113).
    for sm in ["sm_70", "sm_90"] {
        assert_eq!(verdict(&out, "select_params_i32", sm), "proved", "{out}");
    }
    assert!(
        out.contains("28 proved, 0 counterexample, 0 unknown, 0 unsupported"),
        "{out}"
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
    let run = |llc: &str| {
        semfuzz(&[
            "validate-llc",
            "--llc",
            llc,
            "--only",
            "fma_bf16",
            "--sm",
            "sm_70",
            "--work",
            work.path().to_str().expect("utf-8"),
            "--repro",
            repro.to_str().expect("utf-8"),
        ])
    };
    let (code, out, err) = run("llvmlite");
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
        report.contains("llc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_70 f.ll -o f.ptx"),
        "{report}"
    );
    assert!(report.contains("@llvm.fma.bf16"), "{report}");
    // The double rounding, recomputed with exact rationals (scripts/llc-confirm.py's).
    assert!(
        report.contains("by hand (`tv/src/independent.rs`): confirmed."),
        "{report}"
    );
    assert!(report.contains("the IR allows"), "{report}");
    let cex: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("counterexample.json")).expect("counterexample.json"),
    )
    .expect("JSON");
    assert_eq!(cex["inputs"].as_array().map(Vec::len), Some(3), "{cex}");
    // The PTX in the directory is what was validated: an f32 fma, then a rounding to bf16.
    let ptx = std::fs::read_to_string(dir.join("f.ptx")).expect("the PTX");
    assert!(ptx.contains("fma.rn.f32"), "{ptx}");
    assert!(dir.join("llc.sh").is_file());
    replay(&dir);
    // LLVM 19's `llc-19` rounds twice too: its reproducer is replayed with that binary.
    let (code, out, err) = run("llc-19");
    assert_eq!(code, 1, "a counterexample exits 1:\n{out}{err}");
    replay(&repro.join("fma_bf16-sm_70-llvm19"));
}

/// The PTX without the comment lines it opens with (the compiler's banner).
fn without_banner(ptx: &str) -> &str {
    let mut rest = ptx;
    while rest.starts_with("//") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
}

/// Runs a reproducer's printed command as a maintainer would, in a directory holding only its
/// `f.ll`, with the compiler it names (llvmlite's LLVM through semfuzz's own llvmlite driver,
/// which takes the same options), and compares the PTX with the PTX the directory holds.
fn replay(dir: &Path) {
    let cex: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("counterexample.json")).expect("counterexample.json"),
    )
    .expect("JSON");
    let sm = cex["target"].as_str().expect("a target");
    let command = cex["command"].as_str().expect("a command");
    assert_eq!(
        command,
        format!("llc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu={sm} f.ll -o f.ptx"),
        "{}",
        dir.display()
    );
    let report = std::fs::read_to_string(dir.join("REPORT.md")).expect("REPORT.md");
    assert!(
        report.contains(&format!("```sh\n{command}\n```")),
        "{report}"
    );
    assert!(
        report.contains("the PTX semfuzz judged, byte for byte"),
        "{report}"
    );
    let label = cex["llc"].as_str().expect("the compiler");
    let version = cex["llvm"].as_str().expect("the LLVM version");
    assert!(
        report.contains(&format!("With LLVM {version}'s `llc`")),
        "{report}"
    );
    let ll = std::fs::read_to_string(dir.join("f.ll")).expect("f.ll");
    let fresh = tempfile::tempdir().expect("temp dir");
    std::fs::write(fresh.path().join("f.ll"), &ll).expect("written");
    let ptx = if label.starts_with("llvmlite ") {
        let driver = std::fs::read_to_string(root().join("tv/src/llc.py")).expect("llc.py");
        let out = std::process::Command::new("python3")
            .env("PYTHONPATH", root().join(".deps/py"))
            .args(["-c", &driver])
            .current_dir(fresh.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                let jobs = serde_json::json!({ "jobs": [[sm, "f.ll", ll]] });
                child
                    .stdin
                    .take()
                    .expect("piped")
                    .write_all(jobs.to_string().as_bytes())?;
                child.wait_with_output()
            })
            .expect("python3 runs llvmlite");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let answer: serde_json::Value =
            serde_json::from_str(stdout.lines().nth(1).expect("an answer")).expect("JSON");
        assert!(answer["ptx"].is_string(), "{}: {answer}", dir.display());
        answer["ptx"].as_str().expect("PTX").to_string()
    } else {
        // `llc-19 (LLVM 19.1.7)`: the printed command with that llc.
        let llc = label.split(' ').next().expect("a name");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command.replacen("llc", llc, 1))
            .current_dir(fresh.path())
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "{}: {out:?}", dir.display());
        std::fs::read_to_string(fresh.path().join("f.ptx")).expect("f.ptx")
    };
    let judged = std::fs::read_to_string(dir.join("f.ptx")).expect("f.ptx");
    assert_eq!(
        without_banner(&ptx),
        without_banner(&judged),
        "{}",
        dir.display()
    );
    // A maintainer with LLVM 22 runs the printed command with a real `llc` binary, not through
    // llvmlite: Debian's llc-22 (which `cargo xtask setup` installs) writes the same
    // instructions, with the comments llvmlite leaves out.
    if label.starts_with("llvmlite ") && cex["llvm"].as_str().is_some_and(|v| v.starts_with("22."))
    {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command.replacen("llc", "llc-22", 1))
            .current_dir(fresh.path())
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "llc-22 on {}: {out:?}", dir.display());
        let real = std::fs::read_to_string(fresh.path().join("f.ptx")).expect("f.ptx");
        assert_eq!(
            instructions(&real),
            instructions(&judged),
            "llc-22 on {}",
            dir.display()
        );
    }
}

/// A PTX text's lines without comments and blank lines.
fn instructions(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// FuzzX #002 (issue 29): `shl nsw` then `sext`, which LLVM 22 at sm_90 compiles to one
/// `mul.wide.s16` by -32768 (wrong at x = 0xffff). The report carries the function alone,
/// renamed, without the module's unrelated declarations and attribute groups; the command a
/// maintainer runs, with the LLVM version; the inputs in hex and decimal; LangRef's sentences;
/// and the independent recomputation. Every LLVM's reproducer is replayed as printed.
#[test]
fn a_bug_report_carries_the_minimal_module_and_a_command_that_reproduces_it() {
    let work = tempfile::tempdir().expect("temp dir");
    let ll = work.path().join("fuzzx.ll");
    std::fs::write(
        &ll,
        r#"; ModuleID = 'fuzzx'
source_filename = "fuzzx"
target triple = "nvptx64-nvidia-cuda"

declare float @llvm.fma.f32(float, float, float) #1
declare double @llvm.sqrt.f64(double) #1
declare i32 @llvm.smax.i32(i32, i32) #1
declare half @llvm.minnum.f16(half, half) #1
declare i16 @llvm.abs.i16(i16, i1 immarg) #1
declare float @llvm.fabs.f32(float) #1
declare i64 @llvm.umin.i64(i64, i64) #1

define i32 @fuzzx_002(i16 %x) {
  %s = shl nsw i16 %x, 15
  %e = sext i16 %s to i32
  ret i32 %e
}

attributes #0 = { "denormal-fp-math"="preserve-sign,preserve-sign" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(none) }
"#,
    )
    .expect("written");
    let repro = work.path().join("repro");
    let (_, out, err) = semfuzz(&[
        "validate-llc",
        ll.to_str().expect("utf-8"),
        "--llc",
        "all",
        "--sm",
        "sm_90",
        "--work",
        work.path().to_str().expect("utf-8"),
        "--repro",
        repro.to_str().expect("utf-8"),
    ]);
    let dir = repro.join("fuzzx_002-sm_90-llvm22");
    let report = std::fs::read_to_string(dir.join("REPORT.md"))
        .unwrap_or_else(|e| panic!("{e}:\n{out}{err}"));
    assert!(
        report
            .contains("```sh\nllc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 f.ll -o f.ptx\n```"),
        "{report}"
    );
    assert!(report.contains("With LLVM 22."), "{report}");
    let module = report
        .split("```llvm\n")
        .nth(1)
        .and_then(|r| r.split("```").next())
        .expect("the module");
    assert_eq!(
        module,
        "target triple = \"nvptx64-nvidia-cuda\"\n\ndefine i32 @f(i16 %x) {\n  %s = shl nsw i16 %x, 15\n  %e = sext i16 %s to i32\n  ret i32 %e\n}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("f.ll")).expect("f.ll"),
        module
    );
    // The input in hex and in decimal.
    let row = report
        .lines()
        .find(|l| l.starts_with("| `%x` (i16) | `0x"))
        .unwrap_or_else(|| panic!("no row for %x:\n{report}"));
    let hex = row.split('`').nth(3).expect("the bits");
    let bits = u64::from_str_radix(hex.trim_start_matches("0x"), 16).expect("hex");
    assert!(row.contains(&format!("| {bits}")), "{row}");
    // The one input where the IR is defined (no poison) and the PTX differs.
    assert_eq!(bits, 0xffff, "{row}");
    assert!(
        report.contains(": confirmed. The IR returns 0xffff8000"),
        "recomputed independently:\n{report}"
    );
    assert!(
        report.contains("- `sext` (llvm-langref-int.md, 'sext .. to' Instruction):"),
        "{report}"
    );
    assert!(
        report.contains("performs a sign extension by copying the sign"),
        "{report}"
    );
    assert!(
        report.contains("  > If the `nsw` keyword is present, then the shift produces a poison"),
        "{report}"
    );
    assert!(
        report.contains("Recomputed outside semfuzz's spec evaluators, from LangRef's text"),
        "{report}"
    );
    let written: Vec<PathBuf> = std::fs::read_dir(&repro)
        .expect("reproducers")
        .map(|e| e.expect("an entry").path())
        .collect();
    for d in &written {
        replay(d);
    }
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
    // libNVVM, where setup installed it, comes last and knows no sm_70 (docs/nvvm.md).
    let nvvm = headers.iter().any(|h| h.starts_with("== nvvm (libNVVM "));
    if nvvm {
        assert!(
            headers.last().expect("headers").starts_with("== nvvm ("),
            "{out}"
        );
        assert!(out.contains("libNVVM 13.5 does not know sm_70"), "{out}");
    }
    for func in ["fadd_f32", "fadd_f16"] {
        assert_eq!(
            out.matches(&format!("{func} sm_70: proved")).count(),
            headers.len() - usize::from(nvvm),
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
    // Where setup installed Triton's wheel, the range ends at the trunk it bundles, which
    // still rounds twice (issue 30, class 1).
    let newest = if headers.iter().any(|h| h.starts_with("== triton (LLVM ")) {
        "still in 24.0.0git ("
    } else {
        "still in 22"
    };
    assert!(range.contains(newest), "{range}");
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
            "name: {func}\n  @{}:{func} d, a, b\n=>\n  @llc/llvmlite/vector.{func}-sm_90.ptx:f d, a, b\n\n",
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
/// computes (innocuous double rounding), so the proof is structural; likewise `sqrt bfloat`
/// and `fdiv bfloat`, whose rounding at sm_70 is LLVM's integer sequence.
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
            "fdiv_f16,sqrt_bf16,fdiv_bf16",
            "--sm",
            "sm_70,sm_90",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    // fdiv_bf16 at sm_70 is the f32 quotient rounded to bfloat with integers.
    for sm in ["sm_70", "sm_90"] {
        assert_eq!(verdict(&out, "fdiv_f16", sm), "proved", "{out}{err}");
        assert_eq!(verdict(&out, "sqrt_bf16", sm), "proved", "{out}{err}");
        assert_eq!(verdict(&out, "fdiv_bf16", sm), "proved", "{out}{err}");
    }
}

/// A module as `clang -g` writes it (debug records, DI metadata, comdat, an attribute group it
/// never defines, globals) validates function by function as its bare twin would: llc-22
/// compiles each function's minimal module (no debug information left for it to warn about),
/// the arithmetic is proved, as is a load of a module variable the function may write (its
/// contents any bytes: docs/ambiguities.md 184). `contract` is taken out of the fixture: the reader reads its licence (contract.rules), but
/// proving a fused half fma against it takes tens of seconds on loaded cores.
#[test]
fn a_debug_module_validates_function_by_function() {
    let work = tempfile::tempdir().expect("temp dir");
    let text = std::fs::read_to_string(root().join("llir/fixtures/debug-llvm22.ll"))
        .expect("fixture")
        .replace(" contract ", " ");
    std::fs::write(work.path().join("debug.ll"), text).expect("written");
    let (_, out, err) = semfuzz_in(
        work.path(),
        &[
            "validate-llc",
            "debug.ll",
            "--llc",
            "llc-22",
            "--sm",
            "sm_80",
        ],
    );
    for func in ["axpy_h", "fma_f", "uses_global"] {
        assert_eq!(verdict(&out, func, "sm_80"), "proved", "{out}{err}");
    }
    assert!(
        out.contains(
            "uses_global sm_80: proved (assuming module variables @scale (4 bytes) start with any contents"
        ),
        "{out}{err}"
    );
}

/// Control flow (issue 28, item 3): llc's PTX for a diamond with a phi, a switch, a counted
/// loop, a loop of `n` iterations and a call is proved against the IR; each hand-broken twin
/// (a branch's condition inverted, a guard dropped, a loop one iteration short, a counter
/// stepping by 2, a call's arguments swapped) is a confirmed counterexample.
#[test]
fn control_flow_is_proved_and_its_broken_twins_are_counterexamples() {
    prove_with(
        "cli/tests/llc/control.rules",
        &["--timeout", "120s"],
        "10 rules: 5 proved, 5 counterexample, 0 unknown; 0 differ",
        5,
    );
}

/// `validate-llc` on control.ll: a function with a loop is proved for the inputs on which
/// both sides run each loop at most the bound's times, and the verdict says so.
#[test]
fn a_proof_with_loops_says_the_bound() {
    let work = tempfile::tempdir().expect("temp dir");
    let run = |unroll: &str| {
        semfuzz(&[
            "validate-llc",
            "cli/tests/llc/control.ll",
            "--sm",
            "sm_80",
            "--timeout",
            "120s",
            "--unroll",
            unroll,
            "--work",
            work.path().to_str().expect("utf-8"),
        ])
    };
    let (code, out, err) = run("8");
    assert_eq!(code, 0, "{out}{err}");
    for func in ["diamond", "pick", "square_plus", "call_internal"] {
        assert_eq!(verdict(&out, func, "sm_80"), "proved", "{out}{err}");
    }
    for func in ["sum_n", "horner4"] {
        assert!(
            out.contains(&format!(
                "{func} sm_80: proved (loops unrolled to 8 iterations)"
            )),
            "{out}{err}"
        );
    }
    // Four iterations never fit in three: a proof would be over no input.
    let (_, out, err) = run("3");
    assert!(
        out.contains(
            "horner4 sm_80: unsupported (`@horner4` never returns within 3 iterations of each loop"
        ),
        "{out}{err}"
    );
    assert!(
        out.contains("sum_n sm_80: proved (loops unrolled to 3 iterations)"),
        "{out}{err}"
    );
}

/// LLVM's integer rounding of an f32 to bfloat, rewritten by its lemma (smt/src/lemma.rs,
/// `IntegerRounding`), decides `fdiv bfloat` at sm_50 with the double-rounding lemma; the twins
/// adding 0x8000 or dropping the NaN arm are caught; `fma bfloat` through f32 is a
/// counterexample on inputs built for double rounding, found by the evaluator before any solver.
#[test]
fn bfloat_rounded_with_integers_is_proved_by_lemma_and_its_twins_are_caught() {
    let (code, out, err) = semfuzz(&["prove", "--no-cache", "cli/tests/llc/bf16.rules"]);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}{err}");
    assert!(
        out.contains("4 rules: 1 proved, 3 counterexample, 0 unknown; 0 differ"),
        "{out}"
    );
    let fma = out
        .split("fma-bf16-through-f32: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}"));
    assert!(fma.starts_with("counterexample (0."), "{fma}");
    assert!(fma.contains("evaluator)"), "{fma}");
    assert!(fma.contains("    c = 0x0001 "), "{fma}");
}

/// Results, intrinsics and parameters as the PTX ABI passes them (docs/ambiguities.md
/// 110-113): LLVM 22's `i1`, `i8` and `<2 x i1>` returns, its `@llvm.fma.f16x2` and its load
/// through a selected parameter address are proved; the truth in the wrong bit, an `i8`
/// missing its top bit, swapped `<2 x i1>` lanes, swapped fma lanes and a select's arms
/// swapped are confirmed counterexamples; upper bits set above an `i8` change nothing.
#[test]
fn narrow_results_and_vector_intrinsics_are_compared_as_the_abi_passes_them() {
    let (code, out, err) = semfuzz(&[
        "prove",
        "--no-cache",
        "--timeout",
        "60s",
        "cli/tests/llc/shapes.rules",
    ]);
    assert_eq!(code, 0, "every verdict is the expected one:\n{out}{err}");
    assert!(
        out.contains("11 rules: 6 proved, 5 counterexample, 0 unknown; 0 differ"),
        "{out}"
    );
    assert_eq!(
        out.matches("confirmed by the evaluator").count(),
        5,
        "{out}"
    );
}

/// `validate-llc` on shapes.ll: what llvmlite's LLVM writes for each function is proved.
#[test]
fn validate_llc_proves_narrow_results_and_per_lane_intrinsics() {
    let work = tempfile::tempdir().expect("temp dir");
    let (code, out, err) = semfuzz(&[
        "validate-llc",
        "cli/tests/llc/shapes.ll",
        "--sm",
        "sm_80",
        "--timeout",
        "60s",
        "--work",
        work.path().to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    for func in ["less", "to_i8", "both_less", "fma_pair", "pick"] {
        assert_eq!(verdict(&out, func, "sm_80"), "proved", "{out}");
    }
}
