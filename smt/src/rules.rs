//! Rule files (`rules/*.rules`): rewrites and lowerings in the Alive-like syntax of DESIGN.md.
//!
//! ```text
//! # sub is an add of the negation, in every rounding mode
//! name: sub-is-add-of-neg
//! expect: proved
//!   sub.rn.f32 d, a, b
//! =>
//!   neg.f32 t, b
//!   add.rn.f32 d, a, t
//! ```
//!
//! A rule is `name: NAME`, optional header lines `pre: EXPR` (spec-language expression over
//! the inputs) and `expect: proved|counterexample|unknown`, the source instructions, `=>`, and
//! the target instructions. `#` starts a comment; the comment lines just above `name:` are the
//! rule's description. This module only reads the text; [`crate::sequence`] resolves the
//! instructions against the specs. Every error is a located [`Diagnostic`].

use semfuzz_spec::diag::{Diagnostic, SourceFile, Span};
use std::sync::Arc;

/// The verdict a rule expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The target refines the source for every input.
    Proved,
    /// Some input breaks it.
    Counterexample,
    /// The solver is expected to give up (documents a known hard query; never a pass of
    /// `proved`).
    Unknown,
}

impl Expect {
    /// `proved`, `counterexample`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Expect::Proved => "proved",
            Expect::Counterexample => "counterexample",
            Expect::Unknown => "unknown",
        }
    }
}

/// One instruction line of a rule, as written.
#[derive(Clone, Debug)]
pub struct InstrLine {
    /// The opcode with its modifiers (`add.rn.f32`, `HMUL2.FTZ`), guard excluded.
    pub opcode: String,
    /// The whole instruction text, trimmed, without a trailing `;` or comment.
    pub text: String,
    /// Where the text is.
    pub span: Span,
    /// The operands split at top-level commas, each with its span.
    pub operands: Vec<(String, Span)>,
}

/// One rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Its name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The comment lines just above `name:`, joined.
    pub doc: String,
    /// The precondition expression and where it is.
    pub pre: Option<(String, Span)>,
    /// The expected verdict, if stated.
    pub expect: Option<Expect>,
    /// Source instructions.
    pub source: Vec<InstrLine>,
    /// Target instructions.
    pub target: Vec<InstrLine>,
}

/// Parses a whole rule file; every malformed rule is reported.
pub fn parse(file: &Arc<SourceFile>) -> Result<Vec<Rule>, Vec<Diagnostic>> {
    let mut rules: Vec<Rule> = Vec::new();
    let mut errors = Vec::new();
    let mut doc: Vec<String> = Vec::new();
    // Where the current rule is: 0 = headers/source, 1 = target.
    let mut in_target = false;
    let mut offset = 0;
    let text = file.text.as_str();
    for raw in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        // Strip a comment.
        let code = match line.find('#') {
            Some(i) => &line[..i],
            None => line,
        };
        let trimmed = code.trim();
        let lead = code.len() - code.trim_start().len();
        let at = |start: usize, len: usize| {
            Span::new(file, line_start + start, line_start + start + len.max(1))
        };
        if trimmed.is_empty() {
            if let Some(i) = line.find('#') {
                doc.push(line[i + 1..].trim().to_string());
            } else {
                doc.clear();
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("name:") {
            let name = rest.trim();
            let col = lead + trimmed.len() - rest.trim_start().len();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            {
                errors.push(
                    Diagnostic::at(
                        &at(col, name.len()),
                        "a rule name is letters, digits, `-`, `_` and `.`",
                    )
                    .with_hint("e.g. `name: sub-is-add-of-neg`"),
                );
            }
            if let Some(prev) = rules.iter().find(|r| r.name == name) {
                let (l, _) = prev.span.file.line_col(prev.span.start);
                errors.push(Diagnostic::at(
                    &at(col, name.len()),
                    format!("rule `{name}` is defined twice (first on line {l})"),
                ));
            }
            rules.push(Rule {
                name: name.to_string(),
                span: at(col, name.len()),
                doc: doc.join(" "),
                pre: None,
                expect: None,
                source: Vec::new(),
                target: Vec::new(),
            });
            doc.clear();
            in_target = false;
            continue;
        }
        doc.clear();
        let Some(rule) = rules.last_mut() else {
            errors.push(
                Diagnostic::at(
                    &at(lead, trimmed.len()),
                    "expected `name: NAME` before anything else",
                )
                .with_hint("a rule starts with `name: NAME`; comments start with `#`"),
            );
            continue;
        };
        if trimmed == "=>" {
            if in_target {
                errors.push(Diagnostic::at(
                    &at(lead, 2),
                    format!("rule `{}` has a second `=>`", rule.name),
                ));
            }
            in_target = true;
            continue;
        }
        let header = |key: &str| {
            trimmed
                .strip_prefix(key)
                .map(|r| (r.trim(), lead + trimmed.len() - r.trim_start().len()))
        };
        if let Some((value, col)) = header("pre:") {
            if in_target || !rule.source.is_empty() {
                errors.push(
                    Diagnostic::at(&at(lead, 4), "`pre:` goes before the instructions")
                        .with_hint("write the header lines just under `name:`"),
                );
            } else if value.is_empty() {
                errors.push(Diagnostic::at(
                    &at(col, 1),
                    "`pre:` needs an expression, e.g. `!is_nan(a)`",
                ));
            } else {
                rule.pre = Some((value.to_string(), at(col, value.len())));
            }
            continue;
        }
        if let Some((value, col)) = header("expect:") {
            rule.expect = match value {
                "proved" => Some(Expect::Proved),
                "counterexample" => Some(Expect::Counterexample),
                "unknown" => Some(Expect::Unknown),
                _ => {
                    errors.push(
                        Diagnostic::at(
                            &at(col, value.len()),
                            format!("`{value}` is not a verdict"),
                        )
                        .with_hint(
                            "write `expect: proved`, `expect: counterexample` or `expect: unknown`",
                        ),
                    );
                    None
                }
            };
            if in_target || !rule.source.is_empty() {
                errors.push(
                    Diagnostic::at(&at(lead, 7), "`expect:` goes before the instructions")
                        .with_hint("write the header lines just under `name:`"),
                );
            }
            continue;
        }
        let body = trimmed.trim_end_matches(';').trim_end();
        let instr = instruction(file, line_start + lead, body);
        if in_target {
            rule.target.push(instr);
        } else {
            rule.source.push(instr);
        }
    }
    for r in &rules {
        if r.source.is_empty() || r.target.is_empty() {
            errors.push(
                Diagnostic::at(
                    &r.span,
                    format!(
                        "rule `{}` has no {}",
                        r.name,
                        if r.source.is_empty() {
                            "source instructions"
                        } else {
                            "target instructions"
                        }
                    ),
                )
                .with_hint(
                    "write the source instructions, a line `=>`, then the target instructions",
                ),
            );
        }
    }
    if errors.is_empty() {
        Ok(rules)
    } else {
        Err(errors)
    }
}

/// Splits an instruction line (`@P0 HMUL2 d, a.H0_H0, b`) into its opcode and operands.
fn instruction(file: &Arc<SourceFile>, start: usize, text: &str) -> InstrLine {
    let mut pos = 0;
    // A guard is part of the SASS text; skip it for the opcode. A PTX or LLVM IR function
    // (`@file.ptx:func`, `@file.ll:func`) is the opcode itself.
    let first = text.split_whitespace().next().unwrap_or("");
    if text.starts_with('@') && !first.contains(".ptx:") && !first.contains(".ll:") {
        pos = text.find(char::is_whitespace).unwrap_or(text.len());
        pos += text[pos..].len() - text[pos..].trim_start().len();
    }
    let op_end = text[pos..]
        .find(char::is_whitespace)
        .map_or(text.len(), |i| pos + i);
    let opcode = text[pos..op_end].to_string();
    let mut operands = Vec::new();
    let mut depth = 0i32;
    let mut item_start = op_end;
    let rest_end = text.len();
    let push = |from: usize, to: usize, operands: &mut Vec<(String, Span)>| {
        let item = &text[from..to];
        let lead = item.len() - item.trim_start().len();
        let t = item.trim();
        if !t.is_empty() || from != op_end {
            operands.push((
                t.to_string(),
                Span::new(
                    file,
                    start + from + lead,
                    start + from + lead + t.len().max(1),
                ),
            ));
        }
    };
    for (i, ch) in text[op_end..].char_indices() {
        let i = op_end + i;
        match ch {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                push(item_start, i, &mut operands);
                item_start = i + 1;
            }
            _ => {}
        }
    }
    push(item_start, rest_end, &mut operands);
    InstrLine {
        opcode,
        text: text.to_string(),
        span: Span::new(file, start, start + text.len().max(1)),
        operands,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(t: &str) -> Result<Vec<Rule>, Vec<Diagnostic>> {
        parse(&SourceFile::new("t.rules", t))
    }

    #[test]
    fn reads_a_rule_with_headers_and_comments() {
        let rules = parse_text(
            "# why it holds\nname: r1\n  pre: !is_nan(a)\n  expect: proved\n  sub.rn.f32 d, a, b;  # trailing\n=>\n  neg.f32 t, b\n  add.rn.f32 d, a, t\n",
        )
        .unwrap();
        assert_eq!(rules.len(), 1);
        let r = &rules[0];
        assert_eq!(r.doc, "why it holds");
        assert_eq!(r.pre.as_ref().unwrap().0, "!is_nan(a)");
        assert_eq!(r.expect, Some(Expect::Proved));
        assert_eq!(r.source[0].opcode, "sub.rn.f32");
        let ops: Vec<&str> = r.source[0]
            .operands
            .iter()
            .map(|(o, _)| o.as_str())
            .collect();
        assert_eq!(ops, ["d", "a", "b"]);
        assert_eq!(r.target.len(), 2);
        assert_eq!(r.source[0].operands[2].1.text(), "b");
    }

    #[test]
    fn sass_operands_keep_their_brackets() {
        let rules = parse_text("name: r\n HMUL2 d, -|c[6][60672]|, a.H0_H0;\n=>\n HMUL2 d, a, b\n")
            .unwrap();
        let ops: Vec<&str> = rules[0].source[0]
            .operands
            .iter()
            .map(|(o, _)| o.as_str())
            .collect();
        assert_eq!(ops, ["d", "-|c[6][60672]|", "a.H0_H0"]);
    }

    #[test]
    fn errors_are_located() {
        let e = parse_text("name: r\n  expect: maybe\n  add.f32 d, a, b\n=>\n  add.f32 d, b, a\n")
            .unwrap_err();
        let shown = e[0].to_string();
        assert!(
            shown.starts_with("error: `maybe` is not a verdict")
                && shown.contains("--> t.rules:2:11\n"),
            "{shown}"
        );
        assert!(shown.contains("^^^^^"), "{shown}");
        let e = parse_text("add.f32 d, a, b\n").unwrap_err();
        let shown = e[0].to_string();
        assert!(
            shown.starts_with("error: expected `name: NAME`")
                && shown.contains("--> t.rules:1:1\n"),
            "{shown}"
        );
        let e = parse_text("name: r\n add.f32 d, a, b\n").unwrap_err();
        assert!(
            e[0].to_string().contains("has no target instructions"),
            "{}",
            e[0]
        );
        let e = parse_text("name: r\n a\n=>\n b\nname: r\n a\n=>\n b\n").unwrap_err();
        assert!(
            e[0].to_string().contains("defined twice (first on line 1)"),
            "{}",
            e[0]
        );
    }
}
