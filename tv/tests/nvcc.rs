//! `validate-nvcc`'s plumbing (issue 30 item 3): nvcc's own PTX for a catalogue function is
//! proved against its documented semantics, and the same PTX broken by hand after compilation
//! is a confirmed counterexample. Tests of the plumbing, not of nvcc.

use semfuzz_spec::Spec;
use semfuzz_tv::{nvcc, validate, Unit};

fn judge(config: &nvcc::Config, function: &str, ptx: &str) -> semfuzz_tv::Verdict {
    let spec = Spec::embedded().expect("the specs load");
    let work = tempfile::tempdir().expect("tempdir");
    let ll = work.path().join("reference.ll");
    std::fs::write(&ll, nvcc::reference(config)).unwrap();
    let (_, compiler) = nvcc::compiler(config.flags).expect("setup installs nvcc");
    let unit = Unit {
        func: function.into(),
        module: config.name.into(),
        ll: ll.clone(),
        compiled: ll,
        short: function.into(),
        group: None,
    };
    let opts = semfuzz_tv::campaign::options(10_000, &work.path().join("cache"));
    validate(
        &spec,
        &unit,
        "sm_90",
        &Ok(ptx.to_string()),
        work.path(),
        &compiler,
        &opts,
        None,
    )
    .expect("validates")
}

/// nvcc's PTX for the catalogue at sm_90 under `config`.
fn compiled(config: &nvcc::Config) -> String {
    let spec = Spec::embedded().expect("the specs load");
    let work = tempfile::tempdir().expect("tempdir");
    let opts = semfuzz_tv::campaign::options(10_000, &work.path().join("cache"));
    let rows = nvcc::run(
        &spec,
        &[*config],
        &["sm_90".to_string()],
        &["fadd_rn".to_string()],
        work.path(),
        &opts,
        |_| {},
    )
    .expect("nvcc runs");
    assert_eq!(rows[0].verdict.kind, "proved", "{}", rows[0].verdict.detail);
    std::fs::read_to_string(work.path().join(config.name).join("catalogue-sm_90.ptx")).unwrap()
}

#[test]
fn nvccs_fadd_rn_is_proved_and_its_hand_broken_twin_is_caught() {
    let config = nvcc::CONFIGS[0];
    let ptx = compiled(&config);
    assert!(ptx.contains("add.rn.f32"), "{ptx}");
    assert_eq!(judge(&config, "fadd_rn", &ptx).kind, "proved");
    let broken = ptx.replacen("add.rn.f32", "add.rz.f32", 1);
    let v = judge(&config, "fadd_rn", &broken);
    assert_eq!(v.kind, "counterexample", "{}", v.detail);
    let lines = v.counterexample.expect("a counterexample").lines("nvcc");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("confirmed by both evaluators")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("    nvcc: nvcc -ptx")),
        "{lines:?}"
    );
}

#[test]
fn every_configuration_names_its_flags() {
    let names: Vec<&str> = nvcc::CONFIGS.iter().map(|c| c.name).collect();
    assert_eq!(names, ["default", "ftz", "prec-div-false", "fast-math"]);
    assert!(nvcc::configs(&["nosuch".into()]).is_err());
    assert!(nvcc::reference(&nvcc::CONFIGS[1]).contains("preserve-sign"));
    assert!(nvcc::reference(&nvcc::CONFIGS[3]).contains("@llvm.nvvm.div.approx.ftz.f(float %a"));
}
