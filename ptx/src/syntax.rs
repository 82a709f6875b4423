//! PTX module text ⇄ syntax tree.
//!
//! The part of PTX that compilers write around arithmetic: `.version`/`.target`/
//! `.address_size`, `.func` and `.entry` with `.param` scalars and byte arrays, `.reg`
//! declarations (`%r<12>` ranges), nested `{ }` scopes, labels, guarded instructions
//! (`@%p`, `@!%p`), and operands: registers, `p|q` pairs, `_`, immediates (`-1`, `0x10`,
//! `0f3F800000`, `0d3FF0000000000000`), vectors `{%a, %b}`, addresses `[name+4]`, labels.
//! An instruction is kept as its opcode text (`setp.lt.f32`) and its operands: which
//! instruction that is, is the catalogue's business ([`crate::lower`]). Debug directives
//! (`.file N "name"` with its timestamp and size, `.loc` with `function_name`/`inlined_at`,
//! `.section .debug_* { ... }` whole) and `.pragma "..."` have no effect on results and are
//! skipped: the tree does not hold them, so the printed module lacks them. A function's
//! performance directives (`.reqntid 128, 1, 1`, `.maxntid`, `.minnctapersm`, `.noreturn`)
//! are kept, as launch bounds for its thread indices. Every error is located.
//!
//! [`Display`](std::fmt::Display) prints a module back in one canonical spelling; parsing the
//! printed text gives the same tree (the `ptx_parse` fuzz target checks it).

use semfuzz_spec::diag::{Diagnostic, SourceFile, Span};
use semfuzz_spec::resolved::{ptx_version, Requirement};
use std::fmt;
use std::sync::Arc;

/// A parsed `.ptx` module.
#[derive(Clone, Debug)]
pub struct Module {
    /// `.version` (`"7.8"`), if written.
    pub version: Option<String>,
    /// `.target` targets (`sm_90`), if written.
    pub targets: Vec<String>,
    /// `.address_size`, if written.
    pub address_size: Option<u32>,
    /// Module-level variables (`.global`, `.const`, `.shared`), in order.
    pub variables: Vec<Variable>,
    /// The functions, in order (declarations without a body included).
    pub functions: Vec<Function>,
}

impl Module {
    /// What the module declares it targets, as a [`Requirement`] its instructions must meet:
    /// the `.version` and the first `sm_XX` of `.target` (`sm_90a` is 90), `None` where not
    /// written.
    pub fn declared(&self) -> Requirement {
        Requirement {
            ptx: self.version.as_deref().and_then(ptx_version),
            sm: self.targets.iter().find_map(|t| {
                let digits = t.strip_prefix("sm_")?;
                let end = digits
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(digits.len());
                digits[..end].parse().ok()
            }),
        }
    }
}

/// A module-level variable (numba-cuda's `.common .global .align 8 .u64 _ZN08NumbaEnv...;`),
/// kept as written: memory other than parameters is not modelled, so a function that
/// names it is refused there ([`crate::lower`]), and one that does not reads as if it were
/// absent.
#[derive(Clone, Debug)]
pub struct Variable {
    /// `.visible`, `.extern`, `.weak`, `.common` as written before it, without dots.
    pub linkage: Vec<String>,
    /// Its name (`x` of `.global .align 4 .b8 x[16] = {...}`).
    pub name: String,
    /// The declaration from its state space to before its `;` (`.global .align 8 .u64 x`).
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// Whether a function is a device function or a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.func`: called from device code; returns through its return parameters.
    Func,
    /// `.entry`: a kernel; results go through pointer parameters to memory.
    Entry,
}

/// One `.func` or `.entry`.
#[derive(Clone, Debug)]
pub struct Function {
    /// `.func` or `.entry`.
    pub kind: FunctionKind,
    /// Linkage directives written before it (`.visible`, `.extern`, `.weak`).
    pub linkage: Vec<String>,
    /// Its name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// Return parameters (`.func` only).
    pub returns: Vec<Param>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Performance directives between the parameters and the body (`.maxntid 256, 1, 1`,
    /// `.noreturn`), in order.
    pub directives: Vec<Directive>,
    /// The body; `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Vec<Statement>>,
}

impl Function {
    /// The arguments of the directive `.NAME` (`"reqntid"` → `[128, 1, 1]`), if written: the
    /// launch attributes (`.reqntid`, `.maxntid`) bound the thread indices a kernel sees.
    pub fn directive(&self, name: &str) -> Option<&[u32]> {
        self.directives
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.args.as_slice())
    }
}

/// A performance directive of a function (PTX ISA 11.4: `.maxntid`, `.reqntid`,
/// `.minnctapersm`, `.maxnreg`, `.reqnctapercluster`, `.explicitcluster`, `.noreturn`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// Its name without the dot.
    pub name: String,
    /// Its integer arguments (`.maxntid 256, 1, 1` → `[256, 1, 1]`; none for `.noreturn`).
    pub args: Vec<u32>,
}

/// A `.param` (or `.reg`, for a return value an old-style `.func` declares so) declaration.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its type as written (`b32`, `u64`, `b8`).
    pub ty: String,
    /// `.align N`, if written.
    pub align: Option<u32>,
    /// Attributes of a kernel's pointer parameter (`.ptr`, `.global`), kept as written.
    pub attributes: Vec<String>,
    /// Its name.
    pub name: String,
    /// `name[N]`: an array of N elements.
    pub array: Option<u32>,
    /// Where the declaration is.
    pub span: Span,
}

impl Param {
    /// Size in bytes (the element's size times the array length).
    pub fn size(&self) -> Option<u32> {
        Some(type_bits(&self.ty)? / 8 * self.array.unwrap_or(1))
    }
}

/// Bits of a PTX fundamental type (`b32` → 32, `pred` → 1).
pub fn type_bits(ty: &str) -> Option<u32> {
    if ty == "pred" {
        return Some(1);
    }
    // A dot alone (`.param .%r`) names the empty type, and a dot may precede any character.
    let (kind, bits) = ty.split_at_checked(1)?;
    if !matches!(kind, "b" | "u" | "s" | "f") {
        return None;
    }
    match bits.parse().ok()? {
        b @ (8 | 16 | 32 | 64 | 128) => Some(b),
        _ => None,
    }
}

/// A statement of a body.
#[derive(Clone, Debug)]
pub enum Statement {
    /// `.reg .TYPE names;`
    Reg(RegDecl),
    /// `LABEL:`
    Label(String, Span),
    /// An instruction.
    Instr(Instr),
    /// `{ ... }`: a nested scope (its `.reg` names hide outer ones).
    Block(Vec<Statement>, Span),
    /// A state-space declaration inside a body the reader does not model (`.local`,
    /// `.shared`, `.param` for a call), kept as written so that using it is a located error.
    Other(String, Span),
}

/// `.reg .b32 %r<12>;` or `.reg .f32 %f1, %f2;`
#[derive(Clone, Debug)]
pub struct RegDecl {
    /// The type (`b32`, `pred`).
    pub ty: String,
    /// Each declared name; a range `%r<12>` is `(%r, Some(12))`: `%r0` .. `%r11`.
    pub names: Vec<(String, Option<u32>)>,
    /// Where it is.
    pub span: Span,
}

/// `@%p` / `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// The predicate register.
    pub reg: String,
    /// `@!%p`: executes when the predicate is false.
    pub negated: bool,
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct Instr {
    /// Its guard, if any.
    pub guard: Option<Guard>,
    /// The opcode with its modifiers (`setp.lt.f32`).
    pub opcode: String,
    /// Where the opcode is.
    pub opcode_span: Span,
    /// The operands.
    pub operands: Vec<Operand>,
    /// The whole instruction, guard to `;`.
    pub span: Span,
}

/// An operand and where it is (two operands are equal when they are the same operand,
/// wherever they are written).
#[derive(Clone, Debug)]
pub struct Operand {
    /// What it is.
    pub kind: OperandKind,
    /// Where it is.
    pub span: Span,
}

/// The shapes an operand takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// A register or another name (`%r1`, a label, a parameter, `%tid.x`).
    Name(String),
    /// `!%p`: a negated predicate.
    Not(String),
    /// `%p|%q`: `setp`'s two destinations.
    Pair(String, String),
    /// `_`: the sink.
    Sink,
    /// An immediate.
    Imm(Imm),
    /// `{%a, %b}`.
    Vector(Vec<Operand>),
    /// `(a, b)`: a call's return parameters or arguments.
    List(Vec<Operand>),
    /// `[base+offset]`.
    Address {
        /// A parameter, variable or register name.
        base: String,
        /// The constant byte offset.
        offset: i64,
    },
}

/// An immediate as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imm {
    /// An integer (decimal, hex `0x`, octal `0`, binary `0b`; `U` suffix allowed), two's
    /// complement in 64 bits.
    Int(i64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64(u64),
}

impl PartialEq for Operand {
    fn eq(&self, other: &Operand) -> bool {
        self.kind == other.kind
    }
}

impl Eq for Operand {}

/// Parses a module. `file` supplies the name used in messages.
pub fn parse(file: &Arc<SourceFile>) -> Result<Module, Diagnostic> {
    let tokens = lex(file)?;
    Parser {
        file,
        tokens,
        pos: 0,
    }
    .module()
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A name: `%r1`, `foo`, `$L__BB0_2`, `%tid.x`, `_`.
    Ident(String),
    /// A directive or modifier `.reg`, `.b32`.
    Dot(String),
    /// A number as written: `12`, `0x1F`, `0f3F800000`, `7.8`.
    Number(String),
    /// A string, without its quotes (`.file 1 "k.cu"`, `.pragma "nounroll"`).
    Str(String),
    Punct(char),
}

struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%')
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$')
}

fn lex(file: &Arc<SourceFile>) -> Result<Vec<Token>, Diagnostic> {
    let text = file.text.as_str();
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            i = match text[i + 2..].find("*/") {
                Some(n) => i + 2 + n + 2,
                None => {
                    return Err(
                        Diagnostic::at(&Span::new(file, i, i + 2), "unterminated comment")
                            .with_hint("close it with `*/`"),
                    )
                }
            };
        } else if c == '.' && i + 1 < bytes.len() && is_ident_start(bytes[i + 1] as char) {
            i += 1;
            while i < bytes.len() && (is_ident_char(bytes[i] as char) || bytes[i] == b':') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Dot(text[start + 1..i].to_string()),
                start,
                end: i,
            });
        } else if is_ident_start(c) {
            i += 1;
            // Names continue through dots (`setp.lt.f32`, `%tid.x`) and `::` (`.param::func`).
            while i < bytes.len()
                && (is_ident_char(bytes[i] as char)
                    || (bytes[i] == b'.'
                        && i + 1 < bytes.len()
                        && is_ident_char(bytes[i + 1] as char))
                    || (bytes[i] == b':' && text[i..].starts_with("::")))
            {
                i += if bytes[i] == b':' { 2 } else { 1 };
            }
            out.push(Token {
                tok: Tok::Ident(text[start..i].to_string()),
                start,
                end: i,
            });
        } else if c.is_ascii_digit() {
            while i < bytes.len()
                && ((bytes[i] as char).is_ascii_alphanumeric()
                    || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Number(text[start..i].to_string()),
                start,
                end: i,
            });
        } else if c == '"' {
            // PTX strings (`.file`, `.pragma`) hold no escaped quotes.
            let n = text[i + 1..]
                .find(['"', '\n'])
                .map_or(bytes.len(), |n| i + 1 + n);
            if bytes.get(n) != Some(&b'"') {
                return Err(
                    Diagnostic::at(&Span::new(file, i, n), "unterminated string")
                        .with_hint("close it with `\"` on the same line"),
                );
            }
            i = n + 1;
            out.push(Token {
                tok: Tok::Str(text[start + 1..n].to_string()),
                start,
                end: i,
            });
        } else if "{}()[]<>;,:|!@+-=".contains(c) {
            i += 1;
            out.push(Token {
                tok: Tok::Punct(c),
                start,
                end: i,
            });
        } else {
            let ch = text[i..].chars().next().expect("in bounds");
            return Err(Diagnostic::at(
                &Span::new(file, i, i + ch.len_utf8()),
                format!("unexpected character `{}` in PTX text", ch.escape_debug()),
            ));
        }
    }
    Ok(out)
}

struct Parser<'f> {
    file: &'f Arc<SourceFile>,
    tokens: Vec<Token>,
    pos: usize,
}

/// How deep `{ }` scopes nest before the reader refuses (no recursion can overflow the stack).
pub const MAX_NESTING: usize = 64;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn span_here(&self) -> Span {
        match self.tokens.get(self.pos) {
            Some(t) => Span::new(self.file, t.start, t.end),
            None => {
                let n = self.file.text.len();
                Span::new(self.file, n, n)
            }
        }
    }

    fn span_from(&self, start: usize) -> Span {
        let end = self.tokens[..self.pos]
            .last()
            .map_or(start, |t| t.end.max(start));
        Span::new(self.file, start, end)
    }

    fn start(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.file.text.len(), |t| t.start)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.tokens.get(self.pos).map(|t| t.tok.clone());
        self.pos += 1;
        t
    }

    fn error(&self, what: &str) -> Diagnostic {
        let found = match self.peek() {
            None => "the end of the file".to_string(),
            Some(Tok::Ident(s)) | Some(Tok::Number(s)) => format!("`{s}`"),
            Some(Tok::Dot(s)) => format!("`.{s}`"),
            Some(Tok::Str(s)) => format!("`\"{s}\"`"),
            Some(Tok::Punct(c)) => format!("`{c}`"),
        };
        Diagnostic::at(&self.span_here(), format!("expected {what}, found {found}"))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), Diagnostic> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.error(&format!("`{c}`")))
        }
    }

    fn eat_dot(&mut self, name: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Dot(d)) if d == name) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, Span), Diagnostic> {
        let span = self.span_here();
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok((s, span))
            }
            _ => Err(self.error(what)),
        }
    }

    fn number(&mut self, what: &str) -> Result<u32, Diagnostic> {
        let span = self.span_here();
        match self.peek() {
            Some(Tok::Number(s)) => {
                let v = s.parse().map_err(|_| {
                    Diagnostic::at(&span, format!("`{s}` is not a number of at most 32 bits"))
                })?;
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.error(what)),
        }
    }

    /// The rest of a directive's line, as text (`.version 7.8`, `.maxntid 256, 1, 1`).
    fn rest_of_line(&mut self) -> String {
        let Some(first) = self.tokens.get(self.pos) else {
            return String::new();
        };
        let (line, _) = self.file.line_col(first.start);
        let start = first.start;
        let mut end = first.end;
        while let Some(t) = self.tokens.get(self.pos) {
            if self.file.line_col(t.start).0 != line || matches!(t.tok, Tok::Punct(';' | '{')) {
                break;
            }
            end = t.end;
            self.pos += 1;
        }
        self.file.text[start..end].to_string()
    }

    /// The value of a module directive just read (`.version 7.8`): the rest of the
    /// directive's own line, which must hold one. A directive with nothing after it would
    /// otherwise take the next line's directive as its value, and print as another module.
    fn directive_value(&mut self, what: &str) -> Result<String, Diagnostic> {
        let line = |t: &Token| self.file.line_col(t.start).0;
        let directive = &self.tokens[self.pos - 1];
        match self.tokens.get(self.pos) {
            Some(t)
                if line(t) == line(directive)
                    && !matches!(t.tok, Tok::Dot(_) | Tok::Punct(';' | '{')) =>
            {
                Ok(self.rest_of_line())
            }
            _ => Err(self.error(what)),
        }
    }

    fn module(mut self) -> Result<Module, Diagnostic> {
        let mut m = Module {
            version: None,
            targets: Vec::new(),
            address_size: None,
            variables: Vec::new(),
            functions: Vec::new(),
        };
        let mut linkage = Vec::new();
        while let Some(tok) = self.peek().cloned() {
            let span = self.span_here();
            match tok {
                Tok::Dot(d) => {
                    self.pos += 1;
                    match d.as_str() {
                        "version" => {
                            let version = self.directive_value("a PTX version")?;
                            if ptx_version(&version).is_none() {
                                return Err(Diagnostic::at(
                                    &span,
                                    format!("`.version {version}` is not a PTX ISA version"),
                                )
                                .with_hint("write MAJOR.MINOR, as `.version 7.8`"));
                            }
                            m.version = Some(version);
                        }
                        "target" => {
                            m.targets = self
                                .directive_value("a target (`sm_90`)")?
                                .split(',')
                                .map(|s| s.trim().to_string())
                                .collect()
                        }
                        "address_size" => m.address_size = Some(self.number("an address size")?),
                        "visible" | "extern" | "weak" | "common" => linkage.push(d),
                        "func" | "entry" => {
                            let kind = if d == "func" {
                                FunctionKind::Func
                            } else {
                                FunctionKind::Entry
                            };
                            m.functions
                                .push(self.function(kind, std::mem::take(&mut linkage))?);
                        }
                        "global" | "const" | "shared" | "local" => {
                            let var = self.variable(&span, std::mem::take(&mut linkage))?;
                            m.variables.push(var);
                        }
                        "file" | "loc" | "pragma" => {
                            self.rest_of_line();
                            self.eat_punct(';');
                        }
                        "section" => {
                            self.rest_of_line();
                            self.skip_braces()?;
                        }
                        _ => {
                            return Err(Diagnostic::at(
                                &span,
                                format!("semfuzz does not read the module directive `.{d}`"),
                            )
                            .with_hint(
                                "a module holds `.version`, `.target`, `.address_size` and \
                                 `.func`/`.entry` definitions; module-level variables \
                                 (`.global`, `.shared`, `.const`) are not modelled",
                            ))
                        }
                    }
                }
                _ => {
                    return Err(self.error("a directive (`.version`, `.target`, `.func`, `.entry`)"))
                }
            }
        }
        Ok(m)
    }

    /// A module-level variable whose state-space token (at `start`) was just read, through
    /// its `;` (an initializer's braces included).
    fn variable(&mut self, start: &Span, linkage: Vec<String>) -> Result<Variable, Diagnostic> {
        let mut depth = 0;
        // The name is the first identifier: state space, alignment and type are `.` words
        // and numbers, and an array's length and initializer come after it.
        let mut name = None;
        loop {
            let end = self.span_here();
            match self.next() {
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                Some(Tok::Ident(n)) if name.is_none() => name = Some(n),
                Some(Tok::Punct(';')) if depth == 0 => {
                    let span = Span::new(self.file, start.start, end.start);
                    let name = name.ok_or_else(|| {
                        Diagnostic::at(&span, "this variable declaration names no variable")
                    })?;
                    return Ok(Variable {
                        linkage,
                        name,
                        text: self.file.text[start.start..end.start]
                            .trim_end()
                            .to_string(),
                        span,
                    });
                }
                Some(_) => {}
                None => {
                    return Err(
                        Diagnostic::at(start, "this variable declaration never ends")
                            .with_hint("end it with `;`"),
                    )
                }
            }
        }
    }

    fn skip_braces(&mut self) -> Result<(), Diagnostic> {
        let open = self.span_here();
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.next() {
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                Some(_) => {}
                None => {
                    return Err(Diagnostic::at(&open, "this `{` is never closed")
                        .with_hint("add the matching `}`"))
                }
            }
        }
        Ok(())
    }

    fn function(
        &mut self,
        kind: FunctionKind,
        linkage: Vec<String>,
    ) -> Result<Function, Diagnostic> {
        let mut returns = Vec::new();
        if kind == FunctionKind::Func && self.peek() == Some(&Tok::Punct('(')) {
            returns = self.params()?;
        }
        let (name, span) = self.ident("the function's name")?;
        let params = if self.peek() == Some(&Tok::Punct('(')) {
            self.params()?
        } else {
            Vec::new()
        };
        let mut directives = Vec::new();
        while let Some(Tok::Dot(name)) = self.peek().cloned() {
            self.pos += 1;
            let mut args = Vec::new();
            if let Some(Tok::Number(_)) = self.peek() {
                loop {
                    args.push(self.number(&format!("an argument of `.{name}`"))?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
            }
            directives.push(Directive { name, args });
        }
        let body = if self.eat_punct(';') {
            None
        } else {
            Some(self.block(0)?)
        };
        Ok(Function {
            kind,
            linkage,
            name,
            span,
            returns,
            params,
            directives,
            body,
        })
    }

    fn params(&mut self) -> Result<Vec<Param>, Diagnostic> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            out.push(self.param()?);
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    fn param(&mut self) -> Result<Param, Diagnostic> {
        let start = self.start();
        if !self.eat_dot("param") && !self.eat_dot("reg") {
            return Err(self.error("`.param`"));
        }
        let mut ty = None;
        let mut align = None;
        let mut attributes = Vec::new();
        while let Some(Tok::Dot(d)) = self.peek().cloned() {
            if type_bits(&d).is_some() && ty.is_some() {
                return Err(self.error("the parameter's name after its one type"));
            }
            self.pos += 1;
            if d == "align" {
                align = Some(self.number("the alignment")?);
            } else if type_bits(&d).is_some() {
                ty = Some(d);
            } else {
                attributes.push(d);
            }
        }
        let ty = ty.ok_or_else(|| self.error("the parameter's type (`.b32`, `.u64`, ...)"))?;
        let (name, _) = self.ident("the parameter's name")?;
        let array = if self.eat_punct('[') {
            let n = self.number("the array's length")?;
            self.expect_punct(']')?;
            Some(n)
        } else {
            None
        };
        Ok(Param {
            ty,
            align,
            attributes,
            name,
            array,
            span: self.span_from(start),
        })
    }

    fn block(&mut self, depth: usize) -> Result<Vec<Statement>, Diagnostic> {
        let open = self.span_here();
        if depth >= MAX_NESTING {
            return Err(Diagnostic::at(
                &open,
                format!("scopes nest more than {MAX_NESTING} deep"),
            ));
        }
        self.expect_punct('{')?;
        let mut out = Vec::new();
        loop {
            let start = self.start();
            match self.peek().cloned() {
                None => {
                    return Err(Diagnostic::at(&open, "this `{` is never closed")
                        .with_hint("add the matching `}`"))
                }
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(Tok::Punct('{')) => {
                    let inner = self.block(depth + 1)?;
                    out.push(Statement::Block(inner, self.span_from(start)));
                }
                Some(Tok::Dot(d)) if d == "reg" => {
                    self.pos += 1;
                    out.push(Statement::Reg(self.reg_decl(start)?));
                }
                Some(Tok::Dot(d)) if d == "loc" || d == "pragma" || d == "file" => {
                    self.rest_of_line();
                    self.eat_punct(';');
                }
                Some(Tok::Dot(_)) => {
                    let text = self.rest_of_line();
                    self.expect_punct(';')?;
                    out.push(Statement::Other(text, self.span_from(start)));
                }
                Some(Tok::Ident(name))
                    if self.tokens.get(self.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct(':')) =>
                {
                    self.pos += 2;
                    out.push(Statement::Label(name, self.span_from(start)));
                }
                Some(_) => out.push(Statement::Instr(self.instr()?)),
            }
        }
    }

    fn reg_decl(&mut self, start: usize) -> Result<RegDecl, Diagnostic> {
        let ty = match self.next() {
            Some(Tok::Dot(t)) if type_bits(&t).is_some() => t,
            _ => {
                self.pos -= 1;
                return Err(self.error("the register type (`.b32`, `.pred`, ...)"));
            }
        };
        let mut names = Vec::new();
        loop {
            let (name, _) = self.ident("a register name")?;
            let count = if self.eat_punct('<') {
                let n = self.number("the number of registers")?;
                self.expect_punct('>')?;
                Some(n)
            } else {
                None
            };
            names.push((name, count));
            if self.eat_punct(';') {
                break;
            }
            self.expect_punct(',')?;
        }
        Ok(RegDecl {
            ty,
            names,
            span: self.span_from(start),
        })
    }

    fn instr(&mut self) -> Result<Instr, Diagnostic> {
        let start = self.start();
        let guard = if self.eat_punct('@') {
            let negated = self.eat_punct('!');
            let (reg, _) = self.ident("the guard's predicate register")?;
            Some(Guard { reg, negated })
        } else {
            None
        };
        let opcode_span = self.span_here();
        let (opcode, _) = self.ident("an instruction")?;
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand(0)?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    return Err(self
                        .error("`,` or `;`")
                        .with_hint("every instruction ends with `;`"));
                }
            }
        }
        Ok(Instr {
            guard,
            opcode,
            opcode_span,
            operands,
            span: self.span_from(start),
        })
    }

    fn operand(&mut self, depth: usize) -> Result<Operand, Diagnostic> {
        let start = self.start();
        let kind = match self.peek().cloned() {
            Some(Tok::Punct('{')) if depth == 0 => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    items.push(self.operand(depth + 1)?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                OperandKind::Vector(items)
            }
            Some(Tok::Punct('(')) if depth == 0 => {
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        items.push(self.operand(depth + 1)?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                OperandKind::List(items)
            }
            Some(Tok::Punct('[')) => {
                self.pos += 1;
                let (base, _) = self.ident("an address (a parameter, variable or register)")?;
                let mut offset = 0;
                if self.eat_punct('+') {
                    offset = self.int("the address offset")?;
                } else if self.eat_punct('-') {
                    offset = -self.int("the address offset")?;
                }
                self.expect_punct(']')?;
                OperandKind::Address { base, offset }
            }
            Some(Tok::Punct('!')) => {
                self.pos += 1;
                OperandKind::Not(self.ident("a predicate register")?.0)
            }
            Some(Tok::Punct('-')) | Some(Tok::Number(_)) => OperandKind::Imm(self.imm()?),
            Some(Tok::Ident(s)) if s == "_" => {
                self.pos += 1;
                OperandKind::Sink
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                if self.eat_punct('|') {
                    OperandKind::Pair(s, self.ident("the second predicate of `p|q`")?.0)
                } else {
                    OperandKind::Name(s)
                }
            }
            _ => return Err(self.error("an operand")),
        };
        Ok(Operand {
            kind,
            span: self.span_from(start),
        })
    }

    fn int(&mut self, what: &str) -> Result<i64, Diagnostic> {
        match self.imm() {
            Ok(Imm::Int(v)) => Ok(v),
            Ok(_) => Err(Diagnostic::at(
                &self.span_from(self.tokens[self.pos - 1].start),
                format!("expected {what}, an integer"),
            )),
            Err(e) => Err(e),
        }
    }

    fn imm(&mut self) -> Result<Imm, Diagnostic> {
        let start = self.start();
        let negative = self.eat_punct('-');
        let span = self.span_here();
        let Some(Tok::Number(text)) = self.peek().cloned() else {
            return Err(self.error("a number"));
        };
        self.pos += 1;
        let bad = |why: &str| {
            Diagnostic::at(&span, format!("`{text}` is not a PTX immediate: {why}")).with_hint(
                "write integers as decimal, 0x hex, 0b binary or 0 octal, and floating-point \
                 values as their bits: 0f3F800000 (f32) or 0d3FF0000000000000 (f64)",
            )
        };
        let lower = text.to_ascii_lowercase();
        let imm = if let Some(hex) = lower.strip_prefix("0f") {
            if hex.len() != 8 {
                return Err(bad("0f takes exactly 8 hex digits"));
            }
            Imm::F32(u32::from_str_radix(hex, 16).map_err(|_| bad("not hex"))?)
        } else if let Some(hex) = lower.strip_prefix("0d") {
            if hex.len() != 16 {
                return Err(bad("0d takes exactly 16 hex digits"));
            }
            Imm::F64(u64::from_str_radix(hex, 16).map_err(|_| bad("not hex"))?)
        } else {
            let digits = lower.strip_suffix('u').unwrap_or(&lower);
            let (radix, digits) = if let Some(h) = digits.strip_prefix("0x") {
                (16, h)
            } else if let Some(b) = digits.strip_prefix("0b") {
                (2, b)
            } else if digits.len() > 1 && digits.starts_with('0') {
                (8, &digits[1..])
            } else {
                (10, digits)
            };
            let v = u64::from_str_radix(digits, radix)
                .map_err(|_| bad("not an integer of at most 64 bits"))?;
            Imm::Int(if negative {
                (v as i64).wrapping_neg()
            } else {
                v as i64
            })
        };
        if negative && !matches!(imm, Imm::Int(_)) {
            return Err(Diagnostic::at(
                &self.span_from(start),
                "a floating-point immediate takes no `-`",
            )
            .with_hint("flip the sign bit in the hex digits instead"));
        }
        Ok(imm)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(v) = &self.version {
            writeln!(f, ".version {v}")?;
        }
        if !self.targets.is_empty() {
            writeln!(f, ".target {}", self.targets.join(", "))?;
        }
        if let Some(a) = self.address_size {
            writeln!(f, ".address_size {a}")?;
        }
        for v in &self.variables {
            writeln!(f)?;
            for l in &v.linkage {
                write!(f, ".{l} ")?;
            }
            writeln!(f, "{};", v.text)?;
        }
        for func in &self.functions {
            writeln!(f)?;
            write!(f, "{func}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, ".param")?;
        for a in &self.attributes {
            write!(f, " .{a}")?;
        }
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        write!(f, " .{} {}", self.ty, self.name)?;
        if let Some(n) = self.array {
            write!(f, "[{n}]")?;
        }
        Ok(())
    }
}

fn param_list(f: &mut fmt::Formatter<'_>, params: &[Param]) -> fmt::Result {
    write!(f, "(")?;
    for (i, p) in params.iter().enumerate() {
        write!(f, "{}{p}", if i > 0 { ", " } else { "" })?;
    }
    write!(f, ")")
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.linkage {
            write!(f, ".{l} ")?;
        }
        match self.kind {
            FunctionKind::Func => {
                write!(f, ".func ")?;
                if !self.returns.is_empty() {
                    param_list(f, &self.returns)?;
                    write!(f, " ")?;
                }
            }
            FunctionKind::Entry => write!(f, ".entry ")?,
        }
        write!(f, "{}", self.name)?;
        param_list(f, &self.params)?;
        for d in &self.directives {
            write!(f, "\n.{}", d.name)?;
            for (i, a) in d.args.iter().enumerate() {
                write!(f, "{}{a}", if i > 0 { ", " } else { " " })?;
            }
        }
        match &self.body {
            None => writeln!(f, ";"),
            Some(body) => {
                writeln!(f)?;
                print_block(f, body, 0)
            }
        }
    }
}

fn print_block(f: &mut fmt::Formatter<'_>, body: &[Statement], depth: usize) -> fmt::Result {
    let pad = "\t".repeat(depth);
    writeln!(f, "{pad}{{")?;
    for s in body {
        match s {
            Statement::Reg(r) => {
                write!(f, "{pad}\t.reg .{} ", r.ty)?;
                for (i, (n, c)) in r.names.iter().enumerate() {
                    write!(f, "{}{n}", if i > 0 { ", " } else { "" })?;
                    if let Some(c) = c {
                        write!(f, "<{c}>")?;
                    }
                }
                writeln!(f, ";")?;
            }
            Statement::Label(l, _) => writeln!(f, "{l}:")?,
            Statement::Instr(i) => writeln!(f, "{pad}\t{i}")?,
            Statement::Block(b, _) => print_block(f, b, depth + 1)?,
            Statement::Other(text, _) => writeln!(f, "{pad}\t{text};")?,
        }
    }
    writeln!(f, "{pad}}}")
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.reg)?;
        }
        write!(f, "{}", self.opcode)?;
        for (i, o) in self.operands.iter().enumerate() {
            write!(f, "{}{}", if i > 0 { ", " } else { " " }, o.kind)?;
        }
        write!(f, ";")
    }
}

impl fmt::Display for OperandKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperandKind::Name(n) => write!(f, "{n}"),
            OperandKind::Not(n) => write!(f, "!{n}"),
            OperandKind::Pair(p, q) => write!(f, "{p}|{q}"),
            OperandKind::Sink => write!(f, "_"),
            OperandKind::Imm(i) => write!(f, "{i}"),
            OperandKind::Vector(items) => {
                write!(f, "{{")?;
                for (i, o) in items.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { ", " } else { "" }, o.kind)?;
                }
                write!(f, "}}")
            }
            OperandKind::List(items) => {
                write!(f, "(")?;
                for (i, o) in items.iter().enumerate() {
                    write!(f, "{}{}", if i > 0 { ", " } else { "" }, o.kind)?;
                }
                write!(f, ")")
            }
            OperandKind::Address { base, offset } => match offset {
                0 => write!(f, "[{base}]"),
                o if *o < 0 => write!(f, "[{base}-{}]", o.unsigned_abs()),
                o => write!(f, "[{base}+{o}]"),
            },
        }
    }
}

impl fmt::Display for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Imm::Int(v) => write!(f, "{v}"),
            Imm::F32(b) => write!(f, "0f{b:08X}"),
            Imm::F64(b) => write!(f, "0d{b:016X}"),
        }
    }
}
