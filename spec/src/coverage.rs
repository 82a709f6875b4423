//! Which syntax lines of the ISA excerpt the specs cover.
//!
//! The excerpt (`shared/isa-docs/*.md`, copied into `spec/isa-docs/` and compiled in as
//! [`EXCERPT`]) gives each instruction's syntax in a fenced block after
//! a "Syntax" line (PTX), or as an opcode line followed by its operand line (SASS). A line is
//! covered when a spec form has the same text (whitespace aside); refused when the form that
//! has it is `rejected`; otherwise uncovered.

use crate::catalog::Spec;

/// The ISA excerpt the specs were written against, compiled into the binary (file name,
/// markdown), so coverage can be listed without `../shared` beside the checkout. A copy of
/// `../shared/isa-docs` (`spec/tests/coverage.rs` fails when the two differ), plus the
/// sections semfuzz added, named in [`ADDED`].
pub const EXCERPT: &[(&str, &str)] = &[
    (
        "ptx-9.7.3-floating-point.md",
        include_str!("../isa-docs/ptx-9.7.3-floating-point.md"),
    ),
    (
        "ptx-9.7.4-half-precision-fp.md",
        include_str!("../isa-docs/ptx-9.7.4-half-precision-fp.md"),
    ),
    (
        "ptx-9.7.4.8-half-max.md",
        include_str!("../isa-docs/ptx-9.7.4.8-half-max.md"),
    ),
    (
        "ptx-9.7.7.1-half-set.md",
        include_str!("../isa-docs/ptx-9.7.7.1-half-set.md"),
    ),
    ("sass-hmul2.md", include_str!("../isa-docs/sass-hmul2.md")),
    (
        "ptx-9.7.1-integer.md",
        include_str!("../isa-docs/ptx-9.7.1-integer.md"),
    ),
    (
        "ptx-9.7.6-comparison.md",
        include_str!("../isa-docs/ptx-9.7.6-comparison.md"),
    ),
    (
        "ptx-9.7.8-logic-shift.md",
        include_str!("../isa-docs/ptx-9.7.8-logic-shift.md"),
    ),
    (
        "ptx-9.7.9-data-movement.md",
        include_str!("../isa-docs/ptx-9.7.9-data-movement.md"),
    ),
    (
        "ptx-9.7.7.2-half-setp.md",
        include_str!("../isa-docs/ptx-9.7.7.2-half-setp.md"),
    ),
    (
        "ptx-9.7.9.21-cvt.md",
        include_str!("../isa-docs/ptx-9.7.9.21-cvt.md"),
    ),
    (
        "llvm-langref-fp.md",
        include_str!("../isa-docs/llvm-langref-fp.md"),
    ),
    (
        "llvm-langref-int.md",
        include_str!("../isa-docs/llvm-langref-int.md"),
    ),
    (
        "ptx-7.1-function-parameters.md",
        include_str!("../isa-docs/ptx-7.1-function-parameters.md"),
    ),
    ("libnvvm-api.md", include_str!("../isa-docs/libnvvm-api.md")),
];

/// The files of [`EXCERPT`] that are not in `../shared/isa-docs`: manual sections semfuzz's
/// specs rely on beyond the shared excerpt, each quoting its source in its opening lines.
pub const ADDED: &[&str] = &[
    "ptx-9.7.9.21-cvt.md",
    "ptx-9.7.1-integer.md",
    "ptx-9.7.6-comparison.md",
    "ptx-9.7.8-logic-shift.md",
    "ptx-9.7.9-data-movement.md",
    "ptx-9.7.7.2-half-setp.md",
    "llvm-langref-fp.md",
    "llvm-langref-int.md",
    "ptx-7.1-function-parameters.md",
    "libnvvm-api.md",
];

/// The syntax lines of excerpt files given as (file name, markdown), in file-name order.
pub fn excerpt_lines<N: AsRef<str>, T: AsRef<str>>(files: &[(N, T)]) -> Vec<SyntaxLine> {
    let mut files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_ref(), t.as_ref()))
        .collect();
    files.sort();
    files
        .into_iter()
        .flat_map(|(name, text)| syntax_lines(name, text))
        .collect()
}

/// One syntax line of the excerpt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxLine {
    /// The document it comes from.
    pub file: String,
    /// 1-based line number in that document.
    pub line: usize,
    /// The manual section (`9.7.3.3`), or the document title for SASS.
    pub section: String,
    /// The syntax as the manual writes it, without comment and final `;`.
    pub text: String,
}

/// How a syntax line is covered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Forms with this syntax expand to these variants (both the evaluator and the Z3 encoding
    /// compile every variant's IR).
    Covered(Vec<String>),
    /// The spec refuses this syntax, for this reason.
    Refused(String),
    /// No spec form has it.
    Uncovered,
}

/// Whitespace-normalised syntax. The manual writes `.{relu}` once (9.7.4.4) where it means
/// `{.relu}`, and the specs spell it the latter way.
pub fn normalize(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut s = words.join(" ").replace(" ,", ",");
    while let Some(i) = s.find(".{") {
        match s[i..].find('}') {
            Some(close)
                if s[i + 2..i + close]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let name = s[i + 2..i + close].to_string();
                s.replace_range(i..i + close + 1, &format!("{{.{name}}}"));
            }
            _ => break,
        }
    }
    s
}

fn strip(line: &str) -> &str {
    let line = line.split("//").next().unwrap_or("");
    line.trim().trim_end_matches(';').trim()
}

fn is_ptx_syntax(line: &str) -> bool {
    let opcode_end = line.find(['.', '{']).unwrap_or(0);
    opcode_end > 0
        && line[..opcode_end]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && line.contains(char::is_whitespace)
}

fn is_sass_opcode(line: &str) -> bool {
    let end = line.find('{').unwrap_or(line.len());
    end > 0
        && line[..end]
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && line.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The syntax lines of one excerpt document.
pub fn syntax_lines(file: &str, markdown: &str) -> Vec<SyntaxLine> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out = Vec::new();
    let mut section = file.trim_end_matches(".md").to_string();
    let mut after_syntax = false;
    let mut in_block = false;
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix("#### ") {
            section = h
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches('.')
                .to_string();
        }
        if line.starts_with("```") {
            in_block = !in_block && after_syntax;
            if !in_block {
                after_syntax = false;
            }
            continue;
        }
        if line == "Syntax" {
            after_syntax = true;
        }
        if in_block {
            let s = strip(line);
            if is_ptx_syntax(s) {
                out.push(SyntaxLine {
                    file: file.into(),
                    line: i + 1,
                    section: section.clone(),
                    text: s.to_string(),
                });
            }
        } else if is_sass_opcode(line) && i + 1 < lines.len() {
            let operands = lines[i + 1].trim();
            let mut text = format!("{line} {operands}");
            // Immediate forms list their immediates above the predicate line: `{{-}{|}#Imm...}`.
            if operands.ends_with(',') && i >= 2 && lines[i - 2].trim().starts_with("{{") {
                text = format!("{text} {}", lines[i - 2].trim());
            }
            out.push(SyntaxLine {
                file: file.into(),
                line: i + 1,
                section: section.clone(),
                text: strip(&text).to_string(),
            });
        }
    }
    out
}

/// A form's syntax as the manual may write it (besides the text before `;`): with every
/// required group the form restricts to one member written as that member. The spec of
/// 9.7.7.1 `set` writes the manual's `set.CmpOp.f16.stype` as
/// `set.CmpOp.dtype.stype ...; .dtype = { .f16 }` (so that `dtype` is known in every form).
fn form_key(fam: &crate::catalog::Family, form: &crate::catalog::Form) -> String {
    let mut s = form.syntax.split(';').next().unwrap_or("").to_string();
    let head_end = s.find(char::is_whitespace).unwrap_or(s.len());
    let mut head = s[..head_end].to_string();
    for e in &form.pattern.elems {
        if let crate::form::Elem::Group {
            group,
            optional: false,
            only: Some(only),
        } = e
        {
            if let [member] = only.as_slice() {
                let g = format!(".{}", fam.groups[*group].name);
                let at = head.match_indices(&g).map(|(i, _)| i).find(|&i| {
                    !head[i + g.len()..]
                        .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                });
                if let Some(i) = at {
                    head.replace_range(i..i + g.len(), &format!(".{member}"));
                }
            }
        }
    }
    s.replace_range(..head_end, &head);
    normalize(&s)
}

/// The status of each line against the loaded specs.
pub fn cover(spec: &Spec, lines: &[SyntaxLine]) -> Vec<Status> {
    lines
        .iter()
        .map(|l| {
            let key = normalize(&l.text);
            for fam in &spec.resolved.families {
                for form in &fam.forms {
                    let syntax = form.syntax.split(';').next().unwrap_or("");
                    if normalize(syntax) != key && form_key(fam, form) != key {
                        continue;
                    }
                    if let Some(why) = &form.rejected {
                        return Status::Refused(why.clone());
                    }
                    // By text: a variant two forms spell alike is built once, from one of them.
                    let variants = crate::form::expand(&form.pattern, &fam.group_refs())
                        .iter()
                        .map(|c| c.text(&form.pattern.opcode))
                        .filter(|t| !spec.variants_named(t).is_empty())
                        .collect();
                    return Status::Covered(variants);
                }
            }
            Status::Uncovered
        })
        .collect()
}
