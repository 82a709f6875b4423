//! Loading specs: resolution of files into instruction families, expansion of every family
//! into its variants, lowering each variant, and lookup of instruction text.

use crate::ast::{self, InstrItem, Item};
use crate::diag::{Diagnostic, Diagnostics, SourceFile, Span};
use crate::form::{self, Choice, GroupRef, Pattern};
use crate::ir::Program;
use crate::lower;
use semfuzz_fp::Format;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The spec sources compiled into the binary.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("prelude.sem", include_str!("../isa/prelude.sem")),
    (
        "ptx-9.7.3-floating-point.sem",
        include_str!("../isa/ptx-9.7.3-floating-point.sem"),
    ),
    (
        "ptx-9.7.4-half-precision.sem",
        include_str!("../isa/ptx-9.7.4-half-precision.sem"),
    ),
    (
        "ptx-9.7.3-approx.sem",
        include_str!("../isa/ptx-9.7.3-approx.sem"),
    ),
    (
        "ptx-9.7.7.1-half-set.sem",
        include_str!("../isa/ptx-9.7.7.1-half-set.sem"),
    ),
    ("sass-hmul2.sem", include_str!("../isa/sass-hmul2.sem")),
    (
        "sass-half-lanes.sem",
        include_str!("../isa/sass-half-lanes.sem"),
    ),
    ("sass-hfma2.sem", include_str!("../isa/sass-hfma2.sem")),
    ("sass-hadd2.sem", include_str!("../isa/sass-hadd2.sem")),
    ("sass-hmnmx2.sem", include_str!("../isa/sass-hmnmx2.sem")),
    ("sass-hset2.sem", include_str!("../isa/sass-hset2.sem")),
];

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
    /// The semantics.
    pub sem: ast::Block,
    /// Rules on what SASS instruction text may write (`text COND else "why";`).
    pub text_rules: Vec<crate::sass::TextRule>,
}

impl Family {
    fn group_refs(&self) -> Vec<GroupRef<'_>> {
        self.groups
            .iter()
            .map(|g| GroupRef {
                name: &g.name,
                members: &g.members,
            })
            .collect()
    }
}

/// An operand of a variant, with its type as the spec names it.
#[derive(Clone, Debug, PartialEq)]
pub struct OperandSig {
    /// Its name in the form.
    pub name: String,
    /// Its type name (`f32`, `f32x2`, `pred`).
    pub ty: String,
    /// Its register width in bits.
    pub width: u32,
    /// Whether the form writes it `{!}name`: the instruction text may negate it.
    pub negatable: bool,
    /// Where its value comes from.
    pub role: OperandRole,
}

/// Where the value of a variant's input comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OperandRole {
    /// A register or memory value: what `eval` and `check` take as operands.
    Value,
    /// An immediate written in the (SASS) instruction text.
    Immediate,
    /// A modifier the (SASS) instruction text writes on operand `operand` (`-Ra`, `|Ra|`,
    /// `Ra.H0_H0`): an instruction field, read by `sem` with `negated`, `absolute`, `iswz`.
    Modifier {
        /// The operand it modifies.
        operand: String,
        /// Which modifier.
        kind: ModifierKind,
    },
    /// The destination's value before the instruction (`old(Rd)` in `sem`; SASS `.MRG_H0`
    /// keeps half of it).
    OldDest,
}

/// A SASS operand modifier that is an instruction field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModifierKind {
    /// `-x`: 1 when written.
    Neg,
    /// `|x|`: 1 when written.
    Abs,
    /// `x.member`: the index of the member in `members`.
    Member {
        /// The group (`iswz`).
        group: String,
        /// Its members, in the order their indices count.
        members: Vec<String>,
    },
}

impl OperandSig {
    /// The value an operand written `text_negated ? "!x" : "x"` gives `sem`: `{!}c` operands
    /// are negated when read (every bit complemented: a predicate flips), before `sem` runs.
    /// Negating an operand whose form does not write `{!}` is an error.
    pub fn read(&self, text_negated: bool, bits: u64) -> Result<u64, String> {
        match (text_negated, self.negatable) {
            (false, _) => Ok(bits),
            (true, true) => Ok(!bits & crate::ir::mask(self.width)),
            (true, false) => Err(format!(
                "operand {} cannot be negated: only operands the form writes `{{!}}name` take `!`",
                self.name
            )),
        }
    }
}

/// One concrete instruction: a family with every modifier chosen, lowered.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The instruction text, e.g. `fma.rn.ftz.f32`.
    pub text: String,
    /// The opcode.
    pub family: String,
    /// Index of the form in the family.
    pub form: usize,
    /// The form's syntax line.
    pub syntax: String,
    /// Source operands in order.
    pub sources: Vec<OperandSig>,
    /// Destination operands.
    pub dests: Vec<OperandSig>,
    /// What it needs of PTX ISA and target.
    pub requirement: Requirement,
    /// True when written without a rounding modifier that defaults (the optimizer may fuse it).
    pub fusable: bool,
    /// The lowered program.
    pub program: Program,
}

impl Variant {
    /// `add.rn.f32 d, a, b`; a SASS variant shows its form's operands with their modifiers
    /// (`HMUL2.FTZ Rd, {-}{|}Ra{|}{.iswz}, {-}{|}Rb{|}{.iswz}`).
    pub fn signature(&self) -> String {
        if self.sources.iter().any(|s| s.role != OperandRole::Value) {
            let operands = self
                .syntax
                .split_once(char::is_whitespace)
                .map_or("", |(_, ops)| ops.trim());
            return format!("{} {operands}", self.text);
        }
        let ops: Vec<String> = self
            .dests
            .iter()
            .chain(&self.sources)
            .map(|o| {
                if o.negatable {
                    format!("{{!}}{}", o.name)
                } else {
                    o.name.clone()
                }
            })
            .collect();
        format!("{} {}", self.text, ops.join(", "))
    }
}

/// Everything loaded from a set of spec files.
#[derive(Debug)]
pub struct Spec {
    /// Declared formats by name.
    pub formats: HashMap<String, FormatInfo>,
    /// Constants by name.
    pub consts: HashMap<String, ast::Expr>,
    /// Helper definitions by name.
    pub defs: HashMap<String, ast::Def>,
    /// Families by name, in load order.
    pub families: Vec<Family>,
    /// Every variant of every family.
    pub variants: Vec<Variant>,
    by_text: HashMap<String, Vec<usize>>,
    rejected: HashMap<String, (usize, usize)>,
}

/// Parses a PTX version literal `8.6`.
fn parse_ptx(name: &ast::Name) -> Result<(u32, u32), Diagnostic> {
    let bad = || {
        Diagnostic::at(
            &name.span,
            format!("`{}` is not a PTX ISA version", name.text),
        )
        .with_hint("write e.g. `8.6`")
    };
    let (a, b) = name.text.split_once('.').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
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

impl Spec {
    /// Loads the spec sources compiled into the binary.
    pub fn embedded() -> Result<Spec, Diagnostics> {
        let files = EMBEDDED
            .iter()
            .map(|(n, t)| SourceFile::new(format!("<embedded>/spec/isa/{n}"), *t))
            .collect();
        Spec::from_files(files)
    }

    /// Loads every `*.sem` file of a directory (sorted by name).
    pub fn load_dir(dir: &Path) -> Result<Spec, Diagnostics> {
        let read = std::fs::read_dir(dir).map_err(|e| {
            Diagnostics(vec![Diagnostic::plain(format!(
                "cannot read spec directory {}: {e}",
                dir.display()
            ))
            .with_hint(
                "--spec-dir takes a directory of .sem files, such as spec/isa",
            )])
        })?;
        let mut paths: Vec<_> = read
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "sem"))
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(Diagnostics(vec![Diagnostic::plain(format!(
                "no .sem files in {}",
                dir.display()
            ))]));
        }
        let mut files = Vec::new();
        for p in paths {
            let text = std::fs::read_to_string(&p).map_err(|e| {
                Diagnostics(vec![Diagnostic::plain(format!(
                    "cannot read {}: {e}",
                    p.display()
                ))])
            })?;
            files.push(SourceFile::new(p.display().to_string(), text));
        }
        Spec::from_files(files)
    }

    /// Parses, resolves and lowers a set of sources; reports every error found.
    pub fn from_files(files: Vec<Arc<SourceFile>>) -> Result<Spec, Diagnostics> {
        let mut errors = Vec::new();
        let mut parsed = Vec::new();
        for f in &files {
            match crate::parser::parse_file(f) {
                Ok(p) => parsed.push(p),
                Err(d) => errors.push(d),
            }
        }
        if !errors.is_empty() {
            return Err(Diagnostics(errors));
        }
        let mut spec = Spec {
            formats: HashMap::new(),
            consts: HashMap::new(),
            defs: HashMap::new(),
            families: Vec::new(),
            variants: Vec::new(),
            by_text: HashMap::new(),
            rejected: HashMap::new(),
        };
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
        for file in &parsed {
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
        if errors.is_empty() {
            errors.extend(crate::check::check_spec(&spec));
        }
        if !errors.is_empty() {
            return Err(Diagnostics(errors));
        }
        for fi in 0..spec.families.len() {
            if let Err(d) = spec.expand_family(fi) {
                errors.push(d);
            }
        }
        if errors.is_empty() {
            Ok(spec)
        } else {
            Err(Diagnostics(errors))
        }
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

    /// Finds the variant for instruction text, given how many source operands were supplied
    /// (`None` when unknown: then the text must name one variant).
    pub fn lookup(&self, text: &str, n_sources: Option<usize>) -> Result<&Variant, Diagnostic> {
        let text = text.trim().trim_end_matches(';');
        if let Some(ids) = self.by_text.get(text) {
            let fits: Vec<&Variant> = ids
                .iter()
                .map(|&i| &self.variants[i])
                .filter(|v| n_sources.is_none_or(|n| v.sources.len() == n))
                .collect();
            return match fits.as_slice() {
                [one] => Ok(one),
                [] => {
                    let takes: Vec<String> = ids
                        .iter()
                        .map(|&i| {
                            let names: Vec<&str> = self.variants[i]
                                .sources
                                .iter()
                                .map(|s| s.name.as_str())
                                .collect();
                            format!("{} ({})", names.len(), names.join(", "))
                        })
                        .collect();
                    let given = n_sources.unwrap_or(0);
                    Err(Diagnostic::plain(format!(
                        "`{text}` takes {} source operand{}, but {given} {} given",
                        takes.join(" or "),
                        if takes.len() == 1 && self.variants[ids[0]].sources.len() == 1 {
                            ""
                        } else {
                            "s"
                        },
                        if given == 1 { "was" } else { "were" }
                    ))
                    .with_hint(format!(
                        "`semfuzz list {}` shows its signature",
                        text.split('.').next().unwrap_or(text)
                    )))
                }
                many => Err(
                    Diagnostic::plain(format!("`{text}` has {} forms", many.len())).with_hint(
                        format!(
                            "give the operands to choose: {}",
                            many.iter()
                                .map(|v| v.signature())
                                .collect::<Vec<_>>()
                                .join(" | ")
                        ),
                    ),
                ),
            };
        }
        Err(self.diagnose_unknown(text))
    }

    /// Every variant whose instruction text (modifiers included) is `text`: one per form.
    pub fn variants_named(&self, text: &str) -> Vec<&Variant> {
        self.by_text
            .get(text)
            .map(|ids| ids.iter().map(|&i| &self.variants[i]).collect())
            .unwrap_or_default()
    }

    /// The form a variant was built from.
    pub fn form_of(&self, v: &Variant) -> &Form {
        let fam = self
            .families
            .iter()
            .find(|f| f.opcodes.contains(&v.family))
            .expect("a variant's opcode names a loaded family");
        &fam.forms[v.form]
    }

    /// The default member of group `group` of a variant's instruction, if it has one.
    pub fn group_default(&self, v: &Variant, group: &str) -> Option<String> {
        self.families
            .iter()
            .find(|f| f.opcodes.contains(&v.family))?
            .groups
            .iter()
            .find(|g| g.name == group)?
            .default
            .clone()
    }

    /// Explains why `text` names no variant, suggesting the nearest one.
    fn diagnose_unknown(&self, text: &str) -> Diagnostic {
        if let Some(&(fi, form)) = self.rejected.get(text) {
            let f = &self.families[fi].forms[form];
            return Diagnostic::plain(format!(
                "`{text}` is not supported: {}",
                f.rejected.as_deref().unwrap_or("")
            ))
            .with_note(format!("manual syntax: {}", f.syntax));
        }
        let mut parts = text.split('.');
        let opcode = parts.next().unwrap_or("");
        let tokens: Vec<&str> = parts.collect();
        let Some(fam) = self
            .families
            .iter()
            .find(|f| f.opcodes.iter().any(|o| o == opcode))
        else {
            let mut names: Vec<&str> = self
                .families
                .iter()
                .flat_map(|f| f.opcodes.iter().map(String::as_str))
                .collect();
            names.sort();
            let near: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| crate::pattern::edit_distance(opcode, n, false) <= 2)
                .collect();
            let hint = if near.is_empty() {
                format!("known instructions: {}", names.join(" "))
            } else {
                format!("did you mean {}?", near.join(" or "))
            };
            return Diagnostic::plain(format!("unknown instruction `{opcode}`")).with_hint(hint);
        };
        let vocab: Vec<String> = {
            let mut v: Vec<String> = Vec::new();
            for form in fam.forms.iter().filter(|f| f.pattern.opcode == opcode) {
                for c in form::expand(&form.pattern, &fam.group_refs()) {
                    for t in c.tokens {
                        if !v.contains(&t) {
                            v.push(t);
                        }
                    }
                }
            }
            v
        };
        if let Some(bad) = tokens.iter().find(|t| !vocab.iter().any(|v| v == *t)) {
            return Diagnostic::plain(format!("`.{bad}` is not a modifier of `{opcode}`"))
                .with_hint(format!(
                    "`{opcode}` takes {}",
                    vocab
                        .iter()
                        .map(|v| format!(".{v}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
        }
        let exists = |ts: &[&str]| {
            let t = std::iter::once(opcode)
                .chain(ts.iter().copied())
                .collect::<Vec<_>>()
                .join(".");
            (self.by_text.contains_key(&t) || self.rejected.contains_key(&t)).then_some(t)
        };
        // A missing required group member: try inserting each group's members.
        for g in &fam.groups {
            for pos in 0..=tokens.len() {
                let mut t = tokens.clone();
                t.insert(pos, &g.members[0]);
                if exists(&t).is_some() {
                    let members: Vec<String> = g.members.iter().map(|m| format!(".{m}")).collect();
                    return Diagnostic::plain(format!(
                        "`{text}` lacks its required .{} modifier (one of {})",
                        g.name,
                        members.join(" ")
                    ))
                    .with_hint(format!("e.g. `{}`", exists(&t).unwrap_or_default()));
                }
            }
        }
        for i in 0..tokens.len() {
            for j in i + 1..tokens.len() {
                let mut t = tokens.clone();
                t.swap(i, j);
                if let Some(fixed) = exists(&t) {
                    return Diagnostic::plain(format!(
                        "the modifiers of `{text}` are out of order"
                    ))
                    .with_hint(format!("write `{fixed}`"));
                }
            }
        }
        for pos in 0..=tokens.len() {
            for v in &vocab {
                let mut t = tokens.clone();
                t.insert(pos, v);
                if let Some(fixed) = exists(&t) {
                    return Diagnostic::plain(format!("`{text}` needs `.{v}` here"))
                        .with_hint(format!("did you mean `{fixed}`?"));
                }
            }
        }
        for (i, tok) in tokens.iter().enumerate() {
            let mut t = tokens.clone();
            t.remove(i);
            if let Some(fixed) = exists(&t) {
                let forms: Vec<&str> = fam
                    .forms
                    .iter()
                    .filter(|f| f.rejected.is_none() && f.pattern.opcode == opcode)
                    .map(|f| f.syntax.as_str())
                    .collect();
                return Diagnostic::plain(format!("`.{tok}` is not allowed in `{text}`"))
                    .with_hint(format!(
                        "without it: `{fixed}`; the forms of `{opcode}` are: {}",
                        forms.join(" | ")
                    ));
            }
        }
        let forms: Vec<&str> = fam
            .forms
            .iter()
            .filter(|f| f.rejected.is_none() && f.pattern.opcode == opcode)
            .map(|f| f.syntax.as_str())
            .collect();
        Diagnostic::plain(format!("`{text}` matches no form of `{opcode}`"))
            .with_hint(format!("the forms are: {}", forms.join(" | ")))
    }

    fn expand_family(&mut self, fi: usize) -> Result<(), Diagnostic> {
        let fam = self.families[fi].clone();
        for (form_ix, form) in fam.forms.iter().enumerate() {
            for choice in form::expand(&form.pattern, &fam.group_refs()) {
                let text = std::iter::once(form.pattern.opcode.clone())
                    .chain(choice.tokens.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(".");
                if form.rejected.is_some() {
                    self.rejected.entry(text).or_insert((fi, form_ix));
                    continue;
                }
                let variant = self
                    .build_variant(&fam, form_ix, &choice, &text)
                    .map_err(|d| d.with_note(format!("while building variant `{text}`")))?;
                let id = self.variants.len();
                self.by_text.entry(text).or_default().push(id);
                self.variants.push(variant);
            }
        }
        Ok(())
    }

    fn build_variant(
        &self,
        fam: &Family,
        form_ix: usize,
        choice: &Choice,
        text: &str,
    ) -> Result<Variant, Diagnostic> {
        let form = &fam.forms[form_ix];
        let params = lower::Params::new(self, fam, form, choice)?;
        let mut requirement = form.requirement;
        for (req, cond) in &fam.requires {
            if params.const_bool(self, cond)? {
                requirement = requirement.max(*req);
            }
        }
        let fusable = fam
            .groups
            .iter()
            .zip(&choice.written)
            .any(|(g, w)| g.fusable && w.is_none());
        let program = lower::lower(self, fam, &params)?;
        let sig = |name: &String| -> Result<OperandSig, Diagnostic> {
            let (ty, width) = params.operand_type(self, fam, name)?;
            let at = form.pattern.operands.iter().position(|o| o == name);
            let immediate =
                at.is_some_and(|i| form.pattern.mods[i].kind == form::OperandKind::Immediate);
            Ok(OperandSig {
                name: name.clone(),
                ty,
                width,
                negatable: at.is_some_and(|i| form.pattern.negatable[i]),
                role: if immediate {
                    OperandRole::Immediate
                } else {
                    OperandRole::Value
                },
            })
        };
        let ops = &form.pattern.operands;
        let mut sources: Vec<OperandSig> = ops[1..].iter().map(sig).collect::<Result<_, _>>()?;
        for (op, kind) in form.pattern.fields() {
            let operand = ops[op].clone();
            let (suffix, kind, width) = match kind {
                form::FieldKind::Neg => ("neg".to_string(), ModifierKind::Neg, 1),
                form::FieldKind::Abs => ("abs".to_string(), ModifierKind::Abs, 1),
                form::FieldKind::Member(g) => {
                    let g = &fam.groups[g];
                    (
                        g.name.clone(),
                        ModifierKind::Member {
                            group: g.name.clone(),
                            members: g.members.clone(),
                        },
                        lower::member_index_width(g.members.len()),
                    )
                }
            };
            sources.push(OperandSig {
                name: format!("{operand}.{suffix}"),
                ty: if width == 1 {
                    "pred".into()
                } else {
                    format!("b{width}")
                },
                width,
                negatable: false,
                role: OperandRole::Modifier { operand, kind },
            });
        }
        if program.input_widths.len() > sources.len() {
            // `sem` reads `old(Rd)`: the last input.
            let dest = sig(&ops[0])?;
            sources.push(OperandSig {
                name: format!("{}.old", dest.name),
                role: OperandRole::OldDest,
                ..dest
            });
        }
        Ok(Variant {
            text: text.to_string(),
            family: form.pattern.opcode.clone(),
            form: form_ix,
            syntax: form.syntax.clone(),
            dests: vec![sig(&ops[0])?],
            sources,
            requirement,
            fusable,
            program,
        })
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

/// Edit distance, for "did you mean".
fn resolve_family(instr: &ast::Instr) -> Result<Family, Diagnostic> {
    let opcodes: Vec<String> = instr.names.iter().map(|n| n.text.clone()).collect();
    let first = &instr.names[0];
    let mut groups: Vec<Group> = Vec::new();
    let mut sem = None;
    let mut operand_types = HashMap::new();
    let mut requires = Vec::new();
    let mut texts = Vec::new();
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
            InstrItem::Text { cond, message } => texts.push((cond.clone(), message.clone())),
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
        if crate::sass::is_text_condition(&groups, cond) {
            crate::sass::validate(&forms, &groups, cond)?;
        }
    }
    let text_rules = texts
        .into_iter()
        .map(|(cond, message)| crate::sass::TextRule::new(&forms, &groups, cond, message))
        .collect::<Result<_, _>>()?;
    Ok(Family {
        name: opcodes.join(", "),
        opcodes,
        span: first.span.clone(),
        forms,
        groups,
        operand_types,
        requires,
        sem,
        text_rules,
    })
}
