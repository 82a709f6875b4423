//! The batch loop: for each selected variant, batches of generated inputs go to the backend,
//! every result is compared with the evaluator's accept sets, and what the spec rejects is
//! classified and deduplicated into findings.
//!
//! Work is handed out a batch at a time, round-robin over the variants, to `threads` workers,
//! each with its own backend instance (opened in its own thread, so a backend may keep
//! thread-bound state such as a Z3 context or a CUDA context). A batch the backend fails on is
//! reported and skipped; the campaign goes on.

use crate::explain::{explain, Neighbour};
use crate::finding::{first_rejected, operand_classes, signature, Class, Finding, Record};
use crate::generate::{GeneratorKind, Inputs, CHUNK};
use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict, Words};
use semfuzz_jit::{Cache, Evaluator, EvaluatorKind};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{Spec, Variant};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// Opens one backend instance; called once in each worker thread.
pub type Opener<'a> = dyn Fn() -> Result<Box<dyn Backend>, BackendError> + Sync + 'a;

/// Z3's input tuples for a variant (`--generator witness`); called once per variant.
pub type WitnessFn<'a> = dyn Fn(&Variant) -> Vec<Vec<u64>> + Sync + 'a;

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where inputs come from.
    pub generator: GeneratorKind,
    /// Cases per variant; `None` runs until `time` (or, for `exhaustive`, until the last
    /// tuple).
    pub cases: Option<u64>,
    /// Wall-clock budget of the whole campaign.
    pub time: Option<Duration>,
    /// The seed every generator derives from.
    pub seed: u64,
    /// Worker threads, each with its own backend.
    pub threads: usize,
    /// `exhaustive`: the case index to start from (rounded down to a multiple of
    /// [`CHUNK`]).
    pub resume: u64,
    /// What computes the accept sets: compiled code where it supports a variant (the
    /// default), or the interpreter.
    pub evaluator: EvaluatorKind,
}

/// Live counters, readable while the campaign runs (the progress bar polls them).
#[derive(Debug, Default)]
pub struct Counters {
    /// Cases run.
    pub cases: AtomicU64,
    /// Cases whose result the spec rejected.
    pub rejected: AtomicU64,
    /// Cases the backend gave no verdict or called unsupported.
    pub no_verdict: AtomicU64,
    /// Distinct signatures so far.
    pub findings: AtomicU64,
    /// Batches the backend failed on.
    pub batch_errors: AtomicU64,
}

/// A batch the backend could not run.
#[derive(Clone, Debug)]
pub struct BatchError {
    /// The variant.
    pub variant: String,
    /// The first case index of the batch.
    pub first_case: u64,
    /// What went wrong.
    pub message: String,
}

/// What a campaign found.
#[derive(Debug)]
pub struct Report {
    /// The backend.
    pub identity: Identity,
    /// The findings, most frequent first (ties by variant, then signature).
    pub findings: Vec<Finding>,
    /// Cases run.
    pub cases: u64,
    /// Cases the spec rejected.
    pub rejected: u64,
    /// Cases without a verdict (unfolded, unsupported input forms).
    pub no_verdict: u64,
    /// Variants the backend does not run, with its reason.
    pub skipped: Vec<(String, String)>,
    /// Variants run.
    pub variants_run: usize,
    /// Batches that failed.
    pub errors: Vec<BatchError>,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// The last case index reached per variant (`exhaustive` resumes from it).
    pub reached: Vec<(String, u64)>,
    /// How many of the variants run each evaluator computed the accept sets of.
    pub evaluators: Vec<(EvaluatorKind, usize)>,
}

/// Why a campaign could not start.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// The backend could not be opened.
    #[error(transparent)]
    Backend(#[from] BackendError),
    /// The configuration does not fit the variants.
    #[error("{0}")]
    Config(String),
}

struct Lane<'s> {
    variant: &'s Variant,
    index: usize,
    next: u64,
    end: u64,
}

struct Scheduler<'s> {
    lanes: Vec<Lane<'s>>,
    cursor: usize,
    batch: u64,
    deadline: Option<Instant>,
}

struct Job {
    lane: usize,
    first: u64,
    rows: usize,
}

impl Scheduler<'_> {
    fn next(&mut self, stop: &AtomicBool) -> Option<Job> {
        if stop.load(Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        for _ in 0..self.lanes.len() {
            let i = self.cursor;
            self.cursor = (self.cursor + 1) % self.lanes.len();
            let lane = &mut self.lanes[i];
            if lane.next < lane.end {
                let rows = self.batch.min(lane.end - lane.next);
                let job = Job {
                    lane: i,
                    first: lane.next,
                    rows: rows as usize,
                };
                lane.next += rows;
                return Some(job);
            }
        }
        None
    }
}

/// Runs a campaign of `variants` against the backend `open` makes.
///
/// Returns when every variant has had its cases, the time is up, or `stop` is set (the
/// batches under way finish first); the report holds everything found until then.
pub fn run(
    spec: &Spec,
    variants: &[&Variant],
    open: &Opener<'_>,
    witnesses: Option<&WitnessFn<'_>>,
    config: &Config,
    counters: &Counters,
    stop: &AtomicBool,
) -> Result<Report, CampaignError> {
    let started = Instant::now();
    let probe = open()?;
    let identity = probe.identity().clone();
    let batch = (probe.batch_size() as u64).div_ceil(CHUNK).max(1) * CHUNK;
    let mut skipped = Vec::new();
    let mut lanes = Vec::new();
    let start = config.resume / CHUNK * CHUNK;
    for &variant in variants {
        if let Support::No(why) = probe.supports(variant) {
            skipped.push((variant.text.clone(), why));
            continue;
        }
        if variant.program.dests.is_empty() {
            skipped.push((variant.text.clone(), "it writes no destination".into()));
            continue;
        }
        let total = if config.generator == GeneratorKind::Exhaustive {
            crate::generate::exhaustive_total(variant).map_err(CampaignError::Config)?
        } else {
            u64::MAX
        };
        let index = spec
            .variants
            .iter()
            .position(|v| std::ptr::eq(v, variant))
            .ok_or_else(|| {
                CampaignError::Config(format!("{} is not a variant of this spec", variant.text))
            })?;
        lanes.push(Lane {
            variant,
            index,
            next: start.min(total),
            end: config
                .cases
                .map_or(total, |n| total.min(start.saturating_add(n))),
        });
    }
    drop(probe);
    let scheduler = Mutex::new(Scheduler {
        lanes,
        cursor: 0,
        batch,
        deadline: config.time.map(|t| started + t),
    });
    let seen = Mutex::new(HashSet::new());
    let errors = Mutex::new(Vec::new());
    let cache = Cache::new();
    let worker = Worker {
        cache: &cache,
        spec,
        identity: &identity,
        config,
        counters,
        stop,
        scheduler: &scheduler,
        seen: &seen,
        errors: &errors,
        witnesses,
    };
    let results: Vec<Result<HashMap<String, Record>, BackendError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..config.threads.max(1))
            .map(|_| s.spawn(|| worker.run(open)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(BackendError::failed(
                        &identity.name,
                        "a worker thread panicked",
                    ))
                })
            })
            .collect()
    });
    let mut merged: HashMap<String, Record> = HashMap::new();
    for r in results {
        for (sig, rec) in r? {
            match merged.get_mut(&sig) {
                Some(have) => have.merge(rec),
                None => {
                    merged.insert(sig, rec);
                }
            }
        }
    }
    let mut findings: Vec<Finding> = merged
        .values()
        .map(|r| r.finding(spec, &identity))
        .collect();
    findings.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.variant.cmp(&b.variant))
            .then_with(|| a.signature.cmp(&b.signature))
    });
    let scheduler = scheduler.into_inner().unwrap_or_else(|e| e.into_inner());
    let evaluators = [EvaluatorKind::Jit, EvaluatorKind::Interp]
        .into_iter()
        .map(|k| {
            let n = scheduler
                .lanes
                .iter()
                .filter(|l| cache.runs(&l.variant.program, config.evaluator) == k)
                .count();
            (k, n)
        })
        .filter(|&(_, n)| n > 0)
        .collect();
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errors.sort_by(|a: &BatchError, b| (&a.variant, a.first_case).cmp(&(&b.variant, b.first_case)));
    Ok(Report {
        identity,
        findings,
        cases: counters.cases.load(Relaxed),
        rejected: counters.rejected.load(Relaxed),
        no_verdict: counters.no_verdict.load(Relaxed),
        variants_run: scheduler.lanes.len(),
        reached: scheduler
            .lanes
            .iter()
            .map(|l| (l.variant.text.clone(), l.next))
            .collect(),
        evaluators,
        skipped,
        errors,
        elapsed: started.elapsed(),
    })
}

struct Worker<'a, 's> {
    cache: &'a Cache<'s>,
    spec: &'s Spec,
    identity: &'a Identity,
    config: &'a Config,
    counters: &'a Counters,
    stop: &'a AtomicBool,
    scheduler: &'a Mutex<Scheduler<'s>>,
    seen: &'a Mutex<HashSet<String>>,
    errors: &'a Mutex<Vec<BatchError>>,
    witnesses: Option<&'a WitnessFn<'a>>,
}

impl Worker<'_, '_> {
    fn next_job(&self) -> Option<(Job, &Variant, usize)> {
        let mut s = self.scheduler.lock().unwrap_or_else(|e| e.into_inner());
        let job = s.next(self.stop)?;
        let lane = &s.lanes[job.lane];
        Some((job, lane.variant, lane.index))
    }

    fn run(&self, open: &Opener<'_>) -> Result<HashMap<String, Record>, BackendError> {
        let mut backend = open()?;
        let mut found: HashMap<String, Record> = HashMap::new();
        let (mut inputs, mut verdicts, mut accepts) = (Vec::new(), Vec::new(), Vec::new());
        let (mut got, mut flags) = (Vec::new(), Vec::new());
        // Per variant: its evaluator (compiled once per campaign, shared through the cache).
        let mut evaluators: HashMap<usize, Evaluator<'_>> = HashMap::new();
        // Per variant: its generator, built once in this thread.
        let mut generators: HashMap<usize, Inputs<'_>> = HashMap::new();
        // Per variant: its neighbours, built at its first rejected case.
        let mut neighbours: HashMap<usize, Vec<Neighbour<'_>>> = HashMap::new();
        let mut scratch = Vec::new();
        while let Some((job, variant, index)) = self.next_job() {
            let gen = match generators.entry(index) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(
                    Inputs::new(self.spec, variant, self.config.generator, self.config.seed)
                        .map_err(|e| BackendError::failed(&self.identity.name, e))?,
                ),
            };
            // Witnesses lead chunk 0, which exactly one batch runs: Z3 solves them once.
            if let (GeneratorKind::Witness, Some(w), 0) =
                (self.config.generator, self.witnesses, job.first)
            {
                gen.set_witnesses(w(variant));
            }
            gen.fill(job.first, job.rows, &mut inputs);
            verdicts.clear();
            verdicts.resize(job.rows, Verdict::NoVerdict);
            if let Err(e) = backend.run(variant, &inputs, &mut verdicts) {
                self.counters.batch_errors.fetch_add(1, Relaxed);
                self.errors
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(BatchError {
                        variant: variant.text.clone(),
                        first_case: job.first,
                        message: e.to_string(),
                    });
                continue;
            }
            let ev = evaluators.entry(index).or_insert_with(|| {
                self.cache
                    .evaluator(&variant.program, self.config.evaluator)
            });
            accepts.clear();
            accepts.resize(ev.n_parts(), Accept::default());
            let words = Words::of(variant);
            let dest = &variant.program.dests[0];
            let n = variant.sources.len().max(1);
            let (mut rejected, mut no_verdict) = (0, 0);
            // The compiled accept-set test picks the rows to resolve: those some part rejects.
            got.clear();
            got.extend(verdicts.iter().map(|v| match *v {
                Verdict::Bits(b) => b & semfuzz_spec::ir::mask(dest.width),
                _ => 0,
            }));
            flags.clear();
            flags.resize(got.len(), 1u8);
            ev.screen(&inputs, n, &got, &mut flags);
            for ((row, verdict), &flag) in inputs.chunks_exact(n).zip(&verdicts).zip(&flags) {
                let Verdict::Bits(got) = *verdict else {
                    no_verdict += 1;
                    continue;
                };
                if flag == 0 {
                    continue;
                }
                let got = got & semfuzz_spec::ir::mask(dest.width);
                ev.eval(&row[..variant.sources.len()], &mut accepts);
                let Some(p) = first_rejected(dest, &accepts, got) else {
                    continue;
                };
                rejected += 1;
                let near = neighbours
                    .entry(index)
                    .or_insert_with(|| crate::explain::neighbours(self.spec, variant));
                let dest_part = &dest.parts[p];
                let bits = (got >> dest_part.lo) & semfuzz_spec::ir::mask(dest_part.width);
                let spec_class = Class::of(&words, dest_part.kind, &accepts[p], bits);
                let class = explain(
                    &spec_class,
                    near,
                    &row[..variant.sources.len()],
                    got,
                    &mut scratch,
                )
                .unwrap_or_else(|| spec_class.to_string());
                // The backend's own language may allow what the spec rejects (LangRef, for
                // LLVM's folder): that decides who is at fault, so it is part of the class.
                let class =
                    match backend.triage(self.spec, variant, &row[..variant.sources.len()], got) {
                        Some(reading) => format!("{class}+{reading}"),
                        None => class,
                    };
                self.record(&mut found, variant, index, class, p, row, got, accepts[p]);
            }
            self.counters.cases.fetch_add(job.rows as u64, Relaxed);
            self.counters.rejected.fetch_add(rejected, Relaxed);
            self.counters.no_verdict.fetch_add(no_verdict, Relaxed);
        }
        Ok(found)
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        found: &mut HashMap<String, Record>,
        variant: &Variant,
        index: usize,
        class: String,
        part: usize,
        row: &[u64],
        got: u64,
        expected: Accept,
    ) {
        let dest = &variant.program.dests[0];
        // A destination tiled by lanes: the differing part is a lane of the packed operands.
        let lane = (!dest.by_range && dest.parts.len() > 1).then_some(part as u32);
        let classes = operand_classes(self.spec, variant, row, lane);
        let sig = signature(
            &variant.text,
            self.identity,
            &class,
            &dest.part_name(part),
            &classes,
        );
        let now = SystemTime::now();
        let record = Record {
            variant: index,
            class,
            part,
            signature: sig.clone(),
            operand_classes: classes,
            inputs: row.to_vec(),
            actual: got,
            expected,
            count: 1,
            first_seen: now,
            last_seen: now,
        };
        match found.get_mut(&sig) {
            Some(have) => have.merge(record),
            None => {
                let new = self
                    .seen
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(sig.clone());
                if new {
                    self.counters.findings.fetch_add(1, Relaxed);
                }
                found.insert(sig, record);
            }
        }
    }
}
