//! `semfuzz serve`, `semfuzz token create` and `semfuzz worker`: the service's command line
//! (the service itself is the `semfuzz-service` crate; the worker runs units with the campaign
//! engine).

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use semfuzz_fuzz::campaign::{self, Counters};
use semfuzz_fuzz::{registry, Finding, GeneratorKind};
use semfuzz_service::client::Reporter;
use semfuzz_service::model::{Lease, NewCampaign};
use semfuzz_service::worker::{run_worker, UnitRunner, WorkerConfig};
use semfuzz_service::{Config, Target};
use semfuzz_spec::Spec;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Where the database is.
#[derive(Args, Clone)]
pub struct DbArgs {
    /// The SQLite file (default ./semfuzz.db; created with WAL and foreign keys on).
    #[arg(long, value_name = "PATH", conflicts_with = "database_url")]
    db: Option<PathBuf>,
    /// A database URL, e.g. postgres://user@host/db (default: $DATABASE_URL, else --db).
    #[arg(long, value_name = "URL", env = "DATABASE_URL")]
    database_url: Option<String>,
}

impl DbArgs {
    fn target(&self) -> Target {
        match (&self.database_url, &self.db) {
            (Some(url), None) => Target::Url(url.clone()),
            (_, Some(path)) => Target::Sqlite(path.clone()),
            (None, None) => Target::Sqlite(PathBuf::from("semfuzz.db")),
        }
    }
}

/// `semfuzz serve`'s options.
#[derive(Args)]
pub struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Require a token for reads too (API GETs, dashboard, /metrics).
    #[arg(long)]
    read_token_required: bool,
    /// The largest request body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 8 << 20)]
    max_body_bytes: usize,
    #[command(flatten)]
    local: LocalArgs,
}

/// `semfuzz serve --local-worker`: the one-machine setup `cargo xtask run` starts.
#[derive(Args)]
pub struct LocalArgs {
    /// Also run a worker in this process on a continuous campaign over --local-variants
    /// against --local-backend; the campaign is created on the first start and resumed on
    /// later ones (same variants and backends).
    #[arg(long)]
    local_worker: bool,
    /// The local campaign's backends (repeatable; default: every available one of host,
    /// llvm, llvm:opt-16, numba-sim and cuda, as `semfuzz backends` reports them).
    #[arg(long = "local-backend", value_name = "B", requires = "local_worker")]
    local_backends: Vec<String>,
    /// The local campaign's variants: a glob over variant names.
    #[arg(
        long,
        value_name = "GLOB",
        default_value = "*",
        requires = "local_worker"
    )]
    local_variants: String,
    /// Cases per work unit of the local campaign (a unit's findings reach the dashboard
    /// when it completes).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 20_000,
        requires = "local_worker"
    )]
    local_cases_per_unit: i64,
}

/// `semfuzz token ...`.
#[derive(Subcommand)]
pub enum TokenCommand {
    /// Create an API token: printed once, only its hash is stored.
    Create(DbArgs),
}

/// Runs the service until Ctrl-C or SIGTERM.
pub fn serve(spec: Spec, args: ServeArgs) -> Result<()> {
    let mut config = Config::new(spec.variants.iter().map(|v| v.text.clone()).collect());
    config.read_token_required = args.read_token_required;
    config.max_body_bytes = args.max_body_bytes;
    let target = args.db.target();
    let spec = Arc::new(spec);
    let local = args.local;
    let rt = semfuzz_service::runtime().context("starting the async runtime")?;
    let worker_spec = spec.clone();
    let catalogue = config.variants.clone();
    rt.block_on(semfuzz_service::serve(
        &target,
        &args.listen,
        config,
        spec,
        move |serving| {
            eprintln!(
                "semfuzz serve: dashboard at http://{}/ (Ctrl-C stops)",
                serving.addr
            );
            if local.local_worker {
                start_local_worker(&serving, local, worker_spec, &catalogue)
            } else {
                Ok(Box::new(|| {}))
            }
        },
    ))
    .with_context(|| format!("serving {}", describe(&target)))
}

/// The backends a local campaign runs by default.
const LOCAL_BACKENDS: [&str; 4] = ["host", "llvm", "numba-sim", "cuda"];

/// Every listed form of [`LOCAL_BACKENDS`] that can run here (`llvm:opt-16` included).
fn available_backends() -> Vec<String> {
    let mut names = Vec::new();
    for entry in registry::BACKENDS
        .iter()
        .filter(|e| LOCAL_BACKENDS.contains(&e.name))
    {
        for &arg in entry.listed {
            if (entry.probe)(arg).is_ok() {
                names.push(arg.map_or(entry.name.to_string(), |a| format!("{}:{a}", entry.name)));
            }
        }
    }
    names
}

/// Finds (or creates) the local continuous campaign and starts a worker thread on it; the
/// returned stopper stops the worker after its current unit is posted.
fn start_local_worker(
    serving: &semfuzz_service::Serving,
    local: LocalArgs,
    spec: Arc<Spec>,
    catalogue: &[String],
) -> Result<semfuzz_service::Stopper, String> {
    let backends = if local.local_backends.is_empty() {
        available_backends()
    } else {
        local.local_backends
    };
    if backends.is_empty() {
        return Err("no backend is available for the local worker (see `semfuzz backends`)".into());
    }
    // The name identifies the campaign across restarts: same variants and backends, same one.
    let name = format!("local: {} on {}", local.local_variants, backends.join(", "));
    let db = &serving.db;
    let found = serving
        .runtime
        .block_on(db.campaigns())
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|c| c.name == name && c.status != "stopped");
    let campaign = match found {
        Some(c) => {
            eprintln!(
                "semfuzz serve: resuming campaign {} `{name}` ({} cases, {} mismatching so far)",
                c.id, c.cases, c.findings
            );
            c
        }
        None => {
            let new = NewCampaign {
                name: name.clone(),
                variants: local.local_variants,
                backends,
                generator: GeneratorKind::Boundary.to_string(),
                cases_per_unit: Some(local.local_cases_per_unit),
                rounds: Some(1),
                continuous: true,
            };
            let c = serving
                .runtime
                .block_on(db.create_campaign(&new, catalogue))
                .map_err(|e| format!("creating the local campaign: {e}"))?;
            eprintln!(
                "semfuzz serve: started continuous campaign {} `{name}` ({} units per round)",
                c.id, c.units
            );
            c
        }
    };
    let token = serving
        .runtime
        .block_on(db.create_token())
        .map_err(|e| e.to_string())?;
    let cfg = WorkerConfig {
        server: format!("http://{}", serving.addr),
        token,
        backends: campaign.backends,
        name: format!("local:{}", std::process::id()),
        lease_seconds: 60,
        exit_when_idle: false,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let worker = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut runner = EngineRunner { spec };
            // A unit that fails (a backend that breaks mid-campaign) is logged; the worker
            // goes on with the next one, and the failed unit's lease runs out for a retry.
            while !stop.load(Ordering::SeqCst) {
                match run_worker(cfg.clone(), &mut runner, &stop) {
                    Ok(s) => eprintln!(
                        "semfuzz serve: local worker stopped: {} units, {} cases, {} findings posted",
                        s.units, s.cases, s.findings
                    ),
                    Err(e) => {
                        eprintln!("semfuzz serve: local worker: {e}");
                        std::thread::sleep(std::time::Duration::from_secs(1));
                    }
                }
            }
        })
    };
    Ok(Box::new(move || {
        stop.store(true, Ordering::SeqCst);
        let _ = worker.join();
    }))
}

/// Creates a token and prints it.
pub fn token(cmd: TokenCommand) -> Result<()> {
    let TokenCommand::Create(db) = cmd;
    let target = db.target();
    let rt = semfuzz_service::runtime().context("starting the async runtime")?;
    let token = rt
        .block_on(semfuzz_service::create_token(&target))
        .with_context(|| format!("creating a token in {}", describe(&target)))?;
    outln!("{token}");
    eprintln!(
        "semfuzz token create: keep this token; it is not shown again (only its hash is stored)"
    );
    Ok(())
}

/// The database for messages, without a URL's password.
fn describe(target: &Target) -> String {
    match target {
        Target::Sqlite(p) => format!("SQLite file {}", p.display()),
        Target::Url(u) => match u.split_once('@') {
            Some((scheme_user, host)) => {
                format!(
                    "{}@{host}",
                    scheme_user.split(':').take(2).collect::<Vec<_>>().join(":")
                )
            }
            None => u.clone(),
        },
    }
}

/// `--report URL --token T [--spool FILE]` of `semfuzz fuzz` and `semfuzz prove`.
#[derive(Args, Clone)]
pub struct ReportArgs {
    /// Post results to the service at URL as they come (e.g. http://127.0.0.1:8080); what
    /// cannot be sent waits in --spool and is resent at the next post and at exit.
    #[arg(long, value_name = "URL", requires = "token")]
    report: Option<String>,
    /// The API token for --report (`semfuzz token create`).
    #[arg(long, value_name = "T", env = "SEMFUZZ_TOKEN")]
    token: Option<String>,
    /// Where batches wait while the service cannot take them.
    #[arg(long, value_name = "FILE", default_value = ".semfuzz-spool.jsonl")]
    spool: PathBuf,
}

impl ReportArgs {
    /// The reporter `--report` asks for, if it does.
    pub fn reporter(&self) -> Option<Reporter> {
        let url = self.report.as_deref()?;
        Some(Reporter::new(
            url,
            self.token.as_deref().unwrap_or_default(),
            &self.spool,
        ))
    }
}

/// `semfuzz worker`'s options.
#[derive(Args)]
pub struct WorkerArgs {
    /// The service's URL, e.g. http://127.0.0.1:8080.
    #[arg(long, value_name = "URL")]
    server: String,
    /// An API token (`semfuzz token create`).
    #[arg(long, value_name = "T", env = "SEMFUZZ_TOKEN")]
    token: String,
    /// A backend this worker runs (repeatable; default: any the campaign names).
    #[arg(long = "backend", value_name = "B")]
    backends: Vec<String>,
    /// Lease length in seconds; heartbeats go every third of it.
    #[arg(long, default_value_t = 60)]
    lease_seconds: i64,
    /// Exit when no unit is waiting instead of waiting for more.
    #[arg(long)]
    exit_when_idle: bool,
}

/// Runs leased units with the campaign engine, one unit at a time.
struct EngineRunner {
    spec: Arc<Spec>,
}

impl UnitRunner for EngineRunner {
    fn run(&mut self, lease: &Lease, stop: &AtomicBool) -> Result<(i64, Vec<Finding>), String> {
        let variant = self
            .spec
            .variants
            .iter()
            .find(|v| v.text == lease.variant)
            .ok_or_else(|| {
                format!(
                    "unit {}: no variant `{}` in this semfuzz",
                    lease.unit, lease.variant
                )
            })?;
        let generator: GeneratorKind = lease.generator.parse()?;
        let config = campaign::Config {
            generator,
            cases: Some(lease.cases.max(0) as u64),
            time: None,
            seed: lease.seed as u64,
            threads: 1,
            resume: 0,
            evaluator: semfuzz_jit::EvaluatorKind::Jit,
        };
        let backend = lease.backend.clone();
        let open = move || registry::open(&backend);
        let report = campaign::run(
            &self.spec,
            &[variant],
            &open,
            None,
            &config,
            &Counters::default(),
            stop,
        )
        .map_err(|e| {
            format!(
                "unit {} ({} on {}): {e}",
                lease.unit, lease.variant, lease.backend
            )
        })?;
        Ok((report.cases as i64, report.findings))
    }
}

/// Leases and runs units until Ctrl-C (or, with --exit-when-idle, an empty queue).
pub fn worker(spec: Spec, args: WorkerArgs) -> Result<()> {
    let name = format!(
        "{}:{}",
        std::fs::read_to_string("/etc/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "host".into()),
        std::process::id()
    );
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("installing the Ctrl-C handler")?;
    }
    let cfg = WorkerConfig {
        server: args.server,
        token: args.token,
        backends: args.backends,
        name,
        lease_seconds: args.lease_seconds,
        exit_when_idle: args.exit_when_idle,
    };
    let mut runner = EngineRunner {
        spec: Arc::new(spec),
    };
    let s = run_worker(cfg, &mut runner, &stop)?;
    eprintln!(
        "semfuzz worker: {} units, {} cases, {} findings posted, {} units lost to expired leases",
        s.units, s.cases, s.findings, s.lost
    );
    Ok(())
}
