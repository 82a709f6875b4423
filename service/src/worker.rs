//! The worker's side of the work-unit protocol: lease a unit, keep the lease alive with
//! heartbeats while a [`UnitRunner`] runs it, post its cases and findings, repeat. Completion is
//! idempotent by lease token, so it is retried until the service answers; a lost lease (409)
//! drops the unit, whose findings then come from whoever runs it next. A `validate-llc` unit's
//! verdict is posted to `/api/v1/llc-verdicts` before the unit is completed, under an
//! `Idempotency-Key` of the lease, so a retried post stores it once and a unit is never done
//! without its verdict stored.

use crate::model::{Completion, Lease, LeaseRequest, Leases, NewLlcVerdict};
use semfuzz_fuzz::Finding;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What running a unit gave.
#[derive(Clone, Debug, Default)]
pub struct UnitResult {
    /// Cases run.
    pub cases: i64,
    /// Findings.
    pub findings: Vec<Finding>,
    /// Why the backend cannot run the unit's variant at all, when it cannot.
    pub unsupported: Option<String>,
    /// A `validate-llc` unit's verdicts.
    pub llc_verdicts: Vec<NewLlcVerdict>,
}

/// Runs one leased unit.
pub trait UnitRunner {
    /// Runs `lease`'s variant on its backend with its generator, seed and case count;
    /// returns early (with what it has) when `stop` is set.
    fn run(&mut self, lease: &Lease, stop: &AtomicBool) -> Result<UnitResult, String>;
}

/// Where and how a worker works.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The service's base URL (`http://host:8080`).
    pub server: String,
    /// An API token.
    pub token: String,
    /// Backends this worker can run (empty: any).
    pub backends: Vec<String>,
    /// LLVM compilers this worker has, for `validate-llc` units (empty: none).
    pub llcs: Vec<String>,
    /// The worker's name on the dashboard.
    pub name: String,
    /// Lease length; heartbeats go every third of it.
    pub lease_seconds: i64,
    /// Stop when the queue is empty instead of waiting for more work.
    pub exit_when_idle: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Units completed.
    pub units: u64,
    /// Cases run in them.
    pub cases: i64,
    /// Findings posted.
    pub findings: u64,
    /// `validate-llc` verdicts posted.
    pub verdicts: u64,
    /// Units dropped because their lease was lost.
    pub lost: u64,
}

/// Worker errors.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The service refused the request (bad token, bad request).
    #[error("the service at {0} refused: {1}")]
    Refused(String, String),
    /// The runner failed.
    #[error("running unit {0}: {1}")]
    Run(i64, String),
}

/// An HTTP client for the service's worker endpoints.
struct Client {
    agent: ureq::Agent,
    cfg: WorkerConfig,
}

/// How a request ended: an answer (any status) or no connection.
enum Reply {
    Ok(serde_json::Value),
    Status(u16, String),
    Unreachable(String),
}

impl Client {
    fn post(&self, path: &str, body: &impl serde::Serialize, key: Option<&str>) -> Reply {
        let url = format!("{}{path}", self.cfg.server.trim_end_matches('/'));
        let body = match serde_json::to_value(body) {
            Ok(b) => b,
            Err(e) => return Reply::Status(0, e.to_string()),
        };
        let mut request = self
            .agent
            .post(&url)
            .set("authorization", &format!("Bearer {}", self.cfg.token));
        if let Some(k) = key {
            request = request.set("idempotency-key", k);
        }
        match request.send_json(body) {
            Ok(r) => match r.into_json() {
                Ok(v) => Reply::Ok(v),
                Err(e) => Reply::Unreachable(format!("reading the answer: {e}")),
            },
            Err(ureq::Error::Status(code, r)) => {
                Reply::Status(code, r.into_string().unwrap_or_default())
            }
            Err(e) => Reply::Unreachable(e.to_string()),
        }
    }

    /// Posts until the service answers (it may be restarting), or `stop`.
    fn post_retrying(
        &self,
        path: &str,
        body: &impl serde::Serialize,
        key: Option<&str>,
        stop: &AtomicBool,
    ) -> Option<Reply> {
        let mut wait = Duration::from_millis(200);
        loop {
            match self.post(path, body, key) {
                Reply::Unreachable(e) => {
                    if stop.load(Ordering::SeqCst) {
                        return None;
                    }
                    eprintln!(
                        "semfuzz worker: {} unreachable ({e}); retrying in {:?}",
                        self.cfg.server, wait
                    );
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(10));
                }
                reply => return Some(reply),
            }
        }
    }
}

/// Works until `stop` is set (or, with `exit_when_idle`, the queue is empty).
pub fn run_worker(
    cfg: WorkerConfig,
    runner: &mut dyn UnitRunner,
    stop: &AtomicBool,
) -> Result<Summary, WorkerError> {
    let client = Arc::new(Client {
        agent: ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(60))
            .build(),
        cfg: cfg.clone(),
    });
    let mut summary = Summary::default();
    let refused = |code: u16, body: String| {
        WorkerError::Refused(cfg.server.clone(), format!("{code} {body}"))
    };
    while !stop.load(Ordering::SeqCst) {
        let req = LeaseRequest {
            worker: cfg.name.clone(),
            backends: cfg.backends.clone(),
            llcs: cfg.llcs.clone(),
            max: Some(1),
            lease_seconds: Some(cfg.lease_seconds),
        };
        let lease = match client.post_retrying("/api/v1/units/lease", &req, None, stop) {
            None => break,
            Some(Reply::Ok(v)) => serde_json::from_value::<Leases>(v)
                .map_err(|e| refused(200, e.to_string()))?
                .leases
                .pop(),
            Some(Reply::Status(code, body)) => return Err(refused(code, body)),
            Some(Reply::Unreachable(_)) => continue,
        };
        let Some(lease) = lease else {
            if cfg.exit_when_idle {
                break;
            }
            std::thread::sleep(Duration::from_secs(2));
            continue;
        };
        // Heartbeats until the unit is done.
        let done = Arc::new(AtomicBool::new(false));
        let beat = {
            let (client, done, unit, token) = (
                client.clone(),
                done.clone(),
                lease.unit,
                lease.lease_token.clone(),
            );
            let every = Duration::from_millis((cfg.lease_seconds.max(1) * 1000 / 3) as u64);
            std::thread::spawn(move || {
                let body = serde_json::json!({"lease_token": token, "lease_seconds": client.cfg.lease_seconds});
                let mut slept = Duration::ZERO;
                while !done.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                    slept += Duration::from_millis(50);
                    if slept >= every {
                        slept = Duration::ZERO;
                        if let Reply::Status(409, _) =
                            client.post(&format!("/api/v1/units/{unit}/heartbeat"), &body, None)
                        {
                            return;
                        }
                    }
                }
            })
        };
        let result = {
            // Heartbeats stop when the run ends, even by a panic.
            let _stop_beats = SetOnDrop(done.clone());
            runner.run(&lease, stop)
        };
        let _ = beat.join();
        let UnitResult {
            cases,
            findings,
            unsupported,
            llc_verdicts,
        } = result.map_err(|e| WorkerError::Run(lease.unit, e))?;
        let n = findings.len() as u64;
        if !llc_verdicts.is_empty() {
            // One key per lease: the retries of this post store the verdicts once; a unit run
            // again after this worker lost it reports again, as a run of its own.
            let key = format!("llc-unit-{}-{}", lease.unit, lease.lease_token);
            match client.post_retrying(
                "/api/v1/llc-verdicts",
                &llc_verdicts,
                Some(&key),
                &AtomicBool::new(false),
            ) {
                Some(Reply::Ok(_)) => summary.verdicts += llc_verdicts.len() as u64,
                Some(Reply::Status(code, body)) => return Err(refused(code, body)),
                _ => {}
            }
        }
        let completion = Completion {
            lease_token: lease.lease_token.clone(),
            cases,
            findings,
            unsupported,
        };
        match client.post_retrying(
            &format!("/api/v1/units/{}/complete", lease.unit),
            &completion,
            None,
            &AtomicBool::new(false),
        ) {
            Some(Reply::Ok(_)) => {
                summary.units += 1;
                summary.cases += cases;
                summary.findings += n;
            }
            Some(Reply::Status(409, _)) => summary.lost += 1,
            Some(Reply::Status(code, body)) => return Err(refused(code, body)),
            _ => {}
        }
    }
    Ok(summary)
}

/// Sets its flag when dropped.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}
