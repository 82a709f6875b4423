//! `semfuzz serve`, `semfuzz token create` and `semfuzz worker`: the service's command line
//! (the service itself is the `semfuzz-service` crate; the worker runs units with the campaign
//! engine).

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_fuzz::campaign::{self, Counters};
use semfuzz_fuzz::{registry, GeneratorKind};
use semfuzz_service::client::Reporter;
use semfuzz_service::db::FIRST_PASS_CASES;
use semfuzz_service::model::{BackendPass, Lease, NewCampaign};
use semfuzz_service::worker::{run_worker, UnitResult, UnitRunner, WorkerConfig};
use semfuzz_service::{Config, Target};
use semfuzz_spec::{Spec, Variant};
use semfuzz_tv::campaign::LlcRunner;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// Every listed form of [`LOCAL_BACKENDS`] that can run here (`llvm:opt-16` included), and
/// each one that cannot with the reason its probe gives.
fn available_backends() -> (Vec<String>, Vec<(String, String)>) {
    let (mut names, mut missing) = (Vec::new(), Vec::new());
    for entry in registry::BACKENDS
        .iter()
        .filter(|e| LOCAL_BACKENDS.contains(&e.name))
    {
        for &arg in entry.listed {
            let name = arg.map_or(entry.name.to_string(), |a| format!("{}:{a}", entry.name));
            match (entry.probe)(arg) {
                Ok(_) => names.push(name),
                Err(why) => missing.push((name, why)),
            }
        }
    }
    (names, missing)
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
        let (found, missing) = available_backends();
        let missing: Vec<String> = missing
            .iter()
            .map(|(name, why)| format!("not {name}: {why}"))
            .collect();
        eprintln!(
            "semfuzz serve: backends: {}{}",
            if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            },
            if missing.is_empty() {
                String::new()
            } else {
                format!("; {}", missing.join("; "))
            }
        );
        found
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
                "semfuzz serve: started continuous campaign {} `{name}`: {} variants × {} backends",
                c.id,
                c.units / c.backends.len().max(1) as i64,
                c.backends.len()
            );
            c
        }
    };
    eprintln!(
        "semfuzz serve: wide before deep: each pass runs every (variant, backend) pair once, \
         families interleaved; the first with {FIRST_PASS_CASES} cases a pair, each later one \
         doubling them up to {} (more often where a pair found something); one worker thread \
         per backend, so a slow one holds up no other",
        campaign.cases_per_unit
    );
    let token = serving
        .runtime
        .block_on(db.create_token())
        .map_err(|e| e.to_string())?;
    let stop = Arc::new(AtomicBool::new(false));
    let mut threads: Vec<std::thread::JoinHandle<()>> = campaign
        .backends
        .iter()
        .map(|backend| {
            let cfg = WorkerConfig {
                server: format!("http://{}", serving.addr),
                token: token.clone(),
                backends: vec![backend.clone()],
                llcs: Vec::new(),
                name: format!("local:{}:{backend}", std::process::id()),
                lease_seconds: 60,
                exit_when_idle: false,
            };
            let (stop, spec) = (stop.clone(), spec.clone());
            std::thread::spawn(move || local_worker(cfg, spec, &stop))
        })
        .collect();
    threads.push({
        let (stop, db, rt) = (stop.clone(), db.clone(), serving.runtime.clone());
        let id = campaign.id;
        let read = move || {
            rt.block_on(async { Ok((db.passes(id).await?, db.matrix_counts().await?)) })
                .map_err(|e: semfuzz_service::db::Error| e.to_string())
        };
        std::thread::spawn(move || progress_lines(read, &stop))
    });
    Ok(Box::new(move || {
        stop.store(true, Ordering::SeqCst);
        for t in threads {
            let _ = t.join();
        }
    }))
}

/// One backend's worker of `serve --local-worker`, until `stop`.
fn local_worker(cfg: WorkerConfig, spec: Arc<Spec>, stop: &AtomicBool) {
    // It leases no validate-llc unit (its `llcs` are empty): their solver timeout is unused.
    let mut runner = EngineRunner::new(spec, 10_000);
    // A unit that fails (a backend that breaks mid-campaign) is logged; the worker goes on
    // with the next one, and the failed unit's lease runs out for a retry.
    while !stop.load(Ordering::SeqCst) {
        match run_worker(cfg.clone(), &mut runner, stop) {
            Ok(s) => eprintln!(
                "semfuzz serve: local worker for {} stopped: {} units, {} cases, {} findings posted",
                cfg.backends.join(", "),
                s.units,
                s.cases,
                s.findings
            ),
            Err(e) => {
                eprintln!("semfuzz serve: local worker: {e}");
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

/// A campaign's passes per backend, and the findings per (variant, backend) with how many
/// are open.
type Progress = (Vec<BackendPass>, Vec<(String, String, i64, i64)>);

/// How often the main job says where its campaign stands.
const PROGRESS_EVERY: Duration = Duration::from_secs(60);

/// Prints, every [`PROGRESS_EVERY`] until `stop`, one line: each backend's pass (with the
/// pairs it has left and the estimate of when it ends) and the findings so far per backend.
fn progress_lines(read: impl Fn() -> Result<Progress, String>, stop: &AtomicBool) {
    let started = Instant::now();
    let mut next = started + PROGRESS_EVERY;
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(200));
        if Instant::now() < next {
            continue;
        }
        next += PROGRESS_EVERY;
        match read() {
            Ok((passes, counts)) => eprintln!(
                "semfuzz serve: {} min: {}",
                started.elapsed().as_secs() / 60,
                progress_line(&passes, &counts)
            ),
            Err(e) => eprintln!("semfuzz serve: reading the campaign's progress: {e}"),
        }
    }
}

/// `host pass 2 (3,100 of 5,461 left), llvm pass 1 (...); 57 findings (host 40, llvm 17)`.
fn progress_line(passes: &[BackendPass], counts: &[(String, String, i64, i64)]) -> String {
    let backends: Vec<String> = passes
        .iter()
        .map(|p| match p.pass {
            None => format!("{} runs none of the variants", p.backend),
            Some(pass) => format!(
                "{} pass {} ({} of {} left{})",
                p.backend,
                pass + 1,
                p.left,
                p.pairs - p.unsupported,
                p.eta_seconds
                    .map(|s| format!(", ~{} min", (s + 59) / 60))
                    .unwrap_or_default()
            ),
        })
        .collect();
    let mut by_backend: Vec<(String, i64)> = Vec::new();
    for (_, backend, _, total) in counts {
        match by_backend.iter_mut().find(|(b, _)| b == backend) {
            Some((_, n)) => *n += total,
            None => by_backend.push((backend.clone(), *total)),
        }
    }
    by_backend.sort();
    let total: i64 = by_backend.iter().map(|(_, n)| n).sum();
    let each: Vec<String> = by_backend.iter().map(|(b, n)| format!("{b} {n}")).collect();
    format!(
        "{}; {total} findings{}",
        backends.join(", "),
        if each.is_empty() {
            String::new()
        } else {
            format!(" ({})", each.join(", "))
        }
    )
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
    /// An LLVM compiler this worker runs `validate-llc` campaign units with (repeatable:
    /// llvmlite, llc-16, a path; `none` for no such units; default: every one this machine
    /// has, as `validate-llc --llc all` finds them).
    #[arg(long = "llc", value_name = "NAME")]
    llcs: Vec<String>,
    /// The solver's timeout per query of a `validate-llc` unit: 5s, 500ms, 1m.
    #[arg(long, default_value = "10s", value_parser = crate::prove::parse_timeout)]
    timeout: u32,
    /// Lease length in seconds; heartbeats go every third of it.
    #[arg(long, default_value_t = 60)]
    lease_seconds: i64,
    /// Exit when no unit is waiting instead of waiting for more.
    #[arg(long)]
    exit_when_idle: bool,
}

/// Runs leased units with the campaign engine, one unit at a time, keeping each backend it
/// opened for the next unit; `validate-llc` units go to [`LlcRunner`].
struct EngineRunner {
    spec: Arc<Spec>,
    open: HashMap<String, Kept>,
    llc: LlcRunner,
}

/// A backend kept open across units, and who it is.
type Kept = (Identity, Arc<Mutex<Box<dyn Backend>>>);

/// A kept backend as the engine opens it: each "open" is the same instance. Opening one
/// starts a process or a context (numba's simulator imports for seconds), which every small
/// unit of a first pass would otherwise pay. The engine runs a unit on one thread, so the
/// lock is never contended.
struct SharedBackend(Identity, Arc<Mutex<Box<dyn Backend>>>);

impl SharedBackend {
    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn Backend>> {
        self.1.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Backend for SharedBackend {
    fn identity(&self) -> &Identity {
        &self.0
    }
    fn supports(&self, variant: &Variant) -> Support {
        self.lock().supports(variant)
    }
    fn batch_size(&self) -> usize {
        self.lock().batch_size()
    }
    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        self.lock().run(variant, inputs, out)
    }
}

impl EngineRunner {
    fn new(spec: Arc<Spec>, llc_timeout_ms: u32) -> EngineRunner {
        EngineRunner {
            llc: LlcRunner::new(
                spec.clone(),
                semfuzz_tv::campaign::options(llc_timeout_ms, crate::prove::default_cache()),
            ),
            spec,
            open: HashMap::new(),
        }
    }

    /// The backend `name`, opened on first use.
    fn backend(&mut self, name: &str) -> Result<Kept, BackendError> {
        if let Some(kept) = self.open.get(name) {
            return Ok(kept.clone());
        }
        let b = registry::open(name)?;
        let kept = (b.identity().clone(), Arc::new(Mutex::new(b)));
        self.open.insert(name.to_string(), kept.clone());
        Ok(kept)
    }
}

impl UnitRunner for EngineRunner {
    fn run(&mut self, lease: &Lease, stop: &AtomicBool) -> Result<UnitResult, String> {
        if lease.target.is_some() {
            let verdict = self.llc.run(lease).map_err(|e| {
                format!(
                    "unit {} ({} at {:?} with {}): {e:#}",
                    lease.unit, lease.variant, lease.target, lease.backend
                )
            })?;
            return Ok(UnitResult {
                llc_verdicts: vec![verdict],
                ..UnitResult::default()
            });
        }
        // Every variant the text spells (`min.f32` with two or three sources).
        let spec = self.spec.clone();
        let variants: Vec<&Variant> = spec
            .variants
            .iter()
            .filter(|v| v.text == lease.variant)
            .collect();
        if variants.is_empty() {
            return Err(format!(
                "unit {}: no variant `{}` in this semfuzz",
                lease.unit, lease.variant
            ));
        }
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
        let (identity, kept) = self.backend(&lease.backend).map_err(|e| {
            format!(
                "unit {} ({} on {}): {e}",
                lease.unit, lease.variant, lease.backend
            )
        })?;
        let open = move || -> Result<Box<dyn Backend>, BackendError> {
            Ok(Box::new(SharedBackend(identity.clone(), kept.clone())))
        };
        let report = campaign::run(
            &spec,
            &variants,
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
        Ok(UnitResult {
            cases: report.cases as i64,
            findings: report.findings,
            // Unsupported when the backend runs none of them.
            unsupported: (report.variants_run == 0)
                .then(|| report.skipped.into_iter().next().map(|(_, why)| why))
                .flatten(),
            llc_verdicts: Vec::new(),
        })
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
    let llcs = match args.llcs.as_slice() {
        [] => semfuzz_tv::campaign::available(),
        [none] if none == "none" => Vec::new(),
        named => named.to_vec(),
    };
    let cfg = WorkerConfig {
        server: args.server,
        token: args.token,
        backends: args.backends,
        llcs,
        name,
        lease_seconds: args.lease_seconds,
        exit_when_idle: args.exit_when_idle,
    };
    let mut runner = EngineRunner::new(Arc::new(spec), args.timeout);
    let s = run_worker(cfg, &mut runner, &stop)?;
    eprintln!(
        "semfuzz worker: {} units, {} cases, {} findings and {} validate-llc verdicts posted, {} units lost to expired leases",
        s.units, s.cases, s.findings, s.verdicts, s.lost
    );
    Ok(())
}
