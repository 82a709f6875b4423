//! `semfuzz repro`: a finding from a file or standard input becomes a PTX kernel and a CUDA
//! host program (the cuda crate's tests assemble and compile them).

use assert_cmd::Command;

fn finding(variant: &str, inputs: &[&str], actual: &str) -> String {
    serde_json::json!({
        "variant": variant, "backend": "cuda:0", "backend_version": "driver 13.0, PTX JIT",
        "device": "NVIDIA H100 (sm_90)", "class": "ulp-up-1", "part": "d",
        "signature": "0123456789abcdef", "operand_classes": ["+normal", "+normal"],
        "inputs": inputs, "expected": "1.0 (0x3f800000)", "actual": actual,
        "detail": "d: 1.0000001 (0x3f800001), ulp-up-1", "count": 3,
        "first_seen": "2026-11-23T17:00:00Z", "last_seen": "2026-11-23T17:00:01Z"
    })
    .to_string()
}

#[test]
fn the_nth_finding_of_a_file_becomes_a_kernel_and_a_host_program() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("findings.jsonl");
    let lines = [
        finding("add.rn.f32", &["0x3f800000", "0x00000001"], "0x3f800001"),
        finding(
            "fma.rn.f32",
            &["0x3f800000", "0x3f800000", "0x00000000"],
            "0x3f800001",
        ),
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("r");
    let assert = Command::cargo_bin("semfuzz")
        .unwrap()
        .arg("repro")
        .arg(&file)
        .arg("2")
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        stdout.contains("spec:  semfuzz eval fma.rn.f32 0x3f800000 0x3f800000 0x00000000"),
        "{stdout}"
    );
    let ptx = std::fs::read_to_string(out.join("kernel.ptx")).unwrap();
    assert!(ptx.contains("\tfma.rn.f32 %d0, %s0, %s1, %s2;"), "{ptx}");
    let host = std::fs::read_to_string(out.join("repro.cpp")).unwrap();
    assert!(host.contains("const uint32_t want = 0x3f800001;"), "{host}");
}

#[test]
fn one_finding_on_standard_input_and_the_errors_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    Command::cargo_bin("semfuzz")
        .unwrap()
        .args(["repro", "--out"])
        .arg(&out)
        .write_stdin(finding(
            "add.rn.f32",
            &["0x3f800000", "0x00000001"],
            "0x3f800001",
        ))
        .assert()
        .success();
    assert!(out.join("repro.cpp").is_file());

    let two = [
        finding("add.rn.f32", &["0x3f800000", "0x00000001"], "0x3f800001"),
        finding("add.rn.f32", &["0x3f800000", "0x00000002"], "0x3f800001"),
    ]
    .join("\n");
    let assert = Command::cargo_bin("semfuzz")
        .unwrap()
        .args(["repro", "-"])
        .write_stdin(two)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("holds 2 findings: say which"), "{stderr}");

    let assert = Command::cargo_bin("semfuzz")
        .unwrap()
        .args(["repro", "--out"])
        .arg(&out)
        .write_stdin(finding("add.rn.f32", &["0x3f800000"], "0x3f800001"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("add.rn.f32"), "{stderr}");
}
