//! The semfuzz service: `semfuzz serve` stores findings, hands out work units to workers, and
//! shows a dashboard; `semfuzz token create` makes API tokens.
//!
//! - [`db`]: storage on SQLite or PostgreSQL (one SQL text for both, sqlx `Any`).
//! - [`api`]: the JSON API under `/api/v1`, `/healthz`, `/metrics`.
//! - [`dashboard`]: the server-rendered HTML pages.
//! - [`model`]: the API's types, from which the OpenAPI document is generated.
//! - [`strict_json`]: reading request bodies by the document's (JSON Schema's) rules.
//! - [`client`]: posting findings, proofs and LLVM verdicts as work goes, spooling what
//!   cannot be sent.
//! - [`worker`]: the worker's side of the work-unit protocol (`semfuzz worker`).

#![warn(missing_docs)]

pub mod api;
pub mod client;
pub mod dashboard;
pub mod db;
pub mod metrics;
pub mod model;
pub mod strict_json;
pub mod worker;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

pub use db::{Db, Target};

/// How the service runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Whether reads (API GETs, dashboard, /metrics) need a token too.
    pub read_token_required: bool,
    /// The largest request body accepted, bytes.
    pub max_body_bytes: usize,
    /// Every variant's text, for expanding campaign globs.
    pub variants: Vec<String>,
}

impl Config {
    /// The defaults, with the built-in spec's variants.
    pub fn new(variants: Vec<String>) -> Config {
        Config {
            read_token_required: false,
            max_body_bytes: 8 << 20,
            variants,
        }
    }
}

/// What every handler sees.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub db: Db,
    /// The configuration.
    pub config: Arc<Config>,
    /// Request metrics.
    pub metrics: Arc<metrics::Metrics>,
    /// The spec, for decoding operands on finding pages.
    pub spec: Arc<semfuzz_spec::Spec>,
}

/// The whole application: API, dashboard, errors for unknown paths and methods, the body
/// limit, and request metrics.
pub fn app(state: AppState) -> Router {
    let limit = state.config.max_body_bytes;
    api::routes()
        .merge(dashboard::routes())
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn_with_state(state.clone(), observe))
        .with_state(state)
}

/// Times each request into [`metrics::Metrics`], by route template (not raw path, so ids do
/// not explode the label set).
async fn observe(State(s): State<AppState>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched".to_string(), |p| p.as_str().to_string());
    let resp = next.run(req).await;
    s.metrics
        .observe(&method, &route, resp.status().as_u16(), start.elapsed());
    resp
}

/// Errors of [`serve`] and [`create_token`].
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Opening or migrating the database failed.
    #[error("{0}")]
    Db(#[from] db::Error),
    /// Binding or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The `on_ready` hook failed.
    #[error("{0}")]
    Ready(String),
}

/// What [`serve`] hands its `on_ready` hook once it listens.
pub struct Serving {
    /// The bound address.
    pub addr: SocketAddr,
    /// The open database.
    pub db: Db,
    /// The runtime, for the hook's database calls (it runs on a blocking thread).
    pub runtime: tokio::runtime::Handle,
}

/// Stops what an `on_ready` hook started and waits for it; run at Ctrl-C or SIGTERM while the
/// server still answers, so a local worker can post its last unit.
pub type Stopper = Box<dyn FnOnce() + Send>;

/// Opens the database, binds `listen` and serves until Ctrl-C or SIGTERM, then stops what
/// `on_ready` started, finishes the requests in flight and closes the database. `on_ready`
/// runs on a blocking thread once the socket is bound; an error from it stops the server.
pub async fn serve(
    target: &Target,
    listen: &str,
    config: Config,
    spec: Arc<semfuzz_spec::Spec>,
    on_ready: impl FnOnce(Serving) -> Result<Stopper, String> + Send + 'static,
) -> Result<(), ServeError> {
    let db = Db::open(target).await?;
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!("cannot listen on {listen}: {e} (pick another with --listen)"),
        )
    })?;
    let serving = Serving {
        addr: listener.local_addr()?,
        db: db.clone(),
        runtime: tokio::runtime::Handle::current(),
    };
    let stopper = tokio::task::spawn_blocking(move || on_ready(serving))
        .await
        .map_err(std::io::Error::other)?
        .map_err(ServeError::Ready)?;
    let state = AppState {
        db: db.clone(),
        config: Arc::new(config),
        metrics: Default::default(),
        spec,
    };
    let shutdown = async move {
        shutdown_signal().await;
        let _ = tokio::task::spawn_blocking(stopper).await;
    };
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown)
        .await?;
    db.close().await;
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// Opens (and migrates) the database and creates a token: `semfuzz token create`.
pub async fn create_token(target: &Target) -> Result<String, ServeError> {
    let db = Db::open(target).await?;
    let token = db.create_token().await?;
    db.close().await;
    Ok(token)
}

/// A multi-threaded Tokio runtime for the command line's blocking entry points.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}
