//! numba-cuda's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) as a semfuzz backend: the
//! external-backend protocol (`semfuzz-external`) with the adapter `adapter.py` of this crate,
//! run by Python with the numba-cuda that `cargo xtask setup` installs in `.deps/py`.
//!
//! The adapter runs one `@cuda.jit` kernel per batch under the simulator; `adapter.py` lists
//! which numba operation is taken to implement which PTX variant, and why.

#![warn(missing_docs)]

use semfuzz_backend::{Backend, BackendError, Identity};
use semfuzz_external::{Config, External};
use std::path::PathBuf;

/// The adapter, built in so the backend runs wherever the binary is.
const ADAPTER: &str = include_str!("../adapter.py");

/// The variable that points at the `.deps` directory of `cargo xtask setup`.
pub use semfuzz_backend::DEPS_ENV;
/// The variable that names the Python interpreter (default `python3`).
pub const PYTHON_ENV: &str = "SEMFUZZ_PYTHON";

/// The `.deps/py` directory holding numba-cuda (see [`semfuzz_backend::python_deps`]).
pub fn python_deps() -> Result<PathBuf, String> {
    semfuzz_backend::python_deps("numba_cuda")
}

/// The adapter's command line and environment.
pub fn config() -> Result<Config, String> {
    let py = python_deps()?;
    let python = std::env::var(PYTHON_ENV).unwrap_or_else(|_| "python3".to_string());
    let pythonpath = match std::env::var_os("PYTHONPATH") {
        Some(old) if !old.is_empty() => {
            std::env::join_paths([py.into_os_string(), old]).map_err(|e| e.to_string())?
        }
        _ => py.into_os_string(),
    };
    let batch_timeout = semfuzz_external::batch_timeout_from_env()?;
    Ok(Config {
        name: "numba-sim".to_string(),
        command: vec![python, "-c".to_string(), ADAPTER.to_string()],
        env: vec![
            (
                "PYTHONPATH".to_string(),
                pythonpath.to_string_lossy().into_owned(),
            ),
            ("NUMBA_ENABLE_CUDASIM".to_string(), "1".to_string()),
        ],
        handshake_timeout: batch_timeout * 2,
        batch_timeout,
    })
}

/// Whether numba's simulator can run here: starts the adapter and reads its identity.
pub fn probe(arg: Option<&str>) -> Result<Identity, String> {
    let backend = open(arg).map_err(|e| match e {
        BackendError::Unavailable { reason, .. } => reason,
        other => other.to_string(),
    })?;
    Ok(backend.identity().clone())
}

/// The `numba-sim` backend, its adapter started.
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    if let Some(arg) = arg {
        return Err(BackendError::Unavailable {
            backend: format!("numba-sim:{arg}"),
            reason: "numba-sim takes no argument: write `numba-sim`".to_string(),
        });
    }
    let config = config().map_err(|reason| BackendError::Unavailable {
        backend: "numba-sim".to_string(),
        reason,
    })?;
    Ok(Box::new(External::start(config)?))
}
