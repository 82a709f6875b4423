//! `semfuzz`: the command line. See DESIGN.md "Command-line contract".

/// `println!` through [`emit`]: a closed pipe (`semfuzz eval ... | head -1`) ends the program
/// quietly instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::emit(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod check;
mod eval;
mod list;
mod selfcheck;
mod serve;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use semfuzz_spec::Spec;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "semfuzz",
    version,
    about = "Formal specs and differential checks for NVIDIA PTX floating-point instructions"
)]
struct Cli {
    /// Load the `*.sem` specs from this directory instead of the ones built in.
    #[arg(long, global = true, value_name = "DIR")]
    spec_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every variant, its operand signature and its PTX ISA / target requirements.
    List {
        /// Only variants whose text contains this.
        pattern: Option<String>,
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// Map every syntax line of the ISA excerpt to the variants it expands to.
        #[arg(long)]
        coverage: bool,
        /// Read the ISA excerpt's `*.md` files from DIR for --coverage (default: the excerpt
        /// built into semfuzz, a copy of `../shared/isa-docs`).
        #[arg(long, value_name = "DIR")]
        isa_docs: Option<PathBuf>,
    },
    /// Evaluate one instruction on operands given as hex bit patterns.
    Eval {
        /// The instruction, e.g. `fma.rn.ftz.f32`.
        instr: String,
        /// Source operands as hex bit patterns, e.g. 0x3f800000.
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
    },
    /// Check lines `INSTR OPERAND... RESULT` (hex) against the spec; exits 1 on any mismatch.
    Check {
        /// The file to read; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Check that the evaluator and the Z3 encoding agree, on boundary and random inputs.
    Selfcheck {
        /// Only variants whose text contains this.
        pattern: Option<String>,
        /// Inputs per variant.
        #[arg(long, default_value_t = 64)]
        cases: usize,
        /// Seed of the random part of the inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run the service: findings store, work-unit queue, JSON API and dashboard.
    Serve(serve::ServeArgs),
    /// Manage the service's API tokens.
    #[command(subcommand)]
    Token(serve::TokenCommand),
}

fn load(dir: &Option<PathBuf>) -> Result<Spec> {
    match dir {
        Some(d) => Spec::load_dir(d)
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("loading specs from {}", d.display())),
        None => Spec::embedded()
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("loading the built-in specs"),
    }
}

fn run(cli: Cli) -> Result<bool> {
    let spec = load(&cli.spec_dir)?;
    match cli.command {
        Command::List {
            coverage: true,
            isa_docs,
            json,
            ..
        } => list::coverage(&spec, isa_docs.as_deref(), json),
        Command::List { pattern, json, .. } => {
            list::run(&spec, pattern.as_deref(), json).map(|()| true)
        }
        Command::Eval { instr, operands } => eval::run(&spec, &instr, &operands).map(|()| true),
        Command::Check { file } => check::run(&spec, file.as_deref()),
        Command::Selfcheck {
            pattern,
            cases,
            seed,
        } => selfcheck::run(&spec, pattern.as_deref(), cases, seed),
        Command::Serve(args) => serve::serve(spec, args).map(|()| true),
        Command::Token(cmd) => serve::token(cmd).map(|()| true),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e:#}");
            ExitCode::from(2)
        }
    }
}

/// Writes to standard output; a closed pipe (`semfuzz list | head`) ends the program quietly.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// Parses a hex bit pattern operand that must fit in `width` bits.
/// A source operand as written in `eval`/`check`: a hex bit pattern, or `!0x1` for an operand
/// the form writes `{!}c` (9.7.7.1 `set`), which `sem` then reads negated.
pub fn parse_operand(
    src: &semfuzz_spec::catalog::OperandSig,
    text: &str,
    what: &str,
) -> Result<u64, String> {
    let (negated, hex) = match text.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let bits = parse_hex(hex, src.width, what)?;
    src.read(negated, bits).map_err(|e| format!("{what}: {e}"))
}

/// The hex values of what a SASS instruction reads (in order of first appearance; errors
/// name the register or constant a value is for), and its variant's inputs made from them.
pub fn sass_inputs<S: AsRef<str>>(
    sass: &semfuzz_spec::sass::SassInstr,
    texts: &[S],
) -> Result<(Vec<u64>, Vec<u64>), String> {
    let mut values = Vec::new();
    for (k, text) in texts.iter().enumerate() {
        let what = sass
            .values
            .get(k)
            .map_or_else(|| format!("value {}", k + 1), |n| n.clone());
        values.push(parse_hex(text.as_ref(), 64, &what)?);
    }
    let inputs = sass.inputs(&values)?;
    Ok((values, inputs))
}

pub fn parse_hex(text: &str, width: u32, what: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .ok_or_else(|| {
            format!("{what}: `{text}` is not a hex bit pattern (write it like 0x3f800000)")
        })?;
    let v = u64::from_str_radix(&digits.replace('_', ""), 16).map_err(|_| {
        format!("{what}: `{text}` is not a hex bit pattern (write it like 0x3f800000)")
    })?;
    if width < 64 && v >> width != 0 {
        return Err(format!("{what}: `{text}` does not fit in {width} bits"));
    }
    Ok(v)
}
