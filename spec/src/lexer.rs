//! Tokens of the spec language.

use crate::diag::{Diagnostic, SourceFile, Span};
use std::sync::Arc;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A name: `add`, `rnd`, `sm_20`, `let`.
    Ident(String),
    /// An integer literal, decimal or `0x` hex.
    Int(u64),
    /// A decimal literal with a point, kept as written: `1.0`, `8.6`.
    Real(String),
    /// A modifier as the manual writes it, without its dot: `.rn` is `Mod("rn")`.
    Mod(String),
    /// A double-quoted string (no escapes); the span of a `Str` token covers the quotes.
    Str(String),
    /// Punctuation and operators, as written.
    Punct(&'static str),
    /// End of input.
    Eof,
}

/// A token and where it is.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its source range.
    pub span: Span,
}

const PUNCTS: &[&str] = &[
    "..", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "{", "}", "(", ")", "[", "]", ",", ";",
    ":", "=", "<", ">", "!", "&", "|", "^", "~", "+", "-", "*", "/", "%", "?",
];

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a source file into tokens, ending with [`Tok::Eof`].
pub fn lex(file: &Arc<SourceFile>) -> Result<Vec<Token>, Diagnostic> {
    let text = file.text.as_str();
    let bytes = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    let span = |s: usize, e: usize| Span::new(file, s, e);
    while i < bytes.len() {
        let c = text[i..].chars().next().unwrap_or('\0');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        let start = i;
        if is_ident_start(c) {
            while i < bytes.len() && is_ident_char(bytes[i] as char) {
                i += 1;
            }
            toks.push(Token {
                tok: Tok::Ident(text[start..i].to_string()),
                span: span(start, i),
            });
        } else if c.is_ascii_digit() {
            let tok =
                lex_number(text, &mut i).map_err(|msg| Diagnostic::at(&span(start, i), msg))?;
            toks.push(Token {
                tok,
                span: span(start, i),
            });
        } else if c == '.' && text[i + 1..].starts_with(is_ident_start) {
            i += 1;
            while i < bytes.len() && is_ident_char(bytes[i] as char) {
                i += 1;
            }
            toks.push(Token {
                tok: Tok::Mod(text[start + 1..i].to_string()),
                span: span(start, i),
            });
        } else if c == '"' {
            let close = text[i + 1..].find(['"', '\n']).map(|n| i + 1 + n);
            match close {
                Some(e) if bytes[e] == b'"' => {
                    toks.push(Token {
                        tok: Tok::Str(text[i + 1..e].to_string()),
                        span: span(start, e + 1),
                    });
                    i = e + 1;
                }
                _ => {
                    return Err(
                        Diagnostic::at(&span(start, start + 1), "unterminated string")
                            .with_hint("close the string with `\"` on the same line"),
                    )
                }
            }
        } else if let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) {
            i += p.len();
            toks.push(Token {
                tok: Tok::Punct(p),
                span: span(start, i),
            });
        } else {
            return Err(Diagnostic::at(
                &span(start, start + c.len_utf8()),
                format!("unexpected character `{c}`"),
            )
            .with_hint(
                "spec sources use ASCII operators, names, numbers, `.modifiers` and \"strings\"",
            ));
        }
    }
    toks.push(Token {
        tok: Tok::Eof,
        span: span(bytes.len(), bytes.len()),
    });
    Ok(toks)
}

fn lex_number(text: &str, i: &mut usize) -> Result<Tok, String> {
    let bytes = text.as_bytes();
    let start = *i;
    if text[start..].starts_with("0x") || text[start..].starts_with("0X") {
        *i += 2;
        while *i < bytes.len() && (bytes[*i].is_ascii_hexdigit() || bytes[*i] == b'_') {
            *i += 1;
        }
        let digits: String = text[start + 2..*i].chars().filter(|&c| c != '_').collect();
        if digits.is_empty() {
            return Err("`0x` must be followed by hex digits".into());
        }
        return u64::from_str_radix(&digits, 16)
            .map(Tok::Int)
            .map_err(|_| format!("hex literal `{}` does not fit in 64 bits", &text[start..*i]));
    }
    while *i < bytes.len() && (bytes[*i].is_ascii_digit() || bytes[*i] == b'_') {
        *i += 1;
    }
    if *i + 1 < bytes.len() && bytes[*i] == b'.' && bytes[*i + 1].is_ascii_digit() {
        *i += 1;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        return Ok(Tok::Real(text[start..*i].to_string()));
    }
    let digits: String = text[start..*i].chars().filter(|&c| c != '_').collect();
    digits.parse().map(Tok::Int).map_err(|_| {
        format!(
            "integer literal `{}` does not fit in 64 bits",
            &text[start..*i]
        )
    })
}
