//! The resolved spec: what the sources declare (formats, constants, helpers, instruction
//! families with their forms and modifier groups), with names bound and syntax lines parsed.
//!
//! This is what the checker ([`crate::check`]) and lowering ([`crate::lower`]) read; the
//! catalogue ([`crate::catalog`]) builds it, then expands its families into variants. It
//! depends on neither, so the dependency runs one way: catalog -> check/lower -> resolved.

use crate::ast::{self, InstrItem, Item};
use crate::diag::{Diagnostic, Span};
use crate::form::{self, GroupRef, Pattern};
use crate::text_rule::TextRule;
use semfuzz_fp::Format;
use std::collections::HashMap;

/// A declared format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FormatInfo {
    /// An IEEE binary format.
    Scalar(Format),
    /// `count` lanes of a format.
    Packed(Format, u32),
}

/// A PTX ISA version and target requirement; `None` means "any".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Requirement {
    /// Minimum PTX ISA version (major, minor).
    pub ptx: Option<(u32, u32)>,
    /// Minimum `sm_XX` target.
    pub sm: Option<u32>,
}

impl Requirement {
    /// The stricter of two requirements, field by field.
    pub fn max(self, other: Requirement) -> Requirement {
        Requirement {
            ptx: self.ptx.max(other.ptx),
            sm: self.sm.max(other.sm),
        }
    }

    /// Whether a module declaring `declared` (its `.version` and `.target`, `None` where not
    /// written) meets this requirement. What a module does not declare does not refuse it.
    pub fn met_by(self, declared: Requirement) -> bool {
        fn at_least<T: Ord>(need: Option<T>, have: Option<T>) -> bool {
            match (need, have) {
                (Some(need), Some(have)) => need <= have,
                _ => true,
            }
        }
        at_least(self.ptx, declared.ptx) && at_least(self.sm, declared.sm)
    }
}

impl std::fmt::Display for Requirement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ptx {
            Some((a, b)) => write!(f, "PTX ISA {a}.{b}")?,
            None => write!(f, "any PTX ISA")?,
        }
        match self.sm {
            Some(sm) => write!(f, ", sm_{sm}"),
            None => write!(f, ", any target"),
        }
    }
}

/// A modifier group of a family.
#[derive(Clone, Debug)]
pub struct Group {
    /// Its name (`rnd`).
    pub name: String,
    /// Members without dots.
    pub members: Vec<String>,
    /// The member meant when not written.
    pub default: Option<String>,
    /// Whether the unwritten default may be fused by the optimizer.
    pub fusable: bool,
}

/// The optimizer's licence to fuse a product and a sum of a family into one instruction
/// (`fuse PRODUCT, SUM into "FUSED" negating "NEG";`, see [`ast::FuseDecl`]).
#[derive(Clone, Debug)]
pub struct Fusion {
    /// The multiplying opcode (`mul`).
    pub product: String,
    /// The adding or subtracting opcode (`add`, `sub`).
    pub sum: String,
    /// The fused instruction's opcode and fixed modifiers (`fma.rn`); the sum's modifiers
    /// follow.
    pub fused: ast::Name,
    /// The opcode that negates one operand of the fused form when the sum subtracts (`neg`);
    /// the type follows.
    pub negate: Option<ast::Name>,
}

/// One syntax line of a family.
#[derive(Clone, Debug)]
pub struct Form {
    /// The syntax as written in the spec.
    pub syntax: String,
    /// Where.
    pub span: Span,
    /// The parsed pattern.
    pub pattern: Pattern,
    /// Its requirement.
    pub requirement: Requirement,
    /// Why semfuzz refuses it, if it does.
    pub rejected: Option<String>,
}

/// An instruction family: one `instr` block.
#[derive(Clone, Debug)]
pub struct Family {
    /// The opcodes, joined for display (`min, max`).
    pub name: String,
    /// The opcodes it specifies.
    pub opcodes: Vec<String>,
    /// Where it is declared.
    pub span: Span,
    /// Its forms.
    pub forms: Vec<Form>,
    /// Its modifier groups.
    pub groups: Vec<Group>,
    /// Explicit operand types, each with the condition under which it applies, in order.
    pub operand_types: HashMap<String, Vec<(ast::Name, Option<ast::Expr>)>>,
    /// Conditional requirements.
    pub requires: Vec<(Requirement, ast::Expr)>,
    /// Combinations its forms allow that the manual forbids: why, and when (`reject`).
    pub rejects: Vec<(String, ast::Expr)>,
    /// The semantics.
    pub sem: ast::Block,
    /// Rules on what SASS instruction text may write (`text COND else "why";`).
    pub text_rules: Vec<TextRule>,
    /// The optimizer's licences to fuse its opcodes (`fuse`).
    pub fusions: Vec<Fusion>,
}

impl Family {
    /// The groups as the form parser takes them.
    pub(crate) fn group_refs(&self) -> Vec<GroupRef<'_>> {
        self.groups
            .iter()
            .map(|g| GroupRef {
                name: &g.name,
                members: &g.members,
            })
            .collect()
    }
}

/// Everything a set of spec files declares, resolved.
#[derive(Debug, Default)]
pub struct Resolved {
    /// Declared formats by name.
    pub formats: HashMap<String, FormatInfo>,
    /// Constants by name.
    pub consts: HashMap<String, ast::Expr>,
    /// Helper definitions by name.
    pub defs: HashMap<String, ast::Def>,
    /// Families by name, in load order.
    pub families: Vec<Family>,
}

impl Resolved {
    /// Resolves parsed files in order; returns what resolved and every error found (a name
    /// declared twice, a bad format, a malformed family).
    pub fn resolve(parsed: &[ast::File]) -> (Resolved, Vec<Diagnostic>) {
        let mut errors = Vec::new();
        let mut spec = Resolved::default();
        let mut seen: HashMap<String, Span> = HashMap::new();
        let mut declare = |name: &ast::Name, errors: &mut Vec<Diagnostic>| -> bool {
            if let Some(prev) = seen.get(&name.text) {
                let (l, c) = prev.file.line_col(prev.start);
                errors.push(
                    Diagnostic::at(&name.span, format!("`{}` is declared twice", name.text))
                        .with_note(format!("first declared at {}:{l}:{c}", prev.file.name)),
                );
                return false;
            }
            seen.insert(name.text.clone(), name.span.clone());
            true
        };
        for file in parsed {
            for item in &file.items {
                match item {
                    Item::Format(f) => {
                        if !declare(&f.name, &mut errors) {
                            continue;
                        }
                        match spec.resolve_format(f) {
                            Ok(info) => {
                                spec.formats.insert(f.name.text.clone(), info);
                            }
                            Err(d) => errors.push(d),
                        }
                    }
                    Item::Const(c) => {
                        if declare(&c.name, &mut errors) {
                            spec.consts.insert(c.name.text.clone(), c.value.clone());
                        }
                    }
                    Item::Def(d) => {
                        if declare(&d.name, &mut errors) {
                            spec.defs.insert(d.name.text.clone(), d.clone());
                        }
                    }
                    Item::Instr(i) => {
                        if i.names.iter().all(|n| declare(n, &mut errors)) {
                            match resolve_family(i) {
                                Ok(f) => spec.families.push(f),
                                Err(d) => errors.push(d),
                            }
                        }
                    }
                }
            }
        }
        (spec, errors)
    }

    fn resolve_format(&self, f: &ast::FormatDecl) -> Result<FormatInfo, Diagnostic> {
        match &f.kind {
            ast::FormatKind::Ieee {
                exp_bits,
                precision,
            } => {
                let e = u32::try_from(*exp_bits).unwrap_or(u32::MAX);
                let p = u32::try_from(*precision).unwrap_or(u32::MAX);
                Format::try_ieee(e, p).map(FormatInfo::Scalar).map_err(|err| {
                    Diagnostic::at(&f.name.span, format!("invalid format `{}`: {err}", f.name.text))
                        .with_hint("ieee(E, P): exponent width E >= 2, precision P >= 2 with the hidden bit, 1+E+P-1 <= 64 bits")
                })
            }
            ast::FormatKind::Packed { lane, count } => {
                let Some(FormatInfo::Scalar(l)) = self.formats.get(&lane.text) else {
                    return Err(Diagnostic::at(
                        &lane.span,
                        format!(
                            "`{}` is not a scalar format declared before this",
                            lane.text
                        ),
                    ));
                };
                if *count < 2 || u64::from(l.width()) * count > 64 {
                    return Err(Diagnostic::at(
                        &f.name.span,
                        format!(
                            "`{}` must have 2 or more lanes in at most 64 bits",
                            f.name.text
                        ),
                    ));
                }
                Ok(FormatInfo::Packed(*l, *count as u32))
            }
        }
    }

    /// The format a name denotes, if it is one.
    pub fn format(&self, name: &str) -> Option<FormatInfo> {
        self.formats.get(name).copied()
    }

    /// The name of a scalar format (for messages).
    pub fn format_name(&self, f: Format) -> String {
        let mut names: Vec<&String> = self
            .formats
            .iter()
            .filter(|(_, i)| **i == FormatInfo::Scalar(f))
            .map(|(n, _)| n)
            .collect();
        names.sort();
        names.first().map_or_else(
            || format!("ieee({}, {})", f.exp_bits(), f.precision()),
            |n| n.to_string(),
        )
    }
}

/// A PTX ISA version as written in a spec's requirement or a module's `.version`: `8.6` as
/// (8, 6).
pub fn ptx_version(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Parses a PTX version literal `8.6`.
fn parse_ptx(name: &ast::Name) -> Result<(u32, u32), Diagnostic> {
    ptx_version(&name.text).ok_or_else(|| {
        Diagnostic::at(
            &name.span,
            format!("`{}` is not a PTX ISA version", name.text),
        )
        .with_hint("write e.g. `8.6`")
    })
}

fn parse_requirement(req: &ast::Requirement) -> Result<Requirement, Diagnostic> {
    let ptx = req.ptx.as_ref().map(parse_ptx).transpose()?;
    let sm = match &req.sm {
        Some(n) => Some(
            n.text
                .strip_prefix("sm_")
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    Diagnostic::at(&n.span, format!("`{}` is not a target", n.text))
                        .with_hint("targets are written `sm_20`, `sm_100`")
                })?,
        ),
        None => None,
    };
    Ok(Requirement { ptx, sm })
}

/// One `instr` block as a [`Family`]: its groups, operand types, requirements, forms and `sem`.
fn resolve_family(instr: &ast::Instr) -> Result<Family, Diagnostic> {
    let opcodes: Vec<String> = instr.names.iter().map(|n| n.text.clone()).collect();
    let first = &instr.names[0];
    let mut groups: Vec<Group> = Vec::new();
    let mut sem = None;
    let mut operand_types = HashMap::new();
    let mut requires = Vec::new();
    let mut rejects = Vec::new();
    let mut texts = Vec::new();
    let mut fusions = Vec::new();
    for item in &instr.items {
        match item {
            InstrItem::Group(g) => {
                if groups.iter().any(|x| x.name == g.name.text) {
                    return Err(Diagnostic::at(
                        &g.name.span,
                        format!("group `{}` is declared twice", g.name.text),
                    ));
                }
                let members: Vec<String> = g.members.iter().map(|m| m.text.clone()).collect();
                if let Some(d) = &g.default {
                    if !members.contains(&d.text) {
                        return Err(Diagnostic::at(
                            &d.span,
                            format!(
                                "default `.{}` is not a member of group `{}`",
                                d.text, g.name.text
                            ),
                        ));
                    }
                }
                if g.fusable && g.default.is_none() {
                    return Err(Diagnostic::at(&g.name.span, "`fusable` needs a `default`")
                        .with_hint("write `default .rn fusable`"));
                }
                groups.push(Group {
                    name: g.name.text.clone(),
                    members,
                    default: g.default.as_ref().map(|d| d.text.clone()),
                    fusable: g.fusable,
                });
            }
            InstrItem::Sem(b) => {
                if sem.is_some() {
                    return Err(Diagnostic::at(
                        &first.span,
                        format!("`{}` has two `sem` blocks", opcodes.join(", ")),
                    ));
                }
                sem = Some(b.clone());
            }
            InstrItem::Operand { name, ty, cond } => {
                operand_types
                    .entry(name.text.clone())
                    .or_insert_with(Vec::new)
                    .push((ty.clone(), cond.clone()));
            }
            InstrItem::Require { req, cond } => {
                requires.push((parse_requirement(req)?, cond.clone()))
            }
            InstrItem::Reject { why, cond } => rejects.push((why.clone(), cond.clone())),
            InstrItem::Text { cond, message } => texts.push((cond.clone(), message.clone())),
            InstrItem::Fuse(f) => fusions.push(resolve_fusion(f, &opcodes)?),
            InstrItem::Form(_) => {}
        }
    }
    let refs: Vec<GroupRef<'_>> = groups
        .iter()
        .map(|g| GroupRef {
            name: &g.name,
            members: &g.members,
        })
        .collect();
    let mut forms = Vec::new();
    for item in &instr.items {
        if let InstrItem::Form(f) = item {
            let pattern = form::parse_pattern(&f.syntax, &f.span, &refs)?;
            if !opcodes.contains(&pattern.opcode) {
                return Err(Diagnostic::at(
                    &f.span,
                    format!(
                        "form of `{}` inside `instr {}`",
                        pattern.opcode,
                        opcodes.join(", ")
                    ),
                )
                .with_hint("list every opcode the block specifies: `instr min, max { ... }`"));
            }
            let requirement = f
                .req
                .as_ref()
                .map(parse_requirement)
                .transpose()?
                .unwrap_or_default();
            forms.push(Form {
                syntax: f.syntax.clone(),
                span: f.span.clone(),
                pattern,
                requirement,
                rejected: f.rejected.clone(),
            });
        }
    }
    if forms.is_empty() {
        return Err(Diagnostic::at(
            &first.span,
            format!("`{}` has no `form`", opcodes.join(", ")),
        )
        .with_hint("copy the manual's syntax line: form \"add{.rnd}.f32 d, a, b\";"));
    }
    let sem = sem.ok_or_else(|| {
        Diagnostic::at(
            &first.span,
            format!("`{}` has no `sem` block", opcodes.join(", ")),
        )
    })?;
    for cond in operand_types
        .values()
        .flatten()
        .filter_map(|(_, c)| c.as_ref())
    {
        if crate::text_rule::is_text_condition(&groups, cond) {
            crate::text_rule::validate(&forms, &groups, cond)?;
        }
    }
    let text_rules = texts
        .into_iter()
        .map(|(cond, message)| TextRule::new(&forms, &groups, cond, message))
        .collect::<Result<_, _>>()?;
    Ok(Family {
        name: opcodes.join(", "),
        opcodes,
        span: first.span.clone(),
        forms,
        groups,
        operand_types,
        requires,
        rejects,
        sem,
        text_rules,
        fusions,
    })
}

/// A `fuse` item: its product and sum are opcodes of its own block (the licence is one
/// section's, 9.7.3's for `mul`/`add`); the fused and negating opcodes may be any family's,
/// which the catalogue checks once every file is resolved.
fn resolve_fusion(f: &ast::FuseDecl, opcodes: &[String]) -> Result<Fusion, Diagnostic> {
    for name in [&f.product, &f.sum] {
        if !opcodes.contains(&name.text) {
            return Err(Diagnostic::at(
                &name.span,
                format!(
                    "`fuse` names `{}`, which this `instr {}` block does not specify",
                    name.text,
                    opcodes.join(", ")
                ),
            )
            .with_hint("declare a fusion in the block of the product and the sum it fuses"));
        }
    }
    if f.product.text == f.sum.text {
        return Err(Diagnostic::at(
            &f.sum.span,
            "a fusion's product and sum are two different opcodes",
        ));
    }
    Ok(Fusion {
        product: f.product.text.clone(),
        sum: f.sum.text.clone(),
        fused: f.fused.clone(),
        negate: f.negate.clone(),
    })
}

/// `f16[15:6]` as (`f16`, (15, 6)): bits of a format, the type of a SASS immediate field that
/// keeps part of the value the text writes ("Most significant 10 bits of fp16 immediate").
pub fn format_slice(ty: &str) -> Option<(&str, (u32, u32))> {
    let (format, bits) = ty.strip_suffix(']')?.split_once('[')?;
    let (hi, lo) = bits.split_once(':')?;
    Some((format, (hi.parse().ok()?, lo.parse().ok()?)))
}
