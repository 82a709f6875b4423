//! Source files, spans and compiler-style diagnostics.

use std::fmt;
use std::sync::Arc;

/// One loaded spec source: its name (a path or `<embedded>/x.sem`) and text.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics.
    pub name: String,
    /// The full text.
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    /// Wraps a text, indexing its line starts for position lookups.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Arc<SourceFile> {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Arc::new(SourceFile {
            name: name.into(),
            text,
            line_starts,
        })
    }

    /// 1-based line and column (in characters) of a byte offset; an offset inside a
    /// multi-byte character counts as that character.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let col = self.text[start..offset].chars().count() + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |&e| e - 1);
        self.text[start..end].trim_end_matches('\r')
    }
}

/// `noun` with its indefinite article as it is read aloud: "an f16", "a bf16", "an 8-bit
/// value", "a b32", "an integer". Type names are read letter by letter (`f16`: "ef sixteen"),
/// numbers as numbers.
pub fn with_article(noun: &str) -> String {
    let mut chars = noun.chars();
    let first = chars.next().unwrap_or(' ').to_ascii_lowercase();
    let spelled = chars.next().is_none_or(|c| c.is_ascii_digit());
    let an = if first.is_ascii_digit() {
        let number: String = noun.chars().take_while(char::is_ascii_digit).collect();
        number.starts_with('8') || number == "11" || number == "18"
    } else if spelled {
        "aefhilmnorsx".contains(first)
    } else {
        "aeiou".contains(first)
    };
    format!("{} {noun}", if an { "an" } else { "a" })
}

/// A byte range in one source file.
#[derive(Clone, Debug)]
pub struct Span {
    /// The file the range is in.
    pub file: Arc<SourceFile>,
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span over `start..end` of `file`.
    pub fn new(file: &Arc<SourceFile>, start: usize, end: usize) -> Span {
        Span {
            file: file.clone(),
            start,
            end,
        }
    }

    /// The smallest span covering both (which must be in the same file).
    pub fn to(&self, other: &Span) -> Span {
        Span {
            file: self.file.clone(),
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The source text the span covers.
    pub fn text(&self) -> &str {
        &self.file.text[self.start..self.end]
    }
}

impl PartialEq for Span {
    fn eq(&self, other: &Span) -> bool {
        Arc::ptr_eq(&self.file, &other.file) && self.start == other.start && self.end == other.end
    }
}

/// An error in a spec source or in instruction text, located and explained.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// What is wrong.
    pub message: String,
    /// Where, when the problem has a location in a spec file.
    pub span: Option<Span>,
    /// What to do about it; each line is shown as its own `hint:` line.
    pub hint: Option<String>,
    /// Further context, innermost first (e.g. "while building variant add.rz.f64").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at a location.
    pub fn at(span: &Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span: Some(span.clone()),
            hint: None,
            notes: Vec::new(),
        }
    }

    /// An error with no location in a spec file.
    pub fn plain(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span: None,
            hint: None,
            notes: Vec::new(),
        }
    }

    /// Adds a hint line (after any given before: "did you mean", then what the rule is).
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        let hint = hint.into();
        self.hint = Some(match self.hint.take() {
            Some(before) => format!("{before}\n{hint}"),
            None => hint,
        });
        self
    }

    /// Adds a context note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// Renders the one error format of every semfuzz message: `error: message`; where there
    /// is a location, ` --> file:line:col` (left out for a file with no name, such as
    /// instruction text from the command line), the line and a caret; then a `hint:` line per
    /// line of the hint and a `note:` line per note.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        if let Some(span) = &self.span {
            let (line, col) = span.file.line_col(span.start);
            let text = span.file.line_text(line);
            let (end_line, end_col) = span.file.line_col(span.end.max(span.start + 1) - 1);
            let width = if end_line == line {
                (end_col + 1).saturating_sub(col).max(1)
            } else {
                1
            };
            let number = if span.file.name.is_empty() {
                String::new()
            } else {
                line.to_string()
            };
            let gutter = number.len();
            if !span.file.name.is_empty() {
                write!(f, "\n{:gutter$}--> {}:{line}:{col}", "", span.file.name)?;
            }
            write!(f, "\n{:gutter$} |", "")?;
            write!(f, "\n{number} | {text}")?;
            let pad: String = text
                .chars()
                .take(col - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            write!(f, "\n{:gutter$} | {pad}{}", "", "^".repeat(width))?;
        }
        for hint in self.hint.iter().flat_map(|h| h.lines()) {
            write!(f, "\nhint: {hint}")?;
        }
        for note in &self.notes {
            write!(f, "\nnote: {note}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Several diagnostics from one load.
#[derive(Debug)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    /// Each diagnostic, then `error: the specs did not load (N errors above)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        write!(
            f,
            "error: the specs did not load ({} error{} above)",
            self.0.len(),
            if self.0.len() == 1 { "" } else { "s" }
        )
    }
}

impl std::error::Error for Diagnostics {}
