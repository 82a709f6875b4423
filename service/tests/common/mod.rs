//! Test harness: the app on a fresh SQLite file or a fresh database of a PostgreSQL server
//! the tests start themselves (initdb + pg_ctl as the `postgres` user, temporary directory,
//! free port), and a client that sends requests straight into the router.

#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt;
use semfuzz_service::{app, AppState, Config, Db, Target};
use serde_json::Value;
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

mod pg;
pub use pg::pg;

/// Which database a test runs on.
#[derive(Clone, Copy, Debug)]
pub enum Which {
    Sqlite,
    Postgres,
}

/// The app on a fresh database, and a token for writes.
pub struct TestApp {
    pub state: AppState,
    pub token: String,
    _dir: Option<tempfile::TempDir>,
}

/// Variants the tests' campaigns may name.
pub fn catalogue() -> Vec<String> {
    spec().variants.iter().map(|v| v.text.clone()).collect()
}

pub fn spec() -> Arc<semfuzz_spec::Spec> {
    static SPEC: OnceLock<Arc<semfuzz_spec::Spec>> = OnceLock::new();
    SPEC.get_or_init(|| Arc::new(semfuzz_spec::Spec::embedded().expect("built-in spec")))
        .clone()
}

impl TestApp {
    /// `None` when PostgreSQL is wanted and absent.
    pub async fn new(which: Which, config: impl FnOnce(&mut Config)) -> Option<TestApp> {
        let (target, dir) = match which {
            Which::Sqlite => {
                let dir = tempfile::tempdir().unwrap();
                (Target::Sqlite(dir.path().join("t.db")), Some(dir))
            }
            Which::Postgres => (Target::Url(pg()?.fresh_db()), None),
        };
        let db = Db::open(&target).await.expect("opening the database");
        let token = db.create_token().await.unwrap();
        let mut cfg = Config::new(catalogue());
        config(&mut cfg);
        let state = AppState {
            db,
            config: Arc::new(cfg),
            metrics: Default::default(),
            spec: spec(),
        };
        Some(TestApp {
            state,
            token,
            _dir: dir,
        })
    }

    /// Sends a request; returns the status and the body (JSON, or a string for other types).
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> (StatusCode, Value, String) {
        let mut req = Request::builder().method(method).uri(path);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        if body.is_some()
            && !headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        {
            req = req.header("content-type", "application/json");
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let req = req
            .body(body.map(Body::from).unwrap_or_else(Body::empty))
            .unwrap();
        let resp = app(self.state.clone()).oneshot(req).await.unwrap();
        let status = resp.status();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8_lossy(&bytes).to_string();
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
        )
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value, String) {
        self.send(Method::GET, path, None, None, &[]).await
    }

    /// A JSON write with this app's token.
    pub async fn write(&self, method: Method, path: &str, body: &Value) -> (StatusCode, Value) {
        let (s, v, _) = self
            .send(
                method,
                path,
                Some(&self.token.clone()),
                Some(body.to_string().into_bytes()),
                &[],
            )
            .await;
        (s, v)
    }
}

/// A finding as `semfuzz fuzz --json` writes it, first and last seen at `(first, last)`.
pub fn finding(
    variant: &str,
    backend: &str,
    class: &str,
    signature: &str,
    inputs: &[&str],
    count: u64,
    (first, last): (&str, &str),
) -> Value {
    serde_json::json!({
        "variant": variant, "backend": backend, "backend_version": "1.0", "device": "test cpu",
        "class": class, "part": "d", "signature": signature,
        "operand_classes": inputs.iter().map(|_| "+normal").collect::<Vec<_>>(),
        "inputs": inputs, "expected": "0x40400000 (3)", "actual": "0x40400001",
        "detail": "d = 0x40400001 (3.0000002), but the spec allows 0x40400000 (3)",
        "count": count, "first_seen": first, "last_seen": last
    })
}

/// A verdict as `semfuzz validate-llc --report` posts it, for LLVM `llvm`; a counterexample
/// gets its lines and a bug report, unknown and unsupported a detail.
pub fn llc(llvm: &str, function: &str, target: &str, verdict: &str) -> Value {
    let mut v = serde_json::json!({
        "llvm": llvm, "compiler": format!("llvmlite (LLVM {llvm})"), "function": function,
        "target": target, "verdict": verdict, "seconds": 0.25
    });
    match verdict {
        "counterexample" => {
            v["counterexample"] = serde_json::json!(format!(
                "a = 0x3f80 (1)\nIR allows 0x4000 (2)\nPTX computes 0x3fff on {target}"
            ));
            v["report"] = serde_json::json!(format!(
                "# NVPTX miscompiles `{function}` on {target}\n\n```\nllc -march=nvptx64 -mcpu={target}\n```"
            ));
        }
        "unknown" => v["detail"] = serde_json::json!("z3: timeout after 10 s"),
        "unsupported" => v["detail"] = serde_json::json!("frem: no PTX semantics for the call"),
        _ => {}
    }
    v
}

/// Declares `$name` twice: `$name::sqlite` and `$name::postgres`, each calling `$body(app)`.
#[macro_export]
macro_rules! both_databases {
    ($name:ident, $config:expr, $body:expr) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn sqlite() {
                let app = TestApp::new(Which::Sqlite, $config).await.unwrap();
                let body = $body;
                body(app).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                let Some(app) = TestApp::new(Which::Postgres, $config).await else {
                    return;
                };
                let body = $body;
                body(app).await;
            }
        }
    };
}
