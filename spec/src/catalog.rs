//! Loading specs: files parsed and resolved ([`crate::resolved`]), checked, every family
//! expanded into its variants and each variant lowered; lookup of instruction text.

use crate::diag::{Diagnostic, Diagnostics, SourceFile};
use crate::form::{self, Choice};
use crate::ir::Program;
use crate::lower;
pub use crate::resolved::{Family, Form, FormatInfo, Group, Requirement, Resolved};
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
        "ptx-9.7.9.21-cvt.sem",
        include_str!("../isa/ptx-9.7.9.21-cvt.sem"),
    ),
    (
        "sass-half-lanes.sem",
        include_str!("../isa/sass-half-lanes.sem"),
    ),
    ("sass-hfma2.sem", include_str!("../isa/sass-hfma2.sem")),
    ("sass-hadd2.sem", include_str!("../isa/sass-hadd2.sem")),
    ("sass-hmnmx2.sem", include_str!("../isa/sass-hmnmx2.sem")),
    ("sass-hset2.sem", include_str!("../isa/sass-hset2.sem")),
    (
        "ptx-9.7.1-integer.sem",
        include_str!("../isa/ptx-9.7.1-integer.sem"),
    ),
    (
        "ptx-9.7.6-comparison.sem",
        include_str!("../isa/ptx-9.7.6-comparison.sem"),
    ),
    (
        "ptx-9.7.7.2-half-setp.sem",
        include_str!("../isa/ptx-9.7.7.2-half-setp.sem"),
    ),
    (
        "ptx-9.7.8-logic-shift.sem",
        include_str!("../isa/ptx-9.7.8-logic-shift.sem"),
    ),
    (
        "ptx-9.7.9-data-movement.sem",
        include_str!("../isa/ptx-9.7.9-data-movement.sem"),
    ),
    (
        "ptx-9.7.13.5-atom.sem",
        include_str!("../isa/ptx-9.7.13.5-atom.sem"),
    ),
    (
        "ptx-9.7.9.6-shfl-sync.sem",
        include_str!("../isa/ptx-9.7.9.6-shfl-sync.sem"),
    ),
    (
        "ptx-9.7.13.9-warp-collectives.sem",
        include_str!("../isa/ptx-9.7.13.9-warp-collectives.sem"),
    ),
    ("llvm-fp.sem", include_str!("../isa/llvm-fp.sem")),
    ("llvm-int.sem", include_str!("../isa/llvm-int.sem")),
];

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
    /// PTX vectors, `p[|q]` and memory operands are shown as the form writes them too
    /// (`mov.b32 {x, y}, a`, `setp.lt.s32 p[|q], a, b`, `ld.param.b32 d, [a]`).
    pub fn signature(&self) -> String {
        let operands = self
            .syntax
            .split(';')
            .next()
            .unwrap_or("")
            .split_once(char::is_whitespace)
            .map_or("", |(_, ops)| ops.trim());
        let laid_out = operands.replace("{!}", "").contains(['{', '[', '|']);
        if laid_out || self.sources.iter().any(|s| s.role != OperandRole::Value) {
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

    /// Whether this is an LLVM IR instruction or intrinsic (`spec/isa/llvm-*.sem`), which no
    /// PTX kernel can name: by the naming contract of docs/llvm-ir-spec.md its opcode is
    /// `ir_` + the IR opcode or `llvm_` + the intrinsic's name.
    pub fn is_llvm_ir(&self) -> bool {
        self.family.starts_with("ir_") || self.family.starts_with("llvm_")
    }

    /// Whether this is a warp collective in the warp view (docs/spec-language.md, "Warp
    /// collectives"): one lane's result from the 32 lanes' values, its last source `active`,
    /// the lanes executing the instruction. No one-thread kernel or reader can give it its
    /// sources; a CTA semantics gathers them lane by lane.
    pub fn is_warp_view(&self) -> bool {
        self.sources.last().is_some_and(|s| s.name == "active")
    }
}

/// Everything loaded from a set of spec files.
#[derive(Debug)]
pub struct Spec {
    /// What the files declare: formats, constants, helpers, families.
    pub resolved: Resolved,
    /// Every variant of every family.
    pub variants: Vec<Variant>,
    by_text: HashMap<String, Vec<usize>>,
    refused: HashMap<String, Refusal>,
}

/// Instruction text a form spells but semfuzz does not build: a `rejected` form, or a
/// combination of modifiers a `reject` item forbids.
#[derive(Debug)]
struct Refusal {
    /// Why, as the spec says it.
    why: String,
    /// The form's syntax line.
    syntax: String,
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
        let (resolved, mut errors) = Resolved::resolve(&parsed);
        let mut spec = Spec {
            resolved,
            variants: Vec::new(),
            by_text: HashMap::new(),
            refused: HashMap::new(),
        };
        if errors.is_empty() {
            errors.extend(crate::check::check_spec(&spec.resolved));
        }
        if !errors.is_empty() {
            return Err(Diagnostics(errors));
        }
        if let Err(d) = within_choice_limit(&spec.resolved) {
            return Err(Diagnostics(vec![d]));
        }
        let mut steps_left = lower::MAX_LOAD_STEPS;
        for fi in 0..spec.resolved.families.len() {
            if let Err(d) = spec.expand_family(fi, &mut steps_left) {
                errors.push(d);
            }
        }
        if errors.is_empty() {
            Ok(spec)
        } else {
            Err(Diagnostics(errors))
        }
    }

    /// Finds the variant for instruction text, given how many source operands were supplied
    /// (`None` when unknown: then the text must name one variant).
    /// Where forms differ only in their destinations (`mov.b64 d, a` and the unpacking
    /// `mov.b64 {d, e}, a`), the one with a single destination is meant.
    pub fn lookup(&self, text: &str, n_sources: Option<usize>) -> Result<&Variant, Diagnostic> {
        self.find(text, None, n_sources)
    }

    /// Finds the variant for instruction text given its operands' shape: how many destinations
    /// (`mov.b64 {d, e}, a` has two; `setp` always has two, `p` and `q`) and sources (vector
    /// braces flattened: `mov.b32 d, {a, b}` has two).
    pub fn lookup_shape(
        &self,
        text: &str,
        n_dests: usize,
        n_sources: usize,
    ) -> Result<&Variant, Diagnostic> {
        self.find(text, Some(n_dests), Some(n_sources))
    }

    fn find(
        &self,
        text: &str,
        n_dests: Option<usize>,
        n_sources: Option<usize>,
    ) -> Result<&Variant, Diagnostic> {
        let text = text.trim().trim_end_matches(';');
        if let Some(ids) = self.by_text.get(text) {
            let mut fits: Vec<&Variant> = ids
                .iter()
                .map(|&i| &self.variants[i])
                .filter(|v| n_sources.is_none_or(|n| v.sources.len() == n))
                .filter(|v| n_dests.is_none_or(|n| v.dests.len() == n))
                .collect();
            if n_dests.is_none() && fits.iter().filter(|v| v.dests.len() == 1).count() == 1 {
                fits.retain(|v| v.dests.len() == 1);
            }
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
            .resolved
            .families
            .iter()
            .find(|f| f.opcodes.contains(&v.family))
            .expect("a variant's opcode names a loaded family");
        &fam.forms[v.form]
    }

    /// The default member of group `group` of a variant's instruction, if it has one.
    pub fn group_default(&self, v: &Variant, group: &str) -> Option<String> {
        self.resolved
            .families
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
        if let Some(r) = self.refused.get(text) {
            return Diagnostic::plain(format!("`{text}` is not supported: {}", r.why))
                .with_note(format!("manual syntax: {}", r.syntax));
        }
        let mut parts = text.split('.');
        let opcode = parts.next().unwrap_or("");
        let tokens: Vec<&str> = parts.collect();
        let Some(fam) = self
            .resolved
            .families
            .iter()
            .find(|f| f.opcodes.iter().any(|o| o == opcode))
        else {
            let mut names: Vec<&str> = self
                .resolved
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
            let dotted: Vec<String> = vocab.iter().map(|v| format!(".{v}")).collect();
            let mut d = Diagnostic::plain(format!("`.{bad}` is not a modifier of `{opcode}`"));
            if let Some(near) =
                crate::pattern::did_you_mean(&format!(".{bad}"), dotted.iter().map(String::as_str))
            {
                d = d.with_hint(near);
            }
            return d.with_hint(format!(
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
            (self.by_text.contains_key(&t) || self.refused.contains_key(&t)).then_some(t)
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
        // Two tokens that could fill each other's place mean different things in each order
        // (`cvt.rn.f32.f16` is not `cvt.rn.f16.f32`): swapping them is no repair.
        let interchangeable = |a: &str, b: &str| {
            (self.format(a).is_some() && self.format(b).is_some())
                || fam
                    .groups
                    .iter()
                    .any(|g| g.members.iter().any(|m| m == a) && g.members.iter().any(|m| m == b))
        };
        for i in 0..tokens.len() {
            for j in i + 1..tokens.len() {
                if interchangeable(tokens[i], tokens[j]) {
                    continue;
                }
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

    fn expand_family(&mut self, fi: usize, steps_left: &mut u64) -> Result<(), Diagnostic> {
        let fam = self.resolved.families[fi].clone();
        for (form_ix, form) in fam.forms.iter().enumerate() {
            for choice in form::expand(&form.pattern, &fam.group_refs()) {
                let text = choice.text(&form.pattern.opcode);
                let within =
                    |d: Diagnostic| d.with_note(format!("while building variant `{text}`"));
                let why = match &form.rejected {
                    Some(why) => Some(why.clone()),
                    None => self
                        .rejection(&fam, form_ix, &choice, steps_left)
                        .map_err(within)?,
                };
                if let Some(why) = why {
                    // The manual's line: without the spec's restrictions (`; .dtype = {...}`).
                    let manual = form.syntax.split(';').next().unwrap_or("").trim();
                    self.refused.entry(text).or_insert(Refusal {
                        why,
                        syntax: manual.to_string(),
                    });
                    continue;
                }
                let variant = self
                    .build_variant(&fam, form_ix, &choice, &text, steps_left)
                    .map_err(within)?;
                self.add_variant(&fam, text, variant)?;
            }
        }
        Ok(())
    }

    /// Why the family's `reject` items refuse a choice of a form, if one does.
    fn rejection(
        &self,
        fam: &Family,
        form_ix: usize,
        choice: &Choice,
        steps_left: &mut u64,
    ) -> Result<Option<String>, Diagnostic> {
        if fam.rejects.is_empty() {
            return Ok(None);
        }
        let params = lower::Params::new(&self.resolved, fam, &fam.forms[form_ix], choice)?;
        for (why, cond) in &fam.rejects {
            if params.const_bool(&self.resolved, cond, steps_left)? {
                return Ok(Some(why.clone()));
            }
        }
        Ok(None)
    }

    /// Adds a built variant. Two forms may spell the same text: with operands that tell them
    /// apart (`min` with two or three sources) both stay; with the same operands, `lookup`
    /// could never choose, so they must mean the same (the same program), and are one variant,
    /// valid wherever either form allows it (the lower requirement). Otherwise the spec is
    /// wrong, and loading it fails naming both forms.
    fn add_variant(
        &mut self,
        fam: &Family,
        text: String,
        variant: Variant,
    ) -> Result<(), Diagnostic> {
        let same_operands = |v: &Variant| v.sources == variant.sources && v.dests == variant.dests;
        let twin = self.by_text.get(&text).and_then(|ids| {
            ids.iter()
                .copied()
                .find(|&i| same_operands(&self.variants[i]))
        });
        if let Some(i) = twin {
            let prev = &self.variants[i];
            if prev.program != variant.program {
                let first = &fam.forms[prev.form].span;
                let (l, c) = first.file.line_col(first.start);
                return Err(Diagnostic::at(
                    &fam.forms[variant.form].span,
                    format!(
                        "this form and the one at {}:{l}:{c} both spell `{text}` with the same operands, but mean different things",
                        first.file.name
                    ),
                )
                .with_note(format!("the other form: {}:{l}:{c}: {}", first.file.name, prev.syntax))
                .with_hint("instruction text must name one variant: give the forms distinct spellings (restrict a group with `; .g = { ... }`, or `reject` the combination in one form), or make them mean the same so they merge"));
            }
            if variant.requirement < prev.requirement {
                self.variants[i] = variant;
            }
            return Ok(());
        }
        let id = self.variants.len();
        self.by_text.entry(text).or_default().push(id);
        self.variants.push(variant);
        Ok(())
    }

    fn build_variant(
        &self,
        fam: &Family,
        form_ix: usize,
        choice: &Choice,
        text: &str,
        steps_left: &mut u64,
    ) -> Result<Variant, Diagnostic> {
        let form = &fam.forms[form_ix];
        let params = lower::Params::new(&self.resolved, fam, form, choice)?;
        let mut requirement = form.requirement;
        for (req, cond) in &fam.requires {
            if params.const_bool(&self.resolved, cond, steps_left)? {
                requirement = requirement.max(*req);
            }
        }
        // Only a form that may write the fusable group is "written without" it: `mul.lo.s32`
        // shares a block with `mul{.rnd}.f32` but has no rounding to leave out.
        let fusable = fam
            .groups
            .iter()
            .enumerate()
            .zip(&choice.written)
            .any(|((gi, g), w)| {
                g.fusable
                    && w.is_none()
                    && form
                        .pattern
                        .elems
                        .iter()
                        .any(|e| matches!(e, form::Elem::Group { group, .. } if *group == gi))
            });
        let program = lower::lower(&self.resolved, fam, &params, steps_left)?;
        let sig = |name: &String| -> Result<OperandSig, Diagnostic> {
            let (ty, width) = params.operand_type(&self.resolved, fam, name)?;
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
        let n_dests = form.pattern.dests;
        let mut sources: Vec<OperandSig> =
            ops[n_dests..].iter().map(sig).collect::<Result<_, _>>()?;
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
            dests: ops[..n_dests].iter().map(sig).collect::<Result<_, _>>()?,
            sources,
            requirement,
            fusable,
            program,
        })
    }

    /// The format a name denotes, if it is one.
    pub fn format(&self, name: &str) -> Option<FormatInfo> {
        self.resolved.format(name)
    }

    /// The name of a scalar format (for messages).
    pub fn format_name(&self, f: Format) -> String {
        self.resolved.format_name(f)
    }

    /// How to read an operand's bits of type `ty` for display: the lane format if it is a
    /// float or packed one, a predicate, else plain bits.
    pub fn operand_kind(&self, ty: &str) -> crate::ir::PartKind {
        use crate::ir::PartKind;
        match self.format(ty) {
            Some(FormatInfo::Scalar(f)) => PartKind::Float(f),
            _ if ty == "pred" => PartKind::Pred,
            _ => PartKind::Bits,
        }
    }

    /// An operand of type `ty` described for people: its value in its format, lane by lane
    /// for a packed type (`0x3c004000: [0] 1.0, [1] 2.0`).
    pub fn describe_operand(&self, ty: &str, bits: u64) -> String {
        use crate::outcome::describe;
        if let Some(FormatInfo::Packed(f, n)) = self.format(ty) {
            let w = f.width();
            let lanes: Vec<String> = (0..n)
                .map(|i| {
                    format!(
                        "[{i}] {}",
                        describe(
                            crate::ir::PartKind::Float(f),
                            (bits >> (i * w)) & ((1u64 << w) - 1)
                        )
                    )
                })
                .collect();
            let digits = (w * n).div_ceil(4) as usize;
            return format!("0x{bits:0digits$x}: {}", lanes.join(", "));
        }
        describe(self.operand_kind(ty), bits)
    }
}

/// How many instruction texts (modifier sequences) the forms of one load may spell in all.
/// The shipped specs spell about 5,000; a few forms with many groups of many members spell
/// millions, which would be built one by one.
pub const MAX_CHOICES: u64 = 1 << 16;

/// Fails at the first form past [`MAX_CHOICES`], counted before any is built.
fn within_choice_limit(resolved: &Resolved) -> Result<(), Diagnostic> {
    let mut total: u64 = 0;
    for fam in &resolved.families {
        for form in &fam.forms {
            total = total.saturating_add(form::choice_count(&form.pattern, &fam.group_refs()));
            if total > MAX_CHOICES {
                return Err(Diagnostic::at(
                    &form.span,
                    format!(
                        "the forms up to this one spell more than {MAX_CHOICES} instruction texts"
                    ),
                )
                .with_hint("each optional group multiplies the texts by its members + 1: restrict a group for a form with `; .g = { ... }`, or split the family"));
            }
        }
    }
    Ok(())
}
