//! The one trait every semfuzz backend implements.
//!
//! A backend is anything that computes PTX/SASS floating-point instructions: the host CPU, LLVM's
//! constant folder, an emulator behind a process, a real GPU, the Z3 encoding. The campaign
//! engine (`semfuzz-fuzz`) hands it one variant and a batch of input tuples and gets, per case,
//! the destination's bits, or the backend's word that it has nothing to say about that case.
//!
//! Inputs are laid out as `semfuzz check` reads them: one row per case, one `u64` per entry of
//! [`Variant::sources`] (register values, immediates, SASS operand-modifier fields, the old
//! destination), each masked to its width. A result is the whole first destination register
//! (`variant.program.dests[0]`), lanes packed from bit 0 as `check` reads them.

#![warn(missing_docs)]

use semfuzz_spec::{Spec, Variant};
use std::fmt;
use std::path::{Path, PathBuf};

/// Who computed a result: every finding carries it, and it is part of a finding's signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// The name as given on the command line (`host`, `llvm:opt-16`, `external:./sim`).
    pub name: String,
    /// The implementation's version (`LLVM 22.1.0`, `numba-cuda 0.30.4`, `driver 13.0`).
    pub version: String,
    /// The machine or device it ran on (`AMD EPYC (avx512_bf16)`, `NVIDIA H100 (sm_90)`).
    pub device: String,
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}; {})", self.name, self.version, self.device)
    }
}

/// What a backend made of one case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The destination register's bits.
    Bits(u64),
    /// The backend does not implement this case (an input form it cannot express).
    Unsupported,
    /// The backend ran but gave no answer to compare (LLVM left the call unfolded).
    NoVerdict,
}

/// Whether a backend can run a variant at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// It runs every case of the variant (each may still answer [`Verdict::NoVerdict`]).
    Yes,
    /// It cannot run the variant, and why (`no F16C on this CPU`, `no NVVM intrinsic`).
    No(String),
}

/// A batch that could not be run: the campaign reports it and goes on with the next batch.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The backend's process or library failed (died, hung past its timeout, wrote garbage).
    #[error("{backend}: {message}")]
    Failed {
        /// The backend's name.
        backend: String,
        /// What happened, in words a user can act on.
        message: String,
    },
    /// The backend cannot be used at all on this machine.
    #[error("{backend} is unavailable: {reason}")]
    Unavailable {
        /// The backend's name.
        backend: String,
        /// Why (`no libcuda.so.1`, `opt-16 not found`).
        reason: String,
    },
}

impl BackendError {
    /// A failed batch of `backend`.
    pub fn failed(backend: &str, message: impl Into<String>) -> BackendError {
        BackendError::Failed {
            backend: backend.to_string(),
            message: message.into(),
        }
    }
}

/// The variable that points at the `.deps` directory `cargo xtask setup` made, for a binary
/// run away from its checkout.
pub const DEPS_ENV: &str = "SEMFUZZ_DEPS";

/// The `.deps/py` directory (the Python packages and NVIDIA tools `cargo xtask setup`
/// installs) that holds `package` (`llvmlite`, `numba_cuda`, `nvidia/cu13/bin`): see
/// [`deps_dir`].
pub fn python_deps(package: &str) -> Result<PathBuf, String> {
    deps_dir("py", package)
}

/// The directory `.deps/{subdir}` that `cargo xtask setup` made (`py`, `solvers`, `z3`) and
/// that holds `package`: `$SEMFUZZ_DEPS/{subdir}`, else the nearest `.deps/{subdir}` above the
/// running executable or above this crate's source. The error says how to install it.
pub fn deps_dir(subdir: &str, package: &str) -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(DEPS_ENV) {
        let py = Path::new(&dir).join(subdir);
        return if py.join(package).exists() {
            Ok(py)
        } else {
            Err(format!(
                "no {package} in {} ({DEPS_ENV}): run `cargo xtask setup` or point {DEPS_ENV} \
                 at the .deps directory it made",
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
        .map(|dir| dir.join(".deps").join(subdir))
        .find(|py| py.join(package).exists());
    found.ok_or_else(|| {
        format!(
            "{package} is not installed: run `cargo xtask setup` (no .deps/{subdir}/{package} \
             above the semfuzz binary; set {DEPS_ENV} to the .deps directory elsewhere)"
        )
    })
}

/// The error for `name:arg` where backend `name` takes no argument.
pub fn takes_no_argument(name: &str, arg: Option<&str>) -> Result<(), BackendError> {
    match arg {
        None => Ok(()),
        Some(a) => Err(BackendError::Unavailable {
            backend: name.to_string(),
            reason: format!("`{name}` takes no argument, but `{name}:{a}` was given"),
        }),
    }
}

/// A backend: runs batches of one variant at a time.
///
/// One value serves one thread; the campaign opens one per thread.
pub trait Backend: Send {
    /// Who computes the results.
    fn identity(&self) -> &Identity;

    /// Whether this backend can run `variant`; called once per variant before any batch.
    fn supports(&self, variant: &Variant) -> Support;

    /// How many cases a batch should hold for this backend to amortise its overhead (a
    /// process start, a kernel launch).
    fn batch_size(&self) -> usize {
        4096
    }

    /// Runs `out.len()` cases of `variant`; row `i` of `inputs` (`variant.sources.len()`
    /// values) gives `out[i]`.
    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError>;

    /// Where this backend computes a variant in another language with semantics of its own
    /// (LLVM's constant folder computes LLVM IR, which LangRef defines), that language's
    /// reading of `got`, a result the spec rejects for the source row `inputs`: a word the
    /// campaign appends to the finding's class (`wrong-nan+opt-level`). The `llvm` backends
    /// say `folding-bug` (the IR does not allow it either) or `opt-level` (the IR allows it:
    /// the compiler may fold so, and the program's result then changes with the optimisation
    /// level). `None`, the default: no such reading, or none decided.
    fn triage(
        &mut self,
        _spec: &Spec,
        _variant: &Variant,
        _inputs: &[u64],
        _got: u64,
    ) -> Option<&'static str> {
        None
    }
}

/// PTX's rounding modifiers (`.rn`, `.rz`, `.rm`, `.rp`), without dots.
pub const ROUNDINGS: [&str; 4] = ["rn", "rz", "rm", "rp"];

/// The dot-separated words of a PTX variant's text: `add.rn.ftz.f32` gives the opcode `add`
/// and the modifiers `rn`, `ftz`, `f32` in order. Backends that map variants onto their own
/// operations read them through this.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Words<'v> {
    /// The opcode.
    pub opcode: &'v str,
    /// Modifiers and types, in the order the text writes them, without dots.
    pub modifiers: Vec<&'v str>,
}

impl<'v> Words<'v> {
    /// Splits `variant`'s text.
    pub fn of(variant: &'v Variant) -> Words<'v> {
        let mut parts = variant.text.split('.');
        let opcode = parts.next().unwrap_or_default();
        Words {
            opcode,
            modifiers: parts.collect(),
        }
    }

    /// Whether `modifier` is written.
    pub fn has(&self, modifier: &str) -> bool {
        self.modifiers.contains(&modifier)
    }

    /// The last modifier: a PTX variant's (last) type, e.g. `f32` in `add.rn.f32`.
    pub fn ty(&self) -> Option<&'v str> {
        self.modifiers.last().copied()
    }

    /// The rounding modifier written (`rn`, `rz`, `rm`, `rp`), if any.
    pub fn rounding(&self) -> Option<&'v str> {
        self.modifiers
            .iter()
            .copied()
            .find(|m| ROUNDINGS.contains(m))
    }
}
