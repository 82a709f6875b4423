//! `semfuzz prove FILE|DIR...`: one line per rule, `NAME: proved|counterexample|unknown`
//! with the solve time, a counterexample's inputs and outputs indented under it; exit 1 when
//! a verdict differs from the rule's `expect:` or a file is malformed.

use anyhow::{anyhow, Result};
use semfuzz_service::client::Reporter;
use semfuzz_service::model::NewProof;
use semfuzz_smt::rules::{self, Expect};
use semfuzz_smt::sequence::{self, Proof};
use semfuzz_smt::solve::{Answer, Options, IN_PROCESS};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::outcome::{describe, describe_accept};
use semfuzz_spec::Spec;
use std::path::{Path, PathBuf};

/// Parses `--timeout`: `5s`, `500ms`, `1m`, or plain seconds.
pub fn parse_timeout(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (t, 1000.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v * scale <= f64::from(u32::MAX) => {
            Ok((v * scale).round().max(1.0) as u32)
        }
        _ => Err(format!(
            "`{text}` is not a duration: write it like 5s, 500ms or 1m"
        )),
    }
}

/// The `.rules` files named: files as given, directories' `*.rules` sorted by name.
fn rule_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| anyhow!("cannot read {}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "rules"))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(anyhow!("no .rules files in {}", p.display()));
            }
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Runs every rule of `paths`; `Ok(false)` when a verdict differs from its `expect:`, a
/// counterexample is not confirmed, or a file is malformed.
pub fn run(
    spec: &Spec,
    paths: &[PathBuf],
    opts: &Options,
    report: Option<&Reporter>,
) -> Result<bool> {
    let mut ok = true;
    let (mut counts, mut differ, mut cached) = ([0usize; 3], 0usize, 0usize);
    for path in rule_files(paths)? {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
        let file = SourceFile::new(path.display().to_string(), text);
        let rules = match rules::parse(&file) {
            Ok(r) => r,
            Err(errors) => {
                for e in errors {
                    eprintln!("{e}");
                }
                ok = false;
                continue;
            }
        };
        let mut results = Vec::new();
        in_order(
            rules.len(),
            |i| sequence::prove(spec, &rules[i], opts),
            |i, proof| {
                let rule = &rules[i];
                let proof = match proof {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("{e}");
                        ok = false;
                        return;
                    }
                };
                let (verdict, index) = match proof.solved.answer {
                    Answer::Proved => (Expect::Proved, 0),
                    Answer::Counterexample(_) => (Expect::Counterexample, 1),
                    Answer::Unknown(_) => (Expect::Unknown, 2),
                };
                counts[index] += 1;
                cached += usize::from(proof.solved.cached);
                // `unknown` is never a pass unless the rule says it expects exactly that.
                let matches = rule
                    .expect
                    .map_or(verdict != Expect::Unknown, |e| e == verdict);
                if !matches {
                    differ += 1;
                    ok = false;
                }
                let note = match (&proof.solved.answer, matches, rule.expect) {
                    (Answer::Unknown(why), _, _) => format!(" ({why})"),
                    _ => String::new(),
                };
                // The portfolio and the default route's fallback name who answered; Z3 in
                // process is the default and goes unsaid.
                let by = match &proof.solved.solver {
                    Some(s) if !opts.portfolio.is_empty() || s != IN_PROCESS => format!(", {s}"),
                    _ => String::new(),
                };
                outln!(
                    "{}: {}{note} ({:.2}s{}{by}){}",
                    rule.name,
                    verdict.name(),
                    proof.solved.seconds,
                    if proof.solved.cached { ", cached" } else { "" },
                    match (matches, rule.expect) {
                        (true, _) => String::new(),
                        (false, Some(e)) => format!("   MISMATCH: expected {}", e.name()),
                        (false, None) => "   MISMATCH: no verdict (unknown is never a pass)".into(),
                    }
                );
                if let Some(size) = &proof.size {
                    outln!("    query: {size}");
                }
                if !print_counterexample(spec, &proof) {
                    ok = false;
                }
                results.push(proof_result(spec, &rule.name, verdict, &proof));
            },
        );
        if let Some(r) = report {
            let d = r.proofs(&results)?;
            crate::fuzz::report_delivery(r, &d);
        }
    }
    if let Some(r) = report {
        crate::fuzz::report_delivery(r, &r.flush()?);
    }
    outln!(
        "{} rules: {} proved, {} counterexample, {} unknown; {differ} differ from expect:; {cached} from the cache",
        counts.iter().sum::<usize>(),
        counts[0],
        counts[1],
        counts[2]
    );
    Ok(ok)
}

/// Runs `work` on `0..n` on as many threads as the machine has cores and hands each result
/// to `emit` in index order, as soon as it and every earlier one are done: a file's rules are
/// independent queries (each in a Z3 context of its own), so a slow one does not hold up the
/// others' solving, only their printing.
fn in_order<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync, mut emit: impl FnMut(usize, T)) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (tx, next, work) = (tx.clone(), &next, &work);
            s.spawn(move || loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n || tx.send((i, work(i))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut done: std::collections::BTreeMap<usize, T> = std::collections::BTreeMap::new();
        let mut first = 0;
        for (i, result) in rx {
            done.insert(i, result);
            while let Some(result) = done.remove(&first) {
                emit(first, result);
                first += 1;
            }
        }
    });
}

/// Prints a counterexample's inputs, output parts and the evaluator's verdict; false when
/// the evaluator does not confirm it (a bug in semfuzz).
fn print_counterexample(spec: &Spec, proof: &Proof) -> bool {
    let (Answer::Counterexample(values), Some(c)) = (&proof.solved.answer, &proof.confirmation)
    else {
        return true;
    };
    let q = &proof.query;
    for (name, ty, bits) in q.shown_inputs(values) {
        outln!("    {name} = {}", spec.describe_operand(&ty, bits));
    }
    for p in &c.parts {
        let bad = !p.source.accepts(p.target);
        outln!(
            "    {}{}: source allows {}; target produced {}",
            if bad { "lane " } else { "  " },
            p.name,
            describe_accept(p.kind, &p.source),
            describe(p.kind, p.target)
        );
    }
    if q.source.len() > 1 || q.target.len() > 1 {
        outln!("    (a mul+add without rounding modifier may also be fused: both sides' alternatives were run)");
    }
    if c.confirmed() {
        outln!("    confirmed by the evaluator");
        true
    } else if c.target_undecided {
        outln!("    NOT confirmed: the target reaches this output through an approximation whose bound the solver leaves free (rsqrt.approx, ex2.approx), and whether a pick within the ISA's bound reaches it is undecided");
        false
    } else {
        eprintln!(
            "    BUG: the evaluator does NOT confirm this counterexample ({}): the SMT encoding and the evaluator disagree; please report it",
            if !c.target_produces {
                "the target cannot produce this output"
            } else {
                "a choice of the source allows this output"
            }
        );
        false
    }
}

/// The default cache directory, under the current directory (git-ignored).
pub fn default_cache() -> &'static Path {
    Path::new(".semfuzz-cache")
}

/// A proof as `--report` posts it: the counterexample is its inputs, one `name = value` each.
fn proof_result(spec: &Spec, rule: &str, verdict: Expect, proof: &Proof) -> NewProof {
    let counterexample = match &proof.solved.answer {
        Answer::Counterexample(values) => proof
            .query
            .shown_inputs(values)
            .into_iter()
            .map(|(name, ty, bits)| format!("{name} = {}", spec.describe_operand(&ty, bits)))
            .collect::<Vec<_>>()
            .join("; "),
        _ => String::new(),
    };
    NewProof {
        rule: rule.to_string(),
        verdict: verdict.name().to_string(),
        counterexample,
        solver: format!("z3 {}", semfuzz_smt::z3_version()),
        seconds: proof.solved.seconds,
    }
}
