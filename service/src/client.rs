//! Reporting to a service as work goes (`semfuzz fuzz --report`, `semfuzz prove --report`,
//! `semfuzz validate-llc --report`):
//! every batch is posted with an `Idempotency-Key`; a batch the service cannot take now (no
//! connection, a 5xx, a refused token) is appended to a spool file with its key and resent
//! before the next post and at exit. The service stores a key once, so a batch resent after
//! an answer was lost on the way back is not counted twice, and nothing is lost.
//!
//! One reporting process per spool file: a flush rewrites the file.

use crate::model::{Campaign, NewLlcCampaign, NewLlcVerdict, NewProof};
use semfuzz_fuzz::Finding;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The findings endpoint.
const FINDINGS: &str = "/api/v1/findings";
/// The proofs endpoint.
const PROOFS: &str = "/api/v1/proofs";
/// The LLVM translation-validation verdicts endpoint.
const LLC_VERDICTS: &str = "/api/v1/llc-verdicts";

/// A batch waiting in the spool file: one JSON line.
#[derive(Serialize, Deserialize)]
struct Spooled {
    /// The API path it goes to.
    path: String,
    /// Its `Idempotency-Key`, the same on every try.
    key: String,
    /// The JSON array posted.
    body: serde_json::Value,
}

/// What became of a batch, or of the spool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Batches the service stored (or had stored under their key already).
    pub sent: usize,
    /// Batches left in the spool file for later.
    pub spooled: usize,
    /// Why the last batch could not be sent, if one could not.
    pub last_error: Option<String>,
}

/// Reporting errors: the batch can never be stored as it is, or the spool file failed.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The service refused the batch's content (4xx other than auth): resending cannot help.
    #[error("the service at {server} refused the batch ({status}): {body}")]
    Refused {
        /// The service's URL.
        server: String,
        /// The HTTP status.
        status: u16,
        /// The service's JSON error.
        body: String,
    },
    /// Reading or writing the spool file failed.
    #[error("spool file {0}: {1}")]
    Spool(PathBuf, std::io::Error),
    /// A request that is not spooled found no service, or no answer it could read.
    #[error("the service at {0}: {1}")]
    Unreachable(String, String),
}

/// A client that posts findings, proofs and LLVM verdicts to one service, spooling what it cannot send.
pub struct Reporter {
    agent: ureq::Agent,
    server: String,
    token: String,
    spool: PathBuf,
}

/// How one post ended.
enum Outcome {
    Stored,
    /// Worth trying again later: no connection, 5xx, 401/403/408/429.
    Retry(String),
    Refused(u16, String),
}

impl Reporter {
    /// A reporter for the service at `server` (`http://host:8080`) with `token`, spooling
    /// into `spool`.
    pub fn new(server: &str, token: &str, spool: &Path) -> Reporter {
        Reporter {
            agent: ureq::AgentBuilder::new()
                .timeout_connect(Duration::from_secs(5))
                .timeout(Duration::from_secs(60))
                .build(),
            server: server.trim_end_matches('/').to_string(),
            token: token.to_string(),
            spool: spool.to_path_buf(),
        }
    }

    /// The service's URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The spool file.
    pub fn spool_path(&self) -> &Path {
        &self.spool
    }

    /// Resends the spool, then posts `findings` (nothing when empty).
    pub fn findings(&self, findings: &[Finding]) -> Result<Delivery, ReportError> {
        self.send(FINDINGS, findings)
    }

    /// Resends the spool, then posts `proofs` (nothing when empty).
    pub fn proofs(&self, proofs: &[NewProof]) -> Result<Delivery, ReportError> {
        self.send(PROOFS, proofs)
    }

    /// Resends the spool, then posts `verdicts` of `semfuzz validate-llc` (nothing when
    /// empty).
    pub fn llc_verdicts(&self, verdicts: &[NewLlcVerdict]) -> Result<Delivery, ReportError> {
        self.send(LLC_VERDICTS, verdicts)
    }

    /// Creates a `validate-llc` campaign. Sent once and never spooled: a campaign created
    /// twice would be run twice.
    pub fn llc_campaign(&self, campaign: &NewLlcCampaign) -> Result<Campaign, ReportError> {
        let unreachable = |e: String| ReportError::Unreachable(self.server.clone(), e);
        match self
            .agent
            .post(&format!("{}/api/v1/llc-campaigns", self.server))
            .set("authorization", &format!("Bearer {}", self.token))
            .send_json(campaign)
        {
            Ok(r) => r.into_json().map_err(|e| unreachable(e.to_string())),
            Err(ureq::Error::Status(status, r)) => Err(ReportError::Refused {
                server: self.server.clone(),
                status,
                body: r.into_string().unwrap_or_default(),
            }),
            Err(e) => Err(unreachable(e.to_string())),
        }
    }

    fn send(&self, path: &str, items: &[impl Serialize]) -> Result<Delivery, ReportError> {
        let mut delivery = self.flush()?;
        if items.is_empty() {
            return Ok(delivery);
        }
        let batch = Spooled {
            path: path.to_string(),
            key: new_key(),
            body: serde_json::to_value(items).expect("posted items serialise"),
        };
        // Batches go in order: while older ones wait, this one waits behind them.
        let outcome = if delivery.spooled > 0 {
            Outcome::Retry(delivery.last_error.clone().unwrap_or_default())
        } else {
            self.post(&batch)
        };
        match outcome {
            Outcome::Stored => delivery.sent += 1,
            Outcome::Retry(why) => {
                self.append(&[batch])?;
                delivery.spooled += 1;
                delivery.last_error = Some(why);
            }
            Outcome::Refused(status, body) => {
                return Err(ReportError::Refused {
                    server: self.server.clone(),
                    status,
                    body,
                })
            }
        }
        Ok(delivery)
    }

    /// Resends every spooled batch, in order, until one still cannot go; keeps that one and
    /// those after it. A batch the service refuses for its content is dropped with an
    /// error, since no resend can store it.
    pub fn flush(&self) -> Result<Delivery, ReportError> {
        let waiting = self.read_spool()?;
        let mut delivery = Delivery::default();
        if waiting.is_empty() {
            return Ok(delivery);
        }
        let mut rest = waiting.into_iter();
        let mut refused = None;
        let mut keep = Vec::new();
        for batch in rest.by_ref() {
            match self.post(&batch) {
                Outcome::Stored => delivery.sent += 1,
                Outcome::Retry(why) => {
                    delivery.last_error = Some(why);
                    keep.push(batch);
                    break;
                }
                Outcome::Refused(status, body) => {
                    refused = Some(ReportError::Refused {
                        server: self.server.clone(),
                        status,
                        body,
                    });
                }
            }
        }
        keep.extend(rest);
        delivery.spooled = keep.len();
        self.rewrite(&keep)?;
        match refused {
            Some(e) => Err(e),
            None => Ok(delivery),
        }
    }

    fn post(&self, batch: &Spooled) -> Outcome {
        match self
            .agent
            .post(&format!("{}{}", self.server, batch.path))
            .set("authorization", &format!("Bearer {}", self.token))
            .set("idempotency-key", &batch.key)
            .send_json(&batch.body)
        {
            Ok(_) => Outcome::Stored,
            Err(ureq::Error::Status(status, r)) => {
                let body = r.into_string().unwrap_or_default();
                if status >= 500 || [401, 403, 408, 429].contains(&status) {
                    Outcome::Retry(format!("{status} {body}"))
                } else {
                    Outcome::Refused(status, body)
                }
            }
            Err(e) => Outcome::Retry(e.to_string()),
        }
    }

    fn read_spool(&self) -> Result<Vec<Spooled>, ReportError> {
        let file = match std::fs::File::open(&self.spool) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
            Err(e) => return Err(ReportError::Spool(self.spool.clone(), e)),
        };
        let mut out = Vec::new();
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| ReportError::Spool(self.spool.clone(), e))?;
            if line.trim().is_empty() {
                continue;
            }
            out.push(serde_json::from_str(&line).map_err(|e| {
                ReportError::Spool(
                    self.spool.clone(),
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("line {}: {e}", i + 1),
                    ),
                )
            })?);
        }
        Ok(out)
    }

    fn append(&self, batches: &[Spooled]) -> Result<(), ReportError> {
        append_to(&self.spool, batches).map_err(|e| ReportError::Spool(self.spool.clone(), e))
    }

    /// Replaces the spool with `keep` (removing it when empty), through a renamed temporary
    /// file so a crash leaves the old spool or the new one, never half of one.
    fn rewrite(&self, keep: &[Spooled]) -> Result<(), ReportError> {
        let io = |e| ReportError::Spool(self.spool.clone(), e);
        if keep.is_empty() {
            return match std::fs::remove_file(&self.spool) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(e)),
                _ => Ok(()),
            };
        }
        let mut tmp = self.spool.clone().into_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let _ = std::fs::remove_file(&tmp);
        append_to(&tmp, keep).map_err(io)?;
        std::fs::rename(&tmp, &self.spool).map_err(io)
    }
}

/// Appends `batches` to `path` as JSON lines and syncs: a spooled batch must survive the
/// process dying right after.
fn append_to(path: &Path, batches: &[Spooled]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    for b in batches {
        let mut line = serde_json::to_vec(b).expect("a spooled batch serialises");
        line.push(b'\n');
        file.write_all(&line)?;
    }
    file.sync_all()
}

/// A fresh idempotency key: 128 random bits, hex.
fn new_key() -> String {
    let mut bytes = [0u8; 16];
    // Without randomness, time and process id still keep keys apart across runs.
    if getrandom::getrandom(&mut bytes).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (t ^ (u128::from(std::process::id()) << 64)).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
