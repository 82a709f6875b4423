//! The compilers `validate-llc` runs: llvmlite's LLVM through its NVPTX target machine, or an
//! `llc` executable; `--llc all` finds every one this machine has.

use anyhow::{anyhow, Result};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The llvmlite driver, run by `python3`.
const LLC_PY: &str = include_str!("llc.py");

/// The triple every compile targets.
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// The target name that passes no `-mcpu`: the compiler's own default (sm_20 for LLVM 14,
/// sm_30 later), what a test's `RUN:` line without `-mcpu` compiles for.
pub const DEFAULT_CPU: &str = "default";

/// The Debian packages' `llc` names `--llc all` looks for on `PATH` (and in
/// `/usr/lib/llvm-N/bin`), oldest first.
const DEBIAN_LLCS: &[&str] = &["llc-14", "llc-15", "llc-16", "llc-17", "llc-18", "llc-19"];

/// Each target's PTX for each module, or why the compiler gave none: `ptx[sm][module]`.
pub type Compiled = HashMap<String, HashMap<String, Result<String, String>>>;

/// What compiles IR to PTX.
#[derive(Clone)]
pub enum Llc {
    /// llvmlite's LLVM in one `python3` process.
    Llvmlite,
    /// An `llc` executable (a name on `PATH`, or a path).
    Binary(String),
}

/// A compiler that answered `--version`.
#[derive(Clone)]
pub struct Compiler {
    /// How it is run.
    pub llc: Llc,
    /// `llvmlite`, `llc-16`, or the path given: names its work directory and its rows.
    pub name: String,
    /// LLVM's version (`16.0.6`).
    pub version: String,
    /// llc options beyond [`Compiler::options`]' own (a test's `RUN:` line's `-mattr=+ptx71
    /// -O0`), passed to every compile and printed in every command.
    pub flags: Vec<String>,
}

impl Compiler {
    /// The compiler `--llc` names (`llvmlite`, an llc on `PATH`, a path), with its version.
    pub fn named(text: &str) -> Result<Compiler> {
        if text == "llvmlite" {
            let version = llvmlite_version()?;
            return Ok(Compiler {
                llc: Llc::Llvmlite,
                name: "llvmlite".into(),
                version,
                flags: Vec::new(),
            });
        }
        let out = Command::new(text).arg("--version").output().map_err(|e| {
            anyhow!(
                "cannot run `{text}`: {e}\n  hint: --llc takes llvmlite, an llc on PATH (llc-16), a path, or `all`"
            )
        })?;
        let text_out = String::from_utf8_lossy(&out.stdout);
        let version = text_out
            .lines()
            .find_map(|l| l.split_once("LLVM version ").map(|(_, v)| v.trim()))
            .ok_or_else(|| anyhow!("`{text} --version` names no LLVM version: is it an llc?"))?
            .to_string();
        Ok(Compiler {
            llc: Llc::Binary(text.to_string()),
            name: text.to_string(),
            version,
            flags: Vec::new(),
        })
    }

    /// Every compiler this machine has, oldest LLVM first: the Debian `llc-N` binaries, then
    /// llvmlite's (LLVM 22). Missing ones are skipped; none at all is an error.
    pub fn all() -> Result<Vec<Compiler>> {
        let mut found = Vec::new();
        for name in DEBIAN_LLCS {
            let path = which(name).or_else(|| {
                let major = name.trim_start_matches("llc-");
                let p = PathBuf::from(format!("/usr/lib/llvm-{major}/bin/llc"));
                p.exists().then(|| p.display().to_string())
            });
            if let Some(path) = path {
                let mut c = Compiler::named(&path)?;
                c.name = name.to_string();
                found.push(c);
            }
        }
        match Compiler::named("llvmlite") {
            Ok(c) => found.push(c),
            Err(e) if found.is_empty() => return Err(e),
            Err(_) => {}
        }
        found.sort_by_key(|c| c.major());
        Ok(found)
    }

    /// LLVM's major version, for ordering regression ranges.
    pub fn major(&self) -> u32 {
        self.version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    }

    /// `llvmlite (LLVM 22.1.0)`, `llc-16 (LLVM 16.0.6)`.
    pub fn label(&self) -> String {
        format!("{} (LLVM {})", self.name, self.version)
    }

    /// The options every compile passes, as `llc` takes them: `-O2`, the triple, the target
    /// (none for [`DEFAULT_CPU`]: LLVM's own default), then [`Compiler::flags`] (a later `-O0`
    /// overrides `-O2`, as in llc). llvmlite's driver (`llc.py`) sets the same on its target
    /// machine.
    pub fn options(&self, sm: &str) -> Vec<String> {
        let mut options = vec!["-O2".to_string(), format!("-mtriple={TRIPLE}")];
        if sm != DEFAULT_CPU {
            options.push(format!("-mcpu={sm}"));
        }
        options.extend(self.flags.iter().cloned());
        options
    }

    /// The command line a person runs to compile `ll` for `sm` into `ptx` (`-`: standard
    /// output) with this compiler's LLVM: its `llc` under that name, whichever package it
    /// comes in; [`Compiler::label`] says which LLVM it is.
    pub fn command(&self, ll: &str, ptx: &str, sm: &str) -> String {
        format!("llc {} {ll} -o {ptx}", self.options(sm).join(" "))
    }

    /// Runs [`Compiler::command`] in `dir` on its file `ll`, writing `ptx` there, with this
    /// compiler (llvmlite's driver for llvmlite, which reads the file and passes the same
    /// options); the PTX, or why there is none.
    pub fn replay(&self, dir: &Path, ll: &str, ptx: &str, sm: &str) -> Result<String, String> {
        match &self.llc {
            Llc::Llvmlite => {
                let text = std::fs::read_to_string(dir.join(ll))
                    .map_err(|e| format!("cannot read {ll}: {e}"))?;
                let (_, mut answers, aborted) =
                    run_llvmlite(&[(sm, ll, &text)], &self.flags).map_err(|e| e.to_string())?;
                let out = answers
                    .pop()
                    .unwrap_or_else(|| Err(aborted.unwrap_or_else(|| "no output".into())))?;
                std::fs::write(dir.join(ptx), &out)
                    .map_err(|e| format!("cannot write {ptx}: {e}"))?;
                Ok(out)
            }
            Llc::Binary(b) => {
                let out = Command::new(b)
                    .args(self.options(sm))
                    .args([ll, "-o", ptx])
                    .current_dir(dir)
                    .output()
                    .map_err(|e| format!("cannot run {b}: {e}"))?;
                if !out.status.success() {
                    return Err(without_addresses(
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .next()
                            .unwrap_or("failed"),
                    ));
                }
                std::fs::read_to_string(dir.join(ptx))
                    .map_err(|e| format!("cannot read {ptx}: {e}"))
            }
        }
    }

    /// Each module (name, file, text) compiled for each target.
    pub fn compile(
        &self,
        modules: &[(String, PathBuf, String)],
        sms: &[String],
    ) -> Result<Compiled> {
        match &self.llc {
            Llc::Llvmlite => compile_llvmlite(modules, sms, &self.flags),
            Llc::Binary(b) => {
                let mut all = HashMap::new();
                for sm in sms {
                    let mut per = HashMap::new();
                    for (k, ll, _) in modules {
                        let out = Command::new(b)
                            .args(self.options(sm))
                            .arg(ll)
                            .args(["-o", "-"])
                            .output()?;
                        let err = String::from_utf8_lossy(&out.stderr);
                        // An llc that does not know the target warns and compiles for its
                        // default one: that PTX is not this target's.
                        let verdict = if err.contains("is not a recognized processor") {
                            Err(format!("LLVM {} does not know {sm}", self.version))
                        } else if out.status.success() {
                            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
                        } else {
                            Err(without_addresses(err.lines().next().unwrap_or("failed")))
                        };
                        per.insert(k.clone(), verdict);
                    }
                    all.insert(sm.clone(), per);
                }
                Ok(all)
            }
        }
    }
}

/// `name` on `PATH`.
fn which(name: &str) -> Option<String> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .map(|p| p.display().to_string())
    })
}

/// The `PYTHONPATH` that has llvmlite.
fn llvmlite_path() -> Result<PathBuf> {
    semfuzz_backend::python_deps("llvmlite")
        .map_err(|e| anyhow!("{e}\n  hint: `cargo xtask setup` installs llvmlite into .deps/py"))
}

/// What one llvmlite driver process gave: the LLVM version, the answers (PTX, or LLVM's error)
/// of the jobs it finished, in order, and the first line of LLVM's message if it was aborted.
type LlvmliteRun = (String, Vec<Result<String, String>>, Option<String>);

/// Runs the llvmlite driver on `jobs` (target, module name, text), with llc's `flags`, until it
/// ends.
fn run_llvmlite(jobs: &[(&str, &str, &str)], flags: &[String]) -> Result<LlvmliteRun> {
    let mut child = Command::new("python3")
        .env("PYTHONPATH", llvmlite_path()?)
        .arg("-c")
        .arg(LLC_PY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| anyhow!("cannot run python3: {e}"))?;
    child.stdin.take().expect("piped").write_all(
        serde_json::json!({ "jobs": jobs, "flags": flags, "default_cpu": DEFAULT_CPU })
            .to_string()
            .as_bytes(),
    )?;
    let out = child.wait_with_output()?;
    let mut lines = out.stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let head: serde_json::Value = match lines.next() {
        Some(l) => serde_json::from_slice(l)?,
        None => return Err(anyhow!("llvmlite failed: {}", stderr.trim())),
    };
    let version = head["version"].as_str().unwrap_or("?").to_string();
    let mut answers = Vec::new();
    for l in lines {
        let r: serde_json::Value = serde_json::from_slice(l)?;
        answers.push(match r["ptx"].as_str() {
            Some(p) => Ok(p.to_string()),
            None => Err(r["error"].as_str().unwrap_or("no output").to_string()),
        });
    }
    let aborted = (!out.status.success()).then(|| {
        let line = stderr
            .lines()
            .find(|l| l.contains("LLVM ERROR"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("the process ended without a message");
        without_addresses(line)
    });
    Ok((version, answers, aborted))
}

fn llvmlite_version() -> Result<String> {
    Ok(run_llvmlite(&[], &[])?.0)
}

/// Compiles every module for every target; a module LLVM aborts on gets LLVM's message as its
/// error, and the jobs after it run in a new process.
fn compile_llvmlite(
    modules: &[(String, PathBuf, String)],
    sms: &[String],
    flags: &[String],
) -> Result<Compiled> {
    let jobs: Vec<(&str, &str, &str)> = sms
        .iter()
        .flat_map(|sm| {
            modules
                .iter()
                .map(move |(k, _, t)| (sm.as_str(), k.as_str(), t.as_str()))
        })
        .collect();
    let mut all: Compiled = HashMap::new();
    let mut done = 0;
    while done < jobs.len() {
        let (_, answers, aborted) = run_llvmlite(&jobs[done..], flags)?;
        for answer in answers {
            let (sm, k, _) = jobs[done];
            all.entry(sm.to_string())
                .or_default()
                .insert(k.to_string(), answer);
            done += 1;
        }
        if done < jobs.len() {
            let (sm, k, _) = jobs[done];
            let why = aborted.ok_or_else(|| {
                anyhow!("llvmlite stopped after {done} of {} modules", jobs.len())
            })?;
            all.entry(sm.to_string())
                .or_default()
                .insert(k.to_string(), Err(why));
            done += 1;
        }
    }
    Ok(all)
}

/// A message of LLVM's without the node addresses (`0x5563d09f0e40`) that differ per run.
fn without_addresses(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line.trim();
    while let Some(i) = rest.find("0x") {
        let hex = rest[i + 2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len() - i - 2);
        out.push_str(&rest[..i]);
        out.push_str(if hex >= 8 {
            "0x…"
        } else {
            &rest[i..i + 2 + hex]
        });
        rest = &rest[i + 2 + hex..];
    }
    out.push_str(rest);
    out
}
