//! The external-backend protocol against real processes: the example adapter of
//! docs/external-backend.md and `adapters/mock.py`, which computes add.rn.f32 right and
//! misbehaves on a trigger input in the way its mode says. Every error path ends only the
//! batch that hit it; the next batch runs on a restarted process.

use semfuzz_backend::{Backend, BackendError, Support, Verdict};
use semfuzz_external::{Config, External};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The first operand that makes the mock misbehave.
const TRIGGER: u64 = 0xffff_dead;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the embedded spec loads"))
}

fn variant(text: &str) -> &'static Variant {
    spec().lookup(text, None).expect("variant exists")
}

fn python() -> String {
    std::env::var("SEMFUZZ_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn quoted(path: &Path) -> String {
    shlex::try_quote(&path.to_string_lossy())
        .expect("path without NUL")
        .into_owned()
}

fn mock_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/mock.py")
}

/// `external:python3 mock.py MODE` with a batch timeout of `timeout`.
fn config(mode: &str, timeout: Duration) -> Config {
    let mut c = Config::parse(&format!("{} {} {mode}", python(), quoted(&mock_path())))
        .expect("command parses");
    c.batch_timeout = timeout;
    c.handshake_timeout = Duration::from_secs(30);
    c
}

fn mock(mode: &str) -> External {
    External::start(config(mode, Duration::from_secs(30))).expect("the mock starts")
}

/// `n` sample rows of `v`.
fn rows(v: &Variant, seed: u64, n: usize) -> Vec<u64> {
    let mut s = Samples::new(spec(), v, seed);
    let mut inputs = vec![0; n * v.sources.len()];
    for row in inputs.chunks_exact_mut(v.sources.len()) {
        s.fill(row);
    }
    inputs
}

/// Runs `inputs` through `backend` and asserts that the spec accepts every result.
fn run_accepted(backend: &mut dyn Backend, v: &Variant, inputs: &[u64]) {
    let n = inputs.len() / v.sources.len();
    let mut out = vec![Verdict::NoVerdict; n];
    backend.run(v, inputs, &mut out).expect("the batch runs");
    let mut eval = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); eval.n_parts()];
    for (row, verdict) in inputs.chunks_exact(v.sources.len()).zip(&out) {
        eval.eval(row, &mut accepts);
        let Verdict::Bits(bits) = *verdict else {
            panic!("{} {row:x?}: {verdict:?}, expected bits", v.text)
        };
        assert!(
            accepts[0].accepts(bits),
            "{} {row:x?} gave {bits:#x}; the spec accepts {:?}",
            v.text,
            accepts[0]
        );
    }
}

fn failed_message(e: BackendError) -> String {
    match e {
        BackendError::Failed { message, .. } => message,
        other => panic!("expected a failed batch, got {other}"),
    }
}

/// One good batch, one batch with the trigger (returns its error message), one good batch.
fn misbehave_once(mode: &str, timeout: Duration) -> String {
    let v = variant("add.rn.f32");
    let mut b = External::start(config(mode, timeout)).expect("the mock starts");
    run_accepted(&mut b, v, &rows(v, 1, 40));
    let mut bad = rows(v, 2, 40);
    bad[0] = TRIGGER;
    let mut out = vec![Verdict::NoVerdict; 40];
    let message = failed_message(b.run(v, &bad, &mut out).expect_err("the batch fails"));
    assert!(
        message.contains("batch of 40 `add.rn.f32` cases"),
        "{message}"
    );
    assert!(
        message.contains("the next batch restarts the process"),
        "{message}"
    );
    run_accepted(&mut b, v, &rows(v, 3, 40));
    message
}

#[test]
fn correct_mock_agrees_with_the_spec() {
    let v = variant("add.rn.f32");
    let mut b = mock("correct");
    let id = b.identity().clone();
    assert_eq!(
        (id.name.as_str(), id.device.as_str()),
        ("mock", "Python struct")
    );
    assert_eq!(b.batch_size(), 64);
    for seed in 0..4 {
        run_accepted(&mut b, v, &rows(v, seed, 500));
    }
    // The trigger is an ordinary NaN input when the mode does not misbehave.
    let mut nan = rows(v, 9, 3);
    nan[0] = TRIGGER;
    run_accepted(&mut b, v, &nan);
}

#[test]
fn supports_lines_are_exact_names_or_globs() {
    let b = mock("correct");
    assert_eq!(b.supports(variant("add.rn.f32")), Support::Yes);
    assert_eq!(b.supports(variant("add.rz.f32")), Support::Yes);
    assert_eq!(b.supports(variant("add.rm.f32")), Support::Yes);
    let Support::No(why) = b.supports(variant("add.rp.f32")) else {
        panic!("add.rp.f32 is not listed")
    };
    assert!(why.contains("mock does not list add.rp.f32"), "{why}");
    // An exact name is not a substring pattern.
    assert!(matches!(
        b.supports(variant("add.rn.f32x2")),
        Support::No(_)
    ));
    assert_eq!(
        b.supported_patterns().collect::<Vec<_>>(),
        ["add.rn.f32", "add.r[mz].f32"]
    );
}

#[test]
fn a_process_that_dies_fails_its_batch_only() {
    let m = misbehave_once("die", Duration::from_secs(30));
    assert!(
        m.contains("the process died: it exited (exit status: 3)"),
        "{m}"
    );
    assert!(
        m.contains("stderr ended with: mock: dying on purpose"),
        "{m}"
    );
    assert!(m.contains("last line on stdout: `0x"), "{m}");
}

#[test]
fn a_process_that_hangs_is_killed_at_the_timeout() {
    let start = Instant::now();
    let m = misbehave_once("hang", Duration::from_millis(1500));
    assert!(
        m.contains("no answer within 1.5s (the process was killed)"),
        "{m}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn garbage_is_named() {
    let m = misbehave_once("garbage", Duration::from_secs(30));
    assert!(
        m.contains("result 2 (row 1) `0xfeedfacez` is not hex bits"),
        "{m}"
    );
    let m = misbehave_once("wide", Duration::from_secs(30));
    assert!(
        m.contains("does not fit the 32-bit destination register"),
        "{m}"
    );
    assert!(m.contains("result 2 (row 1) `0x1"), "{m}");
}

#[test]
fn wrong_result_counts_are_named() {
    let m = misbehave_once("short", Duration::from_secs(30));
    assert!(
        m.contains("it wrote `done` after 39 results for 40 rows"),
        "{m}"
    );
    let m = misbehave_once("extra", Duration::from_secs(30));
    assert!(m.contains("beyond the 40 rows instead of `done`"), "{m}");
}

#[test]
fn an_error_line_fails_the_batch_with_its_message() {
    let m = misbehave_once("error", Duration::from_secs(30));
    assert!(
        m.contains("it reported an error after 20 results: mock: a register file went missing"),
        "{m}"
    );
}

#[test]
fn failed_handshakes_make_the_backend_unavailable() {
    let unavailable = |mode: &str| match External::start(config(mode, Duration::from_secs(30))) {
        Err(BackendError::Unavailable { reason, .. }) => reason,
        Err(e) => panic!("{mode}: {e}"),
        Ok(_) => panic!("{mode}: the handshake succeeded"),
    };
    let r = unavailable("oldversion");
    assert!(
        r.contains("speaks protocol version 0; semfuzz speaks 1"),
        "{r}"
    );
    let r = unavailable("silent");
    assert!(
        r.contains("exited (exit status: 2) during the handshake"),
        "{r}"
    );
    assert!(r.contains("mock: leaving before the greeting"), "{r}");
    let r = unavailable("nosupports");
    assert!(r.contains("no `supports` line before `ready`"), "{r}");
}

#[test]
fn probe_reports_what_cannot_start() {
    let e = semfuzz_external::probe(Some("/nonexistent/simulator --fast")).unwrap_err();
    assert!(e.contains("cannot start `/nonexistent/simulator`"), "{e}");
    let e = semfuzz_external::probe(None).unwrap_err();
    assert!(e.contains("external needs a command"), "{e}");
    let e = semfuzz_external::probe(Some("python3 'unclosed")).unwrap_err();
    assert!(e.contains("close its quotes"), "{e}");
    let cmd = format!("{} {} correct", python(), quoted(&mock_path()));
    let id = semfuzz_external::probe(Some(&cmd)).expect("the mock is available");
    assert_eq!(id.version, "1.0 (correct)");
    let backend = semfuzz_external::open(Some(&cmd)).expect("the mock opens");
    assert_eq!(backend.identity(), &id);
}

/// The python block after the marker in docs/external-backend.md.
fn doc_example() -> String {
    let doc = include_str!("../../../docs/external-backend.md");
    let (_, after) = doc
        .split_once("<!-- example adapter")
        .expect("the doc marks its example");
    let (_, code) = after.split_once("```python\n").expect("a python block");
    let (code, _) = code.split_once("```").expect("the block ends");
    code.to_string()
}

#[test]
fn the_documented_example_adapter_works() {
    let dir = std::env::temp_dir().join(format!("semfuzz-external-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("add_f32.py");
    std::fs::write(&path, doc_example()).expect("write the example");
    let cmd = format!("{} {}", python(), quoted(&path));
    let mut b = semfuzz_external::open(Some(&cmd)).expect("the example starts");
    assert_eq!(b.identity().name, "py-add");
    for text in ["add.rn.f32", "add.f32"] {
        let v = variant(text);
        assert_eq!(b.supports(v), Support::Yes);
        run_accepted(b.as_mut(), v, &rows(v, 7, 2000));
    }
    drop(b);
    let _ = std::fs::remove_dir_all(&dir);
}
