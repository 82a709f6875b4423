//! numba-cuda's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) as a semfuzz backend: the
//! external-backend protocol (`semfuzz-external`) with the adapter `adapter.py` of this crate,
//! run by Python with the numba-cuda that `cargo xtask setup` installs in `.deps/py`.
//!
//! The adapter runs one `@cuda.jit` kernel per batch under the simulator; `adapter.py` lists
//! which numba operation is taken to implement which PTX variant, and why.

#![warn(missing_docs)]

use semfuzz_backend::{Backend, BackendError, Identity};
use semfuzz_external::{Config, External};
use std::path::{Path, PathBuf};

/// The adapter, built in so the backend runs wherever the binary is.
const ADAPTER: &str = include_str!("../adapter.py");

/// The variable that points at the `.deps` directory of `cargo xtask setup`.
pub const DEPS_ENV: &str = "SEMFUZZ_DEPS";
/// The variable that names the Python interpreter (default `python3`).
pub const PYTHON_ENV: &str = "SEMFUZZ_PYTHON";

/// The `.deps/py` directory holding numba-cuda: under `$SEMFUZZ_DEPS`, else in the nearest
/// `.deps` above the running executable or above this crate's source.
pub fn python_deps() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(DEPS_ENV) {
        let py = Path::new(&dir).join("py");
        return if py.join("numba_cuda").is_dir() {
            Ok(py)
        } else {
            Err(format!(
                "no numba_cuda in {} ({DEPS_ENV}): run `cargo xtask setup` or point {DEPS_ENV} at \
                 the .deps directory it made",
                py.display()
            ))
        };
    }
    let exe = std::env::current_exe().ok();
    let found = exe
        .iter()
        .map(PathBuf::as_path)
        .chain([Path::new(env!("CARGO_MANIFEST_DIR"))])
        .flat_map(Path::ancestors)
        .map(|dir| dir.join(".deps").join("py"))
        .find(|py| py.join("numba_cuda").is_dir());
    found.ok_or_else(|| {
        format!(
            "numba-cuda is not installed: run `cargo xtask setup` (no .deps/py/numba_cuda \
                 above the semfuzz binary; set {DEPS_ENV} to the .deps directory elsewhere)"
        )
    })
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
