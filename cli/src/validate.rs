//! `semfuzz validate-ptxas INSTR... [--arch sm_XX]...`: translation validation of NVIDIA's
//! assembler. Each PTX instruction is wrapped in a kernel that loads its operands, computes
//! and stores the result; `ptxas` assembles it, `cuobjdump -sass` disassembles it, and the SASS
//! instruction that computes the result is proved to refine the PTX spec (as the rule
//! `INSTR d, a, b => SASS` would be, docs/rules.md), or refuted, or reported as having no spec.

use anyhow::{anyhow, Result};
use semfuzz_smt::rules;
use semfuzz_smt::sequence;
use semfuzz_smt::solve::{Answer, Options};
use semfuzz_spec::catalog::OperandRole;
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::Spec;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Byte distance between operands in the kernel's buffer: each operand and the result get
/// one 8-byte slot, so a load's offset names the operand.
const SLOT: u64 = 8;

/// Where `ptxas` and `cuobjdump` are: `$SEMFUZZ_CUDA_BIN`, then `.deps/py/nvidia/cu13/bin`
/// (the PyPI wheels `cargo xtask setup` installs, found as the backends find `.deps`), then
/// `PATH`.
fn tool(name: &str) -> PathBuf {
    const BIN: &str = "nvidia/cu13/bin";
    let candidates = std::env::var_os("SEMFUZZ_CUDA_BIN")
        .map(PathBuf::from)
        .into_iter()
        .chain(
            semfuzz_backend::python_deps(BIN)
                .ok()
                .map(|py| py.join(BIN)),
        );
    for dir in candidates {
        if dir.join(name).is_file() {
            return dir.join(name);
        }
    }
    PathBuf::from(name)
}

/// One verdict of the table.
enum Row {
    /// ptxas refused the kernel (the instruction does not exist for that target).
    Rejected(String),
    /// No single spec'd instruction computes the result.
    Unspecified(String),
    /// The proof's verdict, with the SASS proved against.
    Verdict(String, String, f64),
}

/// Validates every instruction on every target, printing one line each and a table; `Ok(false)`
/// when a counterexample or an `unknown` was found.
pub fn run(spec: &Spec, instrs: &[String], archs: &[String], opts: &Options) -> Result<bool> {
    let work = tempdir()?;
    let mut ok = true;
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    for instr in instrs {
        for arch in archs {
            let row = validate(spec, instr, arch, &work, opts)?;
            let (kind, line) = match &row {
                Row::Rejected(why) => ("rejected by ptxas", format!("rejected by ptxas: {why}")),
                Row::Unspecified(sass) => ("unspecified SASS", format!("{sass}: not specified")),
                Row::Verdict(v, sass, secs) => {
                    ok &= v == "proved";
                    let kind = match v.as_str() {
                        "proved" => "proved",
                        "counterexample" => "counterexample",
                        _ => "unknown",
                    };
                    (kind, format!("{sass}: {v} ({secs:.2}s)"))
                }
            };
            *counts.entry(kind).or_default() += 1;
            outln!("{instr} on {arch}: {line}");
        }
    }
    let mut table: Vec<_> = counts.into_iter().collect();
    table.sort();
    outln!(
        "{}",
        table
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = std::fs::remove_dir_all(&work);
    Ok(ok)
}

fn tempdir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("semfuzz-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

fn reg_type(width: u32) -> Option<&'static str> {
    match width {
        16 => Some("b16"),
        32 => Some("b32"),
        64 => Some("b64"),
        _ => None,
    }
}

/// The kernel computing `instr` on operands loaded from the buffer.
fn kernel(spec: &Spec, instr: &str, arch: &str) -> Result<(String, usize, u32)> {
    let v = spec
        .variants_named(instr)
        .into_iter()
        .find(|v| v.sources.iter().all(|s| s.role == OperandRole::Value) && v.dests.len() == 1)
        .ok_or_else(|| {
            anyhow!("`{instr}` is not a PTX instruction semfuzz specifies (see `semfuzz list`)")
        })?;
    let mut body = String::new();
    let mut operands = Vec::new();
    for (i, s) in v.sources.iter().enumerate() {
        let t = reg_type(s.width)
            .ok_or_else(|| anyhow!("`{instr}`: operand {} is {} bits", s.name, s.width))?;
        body.push_str(&format!(
            "  .reg .{t} %s{i};\n  ld.global.{t} %s{i}, [%rd2+{}];\n",
            SLOT * i as u64
        ));
        operands.push(format!("%s{i}"));
    }
    let d = &v.dests[0];
    let t = reg_type(d.width)
        .ok_or_else(|| anyhow!("`{instr}`: its destination is {} bits", d.width))?;
    body.push_str(&format!(
        "  .reg .{t} %d;\n  {instr} %d, {};\n  st.global.{t} [%rd2+{}], %d;\n",
        operands.join(", "),
        SLOT * v.sources.len() as u64
    ));
    let ptx = format!(
        ".version 8.8\n.target {arch}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n{body}  ret;\n}}\n"
    );
    Ok((ptx, v.sources.len(), d.width))
}

fn validate(spec: &Spec, instr: &str, arch: &str, work: &Path, opts: &Options) -> Result<Row> {
    let (ptx, n_sources, _) = kernel(spec, instr, arch)?;
    let (ptx_path, cubin) = (work.join("k.ptx"), work.join("k.cubin"));
    std::fs::write(&ptx_path, ptx)?;
    let ptxas = tool("ptxas");
    let out = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&ptx_path)
        .arg("-o")
        .arg(&cubin)
        .output()
        .map_err(|e| anyhow!("cannot run {}: {e}\n  hint: `cargo xtask setup` installs ptxas (PyPI nvidia-cuda-nvcc) into .deps/py; or set SEMFUZZ_CUDA_BIN", ptxas.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Ok(Row::Rejected(
            err.lines().next().unwrap_or("").trim().to_string(),
        ));
    }
    let cuobjdump = tool("cuobjdump");
    let out = Command::new(&cuobjdump)
        .arg("-sass")
        .arg(&cubin)
        .output()
        .map_err(|e| anyhow!("cannot run {}: {e}", cuobjdump.display()))?;
    let sass = String::from_utf8_lossy(&out.stdout);
    // Instruction lines: `/*0060*/  HMUL2 R0, R0.H0_H0, R5.H0_H0 ;  /* 0x... */`.
    let lines: Vec<String> = sass
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("/*")?.split_once("*/")?.1.trim();
            let instr = rest.split(';').next()?.trim();
            (!instr.is_empty()).then(|| instr.to_string())
        })
        .collect();
    // Registers loaded from each operand's slot.
    let mut loaded: HashMap<String, usize> = HashMap::new();
    let mut compute = Vec::new();
    for l in &lines {
        let op = l.split_whitespace().next().unwrap_or("");
        if op.starts_with("LDG") {
            let (reg, addr) = l[op.len()..].split_once(',').unwrap_or(("", ""));
            let offset = addr
                .split_once('+')
                .and_then(|(_, o)| o.trim_end_matches(']').trim().strip_prefix("0x"))
                .map_or(Some(0), |h| u64::from_str_radix(h, 16).ok());
            if let Some(o) = offset {
                loaded.insert(reg.trim().to_string(), (o / SLOT) as usize);
            }
        } else if ![
            // LDCU: sm_100 loads the kernel's parameters into uniform registers with it;
            // IMAD.MOV is how sm_86 moves a constant into a register.
            "MOV", "IMAD.MOV", "LDC", "LDCU", "ULDC", "STG", "EXIT", "BRA", "NOP", "S2R", "CS2R",
        ]
        .iter()
        .any(|p| op == *p || op.starts_with(&format!("{p}.")))
        {
            compute.push(l.clone());
        }
    }
    let [one] = compute.as_slice() else {
        return Ok(Row::Unspecified(if compute.is_empty() {
            "no computing instruction".into()
        } else {
            format!("{} (a sequence)", compute.join("; "))
        }));
    };
    let opcode = one.split_whitespace().next().unwrap_or("");
    if semfuzz_spec::sass::parse(spec, one).is_err() {
        return Ok(Row::Unspecified(opcode.to_string()));
    }
    // Registers become the rule's variables: the destination `d`, loaded ones `a`, `b`, `c`.
    let names = ["a", "b", "c", "e"];
    let ops = one[opcode.len()..].trim();
    let mut renamed = Vec::new();
    for (k, operand) in ops.split(',').enumerate() {
        let operand = operand.trim();
        if k == 0 {
            renamed.push("d".to_string());
            continue;
        }
        let mut text = operand.to_string();
        for (reg, slot) in &loaded {
            let name = names.get(*slot).copied().unwrap_or("x");
            text = replace_register(&text, reg, name);
        }
        if text.contains('R')
            && text.chars().any(|c| c.is_ascii_digit())
            && !text.contains("RZ")
            && !text.contains("c[")
        {
            return Ok(Row::Unspecified(format!(
                "{one} (reads a register not loaded from an operand)"
            )));
        }
        renamed.push(text);
    }
    let src_ops: Vec<&str> = names[..n_sources.min(names.len())].to_vec();
    let text = format!(
        "name: validate\n  {instr} d, {}\n=>\n  {opcode} {}\n",
        src_ops.join(", "),
        renamed.join(", ")
    );
    let file = SourceFile::new(format!("<{instr} on {arch}>"), text);
    let rule = rules::parse(&file)
        .map_err(|e| anyhow!("{}", e[0]))?
        .remove(0);
    let proof = sequence::prove(spec, &rule, opts).map_err(|d| anyhow!("{d}"))?;
    let verdict = match &proof.solved.answer {
        Answer::Proved => "proved".to_string(),
        Answer::Counterexample(_) => "counterexample".to_string(),
        Answer::Unknown(why) => format!("unknown ({why})"),
    };
    if let Some(c) = &proof.confirmation {
        for p in c.parts.iter().filter(|p| !p.source.accepts(p.target)) {
            outln!(
                "    lane {}: PTX allows {}; SASS produced {}",
                p.name,
                semfuzz_spec::outcome::describe_accept(p.kind, &p.source),
                semfuzz_spec::outcome::describe(p.kind, p.target)
            );
        }
    }
    Ok(Row::Verdict(verdict, one.clone(), proof.solved.seconds))
}

/// `text` with register `reg` (a whole word: `R5`, not the `R5` of `R55`) replaced by `name`.
fn replace_register(text: &str, reg: &str, name: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(reg) {
        let after = rest[i + reg.len()..].chars().next();
        let before = rest[..i].chars().last();
        out.push_str(&rest[..i]);
        if after.is_some_and(|c| c.is_ascii_digit())
            || before.is_some_and(|c| c.is_ascii_alphanumeric())
        {
            out.push_str(reg);
        } else {
            out.push_str(name);
        }
        rest = &rest[i + reg.len()..];
    }
    out.push_str(rest);
    out
}
