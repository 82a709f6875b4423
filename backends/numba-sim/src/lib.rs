//! numba-cuda's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) as a semfuzz backend: the
//! external-backend protocol (`semfuzz-external`) with the adapter `adapter.py` of this crate,
//! run by Python with the numba-cuda that `cargo xtask setup` installs in `.deps/py`.
//!
//! The adapter runs one `@cuda.jit` kernel per batch under the simulator; `adapter.py` lists
//! which numba operation is taken to implement which PTX variant, and why.
//!
//! A finding's class says whose it is: the backend compiles each mapped Python function with
//! numba's real compiler (`cuda.compile_ptx`, libNVVM, for sm_80; no GPU needed), reads that
//! PTX with `semfuzz-ptx`, and evaluates it on the finding's inputs: `+sim-only` where the PTX
//! numba runs on a GPU does not allow the simulator's result (the simulator disagrees with
//! numba itself), `+numba-too` where it does (numba's compiled code computes it as well).

#![warn(missing_docs)]

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_external::{Config, External};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{Spec, Variant};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    Ok(Box::new(NumbaSim {
        simulator: External::start(config)?,
        compiled: None,
    }))
}

/// The simulator, and (once a finding asks) what numba compiles each variant's function to.
struct NumbaSim {
    simulator: External,
    /// Per variant, the compiled PTX module's text; `Err` when numba's compiler cannot run
    /// here (no libNVVM), which leaves findings without a reading.
    compiled: Option<Result<HashMap<String, String>, String>>,
}

impl Backend for NumbaSim {
    fn identity(&self) -> &Identity {
        self.simulator.identity()
    }

    fn supports(&self, variant: &Variant) -> Support {
        self.simulator.supports(variant)
    }

    fn batch_size(&self) -> usize {
        self.simulator.batch_size()
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        self.simulator.run(variant, inputs, out)
    }

    fn triage(
        &mut self,
        spec: &Spec,
        variant: &Variant,
        inputs: &[u64],
        got: u64,
    ) -> Option<&'static str> {
        let modules = self.compiled.get_or_insert_with(compiled).as_ref().ok()?;
        let allows = compiled_allows(spec, modules.get(&variant.text)?, inputs)?;
        Some(if allows.accepts(got) {
            "numba-too"
        } else {
            "sim-only"
        })
    }
}

/// What the PTX function of `module` (one function, numba's `abi="c"`) allows for its one
/// result on `inputs`; `None` when it cannot be read or has another shape.
pub fn compiled_allows(spec: &Spec, module: &str, inputs: &[u64]) -> Option<Accept> {
    let f = semfuzz_ptx::load(spec, "numba.ptx", module, None).ok()?;
    if f.inputs.len() != inputs.len() || f.results.len() != 1 {
        return None;
    }
    let mut out = vec![Accept::default(); 1];
    semfuzz_spec::eval::Evaluator::new(&f.program).eval(inputs, &mut out);
    out.pop()
}

/// Per variant the adapter maps, the PTX module numba compiles its function to for sm_80
/// (`adapter.py --compiled`).
pub fn compiled() -> Result<HashMap<String, String>, String> {
    let py = python_deps()?;
    let home = cuda_home(&py)?;
    let python = std::env::var(PYTHON_ENV).unwrap_or_else(|_| "python3".to_string());
    let out = Command::new(python)
        .args(["-c", ADAPTER, "--compiled"])
        .env("PYTHONPATH", &py)
        .env("CUDA_HOME", &home)
        .env("LD_LIBRARY_PATH", home.join("nvvm/lib64"))
        .env_remove("NUMBA_ENABLE_CUDASIM")
        .output()
        .map_err(|e| format!("cannot run python3: {e}"));
    let _ = std::fs::remove_dir_all(&home);
    let out = out?;
    if !out.status.success() {
        return Err(format!(
            "numba's compiler failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("adapter.py --compiled: {e}"))
}

/// A fresh directory laid out as the CUDA_HOME numba-cuda looks for libNVVM in
/// (`nvvm/lib64`, `nvvm/libdevice`), made of links into the `nvidia-cuda-nvcc` wheel that setup
/// installs in `py`. The caller removes it.
pub fn cuda_home(py: &Path) -> Result<PathBuf, String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let home = std::env::temp_dir().join(format!(
        "semfuzz-numba-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let lib64 = home.join("nvvm/lib64");
    std::fs::create_dir_all(&lib64).map_err(|e| format!("{}: {e}", lib64.display()))?;
    let nvidia = py.join("nvidia");
    let cu = std::fs::read_dir(&nvidia)
        .map_err(|e| format!("{}: {e} (run `cargo xtask setup`)", nvidia.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("nvvm/libdevice").is_dir())
        .ok_or_else(|| format!("no CUDA wheel with nvvm/libdevice in {}", nvidia.display()))?;
    let link = |from: &Path, to: &Path| {
        std::os::unix::fs::symlink(from, to).map_err(|e| format!("{}: {e}", to.display()))
    };
    for lib in ["libnvvm.so", "libcudart.so"] {
        let found = std::fs::read_dir(cu.join("lib"))
            .map_err(|e| format!("{}: {e}", cu.join("lib").display()))?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(lib))
            })
            .ok_or_else(|| format!("no {lib}* in {}", cu.join("lib").display()))?;
        link(&found, &lib64.join(lib))?;
    }
    link(&cu.join("nvvm/libdevice"), &home.join("nvvm/libdevice"))?;
    Ok(home)
}
