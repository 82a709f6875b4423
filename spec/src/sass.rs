//! SASS instruction text, in the manual's syntax (`HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;`):
//! parsed against the forms of the SASS variants into the variant it names, the values its
//! operand modifiers and immediates take from the text, and the list of register and
//! constant-bank values the caller supplies.
//!
//! What the text may write follows the form (`{-}{|}Ra{|}{.iswz}`, `c[#BankU05][#AddrU16]`,
//! `{{-}{|}#Immfp10H1{|}}`), plus the rules a family declares with `text COND else "why";`
//! ([`crate::text_rule::TextRule`]). An immediate is read in its operand's declared type (`f16`, `f32`, `bN`, or
//! bits of a format: `f16[15:6]`). Nothing here knows an instruction: everything specific is in
//! the `.sem` files. Errors point at the text with a caret; nothing panics on any input.

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::catalog::{Family, FormatInfo, ModifierKind, OperandRole, Spec, Variant};
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::form::{OperandKind, OperandMods};
use crate::resolved::format_slice;
use crate::text_rule::{is_text_condition, operand_names, TextRule};
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
    /// The family the variant belongs to (its `operand` items and `text` rules).
    family: &'s Family,
    /// What the text writes, by the form's operand names.
    text: TextFacts,
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
    /// names it (`f16x2` for a register, `f32` for a constant), or as an `operand` item whose
    /// condition is on the text says (`operand Ra: f32 if iswz(Ra) == .F32;`: a register the
    /// text reads with `.F32` is one f32, not two fp16).
    pub fn value_type(&self, k: usize) -> &str {
        let Some((_, src)) = self
            .inputs
            .iter()
            .zip(&self.variant.sources)
            .find(|(i, _)| **i == Input::Value(k))
        else {
            return "b32";
        };
        let items = self
            .family
            .operand_types
            .get(&src.name)
            .into_iter()
            .flatten();
        for (ty, cond) in items {
            match cond {
                Some(c) if is_text_condition(&self.family.groups, c) => {
                    if matches!(self.text.eval(c), Ok(TextValue::Bool(true))) {
                        return &ty.text;
                    }
                }
                // The first item decided by the modifiers alone gave the variant's type.
                _ => break,
            }
        }
        src.ty.as_str()
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
    /// A predicate: `PT`, `P0`, `!PT`.
    Predicate {
        /// `PT`, `P0` .. `P6`.
        name: String,
        /// Written `!P`.
        negated: bool,
    },
    /// An immediate as written (with its own leading `-`, if any) and the byte range of it;
    /// it is read in its operand's declared type once the variant is known.
    Immediate {
        /// The literal: `0x3c00`, `-1.5`.
        literal: String,
        /// Its bytes in the text.
        at: (usize, usize),
    },
}

/// How one form operand is written, for matching the text against the forms.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    Register,
    Const,
    Immediate,
    Predicate,
}

impl Shape {
    fn describe(self) -> &'static str {
        match self {
            Shape::Register => "a register",
            Shape::Const => "a constant c[bank][addr]",
            Shape::Immediate => "an immediate",
            Shape::Predicate => "a predicate",
        }
    }
}

/// One source operand as written. For an immediate, `neg` and `abs` are the `-` and `|..|`
/// its braces fold into it (`{-|0x3c00|}`).
#[derive(Clone, Debug)]
struct Operand {
    written: Written,
    neg: bool,
    abs: bool,
    member: Option<(String, Span)>,
    span: Span,
}

impl Operand {
    fn shape(&self) -> Shape {
        match self.written {
            Written::Register(_) => Shape::Register,
            Written::Const(..) => Shape::Const,
            Written::Immediate { .. } => Shape::Immediate,
            Written::Predicate { .. } => Shape::Predicate,
        }
    }
}

struct Cursor {
    file: Arc<SourceFile>,
    pos: usize,
    /// The opcode, once read (for hints).
    opcode: Option<String>,
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
        Diagnostic::at(&self.span(start, end), msg).with_hint(format!(
            "operands are written as in the manual: `-|R3|.H1_H1`, `RZ`, `-|c[6][60672]|`, `0x3c00`, `{{-|0x3c00|}}`, `!PT`; `semfuzz list {}` shows the forms",
            self.opcode.as_deref().unwrap_or("")
        ))
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
    let mut c = Cursor {
        file,
        pos: 0,
        opcode: None,
    };
    // {@{!}Pg}
    let guard = if c.eat("@") {
        let start = c.pos - 1;
        let negated = c.eat("!");
        let (p, _) = c.word();
        if !is_predicate(&p) {
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
    // The opcode and its modifiers.
    c.skip_ws();
    let head_start = c.pos;
    let head_len = c
        .rest()
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
        .unwrap_or(c.rest().len());
    c.pos += head_len;
    let head = c.text()[head_start..c.pos].to_string();
    if head.is_empty() {
        let example = spec
            .variants
            .iter()
            .find(|v| looks_like_sass(&v.text))
            .map(|v| format!("e.g. a form of `{}`: `{}`", v.family, v.signature()))
            .unwrap_or_else(|| "no SASS instruction is loaded".into());
        return Err(c
            .error(
                head_start,
                head_start + 1,
                format!("expected an opcode, found {}", c.found()),
            )
            .with_hint(example));
    }
    c.opcode = Some(head.split('.').next().unwrap_or_default().to_string());
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
    let written: Vec<Shape> = operands.iter().map(Operand::shape).collect();
    let Some(variant) = candidates
        .iter()
        .copied()
        .find(|v| shapes(spec, v) == written)
    else {
        let forms: Vec<String> = candidates.iter().map(|v| v.signature()).collect();
        let got: Vec<&str> = written.iter().map(|k| k.describe()).collect();
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
    let family = family_of(spec, variant)
        .ok_or_else(|| Diagnostic::plain(format!("`{head}` belongs to no loaded family")))?;
    let form = &family.forms[variant.form];
    let mods: Vec<OperandMods> = form.pattern.mods[1..].to_vec();
    let names: Vec<String> = form.pattern.operands[1..].to_vec();
    // Immediates, read in their operands' declared types.
    let mut immediates: Vec<Option<(u64, bool)>> = vec![None; operands.len()];
    for (k, o) in operands.iter().enumerate() {
        if let Written::Immediate { literal, at } = &o.written {
            let src = variant.sources.iter().find(|s| s.name == names[k]);
            let ty = src.map_or("", |s| s.ty.as_str());
            let read = encode_immediate(spec, ty, literal, o.neg, o.abs)
                .map_err(|(msg, hint)| Diagnostic::at(&c.span(at.0, at.1), msg).with_hint(hint))?;
            immediates[k] = Some(read);
        }
    }
    let facts = TextFacts::new(family, &mods, &names, &operands, &immediates);
    for rule in &family.text_rules {
        rule.check(&names, &facts, &operands, &head)?;
    }
    for ((o, m), name) in operands.iter().zip(&mods).zip(&names) {
        let members = variant.sources.iter().find_map(|s| match &s.role {
            OperandRole::Modifier {
                operand,
                kind: ModifierKind::Member { group, members },
            } if operand == name => Some((group, members)),
            _ => None,
        });
        allowed(o, m, name, &head, members)?;
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
        let at = |n: &str| names.iter().position(|x| x == n).unwrap_or(0);
        inputs.push(match &src.role {
            OperandRole::Value | OperandRole::Immediate => {
                let k = at(&src.name);
                match &operands[k].written {
                    Written::Register(r) if r == "RZ" || r == "URZ" => Input::Fixed(0),
                    Written::Register(r) => value(r.clone()),
                    Written::Const(b, a) => value(format!("c[{b}][{a}]")),
                    Written::Predicate { name, negated } if name == "PT" => {
                        Input::Fixed(u64::from(!negated))
                    }
                    Written::Predicate { name, .. } => value(name.clone()),
                    Written::Immediate { .. } => Input::Fixed(immediates[k].map_or(0, |i| i.0)),
                }
            }
            OperandRole::Modifier { operand, kind } => {
                let o = &operands[at(operand)];
                Input::Fixed(match kind {
                    ModifierKind::Neg => u64::from(o.neg),
                    ModifierKind::Abs => u64::from(o.abs),
                    ModifierKind::Member { members, group } => {
                        let m = member_meant(o, group, family);
                        members
                            .iter()
                            .position(|x| Some(x) == m.as_ref())
                            .unwrap_or(0) as u64
                    }
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
        family,
        text: facts,
    })
}

/// The family a variant belongs to.
fn family_of<'s>(spec: &'s Spec, v: &Variant) -> Option<&'s Family> {
    spec.resolved
        .families
        .iter()
        .find(|f| f.opcodes.contains(&v.family))
}

/// How each source operand of a variant's form is written: as the form says, and a
/// predicate where the operand's type is `pred` (`{!}Pp`).
fn shapes(spec: &Spec, v: &Variant) -> Vec<Shape> {
    let form = spec.form_of(v);
    form.pattern.operands[1..]
        .iter()
        .zip(&form.pattern.mods[1..])
        .map(|(name, m)| match m.kind {
            OperandKind::ConstBank => Shape::Const,
            OperandKind::Immediate => Shape::Immediate,
            OperandKind::Register
                if v.sources.iter().any(|s| s.name == *name && s.ty == "pred") =>
            {
                Shape::Predicate
            }
            OperandKind::Register => Shape::Register,
        })
        .collect()
}

/// The member of `group` operand `o` is read with: as written, or the group's default.
fn member_meant(o: &Operand, group: &str, family: &Family) -> Option<String> {
    match &o.member {
        Some((m, _)) => Some(m.clone()),
        None => family
            .groups
            .iter()
            .find(|g| g.name == group)
            .and_then(|g| g.default.clone()),
    }
}

/// `R0` .. `R254` or `RZ`.
fn is_register(r: &str) -> bool {
    r == "RZ" || numbered(r, "R", 254)
}

/// `UR0` .. `UR62` or `URZ`: the uniform registers (sm_75 and later), which ptxas reads a
/// kernel's parameters into on sm_90 (`HADD2 R5, R0, UR6`). A source reads one as it reads a
/// register: 32 bits the caller gives, `URZ` zero. They are never a destination here: no
/// instruction specified writes one.
fn is_uniform_register(r: &str) -> bool {
    r == "URZ" || numbered(r, "UR", 62)
}

/// `PT` or `P0` .. `P6`.
fn is_predicate(p: &str) -> bool {
    p == "PT" || numbered(p, "P", 6)
}

/// Whether `name` is `prefix` and a decimal number up to `max`, without leading zeros.
fn numbered(name: &str, prefix: &str, max: u32) -> bool {
    name.strip_prefix(prefix)
        .filter(|n| {
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && (n.len() == 1 || !n.starts_with('0'))
        })
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| n <= max)
}

/// One source operand: `{-}{|}Ra{|}{.iswz}`, `{-}{|}c[B][A]{|}`, an immediate `0x3c00` or
/// `{-|0x3c00|}` / `{-1.5}`, a predicate `PT`, `!P0`.
fn operand(c: &mut Cursor) -> Result<Operand, Diagnostic> {
    c.skip_ws();
    let start = c.pos;
    if c.eat("{") {
        // An immediate whose sign and absolute value the assembler folds into its bits.
        let neg = c.eat("-");
        let abs = c.eat("|");
        let written = immediate(c)?;
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
        return Ok(Operand {
            written,
            neg,
            abs,
            member: None,
            span: c.span(start, c.pos),
        });
    }
    if c.eat("!") {
        let (p, s) = c.word();
        if !is_predicate(&p) {
            return Err(c
                .error(
                    start,
                    c.pos.max(s + 1),
                    format!("`!{p}` is not a predicate"),
                )
                .with_hint("`!` negates a predicate: `!PT`, `!P0` .. `!P6`"));
        }
        return Ok(Operand {
            written: Written::Predicate {
                name: p,
                negated: true,
            },
            neg: false,
            abs: false,
            member: None,
            span: c.span(start, c.pos),
        });
    }
    // A number with its own sign, as the disassembler prints one (`HADD2 R5, R0, -1.5, -1`).
    let digit_after_minus = {
        let r = c.rest().trim_start();
        r.strip_prefix('-')
            .is_some_and(|n| n.trim_start().starts_with(|ch: char| ch.is_ascii_digit()))
    };
    let neg = !digit_after_minus && c.eat("-");
    let abs = c.eat("|");
    c.skip_ws();
    if c.rest()
        .starts_with(|ch: char| ch.is_ascii_digit() || ch == '-')
    {
        let written = immediate(c)?;
        if neg || abs {
            let Written::Immediate { at, .. } = &written else {
                unreachable!("immediate() returns an immediate")
            };
            return Err(c
                .error(
                    start,
                    c.pos,
                    "`-|..|` and `|..|` on an immediate are written inside braces",
                )
                .with_hint(format!(
                    "write `{{{}{}{}{}}}`: the assembler folds them into the immediate",
                    if neg { "-" } else { "" },
                    if abs { "|" } else { "" },
                    &c.text()[at.0..at.1],
                    if abs { "|" } else { "" }
                )));
        }
        return Ok(Operand {
            written,
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
    } else if is_register(&name) || is_uniform_register(&name) {
        Written::Register(name)
    } else if is_predicate(&name) {
        Written::Predicate {
            name,
            negated: false,
        }
    } else {
        return Err(c
            .error(name_start, c.pos.max(name_start + 1), format!("expected a register, constant, immediate or predicate, found {}", if name.is_empty() { c.found() } else { format!("`{name}`") }))
            .with_hint("registers are R0 .. R254 and RZ (sources also UR0 .. UR62 and URZ); constants c[bank][address]; immediates 0x3c00, 1.5 or {-|0x3c00|}; predicates PT, P0 .. P6, !PT"));
    };
    close_abs(c, abs)?;
    c.skip_ws();
    // cuobjdump's `.reuse` (`|R0|.reuse.H0_H0`) is an operand-cache hint for the scheduler,
    // like the control fields the text ignores: it changes no value.
    if c.rest()
        .strip_prefix(".reuse")
        .is_some_and(|after| !after.starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_'))
    {
        c.pos += ".reuse".len();
    }
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

/// The bank or address of `c[bank][address]`, with its closing `]`.
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

/// An immediate literal, as written (a leading `-` included); it is read once its
/// operand's type is known ([`encode_immediate`]).
fn immediate(c: &mut Cursor) -> Result<Written, Diagnostic> {
    c.skip_ws();
    let start = c.pos;
    c.eat("-");
    c.skip_ws();
    let n = c
        .rest()
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
        .unwrap_or(c.rest().len());
    c.pos += n;
    if n == 0 {
        return Err(c
            .error(
                start,
                c.pos,
                format!("expected an immediate, found {}", c.found()),
            )
            .with_hint("an immediate is a hex bit pattern (0x3c00) or a decimal (1.5)"));
    }
    let literal: String = c.text()[start..c.pos]
        .chars()
        .filter(|ch| !ch.is_whitespace())
        .collect();
    Ok(Written::Immediate {
        literal,
        at: (start, c.pos),
    })
}

/// "a" or "an" before a type name, as it is read aloud (`an f16`, `a b32`).
fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'f' | 'h' | 'i' | 'l' | 'm' | 'n' | 'o' | 'r' | 's' | 'x') => "an",
        _ => "a",
    }
}

/// Reads immediate `literal` (with the `-` and `|..|` its braces fold in) as operand type
/// `ty`: a scalar format (a hex bit pattern or an exact decimal; `-` flips the sign bit,
/// `|..|` clears it), bits of a format (`f16[15:6]`: read as the format, then those bits), or
/// an integer `bN`/`uN` (`sN` may be negative). Returns the field's bits and whether the value
/// is negative (its sign bit), or a message and a hint.
fn encode_immediate(
    spec: &Spec,
    ty: &str,
    literal: &str,
    neg: bool,
    abs: bool,
) -> Result<(u64, bool), (String, String)> {
    let (base, slice) = match format_slice(ty) {
        Some((f, bits)) => (f, Some(bits)),
        None => (ty, None),
    };
    let (minus, digits) = match literal.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, literal),
    };
    let hex = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"));
    let (bits, width, signed) = match spec.format(base) {
        Some(FormatInfo::Scalar(f)) => {
            let w = f.width();
            let bits = match hex {
                Some(h) => match u64::from_str_radix(h, 16) {
                    Ok(v) if v <= f.mask() => v,
                    Ok(_) => {
                        return Err((
                            format!("`{literal}` does not fit in {w} bits"),
                            format!(
                                "this immediate is {} {base}: a bit pattern of {w} bits (0x{:x} is 1.0) or a decimal exact in {base}",
                                article(base),
                                one(f)
                            ),
                        ))
                    }
                    Err(_) => {
                        return Err((
                            format!("`{literal}` is not a hex number"),
                            "write the bit pattern in hex: 0x3c00".into(),
                        ))
                    }
                },
                None => {
                    let x: f64 = digits.parse().map_err(|_| {
                        (
                            format!("expected an immediate, found `{literal}`"),
                            format!("this immediate is {} {base}: a hex bit pattern (0x{:x} is 1.0) or a decimal (1.5)", article(base), one(f)),
                        )
                    })?;
                    let b = semfuzz_fp::convert(Format::F64, f, x.to_bits(), Round::NearestEven);
                    if f.to_f64(b) != x {
                        return Err((
                            format!("{digits} is not exactly representable in {base}"),
                            format!("write the {base} bit pattern you mean in hex"),
                        ));
                    }
                    b
                }
            };
            let sign = 1u64 << (w - 1);
            let bits = if minus { bits ^ sign } else { bits };
            let bits = if abs { bits & !sign } else { bits };
            (if neg { bits ^ sign } else { bits }, w, true)
        }
        _ => {
            let Some((kind, w)) = base
                .split_at_checked(1)
                .and_then(|(k, n)| Some((k, n.parse::<u32>().ok()?)))
                .filter(|(k, w)| matches!(*k, "b" | "u" | "s") && (1..=64).contains(w))
            else {
                return Err((
                    format!("an immediate cannot be {} {ty}", article(ty)),
                    "the spec declares an immediate operand as a scalar format (f16, f32), bits of one (f16[15:6]) or an integer (b8, u16, s32)".into(),
                ));
            };
            if abs || (neg || minus) && kind != "s" {
                return Err((
                    format!("the integer immediate `{literal}` takes no `-` or `|..|` here"),
                    format!("this immediate is {} {base}", article(base)),
                ));
            }
            let m = crate::ir::mask(w);
            let v = parse_int(digits).ok_or_else(|| {
                (
                    format!("expected an integer immediate, found `{literal}`"),
                    format!("this immediate is {} {base}: 0x1f or 31", article(base)),
                )
            })?;
            let limit = if kind == "s" { m >> 1 } else { m };
            if v > limit + u64::from(kind == "s" && (minus != neg)) {
                return Err((
                    format!("`{literal}` does not fit in {base}"),
                    format!("this immediate is {} {base}", article(base)),
                ));
            }
            let v = if minus != neg {
                v.wrapping_neg() & m
            } else {
                v
            };
            (v, w, kind == "s")
        }
    };
    let negative = signed && bits >> (width - 1) & 1 == 1;
    Ok(match slice {
        Some((hi, lo)) => ((bits >> lo) & crate::ir::mask(hi - lo + 1), negative),
        None => (bits, negative),
    })
}

/// The bits of 1.0 in `f`, for hints.
fn one(f: Format) -> u64 {
    semfuzz_fp::convert(Format::F64, f, 1f64.to_bits(), Round::NearestEven)
}

/// What the form allows on an operand: `-`, `|..|`, a member of `group` (the group the form
/// writes after it, with its members).
fn allowed(
    o: &Operand,
    m: &OperandMods,
    name: &str,
    opcode: &str,
    group: Option<(&String, &Vec<String>)>,
) -> Result<(), Diagnostic> {
    // An immediate's `-` and `|..|` are folded into its value by the assembler.
    let folded = o.shape() == Shape::Immediate;
    if o.neg && !m.neg && !folded {
        return Err(
            Diagnostic::at(&o.span, format!("`{opcode}` cannot negate operand {name}"))
                .with_hint(format!("the syntax writes {name} without `{{-}}`")),
        );
    }
    if o.abs && !m.abs && !folded {
        return Err(Diagnostic::at(
            &o.span,
            format!("`{opcode}` cannot take the absolute value of operand {name}"),
        )
        .with_hint(format!("the syntax writes {name} without `{{|}}`")));
    }
    if let Some((member, span)) = &o.member {
        let Some((group, members)) = group else {
            return Err(
                Diagnostic::at(span, format!("`.{member}` cannot follow operand {name}"))
                    .with_hint(format!(
                        "the syntax of `{opcode}` writes {name} without a `{{.member}}`"
                    )),
            );
        };
        if !members.contains(member) {
            let all: Vec<String> = members.iter().map(|x| format!(".{x}")).collect();
            return Err(Diagnostic::at(
                span,
                format!("`.{member}` is not a member of `.{group}`, which operand {name} takes"),
            )
            .with_hint(format!("write one of {}", all.join(" "))));
        }
    }
    Ok(())
}

/// The parse-time side of a [`TextRule`]: the rule against what the text wrote.
impl TextRule {
    fn check(
        &self,
        names: &[String],
        facts: &TextFacts,
        operands: &[Operand],
        head: &str,
    ) -> Result<(), Diagnostic> {
        let mut named = Vec::new();
        operand_names(&self.cond, &mut named);
        if !named.iter().all(|n| names.contains(n)) {
            return Ok(());
        }
        if matches!(facts.eval(&self.cond), Ok(TextValue::Bool(true))) {
            return Ok(());
        }
        // Point at the last operand the rule names: the one that breaks it, in text order.
        let at = names
            .iter()
            .rposition(|n| named.contains(n))
            .map_or_else(|| operands[0].span.clone(), |k| operands[k].span.clone());
        let (line, _) = self.cond.span.file.line_col(self.cond.span.start);
        Err(Diagnostic::at(
            &at,
            format!("`{head}` cannot be written so: \"{}\"", self.message),
        )
        .with_hint(format!(
            "the spec requires `{}` ({}:{line})",
            crate::printer::print_expr(&self.cond),
            self.cond.span.file.name
        )))
    }
}

/// A value of a text condition.
#[derive(Clone, Debug, PartialEq)]
enum TextValue {
    Bool(bool),
    Int(u64),
    Member(String),
}

/// What the text writes on each operand, by the form's operand names.
#[derive(Debug, Default)]
struct TextFacts {
    ops: Vec<(String, Fact)>,
}

#[derive(Debug, Default)]
struct Fact {
    neg: bool,
    abs: bool,
    /// The member written after it (`.H0_H0`), if any.
    suffix: Option<String>,
    /// Per group the form writes on it: the member meant.
    groups: Vec<(String, Option<String>)>,
    /// For an immediate, its sign bit as read.
    sign: Option<bool>,
}

impl TextFacts {
    fn new(
        family: &Family,
        mods: &[OperandMods],
        names: &[String],
        operands: &[Operand],
        immediates: &[Option<(u64, bool)>],
    ) -> TextFacts {
        let ops = operands
            .iter()
            .zip(mods)
            .zip(names)
            .zip(immediates)
            .map(|(((o, m), name), imm)| {
                let groups = m
                    .member
                    .map(|g| {
                        let g = &family.groups[g];
                        (g.name.clone(), member_meant(o, &g.name, family))
                    })
                    .into_iter()
                    .collect();
                (
                    name.clone(),
                    Fact {
                        neg: o.neg,
                        abs: o.abs,
                        suffix: o.member.as_ref().map(|(m, _)| m.clone()),
                        groups,
                        sign: imm.map(|i| i.1),
                    },
                )
            })
            .collect();
        TextFacts { ops }
    }

    fn eval(&self, e: &Expr) -> Result<TextValue, ()> {
        Ok(match &e.kind {
            ExprKind::Int(v) => TextValue::Int(*v),
            ExprKind::Bool(b) => TextValue::Bool(*b),
            ExprKind::Mod(m) => TextValue::Member(m.clone()),
            ExprKind::Unary {
                op: UnOp::Not,
                expr,
            } => match self.eval(expr)? {
                TextValue::Bool(b) => TextValue::Bool(!b),
                _ => return Err(()),
            },
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.eval(lhs)?, self.eval(rhs)?);
                match (op, l, r) {
                    (BinOp::Eq, l, r) => TextValue::Bool(l == r),
                    (BinOp::Ne, l, r) => TextValue::Bool(l != r),
                    (BinOp::And, TextValue::Bool(l), TextValue::Bool(r)) => TextValue::Bool(l && r),
                    (BinOp::Or, TextValue::Bool(l), TextValue::Bool(r)) => TextValue::Bool(l || r),
                    _ => return Err(()),
                }
            }
            ExprKind::Call { func, args } => {
                let [Expr {
                    kind: ExprKind::Name(x),
                    ..
                }] = args.as_slice()
                else {
                    return Err(());
                };
                let fact = &self.ops.iter().find(|(n, _)| n == x).ok_or(())?.1;
                match func.text.as_str() {
                    "negated" => TextValue::Bool(fact.neg),
                    "absolute" => TextValue::Bool(fact.abs),
                    "suffixed" => TextValue::Bool(fact.suffix.is_some()),
                    "sign" => TextValue::Int(u64::from(fact.sign.ok_or(())?)),
                    g => TextValue::Member(
                        fact.groups
                            .iter()
                            .find(|(name, _)| name == g)
                            .and_then(|(_, m)| m.clone())
                            .ok_or(())?,
                    ),
                }
            }
            _ => return Err(()),
        })
    }
}
