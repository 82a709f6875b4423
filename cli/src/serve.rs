//! `semfuzz serve` and `semfuzz token create`: the service's command line (the service itself
//! is the `semfuzz-service` crate).

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use semfuzz_service::{Config, Target};
use semfuzz_spec::Spec;
use std::path::PathBuf;
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
    let rt = semfuzz_service::runtime().context("starting the async runtime")?;
    rt.block_on(semfuzz_service::serve(&target, &args.listen, config, Arc::new(spec), |addr| {
        eprintln!("semfuzz serve: dashboard at http://{addr}/ (Ctrl-C stops)");
    }))
    .with_context(|| format!("serving {}", describe(&target)))
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
    eprintln!("semfuzz token create: keep this token; it is not shown again (only its hash is stored)");
    Ok(())
}

/// The database for messages, without a URL's password.
fn describe(target: &Target) -> String {
    match target {
        Target::Sqlite(p) => format!("SQLite file {}", p.display()),
        Target::Url(u) => match u.split_once('@') {
            Some((scheme_user, host)) => {
                format!("{}@{host}", scheme_user.split(':').take(2).collect::<Vec<_>>().join(":"))
            }
            None => u.clone(),
        },
    }
}
