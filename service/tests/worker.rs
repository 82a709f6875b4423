//! Three workers share one campaign through the service, one dies mid-unit: every unit is done
//! exactly once, and no finding is lost or counted twice. A `validate-llc` campaign's units go
//! only to workers with their compiler, and each is done once with its verdict stored.

mod common;

use common::*;
use semfuzz_fuzz::Finding;
use semfuzz_service::model::{Lease, NewLlcVerdict};
use semfuzz_service::worker::{run_worker, UnitResult, UnitRunner, WorkerConfig};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Reports one finding of its own per unit and one shared by all units.
struct Fake {
    dies: bool,
    retries_seen: Arc<AtomicU64>,
}

fn f(signature: String) -> Finding {
    serde_json::from_value(finding(
        "add.rn.f32",
        "fake",
        "bits",
        &signature,
        &["0x1", "0x2"],
        1,
        ("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
    ))
    .unwrap()
}

/// Serves `app` on a free port; its URL.
async fn listen(app: &TestApp) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
        listener,
        semfuzz_service::app(app.state.clone()),
    )));
    url
}

/// Worker `w` of the service at `url`, on `backends` and `llcs`, with 1 s leases.
fn config(app: &TestApp, url: &str, w: usize, backends: &[&str], llcs: &[&str]) -> WorkerConfig {
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect();
    WorkerConfig {
        server: url.to_string(),
        token: app.token.clone(),
        backends: names(backends),
        llcs: names(llcs),
        name: format!("w{w}"),
        lease_seconds: 1,
        exit_when_idle: false,
    }
}

/// Waits (at most 60 s) until campaign `id` has `units` units done.
async fn wait_done(app: &TestApp, id: &Value, units: i64) {
    let start = Instant::now();
    loop {
        let (_, v, _) = app.get(&format!("/api/v1/campaigns/{id}")).await;
        if v["units_done"] == json!(units) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "campaign not done: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

impl UnitRunner for Fake {
    fn run(&mut self, lease: &Lease, _stop: &AtomicBool) -> Result<UnitResult, String> {
        if lease.attempt > 1 {
            self.retries_seen.fetch_add(1, Ordering::SeqCst);
        }
        std::thread::sleep(Duration::from_millis(150));
        if self.dies {
            panic!("worker killed mid-unit (simulated)");
        }
        Ok(UnitResult {
            cases: lease.cases,
            findings: vec![f(format!("unit{}", lease.seed)), f("shared".into())],
            unsupported: None,
            llc_verdicts: vec![],
        })
    }
}

both_databases!(three_workers_one_dies, |_| {}, |app: TestApp| async move {
    let (s, c) = app.write(axum::http::Method::POST, "/api/v1/campaigns", &json!({"name": "d", "variants": "add.rn.f32", "backends": ["fake"], "generator": "boundary", "cases_per_unit": 100, "rounds": 12})).await;
    assert!(s.is_success(), "{c}");
    let url = listen(&app).await;
    let stop = Arc::new(AtomicBool::new(false));
    let retries = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..3)
        .map(|w| {
            let cfg = config(&app, &url, w, &["fake"], &[]);
            let (stop, retries) = (stop.clone(), retries.clone());
            std::thread::spawn(move || {
                let mut runner = Fake {
                    dies: w == 2,
                    retries_seen: retries,
                };
                run_worker(cfg, &mut runner, &stop)
            })
        })
        .collect();
    wait_done(&app, &c["id"], 12).await;
    stop.store(true, Ordering::SeqCst);
    let mut results = vec![];
    for w in workers {
        results.push(tokio::task::spawn_blocking(move || w.join()).await.unwrap());
    }
    assert!(results[2].is_err(), "the third worker died");
    let done: u64 = results[..2]
        .iter()
        .map(|r| r.as_ref().unwrap().as_ref().unwrap().units)
        .sum();
    assert_eq!(done, 12, "every unit completed exactly once");
    assert!(
        retries.load(Ordering::SeqCst) >= 1,
        "the dead worker's unit was leased again"
    );
    let (_, v, _) = app.get(&format!("/api/v1/campaigns/{}", c["id"])).await;
    assert_eq!(
        (v["cases"].clone(), v["findings"].clone()),
        (json!(1200), json!(24)),
        "{v}"
    );
    let (_, v, _) = app.get("/api/v1/findings?backend=fake&limit=100").await;
    assert_eq!(v["total"], json!(13), "12 unit findings and the shared one");
    for f in v["findings"].as_array().unwrap() {
        let want = if f["signature"] == "shared" { 12 } else { 1 };
        assert_eq!(f["count"], json!(want), "{f}");
    }
});

/// Leases up to 10 units as a worker with the compilers `llcs`, for `secs` seconds.
async fn lease(app: &TestApp, llcs: Value, secs: i64) -> Vec<Value> {
    let (s, v) = app
        .write(
            axum::http::Method::POST,
            "/api/v1/units/lease",
            &json!({"worker": "probe", "llcs": llcs, "max": 10, "lease_seconds": secs}),
        )
        .await;
    assert!(s.is_success(), "{v}");
    v["leases"].as_array().unwrap().clone()
}

/// Proves nothing: answers each `validate-llc` unit with a verdict naming it, as a worker with
/// LLVM 22 would post it.
struct FakeLlc;

impl UnitRunner for FakeLlc {
    fn run(&mut self, lease: &Lease, _stop: &AtomicBool) -> Result<UnitResult, String> {
        assert_eq!(
            lease.backend, "llvmlite",
            "only the compiler the worker has"
        );
        std::thread::sleep(Duration::from_millis(100));
        Ok(UnitResult {
            llc_verdicts: vec![NewLlcVerdict {
                llvm: "22.1.0".into(),
                compiler: "llvmlite (LLVM 22.1.0)".into(),
                function: lease.variant.clone(),
                target: lease
                    .target
                    .clone()
                    .expect("a validate-llc unit has a target"),
                verdict: "proved".into(),
                detail: String::new(),
                counterexample: String::new(),
                report: String::new(),
                seconds: 0.1,
            }],
            ..UnitResult::default()
        })
    }
}

both_databases!(
    llc_units_go_to_workers_with_their_compiler,
    |_| {},
    |app: TestApp| async move {
        let (s, c) = app.write(axum::http::Method::POST, "/api/v1/llc-campaigns", &json!({"name": "cat", "functions": ["fadd_f32", "fmul_f64", "fadd_f32"], "targets": ["sm_70"], "llcs": ["llvmlite", "llc-16"]})).await;
        assert_eq!(s, axum::http::StatusCode::CREATED, "{c}");
        assert_eq!(
            (c["kind"].clone(), c["units"].clone()),
            (json!("validate-llc"), json!(4)),
            "a function named twice is one: {c}"
        );
        // A fuzz worker, and one with another LLVM, leave the units to others.
        assert!(lease(&app, json!([]), 60).await.is_empty());
        assert!(lease(&app, json!(["llc-19"]), 60).await.is_empty());
        // A worker that dies holding both llvmlite units: its leases run out.
        let dead = lease(&app, json!(["llvmlite"]), 1).await;
        let dead = dead.into_iter().take(1).next().unwrap();
        // Units go out functions first, in the campaign's order.
        assert_eq!(
            (
                dead["variant"].clone(),
                dead["target"].clone(),
                dead["backend"].clone()
            ),
            (json!("fadd_f32"), json!("sm_70"), json!("llvmlite")),
            "{dead}"
        );
        let url = listen(&app).await;
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..2)
            .map(|w| {
                let cfg = config(&app, &url, w, &[], &["llvmlite"]);
                let stop = stop.clone();
                std::thread::spawn(move || run_worker(cfg, &mut FakeLlc, &stop))
            })
            .collect();
        // The llvmlite units; llc-16's wait for a worker that has it.
        wait_done(&app, &c["id"], 2).await;
        stop.store(true, Ordering::SeqCst);
        let mut done = (0, 0);
        for w in workers {
            let s = tokio::task::spawn_blocking(move || w.join())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            done = (done.0 + s.units, done.1 + s.verdicts);
        }
        assert_eq!(
            done,
            (2, 2),
            "each llvmlite unit completed once, with its verdict"
        );
        // The dead worker's late completion is refused: the unit is done by another.
        let (s, v) = app
            .write(
                axum::http::Method::POST,
                &format!("/api/v1/units/{}/complete", dead["unit"]),
                &json!({"lease_token": dead["lease_token"], "cases": 0, "findings": []}),
            )
            .await;
        assert_eq!(s, axum::http::StatusCode::CONFLICT, "{v}");
        let (_, v, _) = app.get("/api/v1/llc-verdicts?llvm=22.1.0").await;
        let mut cells: Vec<String> = v["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| format!("{} {}", r["function"], r["target"]))
            .collect();
        cells.sort();
        assert_eq!(
            cells,
            ["\"fadd_f32\" \"sm_70\"", "\"fmul_f64\" \"sm_70\""],
            "one verdict per unit: {v}"
        );
        let (_, v, _) = app.get(&format!("/api/v1/campaigns/{}", c["id"])).await;
        assert_eq!(
            (
                v["units_leased"].clone(),
                v["cases"].clone(),
                v["passes"].clone()
            ),
            (json!(0), json!(0), json!([])),
            "no fuzz pairs or cases: {v}"
        );
        let (_, _, page) = app.get("/llc/22.1.0").await;
        assert!(
            page.contains("fadd_f32") && page.contains("fmul_f64"),
            "{page}"
        );
        let (_, _, page) = app.get("/llc").await;
        assert!(
            page.contains("llc-campaigns") && page.contains("llvmlite, llc-16"),
            "{page}"
        );
        let (_, _, page) = app.get(&format!("/campaigns/{}", c["id"])).await;
        assert!(
            page.contains("llc-campaign") && page.contains("2 / 4 units"),
            "{page}"
        );
    }
);
