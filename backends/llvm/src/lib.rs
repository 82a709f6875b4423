//! LLVM's constant folder as a semfuzz backend: what a compiler computes for a PTX instruction
//! when its operands are constants.
//!
//! Each case becomes one IR function calling the NVVM intrinsic of the variant (or the plain
//! IR operation NVPTX selects the instruction from) on constant operands; one process per
//! batch runs `instcombine` over the module and prints it; a function folded to a constant
//! gives the result bits, one left with its call gives [`Verdict::NoVerdict`].
//!
//! Backends (the command line's `llvm[+SPELLING][:ARG]`):
//! - `llvm`: the LLVM inside llvmlite (installed into `.deps/py` by `cargo xtask setup`),
//!   driven by `fold.py`, which this crate embeds.
//! - `llvm:opt-16`, `llvm:/path/to/opt`: an `opt` binary (`opt -passes=instcombine -S`),
//!   looked up on `PATH` unless the argument has a `/`.
//! - `llvm+nvvm`, `llvm+nvvm+daz`, `llvm+ir`, `llvm+ir+daz` (and `llvm+ir:opt-16`, ...): one
//!   IR spelling of every variant instead of the default one (README.md, "Spellings").

#![warn(missing_docs)]

pub mod fold_check;
mod module;
mod route;

use route::Spelling;
use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_spec::ir::Program;
use semfuzz_spec::{Spec, Variant};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// The driver run by `python3` for the `llvm` backend.
const FOLD_PY: &str = include_str!("../fold.py");

/// How long Z3 may search an IR program's intermediate choices when triaging a finding (the
/// routes are one instruction each, whose accept sets are exact, so it is not expected to run).
const TRIAGE_REACH_MS: u32 = 1_000;

/// How long one batch may take before the process is killed and the batch fails.
const BATCH_TIMEOUT: Duration = Duration::from_secs(300);

/// The device every LLVM backend reports.
const DEVICE: &str = "host (constant folder)";

/// Cases per batch: large enough that a process start (about 0.1 s for llvmlite, 0.02 s for
/// `opt`) stays under a tenth of the batch (docs/BENCHMARKS.md has the measurement).
const BATCH_SIZE: usize = 65536;

/// `name` on `PATH` (or `name` itself when it names a path).
fn find_program(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Path::new(name).is_file().then(|| PathBuf::from(name));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The program that folds a module: reads IR on stdin, prints the folded IR.
#[derive(Clone, Debug)]
pub enum Folder {
    /// `python3 -c FOLD_PY` with llvmlite on `PYTHONPATH`.
    Llvmlite {
        /// The `.deps/py` directory.
        pythonpath: PathBuf,
    },
    /// `opt -passes=instcombine -S`.
    Opt {
        /// The binary.
        path: PathBuf,
    },
}

impl Folder {
    /// The folder `arg` names (as the backend's `llvm[:ARG]`: `None` for llvmlite's LLVM,
    /// `Some("opt-16")` or a path for an `opt`), or why there is none.
    pub fn find(arg: Option<&str>) -> Result<Folder, String> {
        match arg {
            None => {
                let pythonpath = semfuzz_backend::python_deps("llvmlite")?;
                Ok(Folder::Llvmlite { pythonpath })
            }
            Some("") => {
                Err("`llvm:` needs an opt binary after the colon, e.g. `llvm:opt-16`".into())
            }
            Some(name) => match find_program(name) {
                Some(path) => Ok(Folder::Opt { path }),
                None => Err(format!("{name} not found")),
            },
        }
    }

    /// The command that folds the module on its stdin.
    fn fold_command(&self) -> Command {
        match self {
            Folder::Llvmlite { pythonpath } => {
                let mut c = Command::new("python3");
                c.env("PYTHONPATH", pythonpath).arg("-c").arg(FOLD_PY);
                c
            }
            Folder::Opt { path } => {
                let mut c = Command::new(path);
                c.args(["-passes=instcombine", "-S", "-"]);
                c
            }
        }
    }

    /// The LLVM version, e.g. `LLVM 22.1.0`.
    pub fn version(&self) -> Result<String, String> {
        let mut command = match self {
            Folder::Llvmlite { .. } => self.fold_command(),
            Folder::Opt { path } => Command::new(path),
        };
        let text = exec(command.arg("--version"), "")?;
        let version = match self {
            Folder::Llvmlite { .. } => Some(text.trim()),
            // "Debian LLVM version 16.0.6", "LLVM version 18.1.8", "Homebrew LLVM version ...".
            Folder::Opt { .. } => text
                .lines()
                .find_map(|l| l.split_once("LLVM version "))
                .map(|(_, v)| v.split_whitespace().next().unwrap_or_default()),
        };
        match version {
            Some(v) if !v.is_empty() => Ok(format!("LLVM {v}")),
            _ => Err(format!(
                "no LLVM version in its --version output: {}",
                text.trim()
            )),
        }
    }

    /// The folded module `ir`.
    fn fold(&self, ir: &str) -> Result<String, String> {
        exec(&mut self.fold_command(), ir)
    }
}

/// Runs `command` with `input` on its stdin; its stdout, or what went wrong.
fn exec(command: &mut Command, input: &str) -> Result<String, String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    // Write and read on threads so that neither pipe can fill up and stall the other.
    let mut stdin = child.stdin.take();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        stdin.as_mut().map(|s| s.write_all(input.as_bytes()));
    });
    let reader = drain(child.stdout.take());
    let errors = drain(child.stderr.take());
    let status = match child.wait_timeout(BATCH_TIMEOUT) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{program} ran past {}s and was killed",
                BATCH_TIMEOUT.as_secs()
            ));
        }
        Err(e) => return Err(format!("waiting for {program}: {e}")),
    };
    let _ = writer.join();
    let stdout = reader.join().unwrap_or_default();
    let stderr = errors.join().unwrap_or_default();
    if status.success() {
        Ok(stdout)
    } else {
        let last: Vec<&str> = stderr.lines().rev().take(6).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        Err(format!("{program} failed ({status}): {}", last.join("; ")))
    }
}

/// Reads all of `pipe` on a thread of its own.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// The name a backend has on the command line, from the argument the registry gives it:
/// `None` (`llvm`), the folder (`opt-16`: `llvm:opt-16`) or a spelling first
/// (`+ir+daz:opt-16`: `llvm+ir+daz:opt-16`).
fn name(arg: Option<&str>) -> String {
    match arg {
        None => "llvm".to_string(),
        Some(a) if a.starts_with('+') => format!("llvm{a}"),
        Some(a) => format!("llvm:{a}"),
    }
}

/// The spelling and the folder's argument (see [`Folder::find`]) of the backend `arg` names.
fn parse(arg: Option<&str>) -> Result<(Spelling, Option<&str>), String> {
    let Some(spelled) = arg.filter(|a| a.starts_with('+')) else {
        return Ok((Spelling::Default, arg));
    };
    let (suffix, folder) = match spelled.split_once(':') {
        Some((s, f)) => (s, Some(f)),
        None => (spelled, None),
    };
    let spelling = Spelling::parse(suffix).ok_or_else(|| {
        let known: Vec<&str> = Spelling::ALL[1..].iter().map(|s| s.suffix()).collect();
        format!(
            "`{suffix}` is no IR spelling; the spellings are {}",
            known.join(", ")
        )
    })?;
    Ok((spelling, folder))
}

/// Whether the LLVM `arg` names is available (`None`: llvmlite's; `Some("opt-16")`: an opt
/// binary; `Some("+nvvm:opt-16")`: that one in a spelling): its identity, or the reason it is
/// not (`opt-99 not found`).
pub fn probe(arg: Option<&str>) -> Result<Identity, String> {
    let folder = Folder::find(parse(arg)?.1)?;
    Ok(Identity {
        name: name(arg),
        version: folder.version()?,
        device: DEVICE.to_string(),
    })
}

/// Opens the LLVM backend `arg` names (see [`probe`]).
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    let unavailable = |reason| BackendError::Unavailable {
        backend: name(arg),
        reason,
    };
    let (spelling, folder) = parse(arg).map_err(unavailable)?;
    let folder = Folder::find(folder).map_err(unavailable)?;
    let version = folder.version().map_err(unavailable)?;
    Ok(Box::new(Llvm {
        identity: Identity {
            name: name(arg),
            version,
            device: DEVICE.to_string(),
        },
        folder,
        spelling,
        langref: HashMap::new(),
    }))
}

/// An LLVM constant folder as a backend.
struct Llvm {
    identity: Identity,
    folder: Folder,
    /// How every case is written in IR.
    spelling: Spelling,
    /// Per variant text, the program of the IR function its cases compute, read with the IR
    /// spec (`None` where the IR reader has no spec for it, e.g. an NVVM intrinsic).
    langref: HashMap<String, Option<Program>>,
}

impl Backend for Llvm {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    /// A variant is supported when it has a route and, for an NVVM intrinsic, when this LLVM
    /// knows the intrinsic (one process run on a one-case module tells).
    fn supports(&self, variant: &Variant) -> Support {
        let route = match route::route(variant, self.spelling) {
            Ok(r) => r,
            Err(why) => return Support::No(why),
        };
        let Some(intrinsic) = route.intrinsic() else {
            return Support::Yes;
        };
        let zeros = vec![0; variant.sources.len()];
        match self
            .folder
            .fold(&module::build(&route, zeros.len(), &zeros))
        {
            Ok(folded) if module::unknown_intrinsic(&folded, intrinsic) => Support::No(format!(
                "{} has no intrinsic @{intrinsic}",
                self.identity.version
            )),
            Ok(_) => Support::Yes,
            Err(e) => Support::No(format!("{}: {e}", self.identity.name)),
        }
    }

    fn batch_size(&self) -> usize {
        BATCH_SIZE
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        let failed = |message: String| BackendError::failed(&self.identity.name, message);
        let route = route::route(variant, self.spelling).map_err(failed)?;
        let n = variant.sources.len();
        if inputs.len() != out.len() * n {
            return Err(failed(format!(
                "{} inputs for {} cases of {} sources",
                inputs.len(),
                out.len(),
                n
            )));
        }
        if out.is_empty() {
            return Ok(());
        }
        let folded = self
            .folder
            .fold(&module::build(&route, n, inputs))
            .map_err(failed)?;
        module::read(&folded, route.ty.bits(), out).map_err(failed)
    }

    /// What LangRef says of the folded result the spec rejects: the case's IR (the route's
    /// instruction under its attributes) read with the IR spec (docs/llvm-ir-spec.md) and
    /// evaluated on the case's IR operands. Not allowed there either: `folding-bug`; allowed:
    /// `opt-level` (LLVM may fold so, and the folded program then differs from the PTX NVPTX
    /// emits for the same IR).
    fn triage(
        &mut self,
        spec: &Spec,
        variant: &Variant,
        inputs: &[u64],
        got: u64,
    ) -> Option<&'static str> {
        let route = route::route(variant, self.spelling).ok()?;
        let program = self
            .langref
            .entry(variant.text.clone())
            .or_insert_with(|| {
                let text = module::function(&route);
                semfuzz_llir::load(spec, &variant.text, &text, Some("f"))
                    .ok()
                    .map(|f| f.program)
            })
            .as_ref()?;
        let arguments = route.arguments(inputs);
        match semfuzz_smt::reach::allows(program, &arguments, got, Some(TRIAGE_REACH_MS))? {
            true => Some(fold_check::FoldKind::OptLevel.name()),
            false => Some(fold_check::FoldKind::FoldingBug.name()),
        }
    }
}
