//! The compile-time parameters of one variant (flags, group members, the form's type) and
//! the types operands take from them.

use super::{err, Env, Lowerer, Ty, Val, MAX_CONDITION_STEPS};
use crate::ast::Expr;
use crate::diag::Diagnostic;
use crate::form::{Choice, Elem, FieldKind};
use crate::resolved::{Family, Form, FormatInfo, Resolved};
use std::collections::HashMap;

/// An operand modifier that is a run-time field of the variant (SASS `-Ra`, `|Ra|`,
/// `Ra.H0_H0`): its input follows the source operands (see `Pattern::fields`).
pub(super) struct FieldParam {
    pub(super) operand: String,
    pub(super) kind: FieldKind,
    /// The group's name and members, for a `Member` field.
    pub(super) group: Option<(String, Vec<String>)>,
}

/// The compile-time parameters of one variant: flags, group members, the form's type.
pub struct Params {
    pub(super) opcode: String,
    pub(super) flags: HashMap<String, bool>,
    pub(super) groups: HashMap<String, Option<String>>,
    pub(super) type_name: Option<String>,
    pub(super) operands: Vec<String>,
    /// How many of `operands` (the first) are destinations.
    pub(super) dests: usize,
    pub(super) all_operands: Vec<String>,
    pub(super) fields: Vec<FieldParam>,
}

impl Params {
    /// Binds the modifiers of `choice` in `form`.
    pub fn new(
        spec: &Resolved,
        fam: &Family,
        form: &Form,
        choice: &Choice,
    ) -> Result<Params, Diagnostic> {
        let mut flags = HashMap::new();
        let mut all_operands = Vec::new();
        // A flag is an optional modifier (`{.ftz}`), or a required one that is neither a group
        // nor a format (`.relu` in `fma.rnd.relu.f16`): true in the variants that write it.
        for f in &fam.forms {
            for e in &f.pattern.elems {
                match e {
                    Elem::Flags(fs) => fs.iter().for_each(|name| {
                        flags.insert(name.clone(), false);
                    }),
                    Elem::Lit(name) if !is_type_name(spec, name) => {
                        flags.insert(name.clone(), false);
                    }
                    _ => {}
                }
            }
            all_operands.extend(f.pattern.operands.iter().cloned());
        }
        for name in &choice.flags {
            flags.insert(name.clone(), true);
        }
        for e in &form.pattern.elems {
            if let Elem::Lit(name) = e {
                if !is_type_name(spec, name) {
                    flags.insert(name.clone(), true);
                }
            }
        }
        let groups = fam
            .groups
            .iter()
            .zip(&choice.written)
            .map(|(g, w)| (g.name.clone(), w.clone().or_else(|| g.default.clone())))
            .collect::<HashMap<_, _>>();
        let mut type_name = None;
        for e in form.pattern.elems.iter().rev() {
            let candidate = match e {
                Elem::Lit(l) => Some(l.clone()),
                Elem::Group { group, .. } => {
                    let g = &fam.groups[*group];
                    if g.members.iter().all(|m| is_type_name(spec, m)) {
                        groups.get(&g.name).cloned().flatten()
                    } else {
                        None
                    }
                }
                Elem::Flags(_) => None,
            };
            if let Some(c) = candidate.filter(|c| is_type_name(spec, c)) {
                type_name = Some(c);
                break;
            }
        }
        let fields = form
            .pattern
            .fields()
            .into_iter()
            .map(|(op, kind)| FieldParam {
                operand: form.pattern.operands[op].clone(),
                kind,
                group: match kind {
                    FieldKind::Member(g) => {
                        Some((fam.groups[g].name.clone(), fam.groups[g].members.clone()))
                    }
                    _ => None,
                },
            })
            .collect();
        Ok(Params {
            fields,
            opcode: form.pattern.opcode.clone(),
            flags,
            groups,
            type_name,
            operands: form.pattern.operands.clone(),
            dests: form.pattern.dests,
            all_operands,
        })
    }

    /// Evaluates a compile-time condition (a `require ... if` or `reject ... if` clause),
    /// charging its steps to `steps_left` (see `MAX_LOAD_STEPS`).
    pub fn const_bool(
        &self,
        spec: &Resolved,
        e: &Expr,
        steps_left: &mut u64,
    ) -> Result<bool, Diagnostic> {
        let mut l = Lowerer::new(spec, self);
        l.steps_left = *steps_left;
        let value = l.expr(&Env::default(), e);
        *steps_left = l.steps_left;
        match value? {
            Val::Bool(b) => Ok(b),
            _ => Err(err(
                &e.span,
                "a `require` or `operand ... if` condition must be decided by the modifiers alone",
            )),
        }
    }

    /// The type name and width of an operand in this variant.
    pub fn operand_type(
        &self,
        spec: &Resolved,
        fam: &Family,
        name: &str,
    ) -> Result<(String, u32), Diagnostic> {
        // The first `operand` item whose condition holds (`operand Rd: f32 if ofmt == .F32;`).
        let mut declared = None;
        for (n, cond) in fam.operand_types.get(name).into_iter().flatten() {
            // A condition on the SASS text says how a value is read, not the variant's type.
            if cond
                .as_ref()
                .is_some_and(|c| crate::text_rule::is_text_condition(&fam.groups, c))
            {
                continue;
            }
            if cond.as_ref().map_or(Ok(true), |c| {
                self.const_bool(spec, c, &mut { MAX_CONDITION_STEPS })
            })? {
                declared = Some(n);
                break;
            }
        }
        let (ty_name, span) = match declared {
            Some(n) => (self.resolve_type_name(&n.text), Some(&n.span)),
            None => (self.type_name.clone(), None),
        };
        let at = |msg: String| match span {
            Some(s) => err(s, msg),
            None => err(&fam.span, msg).with_hint(format!("declare it: `operand {name}: f32;`")),
        };
        let ty_name = ty_name.ok_or_else(|| {
            at(format!(
                "cannot tell the type of operand `{name}`: the form has no type suffix"
            ))
        })?;
        let ty = type_from_name(spec, &ty_name)
            .ok_or_else(|| at(format!("`{ty_name}` is not a type (pred, bN, or a format)")))?;
        Ok((ty_name, ty.width()))
    }

    pub(super) fn resolve_type_name(&self, name: &str) -> Option<String> {
        if name == "type" {
            return self.type_name.clone();
        }
        match self.groups.get(name) {
            Some(member) => member.clone(),
            None => Some(name.to_string()),
        }
    }
}

impl FieldParam {
    /// The input's type: a predicate for `-` and `|..|`, else the bits of a member index.
    pub(super) fn ty(&self) -> Ty {
        match &self.group {
            Some((_, members)) => Ty::Bits(member_index_width(members.len())),
            None => Ty::Pred,
        }
    }
}

/// Bits that hold an index below `n` (at least one).
pub fn member_index_width(n: usize) -> u32 {
    (usize::BITS - n.saturating_sub(1).leading_zeros()).max(1)
}

/// Whether a modifier names a type: a format, or an integer type (`b32`, `u8`, `s64`, `pred`).
/// Such a modifier is the form's type suffix, never a flag.
pub(super) fn is_type_name(spec: &Resolved, name: &str) -> bool {
    spec.format(name).is_some() || (!name.contains('[') && type_from_name(spec, name).is_some())
}

pub(super) fn type_from_name(spec: &Resolved, name: &str) -> Option<Ty> {
    if name == "pred" {
        return Some(Ty::Pred);
    }
    // `f16[15:6]`: bits `hi..lo` of a format (a SASS immediate field); `sem` reads the bits.
    if let Some((format, (hi, lo))) = crate::resolved::format_slice(name) {
        let width = type_from_name(spec, format)?.width();
        return (lo <= hi && hi < width).then_some(Ty::Bits(hi - lo + 1));
    }
    // `b32`, `u32`, `s32` (PTX), `i32` (LLVM IR): bit-vectors of their width.
    if let Some(n) = name
        .strip_prefix(['b', 'u', 's', 'i'])
        .and_then(|n| n.parse::<u32>().ok())
    {
        return (1..=64).contains(&n).then_some(Ty::Bits(n));
    }
    match spec.format(name)? {
        FormatInfo::Scalar(f) => Some(Ty::Float(f)),
        FormatInfo::Packed(f, n) => Some(Ty::Packed(f, n)),
    }
}
