//! Three workers share one campaign through the service, one dies mid-unit: every unit is done
//! exactly once, and no finding is lost or counted twice.

mod common;

use common::*;
use semfuzz_fuzz::Finding;
use semfuzz_service::model::Lease;
use semfuzz_service::worker::{run_worker, UnitResult, UnitRunner, WorkerConfig};
use serde_json::json;
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
        })
    }
}

both_databases!(three_workers_one_dies, |_| {}, |app: TestApp| async move {
    let (s, c) = app.write(axum::http::Method::POST, "/api/v1/campaigns", &json!({"name": "d", "variants": "add.rn.f32", "backends": ["fake"], "generator": "boundary", "cases_per_unit": 100, "rounds": 12})).await;
    assert!(s.is_success(), "{c}");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
        listener,
        semfuzz_service::app(app.state.clone()),
    )));
    let stop = Arc::new(AtomicBool::new(false));
    let retries = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..3)
        .map(|w| {
            let cfg = WorkerConfig {
                server: url.clone(),
                token: app.token.clone(),
                backends: vec!["fake".into()],
                name: format!("w{w}"),
                lease_seconds: 1,
                exit_when_idle: false,
            };
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
    let start = Instant::now();
    loop {
        let (_, v, _) = app.get(&format!("/api/v1/campaigns/{}", c["id"])).await;
        if v["units_done"] == json!(12) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "campaign not done: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
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
