//! The service's numbers for docs/BENCHMARKS.md: ingest (findings/s) from 50 concurrent
//! clients on loopback, overview-page latency with 10 k findings of 1 M occurrences, and
//! work-unit leases/s with 16 workers.
//!
//! `cargo run --release -p semfuzz-service --example bench -- [sqlite|postgres] [SECONDS]`
//! (PostgreSQL is started on a temporary directory, as in the tests).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{finding, pg, TestApp, Which};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = match args.first().map(String::as_str) {
        Some("postgres") => Which::Postgres,
        _ => Which::Sqlite,
    };
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    if matches!(which, Which::Postgres) && pg().is_none() {
        return;
    }
    let app = TestApp::new(which, |_| {}).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(std::future::IntoFuture::into_future(axum::serve(
        listener,
        semfuzz_service::app(app.state.clone()),
    )));
    println!("database: {which:?}; {} s per phase", secs);

    // 1. Ingest: 50 clients posting batches of 100 distinct findings on loopback.
    let (stop, done, errors) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
    );
    let mut lat = vec![];
    let threads: Vec<_> = (0..50)
        .map(|c| {
            let (url, tok, stop, done, errors) = (
                url.clone(),
                app.token.clone(),
                stop.clone(),
                done.clone(),
                errors.clone(),
            );
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(30))
                    .build();
                let mut lat = vec![];
                for b in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let batch: Vec<_> = (0..100)
                        .map(|i| {
                            let n = ((b * 50 + c) * 100 + i) % 10_000; // 10 k distinct signatures
                            finding(
                                &format!("{}.rn.f32", ["add", "mul", "fma", "sub", "div"][n % 5]),
                                ["host", "llvm", "numba-sim"][n % 3],
                                "ulp-up-1",
                                &format!("sig{n:05}"),
                                &["0x3f800000", "0x40000000"],
                                1,
                                ("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"),
                            )
                        })
                        .collect();
                    let t = Instant::now();
                    match agent
                        .post(&format!("{url}/api/v1/findings"))
                        .set("authorization", &format!("Bearer {tok}"))
                        .set("idempotency-key", &format!("c{c}b{b}"))
                        .send_json(json!(batch))
                    {
                        Ok(r) if r.status() == 201 => {
                            done.fetch_add(100, Ordering::Relaxed);
                        }
                        _ => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    lat.push(t.elapsed().as_secs_f64() * 1000.0);
                }
                lat
            })
        })
        .collect();
    let t = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    for th in threads {
        lat.extend(th.join().unwrap());
    }
    let el = t.elapsed().as_secs_f64();
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "ingest: {} findings in {:.1} s = {:.0} findings/s from 50 clients; batch latency p50 {:.1} ms p95 {:.1} ms; errors {}",
        done.load(Ordering::Relaxed),
        el,
        done.load(Ordering::Relaxed) as f64 / el,
        percentile(&lat, 0.5),
        percentile(&lat, 0.95),
        errors.load(Ordering::Relaxed)
    );

    // 2. Overview latency over 10 k findings; top the occurrences up to 1 M.
    let totals = app.state.db.totals().await.unwrap();
    if totals.occurrences < 1_000_000 {
        let extra = 1_000_000 - totals.occurrences;
        let f = finding(
            "add.rn.f32",
            "host",
            "ulp-up-1",
            "sig00000",
            &["0x3f800000", "0x40000000"],
            extra as u64,
            ("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"),
        );
        app.write(axum::http::Method::POST, "/api/v1/findings", &json!([f]))
            .await;
    }
    let totals = app.state.db.totals().await.unwrap();
    let agent = ureq::AgentBuilder::new().build();
    let mut lat = vec![];
    for path in ["/", "/findings"] {
        lat.clear();
        for _ in 0..200 {
            let t = Instant::now();
            let r = agent.get(&format!("{url}{path}")).call().unwrap();
            let _ = r.into_string().unwrap();
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "GET {path} with {} findings / {} occurrences: p50 {:.1} ms p95 {:.1} ms (200 requests)",
            totals.findings,
            totals.occurrences,
            percentile(&lat, 0.5),
            percentile(&lat, 0.95)
        );
    }

    // 3. Leases/s: 16 workers leasing one unit at a time.
    let (s, v) = app.write(axum::http::Method::POST, "/api/v1/campaigns", &json!({"name": "bench", "variants": "*", "backends": ["host"], "generator": "boundary", "rounds": 20})).await;
    assert!(s.is_success(), "{v}");
    let (stop, leased) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicU64::new(0)),
    );
    let threads: Vec<_> = (0..16)
        .map(|w| {
            let (url, tok, stop, leased) =
                (url.clone(), app.token.clone(), stop.clone(), leased.clone());
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new().build();
                while !stop.load(Ordering::Relaxed) {
                    let r: serde_json::Value = agent
                        .post(&format!("{url}/api/v1/units/lease"))
                        .set("authorization", &format!("Bearer {tok}"))
                        .send_json(json!({"worker": format!("w{w}")}))
                        .unwrap()
                        .into_json()
                        .unwrap();
                    leased.fetch_add(
                        r["leases"].as_array().unwrap().len() as u64,
                        Ordering::Relaxed,
                    );
                }
            })
        })
        .collect();
    let t = Instant::now();
    tokio::time::sleep(Duration::from_secs(secs.min(10))).await;
    stop.store(true, Ordering::Relaxed);
    for th in threads {
        th.join().unwrap();
    }
    let n = leased.load(Ordering::Relaxed);
    println!(
        "lease: {n} units in {:.1} s = {:.0} leases/s with 16 workers (of {} units)",
        t.elapsed().as_secs_f64(),
        n as f64 / t.elapsed().as_secs_f64(),
        v["units"]
    );
}
