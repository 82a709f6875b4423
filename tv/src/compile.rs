//! The compilers `validate-llc` runs: llvmlite's LLVM through its NVPTX target machine, the
//! LLVM trunk Triton bundles through its `translate_to_asm`, an `llc` executable, or NVIDIA's
//! libNVVM from the CUDA wheel (docs/nvvm.md); `--llc all` finds every one this machine has.
//! Each gets the module in the dialect it reads ([`Compiler::adapt`]).

use anyhow::{anyhow, Result};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The llvmlite driver, run by `python3`.
const LLC_PY: &str = include_str!("llc.py");

/// The Triton driver, run by `python3` with Triton's wheel on its path.
const TRITON_PY: &str = include_str!("triton_llc.py");

/// The libNVVM driver, run by `python3` with the CUDA wheel on its path; a reproducer carries
/// it, as its command runs it.
pub const NVVM_PY: &str = include_str!("nvvm.py");

/// The data layout libNVVM requires of a 64-bit module: it refuses a module without one ("Data
/// Layout string is empty"), and its targets built on LLVM 22 (sm_100 and later) refuse any
/// other ("Target-incompatible DataLayout"); this is the one they print.
const NVVM_DATALAYOUT: &str = "e-p:64:64:64-p6:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-f128:128:128-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64-a:8:8";

/// The NVVM IR version libNVVM 13.5 reads, as the module metadata it requires ("IR version 1.0
/// incompatible with current version 2.0").
const NVVM_IR_VERSION: &str = "!nvvmir.version = !{!nvvmir.version.0}";

/// The triple every compile targets.
pub const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// The target name that passes no `-mcpu`: the compiler's own default (sm_20 for LLVM 14,
/// sm_30 later), what a test's `RUN:` line without `-mcpu` compiles for.
pub const DEFAULT_CPU: &str = "default";

/// The Debian packages' `llc` names `--llc all` looks for on `PATH` (and in
/// `/usr/lib/llvm-N/bin`), oldest first.
const DEBIAN_LLCS: &[&str] = &["llc-14", "llc-15", "llc-16", "llc-17", "llc-18", "llc-19"];

/// Why `nvcc` compiles no IR module: [`crate::nvcc`] compiles its CUDA C catalogue itself.
const NVCC_COMPILES_CUDA: &str =
    "nvcc compiles CUDA C, not IR: `semfuzz validate-nvcc` compiles its catalogue";

/// Each target's PTX for each module, or why the compiler gave none: `ptx[sm][module]`.
pub type Compiled = HashMap<String, HashMap<String, Result<String, String>>>;

/// What compiles IR to PTX.
#[derive(Clone)]
pub enum Llc {
    /// llvmlite's LLVM in one `python3` process.
    Llvmlite,
    /// The LLVM trunk snapshot Triton bundles, in one `python3` process.
    Triton,
    /// An `llc` executable (a name on `PATH`, or a path).
    Binary(String),
    /// NVIDIA's libNVVM (the CUDA wheel's `libnvvm.so`) in one `python3` process.
    Nvvm,
    /// NVIDIA's `nvcc` (the CUDA wheel's) on CUDA C: what `validate-nvcc` judges
    /// ([`crate::nvcc`]); it compiles no IR.
    Nvcc,
}

/// A compiler that answered `--version`.
#[derive(Clone)]
pub struct Compiler {
    /// How it is run.
    pub llc: Llc,
    /// `llvmlite`, `llc-16`, `nvvm`, or the path given: names its work directory and its rows.
    pub name: String,
    /// LLVM's version (`16.0.6`, `24.0.0git`); libNVVM's build, the CUDA release's
    /// (`13.5.37`).
    pub version: String,
    /// The llvm-project commit of a snapshot between releases (Triton's), in full.
    pub commit: Option<String>,
    /// llc options beyond [`Compiler::options`]' own (a test's `RUN:` line's `-mattr=+ptx71
    /// -O0`), passed to every compile and printed in every command.
    pub flags: Vec<String>,
}

impl Compiler {
    /// The compiler `--llc` names (`llvmlite`, an llc on `PATH`, a path), with its version.
    pub fn named(text: &str) -> Result<Compiler> {
        let library = match text {
            "llvmlite" => Some(Llc::Llvmlite),
            "triton" => Some(Llc::Triton),
            "nvvm" => Some(Llc::Nvvm),
            _ => None,
        };
        if let Some(llc) = library {
            let (head, _, _) = Driver::of(&llc)?.run(&[], &[])?;
            return Ok(Compiler {
                llc,
                name: text.into(),
                version: head.version,
                commit: head.commit,
                flags: Vec::new(),
            });
        }
        let out = Command::new(text).arg("--version").output().map_err(|e| {
            anyhow!(
                "cannot run `{text}`: {e}\n  hint: --llc takes llvmlite, triton, nvvm, an llc on PATH (llc-16), a path, or `all`"
            )
        })?;
        let text_out = String::from_utf8_lossy(&out.stdout);
        let version = text_out
            .lines()
            .find_map(|l| l.split_once("LLVM version ").map(|(_, v)| v.trim()))
            .ok_or_else(|| anyhow!("`{text} --version` names no LLVM version: is it an llc?"))?
            .to_string();
        Ok(Compiler {
            llc: Llc::Binary(text.to_string()),
            name: text.to_string(),
            version,
            commit: None,
            flags: Vec::new(),
        })
    }

    /// Every compiler this machine has, oldest LLVM first: the Debian `llc-N` binaries, then
    /// llvmlite's (LLVM 22), then Triton's trunk, then libNVVM (no LLVM release: last).
    /// Missing ones are skipped; none at all is an error.
    pub fn all() -> Result<Vec<Compiler>> {
        let mut found = Vec::new();
        for name in DEBIAN_LLCS {
            let path = which(name).or_else(|| {
                let major = name.trim_start_matches("llc-");
                let p = PathBuf::from(format!("/usr/lib/llvm-{major}/bin/llc"));
                p.exists().then(|| p.display().to_string())
            });
            if let Some(path) = path {
                let mut c = Compiler::named(&path)?;
                c.name = name.to_string();
                found.push(c);
            }
        }
        for name in ["llvmlite", "triton", "nvvm"] {
            match Compiler::named(name) {
                Ok(c) => found.push(c),
                Err(e) if found.is_empty() && name == "nvvm" => return Err(e),
                Err(_) => {}
            }
        }
        found.sort_by_key(|c| (!c.is_llvm(), c.major()));
        Ok(found)
    }

    /// Whether it is a release or snapshot of LLVM's NVPTX back end, which regression ranges
    /// order by version; libNVVM is NVIDIA's, with its own versions.
    pub fn is_llvm(&self) -> bool {
        !matches!(self.llc, Llc::Nvvm | Llc::Nvcc)
    }

    /// LLVM's major version, for ordering regression ranges (libNVVM's CUDA major).
    pub fn major(&self) -> u32 {
        self.version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    }

    /// The LLVM it is: `16.0.6`, or a snapshot's version and short commit,
    /// `24.0.0git (b010a18)`; for libNVVM, its release and build, `libNVVM 13.5 (CUDA 13.5.37)`.
    pub fn llvm(&self) -> String {
        match self.llc {
            Llc::Nvvm => {
                let release: Vec<&str> = self.version.split('.').take(2).collect();
                return format!("libNVVM {} (CUDA {})", release.join("."), self.version);
            }
            Llc::Nvcc => return format!("CUDA {}", self.version),
            _ => {}
        }
        match &self.commit {
            Some(c) => format!("{} ({})", self.version, &c[..c.len().min(7)]),
            None => self.version.clone(),
        }
    }

    /// `llvmlite (LLVM 22.1.0)`, `llc-16 (LLVM 16.0.6)`, `triton (LLVM 24.0.0git (b010a18))`,
    /// `nvvm (libNVVM 13.5 (CUDA 13.5.37))`.
    pub fn label(&self) -> String {
        if self.is_llvm() {
            format!("{} (LLVM {})", self.name, self.llvm())
        } else {
            format!("{} ({})", self.name, self.llvm())
        }
    }

    /// The options every compile passes, as `llc` takes them: the level, the triple, the
    /// target. The drivers set the same on their target machines: llvmlite's at -O2, Triton's
    /// `translate_to_asm` at -O3, the only level it builds.
    ///
    /// No `-mcpu` for [`DEFAULT_CPU`] (LLVM's own default), then [`Compiler::flags`] (a `-O0`
    /// among them replaces the level, as a later one does in llc, so the command names one;
    /// Triton's driver takes only `-mattr` of them).
    ///
    /// For libNVVM, `-arch=compute_XX` alone (its default level, -opt=3); the options the
    /// module's IR licenses are [`nvvm_options`]'.
    pub fn options(&self, sm: &str) -> Vec<String> {
        let level = match self.llc {
            Llc::Triton => "-O3",
            Llc::Llvmlite | Llc::Binary(_) => "-O2",
            // llc's flags (a RUN line's `-mattr`, `-O0`) have no libNVVM counterpart: the
            // driver takes none of them, and the command shows none.
            Llc::Nvvm => return vec![format!("-arch=compute_{}", sm.trim_start_matches("sm_"))],
            // Device functions are emitted only as relocatable device code.
            Llc::Nvcc => {
                let mut options = vec!["-ptx".into(), format!("-arch={sm}"), "-rdc=true".into()];
                options.extend(self.flags.iter().cloned());
                return options;
            }
        };
        // A `-mtriple=` among the flags (a test's 32-bit RUN line) replaces the default: llc
        // takes the option once.
        let triple = self
            .flags
            .iter()
            .find_map(|f| f.strip_prefix("-mtriple="))
            .unwrap_or(TRIPLE);
        let is_level =
            |f: &str| f.len() == 3 && f.starts_with("-O") && f.as_bytes()[2].is_ascii_digit();
        let level = match self.llc {
            Llc::Triton => level,
            _ => self
                .flags
                .iter()
                .rfind(|f| is_level(f))
                .map_or(level, String::as_str),
        };
        let mut options = vec![level.to_string(), format!("-mtriple={triple}")];
        if sm != DEFAULT_CPU {
            options.push(format!("-mcpu={sm}"));
        }
        options.extend(
            self.flags
                .iter()
                .filter(|f| !f.starts_with("-mtriple=") && !is_level(f))
                .cloned(),
        );
        options
    }

    /// The command line a person runs to compile `ll` (whose text is `text`, in this
    /// compiler's dialect) for `sm` into `ptx` (`-`: standard output) with this compiler's
    /// LLVM: its `llc` under that name, whichever package it comes in; [`Compiler::label`] says
    /// which LLVM it is. For libNVVM, semfuzz's driver `nvvm.py` (tv/src/), which takes
    /// nvvmCompileProgram's options.
    pub fn command(&self, ll: &str, ptx: &str, sm: &str, text: &str) -> String {
        match self.llc {
            Llc::Nvvm => {
                let licensed = nvvm_options(text).unwrap_or_default();
                format!(
                    "python3 nvvm.py {} {} {ll} -o {ptx}",
                    self.options(sm).join(" "),
                    licensed.join(" ")
                )
            }
            Llc::Nvcc => format!(
                "nvcc {} {} -o {ptx}",
                self.options(sm).join(" "),
                crate::nvcc::CATALOGUE_FILE
            ),
            _ => format!("llc {} {ll} -o {ptx}", self.options(sm).join(" ")),
        }
    }

    /// `text` in the denormal spelling this compiler reads: trunk reads only
    /// `denormal_fpenv(...)` (it compiles a module with the `"denormal-fp-math"` strings as
    /// IEEE), LLVM 14-22 only the strings (they cannot parse `denormal_fpenv`). Each list of
    /// attributes (one line) that spells them the other way is respelled with the same modes,
    /// as the IR reader reads them; a list it cannot read is left for the compiler to refuse.
    ///
    /// libNVVM reads the strings (its LLVM 7 cannot parse `denormal_fpenv`), though not as
    /// modes: [`nvvm_options`] turns them into `-ftz`. Its module also gets the data layout,
    /// triple and NVVM IR version libNVVM requires ([`nvvm_module`]).
    pub fn adapt(&self, text: &str) -> String {
        let trunk = matches!(self.llc, Llc::Triton);
        let mut out = String::with_capacity(text.len() + 64);
        for line in text.split_inclusive('\n') {
            out.push_str(&respell(line, trunk).unwrap_or_else(|| line.to_string()));
        }
        match self.llc {
            Llc::Nvvm => nvvm_module(&out),
            _ => out,
        }
    }

    /// Runs [`Compiler::command`] in `dir` on its file `ll`, writing `ptx` there, with this
    /// compiler (llvmlite's driver for llvmlite, which reads the file and passes the same
    /// options); the PTX, or why there is none.
    pub fn replay(&self, dir: &Path, ll: &str, ptx: &str, sm: &str) -> Result<String, String> {
        match &self.llc {
            Llc::Llvmlite | Llc::Triton | Llc::Nvvm => {
                let text = std::fs::read_to_string(dir.join(ll))
                    .map_err(|e| format!("cannot read {ll}: {e}"))?;
                let text = self.adapt(&text);
                let options = self.module_options(&text)?;
                let (_, mut answers, aborted) = Driver::of(&self.llc)
                    .and_then(|d| d.run(&[(sm, ll, &text, &options)], &self.flags))
                    .map_err(|e| e.to_string())?;
                let out = answers
                    .pop()
                    .unwrap_or_else(|| Err(aborted.unwrap_or_else(|| "no output".into())))?;
                std::fs::write(dir.join(ptx), &out)
                    .map_err(|e| format!("cannot write {ptx}: {e}"))?;
                Ok(out)
            }
            Llc::Nvcc => Err(NVCC_COMPILES_CUDA.into()),
            Llc::Binary(b) => {
                let out = Command::new(b)
                    .args(self.options(sm))
                    .args([ll, "-o", ptx])
                    .current_dir(dir)
                    .output()
                    .map_err(|e| format!("cannot run {b}: {e}"))?;
                if !out.status.success() {
                    return Err(without_addresses(
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .next()
                            .unwrap_or("failed"),
                    ));
                }
                std::fs::read_to_string(dir.join(ptx))
                    .map_err(|e| format!("cannot read {ptx}: {e}"))
            }
        }
    }

    /// Each module (name, file, text) compiled for each target.
    pub fn compile(
        &self,
        modules: &[(String, PathBuf, String)],
        sms: &[String],
    ) -> Result<Compiled> {
        match &self.llc {
            Llc::Llvmlite | Llc::Triton | Llc::Nvvm => {
                let adapted: Vec<Adapted> = modules
                    .iter()
                    .map(|(k, _, t)| {
                        let text = self.adapt(t);
                        let options = self.module_options(&text);
                        (k.clone(), text, options)
                    })
                    .collect();
                compile_driver(&Driver::of(&self.llc)?, &adapted, sms, &self.flags)
            }
            Llc::Nvcc => Err(anyhow!(NVCC_COMPILES_CUDA)),
            Llc::Binary(b) => {
                let mut all = HashMap::new();
                for sm in sms {
                    let mut per = HashMap::new();
                    for (k, ll, text) in modules {
                        let adapted = self.adapt(text);
                        let mut child = Command::new(b)
                            .args(self.options(sm))
                            .args(["-", "-o", "-"])
                            .stdin(Stdio::piped())
                            .stdout(Stdio::piped())
                            .stderr(Stdio::piped())
                            .spawn()
                            .map_err(|e| anyhow!("cannot run {b} on {}: {e}", ll.display()))?;
                        // llc reads the module on standard input: what it compiles is the
                        // module in its spelling, not the file's.
                        child
                            .stdin
                            .take()
                            .expect("piped")
                            .write_all(adapted.as_bytes())?;
                        let out = child.wait_with_output()?;
                        let err = String::from_utf8_lossy(&out.stderr);
                        // An llc that does not know the target warns and compiles for its
                        // default one: that PTX is not this target's.
                        let verdict = if err.contains("is not a recognized processor") {
                            Err(format!("LLVM {} does not know {sm}", self.version))
                        } else if out.status.success() {
                            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
                        } else {
                            Err(without_addresses(err.lines().next().unwrap_or("failed")))
                        };
                        per.insert(k.clone(), verdict);
                    }
                    all.insert(sm.clone(), per);
                }
                Ok(all)
            }
        }
    }
}

impl Compiler {
    /// The options of this compiler's own that the module (in its dialect) licenses: libNVVM's
    /// ([`nvvm_options`]); none for LLVM's, whose modes and flags are in the IR.
    fn module_options(&self, text: &str) -> Result<Vec<String>, String> {
        match self.llc {
            Llc::Nvvm => nvvm_options(text),
            _ => Ok(Vec::new()),
        }
    }
}

/// `text` as libNVVM reads it: its data layout and triple instead of the module's, and the NVVM
/// IR version metadata, under a number no other node has. Syntax only: none of them changes
/// what a function computes.
fn nvvm_module(text: &str) -> String {
    let mut out =
        format!("target datalayout = \"{NVVM_DATALAYOUT}\"\ntarget triple = \"{TRIPLE}\"\n");
    let mut versioned = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with("target datalayout") || t.starts_with("target triple") {
            continue;
        }
        versioned |= t.starts_with("!nvvmir.version");
        out.push_str(line);
    }
    if !versioned {
        // Metadata numbers are `!N`; the next free one is past the largest.
        let next = text
            .split('!')
            .skip(1)
            .filter_map(|r| {
                let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().ok()
            })
            .max()
            .map_or(0, |n| n + 1);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&NVVM_IR_VERSION.replace("nvvmir.version.0", &next.to_string()));
        out.push_str(&format!("\n!{next} = !{{i32 2, i32 0}}\n"));
    }
    out
}

/// libNVVM's options for the function of a minimal module, each one the IR licenses
/// (docs/nvvm.md): `-ftz=1` where its `float` denormal mode is preserve-sign, `-ftz=0` where it
/// is IEEE (libNVVM ignores the attributes: the option is what sets the mode); `-prec-sqrt=0`
/// where there are `llvm.sqrt.f32` calls and every one has `afn`; `-fma=1` (the default) where
/// no `fmul`, `fadd` or `fsub` lacks `contract`; `-prec-div=0` where there are `fdiv float`
/// instructions and every one carries an `!fpmath` bound of at least 2.5 ulps (the CUDA
/// Programming Guide's accuracy of `x/y` under `-prec-div=false`, 2 ulps from the rounded
/// quotient, is within 2.5 ulps of the exact one: docs/ambiguities.md 173).
/// An error names what libNVVM cannot be asked for.
pub fn nvvm_options(text: &str) -> Result<Vec<String>, String> {
    use semfuzz_llir::lower::{denormal_modes, Mode};
    use semfuzz_llir::syntax::{FloatTy, Statement, Type};
    let file = semfuzz_spec::diag::SourceFile::new("f.ll", text);
    let module = semfuzz_llir::parse(&file).map_err(|d| d.message)?;
    let f = module
        .functions
        .iter()
        .find(|f| !f.body.is_empty())
        .ok_or("the module defines no function")?;
    let modes = denormal_modes(&module, f).map_err(|d| d.message)?;
    let ftz = match modes.f32 {
        (Mode::Ieee, Mode::Ieee) => "-ftz=0",
        (Mode::PreserveSign, Mode::PreserveSign) => "-ftz=1",
        (o, i) => {
            return Err(format!(
                "unsupported denormal mode {},{} for float: libNVVM's -ftz sets IEEE (0) or \
                 preserve-sign (1) only",
                o.name(),
                i.name()
            ))
        }
    };
    let instrs: Vec<_> = f
        .body
        .iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i),
            _ => None,
        })
        .collect();
    let has = |i: &semfuzz_llir::syntax::Instr, flags: &[&str]| {
        i.flags
            .iter()
            .any(|f| f == "fast" || flags.contains(&f.as_str()))
    };
    let sqrts: Vec<_> = instrs
        .iter()
        .filter(|i| i.callee.as_deref() == Some("llvm.sqrt.f32"))
        .collect();
    let sqrt_all_afn = !sqrts.is_empty() && sqrts.iter().all(|i| has(i, &["afn"]));
    let divides: Vec<_> = instrs
        .iter()
        .filter(|i| i.opcode == "fdiv" && i.ty == Some(Type::Float(FloatTy::Float)))
        .collect();
    let divide_bounded = !divides.is_empty()
        && divides.iter().all(|i| {
            i.metadata
                .iter()
                .find(|m| m.name == "fpmath")
                .and_then(|m| module.fpmath_ulps(&m.node))
                .is_some_and(|ulps| ulps >= PREC_DIV_FALSE_ULPS)
        });
    let contract_all = instrs
        .iter()
        .filter(|i| matches!(i.opcode.as_str(), "fmul" | "fadd" | "fsub"))
        .all(|i| has(i, &["contract"]));
    Ok(vec![
        ftz.to_string(),
        format!("-prec-div={}", u8::from(!divide_bounded)),
        format!("-prec-sqrt={}", u8::from(!sqrt_all_afn)),
        format!("-fma={}", u8::from(contract_all)),
    ])
}

/// The least `!fpmath` bound that licenses libNVVM's `-prec-div=0`, in ulps of the exact
/// quotient: the CUDA C++ Programming Guide gives `x/y` "2 (full range)" ulps from the
/// correctly rounded result when not compiled with `-prec-div=true`, and the rounded quotient
/// is within half an ulp of the exact one (spec/isa-docs/libnvvm-api.md).
const PREC_DIV_FALSE_ULPS: f64 = 2.5;

/// `name` on `PATH`.
fn which(name: &str) -> Option<String> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .map(|p| p.display().to_string())
    })
}

/// What a driver's first line says: the LLVM version and, for a snapshot, its commit.
struct Head {
    version: String,
    commit: Option<String>,
}

/// A module as a driver gets it: its name, its text in the compiler's dialect, and the options
/// of the compiler's own it licenses (or why the compiler cannot be asked for what it needs).
type Adapted = (String, String, Result<Vec<String>, String>);

/// One compile a driver runs: the target, the module's name and text, and the options of the
/// compiler's own it licenses ([`Compiler::module_options`]).
type Job<'a> = (&'a str, &'a str, &'a str, &'a [String]);

/// What one driver process gave: its [`Head`], the answers (PTX, or LLVM's error) of the jobs it
/// finished, in order, and the first line of LLVM's message if it was aborted.
type DriverRun = (Head, Vec<Result<String, String>>, Option<String>);

/// A Python driver of an LLVM library (`llc.py`, `triton_llc.py`): the script and the
/// `PYTHONPATH` that has its library.
struct Driver {
    script: &'static str,
    path: PathBuf,
}

impl Driver {
    /// The driver of `llc`, a library compiler; the error says how to install the library.
    fn of(llc: &Llc) -> Result<Driver> {
        match llc {
            Llc::Llvmlite => Ok(Driver {
                script: LLC_PY,
                path: semfuzz_backend::python_deps("llvmlite").map_err(|e| {
                    anyhow!("{e}\n  hint: `cargo xtask setup` installs llvmlite into .deps/py")
                })?,
            }),
            // `.deps/triton` is setup's link to the wheel in the user's cache (it is 1 GB).
            Llc::Triton => Ok(Driver {
                script: TRITON_PY,
                path: semfuzz_backend::deps_dir("triton", "triton").map_err(|e| {
                    anyhow!(
                        "{e}\n  hint: `cargo xtask setup` installs Triton's wheel (LLVM trunk) \
                         into ~/.cache/semfuzz and links it as .deps/triton"
                    )
                })?,
            }),
            // The CUDA wheel `nvidia-cuda-nvcc` brings (`nvidia-nvvm`), and cuda-bindings,
            // numba-cuda's.
            Llc::Nvvm => Ok(Driver {
                script: NVVM_PY,
                path: semfuzz_backend::python_deps("nvidia/cu13/lib/libnvvm.so.4")
                    .and_then(|p| semfuzz_backend::python_deps("cuda/bindings/nvvm.pxd").map(|_| p))
                    .map_err(|e| {
                        anyhow!(
                            "{e}\n  hint: `cargo xtask setup` installs the CUDA wheel \
                             (nvidia-cuda-nvcc, with libNVVM) and cuda-bindings into .deps/py"
                        )
                    })?,
            }),
            Llc::Binary(b) => Err(anyhow!("{b} is an executable, not a library")),
            Llc::Nvcc => Err(anyhow!(NVCC_COMPILES_CUDA)),
        }
    }

    /// Runs the driver on `jobs` (target, module name, text, the compiler's own options for
    /// it), with llc's `flags`, until it ends.
    fn run(&self, jobs: &[Job], flags: &[String]) -> Result<DriverRun> {
        let mut child = Command::new("python3")
            .env("PYTHONPATH", &self.path)
            .arg("-c")
            .arg(self.script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| anyhow!("cannot run python3: {e}"))?;
        child.stdin.take().expect("piped").write_all(
            serde_json::json!({
                "jobs": jobs,
                "flags": flags,
                "default_cpu": DEFAULT_CPU,
                "datalayout": NVVM_DATALAYOUT,
            })
            .to_string()
            .as_bytes(),
        )?;
        let out = child.wait_with_output()?;
        let mut lines = out.stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let head: serde_json::Value = match lines.next() {
            Some(l) => serde_json::from_slice(l)?,
            None => {
                return Err(anyhow!(
                    "the driver in {} failed: {}",
                    self.path.display(),
                    stderr.trim()
                ))
            }
        };
        let head = Head {
            version: head["version"].as_str().unwrap_or("?").to_string(),
            commit: head["commit"]
                .as_str()
                .filter(|c| !c.is_empty())
                .map(str::to_string),
        };
        let mut answers = Vec::new();
        for l in lines {
            let r: serde_json::Value = serde_json::from_slice(l)?;
            answers.push(match r["ptx"].as_str() {
                Some(p) => Ok(p.to_string()),
                None => Err(r["error"].as_str().unwrap_or("no output").to_string()),
            });
        }
        let aborted = (!out.status.success()).then(|| {
            let line = stderr
                .lines()
                .find(|l| l.contains("LLVM ERROR"))
                .or_else(|| stderr.lines().next())
                .unwrap_or("the process ended without a message");
            without_addresses(line)
        });
        Ok((head, answers, aborted))
    }
}

/// Compiles every module for every target with `driver`; a module LLVM aborts on gets LLVM's
/// message as its error, and the jobs after it run in a new process.
fn compile_driver(
    driver: &Driver,
    modules: &[Adapted],
    sms: &[String],
    flags: &[String],
) -> Result<Compiled> {
    let mut all: Compiled = HashMap::new();
    let mut jobs: Vec<Job> = Vec::new();
    for sm in sms {
        for (k, text, options) in modules {
            match options {
                Ok(o) => jobs.push((sm.as_str(), k.as_str(), text.as_str(), o.as_slice())),
                // What the compiler cannot be asked for is that module's verdict, uncompiled.
                Err(why) => {
                    all.entry(sm.clone())
                        .or_default()
                        .insert(k.clone(), Err(why.clone()));
                }
            }
        }
    }
    let mut done = 0;
    while done < jobs.len() {
        let (_, answers, aborted) = driver.run(&jobs[done..], flags)?;
        for answer in answers {
            let (sm, k, _, _) = jobs[done];
            all.entry(sm.to_string())
                .or_default()
                .insert(k.to_string(), answer);
            done += 1;
        }
        if done < jobs.len() {
            let (sm, k, _, _) = jobs[done];
            let why = aborted.ok_or_else(|| {
                anyhow!("the driver stopped after {done} of {} modules", jobs.len())
            })?;
            all.entry(sm.to_string())
                .or_default()
                .insert(k.to_string(), Err(why));
            done += 1;
        }
    }
    Ok(all)
}

/// `line` respelled for trunk (`trunk`: the strings become `denormal_fpenv`) or for LLVM 14-22
/// (`denormal_fpenv` becomes the strings), if it spells denormal modes the other way and the IR
/// reader reads them (the modes are the reader's: one grammar for both directions).
fn respell(line: &str, trunk: bool) -> Option<String> {
    use semfuzz_llir::lower::{denormal_modes, Mode};
    // The spans of the other spelling's attributes in `line`.
    let mut spans = Vec::new();
    if trunk {
        for key in ["\"denormal-fp-math\"=\"", "\"denormal-fp-math-f32\"=\""] {
            if let Some(i) = line.find(key) {
                let end = line[i + key.len()..].find('"')? + i + key.len() + 1;
                spans.push((i, end));
            }
        }
    } else if let Some(i) = line.find("denormal_fpenv(") {
        spans.push((i, line[i..].find(')')? + i + 1));
    }
    spans.sort();
    let attrs = spans
        .iter()
        .map(|&(a, b)| &line[a..b])
        .collect::<Vec<_>>()
        .join(" ");
    if attrs.is_empty() {
        return None;
    }
    let probe = format!("define void @f() {attrs} {{\n  ret void\n}}\n");
    let file = semfuzz_spec::diag::SourceFile::new("attributes", probe.as_str());
    let module = semfuzz_llir::parse(&file).ok()?;
    let d = denormal_modes(&module, module.functions.first()?).ok()?;
    let spelled = if trunk {
        let mode = |(o, i): (Mode, Mode)| {
            let word = |m: Mode| m.name().replace('-', "");
            if o == i {
                word(o)
            } else {
                format!("{}|{}", word(o), word(i))
            }
        };
        let ieee = (Mode::Ieee, Mode::Ieee);
        if d.other == d.f32 {
            format!("denormal_fpenv({})", mode(d.other))
        } else if d.other == ieee {
            format!("denormal_fpenv(float: {})", mode(d.f32))
        } else {
            format!("denormal_fpenv({}, float: {})", mode(d.other), mode(d.f32))
        }
    } else {
        let pair = |(o, i): (Mode, Mode)| format!("{},{}", o.name(), i.name());
        format!(
            "\"denormal-fp-math\"=\"{}\" \"denormal-fp-math-f32\"=\"{}\"",
            pair(d.other),
            pair(d.f32)
        )
    };
    // The first attribute's place gets the respelling; the others are dropped.
    let mut out = String::new();
    let mut at = 0;
    for (k, &(a, b)) in spans.iter().enumerate() {
        out.push_str(&line[at..a]);
        if k == 0 {
            out.push_str(&spelled);
        } else if out.ends_with(' ') {
            // The space that separated the dropped attribute.
            out.pop();
        }
        at = b;
    }
    out.push_str(&line[at..]);
    Some(out)
}

/// A message of LLVM's without the node addresses (`0x5563d09f0e40`) that differ per run.
fn without_addresses(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line.trim();
    while let Some(i) = rest.find("0x") {
        let hex = rest[i + 2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len() - i - 2);
        out.push_str(&rest[..i]);
        out.push_str(if hex >= 8 {
            "0x…"
        } else {
            &rest[i..i + 2 + hex]
        });
        rest = &rest[i + 2 + hex..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The float preserve-sign attribute, as a function's.
    const PRESERVE_SIGN_F32: &str = "\"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\"";

    fn compiler(llc: Llc) -> Compiler {
        Compiler {
            llc,
            name: "c".into(),
            version: "1.0.0".into(),
            commit: None,
            flags: Vec::new(),
        }
    }

    #[test]
    fn each_compiler_gets_the_denormal_spelling_it_reads() {
        let (trunk, old) = (compiler(Llc::Triton), compiler(Llc::Llvmlite));
        let strings = "define float @f(float %a) #0 {\n  ret float %a\n}\n\
                       attributes #0 = { nounwind \"denormal-fp-math\"=\"preserve-sign,preserve-sign\" \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\" }\n";
        let fpenv = "define float @f(float %a) #0 {\n  ret float %a\n}\n\
                     attributes #0 = { nounwind denormal_fpenv(preservesign) }\n";
        assert_eq!(trunk.adapt(strings), fpenv);
        assert_eq!(trunk.adapt(fpenv), fpenv);
        assert_eq!(old.adapt(strings), strings);
        assert_eq!(old.adapt(fpenv), strings);
        // Float alone, and output and input apart.
        let f32_only =
            "define float @g(float %a) \"denormal-fp-math-f32\"=\"preserve-sign,ieee\" {\n";
        assert_eq!(
            trunk.adapt(f32_only),
            "define float @g(float %a) denormal_fpenv(float: preservesign|ieee) {\n"
        );
        let both = "attributes #1 = { \"denormal-fp-math\"=\"positive-zero\" \"denormal-fp-math-f32\"=\"ieee\" }\n";
        assert_eq!(
            trunk.adapt(both),
            "attributes #1 = { denormal_fpenv(positivezero, float: ieee) }\n"
        );
        // What the reader cannot read is left for the compiler to refuse.
        let bad = "attributes #2 = { \"denormal-fp-math\"=\"flush\" }\n";
        assert_eq!(trunk.adapt(bad), bad);
    }

    #[test]
    fn a_run_lines_level_replaces_the_default_one() {
        let mut llc = compiler(Llc::Llvmlite);
        llc.flags = vec!["-O0".into(), "-mattr=+ptx71".into()];
        assert_eq!(
            llc.options("sm_80"),
            [
                "-O0",
                "-mtriple=nvptx64-nvidia-cuda",
                "-mcpu=sm_80",
                "-mattr=+ptx71"
            ]
        );
        llc.flags.clear();
        assert_eq!(llc.options("sm_80")[0], "-O2");
        // Triton's driver builds at -O3 whatever the RUN line asks.
        let mut trunk = compiler(Llc::Triton);
        trunk.flags = vec!["-O0".into()];
        assert_eq!(trunk.options("sm_80")[0], "-O3");
        assert!(!trunk.options("sm_80").contains(&"-O0".to_string()));
    }

    #[test]
    fn libnvvm_gets_its_data_layout_triple_and_ir_version_once() {
        let nvvm = compiler(Llc::Nvvm);
        let text = "target triple = \"nvptx64\"\ndefine float @f(float %a) {\n  ret float %a\n}\n\
                    !0 = !{}\n";
        let adapted = nvvm.adapt(text);
        assert!(adapted.starts_with(&format!(
            "target datalayout = \"{NVVM_DATALAYOUT}\"\ntarget triple = \"{TRIPLE}\"\ndefine"
        )));
        assert_eq!(adapted.matches("target triple").count(), 1, "{adapted}");
        // The version node takes the next free number, and adapting again changes nothing.
        assert!(
            adapted.ends_with("!nvvmir.version = !{!1}\n!1 = !{i32 2, i32 0}\n"),
            "{adapted}"
        );
        assert_eq!(nvvm.adapt(&adapted), adapted);
        // The LLVM compilers get the module as it is.
        assert_eq!(compiler(Llc::Llvmlite).adapt(text), text);
    }

    #[test]
    fn libnvvm_options_are_what_the_ir_licenses() {
        let options = |attrs: &str, body: &str| {
            nvvm_options(&format!(
                "define float @f(float %a, float %b) {attrs} {{\n{body}  ret float %a\n}}\n\
                 declare float @llvm.sqrt.f32(float)\n"
            ))
        };
        let add = "  %r = fadd float %a, %b\n";
        assert_eq!(
            options("", add).unwrap(),
            ["-ftz=0", "-prec-div=1", "-prec-sqrt=1", "-fma=0"]
        );
        assert_eq!(
            options(PRESERVE_SIGN_F32, "  %r = fadd contract float %a, %b\n").unwrap(),
            ["-ftz=1", "-prec-div=1", "-prec-sqrt=1", "-fma=1"]
        );
        // Every sqrt approximable, or none is.
        let afn = "  %r = call afn float @llvm.sqrt.f32(float %a)\n";
        assert_eq!(options("", afn).unwrap()[2], "-prec-sqrt=0");
        let plain = "  %s = call float @llvm.sqrt.f32(float %b)\n";
        assert_eq!(
            options("", &format!("{afn}{plain}")).unwrap()[2],
            "-prec-sqrt=1"
        );
        // Every `fdiv float` bounded by at least 2.5 ulps, or none is approximated.
        let bounded = |ulps: &str| {
            nvvm_options(&format!(
                "define float @f(float %a, float %b) {{\n  %q = fdiv float %a, %b, !fpmath !0\n  \
                 %r = fdiv float %q, %b, !fpmath !1\n  ret float %r\n}}\n\
                 !0 = !{{float 2.5}}\n!1 = !{{float {ulps}}}\n"
            ))
            .unwrap()[1]
                .clone()
        };
        assert_eq!(bounded("3.0"), "-prec-div=0");
        assert_eq!(bounded("2.0"), "-prec-div=1");
        assert_eq!(
            options("", "  %r = fdiv float %a, %b\n").unwrap()[1],
            "-prec-div=1"
        );
        // No option of libNVVM's sets positive-zero.
        let pz = options(
            "\"denormal-fp-math-f32\"=\"positive-zero,positive-zero\"",
            add,
        );
        assert!(pz.unwrap_err().contains("positive-zero"));
    }
}
