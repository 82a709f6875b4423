//! Posing a query: Z3 in process with a timeout or the portfolio over the SMT-LIB2 text, and
//! a result cache keyed by a hash of that text (so CI re-solves only the rules that changed).
//!
//! A definite answer is a fact about the text whichever sound solver found it; so its key is
//! the text alone. An `unknown` is a fact about one route and one timeout only (which
//! solvers gave up, within how long, on a machine under some load): where [`Unknowns`] asks,
//! it is cached apart, keyed by the text and the solvers asked, with its timeout, and read
//! back only for a timeout no longer than the one it gave up within; so a later run with more
//! time or other solvers still finds the answer, and a definite answer found since always wins.

use crate::portfolio::{self, Solver};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};
use z3::ast::{Bool, BV};
use z3::{Params, SatResult};

/// A solver's answer to a negated refinement query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Unsatisfiable: the refinement holds.
    Proved,
    /// Satisfiable: the named constants' values (inputs `in_x`, the output `out`, the target's
    /// intermediate choices).
    Counterexample(HashMap<String, u64>),
    /// The solver gave up, with its reason.
    Unknown(String),
}

/// An answer with how it was obtained.
#[derive(Clone, Debug)]
pub struct Solved {
    /// The answer.
    pub answer: Answer,
    /// Wall time spent (reading the cache included).
    pub seconds: f64,
    /// Whether it came from the cache.
    pub cached: bool,
    /// Who answered: `z3` in process, or the portfolio member (`cvc5`, ...); `None` when no
    /// one did (unknown).
    pub solver: Option<String>,
}

/// What answers in process: Z3 through the linked libz3.
pub const IN_PROCESS: &str = "z3";

/// Who answers a counterexample found by running both sides on sample inputs
/// (`sequence::Query::falsify`) before any solver.
pub const EVALUATOR: &str = "evaluator";

/// How to pose queries.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Per-query timeout in milliseconds.
    pub timeout_ms: u32,
    /// Result cache directory (`None`: no cache).
    pub cache: Option<PathBuf>,
    /// Where to write each query as `NAME.smt2`.
    pub emit_smt2: Option<PathBuf>,
    /// The portfolio that solves the exported text (`--solver`); empty: Z3 in process.
    pub portfolio: Vec<Solver>,
    /// Without a portfolio: the solver processes that get the exported text beside Z3 in
    /// process, once Z3 has had [`HEAD_START`] to answer alone; the default route of
    /// `semfuzz prove` ([`Options::default_fallback`]).
    pub fallback: Vec<Solver>,
    /// Measure each query ([`QuerySize`], in [`crate::sequence::Proof::size`]).
    pub explain: bool,
    /// What the cache does with an `unknown`.
    pub unknowns: Unknowns,
    /// How many times a function side's loops may run per entry into them (`--unroll`;
    /// `None`: the readers' default, 8).
    pub unroll: Option<u32>,
    /// What the compile judged licenses beyond an LLVM IR source side's meaning
    /// (`validate-llc` reads them off the compiler's flags).
    pub licences: semfuzz_llir::Licences,
    /// Whether an LLVM IR function side's pointer parameters (other than `noalias` ones) may
    /// overlap (`--may-alias`; [`semfuzz_spec::memory::Layout::aliasing`]).
    pub may_alias: bool,
}

/// What the cache does with an `unknown` (the cache itself is [`Options::cache`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unknowns {
    /// Neither kept nor read: every run asks the solvers again (`semfuzz prove`: a rule is
    /// meant to be decided, and a timeout on a busy machine must not stick to it).
    #[default]
    Ask,
    /// Kept, and read back for a timeout no longer than the one it gave up within
    /// (`validate-llc`: its catalogue has queries no solver decides in the timeout, which a
    /// cached run would otherwise spend again).
    Reuse,
    /// Kept, never read: asked again, and the new unknown kept (`validate-llc
    /// --retry-unknown`: the machine was busier then, or a solver has been upgraded).
    Retry,
}

impl Options {
    /// The fallback of the default route: bitwuzla and cvc5 as processes, those of them
    /// that are installed. Z3 is not among them: it runs in process beside them for the whole
    /// timeout.
    pub fn default_fallback() -> Vec<Solver> {
        [Solver::Bitwuzla, Solver::Cvc5]
            .into_iter()
            .filter(|s| s.python_path().is_ok())
            .collect()
    }
}

/// How long Z3 in process has a query to itself before the fallback's processes start beside
/// it: Z3 answers most of the library in milliseconds (docs/BENCHMARKS.md), and a process
/// costs a Python start; a query Z3 has not answered by then is one bitwuzla often answers
/// in seconds and Z3 not at all, so from then on they race and the first answer stops the
/// others.
pub const HEAD_START: Duration = Duration::from_millis(500);

/// The query as SMT-LIB2, the `(check-sat)` included: what is hashed, exported and cached.
pub fn smt2_text(assertions: &[Bool]) -> String {
    let solver = z3::Solver::new();
    for a in assertions {
        solver.assert(a);
    }
    without_unary_connectives(&solver.to_smt2())
}

/// SMT-LIB2 text with every `(and x)` and `(or x)` written `x`. Z3 prints a conjunction of
/// one term so, but SMT-LIB's `and`/`or` take two or more arguments and bitwuzla refuses one;
/// building the terms without them instead slowed Z3 in process down (a 0.1 s query took
/// 20 s). Comments are dropped; symbols and strings are kept as written.
pub fn without_unary_connectives(text: &str) -> String {
    let b = text.as_bytes();
    let mut tokens: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        match b[i] {
            b'(' | b')' => i += 1,
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            c if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'|' => {
                i += 1 + b[i + 1..]
                    .iter()
                    .position(|&c| c == b'|')
                    .map_or(b.len() - i - 1, |k| k + 1);
            }
            b'"' => {
                i += 1;
                while i < b.len() {
                    // `""` is an escaped quote inside a string.
                    if b[i] == b'"' && b.get(i + 1) != Some(&b'"') {
                        i += 1;
                        break;
                    }
                    i += if b[i] == b'"' { 2 } else { 1 };
                }
            }
            _ => {
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'(' && b[i] != b')' {
                    i += 1;
                }
            }
        }
        tokens.push(&text[start..i]);
    }
    // One pass with a stack of open lists (token index, elements so far) marks the three tokens
    // of each unary `and`/`or` to leave out.
    let mut skip = vec![false; tokens.len()];
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        match *t {
            "(" => open.push((k, 0)),
            ")" => {
                let Some((start, elements)) = open.pop() else {
                    continue;
                };
                if elements == 2 && matches!(tokens.get(start + 1), Some(&"and" | &"or")) {
                    skip[start] = true;
                    skip[start + 1] = true;
                    skip[k] = true;
                }
                if let Some(parent) = open.last_mut() {
                    parent.1 += 1;
                }
            }
            _ => {
                if let Some(parent) = open.last_mut() {
                    parent.1 += 1;
                }
            }
        }
    }
    let mut out = String::with_capacity(text.len());
    let (mut depth, mut after_open) = (0usize, true);
    for (t, _) in tokens.iter().zip(&skip).filter(|(_, s)| !**s) {
        if *t != ")" && !after_open {
            out.push(' ');
        }
        out.push_str(t);
        after_open = *t == "(";
        match *t {
            "(" => depth += 1,
            ")" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    out.push('\n');
                    after_open = true;
                }
            }
            _ => {}
        }
    }
    out
}

/// FNV-1a, 64 bits: stable across Rust versions and platforms, unlike `DefaultHasher`.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Answers the query `text` (unsat = proved; standard SMT-LIB2 from [`smt2_text`] of an
/// `encode::ToBits::Fresh` build): exports it, reads the cache, else runs the portfolio over
/// it (a counterexample holds the constants `names`) or, without one, `in_process` (which
/// may pose easier queries first), and caches a definite answer.
pub fn solve(
    name: &str,
    text: &str,
    names: &[String],
    opts: &Options,
    in_process: impl FnOnce() -> Answer,
) -> std::io::Result<Solved> {
    let start = Instant::now();
    export(name, text, opts)?;
    if let Some(hit) = cached(text, opts) {
        return Ok(Solved {
            seconds: start.elapsed().as_secs_f64(),
            ..hit
        });
    }
    let key = cache_key(text, opts);
    let processes = |solvers: &[Solver], timeout_ms: u32, settled: &AtomicBool| {
        let file = std::env::temp_dir().join(format!(
            "semfuzz-{}-{:016x}.smt2",
            std::process::id(),
            hash(text)
        ));
        std::fs::write(&file, text)?;
        let outcome = portfolio::run(&file, names, solvers, timeout_ms, settled);
        std::fs::remove_file(&file)?;
        Ok::<_, std::io::Error>((outcome.answer, outcome.solver.map(|s| s.name().to_string())))
    };
    let (answer, solver) = if !opts.portfolio.is_empty() {
        processes(&opts.portfolio, opts.timeout_ms, &AtomicBool::new(false))?
    } else if opts.fallback.is_empty() {
        match in_process() {
            Answer::Unknown(why) => (Answer::Unknown(format!("z3: {why}")), None),
            answer => (answer, Some(IN_PROCESS.to_string())),
        }
    } else {
        // Z3 in process (this thread: its terms live in this thread's context) races the
        // fallback's processes, which start after the head start; whoever answers first
        // stops the other (Z3 by interrupting its context until it returns).
        let context = z3::Context::thread_local();
        let handle = context.handle();
        let (z3_returned, z3_answered) = (AtomicBool::new(false), AtomicBool::new(false));
        let interrupted = AtomicBool::new(false);
        std::thread::scope(|s| {
            let others = s.spawn(|| {
                while start.elapsed() < HEAD_START && !z3_returned.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                let left = u128::from(opts.timeout_ms).saturating_sub(start.elapsed().as_millis());
                if z3_answered.load(Ordering::Relaxed) || left < 100 {
                    return None;
                }
                let found = processes(&opts.fallback, left as u32, &z3_answered);
                if matches!(found, Ok((Answer::Proved | Answer::Counterexample(_), _))) {
                    while !z3_returned.load(Ordering::Relaxed) {
                        handle.interrupt();
                        std::thread::sleep(Duration::from_millis(10));
                    }
                    interrupted.store(true, Ordering::Relaxed);
                }
                Some(found)
            });
            let z3 = in_process();
            z3_answered.store(!matches!(z3, Answer::Unknown(_)), Ordering::Relaxed);
            z3_returned.store(true, Ordering::Relaxed);
            let others = others.join().unwrap_or_else(|_| {
                Some(Ok((
                    Answer::Unknown("the solver processes' thread panicked".into()),
                    None,
                )))
            });
            if interrupted.load(Ordering::Relaxed) {
                clear_stale_interrupt();
            }
            Ok::<_, std::io::Error>(match (z3, others) {
                (Answer::Unknown(why), Some(others)) => match others? {
                    (Answer::Unknown(more), None) => {
                        let names: Vec<&str> = opts.fallback.iter().map(|s| s.name()).collect();
                        let why = format!("z3: {why}; {}: {more}", names.join(", "));
                        (Answer::Unknown(why), None)
                    }
                    found => found,
                },
                (Answer::Unknown(why), None) => (Answer::Unknown(format!("z3: {why}")), None),
                (answer, _) => (answer, Some(IN_PROCESS.to_string())),
            })
        })?
    };
    match (&key, &solver, &answer) {
        (Some(path), Some(solver), _) => write_cache(path, &answer, solver)?,
        // Reused, only an unknown within a shorter timeout can be here (`cached` read no
        // other); retried, the latest is kept.
        (Some(path), None, Answer::Unknown(why)) if opts.unknowns != Unknowns::Ask => {
            write_atomically(
                &unknown_path(path, opts),
                &format!(
                    "unknown within {} ms\n{}\n",
                    opts.timeout_ms,
                    why.replace('\n', " ")
                ),
            )?
        }
        _ => {}
    }
    Ok(Solved {
        answer,
        seconds: start.elapsed().as_secs_f64(),
        cached: false,
        solver,
    })
}

/// What the cache holds for the query `text` on the route `opts` names: a definite answer, or
/// an `unknown` that gave up within a timeout at least as long as `opts`' (its reason says so).
pub fn cached(text: &str, opts: &Options) -> Option<Solved> {
    let start = Instant::now();
    let key = cache_key(text, opts)?;
    let (answer, solver) = match read_cache(&key) {
        Some((answer, solver)) => (answer, Some(solver)),
        None if opts.unknowns == Unknowns::Reuse => {
            let (within_ms, why) = read_unknown(&unknown_path(&key, opts))
                .filter(|(within_ms, _)| *within_ms >= opts.timeout_ms)?;
            let why = format!(
                "cached: {} gave up within {}; {why}",
                route(opts).replace(',', ", "),
                duration(within_ms)
            );
            (Answer::Unknown(why), None)
        }
        None => return None,
    };
    Some(Solved {
        answer,
        seconds: start.elapsed().as_secs_f64(),
        cached: true,
        solver,
    })
}

/// Where the definite answer to the query `text` is cached, when `opts` has a cache.
fn cache_key(text: &str, opts: &Options) -> Option<PathBuf> {
    opts.cache
        .as_ref()
        .map(|d| d.join(format!("{:016x}", hash(text))))
}

/// Writes the query `text` as `NAME.smt2` where `--emit-smt2` asks.
pub fn export(name: &str, text: &str, opts: &Options) -> std::io::Result<()> {
    if let Some(dir) = &opts.emit_smt2 {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join(format!("{name}.smt2")), text)?;
    }
    Ok(())
}

/// Z3 on `assertions` with a timeout.
pub fn z3(assertions: &[Bool], shown: &[(String, BV)], timeout_ms: u32) -> Answer {
    let solver = z3::Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms.max(1));
    solver.set_params(&params);
    for a in assertions {
        solver.assert(a);
    }
    check(&solver, shown, timeout_ms)
}

/// Checks a solver holding a query within `timeout_ms` ([`check_within`]); reads `shown`
/// from the model when satisfiable.
pub fn check(solver: &z3::Solver, shown: &[(String, BV)], timeout_ms: u32) -> Answer {
    match check_within(solver, timeout_ms) {
        SatResult::Unsat => Answer::Proved,
        SatResult::Unknown => Answer::Unknown(reason_unknown(solver)),
        SatResult::Sat => {
            let model = solver.get_model();
            Answer::Counterexample(
                shown
                    .iter()
                    .map(|(name, c)| {
                        let v = model
                            .as_ref()
                            .and_then(|m| m.eval(c, true))
                            .and_then(|b| b.as_u64())
                            .unwrap_or(0);
                        (name.clone(), v)
                    })
                    .collect(),
            )
        }
    }
}

/// Solves exported SMT-LIB2 text with Z3's own parser (as another tool would read the file);
/// `shown` are re-made by name and width for the model.
pub fn solve_text(text: &str, shown: &[(String, u32)], timeout_ms: u32) -> Answer {
    let solver = z3::Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms.max(1));
    solver.set_params(&params);
    solver.from_string(text);
    let consts: Vec<(String, BV)> = shown
        .iter()
        .map(|(n, w)| (n.clone(), BV::new_const(n.as_str(), *w)))
        .collect();
    check(&solver, &consts, timeout_ms)
}

/// `solver.check()`, interrupted from `timeout_ms` on until it returns. Z3's own `timeout`
/// parameter is not enough: its timer's cancellation is lost when the timer fires before the
/// check resets the context's limit (measured: a 1 ms timeout ran for 407 s on a loaded
/// machine, in the rewriter). One process-wide [`Watchdog`] thread interrupts the context
/// only while the check runs, and an interrupt that lands as it returns is cleared. The
/// solver must belong to this thread's context (`Solver::new()`'s).
pub fn check_within(solver: &z3::Solver, timeout_ms: u32) -> SatResult {
    let context = z3::Context::thread_local();
    let deadline = Instant::now() + Duration::from_millis(u64::from(timeout_ms.max(1)));
    let dog = Watchdog::get();
    let id = dog.watch(context.get_z3_context(), deadline);
    let result = solver.check();
    if dog.unwatch(id) {
        clear_stale_interrupt();
    }
    result
}

/// The thread that interrupts checks past their deadline. A thread per check costs a spawn
/// each: the consistency test's checks took 1,050 s so, against 661-669 s before and 688 s
/// with this one thread.
struct Watchdog {
    watched: Mutex<Vec<Watched>>,
    wake: Condvar,
    next_id: AtomicU64,
}

/// One running check: its context (`Z3_context` as an address, to cross threads), when it
/// is due, and whether it was interrupted.
struct Watched {
    id: u64,
    context: usize,
    deadline: Instant,
    interrupted: bool,
}

impl Watchdog {
    /// The process's watchdog, its thread started on first use.
    fn get() -> &'static Watchdog {
        static DOG: OnceLock<&'static Watchdog> = OnceLock::new();
        DOG.get_or_init(|| {
            let dog: &'static Watchdog = Box::leak(Box::new(Watchdog {
                watched: Mutex::new(Vec::new()),
                wake: Condvar::new(),
                next_id: AtomicU64::new(0),
            }));
            std::thread::Builder::new()
                .name("z3-watchdog".into())
                .spawn(|| dog.run())
                .expect("the Z3 watchdog thread starts");
            dog
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Watched>> {
        self.watched.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn watch(&self, context: z3_sys::Z3_context, deadline: Instant) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.lock().push(Watched {
            id,
            context: context.as_ptr() as usize,
            deadline,
            interrupted: false,
        });
        self.wake.notify_one();
        id
    }

    /// Stops watching `id`; whether it was interrupted. No interrupt lands after this.
    fn unwatch(&self, id: u64) -> bool {
        let mut watched = self.lock();
        let at = watched
            .iter()
            .position(|w| w.id == id)
            .expect("a watched check is unwatched once");
        watched.swap_remove(at).interrupted
    }

    fn run(&self) {
        let mut watched = self.lock();
        loop {
            let now = Instant::now();
            for w in watched.iter_mut().filter(|w| w.deadline <= now) {
                let context = std::ptr::NonNull::new(w.context as *mut z3_sys::_Z3_context)
                    .expect("a watched context is not null");
                // SAFETY: the context outlives its entry: `check_within` removes the entry,
                // under this lock, before it returns, and Z3 allows interrupting a context
                // from another thread.
                unsafe { z3_sys::Z3_interrupt(context) };
                w.interrupted = true;
            }
            let wait = match watched.iter().map(|w| w.deadline).min() {
                None => None,
                Some(due) if due <= now => Some(INTERRUPT_AGAIN_AFTER),
                Some(due) => Some(due - now),
            };
            watched = match wait {
                None => self
                    .wake
                    .wait(watched)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(wait) => {
                    self.wake
                        .wait_timeout(watched, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }
}

/// Clears an interrupt that landed after the check it was meant for had returned: left, it
/// cancels the context's next `simplify` and model evaluation (measured: `eval` gives
/// nothing, `simplify` returns its term unchanged). A check resets it.
fn clear_stale_interrupt() {
    z3::Solver::new().check();
}

/// Why the last check of `solver` answered `unknown`: `timeout` also where it was
/// interrupted, by [`check_within`]'s watchdog at the timeout (or by the race of [`solve`]
/// once another solver answered, whose answer is then taken).
pub fn reason_unknown(solver: &z3::Solver) -> String {
    match solver.get_reason_unknown() {
        Some(why) if why == "interrupted" => "timeout".into(),
        Some(why) => why,
        None => "unknown".into(),
    }
}

/// How often the [`Watchdog`] interrupts a check that has not returned since its deadline.
const INTERRUPT_AGAIN_AFTER: Duration = Duration::from_millis(10);

/// A cached answer and who found it; its first line is `proved by z3` or
/// `counterexample by cvc5`, then `NAME=0xHEX` lines.
fn read_cache(path: &Path) -> Option<(Answer, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let (verdict, solver) = lines.next()?.split_once(" by ")?;
    let answer = match verdict {
        "proved" => Some(Answer::Proved),
        "counterexample" => Some(Answer::Counterexample(
            lines
                .map(|l| {
                    let (n, v) = l.split_once('=')?;
                    Some((
                        n.to_string(),
                        u64::from_str_radix(v.trim_start_matches("0x"), 16).ok()?,
                    ))
                })
                .collect::<Option<HashMap<_, _>>>()?,
        )),
        _ => None,
    }?;
    Some((answer, solver.to_string()))
}

fn write_cache(path: &Path, answer: &Answer, solver: &str) -> std::io::Result<()> {
    let text = match answer {
        Answer::Proved => format!("proved by {solver}\n"),
        Answer::Counterexample(values) => {
            let mut lines: Vec<String> =
                values.iter().map(|(n, v)| format!("{n}=0x{v:x}")).collect();
            lines.sort();
            format!("counterexample by {solver}\n{}\n", lines.join("\n"))
        }
        Answer::Unknown(_) => return Ok(()),
    };
    write_atomically(path, &text)
}

/// Who is asked on the route `opts` names, in order: `z3,bitwuzla,cvc5` on the default route
/// (Z3 in process and its fallback), the portfolio's members with `--solver`.
fn route(opts: &Options) -> String {
    let names: Vec<&str> = if opts.portfolio.is_empty() {
        std::iter::once(IN_PROCESS)
            .chain(opts.fallback.iter().map(|s| s.name()))
            .collect()
    } else {
        opts.portfolio.iter().map(|s| s.name()).collect()
    };
    names.join(",")
}

/// Where the `unknown` of the query cached at `key` is kept for the route of `opts`.
fn unknown_path(key: &Path, opts: &Options) -> PathBuf {
    let mut name = key.as_os_str().to_owned();
    name.push(format!(".unknown-{}", route(opts).replace(',', "+")));
    PathBuf::from(name)
}

/// A cached `unknown`: the timeout it gave up within (ms) and why. Its first line is
/// `unknown within 10000 ms`, its second the solvers' reasons.
fn read_unknown(path: &Path) -> Option<(u32, String)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.lines();
    let within_ms = lines
        .next()?
        .strip_prefix("unknown within ")?
        .strip_suffix(" ms")?
        .parse()
        .ok()?;
    Some((within_ms, lines.next().unwrap_or_default().to_string()))
}

/// `10 s`, `500 ms`.
fn duration(ms: u32) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // Write then rename, so a concurrent reader never sees half a file. The temporary name
    // is this write's own: two threads caching the same query at once (two rules that ask
    // the same question, on a cold cache) each rename a whole file instead of one finding
    // the other's temporary gone.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}-{write}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(tmp, path)
}

/// What a query is made of (`semfuzz prove --explain`): distinct terms, floating-point
/// operations by name, and the bit-vector and FP sorts it uses; so a user can see what made a
/// query hard (a divider, a square root, wide bit-vectors made from FP results).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuerySize {
    /// Distinct terms (a shared subterm counts once).
    pub terms: usize,
    /// FP operations by SMT-LIB name (`fp.mul`, `fp.fma`, ...), each distinct term once.
    pub fp_ops: std::collections::BTreeMap<String, usize>,
    /// The widths of the bit-vector terms.
    pub bv_widths: std::collections::BTreeSet<u32>,
    /// The FP sorts as (exponent bits, significand bits).
    pub fp_sorts: std::collections::BTreeSet<(u32, u32)>,
    /// Quantifiers (the source's intermediate choices under `exists`).
    pub quantifiers: usize,
}

impl QuerySize {
    /// Walks `assertions` once, each distinct term once.
    pub fn of(assertions: &[Bool]) -> QuerySize {
        use z3::ast::{Ast, Dynamic};
        let mut size = QuerySize::default();
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<Dynamic> = assertions.iter().map(|a| Dynamic::from_ast(a)).collect();
        while let Some(t) = stack.pop() {
            if !seen.insert(t.clone()) {
                continue;
            }
            size.terms += 1;
            if let Some(b) = t.as_bv() {
                size.bv_widths.insert(b.get_size());
            }
            let sort = t.get_sort();
            if let (Some(e), Some(s)) = (sort.float_exponent_size(), sort.float_significand_size())
            {
                size.fp_sorts.insert((e, s));
            }
            if !t.is_app() {
                size.quantifiers += usize::from(t.kind() == z3::AstKind::Quantifier);
                continue;
            }
            let name = t.decl().name();
            if name.starts_with("fp.") && !name.starts_with("fp.is") && t.num_children() > 0 {
                *size.fp_ops.entry(name).or_default() += 1;
            }
            stack.extend(t.children());
        }
        size
    }
}

impl std::fmt::Display for QuerySize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ops: Vec<String> = self
            .fp_ops
            .iter()
            .map(|(n, k)| format!("{n} x{k}"))
            .collect();
        let widths: Vec<String> = self.bv_widths.iter().map(u32::to_string).collect();
        let sorts: Vec<String> = self
            .fp_sorts
            .iter()
            .map(|(e, s)| format!("({e}, {s})"))
            .collect();
        write!(
            f,
            "{} terms; FP operations: {}; bit-vector widths: {}; FP sorts: {}",
            self.terms,
            if ops.is_empty() {
                "none".into()
            } else {
                ops.join(", ")
            },
            if widths.is_empty() {
                "none".into()
            } else {
                widths.join(", ")
            },
            if sorts.is_empty() {
                "none".into()
            } else {
                sorts.join(", ")
            },
        )?;
        if self.quantifiers > 0 {
            write!(f, "; {} quantifier(s)", self.quantifiers)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Two rules asking the same question on a cold cache write its answer at once, from two
    /// threads of one process: each write must land (a shared temporary name made one rename
    /// fail, and the rule's verdict was lost).
    #[test]
    fn concurrent_writes_of_one_cache_entry_all_land() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("entry");
        std::thread::scope(|s| {
            let writers: Vec<_> = (0..8)
                .map(|t| {
                    let path = &path;
                    s.spawn(move || {
                        (0..200)
                            .map(|k| write_atomically(path, &format!("writer {t} write {k}\n")))
                            .collect::<Result<Vec<()>, _>>()
                    })
                })
                .collect();
            for w in writers {
                w.join().expect("no panic").expect("every write lands");
            }
        });
        let text = std::fs::read_to_string(&path).expect("written");
        assert!(
            text.starts_with("writer ") && text.ends_with('\n'),
            "{text}"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    /// An unknown is reused while the timeout is no longer than the one it gave up within,
    /// and solved again under a longer one; the definite answer found then wins for good.
    #[test]
    fn a_cached_unknown_is_reused_under_its_timeout_and_retried_under_a_longer_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = "(assert false)\n(check-sat)\n";
        let opts = |timeout_ms| Options {
            timeout_ms,
            cache: Some(dir.path().to_path_buf()),
            unknowns: Unknowns::Reuse,
            ..Options::default()
        };
        let calls = Cell::new(0);
        let run = |timeout_ms, answer: Answer| {
            solve("q", text, &[], &opts(timeout_ms), || {
                calls.set(calls.get() + 1);
                answer
            })
            .expect("the cache is writable")
        };
        let gave_up = || Answer::Unknown("timeout".into());
        let first = run(100, gave_up());
        assert!(!first.cached && calls.get() == 1);
        for timeout_ms in [100, 50] {
            let again = run(timeout_ms, Answer::Proved);
            assert_eq!(calls.get(), 1, "not solved again within {timeout_ms} ms");
            assert!(again.cached);
            assert_eq!(
                again.answer,
                Answer::Unknown("cached: z3 gave up within 100 ms; z3: timeout".into())
            );
        }
        let longer = run(1000, Answer::Proved);
        assert_eq!(calls.get(), 2, "solved again under a longer timeout");
        assert!(!longer.cached && longer.answer == Answer::Proved);
        let after = run(50, gave_up());
        assert!(after.cached && after.answer == Answer::Proved && calls.get() == 2);
    }

    /// Another route is another question: its solvers were not the ones that gave up.
    #[test]
    fn a_cached_unknown_is_not_read_on_another_route() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut opts = Options {
            timeout_ms: 100,
            cache: Some(dir.path().to_path_buf()),
            unknowns: Unknowns::Reuse,
            ..Options::default()
        };
        let text = "(check-sat)\n";
        let unknown = || Answer::Unknown("timeout".into());
        solve("q", text, &[], &opts, unknown).expect("writes");
        opts.fallback = vec![Solver::Bitwuzla];
        let other = solve("q", text, &[], &opts, || Answer::Proved).expect("reads");
        assert!(!other.cached, "{:?}", other.answer);
    }

    /// `--retry-unknown` asks again under the same timeout; `semfuzz prove` neither keeps nor
    /// reads unknowns.
    #[test]
    fn unknowns_are_retried_or_not_kept_where_the_options_say() {
        let dir = tempfile::tempdir().expect("temp dir");
        let text = "(check-sat)\n";
        let opts = |unknowns| Options {
            timeout_ms: 100,
            cache: Some(dir.path().to_path_buf()),
            unknowns,
            ..Options::default()
        };
        let unknown = |unknowns| {
            solve("q", text, &[], &opts(unknowns), || {
                Answer::Unknown("timeout".into())
            })
            .expect("the cache is writable")
        };
        assert!(!unknown(Unknowns::Ask).cached);
        assert!(!unknown(Unknowns::Reuse).cached, "Ask kept nothing");
        assert!(!unknown(Unknowns::Retry).cached);
        assert!(!unknown(Unknowns::Ask).cached);
        assert!(unknown(Unknowns::Reuse).cached);
    }
}
