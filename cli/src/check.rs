//! `semfuzz check`: results gathered elsewhere (a GPU run, a simulator log) against the spec.

use crate::operand::{parse_hex, parse_operand, sass_inputs};
use anyhow::{Context, Result};
use semfuzz_spec::diag::{SourceFile, Span};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{classify, describe, describe_accept, Accept};
use semfuzz_spec::{Diagnostic, Spec, Variant};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// One line of the input, to point diagnostics at the words in it.
struct Line<'a> {
    file: &'a Arc<SourceFile>,
    /// Byte offset of `text` in the file.
    start: usize,
    text: &'a str,
}

impl Line<'_> {
    /// The span of `word`, which must be a part of `self.text`.
    fn span(&self, word: &str) -> Span {
        let at = self.start + (word.as_ptr() as usize - self.text.as_ptr() as usize);
        Span::new(self.file, at, at + word.len())
    }

    /// `d` located at `word` of this line (unless it already has a location).
    fn at(&self, word: &str, mut d: Diagnostic) -> Diagnostic {
        if d.span.is_none() {
            d.span = Some(self.span(word));
        }
        d
    }
}

/// What a line says, ready to evaluate.
struct Case<'s, 'a> {
    variant: &'s Variant,
    inputs: Vec<u64>,
    result: &'a str,
}

/// A SASS line: `INSTRUCTION; VALUE... RESULT`, the values those of the registers and
/// constants the instruction reads (see `semfuzz_spec::sass::SassInstr::values`).
fn sass_line<'s, 'a>(
    spec: &'s Spec,
    line: &Line<'a>,
    content: &'a str,
) -> Result<Case<'s, 'a>, Diagnostic> {
    let Some((text, rest)) = content.split_once(';') else {
        return Err(line.at(
            content,
            Diagnostic::plain(
                "a SASS line is `INSTRUCTION; VALUE... RESULT`: the instruction ends with `;`",
            ),
        ));
    };
    let sass = semfuzz_spec::sass::parse(spec, text).map_err(|mut d| {
        // The parser's span is in `text`; move it to the same place in the file.
        if let Some(s) = d.span.take() {
            let base = line.span(text).start;
            d.span = Some(Span::new(line.file, base + s.start, base + s.end));
        }
        line.at(text, d)
    })?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.len() != sass.values.len() + 1 {
        let reads = match sass.values.as_slice() {
            [] => "reads no register or constant".to_string(),
            names => format!("reads {}", names.join(", ")),
        };
        return Err(line.at(
            content,
            Diagnostic::plain(format!(
                "`{};` {reads}, so the line takes {} values after the `;` (those, then the result), but it has {}",
                text.trim(),
                sass.values.len() + 1,
                words.len()
            ))
            .with_hint("the last value is the result; RZ reads as zero and immediates are in the text, so neither takes a value"),
        ));
    }
    let Some((result, values)) = words.split_last() else {
        return Err(line.at(
            content,
            Diagnostic::plain("the result is missing after the `;`"),
        ));
    };
    let (_, inputs) = sass_inputs(&sass, values).map_err(|d| line.at(rest.trim(), d))?;
    Ok(Case {
        variant: sass.variant,
        inputs,
        result,
    })
}

/// A PTX line: `INSTR OPERAND... RESULT`.
fn ptx_line<'s, 'a>(
    spec: &'s Spec,
    line: &Line<'a>,
    content: &'a str,
) -> Result<Case<'s, 'a>, Diagnostic> {
    let words: Vec<&str> = content.split_whitespace().collect();
    let (instr, values) = (words[0], &words[1..]);
    let named = spec.variants_named(instr.trim_end_matches(';'));
    if !named.is_empty() && !named.iter().any(|v| v.sources.len() + 1 == values.len()) {
        return Err(line.at(content, count_error(&named, values.len())));
    }
    let Some((result, operands)) = values.split_last() else {
        // An instruction we do not know, or no values at all: lookup says which.
        let d = spec
            .lookup(instr, None)
            .err()
            .unwrap_or_else(|| Diagnostic::plain("expected `INSTR OPERAND... RESULT`"));
        return Err(line.at(instr, d));
    };
    let v = spec
        .lookup(instr, Some(operands.len()))
        .map_err(|d| line.at(instr, d))?;
    let mut inputs = Vec::new();
    for (src, text) in v.sources.iter().zip(operands) {
        let what = format!("operand {}", src.name);
        inputs.push(parse_operand(spec, src, text, &what).map_err(|d| line.at(text, d))?);
    }
    Ok(Case {
        variant: v,
        inputs,
        result,
    })
}

/// A line with a value too few or too many: how many it has, how many each form takes, and
/// that the last value is the result.
fn count_error(forms: &[&Variant], given: usize) -> Diagnostic {
    let counts: Vec<String> = forms
        .iter()
        .map(|v| (v.sources.len() + 1).to_string())
        .collect();
    let dest = forms[0].dests.first().map_or("d", |d| d.name.as_str());
    let ways: Vec<String> = forms
        .iter()
        .map(|v| {
            let names: Vec<&str> = v.sources.iter().map(|s| s.name.as_str()).collect();
            format!("`{} {} {dest}`", v.text, names.join(" "))
        })
        .collect();
    let signatures: Vec<String> = forms
        .iter()
        .map(|v| format!("`{}`", v.signature()))
        .collect();
    Diagnostic::plain(format!(
        "`{}` takes {} values (its operands, then the result {dest}), but the line has {given}",
        forms[0].text,
        counts.join(" or "),
    ))
    .with_hint(format!(
        "the last value is the result: write {} for {}",
        ways.join(" or "),
        signatures.join(" or ")
    ))
}

/// Checks one line; `Ok(None)` for a blank or comment line, `Ok(Some(problems))` with the
/// problems of a mismatch (none when the result is accepted).
fn check_line(spec: &Spec, line: &Line) -> Result<Option<Vec<String>>, Diagnostic> {
    let content = line.text.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let case = if semfuzz_spec::sass::looks_like_sass(content) {
        sass_line(spec, line, content)?
    } else {
        ptx_line(spec, line, content)?
    };
    let dest = &case.variant.program.dests[0];
    let got = parse_hex(case.result, dest.width, &format!("result {}", dest.name))
        .map_err(|d| line.at(case.result, d))?;
    let mut ev = Evaluator::new(&case.variant.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&case.inputs, &mut out);
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
    Ok(Some(problems))
}

/// Checks every line of `file` (standard input for `-` or none); with `quiet`, prints only
/// mismatches, errors and the closing line. Returns whether every line passed.
pub fn run(spec: &Spec, file: Option<&Path>, quiet: bool) -> Result<bool> {
    let (name, text) = match file {
        Some(p) if p != Path::new("-") => (
            p.display().to_string(),
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?,
        ),
        _ => {
            let mut text = String::new();
            std::io::stdin()
                .lock()
                .read_to_string(&mut text)
                .context("cannot read standard input")?;
            ("<stdin>".to_string(), text)
        }
    };
    let file = SourceFile::new(name, text);
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut start = 0;
    for (n, raw) in file.text.split_inclusive('\n').enumerate() {
        let line = Line {
            file: &file,
            start,
            text: raw.trim_end_matches(['\n', '\r']),
        };
        start += raw.len();
        match check_line(spec, &line) {
            Ok(None) => {}
            Ok(Some(problems)) if problems.is_empty() => {
                passed += 1;
                if !quiet {
                    outln!("ok");
                }
            }
            Ok(Some(problems)) => {
                failed += 1;
                let content = line.text.split('#').next().unwrap_or("").trim();
                outln!(
                    "mismatch: line {}: {content}: {}",
                    n + 1,
                    problems.join("; ")
                );
            }
            Err(mut d) => {
                failed += 1;
                d.message = format!("line {}: {}", n + 1, d.message);
                outln!("{d}");
            }
        }
    }
    outln!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}
