//! `validate-llc --run-lines FILE.ll...`: LLVM's own NVPTX codegen tests as a workload. Each
//! file is validated at the targets and with the flags of its own `; RUN:` lines, so a user
//! points semfuzz at `llvm/test/CodeGen/NVPTX/*.ll` and gets, per function and RUN line, what
//! FileCheck cannot say: whether the PTX means what the IR means.
//!
//! A RUN line is an `llc` command (after lit's `%if COND %{ ... %}`, up to its first pipe);
//! equal configurations of one file (the FileCheck line and its `%ptxas-verify` twin) are one.
//! Flags fall in four kinds ([`Flag`]): the target (`-mcpu`, `-mtriple`/`-march`), flags llc
//! passes on (`-mattr`, `-O0`, `-nvptx-*`, given to the compiler as written), the denormal
//! flags, which llc applies as function attributes to each function without its own
//! (`-denormal-fp-math-f32=preserve-sign`: semfuzz writes them into the module, so the IR reader
//! and every compiler see the same attributes, whichever spelling they read), `-fp-contract=fast`
//! (fuse any multiply and add: written into the module as LangRef's own licence, `contract` on
//! every `fmul`, `fadd` and `fsub`), and flags that license results the IR alone does not allow
//! and semfuzz does not model (`-enable-unsafe-fp-math`, `-nvptx-approx-log2f32`): a
//! configuration with one is `unsupported` for every function, naming the flag, rather than
//! judged against a meaning it does not have. The licences it does model
//! (`-nvptx-prec-divf32=0`, `-nvptx-ftz-atomics=fast`: [`semfuzz_llir::Licences`]) are passed
//! to the compiler, and the IR reader reads them off the same flags. llvmlite ignores a library option its LLVM does
//! not know (a trunk-only `-nvptx-*` flag); an `llc` binary refuses it, and that is the verdict. A 32-bit
//! `nvptx` target (`-march=nvptx`, or the file's own triple) is compiled as such
//! (`-mtriple=nvptx-nvidia-cuda` to every compiler); a function that passes a pointer then
//! takes 32-bit addresses, which the IR reader's 64-bit pointers do not match, and says so.

use super::{validate_all, Args, Cell};
use anyhow::{anyhow, Result};
use semfuzz_llir::syntax::{Attr, Statement};
use semfuzz_service::client::Reporter;
use semfuzz_smt::solve::Options;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::Spec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The 32-bit target's triple, as every compiler driver takes it (`-mtriple=`).
const TRIPLE_32: &str = "nvptx-nvidia-cuda";

/// One `llc` configuration of a test file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// The 1-based line of the file where the RUN command starts.
    pub line: usize,
    /// `-mcpu`'s target, or [`semfuzz_tv::compile::DEFAULT_CPU`].
    pub cpu: String,
    /// Flags handed to the compiler as written.
    pub llc_flags: Vec<String>,
    /// Function attributes the denormal flags set: (`denormal-fp-math-f32`, `preserve-sign`).
    pub attributes: Vec<(String, String)>,
    /// `-fp-contract=fast`: every `fmul`, `fadd` and `fsub` gets LangRef's `contract`.
    pub contract_all: bool,
    /// Why the configuration is not validated (a licence flag semfuzz does not model).
    pub skipped: Option<String>,
}

impl RunLine {
    /// The configuration as a person reads it: `-mcpu=sm_80 -mattr=+ptx71`.
    pub fn describe(&self) -> String {
        let mut words = vec![format!("-mcpu={}", self.cpu)];
        words.extend(self.llc_flags.iter().cloned());
        words.extend(self.attributes.iter().map(|(k, v)| format!("-{k}={v}")));
        if self.contract_all {
            words.push("-fp-contract=fast".into());
        }
        words.join(" ")
    }
}

/// What one llc flag is to `--run-lines`.
#[derive(Debug, PartialEq, Eq)]
enum Flag<'a> {
    /// `-mcpu=sm_80`.
    Cpu(&'a str),
    /// `-mtriple=nvptx64-nvidia-cuda`, `-march=nvptx`: whether it is 32-bit.
    Triple { bits32: bool },
    /// A denormal flag, as the attribute llc gives each function without one.
    Attribute(&'a str, &'a str),
    /// `-fp-contract=fast`.
    ContractAll,
    /// A flag that allows results the IR does not: why.
    Licence(&'static str),
    /// Anything else: passed to the compiler.
    Pass,
    /// The input and output redirections, `%s`.
    Ignored,
}

fn classify(word: &str) -> Flag<'_> {
    let name = word.trim_start_matches('-');
    let (key, value) = name.split_once('=').unwrap_or((name, ""));
    match key {
        "mcpu" => Flag::Cpu(value),
        "mtriple" | "march" => Flag::Triple {
            bits32: value == "nvptx" || value.starts_with("nvptx-"),
        },
        "denormal-fp-math" | "denormal-fp-math-f32" => Flag::Attribute(key, value),
        "fp-contract" if value == "fast" => Flag::ContractAll,
        "enable-unsafe-fp-math" | "enable-no-nans-fp-math" | "enable-no-infs-fp-math"
        | "enable-no-signed-zeros-fp-math" => Flag::Licence(
            "llc's -enable-*-fp-math flags license results the IR's own flags do not; semfuzz reads the IR's flags only",
        ),
        // `-nvptx-prec-divf32`, `-nvptx-prec-sqrtf32` and `-nvptx-ftz-atomics` (and LLVM <=
        // 22's `-nvptx-allow-ftz-atomics`) are passed on, and the IR reader reads their
        // licence off the same flags (`semfuzz_llir::Licences`, docs/ambiguities.md 105).
        "nvptx-approx-log2f32" | "nvptx-fma-level" => Flag::Licence(
            "this -nvptx flag licenses approximate or fused results the IR does not allow; semfuzz does not model its licence yet",
        ),
        "" | "s" | "%s" | "<" | "o" => Flag::Ignored,
        _ if word == "%s" || word == "<" || word == "-" => Flag::Ignored,
        _ => Flag::Pass,
    }
}

/// The distinct llc configurations of a test file's RUN lines, in order.
pub fn run_lines(text: &str) -> Vec<RunLine> {
    let file_is_32bit = text.lines().any(|l| {
        l.trim_start().starts_with("target triple")
            && (l.contains("\"nvptx-") || l.contains("\"nvptx\""))
    });
    let mut commands: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.split_once("RUN:").map(|(_, r)| r.trim()) else {
            if let Some(c) = open.take() {
                commands.push(c);
            }
            continue;
        };
        let (start, mut joined) = open.take().unwrap_or((i + 1, String::new()));
        let (part, continues) = match rest.strip_suffix('\\') {
            Some(p) => (p, true),
            None => (rest, false),
        };
        joined.push(' ');
        joined.push_str(part);
        if continues {
            open = Some((start, joined));
        } else {
            commands.push((start, joined));
        }
    }
    commands.extend(open);
    let mut found: Vec<RunLine> = Vec::new();
    for (line, command) in commands {
        // lit's `%if ptxas %{ llc ... | %ptxas-verify %}`: the command inside.
        let inner = match command.split_once("%{") {
            Some((_, body)) => body.rsplit_once("%}").map_or(body, |(b, _)| b),
            None => &command,
        };
        let first = inner.split('|').next().unwrap_or("").trim();
        let mut words = first.split_whitespace();
        if words.next() != Some("llc") {
            continue;
        }
        let mut run = RunLine {
            line,
            cpu: semfuzz_tv::compile::DEFAULT_CPU.to_string(),
            llc_flags: Vec::new(),
            attributes: Vec::new(),
            contract_all: false,
            skipped: None,
        };
        let mut bits32 = file_is_32bit;
        let mut words = words.peekable();
        while let Some(w) = words.next() {
            match classify(w) {
                Flag::Cpu(cpu) => run.cpu = cpu.to_string(),
                // The flag's last spelling wins, as in llc; the compilers get the full triple.
                Flag::Triple { bits32: b } => bits32 = b,
                Flag::Attribute(k, v) => run.attributes.push((k.to_string(), v.to_string())),
                Flag::ContractAll => run.contract_all = true,
                Flag::Licence(why) => {
                    run.skipped.get_or_insert_with(|| format!("{w}: {why}"));
                }
                Flag::Ignored => {
                    if w == "-o" {
                        words.next();
                    }
                }
                Flag::Pass => run.llc_flags.push(w.to_string()),
            }
        }
        if bits32 {
            run.llc_flags.push(format!("-mtriple={TRIPLE_32}"));
        }
        let same = |r: &RunLine| {
            r.cpu == run.cpu
                && r.llc_flags == run.llc_flags
                && r.attributes == run.attributes
                && r.contract_all == run.contract_all
                && r.skipped == run.skipped
        };
        if !found.iter().any(same) {
            found.push(run);
        }
    }
    found
}

/// `module` as `run` configures it: each function given the attributes `run` sets where it has
/// none of that name (llc's rule for its denormal flags), and with `-fp-contract=fast` each
/// `fmul`, `fadd` and `fsub` given `contract`.
fn configured(module: &mut semfuzz_llir::Module, run: &RunLine) {
    let groups = module.groups.clone();
    for f in &mut module.functions {
        if run.contract_all {
            for s in &mut f.body {
                if let Statement::Instr(i) = s {
                    let fusable = matches!(i.opcode.as_str(), "fmul" | "fadd" | "fsub");
                    if fusable && !i.flags.iter().any(|f| f == "contract" || f == "fast") {
                        i.flags.push("contract".into());
                    }
                }
            }
        }
        let has = |key: &str| {
            f.attrs.iter().any(|a| match a {
                Attr::Pair(k, _) => k == key,
                Attr::Group(n) => groups.iter().filter(|g| g.id == *n).any(|g| {
                    g.attrs
                        .iter()
                        .any(|a| matches!(a, Attr::Pair(k, _) if k == key))
                }),
                Attr::Word(_) => false,
            })
        };
        let missing: Vec<Attr> = run
            .attributes
            .iter()
            .filter(|(k, _)| !has(k))
            .map(|(k, v)| {
                // llc writes one mode as both the output's and the input's.
                let both = if v.contains(',') {
                    v.clone()
                } else {
                    format!("{v},{v}")
                };
                Attr::Pair(k.clone(), both)
            })
            .collect();
        f.attrs.extend(missing);
    }
}

/// Validates each file at each of its RUN lines' configurations, then prints the totals per
/// file and the reasons of every `unsupported`; `Ok(false)` on a counterexample or an unknown.
pub fn run(spec: &Spec, args: &Args, opts: &Options, reporter: Option<&Reporter>) -> Result<bool> {
    let compilers = semfuzz_tv::compilers(&args.llc)?;
    let work = args.work.join("run-lines");
    std::fs::create_dir_all(&work).map_err(|e| anyhow!("cannot create {}: {e}", work.display()))?;
    // Each cell with its file and RUN line, for the totals and `--json`.
    let mut cells: Vec<(PathBuf, Cell)> = Vec::new();
    let mut json = Vec::new();
    for file in &args.files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow!("cannot read {}: {e}", file.display()))?;
        let runs = run_lines(&text);
        if runs.is_empty() {
            outln!("{}: no llc RUN line; skipped", file.display());
            continue;
        }
        let stem = file
            .file_stem()
            .map_or("module".into(), |s| s.to_string_lossy().into_owned());
        let parsed =
            semfuzz_llir::parse(&SourceFile::new(file.display().to_string(), text.as_str()));
        for (k, run) in runs.iter().enumerate() {
            outln!(
                "== {}:{}: llc {} ==",
                file.display(),
                run.line,
                run.describe()
            );
            let mut module = match &parsed {
                Ok(m) => m.clone(),
                Err(d) => {
                    // Every function of the file shares the reader's verdict.
                    let why = format!("semfuzz cannot read the file: {}", d.message);
                    outln!("  {why}");
                    for name in defined_names(&text) {
                        cells.push((file.clone(), Cell::unsupported(&name, &run.cpu, &why)));
                    }
                    continue;
                }
            };
            if let Some(why) = &run.skipped {
                outln!("  skipped: {why}");
                for f in &module.functions {
                    cells.push((file.clone(), Cell::unsupported(&f.name, &run.cpu, why)));
                }
                continue;
            }
            configured(&mut module, run);
            let configured = work.join(format!("{stem}.run{}.ll", k + 1));
            std::fs::write(&configured, module.to_string().trim_start())
                .map_err(|e| anyhow!("cannot write {}: {e}", configured.display()))?;
            let sub = Args {
                files: vec![configured],
                sms: run.cpu.clone(),
                run_lines: false,
                json: None,
                ..args.clone()
            };
            let configured_compilers: Vec<_> = compilers
                .iter()
                .map(|c| semfuzz_tv::compile::Compiler {
                    flags: run.llc_flags.clone(),
                    ..c.clone()
                })
                .collect();
            for cell in validate_all(spec, &sub, &configured_compilers, opts, reporter)? {
                cells.push((file.clone(), cell));
            }
        }
    }
    for (file, c) in &cells {
        json.push(serde_json::json!({
            "file": file.display().to_string(),
            "function": c.func,
            "target": c.sm,
            "verdict": c.kind,
            "detail": c.detail,
        }));
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&json)? + "\n")
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    }
    summary(&cells);
    Ok(cells
        .iter()
        .all(|(_, c)| matches!(c.kind, "proved" | "unsupported")))
}

/// The names of a file's `define`s, for a file semfuzz cannot parse.
fn defined_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("define"))
        .filter_map(|l| {
            let at = l.find('@')?;
            let name: String = l[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
                .collect();
            Some(name)
        })
        .collect()
}

/// What an `unsupported` verdict says, without where: `unsupported type ptr` at any line.
fn reason(detail: &str) -> String {
    let mut r = detail.to_string();
    if let Some(at) = r.rfind(" at ") {
        if r[at + 4..].contains(".ll:") || r[at + 4..].contains(".ptx:") {
            r.truncate(at);
        }
    }
    r
}

/// The per-file totals and the unsupported reasons, most frequent first.
fn summary(cells: &[(PathBuf, Cell)]) {
    const KINDS: [&str; 4] = ["proved", "counterexample", "unknown", "unsupported"];
    let mut per_file: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for (file, c) in cells {
        let name = Path::new(file)
            .file_name()
            .map_or(file.display().to_string(), |f| {
                f.to_string_lossy().into_owned()
            });
        let k = KINDS.iter().position(|k| *k == c.kind).unwrap_or(3);
        per_file.entry(name).or_default()[k] += 1;
        if c.kind == "unsupported" {
            *reasons.entry(reason(&c.detail)).or_default() += 1;
        }
    }
    outln!("run-lines totals (function × RUN-line cells):");
    outln!("| file | cells | proved | counterexample | unknown | unsupported |");
    outln!("| --- | --- | --- | --- | --- | --- |");
    let mut total = [0usize; 4];
    for (file, counts) in &per_file {
        for (t, c) in total.iter_mut().zip(counts) {
            *t += c;
        }
        outln!(
            "| {file} | {} | {} | {} | {} | {} |",
            counts.iter().sum::<usize>(),
            counts[0],
            counts[1],
            counts[2],
            counts[3]
        );
    }
    let all: usize = total.iter().sum();
    outln!(
        "| all | {all} | {} | {} | {} | {} |",
        total[0],
        total[1],
        total[2],
        total[3]
    );
    if all > 0 {
        outln!(
            "decided or unknown: {} of {all} ({:.0}%)",
            all - total[3],
            100.0 * (all - total[3]) as f64 / all as f64
        );
    }
    let mut by_count: Vec<(&String, &usize)> = reasons.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !by_count.is_empty() {
        outln!("unsupported, by reason:");
        for (why, n) in by_count {
            outln!("  {n:5}  {why}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lines_keep_each_configuration_once_with_its_flags() {
        let text = "\
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 -mattr=+ptx71 -denormal-fp-math-f32=preserve-sign | FileCheck %s
; RUN: %if ptxas-11.8 %{ llc < %s -mtriple=nvptx64 -mcpu=sm_80 -mattr=+ptx71 -denormal-fp-math-f32=preserve-sign | %ptxas-verify -arch=sm_80 %}
; RUN: llc < %s -mtriple=nvptx64-nvidia-cuda -mcpu=sm_53 -asm-verbose=false \\
; RUN:          -O0 | FileCheck %s
; RUN: llc < %s -mtriple=nvptx -mcpu=sm_20 | FileCheck %s
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_20 -fp-contract=fast | FileCheck %s
; RUN: opt < %s -passes=instcombine | FileCheck %s
define float @f(float %a) {
  ret float %a
}
";
        let runs = run_lines(text);
        assert_eq!(runs.len(), 4, "{runs:#?}");
        assert_eq!(runs[0].line, 1);
        assert_eq!(runs[0].cpu, "sm_80");
        assert_eq!(runs[0].llc_flags, ["-mattr=+ptx71"]);
        assert_eq!(
            runs[0].attributes,
            [(
                "denormal-fp-math-f32".to_string(),
                "preserve-sign".to_string()
            )]
        );
        assert_eq!(runs[1].line, 3);
        assert_eq!(runs[1].llc_flags, ["-asm-verbose=false", "-O0"]);
        assert_eq!(runs[2].llc_flags, ["-mtriple=nvptx-nvidia-cuda"]);
        assert_eq!(runs[2].skipped, None);
        assert!(runs[3].contract_all);
        assert_eq!(runs[3].skipped, None);
        assert_eq!(runs[0].skipped, None);
    }

    #[test]
    fn a_denormal_flag_sets_only_functions_without_their_own_attribute() {
        let text = "\
define float @plain(float %a) {
  ret float %a
}
define float @own(float %a) #0 {
  ret float %a
}
attributes #0 = { \"denormal-fp-math-f32\"=\"ieee,ieee\" }
";
        let mut m = semfuzz_llir::parse(&SourceFile::new("t.ll", text)).unwrap();
        let run = &run_lines(
            "; RUN: llc < %s -mcpu=sm_80 -denormal-fp-math-f32=preserve-sign | FileCheck %s\n",
        )[0];
        configured(&mut m, run);
        let printed = m.to_string();
        assert!(
            printed.contains(
                "@plain(float %a) \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\""
            ),
            "{printed}"
        );
        assert!(
            !printed.contains("@own(float %a) #0 \"denormal"),
            "{printed}"
        );
    }

    #[test]
    fn fp_contract_fast_is_written_as_contract_on_each_multiply_and_add() {
        let text = "\
define float @f(float %a, float %b) {
  %p = fmul float %a, %b
  %s = fadd nnan float %p, %b
  %q = fdiv float %s, %b
  ret float %q
}
";
        let mut m = semfuzz_llir::parse(&SourceFile::new("t.ll", text)).unwrap();
        let run = &run_lines("; RUN: llc < %s -mcpu=sm_80 -fp-contract=fast | FileCheck %s\n")[0];
        configured(&mut m, run);
        let printed = m.to_string();
        assert!(printed.contains("fmul contract float"), "{printed}");
        assert!(printed.contains("fadd nnan contract float"), "{printed}");
        assert!(printed.contains("fdiv float"), "{printed}");
    }

    #[test]
    fn modelled_licences_reach_the_compiler_and_the_others_skip_the_configuration() {
        // The reader reads these off the compiler's flags (semfuzz_llir::Licences).
        for passed in [
            "-nvptx-ftz-atomics=strict",
            "-nvptx-allow-ftz-atomics=false",
            "-nvptx-ftz-atomics=legacy-f32-add",
            "-nvptx-ftz-atomics=fast",
            "-nvptx-allow-ftz-atomics",
            "-nvptx-prec-divf32=0",
            "-nvptx-prec-sqrtf32=0",
        ] {
            assert_eq!(classify(passed), Flag::Pass, "{passed}");
        }
        for licence in ["-nvptx-approx-log2f32", "-enable-unsafe-fp-math"] {
            assert!(matches!(classify(licence), Flag::Licence(_)), "{licence}");
        }
    }

    #[test]
    fn reasons_drop_the_location_only() {
        assert_eq!(
            reason("unsupported type ptr at f16-instructions.ll:12:3"),
            "unsupported type ptr"
        );
        assert_eq!(
            reason("LLVM 22 does not know sm_20"),
            "LLVM 22 does not know sm_20"
        );
    }
}
