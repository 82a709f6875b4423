//! The command-line contract (DESIGN.md): list, eval, check, selfcheck, --spec-dir.

use assert_cmd::Command;
use std::io::Write;

fn semfuzz() -> Command {
    Command::cargo_bin("semfuzz").expect("binary built")
}

/// The headline of each line `check` reports and its closing line, without the location,
/// source line and hints that follow an `error:`.
fn headlines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            *l == "ok"
                || l.starts_with("mismatch: ")
                || l.starts_with("error: ")
                || l.ends_with(" failed")
        })
        .collect()
}

fn run(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = semfuzz();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn list_shows_signatures_and_requirements() {
    let (code, out, _) = run(&["list", "min.NaN"], None);
    assert_eq!(code, 0);
    assert!(out.contains("min.NaN.f32 d, a, b "), "{out}");
    assert!(out.contains("min.NaN.f32 d, a, b, c"), "{out}");
    assert!(out.contains("PTX ISA 7.0, sm_80"), "{out}");
    let (_, out, _) = run(&["list", "add.f32"], None);
    assert!(out.contains("may be fused"), "{out}");
}

#[test]
fn list_json_is_machine_readable() {
    let (code, out, _) = run(&["list", "--json"], None);
    assert_eq!(code, 0);
    let items: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let items = items.as_array().expect("array");
    assert!(items.len() > 200);
    let fma = items
        .iter()
        .find(|i| i["instr"] == "fma.rn.ftz.sat.f32")
        .expect("fma variant");
    assert_eq!(fma["sources"].as_array().map(Vec::len), Some(3));
    assert_eq!(fma["sm"], 20);
    assert_eq!(fma["ptx"], "2.0");
}

#[test]
fn eval_decodes_each_destination_lane() {
    let (code, out, _) = run(
        &[
            "eval",
            "add.rn.f32x2",
            "0x400000003f800000",
            "0x3f80000040000000",
        ],
        None,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("d[0] = 0x40400000 (3)"), "{out}");
    assert!(out.contains("d[1] = 0x40400000 (3)"), "{out}");
    let (_, out, _) = run(&["eval", "min.NaN.f32", "0x7fc00000", "0x3f800000"], None);
    assert!(
        out.contains("d = 0x7fffffff (qNaN payload 0x3fffff)"),
        "{out}"
    );
    let (_, out, _) = run(&["eval", "add.f32", "0x7fc00000", "0x3f800000"], None);
    assert!(out.contains("d = any NaN"), "{out}");
}

#[test]
fn eval_rejects_bad_input_with_a_message() {
    for (args, needle) in [
        (
            vec!["eval", "fma.f32", "0x0", "0x0", "0x0"],
            "lacks its required .rnd modifier",
        ),
        (
            vec!["eval", "add.f32", "0x1", "zz"],
            "`zz` is neither a hex bit pattern nor a decimal",
        ),
        (vec!["eval", "add.f32", "0x1"], "takes 2 (a, b)"),
        (
            vec!["eval", "add.f32", "0x1", "0x100000000"],
            "does not fit in 32 bits",
        ),
        (
            vec!["eval", "add.frob.f32", "0x1", "0x1"],
            "`.frob` is not a modifier of `add`",
        ),
        (
            vec!["eval", "add.sat.f64", "0x1", "0x1"],
            "`.sat` is not allowed",
        ),
    ] {
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn check_reports_per_line_and_exits_1_on_mismatch() {
    let input = "\
add.rn.f32 0x3f800000 0x33800000 0x3f800000  # tie to even
# a comment line

mul.ftz.f32 0x00800000 0xbf000000 0x80400000
add.rn.f32 0x3f800000
bogus.f32 0x1 0x2 0x3
add.rn.f32 0x3f800000 0x33800000 0x3f800001
add.f32 0x7fc00000 0x3f800000 0xffc00123
";
    let (code, out, _) = run(&["check", "-"], Some(input));
    assert_eq!(code, 1, "{out}");
    let lines = headlines(&out);
    assert_eq!(lines[0], "ok");
    assert!(
        lines[1].starts_with("mismatch: line 4:") && lines[1].contains("FTZ not applied"),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        "error: line 5: `add.rn.f32` takes 3 values (its operands, then the result d), but the line has 1"
    );
    assert!(
        out.contains(" --> <stdin>:6:1\n  |\n6 | bogus.f32 0x1 0x2 0x3\n  | ^^^^^^^^^\n"),
        "the location, the line and a caret: {out}"
    );
    assert!(
        lines[3].starts_with("error: line 6:") && lines[3].contains("unknown instruction"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("mismatch: line 7:") && lines[4].contains("off by 1 ulp up"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[5], "ok", "any NaN is accepted for add.f32");
    assert_eq!(lines.last(), Some(&"2 passed, 4 failed"));
}

/// `check --backend`: the backend computes each line's result, and every line comes back as a
/// line `check` reads, with the verdict; the host's `minss` order is a known difference
/// (backends/host/README.md), so one line must fail.
#[test]
fn check_on_a_backend_runs_each_case_and_prints_it_back() {
    let input = "\
min.f32 0x7fc00000 0x3f800000
min.f32 0x3f800000 0x7fc00000  # minss returns its second operand
add.rn.f32 1.5 2
add.rn.f32 0x3f800000 0x3f800000 0x40000000
HMUL2 R0, R1, R2; 0x3c003c00 0x3c003c00
";
    let (code, out, _) = run(&["check", "--backend", "host", "-"], Some(input));
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("# host: ") || l.starts_with("error: ") || l.ends_with(" failed"))
        .collect();
    assert_eq!(
        lines[0],
        "min.f32 0x7fc00000 0x3f800000 0x3f800000  # host: ok"
    );
    assert!(
        lines[1].starts_with("min.f32 0x3f800000 0x7fc00000 0x7fc00000  # host: mismatch:")
            && lines[1].contains("NaN where a number is required"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "add.rn.f32 1.5 2 0x40600000  # host: ok");
    assert_eq!(
        lines[3],
        "error: line 4: `add.rn.f32` takes 2 values (its operands: the backend computes the result), but the line has 3"
    );
    assert!(
        lines[4].starts_with("error: line 5: host cannot run `HMUL2`"),
        "{}",
        lines[4]
    );
    assert_eq!(lines.last(), Some(&"2 passed, 3 failed"));
    // What it printed is a check file: the same verdicts without the backend.
    let printed: String = out
        .lines()
        .filter(|l| l.contains("# host:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (code, again, _) = run(&["check", "-"], Some(&printed));
    assert_eq!(code, 1, "{again}");
    assert_eq!(headlines(&again).last(), Some(&"2 passed, 1 failed"));
    let (code, _, err) = run(&["check", "--backend", "nosuch", "-"], Some(""));
    assert_eq!(code, 2);
    assert!(err.contains("there is no backend `nosuch`"), "{err}");
}

#[test]
fn check_reads_a_file_and_exits_0_when_all_pass() {
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    writeln!(
        f,
        "min.f32 0x00000000 0x80000000 0x80000000\nmax.f32 0x00000000 0x80000000 0x00000000"
    )
    .expect("write");
    let path = f.path().to_str().expect("utf-8 path").to_string();
    let (code, out, _) = run(&["check", &path], None);
    assert_eq!(code, 0, "{out}");
    assert!(out.ends_with("2 passed, 0 failed\n"), "{out}");
    let (code, _, err) = run(&["check", "/nonexistent/file"], None);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read /nonexistent/file"), "{err}");
}

#[test]
fn spec_dir_loads_user_specs_and_reports_errors_with_location() {
    let dir = tempfile::tempdir().expect("temp dir");
    let prelude = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/isa/prelude.sem"
    ))
    .expect("prelude");
    std::fs::write(dir.path().join("prelude.sem"), prelude).expect("write");
    std::fs::write(
        dir.path().join("mine.sem"),
        "// a user's instruction\ninstr twice {\n  form \"twice.f32 d, a\";\n  sem { d = add(a, a, .rn); d = is_nan(d) ? any_nan(d) : d; }\n}\n",
    )
    .expect("write");
    let d = dir.path().to_str().expect("utf-8").to_string();
    let (code, out, err) = run(&["--spec-dir", &d, "eval", "twice.f32", "0x3f800000"], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("d = 0x40000000 (2)"), "{out}");
    std::fs::write(
        dir.path().join("mine.sem"),
        "instr twice {\n  form \"twice.f32 d, a\";\n  sem { d = a + a; }\n}\n",
    )
    .expect("write");
    let (code, _, err) = run(&["--spec-dir", &d, "list"], None);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("error: floating-point `+` needs a rounding mode\n --> ")
            && err.contains("mine.sem:3:13\n"),
        "{err}"
    );
    assert!(err.contains("^^^^^"), "{err}");
}

#[test]
fn selfcheck_agrees_and_reports_the_z3_version() {
    let (code, out, _) = run(&["selfcheck", "div.rz", "--cases", "16"], None);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("libz3 5."), "{out}");
    assert!(out.contains("3 variants agree, 0 disagree"), "{out}");
    assert!(out.contains("accept sets by the jit"), "{out}");
    let (code, out, _) = run(
        &[
            "selfcheck",
            "div.rz.f32",
            "--cases",
            "8",
            "--evaluator",
            "interp",
        ],
        None,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("accept sets by the interpreter"), "{out}");
    let (code, _, err) = run(&["selfcheck", "nothing-matches"], None);
    assert_eq!(code, 2);
    assert!(err.contains("no variant matches"), "{err}");
}

#[test]
fn coverage_maps_excerpt_lines_to_variants() {
    let (code, out, err) = run(&["list", "--coverage", "--json"], None);
    assert!(code == 0 || code == 1, "{err}");
    let items: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let items = items.as_array().expect("array");
    let add = items
        .iter()
        .find(|i| i["syntax"] == "add{.rnd}{.ftz}{.sat}.f32  d, a, b")
        .expect("add.f32 line");
    assert_eq!(add["status"], "covered");
    assert_eq!(add["detail"].as_array().map(Vec::len), Some(20));
    let mad = items
        .iter()
        .find(|i| i["syntax"] == "mad{.ftz}{.sat}.f32      d, a, b, c")
        .expect("legacy mad line");
    assert_eq!(mad["status"], "refused");
    let uncovered = items.iter().filter(|i| i["status"] == "uncovered").count();
    assert_eq!(
        code,
        i32::from(uncovered > 0),
        "exit status says whether any line is uncovered"
    );
    let (code, _, err) = run(&["list", "--coverage", "--isa-docs", "/nonexistent"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--isa-docs"), "{err}");
}

/// 9.7.7.1 `set`: the `{!}c` predicate is written `!0x1` in `eval` and `check`.
#[test]
fn negated_predicate_operands_in_eval_and_check() {
    let (code, out, _) = run(
        &["eval", "set.lt.and.f16.f16", "0x3c00", "0x4000", "!0x1"],
        None,
    );
    assert_eq!(code, 0);
    assert!(out.contains("set.lt.and.f16.f16 d, a, b, {!}c"), "{out}");
    assert!(out.contains("d = 0x0000 (0)"), "{out}");
    let lines = "set.lt.and.f16.f16 0x3c00 0x4000 !0x0 0x3c00\n\
                 set.lt.and.u32.f16 0x3c00 0x4000 0x1 0xffffffff\n\
                 set.lt.and.f16.f16 0x3c00 0x4000 !0x0 0x0000\n";
    let (code, out, _) = run(&["check", "-"], Some(lines));
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("mismatch: line 3"), "{out}");
    assert!(out.contains("2 passed, 1 failed"), "{out}");
    // Only `{!}` operands take `!`.
    let (code, _, err) = run(&["eval", "set.lt.f16.f16", "!0x3c00", "0x4000"], None);
    assert_ne!(code, 0);
    assert!(err.contains("cannot be negated"), "{err}");
}

#[test]
fn eval_takes_sass_text_and_the_values_it_reads() {
    // The manual's first example: R3 = [H1 1.0, H0 2.0]; .H0_H1 swaps; the fp10 immediates
    // 0xad1c and 0xffff keep their top 10 bits (-0.078125 and a NaN).
    let (code, out, err) = run(
        &[
            "eval",
            "HMUL2 R7, -|R3|.H0_H1, 0xad1c, 0xffff;",
            "0x3c004000",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("R3 = "), "{out}");
    assert!(out.contains("Rd[0] = any NaN"), "{out}");
    assert!(out.contains("Rd[1] = 0x3100 (0.15625)"), "{out}");
    // A constant is a value too; MRG reads the old Rd after the sources.
    let (code, out, _) = run(
        &[
            "eval",
            "HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;",
            "0xbc003800",
            "0x3f000000",
        ],
        None,
    );
    assert_eq!(code, 0);
    assert!(out.contains("c[6][60672] = 0x3f000000 (0.5)"), "{out}");
    let (_, out, _) = run(
        &[
            "eval",
            "HMUL2.MRG_H0 R1, R2, R3;",
            "0x3c003c00",
            "0x40004000",
            "0x12345678",
        ],
        None,
    );
    assert!(
        out.contains("R1 (old) = ") && out.contains("Rd[1] = 0x1234"),
        "{out}"
    );
    // HMUL2_32I with RZ and immediates reads nothing.
    let (code, out, _) = run(
        &["eval", "HMUL2_32I R2, RZ.F32, 0xffff, {-|0x8ef7|};"],
        None,
    );
    assert_eq!(code, 0);
    assert!(out.contains("Rd[0] = 0x8000 (-0)"), "{out}");
    // Errors point into the text, and the count of values is checked.
    let (code, _, err) = run(&["eval", "HMUL2 R0, R1, 0x3c00, 0xbc00;", "0x0"], None);
    assert_eq!(code, 2);
    assert!(
        err.contains("Sign of both immediates must be same") && err.contains('^'),
        "{err}"
    );
    let (code, _, err) = run(&["eval", "HMUL2 R0, R1, R2;", "0x0"], None);
    assert_eq!(code, 2);
    assert!(err.contains("reads R1, R2: give 2 values"), "{err}");
}

#[test]
fn check_takes_sass_lines() {
    let lines = "\
# INSTRUCTION; VALUES... RESULT
HMUL2.FMZ R0, R1, R2; 0x7c000000 0x00003c00 0x00000000
HMUL2.F32 R0, R1, R2; 0x00003e00 0x00003c00 0x3fc00000
HMUL2 R0, R1, R2; 0x00003e00 0x00003c00 0x00003e00
HMUL2.MRG_H1 R0, R1, R2; 0x40000000 0x40000000 0xdead1234 0x44001234
HMUL2 R0, R1, R2; 0x00007c00 0x00000000 0x00007fff
HMUL2.FTZ R0, R1, R2; 0x00000400 0x00003800 0x00000200
HMUL2 R0, R1, R2 0x0 0x0 0x0
";
    let (code, out, _) = run(&["check", "-"], Some(lines));
    assert_eq!(code, 1, "{out}");
    let got = headlines(&out);
    assert_eq!(got[..5], ["ok", "ok", "ok", "ok", "ok"], "{out}");
    assert!(
        got[5].starts_with("mismatch: line 7:") && got[5].contains("FTZ not applied"),
        "{out}"
    );
    assert!(
        got[6].starts_with("error: line 8:") && got[6].contains("ends with `;`"),
        "{out}"
    );
    assert_eq!(got[7], "5 passed, 2 failed");
}

#[test]
fn list_shows_sass_forms_and_coverage() {
    let (code, out, err) = run(&["list", "HMUL2_32I"], None);
    assert_eq!(code, 0);
    assert!(
        out.contains("HMUL2_32I.FMZ Rd, Ra{.iswz}, {{-}{|}#Immfp16H1{|}}, {{-}{|}#Immfp16H0{|}}"),
        "{out}"
    );
    assert!(out.contains("Ra.iswz:b3") && out.contains("sm_53"), "{out}");
    assert!(err.contains("6 variants"), "{err}");
    let (_, out, _) = run(&["list", "--coverage"], None);
    let hmul: Vec<&str> = out.lines().filter(|l| l.contains("HMUL2")).collect();
    assert_eq!(hmul.len(), 4, "{out}");
    assert!(
        hmul.iter().all(|l| l.contains("variants (evaluator + Z3)")),
        "{hmul:?}"
    );
}

/// Output into a pipe that closes early (`semfuzz eval ... | head -1`) ends quietly: no panic
/// message, exit status 0, for every command that prints.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::process::{Command as Std, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("semfuzz");
    for args in [
        &["eval", "add.rn.f16x2", "0x3c004000", "0x40003c00"][..],
        &["list"][..],
    ] {
        let mut child = Std::new(&bin)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs");
        // Close the reading end before the program writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("exits");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// A register read with `.F32` is shown as the f32 it is converted from, not as two fp16.
#[test]
fn sass_f32_swizzle_shows_the_register_as_f32() {
    let (code, out, err) = run(
        &[
            "eval",
            "HMUL2.F16_V2.FMZ.SAT R1, -|R4|.F32, -|RZ|.H0_H0;",
            "0x7f800000",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("R4 = 0x7f800000 (inf)"), "{out}");
}

/// `--isa-docs DIR` reads the excerpt from DIR instead of the built-in copy: a directory with
/// one uncovered syntax line makes `list --coverage` say so and exit 1.
#[test]
fn coverage_reads_an_excerpt_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("extra.md"),
        "#### 9.9.9. Frobnicate\n\nSyntax\n\n```\nfrob.rn.f32 d, a;\nadd{.rnd}.f64 d, a, b;\n```\n",
    )
    .expect("written");
    let path = dir.path().to_string_lossy().into_owned();
    let (code, out, err) = run(&["list", "--coverage", "--isa-docs", &path], None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("frob.rn.f32 d, a") && out.contains("UNCOVERED"),
        "{out}"
    );
    assert!(
        out.contains("5 variants (evaluator + Z3): add.f64"),
        "{out}"
    );
    assert!(err.contains(&format!("2 syntax lines in {path}")), "{err}");
    let (code, _, err) = run(&["list", "--coverage", "--isa-docs", "/nonexistent"], None);
    assert_eq!(code, 2);
    assert!(err.contains("leave out --isa-docs"), "{err}");
}

/// Issue 12: one pattern language, the same selection and the same "no match" error in
/// every command that takes patterns.
#[test]
fn list_and_selfcheck_share_one_pattern_language() {
    let (code, out, err) = run(&["list", "div.r[nz].f{32,64}"], None);
    assert_eq!(code, 0, "{err}");
    let listed: Vec<&str> = out.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(
        listed,
        ["div.rn.f32", "div.rz.f32", "div.rn.f64", "div.rz.f64"]
    );
    assert_eq!(err, "4 variants\n");
    let (code, out, err) = run(&["selfcheck", "div.r[nz].f{32,64}", "--cases", "2"], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("4 variants x 2 inputs"), "{out}");
    // Substring without glob characters; several patterns are a union.
    let (_, out, _) = run(&["list", "add.rn.ftz.f32", "add.rn.ftz.sat"], None);
    let listed: Vec<&str> = out.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(
        listed,
        [
            "add.rn.ftz.f32",
            "add.rn.ftz.sat.f32",
            "add.rn.ftz.f32x2",
            "add.rn.ftz.sat.f16",
            "add.rn.ftz.sat.f16x2"
        ]
    );

    let (list_code, list_out, list_err) = run(&["list", "add.*f33"], None);
    let (self_code, _, self_err) = run(&["selfcheck", "add.*f33"], None);
    assert_eq!((list_code, self_code), (2, 2));
    assert_eq!(list_out, "", "no table for no match");
    assert_eq!(list_err, self_err, "the same message in every command");
    assert!(
        list_err.starts_with("error: no variant matches `add.*f33`\nhint: did you mean"),
        "{list_err}"
    );
    assert!(list_err.contains("shell glob"), "{list_err}");
    let (_, help, _) = run(&["list", "--help"], None);
    assert!(
        help.contains("shell glob over the whole variant name"),
        "{help}"
    );
}

/// Issue 12: a line with a value too few says what it saw.
#[test]
fn check_says_what_it_saw_and_quiet_prints_only_failures() {
    let input = "add.rn.f32 0x3f800000 0x33800000\nadd.rn.f32 0x3f800000 0x33800000 0x3f800000\n\
                 add.rn.f32 0x3f800000 0x33800000 0x3f800000 0x1\n";
    let (code, out, _) = run(&["check", "-"], Some(input));
    assert_eq!(code, 1);
    assert!(out.contains("error: line 1: `add.rn.f32` takes 3 values (its operands, then the result d), but the line has 2\n"), "{out}");
    assert!(out.contains("hint: the last value is the result: write `add.rn.f32 a b d` for `add.rn.f32 d, a, b`\n"), "{out}");
    assert!(out.contains("error: line 3: `add.rn.f32` takes 3 values (its operands, then the result d), but the line has 4\n"), "{out}");
    assert_eq!(headlines(&out)[1], "ok");
    let (_, sass, _) = run(&["check", "-"], Some("HMUL2 R0, R1, R2; 0x0 0x0\n"));
    assert!(sass.starts_with("error: line 1: `HMUL2 R0, R1, R2;` reads R1, R2, so the line takes 3 values after the `;` (those, then the result), but it has 2\n"), "{sass}");
    assert!(
        sass.contains("hint: the last value is the result"),
        "{sass}"
    );
    let (code, quiet, _) = run(&["check", "--quiet", "-"], Some(input));
    assert_eq!(code, 1);
    assert!(!quiet.lines().any(|l| l == "ok"), "{quiet}");
    assert_eq!(quiet, out.replacen("ok\n", "", 1));
    assert!(quiet.ends_with("1 passed, 2 failed\n"), "{quiet}");
}

/// Issue 12: decimals exact in a scalar float operand's format, in `eval` and `check` alike.
#[test]
fn decimal_operands_when_exact() {
    let (code, out, err) = run(&["eval", "add.rn.f32", "1.5", "-0"], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("a = 0x3fc00000 (1.5)\n  b = 0x80000000 (-0)\n  d = 0x3fc00000 (1.5)"),
        "{out}"
    );
    let (code, _, err) = run(&["eval", "add.rn.f16", "6.1e-5", "1"], None);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "error: operand a of add.rn.f16: `6.1e-5` is not exact in f16: it lies between \
         0x03ff (6.097555160522461e-5, subnormal) and 0x0400 (6.103515625e-5)\n\
         hint: write the value you mean in hex, e.g. one of these two\n"
    );
    // Packed operands stay hex.
    let (code, _, err) = run(&["eval", "add.rn.f32x2", "1.5", "0x0"], None);
    assert_eq!(code, 2);
    assert!(err.contains("`1.5` is not a hex bit pattern"), "{err}");
    let (code, out, _) = run(
        &["check", "-"],
        Some("mul.rn.f64 inf 0 0x7ff8000000000000\nmax.f32 nan -inf 0xff800000\nadd.rn.f32 0.1 1 0x3f800000\n"),
    );
    assert_eq!(code, 1, "{out}");
    let lines = headlines(&out);
    assert_eq!(lines[..2], ["ok", "ok"], "{out}");
    assert!(
        lines[2].starts_with("error: line 3: operand a: `0.1` is not exact in f32"),
        "{out}"
    );
}

/// Issue 12: scripts/demo.sh writes bold headings to a terminal only, and not under NO_COLOR.
/// `script` (util-linux) gives it a terminal; SEMFUZZ=true stands in for the binary.
#[test]
fn demo_colours_only_a_terminal_without_no_color() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/demo.sh");
    let run_demo = |tty: bool, no_color: bool| {
        let line = format!(
            "{}SEMFUZZ=true bash {demo}",
            if no_color { "NO_COLOR=1 " } else { "" }
        );
        let out = if tty {
            std::process::Command::new("script")
                .args(["-qec", &line, "/dev/null"])
                .output()
        } else {
            std::process::Command::new("bash")
                .args(["-c", &line])
                .output()
        }
        .expect("bash and script (util-linux) run");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(text.contains("== The catalogue"), "{text}");
        text.contains("\x1b[1m== The catalogue")
    };
    assert!(run_demo(true, false), "bold on a terminal");
    assert!(!run_demo(true, true), "NO_COLOR");
    assert!(!run_demo(false, false), "a pipe gets no escape codes");
}

/// `witnesses` prints `check` lines without the result; with the outcome it names appended,
/// `check` passes each of them.
#[test]
fn witnesses_are_check_lines_with_their_outcome() {
    // A glob names the whole text: min.NaN.f32, not the warp collective redux.sync.min.NaN.f32.
    let (code, out, err) = run(&["witnesses", "min.NaN.f3[2]", "--timeout", "1000"], None);
    assert_eq!(code, 0, "{err}");
    let mut lines = String::new();
    for line in out.lines().filter(|l| !l.starts_with('#')) {
        let (inputs, rest) = line.split_once("  # ").expect("a reason after the inputs");
        let result = rest.split("=> d = ").nth(1).expect("the outcome");
        let result = result.split_whitespace().next().expect("its bits");
        lines += &format!("{inputs} {result}\n");
    }
    // Both forms (two and three sources), each select both ways.
    assert_eq!(lines.lines().count(), 8 + 14, "{out}");
    let (code, checked, _) = run(&["check", "-"], Some(&lines));
    assert_eq!(code, 0, "{checked}");
    assert!(checked.ends_with("22 passed, 0 failed\n"), "{checked}");
    // The substring also names the warp collective, which is skipped, saying so.
    let (code, out, err) = run(&["witnesses", "min.NaN.f32", "--timeout", "1000"], None);
    assert_eq!(code, 0, "{err}");
    let skipped = out
        .lines()
        .find(|l| l.starts_with("# redux.sync.min.NaN.f32"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(skipped.contains("skipped: a warp collective"), "{skipped}");
    let (code, _, err) = run(&["witnesses", "nosuch.f32"], None);
    assert_eq!(code, 2);
    assert!(err.contains("no variant matches `nosuch.f32`"), "{err}");
}

/// `fuzz --generator witness` feeds the witnesses to the backend: the spec's own evaluator
/// accepts every one.
#[test]
fn fuzz_runs_the_witness_generator() {
    let args = [
        "fuzz",
        "--backend",
        "spec",
        "--instr",
        "min.NaN.f3[2]",
        "--generator",
        "witness",
        "--cases",
        "22",
    ];
    let (code, out, err) = run(&args, None);
    assert_eq!(code, 0, "{err}");
    let all = out + &err;
    assert!(all.contains("2 variants, 44 cases"), "{all}");
    assert!(all.contains("0 findings"), "{all}");
}

/// `eval-ptx` and `check-ptx` run compiled by default and interpreted on request, with the
/// same results, and say which ran; a result only another NaN choice gives still goes to Z3.
#[test]
fn ptx_commands_give_the_same_answers_with_either_evaluator() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ptx/fixtures/llvm22-sm_70.ptx"
    );
    let mut answers = Vec::new();
    for evaluator in ["jit", "interp"] {
        let mut evals = String::new();
        for args in [
            ["0x3f80", "0x4000"],
            ["0x7fa0", "0x3f80"],
            ["0xff80", "0x7f80"],
        ] {
            let mut argv = vec!["eval-ptx", fixture, "--func", "fadd_bf16"];
            argv.extend(["--evaluator", evaluator]);
            argv.extend(args);
            let (code, out, err) = run(&argv, None);
            assert_eq!(code, 0, "{err}");
            let tag = format!("; {evaluator} evaluator)");
            assert!(
                out.lines().next().is_some_and(|l| l.ends_with(&tag)),
                "{out}"
            );
            evals.push_str(&out.replace(&tag, ")"));
        }
        assert!(
            evals.contains("note: the results above follow the default choice"),
            "{evals}"
        );
        // The bf16 sum, a NaN another choice reaches (Z3), a NaN none reaches, a wrong sum.
        let lines = "0x3f80 0x4000 0x4040\n0x7fa0 0x3f80 0x7fe1\n0x7fa0 0x3f80 0x3f80\n\
                     0x3f80 0x4000 0x4041\n";
        let (code, out, err) = run(
            &[
                "check-ptx",
                fixture,
                "--func",
                "fadd_bf16",
                "--evaluator",
                evaluator,
            ],
            Some(lines),
        );
        assert_eq!(code, 1, "{out}{err}");
        let closing = format!("2 passed, 2 failed ({evaluator} evaluator)");
        assert!(out.ends_with(&format!("{closing}\n")), "{out}");
        assert!(
            out.contains("no other choice the ISA leaves open gives it (Z3)"),
            "{out}"
        );
        answers.push((evals, out.replace(&closing, "")));
    }
    assert_eq!(answers[0], answers[1]);
}

/// `check-ptx` splits many lines among workers, one per core, and still prints each
/// line's verdict in the file's order, with its own line number.
#[test]
fn check_ptx_judges_many_lines_in_order() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../ptx/fixtures/llvm22-sm_70.ptx"
    );
    // bf16: 1 + 2 = 3 (0x4040); every third line claims 0x4041.
    let lines: String = (1..=300)
        .map(|n| {
            format!(
                "0x3f80 0x4000 {}\n",
                if n % 3 == 0 { "0x4041" } else { "0x4040" }
            )
        })
        .collect();
    let (code, out, err) = run(&["check-ptx", fixture, "--func", "fadd_bf16"], Some(&lines));
    assert_eq!(code, 1, "{out}{err}");
    let heads = headlines(&out);
    for n in 1..=300 {
        let head = &heads[n - 1];
        if n % 3 == 0 {
            assert!(
                head.starts_with(&format!("mismatch: line {n}: ")),
                "{n}: {head}"
            );
        } else {
            assert_eq!(*head, "ok", "line {n}");
        }
    }
    assert!(
        out.ends_with("200 passed, 100 failed (jit evaluator)\n"),
        "{out}"
    );
}

/// PTX 9.7.3: "`mul`/`sub` sequences with no rounding modifiers may be optimized to use
/// fused-multiply-add": a function that writes them allows the unfused and the fused result
/// (ptxas fuses them; an H200 ran libNVVM's `frem` so: docs/gpu.md), and nothing else; with
/// `mul.rn` the fused result is refused.
#[test]
fn check_ptx_allows_the_fusion_of_a_mul_and_sub_without_rounding_modifiers() {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ptx/fusable-mul-sub.ptx");
    // (1 + 2^-12)^2 - 1: 2^-11 rounded twice (0x3a000000), 2^-11 + 2^-24 fused (0x3a000400).
    let lines = "0x3f800800 0x3f800800 0x3f800000 0x3a000000\n\
                 0x3f800800 0x3f800800 0x3f800000 0x3a000400\n\
                 0x3f800800 0x3f800800 0x3f800000 0x3a000800\n";
    let (code, out, err) = run(&["check-ptx", fixture, "--func", "f", "-"], Some(lines));
    assert_eq!(code, 1, "{out}{err}");
    let heads = headlines(&out);
    assert_eq!(heads[0], "ok");
    assert_eq!(heads[1], "ok", "the fused result: {out}");
    assert!(heads[2].starts_with("mismatch: line 3:"), "{out}");
    let (_, eval, _) = run(
        &[
            "eval-ptx",
            fixture,
            "0x3f800800",
            "0x3f800800",
            "0x3f800000",
        ],
        None,
    );
    assert!(
        eval.contains("whether `sub.f32` is fused with the `mul` it reads"),
        "{eval}"
    );
    let text = std::fs::read_to_string(fixture)
        .unwrap()
        .replace("mul.f32", "mul.rn.f32");
    let rounded = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(rounded.path(), text).unwrap();
    let path = rounded.path().to_str().unwrap();
    let (code, out, _) = run(&["check-ptx", path, "--func", "f", "-"], Some(lines));
    assert_eq!(code, 1);
    let heads = headlines(&out);
    assert_eq!(heads[0], "ok");
    assert!(
        heads[1].starts_with("mismatch: line 2:"),
        "mul.rn does not fuse: {out}"
    );
}

/// `rsqrt.approx.f32` has a bound the evaluator states and Z3's formulas do not (a free
/// function there): a result only another pick could give is undecided, never "ok" because Z3
/// picked the free function so. Before, any value passed: the function below "returned"
/// 0x12345678 for rsqrt(4).
#[test]
fn check_ptx_does_not_take_a_free_function_as_a_witness() {
    let ptx = ".version 7.0\n.target sm_70\n.address_size 64\n\
               .visible .func (.param .b32 r) f(.param .b32 a)\n{\n\
               .reg .b32 %r<4>;\n\
               ld.param.b32 %r1, [a];\n\
               rsqrt.approx.f32 %r2, %r1;\n\
               neg.f32 %r3, %r2;\n\
               st.param.b32 [r], %r3;\n\
               ret;\n}\n";
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), ptx).unwrap();
    let path = file.path().to_str().unwrap();
    // rsqrt(4) = 0.5 exactly, negated; then two values far outside any pick's bound.
    let lines = "0x40800000 0xbf000000\n0x40800000 0x12345678\n0x40800000 0xbf100000\n";
    let (code, out, err) = run(&["check-ptx", path, "-"], Some(lines));
    assert_eq!(code, 1, "{out}{err}");
    let heads = headlines(&out);
    assert_eq!(heads[0], "ok", "{out}");
    for h in &heads[1..3] {
        assert!(h.starts_with("mismatch:"), "{out}");
        assert!(h.contains("has no bound Z3 can state"), "{out}");
    }
}

/// The same free function on the source side of `prove`: a solver model that picked the
/// source's `rsqrt.approx` value (at +inf, 0 against the target's 0) was printed as a
/// counterexample with a "BUG" line, then `unknown` saying why. The approximation is now
/// constrained only at the inputs that read it (not at +inf, whose result the table gives),
/// so the instruction against itself is proved; a real difference from such a source is
/// still a counterexample the evaluator confirms.
#[test]
fn prove_does_not_take_the_sources_free_function_as_a_witness() {
    let dir = tempfile::tempdir().unwrap();
    let ptx = ".version 7.0\n.target sm_80\n.address_size 64\n\
               .visible .func (.param .b32 r) f(.param .b32 a)\n{\n\
               .reg .b32 %f<3>;\n\
               ld.param.b32 %f1, [a];\n\
               rsqrt.approx.ftz.f32 %f2, %f1;\n\
               st.param.b32 [r], %f2;\n\
               ret;\n}\n";
    std::fs::write(dir.path().join("f.ptx"), ptx).unwrap();
    let rules = "name: the-function-is-its-instruction\n  @f.ptx:f d, a\n=>\n  rsqrt.approx.ftz.f32 d, a\n\n\
                 name: negated\nexpect: counterexample\n  @f.ptx:f d, a\n=>\n  neg.f32 d, a\n";
    let file = dir.path().join("r.rules");
    std::fs::write(&file, rules).unwrap();
    let (_, out, err) = run(&["prove", "--no-cache", file.to_str().unwrap()], None);
    let first = out
        .split("the-function-is-its-instruction: ")
        .nth(1)
        .unwrap_or_else(|| panic!("{out}{err}"));
    assert!(first.starts_with("proved"), "{out}{err}");
    assert!(!err.contains("BUG"), "{err}");
    assert!(out.contains("negated: counterexample"), "{out}");
    assert!(out.contains("confirmed by the evaluator"), "{out}");
}

/// `backends --coverage` says, per backend, what it maps: the spec backend runs every
/// variant; LLVM maps the two-input `min.f32` to `llvm.minnum` and names why the three-input
/// form has no counterpart, one line per operand form.
#[test]
fn backends_coverage_lists_what_each_backend_maps() {
    // A glob names the whole variant: add.rn.f32 alone, not add.rn.f32x2 or add.rn.f32.f16.
    let (code, out, err) = run(
        &[
            "backends",
            "--coverage",
            "--backend",
            "spec",
            "add.rn.f3[2]",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("spec  add.rn.f32 d, a, b  runs"), "{out}");
    assert!(out.contains("runs 1 of 1 variants"), "{out}");
    let (code, out, err) = run(
        &["backends", "--coverage", "--backend", "llvm", "min.f32"],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("llvm  min.f32 d, a, b  runs"), "{out}");
    assert!(
        out.contains("llvm  min.f32 d, a, b, c  this operand form has no LLVM counterpart"),
        "{out}"
    );
    let (code, out, err) = run(&["backends", "--coverage", "fma.rn.f32"], None);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("z3 (Z3"), "{out}");
    let (code, _, err) = run(&["backends", "--coverage", "--backend", "nosuch"], None);
    assert_ne!(code, 0);
    assert!(err.contains("nosuch"), "{err}");
}
