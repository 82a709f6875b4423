//! Lowering: one variant's semantics, with every modifier fixed, to the variant IR.
//!
//! This is a small symbolic executor over the syntax tree. Compile-time values (modifiers,
//! flags, integers, literals) are folded as it goes, so only the branches a variant can take
//! are lowered and type-checked; run-time conditions become selects, and `for` loops and `def`s
//! are unrolled and inlined. Identical ops are shared and constant bit operations are folded.

mod call;
mod expr;
mod params;
mod stmt;

use params::type_from_name;
pub use params::{member_index_width, Params};

use crate::diag::{Diagnostic, Span};
use crate::ir::{Builder, Dest, Op, Outcome, Part, PartKind, Program, ValueId};
use crate::resolved::{Family, Resolved};
use semfuzz_fp::{Format, Round};

/// The type of a run-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A predicate.
    Pred,
    /// An N-bit vector.
    Bits(u32),
    /// A floating-point value.
    Float(Format),
    /// Packed lanes of a format.
    Packed(Format, u32),
}

impl Ty {
    /// Register width.
    pub fn width(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::Bits(n) => n,
            Ty::Float(f) => f.width(),
            Ty::Packed(f, n) => f.width() * n,
        }
    }

    fn lanes(self) -> u32 {
        match self {
            Ty::Packed(_, n) => n,
            _ => 1,
        }
    }

    fn lane(self) -> Ty {
        match self {
            Ty::Packed(f, _) => Ty::Float(f),
            t => t,
        }
    }
}

/// A value during lowering.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Int(i64),
    Bool(bool),
    Mod(String),
    Real(f64),
    Rt(ValueId, Ty),
    /// A nondeterministic choice: only assignable to a destination.
    Choice(Outcome, Ty),
    /// A group member written on an operand, known at run time (`iswz(Ra)`): the index of the
    /// member in the group's list. Only compared with a member (`iswz(Ra) == .F32`).
    Member(ValueId, Vec<String>),
}

fn err(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

/// Lowers the family's semantics for one variant.
pub fn lower(
    spec: &Resolved,
    fam: &Family,
    params: &Params,
    steps_left: &mut u64,
) -> Result<Program, Diagnostic> {
    let mut l = Lowerer::new(spec, params);
    l.steps_left = *steps_left;
    let program = lower_with(&mut l, spec, fam, params);
    *steps_left = l.steps_left;
    program
}

fn lower_with(
    l: &mut Lowerer,
    spec: &Resolved,
    fam: &Family,
    params: &Params,
) -> Result<Program, Diagnostic> {
    let mut env = Env::default();
    let mut input_widths = Vec::new();
    for (i, name) in params.operands.iter().enumerate() {
        let (ty_name, _) = params.operand_type(spec, fam, name)?;
        let ty = type_from_name(spec, &ty_name)
            .ok_or_else(|| err(&fam.span, format!("`{ty_name}` is not a type")))?;
        if i < params.dests {
            env.vars.push((
                name.clone(),
                Binding::Dest {
                    ty,
                    lanes: vec![None; ty.lanes() as usize],
                    slices: Vec::new(),
                },
            ));
        } else {
            let id = l.emit(Op::Input((i - params.dests) as u16), ty.width());
            input_widths.push(ty.width());
            env.vars.push((name.clone(), Binding::Val(Val::Rt(id, ty))));
        }
    }
    for f in &params.fields {
        let ty = f.ty();
        let id = l.emit(Op::Input(input_widths.len() as u16), ty.width());
        input_widths.push(ty.width());
        l.fields.push(id);
    }
    if let Some((_, Binding::Dest { ty, .. })) = env.vars.first() {
        l.old_dest = OldDest::Unread(*ty, input_widths.len() as u16);
    }
    l.block(&mut env, &fam.sem, false)?;
    if let OldDest::Read(_, ty) = l.old_dest {
        input_widths.push(ty.width());
    }
    let mut dests = Vec::with_capacity(params.dests);
    for (name, binding) in env.vars.iter().take(params.dests).cloned() {
        let Binding::Dest { ty, lanes, slices } = binding else {
            return Err(err(&fam.span, "internal: destination binding lost"));
        };
        dests.push(dest(name, ty, lanes, slices, &fam.span)?);
    }
    Ok(l.finish(input_widths, dests))
}

/// A destination's parts: its bit ranges, or its lanes, each with its outcome.
fn dest(
    name: String,
    ty: Ty,
    lanes: Vec<Option<Val>>,
    slices: Vec<Slice>,
    span: &Span,
) -> Result<Dest, Diagnostic> {
    if !slices.is_empty() {
        let parts = slice_parts(&name, ty, slices, span)?;
        return Ok(Dest {
            name,
            width: ty.width(),
            parts,
            by_range: true,
        });
    }
    let lane_ty = ty.lane();
    let mut parts = Vec::new();
    for (i, lane) in lanes.into_iter().enumerate() {
        let val = lane.ok_or_else(|| {
            let what = if ty.lanes() > 1 {
                format!("lane {i} of `{name}`")
            } else {
                format!("`{name}`")
            };
            err(span, format!("{what} is never assigned")).with_hint(format!(
                "assign it in `sem`: `{name}{} = ...;`",
                if ty.lanes() > 1 { "[i]" } else { "" }
            ))
        })?;
        let outcome = match val {
            Val::Rt(id, _) => Outcome::Exact(id),
            Val::Choice(o, _) => o,
            _ => return Err(err(span, "internal: unmaterialized destination")),
        };
        let w = lane_ty.width();
        let kind = match lane_ty {
            Ty::Pred => PartKind::Pred,
            Ty::Float(f) => PartKind::Float(f),
            _ => PartKind::Bits,
        };
        parts.push(Part {
            lo: i as u32 * w,
            width: w,
            kind,
            outcome,
        });
    }
    Ok(Dest {
        name,
        width: ty.width(),
        parts,
        by_range: false,
    })
}

/// The parts of a destination assigned by bit range (`d[63:32] = ...; d[31:0] = ...;`), which
/// must tile it: bits lo..lo+width, and the value.
fn slice_parts(
    name: &str,
    ty: Ty,
    mut slices: Vec<Slice>,
    span: &Span,
) -> Result<Vec<Part>, Diagnostic> {
    slices.sort_by_key(|s| s.lo);
    let mut next = 0;
    let mut parts = Vec::new();
    for s in slices {
        if s.lo != next {
            return Err(err(
                span,
                format!(
                    "bits [{}:{next}] of `{name}` are never assigned",
                    s.lo.saturating_sub(1)
                ),
            )
            .with_hint("the bit ranges assigned to a destination must cover all of it"));
        }
        next = s.lo + s.width;
        let (outcome, t) = match s.val {
            Val::Rt(id, t) => (Outcome::Exact(id), t),
            Val::Choice(o, t) => (o, t),
            _ => return Err(err(span, "internal: unmaterialized destination range")),
        };
        parts.push(Part {
            lo: s.lo,
            width: s.width,
            kind: match t {
                Ty::Pred => PartKind::Pred,
                Ty::Float(f) => PartKind::Float(f),
                _ => PartKind::Bits,
            },
            outcome,
        });
    }
    if next != ty.width() {
        return Err(err(
            span,
            format!(
                "bits [{}:{next}] of `{name}` are never assigned",
                ty.width() - 1
            ),
        )
        .with_hint("the bit ranges assigned to a destination must cover all of it"));
    }
    Ok(parts)
}

/// A bit range of a destination and its value.
#[derive(Clone, Debug, PartialEq)]
struct Slice {
    lo: u32,
    width: u32,
    val: Val,
}

#[derive(Clone, Debug, PartialEq)]
enum Binding {
    Val(Val),
    /// The destination: assigned whole or by lane (`lanes`), or by bit range (`slices`).
    Dest {
        ty: Ty,
        lanes: Vec<Option<Val>>,
        slices: Vec<Slice>,
    },
}

#[derive(Clone, Default)]
struct Env {
    vars: Vec<(String, Binding)>,
}

impl Env {
    fn find(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|(n, _)| n == name)
    }
}

/// The destination's value before the instruction (`old(Rd)`): an input after every other,
/// created when `sem` first reads it.
#[derive(Clone, Copy)]
enum OldDest {
    /// Not available (no destination known yet).
    None,
    /// Not read yet; its type and the input index it will take.
    Unread(Ty, u16),
    /// Read: the input value.
    Read(ValueId, Ty),
}

struct Lowerer<'a> {
    spec: &'a Resolved,
    params: &'a Params,
    /// The value of each of `params.fields`.
    fields: Vec<ValueId>,
    old_dest: OldDest,
    b: Builder,
    /// The defs being inlined, outermost first.
    inlining: Vec<String>,
    /// Loop iterations and expressions the load may still take (see [`MAX_LOAD_STEPS`]).
    steps_left: u64,
}

const MAX_INLINE_DEPTH: usize = 32;
const MAX_UNROLL: i64 = 1024;
/// Loop iterations and expressions that lowering every variant of a load may take together.
/// Each loop is bounded by [`MAX_UNROLL`] and inlining by [`MAX_INLINE_DEPTH`], but not their
/// products: three nested loops of 1000, or a chain of defs each calling the next twice, ran
/// for minutes. The shipped specs take about 0.9 million in all (646 for the largest variant).
pub const MAX_LOAD_STEPS: u64 = 1 << 24;
/// The steps of one `operand ... if` condition, which the modifiers alone decide (the shipped
/// ones take under 20).
const MAX_CONDITION_STEPS: u64 = 1 << 12;

fn rounding(m: &str) -> Option<Round> {
    Some(match m {
        "rn" => Round::NearestEven,
        "rz" => Round::TowardZero,
        "rm" => Round::Down,
        "rp" => Round::Up,
        "rna" => Round::NearestAway,
        _ => return None,
    })
}

impl<'a> Lowerer<'a> {
    fn new(spec: &'a Resolved, params: &'a Params) -> Lowerer<'a> {
        Lowerer {
            spec,
            params,
            fields: Vec::new(),
            old_dest: OldDest::None,
            b: Builder::default(),
            inlining: Vec::new(),
            steps_left: 0,
        }
    }

    /// Counts one loop iteration or expression against [`MAX_LOAD_STEPS`].
    fn step(&mut self, span: &Span) -> Result<(), Diagnostic> {
        self.steps_left = self.steps_left.checked_sub(1).ok_or_else(|| {
            err(
                span,
                format!(
                    "lowering the specs took more than {MAX_LOAD_STEPS} steps (loop iterations and expressions, defs inlined) in all"
                ),
            )
            .with_hint("nested loops multiply, as do defs that call a def more than once: loop over lanes, and keep def chains short")
        })?;
        Ok(())
    }

    /// Adds an op through the [`Builder`] (sharing, folding).
    fn emit(&mut self, op: Op, width: u32) -> ValueId {
        self.b.emit(op, width)
    }

    fn konst(&mut self, v: u64, width: u32) -> ValueId {
        self.b.konst(v, width)
    }

    fn finish(&mut self, input_widths: Vec<u32>, dests: Vec<Dest>) -> Program {
        std::mem::take(&mut self.b)
            .finish(input_widths, dests, Vec::new())
            .0
    }
}
