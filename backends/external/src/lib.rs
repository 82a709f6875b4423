//! Any emulator as a semfuzz backend: a process that speaks the external-backend protocol
//! (`docs/external-backend.md`) on its stdin and stdout, so GPGPU-Sim, gpuocelot, a Python
//! simulator or an in-house emulator plugs in without linking.
//!
//! The protocol, version [`PROTOCOL_VERSION`], is line-based text. semfuzz starts the process
//! once per backend instance and greets it; the process answers with its name, version,
//! device and the variants it supports (exact text or globs). Then, per batch, semfuzz writes
//! `batch VARIANT N` and N rows of hex inputs in the variant's operand order, and the process
//! answers N results (hex bits of the first destination register, `unsupported` or
//! `noverdict`) and `done`.
//!
//! A process that dies, hangs past the timeout (it is killed), writes garbage or reports an
//! `error` ends that batch with a [`BackendError`] that names the problem and what the process
//! wrote last; the process is stopped and the next batch starts a fresh one.

#![warn(missing_docs)]

mod process;

use globset::{GlobBuilder, GlobMatcher};
use process::{Process, ReadError};
use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_spec::Variant;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The protocol version this crate speaks; the first word of the greeting in both directions.
pub const PROTOCOL_VERSION: u32 = 1;

/// The first word of the greeting lines.
const GREETING: &str = "semfuzz-external";

/// The environment variable that sets the batch timeout, in seconds.
pub const TIMEOUT_ENV: &str = "SEMFUZZ_EXTERNAL_TIMEOUT";

/// How an adapter process is started and how long it may take.
#[derive(Clone, Debug)]
pub struct Config {
    /// How error messages name the backend (`external:./sim`, `numba-sim`).
    pub name: String,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Variables added to the process's environment.
    pub env: Vec<(String, String)>,
    /// How long the process may take to start and answer the greeting.
    pub handshake_timeout: Duration,
    /// How long the process may take to answer one batch (from the moment it is sent).
    pub batch_timeout: Duration,
}

impl Config {
    /// The configuration for `external:COMMAND`: `command_line` split as a shell would
    /// (quotes, backslashes; no variables or globbing). The batch timeout is 60 s, or
    /// [`TIMEOUT_ENV`] seconds when that is set; the handshake may take twice as long.
    pub fn parse(command_line: &str) -> Result<Config, String> {
        let command = shlex::split(command_line).ok_or_else(|| {
            format!("cannot split `{command_line}` into words: close its quotes or escape them")
        })?;
        if command.is_empty() {
            return Err(
                "external needs a command: `external:CMD`, e.g. `external:python3 my_adapter.py`"
                    .to_string(),
            );
        }
        let batch_timeout = batch_timeout_from_env()?;
        Ok(Config {
            name: format!("external:{command_line}"),
            command,
            env: Vec::new(),
            handshake_timeout: batch_timeout * 2,
            batch_timeout,
        })
    }
}

/// The batch timeout [`TIMEOUT_ENV`] asks for, 60 s when unset.
pub fn batch_timeout_from_env() -> Result<Duration, String> {
    match std::env::var(TIMEOUT_ENV) {
        Err(_) => Ok(Duration::from_secs(60)),
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(Duration::from_secs_f64)
            .ok_or_else(|| format!("{TIMEOUT_ENV}={text} is not a positive number of seconds")),
    }
}

/// What the process said in the handshake.
#[derive(Clone, Debug)]
struct Hello {
    identity: Identity,
    /// The `supports` lines as written, each with its matcher.
    supports: Vec<(String, GlobMatcher)>,
    batch_size: Option<usize>,
}

/// A backend served by an adapter process.
pub struct External {
    config: Config,
    hello: Hello,
    /// The running process; `None` after a failed batch, until the next batch restarts it.
    process: Option<Process>,
}

impl External {
    /// Starts the process and runs the handshake.
    pub fn start(config: Config) -> Result<External, BackendError> {
        let (process, hello) = handshake(&config).map_err(|reason| BackendError::Unavailable {
            backend: config.name.clone(),
            reason,
        })?;
        Ok(External {
            config,
            hello,
            process: Some(process),
        })
    }

    /// The patterns the process listed in `supports` lines, as written.
    pub fn supported_patterns(&self) -> impl Iterator<Item = &str> {
        self.hello.supports.iter().map(|(text, _)| text.as_str())
    }

    /// The running process, restarted (with a fresh handshake) after a failed batch.
    fn process(&mut self) -> Result<&mut Process, String> {
        if self.process.is_none() {
            let (process, hello) =
                handshake(&self.config).map_err(|e| format!("restarting the process: {e}"))?;
            if hello.identity != self.hello.identity {
                return Err(format!(
                    "the restarted process says it is {}, not {} as before",
                    hello.identity, self.hello.identity
                ));
            }
            self.process = Some(process);
        }
        Ok(self.process.as_mut().expect("started above"))
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if let Some(p) = &mut self.process {
            p.finish("quit\n");
        }
    }
}

impl Backend for External {
    fn identity(&self) -> &Identity {
        &self.hello.identity
    }

    fn supports(&self, variant: &Variant) -> Support {
        if self
            .hello
            .supports
            .iter()
            .any(|(_, m)| m.is_match(&variant.text))
        {
            Support::Yes
        } else {
            Support::No(format!(
                "{} does not list {} among its variants",
                self.hello.identity.name, variant.text
            ))
        }
    }

    fn batch_size(&self) -> usize {
        self.hello.batch_size.unwrap_or(4096)
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        if let Support::No(_) = self.supports(variant) {
            out.fill(Verdict::Unsupported);
            return Ok(());
        }
        let (name, rows) = (self.config.name.clone(), out.len());
        let fail = |message: String| {
            BackendError::failed(
                &name,
                format!("batch of {rows} `{}` cases: {message}", variant.text),
            )
        };
        let width = variant
            .program
            .dests
            .first()
            .map(|d| d.width)
            .ok_or_else(|| fail("the variant has no destination to compare".to_string()))?;
        let request = batch_text(variant, inputs, rows).map_err(fail)?;
        let timeout = self.config.batch_timeout;
        let result = self.process().and_then(|p| {
            p.send(request);
            let result = read_results(p, Instant::now() + timeout, width, out);
            result.map_err(|problem| {
                let ending = match problem {
                    Problem::Died => format!("the process died: it {}", p.ending()),
                    Problem::Timeout => {
                        p.kill();
                        format!("no answer within {timeout:?} (the process was killed)")
                    }
                    Problem::Said(message) => message,
                };
                format!("{ending}; {}", p.last_words())
            })
        });
        result.map_err(|message| {
            // Whatever state the process is in, the next batch starts a fresh one.
            self.process = None;
            fail(format!("{message}; the next batch restarts the process"))
        })
    }
}

/// `batch VARIANT N` and the rows, as the protocol writes them.
fn batch_text(variant: &Variant, inputs: &[u64], rows: usize) -> Result<String, String> {
    let widths: Vec<u32> = variant.sources.iter().map(|s| s.width).collect();
    if inputs.len() != rows * widths.len() {
        return Err(format!(
            "{} input values for {rows} rows of {} operands",
            inputs.len(),
            widths.len()
        ));
    }
    let mut text = format!("batch {} {rows}\n", variant.text);
    let k = widths.len();
    for r in 0..rows {
        for (i, (v, w)) in inputs[r * k..(r + 1) * k].iter().zip(&widths).enumerate() {
            let sep = if i == 0 { "" } else { " " };
            let digits = (*w as usize).div_ceil(4);
            let _ = write!(text, "{sep}0x{:0digits$x}", v & mask(*w));
        }
        text.push('\n');
    }
    Ok(text)
}

/// The values of a `width`-bit register.
fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

/// Why a batch's answer could not be read.
enum Problem {
    Died,
    Timeout,
    /// A protocol violation or an `error` line, in words.
    Said(String),
}

/// Reads `out.len()` results and `done`.
fn read_results(
    p: &mut Process,
    deadline: Instant,
    width: u32,
    out: &mut [Verdict],
) -> Result<(), Problem> {
    let n = out.len();
    let mut count = 0;
    loop {
        let line = p.read_line(deadline).map_err(|e| match e {
            ReadError::Timeout => Problem::Timeout,
            ReadError::Closed => Problem::Died,
            ReadError::Garbage(g) => Problem::Said(format!("it wrote garbage: `{g}`")),
        })?;
        let line = line.trim();
        if line == "done" {
            return if count == n {
                Ok(())
            } else {
                Err(Problem::Said(format!(
                    "it wrote `done` after {count} results for {n} rows"
                )))
            };
        }
        if let Some(message) = line.strip_prefix("error") {
            return Err(Problem::Said(format!(
                "it reported an error after {count} results: {}",
                message.trim()
            )));
        }
        if count == n {
            return Err(Problem::Said(format!(
                "it wrote a result `{line}` beyond the {n} rows instead of `done`"
            )));
        }
        out[count] = parse_result(line, width)
            .map_err(|e| Problem::Said(format!("result {} (row {count}) {e}", count + 1)))?;
        count += 1;
    }
}

/// One result line: hex bits (with or without `0x`), `unsupported` or `noverdict`.
fn parse_result(line: &str, width: u32) -> Result<Verdict, String> {
    match line {
        "unsupported" => return Ok(Verdict::Unsupported),
        "noverdict" => return Ok(Verdict::NoVerdict),
        _ => {}
    }
    let digits = line
        .strip_prefix("0x")
        .or_else(|| line.strip_prefix("0X"))
        .unwrap_or(line);
    let bits = if digits.is_empty() || digits.len() > 16 {
        None
    } else {
        u64::from_str_radix(digits, 16).ok()
    }
    .ok_or_else(|| {
        format!("`{line}` is not hex bits, `unsupported`, `noverdict`, `error …` or `done`")
    })?;
    if bits & !mask(width) != 0 {
        return Err(format!(
            "`{line}` does not fit the {width}-bit destination register"
        ));
    }
    Ok(Verdict::Bits(bits))
}

/// Starts the process and reads its greeting.
fn handshake(config: &Config) -> Result<(Process, Hello), String> {
    let mut p = Process::spawn(&config.command, &config.env)?;
    p.send(format!("{GREETING} {PROTOCOL_VERSION}\n"));
    let deadline = Instant::now() + config.handshake_timeout;
    match read_hello(&mut p, deadline) {
        Ok(hello) => Ok((p, hello)),
        Err(problem) => {
            let said = match problem {
                Problem::Died => format!("the process {} during the handshake", p.ending()),
                Problem::Timeout => {
                    p.kill();
                    format!(
                        "no handshake within {:?} (the process was killed)",
                        config.handshake_timeout
                    )
                }
                Problem::Said(message) => {
                    p.kill();
                    format!("handshake: {message}")
                }
            };
            Err(format!("{said}; {}", p.last_words()))
        }
    }
}

/// The greeting: `semfuzz-external 1`, then `name`, `version`, `device`, `supports` (one or
/// more), optionally `batch-size`, then `ready`.
fn read_hello(p: &mut Process, deadline: Instant) -> Result<Hello, Problem> {
    let next = |p: &mut Process| {
        p.read_line(deadline).map_err(|e| match e {
            ReadError::Timeout => Problem::Timeout,
            ReadError::Closed => Problem::Died,
            ReadError::Garbage(g) => Problem::Said(format!("garbage `{g}`")),
        })
    };
    let first = next(p)?;
    match first.split_whitespace().collect::<Vec<_>>()[..] {
        [GREETING, v] if v == PROTOCOL_VERSION.to_string() => {}
        [GREETING, v] => {
            return Err(Problem::Said(format!(
                "the process speaks protocol version {v}; semfuzz speaks {PROTOCOL_VERSION}"
            )))
        }
        _ => {
            return Err(Problem::Said(format!(
                "expected `{GREETING} {PROTOCOL_VERSION}` first, got `{first}`"
            )))
        }
    }
    let (mut name, mut version, mut device) = (None, None, None);
    let mut supports = Vec::new();
    let mut batch_size = None;
    loop {
        let line = next(p)?;
        let (key, value) = line
            .trim()
            .split_once(' ')
            .map_or((line.trim(), ""), |(k, v)| (k, v.trim()));
        if value.is_empty()
            && matches!(
                key,
                "name" | "version" | "device" | "supports" | "batch-size"
            )
        {
            return Err(Problem::Said(format!("`{key}` needs a value")));
        }
        let field = match key {
            "ready" => break,
            "error" => return Err(Problem::Said(format!("the process cannot serve: {value}"))),
            "name" => &mut name,
            "version" => &mut version,
            "device" => &mut device,
            "supports" => {
                let matcher = GlobBuilder::new(value)
                    .literal_separator(false)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| {
                        Problem::Said(format!("`supports {value}`: not a glob ({})", e.kind()))
                    })?
                    .compile_matcher();
                supports.push((value.to_string(), matcher));
                continue;
            }
            "batch-size" => {
                batch_size = Some(value.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(
                    || Problem::Said(format!("`batch-size {value}` is not a positive count")),
                )?);
                continue;
            }
            _ => {
                return Err(Problem::Said(format!(
                    "unknown line `{line}` (expected name, version, device, supports, \
                     batch-size, error or ready)"
                )))
            }
        };
        *field = Some(value.to_string());
    }
    let missing = |what: &str| Problem::Said(format!("no `{what}` line before `ready`"));
    if supports.is_empty() {
        return Err(missing("supports"));
    }
    Ok(Hello {
        identity: Identity {
            name: name.ok_or_else(|| missing("name"))?,
            version: version.ok_or_else(|| missing("version"))?,
            device: device.ok_or_else(|| missing("device"))?,
        },
        supports,
        batch_size,
    })
}

/// Whether `external:ARG` is available: starts the process, runs the handshake and stops it.
pub fn probe(arg: Option<&str>) -> Result<Identity, String> {
    let config = Config::parse(arg.unwrap_or(""))?;
    External::start(config)
        .map(|e| e.identity().clone())
        .map_err(|e| match e {
            BackendError::Unavailable { reason, .. } => reason,
            other => other.to_string(),
        })
}

/// The backend for `external:ARG`, its process started and greeted.
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    let arg = arg.unwrap_or("");
    let config = Config::parse(arg).map_err(|reason| BackendError::Unavailable {
        backend: format!("external:{arg}"),
        reason,
    })?;
    Ok(Box::new(External::start(config)?))
}
