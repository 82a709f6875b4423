//! `cargo xtask fuzz [TARGET...] [--time S]` and the fuzz smoke step of `cargo xtask test`:
//! installs the pinned cargo-fuzz when it is missing, builds the libFuzzer targets of
//! `fuzz/libfuzzer` (coverage instrumentation, no sanitizer: stable Rust) and runs each for
//! a while on its committed seeds and dictionary. See fuzz/README.md.

use super::{cargo, describe, run_checked, step, Result};
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// cargo-fuzz, pinned: `cargo install cargo-fuzz --version CARGO_FUZZ_VERSION --locked`.
const CARGO_FUZZ_VERSION: &str = "0.13.2";
/// The fuzz crate, relative to the workspace root (a workspace of its own).
const FUZZ_DIR: &str = "fuzz/libfuzzer";
/// Every target, in the order they run.
const TARGETS: &[&str] = &[
    "spec_parse",
    "instr_text",
    "rule_parse",
    "api_body",
    "eval_vs_z3",
    "eval_vs_host",
    "jit_vs_interp",
    "ptx_parse",
];
/// Seconds per target in `cargo xtask test`, unless `SEMFUZZ_FUZZ_SECONDS` says otherwise
/// (0 leaves the step out).
const SMOKE_SECONDS: u64 = 30;
/// A single input that runs longer than this is a finding (a hang), in seconds.
const INPUT_TIMEOUT_S: u64 = 20;
/// How long past its time a run may take (loading the corpus, the final merge) before it is
/// killed as hung.
const HANG_GRACE_S: u64 = 120;
/// How much of a crash input a failure report shows, in bytes (as hex).
const SHOWN_INPUT_BYTES: usize = 4096;

/// `cargo xtask fuzz [TARGET...] [--time S]`: every target (or those named) for `S` seconds
/// each (default 60); exit 1 when any crashed.
pub fn command(root: &Path, args: &[OsString]) -> Result<i32> {
    let mut seconds = 60;
    let mut targets = Vec::new();
    let mut args = args.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--time" => {
                let s = args.next().ok_or("--time takes a number of seconds")?;
                seconds = s
                    .parse()
                    .map_err(|_| format!("--time takes a number of seconds, not `{s}`"))?;
            }
            t if TARGETS.contains(&t) => targets.push(t.to_string()),
            other => {
                return Err(format!(
                    "unknown fuzz target `{other}`; the targets are {}",
                    TARGETS.join(", ")
                ))
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| t.to_string()).collect();
    }
    run(root, &targets, seconds).map(|failures| failures.code())
}

/// The smoke step `cargo xtask test` runs before the workspace tests: every target for
/// [`SMOKE_SECONDS`] (or `SEMFUZZ_FUZZ_SECONDS`).
pub fn smoke(root: &Path) -> Result<Failures> {
    let seconds = match std::env::var("SEMFUZZ_FUZZ_SECONDS") {
        Ok(s) => s
            .parse()
            .map_err(|_| format!("SEMFUZZ_FUZZ_SECONDS must be a number of seconds, not `{s}`"))?,
        Err(_) => SMOKE_SECONDS,
    };
    if seconds == 0 {
        step("fuzz smoke step skipped (SEMFUZZ_FUZZ_SECONDS=0)");
        return Ok(Failures(Vec::new()));
    }
    let targets: Vec<String> = TARGETS.iter().map(|t| t.to_string()).collect();
    run(root, &targets, seconds)
}

/// What a fuzz run printed about each target that failed: the log's tail and the crash
/// input, so that the caller can repeat it where it will be read (CI keeps only the end of
/// the output, and its clone, with `artifacts/`, is gone afterwards).
pub struct Failures(pub Vec<String>);

impl Failures {
    /// The exit code: 0 when every target ran clean.
    pub fn code(&self) -> i32 {
        i32::from(!self.0.is_empty())
    }
}

fn run(root: &Path, targets: &[String], seconds: u64) -> Result<Failures> {
    install_cargo_fuzz()?;
    let started = Instant::now();
    step(&format!(
        "cargo fuzz build --fuzz-dir {FUZZ_DIR} --sanitizer none"
    ));
    run_checked(cargo().current_dir(root).args([
        "fuzz",
        "build",
        "--fuzz-dir",
        FUZZ_DIR,
        "--sanitizer",
        "none",
    ]))?;
    step(&format!(
        "fuzz targets built in {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    let mut failed = Vec::new();
    let mut reports = Vec::new();
    // Two at a time: the machines this runs on (CI included) have two cores.
    for pair in targets.chunks(2) {
        let running = pair
            .iter()
            .map(|t| start_target(root, t, seconds).map(|child| (t, child)))
            .collect::<Result<Vec<_>>>()?;
        for (t, child) in running {
            if let Some(report) = finish_target(root, t, seconds, child)? {
                println!("{report}");
                failed.push(t.as_str());
                reports.push(report);
            }
        }
    }
    // The plain closing line CI reads, as cargo test's `test result:` lines are read.
    println!(
        "fuzz: {} passed, {} failed",
        targets.len() - failed.len(),
        failed.len()
    );
    step(&format!(
        "fuzz step took {:.0} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(Failures(reports))
}

fn log_path(root: &Path, target: &str) -> PathBuf {
    root.join(FUZZ_DIR)
        .join("artifacts")
        .join(format!("{target}.log"))
}

/// Starts one target for `seconds`, its libFuzzer log in `artifacts/TARGET.log`, crashes in
/// `artifacts/TARGET/`.
fn start_target(root: &Path, target: &str, seconds: u64) -> Result<Child> {
    let dir = root.join(FUZZ_DIR);
    let corpus = dir.join("corpus").join(target);
    let artifacts = dir.join("artifacts").join(target);
    for d in [&corpus, &artifacts] {
        fs::create_dir_all(d).map_err(|e| format!("creating {}: {e}", d.display()))?;
    }
    let log_path = log_path(root, target);
    let log =
        fs::File::create(&log_path).map_err(|e| format!("creating {}: {e}", log_path.display()))?;
    let mut cmd = cargo();
    cmd.current_dir(root)
        .args([
            "fuzz",
            "run",
            "--fuzz-dir",
            FUZZ_DIR,
            "--sanitizer",
            "none",
            target,
        ])
        .arg(&corpus)
        .arg(dir.join("seeds").join(target))
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_S}"))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg("-print_final_stats=1");
    // The targets whose input is text have a dictionary of its tokens.
    let dict = dir.join("dicts").join(format!("{target}.dict"));
    if dict.exists() {
        cmd.arg(format!("-dict={}", dict.display()));
    }
    // A group of its own, so that a hung run is killed with the fuzz binary cargo-fuzz started.
    cmd.process_group(0)
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("could not run `{}`: {e}", describe(&cmd)))
}

/// Waits for a target; prints one summary line when it ran clean, or returns the report of
/// its failure: the log's tail and the crash input.
fn finish_target(
    root: &Path,
    target: &str,
    seconds: u64,
    mut child: Child,
) -> Result<Option<String>> {
    // libFuzzer's own timeout handler can deadlock (it allocates inside a signal handler that
    // may interrupt malloc), so a run gets a deadline of its own.
    let deadline = Instant::now() + Duration::from_secs(seconds + HANG_GRACE_S);
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| format!("fuzz {target}: {e}"))?
        {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = Command::new("kill")
                .args(["-KILL", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let log_path = log_path(root, target);
    let text = fs::read_to_string(&log_path).unwrap_or_default();
    let corpus = root.join(FUZZ_DIR).join("corpus").join(target);
    let corpus_files = fs::read_dir(&corpus).map_or(0, |d| d.count());
    if status.is_some_and(|s| s.success()) {
        step(&format!(
            "fuzz {target}: {seconds} s, {}, corpus {corpus_files} files: ok",
            last_status(&text)
        ));
        return Ok(None);
    }
    let artifacts = root.join(FUZZ_DIR).join("artifacts").join(target);
    let mut report = String::new();
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    for line in tail.iter().rev() {
        report += &format!("  {line}\n");
    }
    for input in crash_inputs(&artifacts) {
        report += &format!("{input}\n");
    }
    report += &format!(
        "xtask: fuzz {target}: FAILED ({}); the input is in {}/, the log in {}",
        status.map_or(
            format!("hung past {seconds} + {HANG_GRACE_S} s, killed"),
            |s| s.to_string()
        ),
        artifacts.display(),
        log_path.display()
    );
    Ok(Some(report))
}

/// Each file libFuzzer left in `artifacts` (crash-, timeout-, oom-, slow-unit-), as
/// `  NAME (N bytes): HEX`, the first [`SHOWN_INPUT_BYTES`] bytes, so that an input found
/// where its file does not survive (CI) can still be replayed.
fn crash_inputs(artifacts: &Path) -> Vec<String> {
    let Ok(dir) = fs::read_dir(artifacts) else {
        return Vec::new();
    };
    let mut shown: Vec<String> = dir
        .flatten()
        .filter_map(|e| {
            let bytes = fs::read(e.path()).ok()?;
            let hex: String = bytes
                .iter()
                .take(SHOWN_INPUT_BYTES)
                .map(|b| format!("{b:02x}"))
                .collect();
            let cut = if bytes.len() > SHOWN_INPUT_BYTES {
                "..."
            } else {
                ""
            };
            Some(format!(
                "  {} ({} bytes): {hex}{cut}",
                e.file_name().to_string_lossy(),
                bytes.len()
            ))
        })
        .collect();
    shown.sort();
    shown
}

/// libFuzzer's last status line's counts: `#1234 ... cov: 567 ft: 890 corp: 12/345b ...
/// exec/s: 67` → `1234 runs, cov: 567 ft: 890, 67 exec/s`.
fn last_status(log: &str) -> String {
    let Some(line) = log
        .lines()
        .rev()
        .find(|l| l.starts_with('#') && l.contains("cov: "))
    else {
        return "no status line".to_string();
    };
    let word_after = |key: &str| {
        line.split_whitespace()
            .skip_while(|w| *w != key)
            .nth(1)
            .unwrap_or("?")
            .to_string()
    };
    let runs = line
        .split_whitespace()
        .next()
        .unwrap_or("#?")
        .trim_start_matches('#');
    format!(
        "{runs} runs, cov: {} ft: {}, {} exec/s",
        word_after("cov:"),
        word_after("ft:"),
        word_after("exec/s:")
    )
}

/// Installs the pinned cargo-fuzz unless `cargo fuzz --version` already reports it.
fn install_cargo_fuzz() -> Result<()> {
    let wanted = format!("cargo-fuzz {CARGO_FUZZ_VERSION}");
    let found = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if found.as_deref() == Some(wanted.as_str()) {
        return Ok(());
    }
    step(&format!(
        "installing {wanted} (found: {})",
        found.as_deref().filter(|f| !f.is_empty()).unwrap_or("none")
    ));
    run_checked(Command::new("cargo").args([
        "install",
        "cargo-fuzz",
        "--version",
        CARGO_FUZZ_VERSION,
        "--locked",
    ]))
}

#[cfg(test)]
mod tests {
    use super::{crash_inputs, last_status, SHOWN_INPUT_BYTES};
    use std::fs;

    #[test]
    fn a_failure_report_shows_each_crash_input_as_hex() {
        let dir = std::env::temp_dir().join(format!("xtask-crash-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("crash-b"), [0x00, 0xff, 0x2e]).unwrap();
        fs::write(dir.join("crash-a"), vec![0xab; SHOWN_INPUT_BYTES + 1]).unwrap();
        let shown = crash_inputs(&dir);
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(shown.len(), 2);
        let long = format!("{}...", "ab".repeat(SHOWN_INPUT_BYTES));
        assert_eq!(
            shown[0],
            format!("  crash-a ({} bytes): {long}", SHOWN_INPUT_BYTES + 1)
        );
        assert_eq!(shown[1], "  crash-b (3 bytes): 00ff2e");
        assert!(
            crash_inputs(&dir).is_empty(),
            "a missing folder shows nothing"
        );
    }

    #[test]
    fn the_summary_reads_libfuzzers_last_status_line() {
        let log = "INFO: Seed: 1\n\
                   #2\tINITED cov: 10 ft: 11 corp: 1/1b exec/s: 0 rss: 30Mb\n\
                   #45766\tDONE   cov: 1217 ft: 3276 corp: 349/8621b lim: 79 exec/s: 2179 rss: 74Mb\n\
                   Done 45766 runs in 21 second(s)\n";
        assert_eq!(
            last_status(log),
            "45766 runs, cov: 1217 ft: 3276, 2179 exec/s"
        );
        assert_eq!(last_status("error: no such target\n"), "no status line");
    }
}
