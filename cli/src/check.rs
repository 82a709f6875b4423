//! `semfuzz check`: results gathered elsewhere (a GPU run, a simulator log) against the spec,
//! or, with `--backend`, cases run on a backend here (a GPU through the CUDA driver) and
//! checked as they come back.

use crate::operand::{parse_hex, parse_operand, sass_inputs};
use anyhow::{Context, Result};
use semfuzz_backend::{Backend, Support, Verdict};
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
    /// The result the line gives; `None` where a backend computes it (`--backend`).
    result: Option<&'a str>,
}

/// A SASS line: `INSTRUCTION; VALUE... RESULT`, the values those of the registers and
/// constants the instruction reads (see `semfuzz_spec::sass::SassInstr::values`).
fn sass_line<'s, 'a>(
    spec: &'s Spec,
    line: &Line<'a>,
    content: &'a str,
    with_result: bool,
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
    let result_words = usize::from(with_result);
    if words.len() != sass.values.len() + result_words {
        let reads = match sass.values.as_slice() {
            [] => "reads no register or constant".to_string(),
            names => format!("reads {}", names.join(", ")),
        };
        return Err(line.at(
            content,
            Diagnostic::plain(format!(
                "`{};` {reads}, so the line takes {} values after the `;` ({}), but it has {}",
                text.trim(),
                sass.values.len() + result_words,
                if with_result {
                    "those, then the result"
                } else {
                    "those: the backend computes the result"
                },
                words.len()
            ))
            .with_hint(format!(
                "{}RZ reads as zero and immediates are in the text, so neither takes a value",
                if with_result {
                    "the last value is the result; "
                } else {
                    ""
                }
            )),
        ));
    }
    let (result, values) = match (with_result, words.split_last()) {
        (false, _) => (None, &words[..]),
        (true, Some((result, values))) => (Some(*result), values),
        (true, None) => {
            return Err(line.at(
                content,
                Diagnostic::plain("the result is missing after the `;`"),
            ))
        }
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
    with_result: bool,
) -> Result<Case<'s, 'a>, Diagnostic> {
    let words: Vec<&str> = content.split_whitespace().collect();
    let (instr, values) = (words[0], &words[1..]);
    let named = spec.variants_named(instr.trim_end_matches(';'));
    let result_words = usize::from(with_result);
    if !named.is_empty()
        && !named
            .iter()
            .any(|v| v.sources.len() + result_words == values.len())
    {
        return Err(line.at(content, count_error(&named, values.len(), with_result)));
    }
    let (result, operands) = match (with_result, values.split_last()) {
        (false, _) => (None, values),
        (true, Some((result, operands))) => (Some(*result), operands),
        (true, None) => {
            // An instruction we do not know, or no values at all: lookup says which.
            let d = spec
                .lookup(instr, None)
                .err()
                .unwrap_or_else(|| Diagnostic::plain("expected `INSTR OPERAND... RESULT`"));
            return Err(line.at(instr, d));
        }
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
fn count_error(forms: &[&Variant], given: usize, with_result: bool) -> Diagnostic {
    let result_words = usize::from(with_result);
    let counts: Vec<String> = forms
        .iter()
        .map(|v| (v.sources.len() + result_words).to_string())
        .collect();
    let dest = forms[0].dests.first().map_or("d", |d| d.name.as_str());
    let ways: Vec<String> = forms
        .iter()
        .map(|v| {
            let names: Vec<&str> = v.sources.iter().map(|s| s.name.as_str()).collect();
            let result = if with_result {
                format!(" {dest}")
            } else {
                String::new()
            };
            format!("`{} {}{result}`", v.text, names.join(" "))
        })
        .collect();
    let signatures: Vec<String> = forms
        .iter()
        .map(|v| format!("`{}`", v.signature()))
        .collect();
    let (takes, hint) = if with_result {
        (
            format!("its operands, then the result {dest}"),
            "the last value is the result: write",
        )
    } else {
        (
            "its operands: the backend computes the result".to_string(),
            "write",
        )
    };
    Diagnostic::plain(format!(
        "`{}` takes {} values ({takes}), but the line has {given}",
        forms[0].text,
        counts.join(" or "),
    ))
    .with_hint(format!(
        "{hint} {} for {}",
        ways.join(" or "),
        signatures.join(" or ")
    ))
}

/// A line checked: its problems (none when the result is accepted) and the result checked.
struct Checked {
    problems: Vec<String>,
    /// The result's bits, as the line gave them or the backend computed them.
    got: u64,
    /// The destination's width, for printing `got`.
    width: u32,
}

/// Checks one line; `Ok(None)` for a blank or comment line. With a backend, the line holds
/// operands only and the backend computes the result.
fn check_line(
    spec: &Spec,
    line: &Line,
    backend: Option<&mut dyn Backend>,
) -> Result<Option<Checked>, Diagnostic> {
    let content = line.text.split('#').next().unwrap_or("").trim();
    if content.is_empty() {
        return Ok(None);
    }
    let with_result = backend.is_none();
    let case = if semfuzz_spec::sass::looks_like_sass(content) {
        sass_line(spec, line, content, with_result)?
    } else {
        ptx_line(spec, line, content, with_result)?
    };
    let dest = &case.variant.program.dests[0];
    let got = match (case.result, backend) {
        (Some(result), _) => parse_hex(result, dest.width, &format!("result {}", dest.name))
            .map_err(|d| line.at(result, d))?,
        (None, Some(backend)) => run_on(backend, case.variant, &case.inputs)
            .map_err(|why| line.at(content, Diagnostic::plain(why)))?,
        (None, None) => unreachable!("a line without a result is read only with a backend"),
    };
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
    Ok(Some(Checked {
        problems,
        got,
        width: dest.width,
    }))
}

/// The destination bits `backend` computes for one case, or why it computed none.
fn run_on(backend: &mut dyn Backend, variant: &Variant, inputs: &[u64]) -> Result<u64, String> {
    let name = backend.identity().name.clone();
    if let Support::No(why) = backend.supports(variant) {
        return Err(format!("{name} cannot run `{}`: {why}", variant.text));
    }
    let mut out = [Verdict::NoVerdict];
    backend
        .run(variant, inputs, &mut out)
        .map_err(|e| e.to_string())?;
    match out[0] {
        Verdict::Bits(bits) => Ok(bits),
        Verdict::Unsupported => Err(format!(
            "{name} cannot express this case of `{}`",
            variant.text
        )),
        Verdict::NoVerdict => Err(format!(
            "{name} gave no result for this case of `{}`",
            variant.text
        )),
    }
}

/// Checks every line of `file` (standard input for `-` or none); with `quiet`, prints only
/// mismatches, errors and the closing line. With `backend`, each line holds an instruction and
/// its operands, the backend computes the result, and each line is printed back with that
/// result (a line `semfuzz check` reads) and the verdict as a comment. Returns whether every
/// line passed.
pub fn run(
    spec: &Spec,
    file: Option<&Path>,
    quiet: bool,
    mut backend: Option<Box<dyn Backend>>,
) -> Result<bool> {
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
    let who = backend.as_ref().map(|b| b.identity().name.clone());
    for (n, raw) in file.text.split_inclusive('\n').enumerate() {
        let line = Line {
            file: &file,
            start,
            text: raw.trim_end_matches(['\n', '\r']),
        };
        start += raw.len();
        let content = line.text.split('#').next().unwrap_or("").trim();
        let on = backend.as_mut().map(|b| b.as_mut() as &mut dyn Backend);
        match check_line(spec, &line, on) {
            Ok(None) => {}
            Ok(Some(checked)) => {
                let ok = checked.problems.is_empty();
                if ok {
                    passed += 1;
                } else {
                    failed += 1;
                }
                match &who {
                    Some(who) if ok && !quiet => outln!(
                        "{content} {:#0w$x}  # {who}: ok",
                        checked.got,
                        w = 2 + checked.width.div_ceil(4) as usize
                    ),
                    Some(who) if !ok => outln!(
                        "{content} {:#0w$x}  # {who}: mismatch: {}",
                        checked.got,
                        checked.problems.join("; "),
                        w = 2 + checked.width.div_ceil(4) as usize
                    ),
                    None if ok && !quiet => outln!("ok"),
                    None if !ok => outln!(
                        "mismatch: line {}: {content}: {}",
                        n + 1,
                        checked.problems.join("; ")
                    ),
                    _ => {}
                }
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
