//! `semfuzz fuzz`: a campaign of one backend against the spec, and `semfuzz backends`.

use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use semfuzz_fuzz::campaign::{self, Config, Counters, Report};
use semfuzz_fuzz::registry;
use semfuzz_spec::Spec;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

/// What `semfuzz fuzz` was asked to do.
pub struct Args {
    pub backend: String,
    pub generator: semfuzz_fuzz::GeneratorKind,
    pub cases: Option<u64>,
    pub time: Option<Duration>,
    pub seed: u64,
    pub threads: usize,
    pub json: Option<PathBuf>,
    pub resume: u64,
}

/// Cases per variant when neither `--cases` nor `--time` is given (except `exhaustive`,
/// which then runs every tuple).
const DEFAULT_CASES: u64 = 100_000;

/// `--time 30s`, `10m`, `2h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text)
        .map_err(|e| format!("`{text}` is not a duration ({e}); write e.g. 30s, 10m, 2h"))
}

pub fn run(spec: &Spec, variants: &[&semfuzz_spec::Variant], args: Args) -> Result<bool> {
    let open = || registry::open(&args.backend);
    let cases = match (args.cases, args.time, args.generator) {
        (None, None, semfuzz_fuzz::GeneratorKind::Exhaustive) => None,
        (None, None, _) => Some(DEFAULT_CASES),
        (cases, _, _) => cases,
    };
    let config = Config {
        generator: args.generator,
        cases,
        time: args.time,
        seed: args.seed,
        threads: args.threads,
        resume: args.resume,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let handler_stop = Arc::clone(&stop);
    // First Ctrl-C: finish the batches under way, print the summary, write the file.
    // Second: leave at once.
    ctrlc::set_handler(move || {
        if handler_stop.swap(true, Relaxed) {
            std::process::exit(130);
        }
    })
    .context("cannot install the Ctrl-C handler")?;
    let counters = Counters::default();
    if args.generator == semfuzz_fuzz::GeneratorKind::Witness {
        anyhow::bail!(
            "the witness generator is not built in yet; use boundary, uniform or exhaustive"
        );
    }
    let bar = progress(variants, &config);
    let report = std::thread::scope(|s| {
        let ticker = s.spawn(|| tick(&bar, config.time.is_some(), &counters, &stop));
        let report = campaign::run(spec, &variants, &open, None, &config, &counters, &stop);
        // The ticker stops when it sees `stop`; a finished campaign sets it too.
        let interrupted = stop.swap(true, Relaxed);
        let _ = ticker.join();
        report.map(|r| (r, interrupted))
    });
    bar.finish_and_clear();
    let (report, interrupted) = report.map_err(|e| anyhow!("{e}"))?;
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    summary(&report, interrupted);
    Ok(report.errors.is_empty())
}

fn progress(variants: &[&semfuzz_spec::Variant], config: &Config) -> ProgressBar {
    let total = config
        .cases
        .map(|c| c.saturating_mul(variants.len() as u64));
    let bar = match (total, config.time) {
        (Some(t), None) => ProgressBar::new(t),
        (_, Some(d)) => ProgressBar::new(d.as_secs().max(1)),
        (None, None) => ProgressBar::no_length(),
    };
    let template = if config.time.is_some() {
        "{bar:30} {elapsed}/{len}s  {msg}"
    } else {
        "{bar:30} {percent:>3}%  eta {eta}  {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Redraws the bar from the counters every 200 ms until the campaign ends.
fn tick(bar: &ProgressBar, by_time: bool, counters: &Counters, stop: &AtomicBool) {
    let start = std::time::Instant::now();
    while !stop.load(Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let cases = counters.cases.load(Relaxed);
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        if by_time {
            bar.set_position(start.elapsed().as_secs());
        } else {
            bar.set_position(cases);
        }
        bar.set_message(format!(
            "{} cases  {}/s  {} findings  {} rejected",
            human(cases as f64),
            human(cases as f64 / secs),
            counters.findings.load(Relaxed),
            counters.rejected.load(Relaxed),
        ));
    }
}

/// `12.3 M`.
fn human(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.1} k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

fn write_json(path: &PathBuf, report: &Report) -> Result<()> {
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?,
    );
    for f in &report.findings {
        serde_json::to_writer(&mut out, f)?;
        out.write_all(b"\n")?;
    }
    out.flush()
        .with_context(|| format!("cannot write {}", path.display()))
}

fn summary(report: &Report, interrupted: bool) {
    let secs = report.elapsed.as_secs_f64().max(1e-9);
    if !report.findings.is_empty() {
        let w = report
            .findings
            .iter()
            .map(|f| f.variant.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let c = report
            .findings
            .iter()
            .map(|f| f.class.len())
            .max()
            .unwrap_or(5)
            .max(5);
        outln!(
            "{:w$}  {:c$}  {:>10}  example (semfuzz check line)",
            "variant",
            "class",
            "count"
        );
        for f in &report.findings {
            outln!(
                "{:w$}  {:c$}  {:>10}  {}",
                f.variant,
                f.class,
                f.count,
                f.check_line()
            );
        }
        outln!("");
    }
    for (variant, why) in report.skipped.iter().take(5) {
        outln!("skipped {variant}: {why}");
    }
    if report.skipped.len() > 5 {
        outln!(
            "skipped {} more variants (unsupported by {})",
            report.skipped.len() - 5,
            report.identity.name
        );
    }
    for e in report.errors.iter().take(5) {
        outln!(
            "error: batch at case {} of {}: {}",
            e.first_case,
            e.variant,
            e.message
        );
    }
    if report.errors.len() > 5 {
        outln!("error: {} more batches failed", report.errors.len() - 5);
    }
    outln!(
        "{}{}: {} variants, {} cases in {secs:.1} s ({}/s), {} rejected, {} findings, {} without verdict, {} skipped, {} failed batches",
        if interrupted { "interrupted; " } else { "" },
        report.identity,
        report.variants_run,
        report.cases,
        human(report.cases as f64 / secs),
        report.rejected,
        report.findings.len(),
        report.no_verdict,
        report.skipped.len(),
        report.errors.len(),
    );
}

/// `semfuzz backends`: one line per backend: name, version, and `available` or why not.
pub fn backends() -> Result<bool> {
    for entry in registry::BACKENDS {
        let name = entry.usage;
        match (entry.probe)(None) {
            Ok(id) => outln!("{name:16} {:32} available ({})", id.version, id.device),
            Err(why) => outln!("{name:16} {:32} unavailable: {why}", "-"),
        }
    }
    Ok(true)
}
