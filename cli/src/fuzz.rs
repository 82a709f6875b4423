//! `semfuzz fuzz`: a campaign of one backend against the spec, and `semfuzz backends`.

use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use semfuzz_fuzz::campaign::{self, Config, Counters, Report};
use semfuzz_fuzz::registry;
use semfuzz_service::client::{Delivery, Reporter};
use semfuzz_spec::Spec;
use std::collections::BTreeMap;
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
    /// What computes the accept sets.
    pub evaluator: semfuzz_jit::EvaluatorKind,
    /// Post findings to a service as the campaign goes.
    pub report: Option<Reporter>,
}

/// With `--report`, the campaign runs in at most this many slices of its variants and posts
/// each slice's findings when it ends (the engine returns findings only at the end of a run).
const REPORT_SLICES: usize = 16;

/// Cases per variant when neither `--cases` nor `--time` is given (except `exhaustive`,
/// which then runs every tuple).
const DEFAULT_CASES: u64 = 100_000;

/// Z3's budget per witness query for `--generator witness` (`semfuzz witnesses --timeout`).
const WITNESS_TIMEOUT_MS: u32 = 2000;

/// `--evaluator jit` or `interp`.
pub fn parse_evaluator(text: &str) -> Result<semfuzz_jit::EvaluatorKind, String> {
    semfuzz_jit::EvaluatorKind::parse(text)
        .ok_or_else(|| format!("`{text}` is not an evaluator; write jit or interp"))
}

/// `--time 30s`, `10m`, `2h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text)
        .map_err(|e| format!("`{text}` is not a duration ({e}); write e.g. 30s, 10m, 2h"))
}

pub fn run(spec: &Spec, variants: &[&semfuzz_spec::Variant], args: Args) -> Result<bool> {
    // The `spec` backend's results come from the evaluator `--evaluator` names too.
    let open = || -> Result<Box<dyn semfuzz_backend::Backend>, semfuzz_backend::BackendError> {
        if args.backend == "spec" {
            return Ok(Box::new(
                semfuzz_fuzz::spec_backend::SpecBackend::with_evaluator(args.evaluator),
            ));
        }
        registry::open(&args.backend)
    };
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
        evaluator: args.evaluator,
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
    let witness = |v: &semfuzz_spec::Variant| -> Vec<Vec<u64>> {
        // A warp collective's 32 lane values make a branch query per lane and comparison,
        // more than a campaign waits for; its cases come from the sampler instead.
        if v.is_warp_view() {
            return Vec::new();
        }
        semfuzz_smt::witness::witnesses(spec, v, WITNESS_TIMEOUT_MS)
            .witnesses
            .into_iter()
            .map(|w| w.inputs)
            .collect()
    };
    let witnesses: Option<&campaign::WitnessFn<'_>> =
        (args.generator == semfuzz_fuzz::GeneratorKind::Witness).then_some(&witness);
    let bar = progress(variants, &config);
    let slices = match args.report {
        Some(_) => variants.len().div_ceil(REPORT_SLICES).max(1),
        None => variants.len().max(1),
    };
    let report = std::thread::scope(|s| {
        let ticker = s.spawn(|| tick(&bar, config.time.is_some(), &counters, &stop));
        let report = run_slices(variants.chunks(slices), &config, &stop, |slice, config| {
            let part = campaign::run(spec, slice, &open, witnesses, config, &counters, &stop)
                .map_err(|e| anyhow!("{e}"))?;
            if let Some(r) = &args.report {
                let d = r.findings(&part.findings)?;
                bar.suspend(|| report_delivery(r, &d));
            }
            Ok(part)
        });
        // The ticker stops when it sees `stop`; a finished campaign sets it too.
        let interrupted = stop.swap(true, Relaxed);
        let _ = ticker.join();
        report.map(|r| (r, interrupted))
    });
    bar.finish_and_clear();
    let (report, interrupted) = report?;
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    summary(&report, interrupted);
    if let Some(r) = &args.report {
        report_delivery(r, &r.flush()?);
    }
    if interrupted && args.generator == semfuzz_fuzz::GeneratorKind::Exhaustive {
        // Lanes advance round-robin, so the least reached is where every variant can go on.
        if let Some(from) = report.reached.iter().map(|(_, n)| *n).min() {
            outln!("exhaustive: every variant reached case {from}; go on with --resume {from}");
        }
    }
    Ok(report.errors.is_empty())
}

/// Runs `slices` one after another, giving each its share of `--time`, and merges their
/// reports; stops early when `stop` is set.
fn run_slices<'v>(
    slices: impl ExactSizeIterator<Item = &'v [&'v semfuzz_spec::Variant]>,
    config: &Config,
    stop: &AtomicBool,
    mut run: impl FnMut(&[&semfuzz_spec::Variant], &Config) -> Result<Report>,
) -> Result<Report> {
    let started = std::time::Instant::now();
    let mut left = slices.len();
    let mut merged: Option<Report> = None;
    for slice in slices {
        let mut config = config.clone();
        config.time = config
            .time
            .map(|t| t.saturating_sub(started.elapsed()) / left as u32);
        left -= 1;
        let part = run(slice, &config)?;
        merged = Some(match merged {
            None => part,
            Some(m) => merge(m, part),
        });
        if stop.load(Relaxed) {
            break;
        }
    }
    let mut report = merged.ok_or_else(|| anyhow!("no variants to run"))?;
    report.elapsed = started.elapsed();
    report.findings.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (&a.variant, &a.signature).cmp(&(&b.variant, &b.signature)))
    });
    Ok(report)
}

/// Two slices' reports as one (the slices have disjoint variants).
fn merge(mut a: Report, b: Report) -> Report {
    a.findings.extend(b.findings);
    a.cases += b.cases;
    a.rejected += b.rejected;
    a.no_verdict += b.no_verdict;
    a.skipped.extend(b.skipped);
    a.variants_run += b.variants_run;
    a.errors.extend(b.errors);
    a.reached.extend(b.reached);
    a
}

/// One line on standard error about what reached the service and what waits in the spool.
pub fn report_delivery(r: &Reporter, d: &Delivery) {
    if d.spooled > 0 {
        eprintln!(
            "report: {} batches waiting in {} ({}); they are resent at the next post and at exit",
            d.spooled,
            r.spool_path().display(),
            d.last_error.as_deref().unwrap_or("unreachable")
        );
    } else if d.sent > 0 {
        eprintln!("report: {} batches posted", d.sent);
    }
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

/// One row of the summary: every finding of one variant and class.
struct Row<'r> {
    variant: &'r str,
    class: &'r str,
    count: u64,
    signatures: usize,
    example: &'r semfuzz_fuzz::Finding,
}

/// The findings grouped by (variant, class), most cases first; the example is the group's
/// smallest.
fn rows(report: &Report) -> Vec<Row<'_>> {
    let mut rows: Vec<Row<'_>> = Vec::new();
    for f in &report.findings {
        match rows
            .iter_mut()
            .find(|r| r.variant == f.variant && r.class == f.class)
        {
            Some(r) => {
                r.count += f.count;
                r.signatures += 1;
                let size =
                    |f: &semfuzz_fuzz::Finding| f.inputs.concat().trim_end_matches('0').len();
                if size(f) < size(r.example) {
                    r.example = f;
                }
            }
            None => rows.push(Row {
                variant: &f.variant,
                class: &f.class,
                count: f.count,
                signatures: 1,
                example: f,
            }),
        }
    }
    rows.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (a.variant, a.class).cmp(&(b.variant, b.class)))
    });
    rows
}

fn summary(report: &Report, interrupted: bool) {
    let secs = report.elapsed.as_secs_f64().max(1e-9);
    let rows = rows(report);
    if !rows.is_empty() {
        let w = rows
            .iter()
            .map(|r| r.variant.len())
            .max()
            .unwrap_or(7)
            .max(7);
        let c = rows.iter().map(|r| r.class.len()).max().unwrap_or(5).max(5);
        outln!(
            "{:w$}  {:c$}  {:>10}  {:>10}  example (a `semfuzz check` line)",
            "variant",
            "class",
            "cases",
            "signatures"
        );
        for r in &rows {
            outln!(
                "{:w$}  {:c$}  {:>10}  {:>10}  {}",
                r.variant,
                r.class,
                r.count,
                r.signatures,
                r.example.check_line()
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
        "{}{}: {} variants, {} cases in {secs:.3} s ({}/s), {} rejected, {} findings, {} without verdict, {} skipped, {} failed batches",
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
    if !report.evaluators.is_empty() {
        let used: Vec<String> = report
            .evaluators
            .iter()
            .map(|(kind, n)| format!("{} evaluator ({n} variants)", kind.name()))
            .collect();
        outln!("accept sets by the {}", used.join(" and the "));
    }
}

/// `semfuzz backends`: one line per backend: name, version, and `available` or why not.
/// A variant with its operands (`min.f32 d, a, b, c`): texts alone repeat across operand forms.
fn spelled(v: &semfuzz_spec::Variant) -> String {
    let names: Vec<&str> = v
        .dests
        .iter()
        .chain(&v.sources)
        .map(|o| o.name.as_str())
        .collect();
    format!("{} {}", v.text, names.join(", "))
}

/// `semfuzz backends --coverage`: what each backend here maps of `variants`. Without `named`,
/// every listed backend this machine has, each with its count and the reasons it skips the
/// rest (the variant's text taken out, so one reason counts once); with `named`, those
/// backends, one line per variant.
pub fn coverage(variants: &[&semfuzz_spec::Variant], named: &[String]) -> Result<bool> {
    use semfuzz_backend::Support;
    let names: Vec<String> = if named.is_empty() {
        registry::BACKENDS
            .iter()
            .flat_map(|e| {
                e.listed.iter().map(move |arg| match arg {
                    Some(a) => format!("{}:{a}", e.name),
                    None => e.name.to_string(),
                })
            })
            .collect()
    } else {
        named.to_vec()
    };
    for name in &names {
        let backend = match registry::open(name) {
            Ok(b) => b,
            Err(e) if named.is_empty() => {
                outln!("{name}: unavailable here ({e})");
                continue;
            }
            Err(e) => return Err(anyhow::anyhow!("{e}")),
        };
        let mut runs = 0usize;
        let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for v in variants {
            match backend.supports(v) {
                Support::Yes => {
                    runs += 1;
                    if !named.is_empty() {
                        outln!("{name}  {}  runs", spelled(v));
                    }
                }
                Support::No(why) => {
                    // The variant's own text out of the reason, so that one reason counts once.
                    let why = replace_word(
                        why.strip_prefix(&format!("{}: ", v.text)).unwrap_or(&why),
                        &v.text,
                        "the variant",
                    );
                    if !named.is_empty() {
                        outln!("{name}  {}  {why}", spelled(v));
                    }
                    let entry = reasons.entry(why).or_insert((0, v.text.clone()));
                    entry.0 += 1;
                }
            }
        }
        outln!(
            "{name} ({}): runs {runs} of {} variants",
            backend.identity().version,
            variants.len()
        );
        if named.is_empty() {
            let mut reasons: Vec<_> = reasons.into_iter().collect();
            reasons.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
            const SHOWN: usize = 12;
            for (why, (count, example)) in reasons.iter().take(SHOWN) {
                outln!("  {count:>6}  {why} (e.g. {example})");
            }
            if reasons.len() > SHOWN {
                let rest: usize = reasons[SHOWN..].iter().map(|r| r.1 .0).sum();
                outln!(
                    "  {rest:>6}  for {} other reasons (`--coverage --backend {name}` lists each variant)",
                    reasons.len() - SHOWN
                );
            }
        }
    }
    Ok(true)
}

pub fn backends() -> Result<bool> {
    let mut lines: Vec<(String, String, String)> = Vec::new();
    for entry in registry::BACKENDS {
        if entry.listed.is_empty() {
            lines.push((entry.usage.into(), "-".into(), entry.about.into()));
        }
        for &arg in entry.listed {
            let name = match arg {
                Some(a) => format!("{}:{a}", entry.name),
                None => entry.usage.to_string(),
            };
            lines.push(match (entry.probe)(arg) {
                Ok(id) => (name, id.version, format!("available ({})", id.device)),
                Err(why) => (name, "-".into(), format!("unavailable: {why}")),
            });
        }
    }
    let w0 = lines.iter().map(|l| l.0.len()).max().unwrap_or(0);
    let w1 = lines.iter().map(|l| l.1.len()).max().unwrap_or(0);
    for (name, version, state) in &lines {
        outln!("{name:w0$}  {version:w1$}  {state}");
    }
    outln!("evaluator: {}", semfuzz_jit::describe_host());
    Ok(true)
}

/// `text` with each occurrence of `word` that stands alone (not inside a longer name such as
/// `@llvm.nvvm.fmin.bf16` for `min.bf16`) replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '@');
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(part_of_name) || after.is_some_and(part_of_name) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::replace_word;

    #[test]
    fn a_variant_name_inside_an_intrinsic_name_stays() {
        assert_eq!(
            replace_word(
                "min.bf16: opt failed on @llvm.nvvm.fmin.bf16 for min.bf16",
                "min.bf16",
                "the variant"
            ),
            "the variant: opt failed on @llvm.nvvm.fmin.bf16 for the variant"
        );
    }
}
