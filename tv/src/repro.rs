//! `validate-llc --repro DIR`: one directory per confirmed counterexample, with everything an
//! upstream LLVM bug report needs, and the report itself (also what `--report` posts and the
//! dashboard shows: one generator, [`report`]).
//!
//! The reproducer is the function's minimal module (`f.ll`, as compiled and judged) and the one
//! `llc` command a maintainer runs on it. Before a report is written, that command
//! is replayed on that file with the same compiler ([`Case::replay`]), and the report says
//! whether the PTX it gives is the PTX judged.

use crate::compile::{Compiler, Llc};
use crate::{independent, Counterexample, Verdict};
use anyhow::{anyhow, Result};
use semfuzz_llir::syntax::{Function, Statement, Type};
use semfuzz_spec::ir::PartKind;
use semfuzz_spec::outcome::{classify, Accept, Mismatch};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What one counterexample was found on.
pub struct Case<'a> {
    /// The IR function's name where it was found (names the directory and the title).
    pub func: &'a str,
    /// Its name in the minimal module (`f`): the reproducer's files are `f.ll` and `f.ptx`.
    pub short: &'a str,
    /// The target.
    pub sm: &'a str,
    /// The minimal module, as compiled and judged.
    pub ll_text: &'a str,
    /// The PTX the compiler wrote, as judged.
    pub ptx_text: &'a str,
    /// The compiler.
    pub compiler: &'a Compiler,
}

/// What replaying the reproducer's command gave.
pub enum Replay {
    /// The PTX judged, byte for byte (the compiler's banner comment aside).
    Same,
    /// Other PTX: this.
    Different(String),
    /// No PTX: why.
    Failed(String),
}

impl Case<'_> {
    fn ll_name(&self) -> String {
        format!("{}.ll", self.short)
    }

    fn ptx_name(&self) -> String {
        format!("{}.ptx", self.short)
    }

    /// `llc -O2 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 f.ll -o f.ptx`.
    pub fn command(&self) -> String {
        self.compiler
            .command(&self.ll_name(), &self.ptx_name(), self.sm, self.ll_text)
    }

    /// For a compiler that is a Python library's LLVM, the one line that reproduces with that
    /// library as semfuzz ran it: Triton's wheel (`pip install triton==3.9.0`).
    pub fn python_line(&self) -> Option<String> {
        matches!(self.compiler.llc, Llc::Triton).then(|| {
            format!(
                "python3 -c \"from triton._C.libtriton import llvm; llvm.init_targets(); \
                 print(llvm.translate_to_asm(open('{}').read(), 'nvptx64-nvidia-cuda', '{}', '', \
                 [], False, False, False))\" > {}",
                self.ll_name(),
                self.sm,
                self.ptx_name()
            )
        })
    }

    /// Writes the minimal module into `dir` and runs [`Case::command`] there with the same
    /// compiler, comparing its PTX with the judged one.
    pub fn replay(&self, dir: &Path) -> Result<Replay> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
        std::fs::write(dir.join(self.ll_name()), self.ll_text)?;
        let _ = std::fs::remove_file(dir.join(self.ptx_name()));
        Ok(
            match self
                .compiler
                .replay(dir, &self.ll_name(), &self.ptx_name(), self.sm)
            {
                Ok(p) if same_ptx(&p, self.ptx_text) => Replay::Same,
                Ok(p) => Replay::Different(p),
                Err(why) => Replay::Failed(why),
            },
        )
    }
}

/// The PTX without the comment lines it opens with (the compiler's banner).
fn without_banner(ptx: &str) -> &str {
    let mut rest = ptx;
    while rest.starts_with("//") {
        rest = rest.split_once('\n').map_or("", |(_, r)| r);
    }
    rest
}

/// Whether two compilers' PTX is the same, the banner comment they open with aside.
pub fn same_ptx(a: &str, b: &str) -> bool {
    without_banner(a) == without_banner(b)
}

/// The function's body in a PTX module: from its `.visible` line on.
fn body(ptx: &str) -> String {
    let b = ptx.find(".visible").map_or(ptx, |i| &ptx[i..]);
    b.trim_end().to_string() + "\n"
}

/// Writes `DIR/FUNC-sm_XX-llvmN/`: `f.ll` (the minimal module), `f.ptx` (the PTX judged),
/// `llc.sh` (the command), `counterexample.json` and `REPORT.md`; returns the directory.
pub fn write(
    dir: &Path,
    case: &Case,
    verdict: &Verdict,
    cex: &Counterexample,
    replay: &Replay,
) -> Result<PathBuf> {
    let out = dir.join(format!(
        "{}-{}-{}{}",
        case.func,
        case.sm,
        if case.compiler.is_llvm() {
            "llvm"
        } else {
            "nvvm"
        },
        case.compiler.major()
    ));
    std::fs::create_dir_all(&out).map_err(|e| anyhow!("cannot create {}: {e}", out.display()))?;
    let command = case.command();
    std::fs::write(out.join(case.ll_name()), case.ll_text)?;
    std::fs::write(out.join(case.ptx_name()), case.ptx_text)?;
    let which = match &case.compiler.commit {
        _ if !case.compiler.is_llvm() => {
            // The driver the command runs, beside it.
            std::fs::write(out.join("nvvm.py"), crate::compile::NVVM_PY)?;
            format!(
                "{} through semfuzz's driver nvvm.py (beside this script), with the CUDA \
                 wheel's libNVVM and cuda-bindings on PYTHONPATH",
                case.compiler.llvm()
            )
        }
        Some(commit) => format!(
            "the llc of llvm-project at {commit} (LLVM {}); semfuzz compiled with {}, which \
             bundles it; LLC=path/to/llc ./llc.sh names it",
            case.compiler.version,
            case.compiler.label()
        ),
        None => format!(
            "LLVM {}'s llc (semfuzz compiled with {}); LLC=llc-{} ./llc.sh names it",
            case.compiler.version,
            case.compiler.label(),
            case.compiler.major()
        ),
    };
    let python = case
        .python_line()
        .map(|l| format!("# or, with the wheel semfuzz ran:\n# {l}\n"))
        .unwrap_or_default();
    std::fs::write(
        out.join("llc.sh"),
        format!(
            "#!/bin/sh\n# {which}\n{python}{}\n",
            if case.compiler.is_llvm() {
                command.replacen("llc", "${LLC:-llc}", 1)
            } else {
                command.clone()
            }
        ),
    )?;
    let types = param_types(case);
    let json = serde_json::json!({
        "function": case.func,
        "target": case.sm,
        "llc": case.compiler.label(),
        "llvm": case.compiler.llvm(),
        "python": case.python_line(),
        "command": command,
        "replayed": match replay {
            Replay::Same => "the same PTX".to_string(),
            Replay::Different(_) => "DIFFERENT PTX".to_string(),
            Replay::Failed(why) => format!("FAILED: {why}"),
        },
        "inputs": cex.inputs.iter().enumerate().map(|(k, i)| serde_json::json!({
            "name": i.name, "bits": format!("{:#x}", i.bits),
            "decimal": decimal(types.get(k), i.bits), "value": i.value,
        })).collect::<Vec<_>>(),
        "results": cex.parts.iter().map(|p| serde_json::json!({
            "name": p.name, "ir_allows": p.allows, "ptx_computes": p.computes,
            "ptx_bits": format!("{:#x}", p.bits),
        })).collect::<Vec<_>>(),
        "seconds": verdict.seconds,
    });
    std::fs::write(
        out.join("counterexample.json"),
        serde_json::to_string_pretty(&json)? + "\n",
    )?;
    std::fs::write(out.join("REPORT.md"), report(case, cex, replay))?;
    Ok(out)
}

/// The minimal module's function (it parsed when it was compiled).
fn function(case: &Case) -> Option<Function> {
    let file = semfuzz_spec::diag::SourceFile::new("f.ll", case.ll_text);
    let m = semfuzz_llir::parse(&file).ok()?;
    m.functions.into_iter().find(|f| f.name == case.short)
}

/// The IR types of the function's parameters, in order.
fn param_types(case: &Case) -> Vec<Type> {
    function(case).map_or_else(Vec::new, |f| f.params.into_iter().map(|p| p.ty).collect())
}

/// `bits` in decimal where `ty` is an integer: unsigned, and signed where the sign bit is set
/// (a float's value is in its description); empty otherwise.
fn decimal(ty: Option<&Type>, bits: u64) -> String {
    let Some(Type::Int(w)) = ty else {
        return String::new();
    };
    let unsigned = if *w >= 64 {
        bits
    } else {
        bits & ((1 << w) - 1)
    };
    if *w < 64 && unsigned >> (w - 1) == 1 {
        format!("{unsigned} (signed {})", unsigned as i64 - (1i64 << w))
    } else if *w == 64 && (unsigned as i64) < 0 {
        format!("{unsigned} (signed {})", unsigned as i64)
    } else {
        unsigned.to_string()
    }
}

/// The bug report, in the shape LLVM's issue tracker asks for: a title, the reproducer and the
/// command (replayed), what was expected and what happened, LangRef's words for the IR, an
/// independent recomputation, and the readings it rests on. `REPORT.md` of the reproducer, and
/// what `--report` posts.
pub fn report(case: &Case, cex: &Counterexample, replay: &Replay) -> String {
    let c = case.compiler;
    let mut r = String::new();
    let func = function(case);
    let params = func.as_ref().map_or_else(Vec::new, |f| f.params.clone());
    let (tag, back_end) = if c.is_llvm() {
        ("NVPTX", "the NVPTX back end")
    } else {
        ("libNVVM", "libNVVM")
    };
    let _ = writeln!(
        r,
        "# [{tag}] `{}` at {}: the PTX returns a value the IR does not allow\n",
        case.func, case.sm
    );
    let _ = writeln!(
        r,
        "Found by `semfuzz validate-llc` with {}: it proves, for every input, that the PTX \
         {back_end} emits returns only what LangRef allows the IR function to return, \
         and on this function and target it found inputs where it does not.\n",
        c.label()
    );
    let _ = writeln!(
        r,
        "## Reproducer\n\n`{}`:\n\n```llvm\n{}```\n",
        case.ll_name(),
        case.ll_text
    );
    match (&c.commit, case.python_line()) {
        (Some(commit), Some(python)) => {
            let _ = writeln!(
                r,
                "With the `llc` of LLVM trunk at llvm-project commit `{commit}` ({}):\n\n\
                 ```sh\n{}\n```\n\n\
                 semfuzz compiled with the LLVM that Triton 3.9.0's wheel bundles, which is that \
                 commit; with the wheel (`pip install triton==3.9.0`, no GPU needed):\n\n\
                 ```sh\n{python}\n```\n\n\
                 Triton's `translate_to_asm` builds the target machine at `-O3` with two \
                 `TargetOptions` llc's defaults lack, `NoNaNsFPMath` and `TrapUnreachable`; \
                 should this `llc` line give other PTX than the wheel, the difference is \
                 there (llc's `-enable-no-nans-fp-math`, `-trap-unreachable`).\n",
                c.version,
                case.command()
            );
        }
        _ if !c.is_llvm() => {
            let _ = writeln!(
                r,
                "With {} through semfuzz's driver `tv/src/nvvm.py` (nvvmCompileProgram \
                 with these options; the module as libNVVM reads it, docs/nvvm.md):\n\n\
                 ```sh\n{}\n```\n",
                c.llvm(),
                case.command()
            );
        }
        _ => {
            let _ = writeln!(
                r,
                "With LLVM {}'s `llc`:\n\n```sh\n{}\n```\n",
                c.version,
                case.command()
            );
        }
    }
    let how = match c.llc {
        Llc::Llvmlite => format!(
            "{}: llvmlite's NVPTX target machine at -O2 for {}, what this `llc` line does",
            c.label(),
            case.sm
        ),
        Llc::Triton => format!(
            "{}: the Python line above, which is what semfuzz ran",
            c.label()
        ),
        Llc::Binary(_) | Llc::Nvvm | Llc::Nvcc => {
            format!("{}, with exactly these options", c.label())
        }
    };
    match replay {
        Replay::Same => {
            let _ = writeln!(
                r,
                "semfuzz ran this command on this file with the same compiler ({how}) before \
                 writing this report, and it emitted the PTX semfuzz judged, byte for byte; its \
                 function:\n\n```ptx\n{}```\n",
                body(case.ptx_text)
            );
        }
        Replay::Different(other) => {
            let _ = writeln!(
                r,
                "**WARNING: this command, run on this file with the same compiler ({how}), \
                 emitted PTX OTHER than the PTX semfuzz judged. The verdict below is about the \
                 judged PTX; check before filing.** The judged function:\n\n```ptx\n{}```\n\n\
                 What the command emitted:\n\n```ptx\n{}```\n",
                body(case.ptx_text),
                body(other)
            );
        }
        Replay::Failed(why) => {
            let _ = writeln!(
                r,
                "**WARNING: semfuzz could not run this command on this file with the same \
                 compiler ({how}): {why}. The verdict below is about the PTX it judged; check \
                 before filing.** The judged function:\n\n```ptx\n{}```\n",
                body(case.ptx_text)
            );
        }
    }
    let _ = writeln!(r, "## Inputs\n\n| input | bits | value |\n|---|---|---|");
    for (k, i) in cex.inputs.iter().enumerate() {
        // A parameter by its IR name and type; what is left (`a.hi`, the bits a caller leaves
        // above a promoted half) by the counterexample's name.
        let (name, value) = match params.get(k) {
            Some(
                p @ semfuzz_llir::syntax::Param {
                    ty: Type::Int(_), ..
                },
            ) => (
                format!("`%{}` ({})", p.name, p.ty),
                decimal(Some(&p.ty), i.bits),
            ),
            Some(p) => (format!("`%{}` ({})", p.name, p.ty), i.value.clone()),
            None => (format!("`{}`", i.name), i.value.clone()),
        };
        let _ = writeln!(r, "| {name} | `{:#x}` | {value} |", i.bits);
    }
    let ret = func.as_ref().map(|f| f.ret.clone());
    let _ = writeln!(r, "\n## Expected and actual\n");
    for p in &cex.parts {
        let (allows, computes) = match (&ret, &p.source) {
            (Some(t @ Type::Int(_)), Accept::Exact(b)) => (
                format!("{b:#x} = {}", decimal(Some(t), *b)),
                format!("{:#x} = {}", p.bits, decimal(Some(t), p.bits)),
            ),
            _ => (
                p.allows.clone(),
                format!("{} (bits `{:#x}`)", p.computes, p.bits),
            ),
        };
        let _ = writeln!(
            r,
            "- `{}`: the IR allows {allows}; the PTX computes {computes}.",
            p.name
        );
    }
    if let Some(f) = &func {
        let quotes = langref_quotes(f);
        if !quotes.is_empty() {
            let _ = writeln!(
                r,
                "\n## What LangRef says\n\nThe IR's value follows from these sentences of the \
                 LLVM Language Reference (`spec/isa-docs/llvm-langref-*.md`, quoted word for \
                 word), one per instruction of the function:\n"
            );
            for (what, quote) in quotes {
                let _ = writeln!(r, "- {what}:\n{}\n", blockquote(&quote));
            }
        }
    }
    let _ = writeln!(r, "## Independent confirmation\n");
    let inputs: Vec<u64> = cex
        .inputs
        .iter()
        .take(params.len())
        .map(|i| i.bits)
        .collect();
    let ptx_bits: Vec<u64> = cex.parts.iter().map(|p| p.bits).collect();
    let rec = independent::recompute(case.ll_text, case.short, &inputs, &ptx_bits);
    let _ = writeln!(r, "{}\n", rec.summary());
    if !rec.trace.is_empty() {
        let _ = writeln!(r, "```\n{}\n```\n", rec.trace.join("\n"));
    }
    let _ = writeln!(
        r,
        "semfuzz's evaluators confirmed both values on these inputs with its executable \
         semantics (LangRef for the IR, the PTX ISA for the PTX): the PTX's value is the one the \
         PTX ISA specifies for this PTX; it was not run on a GPU."
    );
    if cex.target_picked {
        let _ = writeln!(
            r,
            "\n**The PTX's value follows one pick of a value the PTX ISA leaves open** (an \
             unspecified NaN, an approximation such as `rcp.approx` within its bound), read by a \
             later instruction: the ISA allows the PTX this value, but a GPU computes one pick \
             and may return another. Run the PTX on a GPU before filing this."
        );
    }
    let readings = readings(func.as_ref(), cex);
    if !readings.is_empty() {
        let _ = writeln!(r, "\n## Readings this verdict rests on\n");
        for l in readings {
            let _ = writeln!(r, "- {l}");
        }
    }
    r
}

/// `text` as a Markdown block quote.
fn blockquote(text: &str) -> String {
    text.lines()
        .map(|l| format!("  > {l}").trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// For each distinct instruction of `f` (an opcode, or an intrinsic's family), the LangRef
/// heading it is under and the first paragraph of its semantics, with the paragraphs that
/// speak of the flags it carries (`nsw`, `exact`).
fn langref_quotes(f: &Function) -> Vec<(String, String)> {
    let mut seen = Vec::new();
    let mut quotes = Vec::new();
    for s in &f.body {
        let Statement::Instr(i) = s else { continue };
        let name = match &i.callee {
            Some(c) => {
                let mut parts = c.split('.');
                match (parts.next(), parts.next()) {
                    (Some("llvm"), Some(op)) => format!("llvm.{op}.*"),
                    _ => continue,
                }
            }
            None if i.opcode == "ret" => continue,
            None => i.opcode.clone(),
        };
        let flags: Vec<&str> = i
            .flags
            .iter()
            .map(String::as_str)
            .filter(|f| !matches!(*f, "tail" | "musttail" | "notail"))
            .collect();
        let key = format!("{name} {}", flags.join(" "));
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        if let Some((file, heading, quote)) = semantics(&name, &flags) {
            let what = if flags.is_empty() {
                format!("`{name}` ({file}, {heading})")
            } else {
                format!("`{name} {}` ({file}, {heading})", flags.join(" "))
            };
            quotes.push((what, quote));
        }
    }
    quotes
}

/// The LangRef section of `name` (`sext`, `llvm.fma.*`) in the excerpt semfuzz's IR specs
/// quote: its file, its heading, and its semantics' first paragraph with those naming `flags`.
fn semantics(name: &str, flags: &[&str]) -> Option<(&'static str, String, String)> {
    let named = [format!("'`{name}`'"), format!("'`{name} .. to`'")];
    for (file, text) in semfuzz_spec::coverage::EXCERPT {
        if !file.starts_with("llvm-langref") {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        let Some(h) = lines
            .iter()
            .position(|l| l.starts_with('#') && named.iter().any(|n| l.contains(n.as_str())))
        else {
            continue;
        };
        let level = lines[h].chars().take_while(|c| *c == '#').count();
        let end = lines[h + 1..]
            .iter()
            .position(|l| {
                l.starts_with('#') && l.chars().take_while(|c| *c == '#').count() <= level
            })
            .map_or(lines.len(), |k| h + 1 + k);
        let mut section = &lines[h + 1..end];
        // Where the section has a "Semantics:" part, that part.
        if let Some(s) = section
            .iter()
            .position(|l| l.starts_with('#') && l.contains("Semantics"))
        {
            let after = &section[s + 1..];
            let stop = after
                .iter()
                .position(|l| l.starts_with('#'))
                .unwrap_or(after.len());
            section = &after[..stop];
        }
        let paragraphs = paragraphs(section);
        let mut quote: Vec<&String> = paragraphs.iter().take(1).collect();
        for p in paragraphs.iter().skip(1) {
            if flags.iter().any(|f| p.contains(&format!("`{f}`"))) {
                quote.push(p);
            }
        }
        let heading = lines[h].trim_start_matches('#').trim().replace('`', "");
        let text = quote
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        return Some((file, heading, text));
    }
    None
}

/// The prose paragraphs of `lines` (code blocks left out).
fn paragraphs(lines: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut code = false;
    for l in lines {
        if l.starts_with("```") {
            code = !code;
            continue;
        }
        if code || l.starts_with("<a id") {
            continue;
        }
        if l.trim().is_empty() {
            if !cur.is_empty() {
                out.push(cur.join("\n"));
                cur.clear();
            }
        } else {
            cur.push(l);
        }
    }
    if !cur.is_empty() {
        out.push(cur.join("\n"));
    }
    out
}

/// The readings of docs/llc-validation.md ("Readings of LangRef", "Readings of the PTX
/// manual") this counterexample rests on, each as a plain sentence.
fn readings(f: Option<&Function>, cex: &Counterexample) -> Vec<String> {
    let mut out = Vec::new();
    let page = "docs/llc-validation.md";
    if cex.parts.iter().any(|p| {
        matches!(p.kind, PartKind::Float(_))
            && classify(p.kind, &p.source, p.bits) == Mismatch::WrongNan
    }) {
        out.push(format!(
            "This verdict rests on a reading of the PTX manual ({page}, \"Readings of the PTX \
             manual\", 13): semfuzz reads the PTX's NaN result as any NaN, where the manual \
             does not promise that `neg`, `abs`, `copysign` or `mul` by one keeps a NaN's \
             payload; under the other reading (they are bit operations) this is no bug."
        ));
    }
    let Some(f) = f else { return out };
    let subnormal_input = cex.inputs.iter().any(|i| i.value.contains("subnormal"));
    let flushing = f.attrs.iter().any(|a| a.to_string().contains("denormal"))
        || cex.parts.iter().any(|p| {
            matches!(
                classify(p.kind, &p.source, p.bits),
                Mismatch::FtzNotApplied | Mismatch::FtzOverApplied
            )
        });
    if subnormal_input && flushing {
        out.push(format!(
            "This verdict may rest on a reading of LangRef ({page}, \"Readings of LangRef\", \
             11): semfuzz holds the compiler to \"a floating-point operation must treat any \
             input denormal value as zero\" under a flushing \"denormal-fp-math\" on every \
             type; under the other reading (the attribute states the mode the function will run \
             in, which a GPU cannot set for every type) this is no bug."
        ));
    }
    let fast_fdiv = f.body.iter().any(|s| {
        matches!(s, Statement::Instr(i) if i.opcode == "fdiv"
            && i.flags.iter().any(|w| matches!(w.as_str(), "fast" | "arcp" | "afn")))
    });
    if fast_fdiv {
        out.push(format!(
            "This verdict rests on a reading of LangRef ({page}, \"Readings of LangRef\", 12): \
             semfuzz reads `arcp` as allowing `a * (1.0 / b)` and `afn` as not applying to \
             `fdiv`; under LLVM's reading (they license an approximate division) this is no \
             bug."
        ));
    }
    out
}
