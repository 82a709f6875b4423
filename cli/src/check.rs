//! `semfuzz check`: results gathered elsewhere (a GPU run, a simulator log) against the spec.

use anyhow::{Context, Result};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{classify, describe, describe_accept, Accept};
use semfuzz_spec::Spec;
use std::io::{BufRead, Read};
use std::path::Path;

/// A SASS line: `INSTRUCTION; VALUE... RESULT`, the values those of the registers and
/// constants the instruction reads (see `semfuzz_spec::sass::SassInstr::values`).
fn sass_line<'s>(
    spec: &'s Spec,
    content: &'s str,
) -> Result<(&'s semfuzz_spec::Variant, Vec<u64>, &'s str), String> {
    let Some((text, rest)) = content.split_once(';') else {
        return Err(format!(
            "`{content}`: a SASS line is `INSTRUCTION; VALUE... RESULT` (the instruction ends with `;`)"
        ));
    };
    let sass = semfuzz_spec::sass::parse(spec, text).map_err(|d| {
        let mut m = d.message.clone();
        if let Some(col) = semfuzz_spec::sass::column(&d) {
            m += &format!(" (column {col})");
        }
        if let Some(h) = &d.hint {
            m += &format!(" (hint: {h})");
        }
        m
    })?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    let Some((result, values)) = words.split_last() else {
        return Err(format!("`{content}`: the result is missing after the `;`"));
    };
    let (_, inputs) = crate::sass_inputs(&sass, values)?;
    Ok((sass.variant, inputs, result))
}

/// Checks one line; `Ok(None)` for a blank or comment line.
fn check_line(spec: &Spec, line: &str) -> Result<Option<Result<(), String>>, String> {
    let content = line.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let (v, inputs, result) = if semfuzz_spec::sass::looks_like_sass(content) {
        sass_line(spec, content)?
    } else {
        let words: Vec<&str> = content.split_whitespace().collect();
        if words.len() < 2 {
            return Err(format!("`{content}`: expected `INSTR OPERAND... RESULT`"));
        }
        let (instr, rest) = (words[0], &words[1..]);
        let (operands, result) = rest.split_at(rest.len() - 1);
        let v = spec.lookup(instr, Some(operands.len())).map_err(|d| {
            let mut m = d.message;
            if let Some(h) = d.hint {
                m += &format!(" (hint: {h})");
            }
            m
        })?;
        let mut inputs = Vec::new();
        for (src, text) in v.sources.iter().zip(operands) {
            inputs.push(crate::parse_operand(
                src,
                text,
                &format!("operand {}", src.name),
            )?);
        }
        (v, inputs, result[0])
    };
    let dest = &v.program.dests[0];
    let got = crate::parse_hex(result, dest.width, &format!("result {}", dest.name))?;
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    let mut problems = Vec::new();
    for (i, (part, accept)) in dest.parts.iter().zip(&out).enumerate() {
        let bits = (got >> part.lo) & semfuzz_spec::ir::mask(part.width);
        if !accept.accepts(bits) {
            let name = dest.part_name(i);
            problems.push(format!(
                "{name} = {}, but the spec allows {} [{}]",
                describe(part.kind, bits),
                describe_accept(part.kind, accept),
                classify(part.kind, accept, bits)
            ));
        }
    }
    Ok(Some(if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{content}: {}", problems.join("; ")))
    }))
}

pub fn run(spec: &Spec, file: Option<&Path>) -> Result<bool> {
    let mut text = String::new();
    match file {
        Some(p) if p != Path::new("-") => {
            text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
        }
        _ => {
            std::io::stdin()
                .lock()
                .read_to_string(&mut text)
                .context("cannot read standard input")?;
        }
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    for (n, line) in text.as_bytes().lines().enumerate() {
        let line = line.unwrap_or_default();
        match check_line(spec, &line) {
            Ok(None) => {}
            Ok(Some(Ok(()))) => {
                passed += 1;
                outln!("ok");
            }
            Ok(Some(Err(why))) => {
                failed += 1;
                outln!("mismatch: line {}: {why}", n + 1);
            }
            Err(why) => {
                failed += 1;
                outln!("error: line {}: {why}", n + 1);
            }
        }
    }
    outln!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}
