//! `--solver z3,cvc5,bitwuzla`: a portfolio over a query's exported SMT-LIB2 text. Each
//! solver runs in its own process (`python3 portfolio.py SOLVER FILE NAME...` over the
//! solvers' Python APIs: the cvc5 and bitwuzla wheels ship no executable); the first definite
//! answer wins and the others are killed; `unknown` only when every solver said unknown,
//! failed, or ran past the timeout.

use crate::solve::Answer;
use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The driver every member runs, embedded so the binary needs no file beside it.
const DRIVER: &str = include_str!("portfolio.py");
/// How often a running portfolio looks whether it is still wanted.
const POLL: Duration = Duration::from_millis(20);

/// A member of the portfolio.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Solver {
    /// Z3 through the `z3-solver` wheel's Python API (`.deps/z3`, the same libz3 semfuzz links).
    Z3,
    /// cvc5 1.4.2 through the `cvc5` wheel (`.deps/solvers`).
    Cvc5,
    /// Bitwuzla 0.9.1 through the `bitwuzla` wheel (`.deps/solvers`).
    Bitwuzla,
}

impl Solver {
    /// Every member, in the order `--solver` lists them in its help.
    pub const ALL: [Solver; 3] = [Solver::Z3, Solver::Cvc5, Solver::Bitwuzla];

    /// The name `--solver` takes and the output prints.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Z3 => "z3",
            Solver::Cvc5 => "cvc5",
            Solver::Bitwuzla => "bitwuzla",
        }
    }

    /// Parses `z3,cvc5,bitwuzla` (any non-empty subset, each once).
    pub fn parse_list(text: &str) -> Result<Vec<Solver>, String> {
        let mut list = Vec::new();
        for word in text.split(',').map(str::trim) {
            let solver = Solver::ALL
                .into_iter()
                .find(|s| s.name() == word)
                .ok_or_else(|| {
                    format!("`{word}` is not a solver: write a list of z3, cvc5 and bitwuzla")
                })?;
            if list.contains(&solver) {
                return Err(format!("`{word}` is named twice"));
            }
            list.push(solver);
        }
        Ok(list)
    }

    /// The `.deps` directory holding its Python package and the package's name there.
    fn package(self) -> (&'static str, &'static str) {
        match self {
            Solver::Z3 => ("z3", "z3"),
            Solver::Cvc5 => ("solvers", "cvc5"),
            // bitwuzla is one extension module, not a package directory.
            Solver::Bitwuzla => ("solvers", "bitwuzla-0.9.1.dist-info"),
        }
    }

    /// The directory to put on `PYTHONPATH`, or an error naming the setup command.
    pub fn python_path(self) -> Result<PathBuf, String> {
        let (dir, package) = self.package();
        semfuzz_backend::deps_dir(dir, package).map_err(|e| format!("solver {}: {e}", self.name()))
    }
}

/// Checks that every solver of `solvers` is installed (before any rule is run).
pub fn check_installed(solvers: &[Solver]) -> Result<(), String> {
    solvers.iter().try_for_each(|s| s.python_path().map(|_| ()))
}

/// A portfolio's answer and the solver that gave it (`None` when none gave a definite one).
pub struct Outcome {
    /// The answer; a counterexample holds the values of the `names` asked for.
    pub answer: Answer,
    /// Who answered.
    pub solver: Option<Solver>,
}

/// Runs `solvers` on the SMT-LIB2 file `file` in parallel, each at most `timeout_ms`, until
/// one answers or `settled` is set (someone else answered); a satisfiable answer carries the
/// values of the bit-vector constants `names`.
pub fn run(
    file: &std::path::Path,
    names: &[String],
    solvers: &[Solver],
    timeout_ms: u32,
    settled: &AtomicBool,
) -> Outcome {
    let deadline = Instant::now() + Duration::from_millis(u64::from(timeout_ms));
    let (tx, rx) = mpsc::channel();
    let mut children: Vec<(Solver, Child)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for &solver in solvers {
        match spawn(solver, file, names) {
            Ok(mut child) => {
                let (mut out, mut err) = (
                    child.stdout.take().expect("piped"),
                    child.stderr.take().expect("piped"),
                );
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let (mut stdout, mut stderr) = (String::new(), String::new());
                    let _ = out.read_to_string(&mut stdout);
                    let _ = err.read_to_string(&mut stderr);
                    let _ = tx.send((solver, stdout, stderr));
                });
                children.push((solver, child));
            }
            Err(e) => failures.push(e),
        }
    }
    drop(tx);
    let mut outcome = None;
    let mut pending = children.len();
    while pending > 0 {
        if settled.load(Ordering::Relaxed) {
            failures.push("stopped: answered elsewhere".into());
            break;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            failures.push(format!("timeout after {timeout_ms} ms"));
            break;
        }
        let (solver, stdout, stderr) = match rx.recv_timeout(left.min(POLL)) {
            Ok(done) => done,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        pending -= 1;
        match parse(&stdout) {
            Some(answer @ (Answer::Proved | Answer::Counterexample(_))) => {
                outcome = Some(Outcome {
                    answer,
                    solver: Some(solver),
                });
                break;
            }
            Some(_) => failures.push(format!("{}: unknown", solver.name())),
            None => failures.push(format!(
                "{} failed: {}",
                solver.name(),
                stderr.lines().last().unwrap_or("no output")
            )),
        }
    }
    // The losers and stragglers are ours to stop: each by its own handle.
    for (_, child) in &mut children {
        let _ = child.kill();
        let _ = child.wait();
    }
    outcome.unwrap_or_else(|| Outcome {
        answer: Answer::Unknown(failures.join("; ")),
        solver: None,
    })
}

fn spawn(solver: Solver, file: &std::path::Path, names: &[String]) -> Result<Child, String> {
    let path = solver.python_path()?;
    Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .arg(solver.name())
        .arg(file)
        .args(names)
        .env("PYTHONPATH", path)
        // Held open and never written: the driver exits when it closes, so a solver never
        // outlives a semfuzz that is killed or interrupted.
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: cannot run python3: {e}", solver.name()))
}

/// The driver's output: `sat` + `NAME HEX` lines, `unsat`, `unknown`; `None` for anything else.
fn parse(stdout: &str) -> Option<Answer> {
    let mut lines = stdout.lines();
    match lines.next()?.trim() {
        "unsat" => Some(Answer::Proved),
        "unknown" => Some(Answer::Unknown("unknown".into())),
        "sat" => {
            let values: Option<HashMap<String, u64>> = lines
                .map(|l| {
                    let (name, hex) = l.split_once(' ')?;
                    Some((name.to_string(), u64::from_str_radix(hex.trim(), 16).ok()?))
                })
                .collect();
            values.map(Answer::Counterexample)
        }
        _ => None,
    }
}
