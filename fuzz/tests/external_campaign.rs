//! A campaign against an external process that misbehaves: each failed batch is reported with
//! what went wrong, and the campaign goes on with the next batch on a restarted process.
//! The process is `backends/external/tests/adapters/mock.py`, a correct add.rn.f32 that
//! misbehaves on the second batch of each of its lives.

use semfuzz_backend::{Backend, BackendError};
use semfuzz_fuzz::campaign::{self, Config, Counters, Report};
use semfuzz_fuzz::GeneratorKind;
use semfuzz_spec::Spec;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

fn campaign(mode: &str, timeout: Duration) -> Report {
    let spec = Spec::embedded().expect("the built-in specs load");
    let mock = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../backends/external/tests/adapters/mock.py"
    );
    let python = std::env::var("SEMFUZZ_PYTHON").unwrap_or_else(|_| "python3".into());
    let command = format!("{python} '{mock}' {mode} 2");
    let open = || -> Result<Box<dyn Backend>, BackendError> {
        let mut config = semfuzz_external::Config::parse(&command)
            .map_err(|e| BackendError::failed("mock", e))?;
        config.batch_timeout = timeout;
        Ok(Box::new(semfuzz_external::External::start(config)?))
    };
    let v = spec.lookup("add.rn.f32", None).expect("variant");
    let config = Config {
        generator: GeneratorKind::Boundary,
        cases: Some(4 * 1024),
        time: None,
        seed: 1,
        threads: 1,
        resume: 0,
        evaluator: semfuzz_jit::EvaluatorKind::Jit,
    };
    campaign::run(
        &spec,
        &[v],
        &open,
        None,
        &config,
        &Counters::default(),
        &AtomicBool::new(false),
    )
    .expect("the campaign runs")
}

#[test]
fn failed_batches_are_reported_and_the_campaign_goes_on() {
    let report = campaign("correct", Duration::from_secs(30));
    assert_eq!((report.cases, report.errors.len()), (4096, 0));
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    for (mode, timeout, says) in [
        ("die", 30, "the process died: it exited (exit status: 3)"),
        ("hang", 1, "no answer within 1s (the process was killed)"),
        ("garbage", 30, "`0xfeedfacez` is not hex bits"),
    ] {
        let report = campaign(mode, Duration::from_secs(timeout));
        // Batches 2 and 4 are the second batch of the first and of the restarted process.
        let failed: Vec<u64> = report.errors.iter().map(|e| e.first_case).collect();
        assert_eq!(failed, [1024, 3072], "{mode}: {:?}", report.errors);
        for e in &report.errors {
            assert!(e.message.contains(says), "{mode}: {}", e.message);
            assert!(
                e.message.contains("the next batch restarts the process"),
                "{}",
                e.message
            );
        }
        assert_eq!(report.cases, 2048, "{mode}: the other batches run");
        assert!(report.findings.is_empty(), "{mode}: {:?}", report.findings);
    }
}
