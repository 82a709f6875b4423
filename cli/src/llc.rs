//! `semfuzz validate-llc [FILE.ll ...]`: translation validation of LLVM's NVPTX back end. Each
//! IR function is compiled for each target (llvmlite's LLVM through its target machine, or an
//! `llc` binary), the PTX function it becomes is read with `semfuzz-ptx`, the IR function with
//! `semfuzz-llir`, and the rule `@f.ll:FUNC d, a, b => @f-sm_XX.ptx:FUNC d, a, b` (the PTX
//! refines the IR: every result the PTX may produce is one the IR allows, for every input) is
//! posed to the prover `semfuzz prove` uses, on its default route.
//!
//! Without files, a built-in catalogue is generated: each operation × type, in the spellings
//! that may select other PTX (no flags, `fast`, and the preserve-sign denormal attributes).
//! The `fast` spelling is skipped at a target where its PTX is that of the spelling without
//! flags: its IR allows at least what that one allows (a fast-math flag only adds results,
//! docs/llvm-ir-spec.md), so the stricter proof covers it. The denormal spelling is always
//! validated: preserve-sign inputs *must* be read as zero, so it allows different results.

use crate::eval::describe_operand;
use anyhow::{anyhow, Result};
use semfuzz_smt::rules;
use semfuzz_smt::sequence;
use semfuzz_smt::solve::{Answer, Options};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::ir::Slot;
use semfuzz_spec::outcome::{describe, describe_accept};
use semfuzz_spec::Spec;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every target LLVM's NVPTX back end knows of that semfuzz validates by default.
pub const TARGETS: &str = "sm_50,sm_60,sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120";

/// The llvmlite driver, run by `python3`.
const LLC_PY: &str = include_str!("llc.py");

/// The triple every compile targets.
const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// What compiles IR to PTX.
enum Llc {
    /// llvmlite's LLVM in one `python3` process.
    Llvmlite,
    /// An `llc` executable (a name on `PATH`, or a path).
    Binary(String),
}

impl Llc {
    fn parse(text: &str) -> Llc {
        match text {
            "llvmlite" => Llc::Llvmlite,
            other => Llc::Binary(other.to_string()),
        }
    }

    /// The command line that compiles `ll` for `sm`, as a person would run it.
    fn command(&self, ll: &Path, sm: &str) -> String {
        let llc = match self {
            Llc::Llvmlite => "llc",
            Llc::Binary(b) => b,
        };
        format!("{llc} -O2 -mtriple={TRIPLE} -mcpu={sm} {}", ll.display())
    }

    /// Each module compiled for each target: `ptx[sm][module]`, the PTX or why not; and the
    /// compiler's name and version.
    #[allow(clippy::type_complexity)]
    fn compile(
        &self,
        modules: &[(String, PathBuf, String)],
        sms: &[String],
    ) -> Result<(
        HashMap<String, HashMap<String, Result<String, String>>>,
        String,
    )> {
        match self {
            Llc::Llvmlite => {
                let py = semfuzz_backend::python_deps("llvmlite").map_err(|e| {
                    anyhow!("{e}\n  hint: `cargo xtask setup` installs llvmlite into .deps/py")
                })?;
                let req = serde_json::json!({
                    "sms": sms,
                    "modules": modules.iter().map(|(k, _, t)| (k, t)).collect::<Vec<_>>(),
                });
                let mut child = Command::new("python3")
                    .env("PYTHONPATH", py)
                    .arg("-c")
                    .arg(LLC_PY)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| anyhow!("cannot run python3: {e}"))?;
                child
                    .stdin
                    .take()
                    .expect("piped")
                    .write_all(req.to_string().as_bytes())?;
                let out = child.wait_with_output()?;
                if !out.status.success() {
                    return Err(anyhow!(
                        "llvmlite failed: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
                let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
                let mut all = HashMap::new();
                for sm in sms {
                    let mut per = HashMap::new();
                    for (k, _, _) in modules {
                        let r = &v["ptx"][sm][k];
                        per.insert(
                            k.clone(),
                            match r["ptx"].as_str() {
                                Some(p) => Ok(p.to_string()),
                                None => Err(r["error"].as_str().unwrap_or("no output").to_string()),
                            },
                        );
                    }
                    all.insert(sm.clone(), per);
                }
                let version = v["version"].as_str().unwrap_or("?");
                Ok((all, format!("llvmlite, LLVM {version}")))
            }
            Llc::Binary(b) => {
                let version = Command::new(b)
                    .arg("--version")
                    .output()
                    .map_err(|e| anyhow!("cannot run `{b}`: {e}\n  hint: --llc takes llvmlite, an llc on PATH (llc-16) or a path"))?;
                let text = String::from_utf8_lossy(&version.stdout);
                let version = text
                    .lines()
                    .find_map(|l| l.split_once("LLVM version ").map(|(_, v)| v.trim()))
                    .unwrap_or("?")
                    .to_string();
                let mut all = HashMap::new();
                for sm in sms {
                    let mut per = HashMap::new();
                    for (k, ll, _) in modules {
                        let out = Command::new(b)
                            .args(["-O2", &format!("-mtriple={TRIPLE}"), &format!("-mcpu={sm}")])
                            .arg(ll)
                            .args(["-o", "-"])
                            .output()?;
                        per.insert(
                            k.clone(),
                            if out.status.success() {
                                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
                            } else {
                                let err = String::from_utf8_lossy(&out.stderr);
                                Err(without_addresses(err.lines().next().unwrap_or("failed")))
                            },
                        );
                    }
                    all.insert(sm.clone(), per);
                }
                Ok((all, format!("{b}, LLVM {version}")))
            }
        }
    }
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

/// One function to validate.
struct Unit {
    /// The IR function's name.
    func: String,
    /// The module it is in (a key of the compiled output).
    module: String,
    /// The `.ll` file it was read from.
    ll: PathBuf,
    /// The `.ll` file compiled: the function alone with what it needs.
    compiled: PathBuf,
    /// The catalogue's operation × type it spells (`fadd_f32`), for deduplication; `None` for
    /// functions of files.
    group: Option<String>,
}

/// The built-in catalogue: (function name, operation × type, module text).
fn catalogue() -> Vec<(String, String, String)> {
    let types = [
        ("half", "f16"),
        ("bfloat", "bf16"),
        ("float", "f32"),
        ("double", "f64"),
    ];
    // (name, arity, how the result is computed from the IR type and operands)
    let ops: [(&str, usize, &str); 9] = [
        ("fadd", 2, "fadd FLAGS T %a, %b"),
        ("fsub", 2, "fsub FLAGS T %a, %b"),
        ("fmul", 2, "fmul FLAGS T %a, %b"),
        ("fdiv", 2, "fdiv FLAGS T %a, %b"),
        ("fneg", 1, "fneg FLAGS T %a"),
        ("fma", 3, "call FLAGS T @llvm.fma.S(T %a, T %b, T %c)"),
        ("fabs", 1, "call FLAGS T @llvm.fabs.S(T %a)"),
        ("minnum", 2, "call FLAGS T @llvm.minnum.S(T %a, T %b)"),
        ("maximum", 2, "call FLAGS T @llvm.maximum.S(T %a, T %b)"),
    ];
    // Spellings, strictest first: the flags on the instruction, the function's attributes.
    let spellings = [
        ("", "", ""),
        ("_fast", "fast", ""),
        (
            "_ftz",
            "",
            " \"denormal-fp-math\"=\"preserve-sign,preserve-sign\" \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\"",
        ),
    ];
    let mut out = Vec::new();
    for (op, arity, body) in ops {
        for (ty, tag) in types {
            for (suffix, flags, attrs) in spellings {
                let name = format!("{op}_{tag}{suffix}");
                let params: Vec<String> = ["a", "b", "c"][..arity]
                    .iter()
                    .map(|p| format!("{ty} %{p}"))
                    .collect();
                let instr = body
                    .replace(
                        "FLAGS ",
                        &if flags.is_empty() {
                            String::new()
                        } else {
                            format!("{flags} ")
                        },
                    )
                    .replace("@llvm.fma.S", &format!("@llvm.fma.{tag}"))
                    .replace(".S(", &format!(".{tag}("))
                    .replace('T', ty);
                let decl = instr.find('@').map(|at| {
                    let callee = &instr[at..instr.find('(').unwrap_or(instr.len())];
                    let tys = vec![ty; arity].join(", ");
                    format!("declare {ty} {callee}({tys})\n")
                });
                let attrs = if attrs.is_empty() {
                    String::new()
                } else {
                    " #0".into()
                };
                let group = if suffix == "_ftz" {
                    format!("\nattributes #0 = {{{} }}\n", spellings[2].2)
                } else {
                    String::new()
                };
                let text = format!(
                    "define {ty} @{name}({}){attrs} {{\n  %r = {instr}\n  ret {ty} %r\n}}\n{}{group}",
                    params.join(", "),
                    decl.unwrap_or_default()
                );
                // The denormal attributes change what the IR allows both ways (LangRef: inputs
                // "must" be treated as zero, outputs "may" be flushed), so a spelling under them
                // is deduplicated only against itself.
                let group = if suffix == "_ftz" {
                    format!("{op}_{tag}_ftz")
                } else {
                    format!("{op}_{tag}")
                };
                out.push((name, group, text));
            }
        }
    }
    out
}

/// A verdict of one function at one target.
#[derive(Clone)]
struct Verdict {
    kind: &'static str,
    detail: String,
    seconds: f64,
    /// A counterexample's report, printed under its line.
    report: Vec<String>,
}

/// What `validate-llc` was asked.
pub struct Args {
    /// `.ll` files (none: the built-in catalogue).
    pub files: Vec<PathBuf>,
    /// `llvmlite`, an llc name or a path.
    pub llc: String,
    /// Targets, comma-separated.
    pub sms: String,
    /// Where to write the verdicts as JSON.
    pub json: Option<PathBuf>,
    /// Where the `.ll` and `.ptx` files go.
    pub work: PathBuf,
}

/// Validates every function at every target; `Ok(false)` on a counterexample or an unknown.
pub fn run(spec: &Spec, args: &Args, opts: &Options) -> Result<bool> {
    let llc = Llc::parse(&args.llc);
    let sms: Vec<String> = args
        .sms
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if let Some(bad) = sms.iter().find(|s| {
        !s.strip_prefix("sm_")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
    }) {
        return Err(anyhow!(
            "--sm: `{bad}` is not a target (write sm_70, sm_90a, ...)"
        ));
    }
    std::fs::create_dir_all(&args.work)
        .map_err(|e| anyhow!("cannot create {}: {e}", args.work.display()))?;
    let work = std::fs::canonicalize(&args.work)?;
    let mut modules = Vec::new();
    let mut units = Vec::new();
    if args.files.is_empty() {
        for (name, group, text) in catalogue() {
            let ll = work.join(format!("{name}.ll"));
            std::fs::write(&ll, &text)?;
            units.push(Unit {
                func: name.clone(),
                module: name.clone(),
                ll: ll.clone(),
                compiled: ll.clone(),
                group: Some(group),
            });
            modules.push((name, ll, text));
        }
    } else {
        for f in &args.files {
            let text = std::fs::read_to_string(f)
                .map_err(|e| anyhow!("cannot read {}: {e}", f.display()))?;
            let ll = std::fs::canonicalize(f)?;
            let module =
                semfuzz_llir::parse(&SourceFile::new(f.display().to_string(), text.as_str()))?;
            let stem = f
                .file_stem()
                .map_or("module".into(), |s| s.to_string_lossy().into_owned());
            // Each function compiled alone (with the module's declarations and attribute
            // groups): a function the back end cannot select fails only itself.
            for func in &module.functions {
                let alone = semfuzz_llir::Module {
                    lines: module.lines.clone(),
                    groups: module.groups.clone(),
                    functions: vec![func.clone()],
                };
                let key = format!("{stem}.{}", func.name);
                let compiled = work.join(format!("{key}.ll"));
                std::fs::write(&compiled, alone.to_string())?;
                units.push(Unit {
                    func: func.name.clone(),
                    module: key.clone(),
                    ll: ll.clone(),
                    compiled: compiled.clone(),
                    group: None,
                });
                modules.push((key, compiled, alone.to_string()));
            }
        }
    }
    let (ptx, compiler) = llc.compile(&modules, &sms)?;
    let mut verdicts: BTreeMap<(usize, usize), Verdict> = BTreeMap::new();
    let mut skipped = 0;
    let mut ok = true;
    for (si, sm) in sms.iter().enumerate() {
        // Per operation × type, the PTX bodies already validated at this target.
        let mut seen: HashSet<(String, String)> = HashSet::new();
        for (ui, u) in units.iter().enumerate() {
            let compiled = &ptx[sm][&u.module];
            if let (Some(g), Ok(text)) = (&u.group, compiled) {
                let body = text.replace(&u.func, "FUNC");
                let body = body[body.find(".visible").unwrap_or(0)..].to_string();
                if !seen.insert((g.clone(), body)) {
                    skipped += 1;
                    continue;
                }
            }
            let v = validate(spec, u, sm, compiled, &work, &llc, &compiler, opts)?;
            ok &= matches!(v.kind, "proved" | "unsupported");
            let detail = if v.detail.is_empty() {
                format!("{:.2}s", v.seconds)
            } else {
                v.detail.clone()
            };
            outln!("{} {sm}: {} ({detail})", u.func, v.kind);
            for l in &v.report {
                outln!("{l}");
            }
            verdicts.insert((ui, si), v);
        }
    }
    table(&units, &sms, &verdicts, skipped);
    if let Some(path) = &args.json {
        let rows: Vec<serde_json::Value> = verdicts
            .iter()
            .map(|((ui, si), v)| {
                serde_json::json!({
                    "function": units[*ui].func,
                    "target": sms[*si],
                    "verdict": v.kind,
                    "detail": v.detail,
                    "counterexample": v.report,
                    "seconds": v.seconds,
                    "llc": compiler,
                })
            })
            .collect();
        std::fs::write(path, serde_json::to_string_pretty(&rows)? + "\n")
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    }
    Ok(ok)
}

/// The operation × target table and the totals.
fn table(
    units: &[Unit],
    sms: &[String],
    verdicts: &BTreeMap<(usize, usize), Verdict>,
    skipped: usize,
) {
    let width = units.iter().map(|u| u.func.len()).max().unwrap_or(8).max(8);
    let mut head = format!("{:width$}", "function");
    for sm in sms {
        head.push_str(&format!(" {sm:>14}"));
    }
    outln!("{}", head.trim_end());
    for (ui, u) in units.iter().enumerate() {
        let cells: Vec<String> = (0..sms.len())
            .map(|si| {
                verdicts
                    .get(&(ui, si))
                    .map_or("same PTX", |v| v.kind)
                    .to_string()
            })
            .collect();
        if cells.iter().all(|c| c == "same PTX") {
            continue;
        }
        let mut line = format!("{:width$}", u.func);
        for c in cells {
            line.push_str(&format!(" {c:>14}"));
        }
        outln!("{}", line.trim_end());
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in verdicts.values() {
        *counts.entry(v.kind).or_default() += 1;
    }
    let mut totals: Vec<String> = ["proved", "counterexample", "unknown", "unsupported"]
        .iter()
        .map(|k| format!("{} {k}", counts.get(k).copied().unwrap_or(0)))
        .collect();
    if skipped > 0 {
        totals.push(format!(
            "{skipped} skipped (`fast` with the PTX of the spelling without flags)"
        ));
    }
    outln!("{}", totals.join(", "));
}

/// A rule variable's name for parameter `k` of slot `s`: the IR name where it is one.
fn var_name(s: &Slot, k: usize) -> String {
    let n = s.name.trim_start_matches('%');
    if n.starts_with(|c: char| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && n != "d"
    {
        n.to_string()
    } else {
        format!("x{k}")
    }
}

#[allow(clippy::too_many_arguments)]
fn validate(
    spec: &Spec,
    u: &Unit,
    sm: &str,
    compiled: &Result<String, String>,
    work: &Path,
    llc: &Llc,
    compiler: &str,
    opts: &Options,
) -> Result<Verdict> {
    let unsupported = |detail: String| Verdict {
        kind: "unsupported",
        detail,
        seconds: 0.0,
        report: Vec::new(),
    };
    let located = |d: &semfuzz_spec::Diagnostic| match &d.span {
        Some(s) => {
            let (line, col) = s.file.line_col(s.start);
            let file = Path::new(&s.file.name)
                .file_name()
                .map_or(s.file.name.clone(), |f| f.to_string_lossy().into_owned());
            // The verdict already says `unsupported`.
            let what = d.message.strip_prefix("unsupported ").unwrap_or(&d.message);
            format!("{what} at {file}:{line}:{col}")
        }
        None => d.message.clone(),
    };
    let ptx_text = match compiled {
        Ok(p) => p,
        Err(why) => return Ok(unsupported(format!("{compiler}: {why}"))),
    };
    let ptx_path = work.join(format!("{}-{sm}.ptx", u.module));
    std::fs::write(&ptx_path, ptx_text)?;
    let text = std::fs::read_to_string(&u.ll)?;
    let ir = match semfuzz_llir::load(spec, &u.ll.display().to_string(), &text, Some(&u.func)) {
        Ok(f) => f,
        Err(d) => return Ok(unsupported(located(&d))),
    };
    let ptx = match semfuzz_ptx::load(
        spec,
        &ptx_path.display().to_string(),
        ptx_text,
        Some(&u.func),
    ) {
        Ok(f) => f,
        Err(d) => return Ok(unsupported(format!("PTX: {}", located(&d)))),
    };
    let widths = |s: &[Slot]| s.iter().map(|s| s.width).collect::<Vec<_>>();
    if widths(&ir.inputs) != widths(&ptx.inputs) || widths(&ir.results) != widths(&ptx.results) {
        return Ok(unsupported(format!(
            "the PTX takes {:?} bits and returns {:?}, the IR {:?} and {:?}",
            widths(&ptx.inputs),
            widths(&ptx.results),
            widths(&ir.inputs),
            widths(&ir.results)
        )));
    }
    let vars: Vec<String> = ir
        .inputs
        .iter()
        .enumerate()
        .map(|(k, s)| var_name(s, k))
        .collect();
    let operands = std::iter::once("d".to_string())
        .chain(vars)
        .collect::<Vec<_>>()
        .join(", ");
    let rule_text = format!(
        "name: {}-{sm}\n  @{}:{} {operands}\n=>\n  @{}:{} {operands}\n",
        u.func,
        u.ll.display(),
        u.func,
        ptx_path.display(),
        u.func
    );
    let file = SourceFile::new(
        work.join("validate-llc.rules").display().to_string(),
        rule_text,
    );
    let rule = rules::parse(&file)
        .map_err(|e| anyhow!("{}", e[0]))?
        .remove(0);
    let proof = sequence::prove(spec, &rule, opts).map_err(|d| anyhow!("{d}"))?;
    let seconds = proof.solved.seconds;
    Ok(match &proof.solved.answer {
        Answer::Proved => Verdict {
            kind: "proved",
            detail: String::new(),
            seconds,
            report: Vec::new(),
        },
        Answer::Unknown(why) => Verdict {
            kind: "unknown",
            detail: why.clone(),
            seconds,
            report: Vec::new(),
        },
        Answer::Counterexample(values) => {
            let q = &proof.query;
            let mut lines = Vec::new();
            for i in q.inputs() {
                let v = &q.vars[i];
                let bits = values.get(&format!("in_{}", v.name)).copied().unwrap_or(0);
                lines.push(format!(
                    "    {} = {}",
                    v.name,
                    describe_operand(spec, &v.ty, bits)
                ));
            }
            let c = proof
                .confirmation
                .as_ref()
                .expect("a counterexample is confirmed");
            for p in &c.parts {
                lines.push(format!(
                    "    {}: the IR allows {}; the PTX computes {}",
                    p.name,
                    describe_accept(p.kind, &p.source),
                    describe(p.kind, p.target)
                ));
            }
            let confirmed = c.confirmed();
            lines.push(if confirmed {
                "    confirmed by both evaluators (the IR spec's and the PTX spec's)".into()
            } else {
                "    NOT confirmed by the evaluators: a semfuzz bug, please report it".into()
            });
            lines.push(format!(
                "    llc: {} ({compiler})",
                llc.command(&u.compiled, sm)
            ));
            Verdict {
                kind: if confirmed {
                    "counterexample"
                } else {
                    "unknown"
                },
                detail: String::new(),
                seconds,
                report: lines,
            }
        }
    })
}
