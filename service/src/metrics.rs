//! Request counters and latency histograms for `/metrics` (Prometheus text format), kept in
//! memory; the database's gauges are added when scraped.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Latency histogram bucket bounds, seconds.
const BUCKETS: [f64; 10] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0];

#[derive(Default)]
struct Route {
    count: u64,
    sum: f64,
    buckets: [u64; BUCKETS.len()],
}

/// The service's in-memory metrics.
#[derive(Default)]
pub struct Metrics {
    /// (method, route template, status) → latencies.
    routes: Mutex<BTreeMap<(String, String, u16), Route>>,
    findings: AtomicU64,
    cases: AtomicU64,
}

impl Metrics {
    /// Records one answered request.
    pub fn observe(&self, method: &str, route: &str, status: u16, took: Duration) {
        let secs = took.as_secs_f64();
        let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        let r = routes
            .entry((method.to_string(), route.to_string(), status))
            .or_default();
        r.count += 1;
        r.sum += secs;
        for (b, &bound) in r.buckets.iter_mut().zip(&BUCKETS) {
            if secs <= bound {
                *b += 1;
            }
        }
    }

    /// Counts findings stored by this process.
    pub fn add_findings(&self, n: u64) {
        self.findings.fetch_add(n, Ordering::Relaxed);
    }

    /// Counts cases reported by this process's workers.
    pub fn add_cases(&self, n: u64) {
        self.cases.fetch_add(n, Ordering::Relaxed);
    }

    /// The Prometheus text of the counters and histograms.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP semfuzz_findings_ingested_total Findings stored since start (batches and units).\n");
        out.push_str("# TYPE semfuzz_findings_ingested_total counter\n");
        out.push_str(&format!(
            "semfuzz_findings_ingested_total {}\n",
            self.findings.load(Ordering::Relaxed)
        ));
        out.push_str("# HELP semfuzz_cases_total Cases reported by workers since start.\n");
        out.push_str("# TYPE semfuzz_cases_total counter\n");
        out.push_str(&format!(
            "semfuzz_cases_total {}\n",
            self.cases.load(Ordering::Relaxed)
        ));
        out.push_str(
            "# HELP semfuzz_http_request_duration_seconds Request latencies by route and status.\n",
        );
        out.push_str("# TYPE semfuzz_http_request_duration_seconds histogram\n");
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        for ((method, route, status), r) in routes.iter() {
            let labels = format!(
                "method=\"{method}\",route=\"{}\",status=\"{status}\"",
                route.replace(['"', '\\', '\n'], "_")
            );
            for (b, bound) in r.buckets.iter().zip(BUCKETS) {
                out.push_str(&format!(
                    "semfuzz_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {b}\n"
                ));
            }
            out.push_str(&format!(
                "semfuzz_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}\n",
                r.count
            ));
            out.push_str(&format!(
                "semfuzz_http_request_duration_seconds_sum{{{labels}}} {}\n",
                r.sum
            ));
            out.push_str(&format!(
                "semfuzz_http_request_duration_seconds_count{{{labels}}} {}\n",
                r.count
            ));
        }
        out
    }
}
