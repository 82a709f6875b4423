//! LLVM IR module text ⇄ syntax tree.
//!
//! The part of the textual IR that a floating-point function needs: `define` with typed
//! parameters, function attributes (`#0` groups and inline `"key"="value"` pairs), labels and
//! instructions with their flags, predicates, typed operands, constants (integers, `true`,
//! `0xH3C00`-style and decimal floats, `<T a, T b>` vectors, `zeroinitializer`), calls and
//! `ret`. Everything else at module level (`target`, `source_filename`, `declare`, comdats,
//! module flags and all other metadata, globals) is kept as its line; global variables are
//! also listed by name and address space ([`Global`]), so that a function using one is refused
//! by name. A statement may span lines inside `( )`, `[ ]` and `< >`, as trunk's tests write
//! long parameter lists. An instruction the reader does not know (or a call it cannot lay
//! out: an indirect call, inline `asm`) is kept as its opcode and text, so that one unsupported
//! function does not stop the others from being read; [`crate::lower`] refuses it with its
//! location. Every syntax error is located.
//!
//! Debug information has no effect on results and the tree does not hold it: debug records
//! (`#dbg_value(...)`, `#dbg_declare(...)`, LLVM 19+) are dropped, and an instruction's
//! metadata attachments keep their names and the node as written (`!dbg !12`, `!fpmath !{float 2.5}`);
//! linkage, `section`, `align`, `comdat` and the like on a definition are kept as words.
//!
//! [`Display`](std::fmt::Display) prints a module in one canonical spelling; parsing the
//! printed text prints the same text again (a fixpoint).

use semfuzz_spec::diag::{Diagnostic, SourceFile, Span};
use std::fmt;
use std::sync::Arc;

/// A parsed `.ll` module.
#[derive(Clone, Debug)]
pub struct Module {
    /// Module-level lines other than functions and attribute groups, as written.
    pub lines: Vec<String>,
    /// The global values (`@g = ...`) those lines define, in order.
    pub globals: Vec<Global>,
    /// Attribute groups (`attributes #0 = { ... }`).
    pub groups: Vec<AttrGroup>,
    /// The functions with a body, in order.
    pub functions: Vec<Function>,
}

/// A global value a module-level line defines: `@g = addrspace(1) global float 0.0`,
/// `@c = internal constant [4 x i32] ...`, `@a = alias ...`. Its line stays in
/// [`Module::lines`]; a function reads a `constant` through its initializer, and is refused
/// any other global naming it.
#[derive(Clone, Debug)]
pub struct Global {
    /// Its name without `@`.
    pub name: String,
    /// What it is: `global`, `constant`, `alias` or `ifunc`.
    pub kind: String,
    /// The `addrspace(N)` written before `kind` (0 if none).
    pub addrspace: u32,
    /// What follows `kind` on its line: the type, the initializer, `align N` and the like.
    pub definition: String,
    /// Where its name is.
    pub span: Span,
}

/// `attributes #N = { ... }`.
#[derive(Clone, Debug)]
pub struct AttrGroup {
    /// `N`.
    pub id: u32,
    /// Its attributes.
    pub attrs: Vec<Attr>,
}

/// One function attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attr {
    /// `"key"="value"` (or `"key"` alone, with an empty value).
    Pair(String, String),
    /// A keyword, with its parenthesised arguments if any (`nounwind`, `memory(none)`).
    Word(String),
    /// A reference to a group, `#N`.
    Group(u32),
}

/// An IR type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// `half`, `bfloat`, `float`, `double`.
    Float(FloatTy),
    /// `iN`.
    Int(u32),
    /// `<N x T>` of a scalar type.
    Vector(u32, Box<Type>),
    /// `ptr`, `ptr addrspace(N)`: a pointer in address space N (0, the generic one, when
    /// none is written).
    Ptr(u32),
    /// `{T, U}`: a literal struct (what `llvm.sadd.with.overflow` returns).
    Struct(Vec<Type>),
    /// `void`.
    Void,
    /// Any other type as written (`fp128`, `label`): read, never modelled.
    Other(String),
}

/// The IR floating-point types semfuzz models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatTy {
    /// IEEE binary16.
    Half,
    /// bfloat16.
    BFloat,
    /// IEEE binary32.
    Float,
    /// IEEE binary64.
    Double,
}

impl FloatTy {
    /// Its width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FloatTy::Half | FloatTy::BFloat => 16,
            FloatTy::Float => 32,
            FloatTy::Double => 64,
        }
    }

    /// The IR keyword.
    pub fn keyword(self) -> &'static str {
        match self {
            FloatTy::Half => "half",
            FloatTy::BFloat => "bfloat",
            FloatTy::Float => "float",
            FloatTy::Double => "double",
        }
    }
}

impl Type {
    /// The element type of a vector; the type itself otherwise.
    pub fn elem(&self) -> &Type {
        match self {
            Type::Vector(_, e) => e,
            t => t,
        }
    }

    /// How many lanes (1 for a scalar).
    pub fn lanes(&self) -> u32 {
        match self {
            Type::Vector(n, _) => *n,
            _ => 1,
        }
    }

    /// The width of a scalar in bits, `None` for types semfuzz does not model. A generic,
    /// global or shared pointer is 64 bits: nvptx64's data layout gives address spaces 0 and 1
    /// no other size, and shared (3) that size unless `nvptx-short-ptr` (then the PTX's
    /// parameter is 32 bits, which the comparison of the two sides' widths refuses); the
    /// others are not modelled.
    pub fn scalar_bits(&self) -> Option<u32> {
        match self {
            Type::Float(f) => Some(f.bits()),
            Type::Int(n) => Some(*n),
            Type::Ptr(0 | 1 | 3) => Some(64),
            _ => None,
        }
    }

    /// The whole width in bits (lanes × element), `None` for types semfuzz does not model.
    pub fn bits(&self) -> Option<u32> {
        self.elem().scalar_bits().map(|b| b * self.lanes())
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Float(t) => f.write_str(t.keyword()),
            Type::Int(n) => write!(f, "i{n}"),
            Type::Vector(n, e) => write!(f, "<{n} x {e}>"),
            Type::Ptr(0) => f.write_str("ptr"),
            Type::Ptr(n) => write!(f, "ptr addrspace({n})"),
            Type::Struct(fields) => {
                let fields: Vec<String> = fields.iter().map(|t| t.to_string()).collect();
                write!(f, "{{{}}}", fields.join(", "))
            }
            Type::Void => f.write_str("void"),
            Type::Other(s) => f.write_str(s),
        }
    }
}

/// A function with a body.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name without `@`.
    pub name: String,
    /// The return type.
    pub ret: Type,
    /// The parameters in order.
    pub params: Vec<Param>,
    /// Its attributes (groups, pairs and keywords written after the parameters).
    pub attrs: Vec<Attr>,
    /// Whether its calling convention is a kernel's (`ptx_kernel`, or `cc 71`).
    pub kernel: bool,
    /// The body.
    pub body: Vec<Statement>,
    /// Where `define` is.
    pub span: Span,
}

/// A parameter.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its type.
    pub ty: Type,
    /// Its name without `%` (a number where the text leaves it unnamed).
    pub name: String,
    /// `dereferenceable(N)`: how many bytes from the pointer may be read (LangRef 'Parameter
    /// Attributes').
    pub dereferenceable: Option<u64>,
    /// `noalias`: what it points to is reached through no other parameter while the function
    /// runs (LangRef 'Parameter Attributes').
    pub noalias: bool,
    /// Where it is.
    pub span: Span,
}

/// A label or an instruction.
#[derive(Clone, Debug)]
pub enum Statement {
    /// `name:`.
    Label(String, Span),
    /// An instruction (boxed: it is much larger than a label).
    Instr(Box<Instr>),
}

/// An operand value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// `%name`.
    Local(String),
    /// A constant as written (`1`, `-2`, `true`, `0xH3C00`, `1.500000e+00`, `poison`,
    /// `zeroinitializer`).
    Const(String),
    /// `<T a, T b>`.
    Vector(Vec<(Type, Value)>),
    /// `splat (T a)` (LLVM 19+): a vector with `a` in every lane.
    Splat(Box<(Type, Value)>),
    /// `@name`: a global value (a variable's or function's address).
    Global(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Local(n) => write!(f, "%{n}"),
            Value::Const(c) => f.write_str(c),
            Value::Global(n) => write!(f, "@{n}"),
            Value::Splat(e) => write!(f, "splat ({} {})", e.0, e.1),
            Value::Vector(items) => {
                let items: Vec<String> = items.iter().map(|(t, v)| format!("{t} {v}")).collect();
                write!(f, "<{}>", items.join(", "))
            }
        }
    }
}

/// An operand: its type where the syntax writes one before it, and its value.
#[derive(Clone, Debug)]
pub struct Operand {
    /// The type written before the value (`None` where the instruction's type applies).
    pub ty: Option<Type>,
    /// A call argument's attributes as written between its type and value (`align 4
    /// noundef`), kept so that a printed module compiles as the original did; empty if none.
    pub attrs: String,
    /// The value.
    pub value: Value,
    /// Where it is.
    pub span: Span,
}

/// How an instruction's operands are laid out in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `op [flags] T a, b` (one or more untyped operands after one type).
    Typed,
    /// `op [flags] PRED T a, b`.
    Compare,
    /// `op [flags] T a to T2`.
    Cast,
    /// `op [flags] T1 a, T2 b, ...` (every operand typed: `select`, vector operations).
    EachTyped,
    /// `call [flags] T @name(T a, ...)`.
    Call,
    /// `extractvalue T a, i, ...` (a typed aggregate, then constant indices).
    Extract,
    /// `ret T a`, `ret void`.
    Ret,
    /// A terminator that is not `ret`, every operand typed: `br label %a`,
    /// `br i1 %c, label %a, label %b`, `switch T %v, label %d [ T c, label %x ... ]` (the
    /// operands flat: value, default, then each case's constant and label), `unreachable`.
    Branch,
    /// `phi [flags] T [ v, %bb ], ...`: the operands flat, each value then its block.
    Phi,
    /// An instruction the reader does not know, kept as its text after the opcode.
    Unknown,
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct Instr {
    /// The value it defines, without `%`.
    pub result: Option<String>,
    /// The opcode (`fadd`, `call`, `ret`).
    pub opcode: String,
    /// Words between the opcode and its type: fast-math flags, `nuw`/`nsw`/`exact`,
    /// `tail` (written before `call`), `disjoint`, `nneg`, `samesign`.
    pub flags: Vec<String>,
    /// The predicate of a compare.
    pub pred: Option<String>,
    /// The type written after the flags (the result type of a call), if any.
    pub ty: Option<Type>,
    /// The callee of a call, without `@`.
    pub callee: Option<String>,
    /// The operands in order.
    pub operands: Vec<Operand>,
    /// The destination type of a cast.
    pub to: Option<Type>,
    /// Metadata attachments (`, !fpmath !3`), in order.
    pub metadata: Vec<Attachment>,
    /// For [`Shape::Unknown`], the global values (`@g`, without `@`) its text names.
    pub globals: Vec<String>,
    /// How the text lays it out.
    pub shape: Shape,
    /// For [`Shape::Unknown`], the text after the opcode.
    pub raw: String,
    /// The whole instruction.
    pub span: Span,
    /// The opcode.
    pub opcode_span: Span,
}

/// A metadata attachment: `!fpmath !3`, `!dbg !{}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    /// Its kind, without `!` (`fpmath`, `dbg`).
    pub name: String,
    /// The node as written (`!3`, `!{float 2.5}`).
    pub node: String,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Local(String),
    Global(String),
    Word(String),
    Num(String),
    Str(String),
    Hash(u32),
    Record(String),
    Meta(String),
    Punct(char),
    Newline,
}

struct Lexed {
    tok: Tok,
    start: usize,
    end: usize,
}

fn name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-')
}

fn lex(file: &Arc<SourceFile>) -> Result<Vec<Lexed>, Diagnostic> {
    let s = file.text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // Open `(`, `[` and `<`: a line break inside them does not end the statement.
    let mut depth = 0usize;
    let err = |a: usize, b: usize, m: String| Diagnostic::at(&Span::new(file, a, b), m);
    while i < s.len() {
        let c = s[i];
        let start = i;
        let tok = match c {
            b'\n' if depth > 0 => {
                i += 1;
                continue;
            }
            b'\n' => {
                i += 1;
                Tok::Newline
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b';' => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'%' | b'@' | b'!' | b'#' => {
                i += 1;
                let name = if i < s.len() && s[i] == b'"' {
                    let end = file.text[i + 1..]
                        .find('"')
                        .ok_or_else(|| err(start, i, "an unterminated quoted name".into()))?;
                    let n = file.text[i + 1..i + 1 + end].to_string();
                    i += end + 2;
                    n
                } else {
                    let b = i;
                    while i < s.len() && name_char(s[i]) {
                        i += 1;
                    }
                    file.text[b..i].to_string()
                };
                match c {
                    b'%' if !name.is_empty() => Tok::Local(name),
                    b'@' if !name.is_empty() => Tok::Global(name),
                    b'!' => Tok::Meta(name),
                    // A debug record (`#dbg_value(...)`, LLVM 19+).
                    b'#' if name.starts_with("dbg_") => Tok::Record(name),
                    b'#' => Tok::Hash(name.parse().map_err(|_| {
                        err(
                            start,
                            i,
                            format!("`#{name}` is not an attribute group number"),
                        )
                    })?),
                    _ => return Err(err(start, i, format!("`{}` names nothing", c as char))),
                }
            }
            b'"' => {
                let end = file.text[i + 1..]
                    .find('"')
                    .ok_or_else(|| err(start, i + 1, "an unterminated string".into()))?;
                let v = file.text[i + 1..i + 1 + end].to_string();
                i += end + 2;
                Tok::Str(v)
            }
            b'0'..=b'9' | b'-' | b'+' => {
                i += 1;
                while i < s.len()
                    && (s[i].is_ascii_alphanumeric()
                        || s[i] == b'.'
                        || ((s[i] == b'-' || s[i] == b'+') && matches!(s[i - 1], b'e' | b'E')))
                {
                    i += 1;
                }
                Tok::Num(file.text[start..i].to_string())
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'.' || c == b'$' => {
                while i < s.len() && name_char(s[i]) && s[i] != b'-' {
                    i += 1;
                }
                Tok::Word(file.text[start..i].to_string())
            }
            // `|` separates the output and input modes of `denormal_fpenv(preservesign|ieee)`.
            b'=' | b',' | b'(' | b')' | b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b'*'
            | b'|' => {
                i += 1;
                match c {
                    b'(' | b'[' | b'<' => depth += 1,
                    b')' | b']' | b'>' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                Tok::Punct(c as char)
            }
            _ => {
                let ch = file.text[i..].chars().next().unwrap_or('?');
                return Err(err(
                    i,
                    i + ch.len_utf8(),
                    format!("unexpected character `{ch}`"),
                ));
            }
        };
        out.push(Lexed { tok, start, end: i });
    }
    Ok(out)
}

struct Parser<'a> {
    file: &'a Arc<SourceFile>,
    toks: Vec<Lexed>,
    pos: usize,
}

/// Parses a module.
pub fn parse(file: &Arc<SourceFile>) -> Result<Module, Diagnostic> {
    let toks = lex(file)?;
    let mut p = Parser { file, toks, pos: 0 };
    p.module()
}

/// Words that are values where an operand is expected.
const VALUE_WORDS: &[&str] = &[
    "true",
    "false",
    "poison",
    "undef",
    "zeroinitializer",
    "null",
];

/// The IR instructions whose text the reader lays out, by shape.
fn shape_of(opcode: &str) -> Shape {
    match opcode {
        "fadd" | "fsub" | "fmul" | "fdiv" | "frem" | "fneg" | "add" | "sub" | "mul" | "udiv"
        | "sdiv" | "urem" | "srem" | "shl" | "lshr" | "ashr" | "and" | "or" | "xor" | "freeze" => {
            Shape::Typed
        }
        "fcmp" | "icmp" => Shape::Compare,
        "fptrunc" | "fpext" | "fptosi" | "fptoui" | "sitofp" | "uitofp" | "bitcast" | "zext"
        | "sext" | "trunc" | "ptrtoint" | "inttoptr" => Shape::Cast,
        "select" | "extractelement" | "insertelement" | "shufflevector" => Shape::EachTyped,
        "call" => Shape::Call,
        "extractvalue" => Shape::Extract,
        "ret" => Shape::Ret,
        "br" | "switch" | "unreachable" => Shape::Branch,
        "phi" => Shape::Phi,
        _ => Shape::Unknown,
    }
}

/// Flags an instruction may write before its type.
const FLAG_WORDS: &[&str] = &[
    "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast", "nuw", "nsw", "exact",
    "disjoint", "nneg", "samesign",
];

impl<'a> Parser<'a> {
    fn span(&self, a: usize, b: usize) -> Span {
        Span::new(self.file, a, b)
    }

    fn here(&self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => self.span(t.start, t.end),
            None => self.span(self.file.text.len(), self.file.text.len()),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn next(&mut self) -> Option<&Lexed> {
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }

    fn start(&self) -> usize {
        self.toks
            .get(self.pos)
            .map_or(self.file.text.len(), |t| t.start)
    }

    fn end_of_prev(&self) -> usize {
        self.toks.get(self.pos.wrapping_sub(1)).map_or(0, |t| t.end)
    }

    fn error(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(&self.here(), msg)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), Diagnostic> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}` {what}")))
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Tok::Newline) {
            self.pos += 1;
        }
    }

    /// The rest of the current line as written (the newline not consumed).
    fn rest_of_line(&mut self) -> String {
        let a = self.start();
        while !matches!(self.peek(), None | Some(Tok::Newline)) {
            self.pos += 1;
        }
        let b = self.end_of_prev().max(a);
        self.file.text[a..b].trim().to_string()
    }

    fn module(&mut self) -> Result<Module, Diagnostic> {
        let mut m = Module {
            lines: Vec::new(),
            globals: Vec::new(),
            groups: Vec::new(),
            functions: Vec::new(),
        };
        loop {
            self.skip_newlines();
            match self.peek() {
                None => return Ok(m),
                Some(Tok::Word(w)) if w == "define" => {
                    let f = self.function()?;
                    m.functions.push(f);
                }
                Some(Tok::Word(w)) if w == "attributes" => {
                    self.pos += 1;
                    let id = match self.next().map(|t| &t.tok) {
                        Some(Tok::Hash(n)) => *n,
                        _ => {
                            self.pos -= 1;
                            return Err(self.error("expected `#N` after `attributes`"));
                        }
                    };
                    self.expect('=', "after the attribute group's number")?;
                    self.expect('{', "opening the attribute group")?;
                    let attrs = self.attrs(true)?;
                    self.expect('}', "closing the attribute group")?;
                    m.groups.push(AttrGroup { id, attrs });
                }
                Some(Tok::Global(n))
                    if self.toks.get(self.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct('=')) =>
                {
                    let name = n.clone();
                    let span = self.here();
                    let a = self.start();
                    self.pos += 2;
                    let (kind, addrspace) = self.global_kind();
                    // `global_kind` stops at the kind's word.
                    let after_kind = self.toks.get(self.pos).map_or(0, |t| t.end);
                    let line = self.rest_of_line_from(a);
                    if let Some(kind) = kind {
                        let definition = self.file.text[after_kind..]
                            .lines()
                            .next()
                            .unwrap_or_default()
                            .trim()
                            .to_string();
                        m.globals.push(Global {
                            name,
                            kind,
                            addrspace,
                            definition,
                            span,
                        });
                    }
                    m.lines.push(line);
                }
                Some(_) => {
                    let line = self.rest_of_line();
                    m.lines.push(line);
                }
            }
        }
    }

    /// After `@name =`: the global value's kind (`global`, `constant`, `alias`, `ifunc`) and
    /// the `addrspace(N)` before it, skipping linkage, visibility and the like; `None` where
    /// the line names no kind.
    fn global_kind(&mut self) -> (Option<String>, u32) {
        let mut addrspace = 0;
        loop {
            match self.peek().cloned() {
                Some(Tok::Word(w)) if w == "addrspace" => {
                    self.pos += 1;
                    if self.eat('(') {
                        if let Some(Tok::Num(n)) = self.peek() {
                            addrspace = n.parse().unwrap_or(0);
                        }
                    }
                }
                Some(Tok::Word(w))
                    if matches!(w.as_str(), "global" | "constant" | "alias" | "ifunc") =>
                {
                    return (Some(w), addrspace)
                }
                None | Some(Tok::Newline) => return (None, addrspace),
                Some(_) => self.pos += 1,
            }
        }
    }

    /// The text from byte `a` to the end of the current line (the newline not consumed).
    fn rest_of_line_from(&mut self, a: usize) -> String {
        self.rest_of_line();
        self.file.text[a..self.end_of_prev().max(a)]
            .trim()
            .to_string()
    }

    /// Function attributes up to `{` (or `}` inside a group).
    fn attrs(&mut self, in_group: bool) -> Result<Vec<Attr>, Diagnostic> {
        let mut attrs = Vec::new();
        loop {
            if in_group {
                self.skip_newlines();
            }
            match self.peek().cloned() {
                Some(Tok::Hash(n)) => {
                    self.pos += 1;
                    attrs.push(Attr::Group(n));
                }
                Some(Tok::Str(k)) => {
                    self.pos += 1;
                    let v = if self.eat('=') {
                        match self.next().map(|t| t.tok.clone()) {
                            Some(Tok::Str(v)) => v,
                            _ => {
                                self.pos -= 1;
                                return Err(self.error(format!(
                                    "expected a string value for attribute \"{k}\""
                                )));
                            }
                        }
                    } else {
                        String::new()
                    };
                    attrs.push(Attr::Pair(k, v));
                }
                Some(Tok::Word(w)) => {
                    let a = self.start();
                    self.pos += 1;
                    match (w.as_str(), self.peek().cloned()) {
                        (_, Some(Tok::Punct('('))) => self.skip_parens()?,
                        // `align 16`, `section ".text"`, `gc "statepoint"`, `partition "p"`.
                        ("align" | "alignstack", Some(Tok::Num(_)))
                        | ("section" | "gc" | "partition", Some(Tok::Str(_))) => self.pos += 1,
                        // `personality ptr @f`, `prefix i32 1`, `prologue i8 0`.
                        ("personality" | "prefix" | "prologue", _) if !in_group => {
                            self.ty("the type of its constant")?;
                            self.value()?;
                        }
                        _ => {}
                    }
                    attrs.push(Attr::Word(
                        self.file.text[a..self.end_of_prev()].to_string(),
                    ));
                }
                Some(Tok::Meta(_)) if !in_group => {
                    // `!dbg !12` on a definition: debug information, not semantics.
                    self.pos += 1;
                    self.metadata_value()?;
                }
                _ => return Ok(attrs),
            }
        }
    }

    /// Skips a metadata operand if one starts here: `!12`, `!"text"`, `!{...}`,
    /// `!DILocation(...)`.
    fn metadata_value(&mut self) -> Result<(), Diagnostic> {
        if let Some(Tok::Meta(name)) = self.peek().cloned() {
            self.pos += 1;
            match self.peek() {
                Some(Tok::Punct('{')) if name.is_empty() => self.skip_balanced('{', '}')?,
                Some(Tok::Punct('(')) if name.starts_with(|c: char| c.is_ascii_alphabetic()) => {
                    self.skip_parens()?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Skips a balanced `open ... close` starting here.
    fn skip_balanced(&mut self, open: char, close: char) -> Result<(), Diagnostic> {
        let at = self.here();
        let mut depth = 0;
        loop {
            match self.next().map(|t| &t.tok) {
                Some(Tok::Punct(c)) if *c == open => depth += 1,
                Some(Tok::Punct(c)) if *c == close => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                None => {
                    return Err(Diagnostic::at(
                        &at,
                        format!("this `{open}` is never closed"),
                    ))
                }
                _ => {}
            }
        }
    }

    /// Skips a balanced `( ... )`.
    fn skip_parens(&mut self) -> Result<(), Diagnostic> {
        self.skip_balanced('(', ')')
    }

    /// A type, if one starts here.
    fn try_type(&mut self) -> Result<Option<Type>, Diagnostic> {
        let a = self.start();
        let Some(t) = self.base_type()? else {
            return Ok(None);
        };
        // LLVM 14-16's typed pointers (`float*`, `i8 addrspace(1)*`): read, never modelled,
        // and printed as written.
        let mut typed = false;
        loop {
            let tok = |k: usize| self.toks.get(self.pos + k).map(|t| &t.tok);
            let star = if tok(0) == Some(&Tok::Punct('*')) {
                1
            } else if matches!(tok(0), Some(Tok::Word(w)) if w == "addrspace")
                && tok(1) == Some(&Tok::Punct('('))
                && matches!(tok(2), Some(Tok::Num(_)))
                && tok(3) == Some(&Tok::Punct(')'))
                && tok(4) == Some(&Tok::Punct('*'))
            {
                5
            } else {
                break;
            };
            self.pos += star;
            typed = true;
        }
        Ok(Some(if typed {
            Type::Other(self.file.text[a..self.end_of_prev()].to_string())
        } else {
            t
        }))
    }

    /// A type other than a typed pointer, if one starts here.
    fn base_type(&mut self) -> Result<Option<Type>, Diagnostic> {
        let t = match self.peek() {
            Some(Tok::Word(w)) => {
                let t = match w.as_str() {
                    "half" => Type::Float(FloatTy::Half),
                    "bfloat" => Type::Float(FloatTy::BFloat),
                    "float" => Type::Float(FloatTy::Float),
                    "double" => Type::Float(FloatTy::Double),
                    "void" => Type::Void,
                    "ptr" => {
                        self.pos += 1;
                        return Ok(Some(Type::Ptr(self.addrspace()?)));
                    }
                    "fp128" | "x86_fp80" | "ppc_fp128" | "label" | "metadata" | "token" => {
                        Type::Other(w.clone())
                    }
                    w => match w.strip_prefix('i').and_then(|n| n.parse::<u32>().ok()) {
                        Some(n) if (1..=1 << 23).contains(&n) => Type::Int(n),
                        _ => return Ok(None),
                    },
                };
                self.pos += 1;
                t
            }
            Some(Tok::Punct('<')) => {
                let open = self.here();
                self.pos += 1;
                let n = match self.next().map(|t| t.tok.clone()) {
                    Some(Tok::Num(n)) => n.parse::<u32>().ok(),
                    _ => None,
                };
                let Some(n) = n.filter(|n| *n > 0) else {
                    return Err(Diagnostic::at(&open, "expected `<N x TYPE>`"));
                };
                match self.next().map(|t| t.tok.clone()) {
                    Some(Tok::Word(x)) if x == "x" => {}
                    _ => return Err(Diagnostic::at(&open, "expected `<N x TYPE>`")),
                }
                let elem = self
                    .try_type()?
                    .ok_or_else(|| self.error("expected the vector's element type"))?;
                self.expect('>', "closing the vector type")?;
                Type::Vector(n, Box::new(elem))
            }
            // A named type (`%struct.S`): read, never modelled.
            Some(Tok::Local(n)) => {
                let t = Type::Other(format!("%{n}"));
                self.pos += 1;
                t
            }
            // An array (`[4 x float]`): read, never modelled.
            Some(Tok::Punct('[')) => {
                let a = self.start();
                self.skip_balanced('[', ']')?;
                Type::Other(self.file.text[a..self.end_of_prev()].to_string())
            }
            Some(Tok::Punct('{')) => {
                self.pos += 1;
                let mut fields = Vec::new();
                if !self.eat('}') {
                    loop {
                        fields.push(self.ty("a struct field's type")?);
                        if self.eat('}') {
                            break;
                        }
                        self.expect(',', "between struct fields")?;
                    }
                }
                Type::Struct(fields)
            }
            _ => return Ok(None),
        };
        Ok(Some(t))
    }

    /// The `addrspace(N)` after `ptr`, if written (0 if not).
    fn addrspace(&mut self) -> Result<u32, Diagnostic> {
        if !matches!(self.peek(), Some(Tok::Word(w)) if w == "addrspace") {
            return Ok(0);
        }
        self.pos += 1;
        self.expect('(', "after `addrspace`")?;
        let n = match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Num(n)) => n.parse::<u32>().ok(),
            _ => None,
        };
        let Some(n) = n else {
            self.pos -= 1;
            return Err(self.error("expected an address space number in `addrspace(N)`"));
        };
        self.expect(')', "closing `addrspace(N)`")?;
        Ok(n)
    }

    /// A type after any keywords (`dso_local`, `noundef`, `nofpclass(nan)`) before it.
    fn type_after_words(&mut self, what: &str) -> Result<Type, Diagnostic> {
        loop {
            if let Some(t) = self.try_type()? {
                return Ok(t);
            }
            match self.peek().cloned() {
                Some(Tok::Word(w)) => {
                    self.pos += 1;
                    self.word_arguments(&w)?;
                }
                _ => return Err(self.error(format!("expected {what}"))),
            }
        }
    }

    /// What follows the attribute or keyword `word` just read: `(...)` (`nofpclass(nan)`),
    /// or the number of `align 4` and `cc 71`.
    fn word_arguments(&mut self, word: &str) -> Result<(), Diagnostic> {
        match self.peek() {
            Some(Tok::Punct('(')) => self.skip_parens(),
            Some(Tok::Num(_)) if matches!(word, "align" | "cc") => {
                self.pos += 1;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn ty(&mut self, what: &str) -> Result<Type, Diagnostic> {
        self.try_type()?
            .ok_or_else(|| self.error(format!("expected {what}")))
    }

    fn function(&mut self) -> Result<Function, Diagnostic> {
        let d = self.here();
        self.pos += 1;
        // Linkage, visibility, calling convention and return attributes before the type.
        let from = self.pos;
        let ret = self.type_after_words("the function's return type")?;
        let kernel = self.toks[from..self.pos].iter().enumerate().any(|(k, t)| {
            matches!(&t.tok, Tok::Word(w) if w == "ptx_kernel")
                || (matches!(&t.tok, Tok::Word(w) if w == "cc")
                    && matches!(self.toks.get(from + k + 1).map(|n| &n.tok), Some(Tok::Num(n)) if n == "71"))
        });
        let name = match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Global(n)) => n,
            _ => {
                self.pos -= 1;
                return Err(self.error("expected the function's name `@name`"));
            }
        };
        self.expect('(', "opening the parameter list")?;
        let mut params = Vec::new();
        if !self.eat(')') {
            loop {
                let a = self.start();
                let ty = self.ty("a parameter type")?;
                // Parameter attributes (`noundef`, `nofpclass(nan)`, `align 4`) before the name;
                // of them only `dereferenceable(N)` and `noalias` are read.
                let mut dereferenceable = None;
                let mut noalias = false;
                while let Some(Tok::Word(w)) = self.peek().cloned() {
                    self.pos += 1;
                    noalias |= w == "noalias";
                    if w == "dereferenceable" {
                        if let (Some(Tok::Punct('(')), Some(Tok::Num(n))) = (
                            self.toks.get(self.pos).map(|t| &t.tok),
                            self.toks.get(self.pos + 1).map(|t| &t.tok),
                        ) {
                            dereferenceable = n.parse().ok();
                        }
                    }
                    self.word_arguments(&w)?;
                }
                let name = match self.peek() {
                    Some(Tok::Local(n)) => {
                        let n = n.clone();
                        self.pos += 1;
                        n
                    }
                    _ => params.len().to_string(),
                };
                params.push(Param {
                    ty,
                    name,
                    dereferenceable,
                    noalias,
                    span: self.span(a, self.end_of_prev()),
                });
                if self.eat(')') {
                    break;
                }
                self.expect(',', "between parameters")?;
            }
        }
        let attrs = self.attrs(false)?;
        self.expect('{', "opening the function body")?;
        let mut body = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    break;
                }
                None => return Err(Diagnostic::at(&d, "this function's body is never closed")),
                // Debug records describe variables to a debugger; they compute nothing.
                Some(Tok::Record(_)) => {
                    self.pos += 1;
                    self.skip_parens()?;
                }
                Some(Tok::Word(w)) | Some(Tok::Num(w))
                    if self.toks.get(self.pos + 1).map(|t| &t.tok) == Some(&Tok::Punct(':')) =>
                {
                    let w = w.clone();
                    let s = self.here();
                    self.pos += 2;
                    body.push(Statement::Label(w, s));
                }
                _ => {
                    let i = self.instr()?;
                    body.push(Statement::Instr(Box::new(i)));
                }
            }
        }
        Ok(Function {
            name,
            ret,
            params,
            attrs,
            kernel,
            body,
            span: d,
        })
    }

    fn value(&mut self) -> Result<Value, Diagnostic> {
        let v = match self.peek().cloned() {
            Some(Tok::Local(n)) => Value::Local(n),
            Some(Tok::Num(n)) => Value::Const(n),
            Some(Tok::Word(w)) if VALUE_WORDS.contains(&w.as_str()) => Value::Const(w),
            // `f0x3FB8AA3B`: a float's bits in its own format, as LLVM 24 (Triton 3.9's)
            // prints a constant with no short decimal.
            Some(Tok::Word(w)) if w.starts_with("f0x") => Value::Const(w),
            // A metadata argument (`metadata !"round.towardzero"`, `metadata !0`), kept as
            // LLVM prints it: a node number bare, a string quoted.
            Some(Tok::Meta(n))
                if matches!(
                    (n.as_str(), self.toks.get(self.pos + 1).map(|t| &t.tok)),
                    ("", Some(Tok::Punct('{'))) | (_, Some(Tok::Punct('(')))
                ) =>
            {
                // `!DIExpression()`, `!{}`: kept as written.
                let a = self.start();
                self.metadata_value()?;
                return Ok(Value::Const(
                    self.file.text[a..self.end_of_prev()].to_string(),
                ));
            }
            Some(Tok::Meta(n)) => {
                Value::Const(if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                    format!("!{n}")
                } else {
                    format!("!\"{n}\"")
                })
            }
            Some(Tok::Global(n)) => Value::Global(n),
            Some(Tok::Word(w)) if w == "splat" => {
                self.pos += 1;
                self.expect('(', "after `splat`")?;
                let t = self.ty("the splatted element's type")?;
                let v = self.value()?;
                self.expect(')', "closing `splat (...)`")?;
                return Ok(Value::Splat(Box::new((t, v))));
            }
            Some(Tok::Punct('<')) => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    let t = self.ty("a vector element's type")?;
                    let v = self.value()?;
                    items.push((t, v));
                    if self.eat('>') {
                        break;
                    }
                    self.expect(',', "between vector elements")?;
                }
                return Ok(Value::Vector(items));
            }
            _ => return Err(self.error("expected a value (`%name` or a constant)")),
        };
        self.pos += 1;
        Ok(v)
    }

    fn operand(&mut self, typed: bool) -> Result<Operand, Diagnostic> {
        let a = self.start();
        let mut attrs = String::new();
        let ty = if typed {
            let t = self.ty("an operand type")?;
            // `metadata float %x` (`@llvm.dbg.value`'s operand): the value inside.
            if t == Type::Other("metadata".into()) && !matches!(self.peek(), Some(Tok::Meta(_))) {
                let inner = self.operand(true)?;
                return Ok(Operand {
                    span: self.span(a, self.end_of_prev()),
                    ..inner
                });
            }
            // Argument attributes of a call (`noundef`, `nofpclass(nan)`, `align 4`).
            let from = self.start();
            while let Some(Tok::Word(w)) = self.peek().cloned() {
                if VALUE_WORDS.contains(&w.as_str()) {
                    break;
                }
                self.pos += 1;
                self.word_arguments(&w)?;
            }
            if self.start() > from {
                attrs = self.file.text[from..self.end_of_prev()].to_string();
            }
            Some(t)
        } else {
            None
        };
        let value = self.value()?;
        Ok(Operand {
            ty,
            attrs,
            value,
            span: self.span(a, self.end_of_prev()),
        })
    }

    /// Whether a `,` follows that starts another operand (not a metadata attachment `, !dbg`).
    fn another_operand(&self) -> bool {
        self.peek() == Some(&Tok::Punct(','))
            && !matches!(
                self.toks.get(self.pos + 1).map(|t| &t.tok),
                Some(Tok::Meta(_))
            )
    }

    fn flags(&mut self) -> Vec<String> {
        let mut flags = Vec::new();
        while let Some(Tok::Word(w)) = self.peek() {
            if !FLAG_WORDS.contains(&w.as_str()) {
                break;
            }
            flags.push(w.clone());
            self.pos += 1;
        }
        flags
    }

    fn instr(&mut self) -> Result<Instr, Diagnostic> {
        let a = self.start();
        let result = match self.peek() {
            Some(Tok::Local(n)) => {
                let n = n.clone();
                self.pos += 1;
                self.expect('=', "after the instruction's result")?;
                Some(n)
            }
            _ => None,
        };
        let mut flags = Vec::new();
        while let Some(Tok::Word(w)) = self.peek() {
            if !matches!(w.as_str(), "tail" | "musttail" | "notail") {
                break;
            }
            flags.push(w.clone());
            self.pos += 1;
        }
        let opcode_span = self.here();
        let opcode = match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Word(w)) => w,
            _ => {
                self.pos -= 1;
                return Err(self.error("expected an instruction"));
            }
        };
        let shape = shape_of(&opcode);
        let mut i = Instr {
            result,
            opcode,
            flags,
            pred: None,
            ty: None,
            callee: None,
            operands: Vec::new(),
            to: None,
            metadata: Vec::new(),
            globals: Vec::new(),
            shape,
            raw: String::new(),
            span: opcode_span.clone(),
            opcode_span,
        };
        if shape == Shape::Unknown {
            return Ok(self.unknown(i, a));
        }
        let after_opcode = self.pos;
        i.flags.extend(self.flags());
        if shape == Shape::Call {
            // An indirect call or inline `asm` has no `@callee`: kept whole, refused later.
            if self.call(&mut i).is_err() {
                self.pos = after_opcode;
                i.flags
                    .retain(|f| matches!(f.as_str(), "tail" | "musttail" | "notail"));
                return Ok(self.unknown(i, a));
            }
        }
        match shape {
            Shape::Typed => {
                i.ty = Some(self.ty("the instruction's type")?);
                loop {
                    i.operands.push(self.operand(false)?);
                    if !self.another_operand() {
                        break;
                    }
                    self.pos += 1;
                }
            }
            Shape::Compare => {
                match self.next().map(|t| t.tok.clone()) {
                    Some(Tok::Word(p)) => i.pred = Some(p),
                    _ => {
                        self.pos -= 1;
                        return Err(self.error("expected the comparison's predicate"));
                    }
                }
                i.ty = Some(self.ty("the compared type")?);
                i.operands.push(self.operand(false)?);
                self.expect(',', "between the compared operands")?;
                i.operands.push(self.operand(false)?);
            }
            Shape::Cast => {
                i.operands.push(self.operand(true)?);
                match self.next().map(|t| t.tok.clone()) {
                    Some(Tok::Word(w)) if w == "to" => {}
                    _ => {
                        self.pos -= 1;
                        return Err(self.error("expected `to` and the destination type"));
                    }
                }
                i.to = Some(self.ty("the destination type")?);
            }
            Shape::EachTyped => loop {
                i.operands.push(self.operand(true)?);
                if !self.another_operand() {
                    break;
                }
                self.pos += 1;
            },
            Shape::Extract => {
                i.operands.push(self.operand(true)?);
                while self.another_operand() {
                    self.pos += 1;
                    i.operands.push(self.operand(false)?);
                }
            }
            Shape::Call => {}
            Shape::Ret => {
                let t = self.ty("the returned type (or `void`)")?;
                if t != Type::Void {
                    i.operands.push(self.operand(false)?);
                }
                i.ty = Some(t);
            }
            Shape::Branch => {
                if !matches!(
                    self.peek(),
                    None | Some(Tok::Newline) | Some(Tok::Punct('}'))
                ) {
                    loop {
                        i.operands.push(self.operand(true)?);
                        if !self.another_operand() {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                // A switch's cases, one `T c, label %x` pair each, over several lines.
                if self.eat('[') {
                    loop {
                        self.skip_newlines();
                        if self.eat(']') {
                            break;
                        }
                        i.operands.push(self.operand(true)?);
                        self.expect(',', "between a case's value and its label")?;
                        i.operands.push(self.operand(true)?);
                    }
                }
            }
            Shape::Phi => {
                i.ty = Some(self.ty("the phi's type")?);
                loop {
                    self.expect('[', "opening a phi's incoming pair")?;
                    i.operands.push(self.operand(false)?);
                    self.expect(',', "between a phi's value and its block")?;
                    i.operands.push(self.operand(false)?);
                    self.expect(']', "closing a phi's incoming pair")?;
                    if !self.another_operand() {
                        break;
                    }
                    self.pos += 1;
                }
            }
            Shape::Unknown => unreachable!("returned above"),
        }
        // Metadata attachments: `, !fpmath !0`, `, !range !{i32 0, i32 4}`.
        while self.peek() == Some(&Tok::Punct(',')) {
            self.pos += 1;
            match self.next().map(|t| t.tok.clone()) {
                Some(Tok::Meta(name)) => {
                    let a = self.start();
                    self.metadata_value()?;
                    let node = self.file.text[a..self.end_of_prev().max(a)].to_string();
                    i.metadata.push(Attachment { name, node });
                }
                _ => {
                    self.pos -= 1;
                    return Err(self.error(format!("`{}` takes no more operands here", i.opcode)));
                }
            }
        }
        i.span = self.span(a, self.end_of_prev());
        if !matches!(
            self.peek(),
            None | Some(Tok::Newline) | Some(Tok::Punct('}'))
        ) {
            return Err(self.error(format!("unexpected text after `{}`", i.opcode)));
        }
        Ok(i)
    }
}

impl Parser<'_> {
    /// An instruction the reader does not lay out, from its opcode on: kept as its text, with
    /// the global values the text names.
    fn unknown(&mut self, mut i: Instr, a: usize) -> Instr {
        let from = self.pos;
        i.shape = Shape::Unknown;
        i.raw = self.rest_of_line();
        i.globals = self.toks[from..self.pos]
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Global(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        i.span = self.span(a, self.end_of_prev().max(a));
        i
    }

    /// A call's result type, callee, arguments and call-site attributes.
    fn call(&mut self, i: &mut Instr) -> Result<(), Diagnostic> {
        // Return attributes (`noundef`, `nofpclass(nan)`) before the type.
        i.ty = Some(self.type_after_words("the call's result type")?);
        i.callee = match self.next().map(|t| t.tok.clone()) {
            Some(Tok::Global(n)) => Some(n),
            _ => {
                self.pos -= 1;
                return Err(self.error("expected the callee `@name`"));
            }
        };
        self.expect('(', "opening the call's arguments")?;
        if !self.eat(')') {
            loop {
                i.operands.push(self.operand(true)?);
                if self.eat(')') {
                    break;
                }
                self.expect(',', "between arguments")?;
            }
        }
        // Call-site attributes (`#3`, `nounwind`, `memory(none)`).
        while let Some(t @ (Tok::Hash(_) | Tok::Word(_))) = self.peek().cloned() {
            self.pos += 1;
            if let Tok::Word(w) = t {
                self.word_arguments(&w)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Attr::Pair(k, v) if v.is_empty() => write!(f, "\"{k}\""),
            Attr::Pair(k, v) => write!(f, "\"{k}\"=\"{v}\""),
            Attr::Word(w) => f.write_str(w),
            Attr::Group(n) => write!(f, "#{n}"),
        }
    }
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = &self.result {
            write!(f, "%{r} = ")?;
        }
        let (before, after): (Vec<&String>, Vec<&String>) = self
            .flags
            .iter()
            .partition(|w| matches!(w.as_str(), "tail" | "musttail" | "notail"));
        for w in before {
            write!(f, "{w} ")?;
        }
        f.write_str(&self.opcode)?;
        if self.shape == Shape::Unknown {
            if !self.raw.is_empty() {
                write!(f, " {}", self.raw)?;
            }
            return Ok(());
        }
        for w in after {
            write!(f, " {w}")?;
        }
        if let Some(p) = &self.pred {
            write!(f, " {p}")?;
        }
        let ops: Vec<String> = self
            .operands
            .iter()
            .map(|o| match (&o.ty, o.attrs.as_str()) {
                (Some(t), "") => format!("{t} {}", o.value),
                (Some(t), attrs) => format!("{t} {attrs} {}", o.value),
                (None, _) => o.value.to_string(),
            })
            .collect();
        match self.shape {
            Shape::Call => write!(
                f,
                " {} @{}({})",
                self.ty.as_ref().unwrap_or(&Type::Void),
                self.callee.as_deref().unwrap_or(""),
                ops.join(", ")
            )?,
            Shape::Cast => write!(
                f,
                " {} to {}",
                ops.join(", "),
                self.to.as_ref().unwrap_or(&Type::Void)
            )?,
            Shape::Branch if self.opcode == "switch" => {
                let (head, cases) = ops.split_at(ops.len().min(2));
                write!(f, " {} [", head.join(", "))?;
                for case in cases.chunks(2) {
                    write!(f, " {}", case.join(", "))?;
                }
                f.write_str(" ]")?
            }
            Shape::Phi => {
                write!(f, " {}", self.ty.as_ref().unwrap_or(&Type::Void))?;
                let pairs: Vec<String> = ops
                    .chunks(2)
                    .map(|p| format!("[ {} ]", p.join(", ")))
                    .collect();
                write!(f, " {}", pairs.join(", "))?
            }
            _ => {
                if let Some(t) = &self.ty {
                    write!(f, " {t}")?;
                }
                if !ops.is_empty() {
                    write!(f, " {}", ops.join(", "))?;
                }
            }
        }
        for m in &self.metadata {
            write!(f, ", !{} {}", m.name, m.node)?;
        }
        Ok(())
    }
}

impl Module {
    /// The error an `!fpmath` attachment allows, in ulps: LangRef "'fpmath' Metadata": "The
    /// metadata node shall consist of a single positive float type number representing the
    /// maximum relative error". `node` is the attachment as written, inline (`!{float 2.5}`)
    /// or a number a module line defines (`!3 = !{float 2.500000e+00}`); `None` when it is
    /// neither or its number is not positive and finite (the verifier rejects those).
    pub fn fpmath_ulps(&self, node: &str) -> Option<f64> {
        let body = if node.starts_with("!{") {
            node
        } else {
            let prefix = format!("{node} = ");
            let line = self.lines.iter().find(|l| l.starts_with(&prefix))?;
            line[prefix.len()..].trim().trim_start_matches("distinct ")
        };
        let number = body
            .strip_prefix("!{")?
            .strip_suffix('}')?
            .trim()
            .strip_prefix("float ")?
            .trim();
        // LLVM prints a constant exactly, in decimal where that round-trips and otherwise as
        // the hexadecimal bits of a double.
        let value = match number.strip_prefix("0x") {
            Some(hex) => f64::from_bits(u64::from_str_radix(hex, 16).ok()?),
            None => number.parse::<f64>().ok()?,
        };
        (value.is_finite() && value > 0.0).then_some(value)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for l in &self.lines {
            writeln!(f, "{l}")?;
        }
        for func in &self.functions {
            let params: Vec<String> = func
                .params
                .iter()
                .map(|p| {
                    let noalias = if p.noalias { " noalias" } else { "" };
                    match p.dereferenceable {
                        Some(n) => format!("{}{noalias} dereferenceable({n}) %{}", p.ty, p.name),
                        None => format!("{}{noalias} %{}", p.ty, p.name),
                    }
                })
                .collect();
            write!(
                f,
                "\ndefine {}{} @{}({})",
                if func.kernel { "ptx_kernel " } else { "" },
                func.ret,
                func.name,
                params.join(", ")
            )?;
            if !func.attrs.is_empty() {
                write!(f, " {}", join(&func.attrs))?;
            }
            writeln!(f, " {{")?;
            for s in &func.body {
                match s {
                    Statement::Label(l, _) => writeln!(f, "{l}:")?,
                    Statement::Instr(i) => writeln!(f, "  {i}")?,
                }
            }
            writeln!(f, "}}")?;
        }
        for g in &self.groups {
            writeln!(f, "\nattributes #{} = {{ {} }}", g.id, join(&g.attrs))?;
        }
        Ok(())
    }
}
