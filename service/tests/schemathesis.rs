//! Schemathesis (PyPI, pinned by `cargo xtask setup` into `.deps/schemathesis`) against the
//! OpenAPI document of a real server on SQLite and on PostgreSQL: every operation, every
//! check (`--checks all`), a fixed seed. It fails on any status the document does not list,
//! any schema-valid request the server rejects (or invalid one it accepts), any response that
//! does not match its schema, and any 5xx, and prints schemathesis's report.

mod common;

use axum::http::Method;
use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned schemathesis `cargo xtask setup` installs (`pip install --target`).
const SCHEMATHESIS_DIR: &str = "schemathesis";

/// Test cases per operation and phase: enough that every operation meets its boundary values
/// and a good share of random ones, in about 20 s per database on two cores.
/// `SEMFUZZ_SCHEMATHESIS_EXAMPLES` overrides it, `SEMFUZZ_SCHEMATHESIS_SEED` the seed (1), for
/// a longer hunt by hand.
const MAX_EXAMPLES: &str = "40";

/// `name` from the environment, or `default`.
fn knob(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// `.deps`, from `SEMFUZZ_DEPS` or beside the workspace root (as the other tests find it).
fn deps() -> PathBuf {
    std::env::var_os("SEMFUZZ_DEPS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../.deps"),
        PathBuf::from,
    )
}

/// The directory holding the `schemathesis` package; panics, naming the fix, when missing.
fn schemathesis_dir() -> PathBuf {
    let dir = deps().join(SCHEMATHESIS_DIR);
    assert!(
        dir.join("schemathesis/cli/__main__.py").is_file(),
        "{} has no schemathesis: run `cargo xtask setup` (it installs schemathesis==4.32.5 \
         into .deps/schemathesis)",
        dir.display()
    );
    dir
}

/// One of each resource, so that the `GET`s and `PATCH`es by id meet real rows (ids 1) and
/// their 200 answers are checked against the schema too.
async fn seed(app: &TestApp) {
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/findings",
            &json!([finding(
                "add.rn.f32",
                "host",
                "ulp-up-1",
                "00000000000000aa",
                &["0x3f800000", "0x40000000"],
                3,
                ("2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"),
            )]),
        )
        .await;
    assert!(s.is_success(), "{v}");
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/campaigns",
            &json!({"name": "seed", "variants": "add.rn.f32", "backends": ["host"],
                    "generator": "boundary", "cases_per_unit": 100}),
        )
        .await;
    assert!(s.is_success(), "{v}");
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/proofs",
            &json!([{"rule": "r", "verdict": "proved", "solver": "z3", "seconds": 0.5}]),
        )
        .await;
    assert!(s.is_success(), "{v}");
    let (s, v) = app
        .write(
            Method::POST,
            "/api/v1/llc-verdicts",
            &json!([llc("22.1.0", "fma_bf16", "sm_70", "counterexample")]),
        )
        .await;
    assert!(s.is_success(), "{v}");
}

/// Serves `app` on a free port and runs schemathesis against its document.
async fn run_schemathesis(app: TestApp) {
    let dir = schemathesis_dir();
    seed(&app).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/api/v1/openapi.json",
        listener.local_addr().unwrap()
    );
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
        listener,
        semfuzz_service::app(app.state.clone()),
    )));
    let work = tempfile::tempdir().unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemathesis.toml");
    let mut st = Command::new("python3");
    st.args(["-m", "schemathesis.cli", "--no-color", "--config-file"])
        .arg(&config)
        .args(["run", &url, "--checks", "all", "--seed"])
        .arg(knob("SEMFUZZ_SCHEMATHESIS_SEED", "1"))
        .arg("--max-examples")
        .arg(knob("SEMFUZZ_SCHEMATHESIS_EXAMPLES", MAX_EXAMPLES))
        .args(["--generation-database", "none", "--workers", "1"])
        .arg("-H")
        .arg(format!("Authorization: Bearer {}", app.token))
        .env("PYTHONPATH", &dir)
        // Its report directory and Hypothesis's files go here, not into the source tree.
        .current_dir(work.path());
    let out = tokio::task::spawn_blocking(move || st.output())
        .await
        .unwrap()
        .expect("running python3 -m schemathesis.cli");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "schemathesis found places where the server and its OpenAPI document disagree:\n{report}"
    );
    // A run that tested nothing would also exit 0.
    assert!(
        report.contains("Tested: 16"),
        "schemathesis did not test all 16 operations:\n{report}"
    );
}

both_databases!(document_is_true, |_| {}, run_schemathesis);
