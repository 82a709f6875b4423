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
mod fuzz;
mod lemmas;
mod list;
mod llc;
mod nvcc;
mod operand;
mod prove;
mod ptx;
mod repro;
mod selfcheck;
mod serve;
mod validate;
mod witnesses;

use anyhow::Result;
use clap::{Parser, Subcommand};
use semfuzz_spec::pattern::{Pattern, PatternError, RULE};
use semfuzz_spec::{Diagnostic, Diagnostics, Spec, Variant};
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
        /// Only the variants these select (all when none is given).
        #[arg(value_name = "PATTERN", long_help = RULE)]
        patterns: Vec<String>,
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
    /// Evaluate one instruction on operands given as hex bit patterns (or exact decimals).
    Eval {
        /// The instruction, e.g. `fma.rn.ftz.f32`.
        instr: String,
        /// Source operands as hex bit patterns, e.g. 0x3f800000; an operand of a scalar float
        /// type may be a decimal exact in its format (1.5, -0, inf, -inf, nan).
        #[arg(allow_hyphen_values = true)]
        operands: Vec<String>,
    },
    /// Check lines `INSTR OPERAND... RESULT` (hex) against the spec; exits 1 on any mismatch.
    /// With `--backend`, lines are `INSTR OPERAND...` and the backend computes each result.
    Check {
        /// The file to read; `-` or nothing reads standard input.
        file: Option<PathBuf>,
        /// Print only mismatches, errors and the closing line.
        #[arg(long, short)]
        quiet: bool,
        /// Run each line's case on this backend (`cuda`, `host`, `llvm`, ...: `semfuzz
        /// backends` lists them) and check what it computes; each line is printed back with
        /// the backend's result, a line `semfuzz check` reads.
        #[arg(long)]
        backend: Option<String>,
    },
    /// Evaluate a whole PTX function (as llc, nvcc or numba-cuda wrote it) on arguments given
    /// as hex bit patterns: prints what the ISA allows for each result.
    EvalPtx {
        /// The `.ptx` file.
        file: PathBuf,
        /// The function to read (needed when the module defines several).
        #[arg(long)]
        func: Option<String>,
        /// What computes the accept sets: jit (native code, where it supports the function;
        /// the default for one thread) or interp (the IR interpreter, the reference; the
        /// default for a CTA, whose compilation takes seconds).
        #[arg(long, value_parser = fuzz::parse_evaluator)]
        evaluator: Option<semfuzz_jit::EvaluatorKind>,
        #[command(flatten)]
        shape: ptx::Shape,
        /// The function's inputs in order: its parameters, then memory its pointer parameters
        /// point to, as first read (hex; a floating-point parameter may be an exact decimal).
        #[arg(allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Check lines `ARG... RESULT...` (hex) of a whole PTX function against the spec: a GPU
    /// run's or an emulator's log of a kernel; exits 1 on any mismatch.
    CheckPtx {
        /// The `.ptx` file.
        file: PathBuf,
        /// The function to read (needed when the module defines several).
        #[arg(long)]
        func: Option<String>,
        /// The lines to check; `-` or nothing reads standard input.
        lines: Option<PathBuf>,
        /// Print only mismatches, errors and the closing line.
        #[arg(long)]
        quiet: bool,
        /// What computes the accept sets: jit (native code, where it supports the function;
        /// the default for one thread) or interp (the IR interpreter, the reference; the
        /// default for a CTA, whose compilation costs as much as some 30,000 interpreted
        /// rows); Z3 decides results reached through other choices either way.
        #[arg(long, value_parser = fuzz::parse_evaluator)]
        evaluator: Option<semfuzz_jit::EvaluatorKind>,
        /// Run the function on a GPU (`cuda` or `cuda:N`): lines hold the arguments only, each
        /// is printed back with the GPU's results and the verdict, a line check-ptx reads.
        #[arg(long)]
        backend: Option<String>,
        #[command(flatten)]
        shape: ptx::Shape,
    },
    /// Run a campaign: generated inputs through a backend, every result compared with the
    /// spec; prints a table of findings (variant, class, count, example) and the totals.
    Fuzz {
        /// The backend (`semfuzz backends` lists them): host, llvm, llvm:opt-16,
        /// numba-sim, external:CMD, cuda, cuda:N, z3, spec.
        #[arg(long)]
        backend: String,
        /// Variants to run: a shell glob over variant names (`'min.*f32'`, `'*.bf16x2'`,
        /// `{add,sub}.rn.f32`), or a plain substring; repeatable.
        #[arg(long, required = true)]
        instr: Vec<String>,
        /// Where inputs come from: boundary, uniform, exhaustive (≤ 32 input bits), witness.
        #[arg(long, default_value = "boundary")]
        generator: semfuzz_fuzz::GeneratorKind,
        /// Cases per variant (default 100000; exhaustive: every tuple).
        #[arg(long, conflicts_with = "time")]
        cases: Option<u64>,
        /// Run for this long in all (`30s`, `10m`, `2h`).
        #[arg(long, value_parser = fuzz::parse_duration)]
        time: Option<std::time::Duration>,
        /// Seed of every generator: the same seed gives the same inputs and findings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads, each with its own backend instance.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Write the findings as JSON lines to FILE.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// exhaustive: start at this case index (what an interrupted run reached).
        #[arg(long, value_name = "FROM", default_value_t = 0)]
        resume: u64,
        /// What computes the accept sets: jit (native code, where it supports a variant) or
        /// interp (the IR interpreter, the reference).
        #[arg(long, default_value = "jit", value_parser = fuzz::parse_evaluator)]
        evaluator: semfuzz_jit::EvaluatorKind,
        #[command(flatten)]
        report: serve::ReportArgs,
    },
    /// One line per backend: name, version, and `available` or why not.
    Backends {
        /// Per backend here, how many of the selected variants it runs and, for the rest,
        /// why not (the reasons counted, one example each).
        #[arg(long)]
        coverage: bool,
        /// With --coverage: every selected variant on its own line for these backends
        /// (`llvm`, `llvm+ir:opt-16`, `numba-sim`), `runs` or why not.
        #[arg(long = "backend", value_name = "BACKEND", requires = "coverage")]
        backends: Vec<String>,
        /// With --coverage: only the variants these select (all when none is given).
        #[arg(value_name = "PATTERN", long_help = RULE, requires = "coverage")]
        patterns: Vec<String>,
    },
    /// Write a finding as a standalone CUDA repro: its PTX kernel and a driver-API host
    /// program that reruns that one case on GPU 0, and the `semfuzz eval` line.
    Repro {
        /// A findings file (`semfuzz fuzz --json`); `-` or nothing reads one from standard
        /// input.
        findings: Option<PathBuf>,
        /// Which finding of the file, counted from 1 (needed when it holds several).
        n: Option<usize>,
        /// The directory to write into (default `repro-SIGNATURE`).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Check that the evaluator and the Z3 encoding agree, on boundary and random inputs.
    Selfcheck {
        /// Only the variants these select (all when none is given).
        #[arg(value_name = "PATTERN", long_help = RULE)]
        patterns: Vec<String>,
        /// Inputs per variant.
        #[arg(long, default_value_t = 64)]
        cases: usize,
        /// Seed of the random part of the inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// What computes the accept sets Z3 is checked against: jit (native code, where it
        /// supports a variant) or interp (the IR interpreter).
        #[arg(long, default_value = "jit", value_parser = fuzz::parse_evaluator)]
        evaluator: semfuzz_jit::EvaluatorKind,
    },
    /// Inputs Z3 finds for each branch and rounding boundary (tie, overflow, subnormal
    /// threshold) of the selected variants, with the spec's outcome for each.
    Witnesses {
        /// The variants these select (at least one pattern: Z3 takes seconds per variant).
        #[arg(value_name = "PATTERN", required = true, long_help = RULE)]
        patterns: Vec<String>,
        /// Z3's budget per query, in milliseconds: a deterministic resource limit worth about
        /// this much CPU on the development machine (wall clock: at most ten times it).
        #[arg(long, default_value_t = 2000, value_name = "MS")]
        timeout: u32,
    },
    /// The lemma library the prover rewrites with (innocuous double rounding, smt/lemmas.txt):
    /// each lemma with its recorded proof; `--prove` checks every input tuple again and prints
    /// the record (exits 1 on a counterexample).
    Lemmas {
        /// Check every input tuple of each lemma (2^32 for a binary operation) and print the
        /// record to store in smt/lemmas.txt.
        #[arg(long)]
        prove: bool,
        /// Threads for `--prove`.
        #[arg(long, default_value_t = 2, value_name = "N")]
        threads: usize,
        /// Only the lemmas whose name (`div f16 f32`) contains one of these.
        #[arg(value_name = "NAME")]
        only: Vec<String>,
    },
    /// Prove or refute rewrite rules (`rules/*.rules`); exits 1 when a verdict differs from a
    /// rule's `expect:`.
    Prove {
        /// Rule files, or directories of `*.rules` files.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Per-query solver timeout: 5s, 500ms, 1m.
        #[arg(long, default_value = "10s", value_parser = prove::parse_timeout)]
        timeout: u32,
        /// Result cache directory (keyed by a hash of each query's SMT-LIB2 text).
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
        /// Solve everything again, reading and writing no cache.
        #[arg(long, conflicts_with = "cache")]
        no_cache: bool,
        /// Write each query as DIR/NAME.smt2 (standard SMT-LIB2: z3, cvc5 and bitwuzla read it).
        #[arg(long, value_name = "DIR")]
        emit_smt2: Option<PathBuf>,
        /// Solve the exported text with a portfolio of solver processes, e.g.
        /// `z3,cvc5,bitwuzla`: the first definite answer wins (default: Z3 in process, with the
        /// installed ones of bitwuzla and cvc5 racing it after its first half second).
        #[arg(long, value_name = "LIST")]
        solver: Option<String>,
        /// Print each query's size under its rule: terms, FP operations, bit-vector widths
        /// and FP sorts (what makes a query hard).
        #[arg(long)]
        explain: bool,
        /// How many times a function's loop may run per entry into the loop (both sides
        /// unrolled so far; inputs that need more are outside the verdict, which says so).
        #[arg(long, value_name = "N", default_value_t = semfuzz_llir::DEFAULT_UNROLL,
              value_parser = clap::value_parser!(u32).range(1..))]
        unroll: u32,
        /// Let an LLVM IR function's pointer arguments overlap: those not `noalias` point into
        /// one region, each at any byte offset near the others (by default each has a block of
        /// its own). Every verdict states the assumption.
        #[arg(long)]
        may_alias: bool,
        #[command(flatten)]
        report: serve::ReportArgs,
    },
    /// Assemble PTX instructions with ptxas and prove the SASS it emits refines the spec.
    ValidatePtxas {
        /// PTX instructions, e.g. `mul.ftz.f16x2`.
        #[arg(required = true)]
        instrs: Vec<String>,
        /// Targets (repeat for several).
        #[arg(long = "arch", default_value = "sm_86")]
        archs: Vec<String>,
        /// Per-query solver timeout: 5s, 500ms, 1m.
        #[arg(long, default_value = "10s", value_parser = prove::parse_timeout)]
        timeout: u32,
    },
    /// Compile LLVM IR functions to PTX with LLVM's NVPTX back end and prove the PTX refines
    /// the IR at each target (translation validation); exits 1 on a counterexample or unknown.
    ValidateLlc {
        /// `.ll` files; every function in them is validated (none: a built-in catalogue of
        /// operations × types × spellings).
        files: Vec<PathBuf>,
        /// The compiler: llvmlite (its LLVM through the target machine), triton (the LLVM
        /// trunk Triton's wheel bundles), nvvm (NVIDIA's libNVVM from the CUDA wheel, sm_75
        /// and later), an llc on PATH (llc-16), a path, or `all` (every llc-N on this
        /// machine, llvmlite, triton and nvvm, with the range of LLVM versions each
        /// counterexample appears in).
        #[arg(long, default_value = "llvmlite")]
        llc: String,
        /// Targets, comma-separated.
        #[arg(long = "sm", default_value = semfuzz_tv::TARGETS)]
        sms: String,
        /// Per-query solver timeout: 5s, 500ms, 1m.
        #[arg(long, default_value = "10s", value_parser = prove::parse_timeout)]
        timeout: u32,
        /// Also write every verdict to FILE as JSON.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Where the compiled `.ptx` (and the catalogue's `.ll`) files are written.
        #[arg(long, value_name = "DIR", default_value = ".semfuzz-cache/llc")]
        work: PathBuf,
        /// Write a reproducer directory per confirmed counterexample into DIR: the `.ll`, the
        /// llc command, the PTX, the inputs, the expected and produced bits, and a bug report.
        #[arg(long, value_name = "DIR")]
        repro: Option<PathBuf>,
        /// Only the catalogue functions matching these patterns (comma-separated globs:
        /// 'fadd_*,fma_v2f16').
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Also fold each function with the same LLVM's instcombine at N boundary inputs (and
        /// a counterexample's), judging each folded constant against the IR (a folding bug) and
        /// the PTX (a result that changes with the optimisation level).
        #[arg(long, value_name = "N", default_value_t = 0)]
        fold: usize,
        /// Do not validate here: post the catalogue run to the --report service as a campaign,
        /// one work unit per function, target and compiler (--llc all: every one this machine
        /// has), for the `semfuzz worker`s that have the compiler.
        #[arg(long, requires = "report", conflicts_with_all = ["files", "json", "repro", "fold"])]
        campaign: bool,
        /// Solve again the queries whose cached answer is `unknown` (an unknown is otherwise
        /// read back for a --timeout no longer than the one it gave up within).
        #[arg(long)]
        retry_unknown: bool,
        /// Validate each file at the targets and flags of its own `; RUN: llc ...` lines (LLVM's
        /// NVPTX tests: llvm/test/CodeGen/NVPTX/*.ll), then print per-file totals and the
        /// reasons of every `unsupported`; --sm is not used.
        #[arg(long, requires = "files", conflicts_with_all = ["campaign", "only"])]
        run_lines: bool,
        /// How many times a function's loop may run per entry into the loop (both sides
        /// unrolled so far; inputs that need more are outside the verdict, which says so).
        #[arg(long, value_name = "N", default_value_t = semfuzz_llir::DEFAULT_UNROLL,
              value_parser = clap::value_parser!(u32).range(1..))]
        unroll: u32,
        /// Let an LLVM IR function's pointer arguments overlap: those not `noalias` point into
        /// one region, each at any byte offset near the others (by default each has a block of
        /// its own). Every verdict states the assumption.
        #[arg(long, conflicts_with = "campaign")]
        may_alias: bool,
        #[command(flatten)]
        report: serve::ReportArgs,
    },
    /// Compile a catalogue of CUDA C functions (one per CUDA Math API intrinsic) with nvcc
    /// under -ftz, -prec-div and -use_fast_math, and prove each function's PTX refines its
    /// documented semantics (docs/nvcc.md).
    ValidateNvcc {
        /// Targets, comma-separated.
        #[arg(long = "sm", default_value = "sm_75,sm_90", value_delimiter = ',')]
        sms: Vec<String>,
        /// Configurations, comma-separated: default, ftz, prec-div-false, fast-math (all when
        /// none is given).
        #[arg(long = "config", value_delimiter = ',')]
        configs: Vec<String>,
        /// Only these catalogue functions (comma-separated: fadd_rn,fmod_f32).
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Per-query solver timeout: 5s, 500ms, 1m.
        #[arg(long, default_value = "10s", value_parser = prove::parse_timeout)]
        timeout: u32,
        /// Where the catalogue, the reference modules and the PTX are written.
        #[arg(long, value_name = "DIR", default_value = ".semfuzz-cache/nvcc")]
        work: PathBuf,
        /// How many times a function's loop may run per entry into the loop.
        #[arg(long, value_name = "N", default_value_t = semfuzz_llir::DEFAULT_UNROLL,
              value_parser = clap::value_parser!(u32).range(1..))]
        unroll: u32,
    },
    /// Run the service: findings store, work-unit queue, JSON API and dashboard.
    Serve(serve::ServeArgs),
    /// Manage the service's API tokens.
    #[command(subcommand)]
    Token(serve::TokenCommand),
    /// Lease campaign work units from a service, run them, and post the findings.
    Worker(serve::WorkerArgs),
}

fn load(dir: &Option<PathBuf>) -> Result<Spec> {
    Ok(match dir {
        Some(d) => Spec::load_dir(d)?,
        None => Spec::embedded()?,
    })
}

/// The variants a command's patterns select (every one when none is given): the one rule of
/// `semfuzz_spec::pattern`, and its one error when nothing matches.
pub fn select<'s>(spec: &'s Spec, patterns: &[String]) -> Result<Vec<&'s Variant>> {
    let patterns = patterns
        .iter()
        .map(|p| Pattern::parse(p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(semfuzz_spec::pattern::select(spec, &patterns)?)
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
        Command::List { patterns, json, .. } => {
            list::run(&select(&spec, &patterns)?, json).map(|()| true)
        }
        Command::Eval { instr, operands } => eval::run(&spec, &instr, &operands).map(|()| true),
        Command::Check {
            file,
            quiet,
            backend,
        } => {
            let backend = match backend {
                Some(name) => {
                    Some(semfuzz_fuzz::registry::open(&name).map_err(|e| anyhow::anyhow!("{e}"))?)
                }
                None => None,
            };
            check::run(&spec, file.as_deref(), quiet, backend)
        }
        Command::Fuzz {
            backend,
            instr,
            generator,
            cases,
            time,
            seed,
            threads,
            json,
            resume,
            evaluator,
            report,
        } => fuzz::run(
            &spec,
            &select(&spec, &instr)?,
            fuzz::Args {
                backend,
                generator,
                cases,
                time,
                seed,
                threads,
                json,
                resume,
                evaluator,
                report: report.reporter(),
            },
        ),
        Command::Backends {
            coverage: false, ..
        } => fuzz::backends(),
        Command::Backends {
            patterns, backends, ..
        } => fuzz::coverage(&select(&spec, &patterns)?, &backends),
        Command::EvalPtx {
            file,
            func,
            evaluator,
            shape,
            args,
        } => ptx::eval(&spec, &file, func.as_deref(), &args, evaluator, shape).map(|()| true),
        Command::CheckPtx {
            file,
            func,
            lines,
            quiet,
            evaluator,
            backend,
            shape,
        } => ptx::check(
            &spec,
            &file,
            func.as_deref(),
            lines.as_deref(),
            quiet,
            evaluator,
            backend.as_deref(),
            shape,
        ),
        Command::Repro { findings, n, out } => {
            repro::run(&spec, findings.as_deref(), n, out).map(|()| true)
        }
        Command::Selfcheck {
            patterns,
            cases,
            seed,
            evaluator,
        } => selfcheck::run(&spec, &select(&spec, &patterns)?, cases, seed, evaluator),
        Command::Lemmas {
            prove,
            threads,
            only,
        } => lemmas::run(prove, threads, &only),
        Command::Witnesses { patterns, timeout } => {
            witnesses::run(&spec, &select(&spec, &patterns)?, timeout).map(|()| true)
        }
        Command::Prove {
            paths,
            timeout,
            cache,
            no_cache,
            emit_smt2,
            solver,
            explain,
            unroll,
            may_alias,
            report,
        } => {
            let cache = (!no_cache).then(|| cache.unwrap_or_else(|| prove::default_cache().into()));
            let portfolio = match solver {
                Some(list) => semfuzz_smt::portfolio::Solver::parse_list(&list)
                    .map_err(|e| anyhow::anyhow!("--solver: {e}"))?,
                None => Vec::new(),
            };
            semfuzz_smt::portfolio::check_installed(&portfolio).map_err(anyhow::Error::msg)?;
            let fallback = if portfolio.is_empty() {
                semfuzz_smt::solve::Options::default_fallback()
            } else {
                Vec::new()
            };
            let opts = semfuzz_smt::solve::Options {
                timeout_ms: timeout,
                cache,
                emit_smt2,
                portfolio,
                fallback,
                explain,
                unknowns: semfuzz_smt::solve::Unknowns::Ask,
                unroll: Some(unroll),
                licences: Default::default(),
                may_alias,
            };
            prove::run(&spec, &paths, &opts, report.reporter().as_ref())
        }
        Command::ValidatePtxas {
            instrs,
            archs,
            timeout,
        } => {
            let opts = semfuzz_smt::solve::Options {
                timeout_ms: timeout,
                cache: None,
                emit_smt2: None,
                portfolio: Vec::new(),
                fallback: semfuzz_smt::solve::Options::default_fallback(),
                explain: false,
                unknowns: semfuzz_smt::solve::Unknowns::Ask,
                unroll: None,
                licences: Default::default(),
                may_alias: false,
            };
            validate::run(&spec, &instrs, &archs, &opts)
        }
        Command::ValidateLlc {
            files,
            llc,
            sms,
            timeout,
            json,
            work,
            repro,
            only,
            fold,
            campaign,
            retry_unknown,
            run_lines,
            unroll,
            may_alias,
            report,
        } => {
            let mut opts = semfuzz_tv::campaign::options(timeout, crate::prove::default_cache());
            opts.unroll = Some(unroll);
            opts.may_alias = may_alias;
            if retry_unknown {
                opts.unknowns = semfuzz_smt::solve::Unknowns::Retry;
            }
            let args = semfuzz_tv::Args {
                files,
                llc,
                sms,
                json,
                work,
                repro,
                only,
                fold,
                run_lines,
            };
            match report.reporter() {
                Some(service) if campaign => {
                    semfuzz_tv::campaign::create(&args, &service).map(|line| {
                        outln!("{line}");
                        true
                    })
                }
                reporter => llc::run(&spec, &args, &opts, reporter.as_ref()),
            }
        }
        Command::ValidateNvcc {
            sms,
            configs,
            only,
            timeout,
            work,
            unroll,
        } => {
            let mut opts = semfuzz_tv::campaign::options(timeout, crate::prove::default_cache());
            opts.unroll = Some(unroll);
            nvcc::run(&spec, &sms, &configs, &only, &work, &opts)
        }
        Command::Serve(args) => serve::serve(spec, args).map(|()| true),
        Command::Token(cmd) => serve::token(cmd).map(|()| true),
        Command::Worker(args) => serve::worker(spec, args).map(|()| true),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{}", report(&e));
            ExitCode::from(2)
        }
    }
}

/// An error in the one format of every semfuzz message: `error: ...`, the location with the
/// line and a caret where there is one, then `hint:` lines (see `Diagnostic`'s `Display`).
fn report(e: &anyhow::Error) -> String {
    if let Some(d) = e.downcast_ref::<Diagnostic>() {
        d.to_string()
    } else if let Some(d) = e.downcast_ref::<Diagnostics>() {
        d.to_string()
    } else if let Some(p) = e.downcast_ref::<PatternError>() {
        Diagnostic::from(p.clone()).to_string()
    } else {
        format!("error: {e:#}")
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
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}
