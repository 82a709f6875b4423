//! SASS instruction text, in the manual's syntax (`HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;`):
//! parsed against the forms of the SASS variants into the variant it names, the values its
//! operand modifiers and immediates take from the text, and the list of register and
//! constant-bank values the caller supplies.
//!
//! What the text may write follows the form (`{-}{|}Ra{|}{.iswz}`, `c[#BankU05][#AddrU16]`,
//! `{{-}{|}#Immfp10H1{|}}`), plus the rules the manual states in prose for HMUL2 (see
//! [`hmul2_rules`] and docs/ambiguities.md, "SASS HMUL2"). Errors point at the text with a
//! caret; nothing panics on any input.

use crate::catalog::{ModifierKind, OperandRole, Spec, Variant};
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::form::{OperandKind, OperandMods};
use semfuzz_fp::{Format, Round};
use std::sync::Arc;

/// A parsed SASS instruction.
#[derive(Debug)]
pub struct SassInstr<'s> {
    /// The variant the text names.
    pub variant: &'s Variant,
    /// The values the caller supplies, in order, by what the text calls them: each distinct
    /// register read (`R3`; `RZ` reads as zero and is not listed), each constant-bank
    /// reference (`c[6][60672]`), and for a variant that keeps part of its destination
    /// (`.MRG_H0`) the destination's old value (`R1 (old)`), unless the destination is also
    /// a source register.
    pub values: Vec<String>,
    /// The guard (`@P0`, `@!P1`), if written. semfuzz specifies what the instruction writes
    /// when it executes; a guard that is false leaves `Rd` as it was.
    pub guard: Option<String>,
    /// The destination register as written (`R3`, `RZ`).
    pub dest: String,
    /// Per variant input: its value from the text, or an index into `values`.
    inputs: Vec<Input>,
}

/// Where one input of a SASS variant comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Input {
    /// Fixed by the text: a modifier field or an immediate.
    Fixed(u64),
    /// Value `k` of [`SassInstr::values`]: a register or constant the caller supplies.
    Value(usize),
}

impl SassInstr<'_> {
    /// Where each of the variant's inputs comes from, in input order (for callers that give
    /// the values as formulas rather than bits, such as `semfuzz prove`).
    pub fn input_sources(&self) -> &[Input] {
        &self.inputs
    }

    /// The variant's inputs, given the values of [`SassInstr::values`] in order (32-bit
    /// register or constant-bank contents).
    pub fn inputs(&self, values: &[u64]) -> Result<Vec<u64>, String> {
        if values.len() != self.values.len() {
            return Err(match self.values.len() {
                0 => format!(
                    "this instruction reads no register or constant (RZ is zero, immediates are in the text), but {} value{} given",
                    values.len(),
                    if values.len() == 1 { " was" } else { "s were" }
                ),
                n => format!(
                    "this instruction reads {}: give {n} value{} (hex), {} given",
                    self.values.join(", "),
                    if n == 1 { "" } else { "s" },
                    values.len()
                ),
            });
        }
        self.inputs
            .iter()
            .zip(&self.variant.sources)
            .map(|(i, src)| match *i {
                Input::Fixed(v) => Ok(v),
                Input::Value(k) if src.width < 64 && values[k] >> src.width != 0 => Err(format!(
                    "{} = 0x{:x} does not fit in {} bits",
                    self.values[k], values[k], src.width
                )),
                Input::Value(k) => Ok(values[k]),
            })
            .collect()
    }

    /// The type of value `k` of [`SassInstr::values`], as the variant's input that reads it
    /// names it (`f16x2` for a register, `f32` for a constant).
    /// A register the text reads with `.F32` (`-|R4|.F32`) is one f32, not two fp16.
    pub fn value_type(&self, k: usize) -> &str {
        let Some((_, src)) = self
            .inputs
            .iter()
            .zip(&self.variant.sources)
            .find(|(i, _)| **i == Input::Value(k))
        else {
            return "b32";
        };
        let read_as_f32 = self.inputs.iter().zip(&self.variant.sources).any(|(i, s)| {
            matches!(
                (&s.role, i),
                (
                    OperandRole::Modifier {
                        operand,
                        kind: ModifierKind::Member { members, .. },
                    },
                    Input::Fixed(m),
                ) if *operand == src.name
                    && members.get(*m as usize).is_some_and(|x| x.trim_start_matches('.') == "F32")
            )
        });
        if read_as_f32 {
            "f32"
        } else {
            src.ty.as_str()
        }
    }

    /// The value a modifier field or immediate takes from the text (for display), by the
    /// variant's input name (`Ra.iswz`, `Immfp10H1`).
    pub fn fixed(&self, name: &str) -> Option<u64> {
        let i = self.variant.sources.iter().position(|s| s.name == name)?;
        match self.inputs[i] {
            Input::Fixed(v) => Some(v),
            Input::Value(_) => None,
        }
    }
}

/// Whether `text` is SASS rather than PTX: its opcode (after an optional `@P0` guard) starts
/// with an upper-case letter, as SASS opcodes do and PTX opcodes never do.
pub fn looks_like_sass(text: &str) -> bool {
    let t = text.trim_start();
    let t = match t.strip_prefix('@') {
        Some(rest) => rest
            .split_once(char::is_whitespace)
            .map_or("", |(_, r)| r.trim_start()),
        None => t,
    };
    t.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The 1-based column a diagnostic from [`parse`] points at.
pub fn column(d: &Diagnostic) -> Option<usize> {
    d.span.as_ref().map(|s| s.file.line_col(s.start).1)
}

/// How the text writes one source operand.
#[derive(Clone, Debug, PartialEq)]
enum Written {
    /// `R3`, `RZ`.
    Register(String),
    /// `c[6][60672]`.
    Const(u32, u32),
    /// An immediate folded to its fp16 bits, and whether it was written `|..|`.
    Immediate { bits: u64, abs: bool },
}

#[derive(Clone, Debug)]
struct Operand {
    written: Written,
    neg: bool,
    abs: bool,
    member: Option<(String, Span)>,
    span: Span,
}

struct Cursor {
    file: Arc<SourceFile>,
    pos: usize,
}

impl Cursor {
    fn text(&self) -> &str {
        &self.file.text
    }
    fn rest(&self) -> &str {
        &self.file.text[self.pos..]
    }
    fn skip_ws(&mut self) {
        let n = self.rest().len() - self.rest().trim_start().len();
        self.pos += n;
    }
    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(
            &self.file,
            start,
            end.max(start + 1).min(self.text().len().max(1)),
        )
    }
    /// An error at bytes `start..end`, with a general hint that specific errors replace.
    fn error(&self, start: usize, end: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::at(&self.span(start, end), msg).with_hint(
            "operands are written as in the manual: `-|R3|.H1_H1`, `RZ`, `-|c[6][60672]|`, `0x3c00`, `{-|0x3c00|}`; `semfuzz list HMUL2` shows the forms",
        )
    }
    /// A word of letters, digits and `_` (may be empty).
    fn word(&mut self) -> (String, usize) {
        self.skip_ws();
        let start = self.pos;
        let n = self
            .rest()
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(self.rest().len());
        self.pos += n;
        (self.text()[start..self.pos].to_string(), start)
    }
    /// The next token, for "found ..." in messages.
    fn found(&self) -> String {
        let r = self.rest().trim_start();
        match r.chars().next() {
            None => "the end of the instruction".into(),
            Some(c) if c.is_ascii_alphanumeric() => {
                let w: String = r
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                format!("`{w}`")
            }
            Some(c) => format!("`{c}`"),
        }
    }
}

fn parse_int(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => text.parse().ok(),
    }
}

/// Parses `text` and finds its variant in `spec`.
pub fn parse<'s>(spec: &'s Spec, text: &str) -> Result<SassInstr<'s>, Diagnostic> {
    // No file name: the text is shown with a caret but no `--> file:line:col`.
    let file = SourceFile::new("", text.trim_end());
    let mut c = Cursor { file, pos: 0 };
    // {@{!}Pg}
    let guard = if c.eat("@") {
        let start = c.pos - 1;
        let negated = c.eat("!");
        let (p, _) = c.word();
        let valid = p == "PT"
            || p.strip_prefix('P')
                .and_then(|n| n.parse::<u32>().ok())
                .is_some_and(|n| n <= 6);
        if !valid {
            return Err(c
                .error(
                    start,
                    c.pos,
                    format!(
                        "`@{}{p}` is not a guard predicate",
                        if negated { "!" } else { "" }
                    ),
                )
                .with_hint("a guard is `@P0` .. `@P6` or `@PT`, negated `@!P0`"));
        }
        if negated && p == "PT" {
            return Err(c
                .error(
                    start,
                    c.pos,
                    "`@!PT` never executes: there is nothing to evaluate",
                )
                .with_hint("leave the guard out, or write `@PT`"));
        }
        Some(format!("@{}{p}", if negated { "!" } else { "" }))
    } else {
        None
    };
    // Opcode and modifiers: HMUL2{.ofmt}{.fmz}{.SAT}
    c.skip_ws();
    let head_start = c.pos;
    let head_len = c
        .rest()
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
        .unwrap_or(c.rest().len());
    c.pos += head_len;
    let head = c.text()[head_start..c.pos].to_string();
    if head.is_empty() {
        return Err(c
            .error(
                head_start,
                head_start + 1,
                format!("expected an opcode, found {}", c.found()),
            )
            .with_hint("e.g. `HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;`"));
    }
    let candidates: Vec<&Variant> = spec.variants_named(&head);
    if candidates.is_empty() {
        let d = spec
            .lookup(&head, None)
            .err()
            .unwrap_or_else(|| Diagnostic::plain(format!("`{head}` is not a SASS instruction")));
        let mut e = c.error(head_start, c.pos, d.message);
        if d.hint.is_some() {
            e.hint = d.hint;
        }
        e.notes = d.notes;
        return Err(e);
    }
    // Operands.
    let mut operands: Vec<Operand> = Vec::new();
    let (dest, dest_start) = c.word();
    if !is_register(&dest) {
        return Err(c
            .error(
                dest_start,
                c.pos.max(dest_start + 1),
                format!(
                    "expected the destination register, found {}",
                    if dest.is_empty() {
                        c.found()
                    } else {
                        format!("`{dest}`")
                    }
                ),
            )
            .with_hint("registers are R0 .. R254 and RZ"));
    }
    while c.eat(",") {
        operands.push(operand(&mut c)?);
    }
    // {&req_6} {&rdN} {&wrN} {?sched}: scheduling, which does not change the result.
    c.skip_ws();
    if c.rest().starts_with(['&', '?']) {
        let n = c.rest().find(';').unwrap_or(c.rest().len());
        c.pos += n;
    }
    c.eat(";");
    c.skip_ws();
    if !c.rest().is_empty() {
        let start = c.pos;
        return Err(c
            .error(
                start,
                c.text().len(),
                format!("unexpected {} after the operands", c.found()),
            )
            .with_hint("operands are separated by commas; the instruction ends with `;`"));
    }
    // The form whose operands the text's match.
    let shape = |v: &Variant| -> Vec<OperandKind> {
        spec.form_of(v).pattern.mods[1..]
            .iter()
            .map(|m| m.kind)
            .collect()
    };
    let written_kinds: Vec<OperandKind> = operands
        .iter()
        .map(|o| match o.written {
            Written::Register(_) => OperandKind::Register,
            Written::Const(..) => OperandKind::ConstBank,
            Written::Immediate { .. } => OperandKind::Immediate,
        })
        .collect();
    let Some(variant) = candidates
        .iter()
        .copied()
        .find(|v| shape(v) == written_kinds)
    else {
        let forms: Vec<String> = candidates.iter().map(|v| v.signature()).collect();
        let describe = |k: &OperandKind| match k {
            OperandKind::Register => "a register",
            OperandKind::ConstBank => "a constant c[bank][addr]",
            OperandKind::Immediate => "an immediate",
        };
        let got: Vec<&str> = written_kinds.iter().map(describe).collect();
        return Err(c
            .error(
                head_start,
                c.text().len(),
                format!(
                    "`{head}` takes no operands like these ({})",
                    if got.is_empty() {
                        "none given".to_string()
                    } else {
                        got.join(", ")
                    }
                ),
            )
            .with_hint(format!("its forms are: {}", forms.join(" | "))));
    };
    let form = spec.form_of(variant);
    let mods: Vec<OperandMods> = form.pattern.mods[1..].to_vec();
    let names: Vec<String> = form.pattern.operands[1..].to_vec();
    for ((o, m), name) in operands.iter().zip(&mods).zip(&names) {
        let members = variant.sources.iter().find_map(|s| match &s.role {
            OperandRole::Modifier {
                operand,
                kind: ModifierKind::Member { members, .. },
            } if operand == name => Some(members),
            _ => None,
        });
        allowed(o, m, name, &variant.family, members)?;
    }
    if variant.family == "HMUL2" {
        hmul2_rules(&operands)?;
    }
    // Inputs, in the variant's order.
    let mut values: Vec<String> = Vec::new();
    let mut value = |name: String| -> Input {
        match values.iter().position(|v| *v == name) {
            Some(i) => Input::Value(i),
            None => {
                values.push(name);
                Input::Value(values.len() - 1)
            }
        }
    };
    let mut inputs = Vec::new();
    for src in &variant.sources {
        let at = |n: &str| names.iter().position(|x| x == n);
        inputs.push(match &src.role {
            OperandRole::Value | OperandRole::Immediate => {
                let o = &operands[at(&src.name).unwrap_or(0)];
                match &o.written {
                    Written::Register(r) if r == "RZ" => Input::Fixed(0),
                    Written::Register(r) => value(r.clone()),
                    Written::Const(b, a) => value(format!("c[{b}][{a}]")),
                    // A 10-bit field holds the "most significant 10 bits of fp16 immediate".
                    Written::Immediate { bits, .. } => {
                        Input::Fixed(bits >> 16u32.saturating_sub(src.width))
                    }
                }
            }
            OperandRole::Modifier { operand, kind } => {
                let o = &operands[at(operand).unwrap_or(0)];
                Input::Fixed(match kind {
                    ModifierKind::Neg => u64::from(o.neg),
                    ModifierKind::Abs => u64::from(o.abs),
                    ModifierKind::Member { members, group } => match &o.member {
                        None => spec
                            .group_default(variant, group)
                            .and_then(|d| members.iter().position(|m| *m == d))
                            .unwrap_or(0) as u64,
                        Some((m, _)) => members.iter().position(|x| x == m).unwrap_or(0) as u64,
                    },
                })
            }
            OperandRole::OldDest if dest == "RZ" => Input::Fixed(0),
            OperandRole::OldDest => {
                if operands
                    .iter()
                    .any(|o| o.written == Written::Register(dest.clone()))
                {
                    value(dest.clone())
                } else {
                    value(format!("{dest} (old)"))
                }
            }
        });
    }
    Ok(SassInstr {
        variant,
        values,
        guard,
        dest,
        inputs,
    })
}

fn is_register(r: &str) -> bool {
    r == "RZ"
        || r.strip_prefix('R')
            .filter(|n| !n.is_empty() && (n.len() == 1 || !n.starts_with('0')))
            .and_then(|n| n.parse::<u32>().ok())
            .is_some_and(|n| n <= 254)
}

/// One source operand: `{-}{|}Ra{|}{.iswz}`, `{-}{|}c[B][A]{|}`, an immediate `0x3c00` or
/// `{-|0x3c00|}` / `{-1.5}`.
fn operand(c: &mut Cursor) -> Result<Operand, Diagnostic> {
    c.skip_ws();
    let start = c.pos;
    if c.eat("{") {
        // An immediate whose sign and absolute value the assembler folds into its bits.
        let neg = c.eat("-");
        let abs = c.eat("|");
        let bits = immediate(c)?;
        close_abs(c, abs)?;
        if !c.eat("}") {
            return Err(c
                .error(
                    c.pos,
                    c.pos + 1,
                    format!("expected `}}` closing the immediate, found {}", c.found()),
                )
                .with_hint("an immediate with modifiers is written `{-|0x3c00|}`"));
        }
        let bits = if abs { bits & 0x7FFF } else { bits };
        let bits = if neg { bits ^ 0x8000 } else { bits };
        return Ok(Operand {
            written: Written::Immediate { bits, abs },
            neg: false,
            abs: false,
            member: None,
            span: c.span(start, c.pos),
        });
    }
    let neg = c.eat("-");
    let abs = c.eat("|");
    c.skip_ws();
    if c.rest().starts_with(|ch: char| ch.is_ascii_digit()) {
        if neg || abs {
            let at = c.pos;
            let _ = immediate(c)?;
            return Err(c
                .error(
                    start,
                    c.pos,
                    "`-` and `|..|` on an immediate are written inside braces",
                )
                .with_hint(format!(
                    "write `{{{}{}{}{}}}`: the assembler folds them into the immediate",
                    if neg { "-" } else { "" },
                    if abs { "|" } else { "" },
                    &c.text()[at..c.pos],
                    if abs { "|" } else { "" }
                )));
        }
        let bits = immediate(c)?;
        return Ok(Operand {
            written: Written::Immediate { bits, abs: false },
            neg: false,
            abs: false,
            member: None,
            span: c.span(start, c.pos),
        });
    }
    let (name, name_start) = c.word();
    let written = if name == "c" && c.eat("[") {
        let bank = const_index(c, "bank", 31)?;
        if !c.eat("[") {
            return Err(c.error(
                c.pos,
                c.pos + 1,
                format!("expected `[address]` after the bank, found {}", c.found()),
            ));
        }
        let addr = const_index(c, "byte address", 0xFFFF)?;
        Written::Const(bank, addr)
    } else if is_register(&name) {
        Written::Register(name)
    } else {
        return Err(c
            .error(name_start, c.pos.max(name_start + 1), format!("expected a register, constant or immediate, found {}", if name.is_empty() { c.found() } else { format!("`{name}`") }))
            .with_hint("registers are R0 .. R254 and RZ; constants c[bank][address]; immediates 0x3c00, 1.5 or {-|0x3c00|}"));
    };
    close_abs(c, abs)?;
    c.skip_ws();
    let member = if c.rest().starts_with('.') {
        c.pos += 1;
        let (m, s) = c.word();
        Some((m, c.span(s - 1, c.pos)))
    } else {
        None
    };
    Ok(Operand {
        written,
        neg,
        abs,
        member,
        span: c.span(start, c.pos),
    })
}

/// The bank or address of `c[bank][address]`, with its closing `]`.
/// The `|` that closes an absolute value opened with `|`, when `abs`.
fn close_abs(c: &mut Cursor, abs: bool) -> Result<(), Diagnostic> {
    if abs && !c.eat("|") {
        return Err(c.error(
            c.pos,
            c.pos + 1,
            format!(
                "expected `|` closing the absolute value, found {}",
                c.found()
            ),
        ));
    }
    Ok(())
}

fn const_index(c: &mut Cursor, what: &str, max: u64) -> Result<u32, Diagnostic> {
    let (w, s) = c.word();
    match parse_int(&w) {
        Some(v) if v <= max => {
            if !c.eat("]") {
                return Err(c.error(
                    c.pos,
                    c.pos + 1,
                    format!("expected `]`, found {}", c.found()),
                ));
            }
            Ok(v as u32)
        }
        _ => Err(c
            .error(s, c.pos, format!("`{w}` is not a {what} (0 to {max})"))
            .with_hint(
                "a constant is written c[bank][address], e.g. c[6][60672] or c[0x3][0x160]",
            )),
    }
}

/// An fp16 immediate: a hex bit pattern (at most 16 bits) or a decimal number exactly
/// representable in fp16; a leading `-` negates it.
fn immediate(c: &mut Cursor) -> Result<u64, Diagnostic> {
    c.skip_ws();
    let start = c.pos;
    let minus = c.eat("-");
    c.skip_ws();
    let n = c
        .rest()
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
        .unwrap_or(c.rest().len());
    let lit = c.rest()[..n].to_string();
    c.pos += n;
    let bits = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
        match u64::from_str_radix(h, 16) {
            Ok(v) if v <= 0xFFFF => v,
            Ok(_) => {
                return Err(c
                    .error(start, c.pos, format!("`{lit}` does not fit in 16 bits"))
                    .with_hint("an immediate is an fp16 bit pattern {sign, exp[4:0], mant[9:0]}, e.g. 0x3c00 for 1.0"))
            }
            Err(_) => {
                return Err(c.error(start, c.pos, format!("`{lit}` is not a hex number")))
            }
        }
    } else {
        let x: f64 = lit.parse().map_err(|_| {
            c.error(
                start,
                c.pos,
                format!("expected an immediate, found `{lit}`"),
            )
            .with_hint("an immediate is an fp16 bit pattern (0x3c00) or a decimal (1.5)")
        })?;
        let b = semfuzz_fp::convert(Format::F64, Format::F16, x.to_bits(), Round::NearestEven);
        if Format::F16.to_f64(b) != x {
            return Err(c
                .error(
                    start,
                    c.pos,
                    format!("{lit} is not exactly representable in fp16"),
                )
                .with_hint("write the fp16 bit pattern you mean, e.g. 0x3c66"));
        }
        b
    };
    Ok(if minus { bits ^ 0x8000 } else { bits })
}

/// What the form allows on an operand: `-`, `|..|`, a member of `members` (the group the
/// form writes after it).
fn allowed(
    o: &Operand,
    m: &OperandMods,
    name: &str,
    opcode: &str,
    members: Option<&Vec<String>>,
) -> Result<(), Diagnostic> {
    if o.neg && !m.neg {
        return Err(
            Diagnostic::at(&o.span, format!("`{opcode}` cannot negate operand {name}"))
                .with_hint(format!("the syntax writes {name} without `{{-}}`")),
        );
    }
    if o.abs && !m.abs {
        return Err(Diagnostic::at(
            &o.span,
            format!("`{opcode}` cannot take the absolute value of operand {name}"),
        )
        .with_hint(format!("the syntax writes {name} without `{{|}}`")));
    }
    if let Some((member, span)) = &o.member {
        let Some(members) = members else {
            let why = match m.kind {
                OperandKind::ConstBank => "the manual: \"For HMUL2 with a constant \"Sb\" operand, .iswz is not encoded and behavior defaults to .F32\"".to_string(),
                _ => format!("the syntax writes {name} without a `{{.member}}`"),
            };
            return Err(
                Diagnostic::at(span, format!("`.{member}` cannot follow operand {name}"))
                    .with_hint(why),
            );
        };
        if !members.contains(member) {
            let all: Vec<String> = members.iter().map(|x| format!(".{x}")).collect();
            return Err(Diagnostic::at(
                span,
                format!("`.{member}` is not an input format of operand {name}"),
            )
            .with_hint(format!("write one of {}", all.join(" "))));
        }
    }
    Ok(())
}

/// The encoding rules the HMUL2 text states in prose, beyond its syntax lines. "For immediate
/// operands forms: - Sign of both immediates must be same. - Absolute operator must be present
/// or absent on both immediates together." They are read as rules of the fp10 pair of HMUL2:
/// HMUL2_32I's example `0xffff, {-|0x8ef7|}` writes `|..|` on one immediate only (docs/
/// ambiguities.md). "Sign" is the sign bit of the immediate after folding `{-}` and `|..|`.
fn hmul2_rules(operands: &[Operand]) -> Result<(), Diagnostic> {
    if let [_, h1, h0] = operands {
        if let (
            Written::Immediate { bits: b1, abs: a1 },
            Written::Immediate { bits: b0, abs: a0 },
        ) = (&h1.written, &h0.written)
        {
            if (b1 ^ b0) & 0x8000 != 0 {
                return Err(Diagnostic::at(
                    &h0.span,
                    format!(
                        "the immediates have different signs (0x{b1:04x}, 0x{b0:04x}): \"Sign of both immediates must be same\""
                    ),
                )
                .with_hint("negate both or neither (`-Ra` negates the product instead)"));
            }
            if a1 != a0 {
                return Err(Diagnostic::at(
                    &h0.span,
                    "`|..|` on one immediate only: \"Absolute operator must be present or absent on both immediates together\"",
                )
                .with_hint("write `|..|` on both immediates or on neither"));
            }
        }
    }
    Ok(())
}
