//! Lowering: one variant's semantics, with every modifier fixed, to the variant IR.
//!
//! This is a small symbolic executor over the syntax tree. Compile-time values (modifiers,
//! flags, integers, literals) are folded as it goes, so only the branches a variant can take
//! are lowered and type-checked; run-time conditions become selects, and `for` loops and `def`s
//! are unrolled and inlined. Identical ops are shared and constant bit operations are folded.

use crate::ast::{BinOp, Block, Else, Expr, ExprKind, Index, Stmt, UnOp};
use crate::catalog::{Family, Form, FormatInfo, Spec};
use crate::diag::{Diagnostic, Span};
use crate::form::{Choice, Elem, FieldKind};
use crate::ir::{
    mask, ApproxFn, Bound, Class, Cmp, Dest, Op, Outcome, Part, PartKind, Program, ValueId,
};
use semfuzz_fp::{Format, Round};
use std::collections::HashMap;

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

/// An operand modifier that is a run-time field of the variant (SASS `-Ra`, `|Ra|`,
/// `Ra.H0_H0`): its input follows the source operands (see `Pattern::fields`).
struct FieldParam {
    operand: String,
    kind: FieldKind,
    /// The group's name and members, for a `Member` field.
    group: Option<(String, Vec<String>)>,
}

/// The compile-time parameters of one variant: flags, group members, the form's type.
pub struct Params {
    opcode: String,
    flags: HashMap<String, bool>,
    groups: HashMap<String, Option<String>>,
    type_name: Option<String>,
    operands: Vec<String>,
    all_operands: Vec<String>,
    fields: Vec<FieldParam>,
}

fn err(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

impl Params {
    /// Binds the modifiers of `choice` in `form`.
    pub fn new(
        spec: &Spec,
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
                    Elem::Lit(name) if spec.format(name).is_none() => {
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
                if spec.format(name).is_none() {
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
                    if g.members.iter().all(|m| spec.format(m).is_some()) {
                        groups.get(&g.name).cloned().flatten()
                    } else {
                        None
                    }
                }
                Elem::Flags(_) => None,
            };
            if let Some(c) = candidate.filter(|c| spec.format(c).is_some()) {
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
            all_operands,
        })
    }

    /// Evaluates a compile-time condition (a `require ... if` clause).
    pub fn const_bool(&self, spec: &Spec, e: &Expr) -> Result<bool, Diagnostic> {
        let mut l = Lowerer::new(spec, self);
        match l.expr(&Env::default(), e)? {
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
        spec: &Spec,
        fam: &Family,
        name: &str,
    ) -> Result<(String, u32), Diagnostic> {
        // The first `operand` item whose condition holds (`operand Rd: f32 if ofmt == .F32;`).
        let mut declared = None;
        for (n, cond) in fam.operand_types.get(name).into_iter().flatten() {
            // A condition on the SASS text says how a value is read, not the variant's type.
            if cond
                .as_ref()
                .is_some_and(|c| crate::sass::is_text_condition(&fam.groups, c))
            {
                continue;
            }
            if cond
                .as_ref()
                .map_or(Ok(true), |c| self.const_bool(spec, c))?
            {
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

    fn resolve_type_name(&self, name: &str) -> Option<String> {
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
    fn ty(&self) -> Ty {
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

fn type_from_name(spec: &Spec, name: &str) -> Option<Ty> {
    if name == "pred" {
        return Some(Ty::Pred);
    }
    // `f16[15:6]`: bits `hi..lo` of a format (a SASS immediate field); `sem` reads the bits.
    if let Some((format, (hi, lo))) = crate::sass::format_slice(name) {
        let width = type_from_name(spec, format)?.width();
        return (lo <= hi && hi < width).then_some(Ty::Bits(hi - lo + 1));
    }
    if let Some(n) = name
        .strip_prefix(['b', 'u', 's'])
        .and_then(|n| n.parse::<u32>().ok())
    {
        return (1..=64).contains(&n).then_some(Ty::Bits(n));
    }
    match spec.format(name)? {
        FormatInfo::Scalar(f) => Some(Ty::Float(f)),
        FormatInfo::Packed(f, n) => Some(Ty::Packed(f, n)),
    }
}

/// Lowers the family's semantics for one variant.
pub fn lower(spec: &Spec, fam: &Family, params: &Params) -> Result<Program, Diagnostic> {
    let mut l = Lowerer::new(spec, params);
    let mut env = Env::default();
    let mut input_widths = Vec::new();
    for (i, name) in params.operands.iter().enumerate() {
        let (ty_name, _) = params.operand_type(spec, fam, name)?;
        let ty = type_from_name(spec, &ty_name)
            .ok_or_else(|| err(&fam.span, format!("`{ty_name}` is not a type")))?;
        if i == 0 {
            env.vars.push((
                name.clone(),
                Binding::Dest {
                    ty,
                    lanes: vec![None; ty.lanes() as usize],
                    slices: Vec::new(),
                },
            ));
        } else {
            let id = l.emit(Op::Input((i - 1) as u16), ty.width());
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
    let Some((name, Binding::Dest { ty, lanes, slices })) = env.vars.first().cloned() else {
        return Err(err(&fam.span, "internal: destination binding lost"));
    };
    if !slices.is_empty() {
        let parts = slice_parts(&name, ty, slices, &fam.span)?;
        let dests = vec![Dest {
            name,
            width: ty.width(),
            parts,
            by_range: true,
        }];
        return Ok(l.finish(input_widths, dests));
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
            err(&fam.span, format!("{what} is never assigned")).with_hint(format!(
                "assign it in `sem`: `{name}{} = ...;`",
                if ty.lanes() > 1 { "[i]" } else { "" }
            ))
        })?;
        let outcome = match val {
            Val::Rt(id, _) => Outcome::Exact(id),
            Val::Choice(o, _) => o,
            _ => return Err(err(&fam.span, "internal: unmaterialized destination")),
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
    let dests = vec![Dest {
        name,
        width: ty.width(),
        parts,
        by_range: false,
    }];
    Ok(l.finish(input_widths, dests))
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
    spec: &'a Spec,
    params: &'a Params,
    /// The value of each of `params.fields`.
    fields: Vec<ValueId>,
    old_dest: OldDest,
    ops: Vec<Op>,
    widths: Vec<u32>,
    known: Vec<Option<u64>>,
    memo: HashMap<(Op, u32), ValueId>,
    depth: usize,
}

const MAX_INLINE_DEPTH: usize = 32;
const MAX_UNROLL: i64 = 1024;

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
    fn new(spec: &'a Spec, params: &'a Params) -> Lowerer<'a> {
        Lowerer {
            spec,
            params,
            fields: Vec::new(),
            old_dest: OldDest::None,
            ops: Vec::new(),
            widths: Vec::new(),
            known: Vec::new(),
            memo: HashMap::new(),
            depth: 0,
        }
    }

    /// Adds an op (or finds an identical one), folding bit-level ops on constants. FP
    /// arithmetic is never folded: its NaN results are a choice the SMT encoding leaves open.
    fn emit(&mut self, op: Op, width: u32) -> ValueId {
        let foldable = !matches!(
            op,
            Op::Input(_)
                | Op::Const(_)
                | Op::Add(..)
                | Op::Sub(..)
                | Op::Mul(..)
                | Op::Div(..)
                | Op::Fma(..)
                | Op::Sqrt(..)
                | Op::Cvt(..)
        );
        let op = match op {
            Op::Select(c, a, b) if self.known[c as usize].is_some() => {
                return if self.known[c as usize] != Some(0) {
                    a
                } else {
                    b
                };
            }
            Op::Select(_, a, b) if a == b => return a,
            op if foldable && op.args().iter().all(|a| self.known[*a as usize].is_some()) => {
                let vals: Vec<u64> = self.known.iter().map(|k| k.unwrap_or(0)).collect();
                Op::Const(op.exec(&vals) & mask(width))
            }
            op => op,
        };
        if let Some(&id) = self.memo.get(&(op.clone(), width)) {
            return id;
        }
        let id = self.ops.len() as ValueId;
        self.known
            .push(if let Op::Const(c) = op { Some(c) } else { None });
        self.memo.insert((op.clone(), width), id);
        self.ops.push(op);
        self.widths.push(width);
        id
    }

    fn konst(&mut self, v: u64, width: u32) -> ValueId {
        self.emit(Op::Const(v & mask(width)), width)
    }

    /// Drops ops no destination depends on and renumbers the rest.
    fn finish(self, input_widths: Vec<u32>, mut dests: Vec<Dest>) -> Program {
        let mut live = vec![false; self.ops.len()];
        let mut stack = Vec::new();
        for d in &dests {
            for p in &d.parts {
                p.outcome.values(&mut stack);
            }
        }
        while let Some(v) = stack.pop() {
            if !std::mem::replace(&mut live[v as usize], true) {
                stack.extend(self.ops[v as usize].args());
            }
        }
        let mut new_id = vec![0; self.ops.len()];
        let mut ops = Vec::new();
        let mut widths = Vec::new();
        for (i, op) in self.ops.into_iter().enumerate() {
            if live[i] {
                new_id[i] = ops.len() as ValueId;
                ops.push(renumber(op, &new_id));
                widths.push(self.widths[i]);
            }
        }
        for d in &mut dests {
            for p in &mut d.parts {
                renumber_outcome(&mut p.outcome, &new_id);
            }
        }
        Program {
            input_widths,
            ops,
            widths,
            dests,
        }
    }

    // ---- statements ----

    fn block(
        &mut self,
        env: &mut Env,
        block: &Block,
        in_def: bool,
    ) -> Result<Option<Val>, Diagnostic> {
        let mark = env.vars.len();
        let mut ret = None;
        for stmt in &block.stmts {
            if let Some(v) = self.stmt(env, stmt, in_def)? {
                ret = Some(v);
            }
        }
        env.vars.truncate(mark);
        Ok(ret)
    }

    fn stmt(
        &mut self,
        env: &mut Env,
        stmt: &Stmt,
        in_def: bool,
    ) -> Result<Option<Val>, Diagnostic> {
        match stmt {
            Stmt::Let { name, value } => {
                let v = self.expr(env, value)?;
                env.vars.push((name.text.clone(), Binding::Val(v)));
            }
            Stmt::Assign { place, value } => {
                let v = self.expr(env, value)?;
                self.assign(env, place, v, &value.span)?;
            }
            Stmt::Return { value, span } => {
                if !in_def {
                    return Err(err(span, "`return` outside a `def`")
                        .with_hint("a `sem` block assigns its destination instead"));
                }
                return self.expr(env, value).map(Some);
            }
            Stmt::For {
                var,
                from,
                to,
                body,
            } => {
                let a = self.const_int(env, from)?;
                let b = self.const_int(env, to)?;
                if b - a > MAX_UNROLL {
                    return Err(err(
                        &to.span,
                        format!(
                            "loop of {} iterations; at most {MAX_UNROLL} are unrolled",
                            b - a
                        ),
                    ));
                }
                for i in a..b {
                    env.vars.push((var.text.clone(), Binding::Val(Val::Int(i))));
                    self.block(env, body, in_def)?;
                    env.vars.pop();
                }
            }
            Stmt::If { cond, then, els } => {
                let c = self.expr(env, cond)?;
                match c {
                    Val::Bool(b) => {
                        if b {
                            self.block(env, then, in_def)?;
                        } else if let Some(e) = els {
                            self.else_branch(env, e, in_def)?;
                        }
                    }
                    Val::Rt(c, Ty::Pred) => {
                        let mut then_env = env.clone();
                        self.block(&mut then_env, then, in_def)?;
                        let mut else_env = env.clone();
                        if let Some(e) = els {
                            self.else_branch(&mut else_env, e, in_def)?;
                        }
                        self.merge(env, c, then_env, else_env, &cond.span)?;
                    }
                    other => return Err(self.type_err(&cond.span, "a condition", &other)),
                }
            }
        }
        Ok(None)
    }

    fn else_branch(&mut self, env: &mut Env, e: &Else, in_def: bool) -> Result<(), Diagnostic> {
        match e {
            Else::Block(b) => self.block(env, b, in_def).map(|_| ()),
            Else::If(s) => self.stmt(env, s, in_def).map(|_| ()),
        }
    }

    /// Joins the two sides of a run-time `if` with selects.
    fn merge(
        &mut self,
        env: &mut Env,
        c: ValueId,
        t: Env,
        e: Env,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        for i in 0..env.vars.len() {
            let (name, tb) = &t.vars[i];
            let eb = &e.vars[i].1;
            if tb == eb {
                env.vars[i].1 = tb.clone();
                continue;
            }
            env.vars[i].1 = match (tb, eb) {
                (Binding::Val(a), Binding::Val(b)) => {
                    Binding::Val(self.select(c, a.clone(), b.clone(), span)?)
                }
                (
                    Binding::Dest {
                        ty,
                        lanes: la,
                        slices: sa,
                    },
                    Binding::Dest {
                        lanes: lb,
                        slices: sb,
                        ..
                    },
                ) => {
                    let same_ranges = sa.len() == sb.len()
                        && sa
                            .iter()
                            .zip(sb)
                            .all(|(x, y)| (x.lo, x.width) == (y.lo, y.width));
                    if !same_ranges {
                        return Err(err(
                            span,
                            format!("`{name}` is assigned different bit ranges on the two sides of this `if`"),
                        )
                        .with_hint("assign the same ranges on both sides, or before the `if`"));
                    }
                    let mut slices = Vec::new();
                    for (x, y) in sa.iter().zip(sb) {
                        slices.push(Slice {
                            lo: x.lo,
                            width: x.width,
                            val: self.select(c, x.val.clone(), y.val.clone(), span)?,
                        });
                    }
                    let mut lanes = Vec::new();
                    for (x, y) in la.iter().zip(lb) {
                        lanes.push(match (x, y) {
                            (Some(x), Some(y)) => {
                                Some(self.select(c, x.clone(), y.clone(), span)?)
                            }
                            (None, None) => None,
                            _ => {
                                return Err(err(
                                    span,
                                    format!("`{name}` is assigned on only one side of this `if`"),
                                )
                                .with_hint("assign it on both sides, or before the `if`"))
                            }
                        });
                    }
                    Binding::Dest {
                        ty: *ty,
                        lanes,
                        slices,
                    }
                }
                _ => return Err(err(span, "internal: binding kinds differ across branches")),
            };
        }
        Ok(())
    }

    fn assign(
        &mut self,
        env: &mut Env,
        place: &crate::ast::Place,
        v: Val,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        let name = &place.name;
        let i = env.find(&name.text).ok_or_else(|| {
            err(&name.span, format!("`{}` is not declared", name.text))
                .with_hint(format!("declare it first: `let {} = ...;`", name.text))
        })?;
        match (&mut env.vars[i].1, &place.index) {
            (Binding::Val(old), None) => {
                let new = match (&*old, v) {
                    (Val::Rt(_, ty) | Val::Choice(_, ty), v) => {
                        let ty = *ty;
                        let v = self.coerce(v, ty, span)?;
                        if let Val::Rt(_, t2) | Val::Choice(_, t2) = &v {
                            if *t2 != ty {
                                return Err(err(
                                    span,
                                    format!(
                                        "`{}` has type {}, not {}",
                                        name.text,
                                        self.ty_name(ty),
                                        self.ty_name(*t2)
                                    ),
                                ));
                            }
                        }
                        v
                    }
                    (_, v) => v,
                };
                if let Binding::Val(old) = &mut env.vars[i].1 {
                    *old = new;
                }
            }
            (Binding::Val(_), Some(_)) => {
                return Err(err(
                    &name.span,
                    format!(
                        "only a destination can be assigned by lane; `{}` is a variable",
                        name.text
                    ),
                ))
            }
            (Binding::Dest { ty, .. }, Some(Index::Slice(a, b))) => {
                let ty = *ty;
                return self.assign_slice(env, i, ty, (a, b), v, span);
            }
            (Binding::Dest { ty, slices, .. }, index) => {
                let ty = *ty;
                if !slices.is_empty() {
                    return Err(err(
                        span,
                        format!(
                            "`{}` is assigned by bit range in this variant: assign bit ranges only",
                            name.text
                        ),
                    ));
                }
                let lane = match index {
                    None if ty.lanes() == 1 => 0,
                    None => {
                        if let Val::Rt(id, t) = v {
                            if t == ty {
                                for l in 0..ty.lanes() {
                                    let w = ty.lane().width();
                                    let part = self.emit(
                                        Op::Extract {
                                            value: id,
                                            lo: l * w,
                                            width: w,
                                        },
                                        w,
                                    );
                                    if let Binding::Dest { lanes, .. } = &mut env.vars[i].1 {
                                        lanes[l as usize] = Some(Val::Rt(part, ty.lane()));
                                    }
                                }
                                return Ok(());
                            }
                        }
                        return Err(err(
                            span,
                            format!(
                                "`{}` has {} lanes: assign `{}[i]` per lane",
                                name.text,
                                ty.lanes(),
                                name.text
                            ),
                        ));
                    }
                    Some(Index::Lane(e)) => {
                        let l = self.const_int(env, e)?;
                        if l < 0 || l >= i64::from(ty.lanes()) {
                            return Err(err(
                                &e.span,
                                format!(
                                    "lane {l} of `{}`, which has {} lane(s)",
                                    name.text,
                                    ty.lanes()
                                ),
                            ));
                        }
                        l as usize
                    }
                    Some(Index::Slice(..)) => {
                        return Err(err(span, "internal: bit range assigned as a lane"))
                    }
                };
                let v = self.coerce(v, ty.lane(), span)?;
                match &v {
                    Val::Rt(_, t) | Val::Choice(_, t) if *t == ty.lane() => {}
                    other => {
                        return Err(self.type_err(
                            span,
                            &format!("a {} for `{}`", self.ty_name(ty.lane()), name.text),
                            other,
                        ))
                    }
                }
                if let Binding::Dest { lanes, .. } = &mut env.vars[i].1 {
                    lanes[lane] = Some(v);
                }
            }
        }
        Ok(())
    }

    /// `d[hi:lo] = v` on a scalar destination: the range becomes one part of `d`, specified on
    /// its own (9.7.3.14: "d[63:32] = 1.0 / tmp; d[31:0] = 0x00000000;").
    fn assign_slice(
        &mut self,
        env: &mut Env,
        i: usize,
        ty: Ty,
        (a, b): (&Expr, &Expr),
        v: Val,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        let name = env.vars[i].0.clone();
        let x = self.const_int(env, a)?;
        let y = self.const_int(env, b)?;
        let (lo, hi) = (x.min(y), x.max(y));
        if ty.lanes() > 1 {
            return Err(err(
                &a.span,
                format!(
                    "`{name}` has {} lanes: assign `{name}[i]` per lane, not bit ranges",
                    ty.lanes()
                ),
            ));
        }
        if lo < 0 || hi >= i64::from(ty.width()) {
            return Err(err(
                &a.span,
                format!(
                    "bits [{hi}:{lo}] of `{name}`, which is {} bits wide",
                    ty.width()
                ),
            ));
        }
        let (lo, width) = (lo as u32, (hi - lo + 1) as u32);
        let v = self.coerce(v, Ty::Bits(width), span)?;
        match &v {
            Val::Rt(_, t) | Val::Choice(_, t) if t.width() == width && t.lanes() == 1 => {}
            other => {
                return Err(self.type_err(
                    span,
                    &format!("a {width}-bit value for bits [{hi}:{lo}] of `{name}`"),
                    other,
                ))
            }
        }
        let Binding::Dest { lanes, slices, .. } = &mut env.vars[i].1 else {
            return Err(err(span, "internal: destination binding lost"));
        };
        if lanes.iter().any(Option::is_some) {
            return Err(err(
                span,
                format!("`{name}` is assigned whole in this variant: assign it whole only"),
            ));
        }
        if let Some(s) = slices.iter_mut().find(|s| (s.lo, s.width) == (lo, width)) {
            s.val = v;
            return Ok(());
        }
        if let Some(s) = slices
            .iter()
            .find(|s| s.lo < lo + width && lo < s.lo + s.width)
        {
            return Err(err(
                span,
                format!(
                    "bits [{hi}:{lo}] overlap bits [{}:{}] of `{name}`, assigned before",
                    s.lo + s.width - 1,
                    s.lo
                ),
            ));
        }
        slices.push(Slice { lo, width, val: v });
        Ok(())
    }

    // ---- expressions ----

    fn const_int(&mut self, env: &Env, e: &Expr) -> Result<i64, Diagnostic> {
        match self.expr(env, e)? {
            Val::Int(i) => Ok(i),
            other => Err(self.type_err(&e.span, "a compile-time integer", &other)),
        }
    }

    fn ty_name(&self, ty: Ty) -> String {
        match ty {
            Ty::Pred => "pred".into(),
            Ty::Bits(n) => format!("b{n}"),
            Ty::Float(f) => self.spec.format_name(f),
            Ty::Packed(f, n) => format!("{}x{n}", self.spec.format_name(f)),
        }
    }

    fn describe(&self, v: &Val) -> String {
        match v {
            Val::Int(i) => format!("the integer {i}"),
            Val::Bool(b) => format!("the compile-time boolean {b}"),
            Val::Mod(m) => format!("the modifier .{m}"),
            Val::Real(r) => format!("the literal {r}"),
            Val::Rt(_, t) => format!("a value of type {}", self.ty_name(*t)),
            Val::Choice(_, t) => {
                format!("a nondeterministic {} (any_nan/one_of)", self.ty_name(*t))
            }
            Val::Member(..) => "a member written on an operand".to_string(),
        }
    }

    fn type_err(&self, span: &Span, expected: &str, found: &Val) -> Diagnostic {
        let d = err(
            span,
            format!("expected {expected}, found {}", self.describe(found)),
        );
        if matches!(found, Val::Choice(..)) {
            d.with_hint("a choice (any_nan, one_of) can only be assigned to a destination, returned, or be a branch of `?:`; make it the last step")
        } else {
            d
        }
    }

    /// Turns a literal into a run-time value of `ty`; other values pass through.
    fn coerce(&mut self, v: Val, ty: Ty, span: &Span) -> Result<Val, Diagnostic> {
        let bits = match (&v, ty) {
            (Val::Bool(b), Ty::Pred) => u64::from(*b),
            (Val::Int(i), Ty::Pred | Ty::Bits(_)) => {
                let w = ty.width();
                if *i < 0 || (w < 64 && (*i as u64) >> w != 0) {
                    return Err(err(span, format!("{i} does not fit in {} bits", w)));
                }
                *i as u64
            }
            (Val::Int(_) | Val::Real(_), Ty::Float(f)) => {
                let x = match v {
                    Val::Int(i) => i as f64,
                    Val::Real(r) => r,
                    _ => 0.0,
                };
                let b = semfuzz_fp::convert(Format::F64, f, x.to_bits(), Round::NearestEven);
                if f.to_f64(b).to_bits() != x.to_bits() && !x.is_nan() {
                    return Err(err(
                        span,
                        format!("{x} is not exactly representable in {}", self.ty_name(ty)),
                    ));
                }
                b
            }
            _ => return Ok(v),
        };
        Ok(Val::Rt(self.konst(bits, ty.width()), ty))
    }

    fn rt(&mut self, v: Val, span: &Span) -> Result<(ValueId, Ty), Diagnostic> {
        match v {
            Val::Rt(id, ty) => Ok((id, ty)),
            Val::Bool(b) => Ok((self.konst(u64::from(b), 1), Ty::Pred)),
            other => Err(self.type_err(span, "a run-time value", &other)),
        }
    }

    fn float(&mut self, v: Val, span: &Span) -> Result<(ValueId, Format), Diagnostic> {
        match v {
            Val::Rt(id, Ty::Float(f)) => Ok((id, f)),
            other => Err(self.type_err(span, "a floating-point value", &other)),
        }
    }

    fn pred(&mut self, v: Val, span: &Span) -> Result<ValueId, Diagnostic> {
        match self.rt(v, span)? {
            (id, Ty::Pred) => Ok(id),
            (id, ty) => Err(self.type_err(span, "a predicate", &Val::Rt(id, ty))),
        }
    }

    /// `c ? a : b` over values that may be literals or choices.
    fn select(&mut self, c: ValueId, a: Val, b: Val, span: &Span) -> Result<Val, Diagnostic> {
        let ty_of = |v: &Val| match v {
            Val::Rt(_, t) | Val::Choice(_, t) => Some(*t),
            _ => None,
        };
        let (a, b) = match (ty_of(&a), ty_of(&b)) {
            (Some(t), None) => (a, self.coerce(b, t, span)?),
            (None, Some(t)) => (self.coerce(a, t, span)?, b),
            (None, None) => {
                return Err(err(
                    span,
                    format!(
                        "cannot choose at run time between {} and {}",
                        self.describe(&a),
                        self.describe(&b)
                    ),
                )
                .with_hint("give one side a type, e.g. `zero(x)` or `f32(0)`"))
            }
            _ => (a, b),
        };
        let (ta, tb) = (ty_of(&a).unwrap_or(Ty::Pred), ty_of(&b).unwrap_or(Ty::Pred));
        if ta != tb {
            return Err(err(
                span,
                format!(
                    "the branches have different types: {} and {}",
                    self.ty_name(ta),
                    self.ty_name(tb)
                ),
            ));
        }
        Ok(match (a, b) {
            (Val::Rt(x, _), Val::Rt(y, _)) => {
                Val::Rt(self.emit(Op::Select(c, x, y), ta.width()), ta)
            }
            (a, b) => {
                // Both sides are typed here: literals were coerced above.
                let o = |v: Val| match v {
                    Val::Rt(id, _) => Ok(Outcome::Exact(id)),
                    Val::Choice(o, _) => Ok(o),
                    other => Err(err(
                        span,
                        format!("internal: untyped {other:?} in a run-time choice"),
                    )),
                };
                Val::Choice(Outcome::Select(c, Box::new(o(a)?), Box::new(o(b)?)), ta)
            }
        })
    }

    fn expr(&mut self, env: &Env, e: &Expr) -> Result<Val, Diagnostic> {
        match &e.kind {
            ExprKind::Int(i) => i64::try_from(*i)
                .map(Val::Int)
                .map_err(|_| err(&e.span, "integer literal too large")),
            ExprKind::Real(r) => r
                .parse()
                .map(Val::Real)
                .map_err(|_| err(&e.span, format!("`{r}` is not a number"))),
            ExprKind::Bool(b) => Ok(Val::Bool(*b)),
            ExprKind::Mod(m) => Ok(Val::Mod(m.clone())),
            ExprKind::Name(n) => self.name(env, n, &e.span),
            ExprKind::Call { func, args } => self.call(env, &func.text, &func.span, args, &e.span),
            ExprKind::Unary { op, expr } => {
                let v = self.expr(env, expr)?;
                self.unary(*op, v, &e.span)
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(env, *op, lhs, rhs, &e.span),
            ExprKind::Ternary { cond, then, els } => match self.expr(env, cond)? {
                Val::Bool(true) => self.expr(env, then),
                Val::Bool(false) => self.expr(env, els),
                c => {
                    let c = self.pred(c, &cond.span)?;
                    let a = self.expr(env, then)?;
                    let b = self.expr(env, els)?;
                    self.select(c, a, b, &e.span)
                }
            },
            ExprKind::Index { base, index } => {
                let v = self.expr(env, base)?;
                self.index(env, v, index, &e.span)
            }
        }
    }

    fn name(&mut self, env: &Env, n: &str, span: &Span) -> Result<Val, Diagnostic> {
        if let Some(i) = env.find(n) {
            return match &env.vars[i].1 {
                Binding::Val(v) => Ok(v.clone()),
                Binding::Dest { ty, lanes, .. } if ty.lanes() == 1 => match &lanes[0] {
                    Some(v) => Ok(v.clone()),
                    None => Err(err(span, format!("`{n}` is read before it is assigned"))),
                },
                Binding::Dest { .. } => Err(err(span, format!("read a lane of `{n}`: `{n}[i]`"))),
            };
        }
        if let Some(b) = self.params.flags.get(n) {
            return Ok(Val::Bool(*b));
        }
        if let Some(m) = self.params.groups.get(n) {
            return m.clone().map(Val::Mod).ok_or_else(|| {
                err(
                    span,
                    format!("`.{n}` is not written in this variant and has no default"),
                )
                .with_hint(format!("test `present({n})` first"))
            });
        }
        if n == "opcode" {
            return Ok(Val::Mod(self.params.opcode.clone()));
        }
        if n == "type" {
            return self
                .params
                .type_name
                .clone()
                .map(Val::Mod)
                .ok_or_else(|| err(span, "this form has no type suffix"));
        }
        if let Some(c) = self.spec.consts.get(n) {
            let c = c.clone();
            return self.expr(&Env::default(), &c);
        }
        if self.params.all_operands.iter().any(|o| o == n) {
            return Err(
                err(span, format!("operand `{n}` is not present in this form"))
                    .with_hint(format!("guard its use with `present({n})`")),
            );
        }
        Err(err(span, format!("unknown name `{n}`")))
    }

    fn index(&mut self, env: &Env, v: Val, index: &Index, span: &Span) -> Result<Val, Diagnostic> {
        let (id, ty) = self.rt(v, span)?;
        match index {
            Index::Lane(i) => {
                let l = self.const_int(env, i)?;
                if l < 0 || l >= i64::from(ty.lanes()) {
                    return Err(err(
                        &i.span,
                        format!(
                            "lane {l} of a {} value, which has {} lane(s)",
                            self.ty_name(ty),
                            ty.lanes()
                        ),
                    ));
                }
                if ty.lanes() == 1 {
                    return Ok(Val::Rt(id, ty));
                }
                let w = ty.lane().width();
                Ok(Val::Rt(
                    self.emit(
                        Op::Extract {
                            value: id,
                            lo: l as u32 * w,
                            width: w,
                        },
                        w,
                    ),
                    ty.lane(),
                ))
            }
            Index::Slice(a, b) => {
                let x = self.const_int(env, a)?;
                let y = self.const_int(env, b)?;
                let (lo, hi) = (x.min(y), x.max(y));
                if lo < 0 || hi >= i64::from(ty.width()) {
                    return Err(err(
                        span,
                        format!("bits [{hi}:{lo}] of a {}-bit value", ty.width()),
                    ));
                }
                let w = (hi - lo + 1) as u32;
                Ok(Val::Rt(
                    self.emit(
                        Op::Extract {
                            value: id,
                            lo: lo as u32,
                            width: w,
                        },
                        w,
                    ),
                    Ty::Bits(w),
                ))
            }
        }
    }

    fn unary(&mut self, op: UnOp, v: Val, span: &Span) -> Result<Val, Diagnostic> {
        Ok(match (op, v) {
            (UnOp::Not, Val::Bool(b)) => Val::Bool(!b),
            (UnOp::Neg, Val::Int(i)) => Val::Int(-i),
            (UnOp::Neg, Val::Real(r)) => Val::Real(-r),
            (UnOp::Not, v @ Val::Rt(_, Ty::Pred)) => {
                let p = self.pred(v, span)?;
                Val::Rt(self.emit(Op::Not(1, p), 1), Ty::Pred)
            }
            (UnOp::BitNot, Val::Rt(id, Ty::Bits(w))) => {
                Val::Rt(self.emit(Op::Not(w, id), w), Ty::Bits(w))
            }
            (UnOp::Neg, Val::Rt(id, Ty::Float(f))) => Val::Rt(self.sign_flip(id, f), Ty::Float(f)),
            (op, v) => {
                let what = match op {
                    UnOp::Not => "a predicate",
                    UnOp::Neg => "a number",
                    UnOp::BitNot => "a bit-vector",
                };
                return Err(self.type_err(span, what, &v));
            }
        })
    }

    fn sign_flip(&mut self, id: ValueId, f: Format) -> ValueId {
        let w = f.width();
        let s = self.konst(1 << (w - 1), w);
        self.emit(Op::Xor(w, id, s), w)
    }

    fn binary(
        &mut self,
        env: &Env,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        span: &Span,
    ) -> Result<Val, Diagnostic> {
        let a = self.expr(env, lhs)?;
        // `&&`/`||` decided at compile time do not lower their right side (it may not apply).
        match (op, &a) {
            (BinOp::And, Val::Bool(false)) => return Ok(Val::Bool(false)),
            (BinOp::Or, Val::Bool(true)) => return Ok(Val::Bool(true)),
            (BinOp::And | BinOp::Or, Val::Bool(_)) => return self.expr(env, rhs),
            _ => {}
        }
        let b = self.expr(env, rhs)?;
        if let (Val::Int(x), Val::Int(y)) = (&a, &b) {
            return int_binop(op, *x, *y).ok_or_else(|| {
                err(
                    span,
                    format!("`{}` on integers {x} and {y} is undefined", op.symbol()),
                )
            });
        }
        match (op, &a, &b) {
            (BinOp::Eq | BinOp::Ne, Val::Member(id, members), Val::Mod(m))
            | (BinOp::Eq | BinOp::Ne, Val::Mod(m), Val::Member(id, members)) => {
                let Some(ix) = members.iter().position(|x| x == m) else {
                    let all: Vec<String> = members.iter().map(|x| format!(".{x}")).collect();
                    return Err(err(span, format!("`.{m}` is not a member of this group"))
                        .with_hint(format!("its members are {}", all.join(" "))));
                };
                let id = *id;
                let k = self.konst(ix as u64, self.widths[id as usize]);
                let eq = self.emit(Op::BvEq(id, k), 1);
                return Ok(Val::Rt(
                    if op == BinOp::Eq {
                        eq
                    } else {
                        self.emit(Op::Not(1, eq), 1)
                    },
                    Ty::Pred,
                ));
            }
            (BinOp::Eq | BinOp::Ne, Val::Mod(x), Val::Mod(y)) => {
                return Ok(Val::Bool((x == y) == (op == BinOp::Eq)))
            }
            (BinOp::Eq | BinOp::Ne | BinOp::BitXor, Val::Bool(x), Val::Bool(y)) => {
                return Ok(Val::Bool(if op == BinOp::Eq { x == y } else { x != y }))
            }
            _ => {}
        }
        // Literals take the type of the other side.
        let ty_of = |v: &Val| {
            if let Val::Rt(_, t) = v {
                Some(*t)
            } else {
                None
            }
        };
        let (a, b) = match (ty_of(&a), ty_of(&b)) {
            (Some(t), None) => (a, self.coerce(b, t, &rhs.span)?),
            (None, Some(t)) => (self.coerce(a, t, &lhs.span)?, b),
            _ => (a, b),
        };
        let (x, tx) = self.rt(a, &lhs.span)?;
        let (y, ty) = self.rt(b, &rhs.span)?;
        if tx != ty {
            return Err(err(
                span,
                format!(
                    "`{}` between {} and {}",
                    op.symbol(),
                    self.ty_name(tx),
                    self.ty_name(ty)
                ),
            )
            .with_hint(
                "convert one side: bits(x) reinterprets a float, cvt(x, .fmt, rm) converts",
            ));
        }
        let w = tx.width();
        let pred = |l: &mut Self, o: Op| Val::Rt(l.emit(o, 1), Ty::Pred);
        Ok(match (tx, op) {
            (Ty::Float(f), BinOp::Lt) => pred(self, Op::FCmp(f, Cmp::Lt, x, y)),
            (Ty::Float(f), BinOp::Le) => pred(self, Op::FCmp(f, Cmp::Le, x, y)),
            (Ty::Float(f), BinOp::Gt) => pred(self, Op::FCmp(f, Cmp::Lt, y, x)),
            (Ty::Float(f), BinOp::Ge) => pred(self, Op::FCmp(f, Cmp::Le, y, x)),
            (Ty::Float(f), BinOp::Eq) => pred(self, Op::FCmp(f, Cmp::Eq, x, y)),
            (Ty::Float(f), BinOp::Ne) => {
                let eq = self.emit(Op::FCmp(f, Cmp::Eq, x, y), 1);
                pred(self, Op::Not(1, eq))
            }
            (Ty::Float(_), BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) => {
                let name = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    _ => "div",
                };
                return Err(err(
                    span,
                    format!("floating-point `{}` needs a rounding mode", op.symbol()),
                )
                .with_hint(format!("write `{name}(a, b, rnd)`, or `{name}(a, b, .rn)`")));
            }
            (Ty::Pred | Ty::Bits(_), BinOp::Eq) => pred(self, Op::BvEq(x, y)),
            (Ty::Pred | Ty::Bits(_), BinOp::Ne) => {
                let eq = self.emit(Op::BvEq(x, y), 1);
                pred(self, Op::Not(1, eq))
            }
            (Ty::Pred, BinOp::And) | (Ty::Bits(_), BinOp::BitAnd) => {
                Val::Rt(self.emit(Op::And(w, x, y), w), tx)
            }
            (Ty::Pred, BinOp::Or) | (Ty::Bits(_), BinOp::BitOr) => {
                Val::Rt(self.emit(Op::Or(w, x, y), w), tx)
            }
            (Ty::Pred | Ty::Bits(_), BinOp::BitXor) => Val::Rt(self.emit(Op::Xor(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Add) => Val::Rt(self.emit(Op::BvAdd(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Sub) => Val::Rt(self.emit(Op::BvSub(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Lt) => pred(self, Op::BvUlt(x, y)),
            (Ty::Bits(_), BinOp::Gt) => pred(self, Op::BvUlt(y, x)),
            (Ty::Bits(_), BinOp::Shl | BinOp::Shr) => {
                let Some(n) = self.known[y as usize] else {
                    return Err(err(
                        &rhs.span,
                        "shift amounts must be known at compile time",
                    ));
                };
                let o = if op == BinOp::Shl {
                    Op::Shl(w, x, n as u32)
                } else {
                    Op::Shr(w, x, n as u32)
                };
                Val::Rt(self.emit(o, w), tx)
            }
            _ => {
                return Err(err(
                    span,
                    format!("`{}` is not defined on {}", op.symbol(), self.ty_name(tx)),
                ))
            }
        })
    }

    fn call(
        &mut self,
        env: &Env,
        f: &str,
        fspan: &Span,
        args: &[Expr],
        span: &Span,
    ) -> Result<Val, Diagnostic> {
        let arity = |n: usize| -> Result<(), Diagnostic> {
            if args.len() == n {
                Ok(())
            } else {
                Err(err(
                    span,
                    format!(
                        "`{f}` takes {n} argument{}, found {}",
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ),
                ))
            }
        };
        if let Some(def) = self.spec.defs.get(f) {
            let def = def.clone();
            if args.len() != def.params.len() {
                return Err(err(
                    span,
                    format!(
                        "`{f}` takes {} arguments, found {}",
                        def.params.len(),
                        args.len()
                    ),
                ));
            }
            if self.depth >= MAX_INLINE_DEPTH {
                return Err(err(
                    span,
                    format!("`{f}` is recursive (inlined {MAX_INLINE_DEPTH} deep)"),
                )
                .with_hint("defs are inlined, so they cannot recurse"));
            }
            let mut inner = Env::default();
            for (p, a) in def.params.iter().zip(args) {
                let v = self.expr(env, a)?;
                inner.vars.push((p.text.clone(), Binding::Val(v)));
            }
            self.depth += 1;
            let r = self.block(&mut inner, &def.body, true);
            self.depth -= 1;
            return r
                .map_err(|d| {
                    d.with_note(format!(
                        "in `{f}` called at {}:{}",
                        fspan.file.name,
                        fspan.file.line_col(fspan.start).0
                    ))
                })?
                .ok_or_else(|| err(span, format!("`{f}` returns no value")));
        }
        if let Some(info) = self.spec.format(f) {
            arity(1)?;
            let ty = match info {
                FormatInfo::Scalar(fm) => Ty::Float(fm),
                FormatInfo::Packed(fm, n) => Ty::Packed(fm, n),
            };
            return match self.expr(env, &args[0])? {
                Val::Int(i) => {
                    let v = self.coerce(Val::Int(i), Ty::Bits(ty.width()), &args[0].span)?;
                    let (id, _) = self.rt(v, span)?;
                    Ok(Val::Rt(id, ty))
                }
                v => match self.rt(v, &args[0].span)? {
                    (id, t) if t.width() == ty.width() => Ok(Val::Rt(id, ty)),
                    (_, t) => Err(err(
                        span,
                        format!(
                            "`{f}(...)` reinterprets {} bits, found {}",
                            ty.width(),
                            self.ty_name(t)
                        ),
                    )),
                },
            };
        }
        if let Some(v) = self.operand_modifier(f, args, span)? {
            return Ok(v);
        }
        let mut vals = Vec::with_capacity(args.len());
        let lazy = matches!(f, "present" | "approx");
        if !lazy {
            for a in args {
                vals.push(self.expr(env, a)?);
            }
        }
        let rm_of = |l: &Self, v: &Val, s: &Span| match v {
            Val::Mod(m) => rounding(m).ok_or_else(|| {
                err(s, format!("`.{m}` is not a rounding mode")).with_hint("use .rn .rz .rm or .rp")
            }),
            other => Err(l.type_err(s, "a rounding mode such as `.rn` or `rnd`", other)),
        };
        let float_args =
            |l: &mut Self, vals: Vec<Val>| -> Result<(Vec<ValueId>, Format), Diagnostic> {
                let first = vals
                    .iter()
                    .position(|v| matches!(v, Val::Rt(_, Ty::Float(_))))
                    .ok_or_else(|| {
                        err(span, format!("`{f}` needs a floating-point argument"))
                            .with_hint("literals alone carry no format; pass a typed value")
                    })?;
                let Val::Rt(_, ty @ Ty::Float(fm)) = vals[first] else {
                    unreachable!()
                };
                let mut ids = Vec::new();
                for (v, a) in vals.into_iter().zip(args) {
                    let v = l.coerce(v, ty, &a.span)?;
                    let (id, fm2) = l.float(v, &a.span)?;
                    if fm2 != fm {
                        return Err(err(
                            &a.span,
                            format!(
                                "`{f}` mixes {} and {}",
                                l.ty_name(ty),
                                l.ty_name(Ty::Float(fm2))
                            ),
                        ));
                    }
                    ids.push(id);
                }
                Ok((ids, fm))
            };
        let class = match f {
            "is_nan" => Some(Class::Nan),
            "is_snan" => Some(Class::SignalingNan),
            "is_inf" => Some(Class::Inf),
            "is_zero" => Some(Class::Zero),
            "is_subnormal" => Some(Class::Subnormal),
            "is_normal" => Some(Class::Normal),
            "is_finite" => Some(Class::Finite),
            _ => None,
        };
        if let Some(c) = class {
            arity(1)?;
            let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
            return Ok(Val::Rt(self.emit(Op::Class(fm, c, x), 1), Ty::Pred));
        }
        match f {
            "add" | "sub" | "mul" | "div" => {
                arity(3)?;
                let rm = rm_of(self, &vals[2], &args[2].span)?;
                vals.truncate(2);
                let (ids, fm) = float_args(self, vals)?;
                let op = match f {
                    "add" => Op::Add(fm, rm, ids[0], ids[1]),
                    "sub" => Op::Sub(fm, rm, ids[0], ids[1]),
                    "mul" => Op::Mul(fm, rm, ids[0], ids[1]),
                    _ => Op::Div(fm, rm, ids[0], ids[1]),
                };
                Ok(Val::Rt(self.emit(op, fm.width()), Ty::Float(fm)))
            }
            "fma" => {
                arity(4)?;
                let rm = rm_of(self, &vals[3], &args[3].span)?;
                vals.truncate(3);
                let (ids, fm) = float_args(self, vals)?;
                Ok(Val::Rt(
                    self.emit(Op::Fma(fm, rm, ids[0], ids[1], ids[2]), fm.width()),
                    Ty::Float(fm),
                ))
            }
            "sqrt" => {
                arity(2)?;
                let rm = rm_of(self, &vals[1], &args[1].span)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(Op::Sqrt(fm, rm, x), fm.width()),
                    Ty::Float(fm),
                ))
            }
            "cvt" => {
                arity(3)?;
                let rm = rm_of(self, &vals[2], &args[2].span)?;
                let to = match &vals[1] {
                    Val::Mod(m) => match self.spec.format(m) {
                        Some(FormatInfo::Scalar(t)) => t,
                        _ => {
                            return Err(err(
                                &args[1].span,
                                format!("`.{m}` is not a scalar format"),
                            ))
                        }
                    },
                    other => {
                        return Err(self.type_err(&args[1].span, "a format such as `.f32`", other))
                    }
                };
                let (x, from) = self.float(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(Op::Cvt(from, to, rm, x), to.width()),
                    Ty::Float(to),
                ))
            }
            "sign" => {
                arity(1)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(
                        Op::Extract {
                            value: x,
                            lo: fm.width() - 1,
                            width: 1,
                        },
                        1,
                    ),
                    Ty::Pred,
                ))
            }
            "with_sign" => {
                arity(2)?;
                let s = self.pred(vals.remove(1), &args[1].span)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                let w = fm.width();
                let mag = self.emit(
                    Op::Extract {
                        value: x,
                        lo: 0,
                        width: w - 1,
                    },
                    w - 1,
                );
                Ok(Val::Rt(
                    self.emit(
                        Op::Concat {
                            hi: s,
                            lo: mag,
                            lo_width: w - 1,
                        },
                        w,
                    ),
                    Ty::Float(fm),
                ))
            }
            "fabs" => {
                arity(1)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                let w = fm.width();
                let m = self.konst(mask(w - 1), w);
                Ok(Val::Rt(self.emit(Op::And(w, x, m), w), Ty::Float(fm)))
            }
            "quiet" => {
                arity(1)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                let w = fm.width();
                let q = self.konst(1 << (fm.precision() - 2), w);
                Ok(Val::Rt(self.emit(Op::Or(w, x, q), w), Ty::Float(fm)))
            }
            "zero" | "one" => {
                arity(1)?;
                let (_, fm) = self.float(vals.remove(0), &args[0].span)?;
                let bits = if f == "zero" {
                    fm.zero(false)
                } else {
                    fm.one(false)
                };
                Ok(Val::Rt(self.konst(bits, fm.width()), Ty::Float(fm)))
            }
            "bits" => {
                arity(1)?;
                let (x, t) = self.rt(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(x, Ty::Bits(t.width())))
            }
            "like" => {
                arity(2)?;
                let (_, t) = self.rt(vals.remove(0), &args[0].span)?;
                let v = self.coerce(vals.remove(0), Ty::Bits(t.width()), &args[1].span)?;
                let (b, tb) = self.rt(v, &args[1].span)?;
                if tb.width() != t.width() {
                    return Err(err(
                        span,
                        format!("`like` needs {} bits, found {}", t.width(), tb.width()),
                    ));
                }
                Ok(Val::Rt(b, t))
            }
            "lanes" | "width" => {
                arity(1)?;
                let (_, t) = self.rt(vals.remove(0), &args[0].span)?;
                Ok(Val::Int(i64::from(if f == "lanes" {
                    t.lanes()
                } else {
                    t.width()
                })))
            }
            "format_of" => {
                arity(1)?;
                match self.rt(vals.remove(0), &args[0].span)? {
                    (_, Ty::Float(fm) | Ty::Packed(fm, _)) => {
                        Ok(Val::Mod(self.spec.format_name(fm)))
                    }
                    (id, t) => {
                        Err(self.type_err(&args[0].span, "a floating-point value", &Val::Rt(id, t)))
                    }
                }
            }
            "present" => {
                arity(1)?;
                match &args[0].kind {
                    ExprKind::Name(n) if self.params.all_operands.contains(n) => {
                        Ok(Val::Bool(self.params.operands.contains(n)))
                    }
                    ExprKind::Name(n) if self.params.groups.contains_key(n) => {
                        Ok(Val::Bool(self.params.groups[n].is_some()))
                    }
                    _ => Err(err(
                        &args[0].span,
                        "`present` takes an operand or group name",
                    )),
                }
            }
            "any_nan" | "any_value" => {
                arity(1)?;
                match self.rt(vals.remove(0), &args[0].span)? {
                    (_, Ty::Float(fm)) => {
                        let outcome = if f == "any_nan" {
                            Outcome::AnyNan(fm)
                        } else {
                            Outcome::Any(fm)
                        };
                        Ok(Val::Choice(outcome, Ty::Float(fm)))
                    }
                    (id, t) => {
                        Err(self.type_err(&args[0].span, "a floating-point value", &Val::Rt(id, t)))
                    }
                }
            }
            "approx" => self.approx(env, args, span),
            "zext" => {
                arity(2)?;
                let n = match vals.remove(1) {
                    Val::Int(n) => n,
                    other => {
                        return Err(self.type_err(&args[1].span, "a compile-time width", &other))
                    }
                };
                let (x, t) = self.rt(vals.remove(0), &args[0].span)?;
                let w = t.width();
                if n < i64::from(w) || n > 64 {
                    return Err(err(
                        span,
                        format!("`zext` widens a {w}-bit value to {n} bits: give {w} to 64"),
                    ));
                }
                let n = n as u32;
                if n == w {
                    return Ok(Val::Rt(x, Ty::Bits(w)));
                }
                let hi = self.konst(0, n - w);
                Ok(Val::Rt(
                    self.emit(
                        Op::Concat {
                            hi,
                            lo: x,
                            lo_width: w,
                        },
                        n,
                    ),
                    Ty::Bits(n),
                ))
            }
            "ulps" | "abs_err" | "rel_err" => Err(err(
                span,
                format!("`{f}(...)` is an error bound: it is only the third argument of `approx`"),
            )),
            "one_of" => {
                if args.is_empty() {
                    return Err(err(span, "`one_of` needs at least one value"));
                }
                let ty = vals.iter().find_map(|v| {
                    if let Val::Rt(_, t) | Val::Choice(_, t) = v {
                        Some(*t)
                    } else {
                        None
                    }
                });
                let ty = ty.ok_or_else(|| err(span, "`one_of` needs a typed value"))?;
                let mut ids = Vec::new();
                for (v, a) in vals.into_iter().zip(args) {
                    match self.coerce(v, ty, &a.span)? {
                        Val::Rt(id, t) if t == ty => {
                            if !ids.contains(&id) {
                                ids.push(id)
                            }
                        }
                        Val::Choice(Outcome::OneOf(more), t) if t == ty => ids.extend(
                            more.into_iter()
                                .filter(|m| !ids.contains(m))
                                .collect::<Vec<_>>(),
                        ),
                        other => {
                            return Err(self.type_err(
                                &a.span,
                                &format!("a {}", self.ty_name(ty)),
                                &other,
                            ))
                        }
                    }
                }
                if ids.len() > crate::outcome::MAX_ONE_OF {
                    return Err(err(
                        span,
                        format!(
                            "`one_of` lists {} values; at most {} are supported",
                            ids.len(),
                            crate::outcome::MAX_ONE_OF
                        ),
                    ));
                }
                Ok(if ids.len() == 1 {
                    Val::Rt(ids[0], ty)
                } else {
                    Val::Choice(Outcome::OneOf(ids), ty)
                })
            }
            _ => Err(err(fspan, format!("unknown function `{f}`")).with_hint(
                "built-ins are listed in docs/spec-language.md; helpers are declared with `def`",
            )),
        }
    }
}

impl Lowerer<'_> {
    /// The operand modifiers of SASS forms: `negated(x)`, `absolute(x)` (whether the text
    /// writes `-x`, `|x|`: `false` where the form does not allow it), `G(x)` for a group `G`
    /// (the member written after `x`, the group's default where the form allows none), and
    /// `old(d)`, the destination's value before the instruction. `None` for other functions.
    fn operand_modifier(
        &mut self,
        f: &str,
        args: &[Expr],
        span: &Span,
    ) -> Result<Option<Val>, Diagnostic> {
        let is_group = self.params.groups.contains_key(f);
        if !matches!(f, "negated" | "absolute" | "old") && !is_group {
            return Ok(None);
        }
        let operand = match args {
            [Expr {
                kind: ExprKind::Name(n),
                ..
            }] if self.params.all_operands.contains(n) => n.as_str(),
            _ => {
                return Err(err(
                    span,
                    format!("`{f}` takes one operand name, as in `{f}(Ra)`"),
                ))
            }
        };
        if !self.params.operands.iter().any(|o| o == operand) {
            return Err(err(
                span,
                format!("operand `{operand}` is not present in this form"),
            )
            .with_hint(format!("guard its use with `present({operand})`")));
        }
        if f == "old" {
            if self.params.operands.first().map(String::as_str) != Some(operand) {
                return Err(err(
                    span,
                    format!("`old` reads the destination before the instruction; `{operand}` is a source"),
                ));
            }
            return match self.old_dest {
                OldDest::Read(id, ty) => Ok(Some(Val::Rt(id, ty))),
                OldDest::Unread(ty, input) => {
                    let id = self.emit(Op::Input(input), ty.width());
                    self.old_dest = OldDest::Read(id, ty);
                    Ok(Some(Val::Rt(id, ty)))
                }
                OldDest::None => Err(err(span, "`old` is only available in `sem`")),
            };
        }
        let found = self.params.fields.iter().position(|p| {
            p.operand == operand
                && match (p.kind, f) {
                    (FieldKind::Neg, "negated") | (FieldKind::Abs, "absolute") => true,
                    (FieldKind::Member(_), g) => p.group.as_ref().is_some_and(|(n, _)| n == g),
                    _ => false,
                }
        });
        Ok(Some(
            match (found, self.fields.get(found.unwrap_or(usize::MAX))) {
                (Some(i), Some(&id)) => match &self.params.fields[i].group {
                    Some((_, members)) => Val::Member(id, members.clone()),
                    None => Val::Rt(id, Ty::Pred),
                },
                (Some(_), None) => {
                    return Err(err(span, format!("`{f}` is only available in `sem`")));
                }
                // Not written in this form: `-` and `|..|` are off; the member is the default.
                (None, _) if !is_group => Val::Bool(false),
                (None, _) => match self.params.groups.get(f).cloned().flatten() {
                    Some(m) => Val::Mod(m),
                    None => {
                        return Err(err(
                            span,
                            format!(
                            "this form writes no `.{f}` on `{operand}` and `{f}` has no default"
                        ),
                        ))
                    }
                },
            },
        ))
    }

    /// `approx(.fn, x, bound[, ftz])`, or `approx(.div, x, y, bound[, ftz])` for a function of
    /// two arguments: a bounded outcome.
    fn approx(&mut self, env: &Env, args: &[Expr], span: &Span) -> Result<Val, Diagnostic> {
        let usage = "`approx` takes .fn, its arguments, a bound and optionally ftz: `approx(.ex2, x, ulps(2))`, `approx(.div, x, y, ulps(2), ftz)`";
        let Some(first) = args.first() else {
            return Err(err(span, usage));
        };
        let func = match self.expr(env, first)? {
            Val::Mod(m) => ApproxFn::from_name(&m).ok_or_else(|| {
                let names: Vec<String> = ApproxFn::ALL
                    .iter()
                    .map(|f| format!(".{}", f.name()))
                    .collect();
                err(
                    &first.span,
                    format!("`.{m}` is not an approximated function"),
                )
                .with_hint(format!("one of {}", names.join(" ")))
            })?,
            other => return Err(self.type_err(&first.span, "a function name like `.ex2`", &other)),
        };
        let n = func.arity();
        if !(n + 2..=n + 3).contains(&args.len()) {
            return Err(err(
                span,
                format!(
                    "`approx(.{}, ...)` takes {} or {} arguments, found {}",
                    func.name(),
                    n + 2,
                    n + 3,
                    args.len()
                ),
            )
            .with_hint(usage));
        }
        let mut ids = Vec::with_capacity(n);
        let mut format = None;
        for a in &args[1..=n] {
            let (id, f) = match self.expr(env, a)? {
                Val::Rt(id, Ty::Float(f)) => (id, f),
                other => return Err(self.type_err(&a.span, "a floating-point value", &other)),
            };
            if format.is_some_and(|g| g != f) {
                return Err(err(
                    &a.span,
                    "the arguments of `approx` must have one format",
                ));
            }
            format = Some(f);
            ids.push(id);
        }
        let format = format.ok_or_else(|| err(span, usage))?;
        // The reference is rounded through binary64 (eval.rs): exact for .f64 itself and for
        // formats of at most 51 bits of precision within its exponent range.
        if format != Format::F64 && (format.precision() > 51 || format.exp_bits() > 11) {
            return Err(err(
                &args[1].span,
                format!(
                    "`approx` supports .f64 and formats of at most 51 bits of precision and 11 exponent bits, not {}",
                    self.spec.format_name(format)
                ),
            ));
        }
        let bound_arg = &args[n + 1];
        let bound = match &bound_arg.kind {
            ExprKind::Call {
                func: b,
                args: bargs,
            } if bargs.len() == 1 => {
                let k = match self.expr(env, &bargs[0])? {
                    Val::Int(i) => i as f64,
                    Val::Real(r) => r,
                    other => return Err(self.type_err(&bargs[0].span, "a number", &other)),
                };
                match b.text.as_str() {
                    "ulps" if k >= 0.0 && k.fract() == 0.0 && k <= f64::from(u32::MAX) => {
                        Bound::Ulps(k as u32)
                    }
                    "abs_err" => Bound::AbsErr(k),
                    "rel_err" => Bound::RelErr(k),
                    _ => return Err(err(&bound_arg.span, "expected `ulps(N)` (N >= 0 an integer), `abs_err(K)` or `rel_err(K)` (error 2^K)")),
                }
            }
            _ => {
                return Err(err(
                    &bound_arg.span,
                    "expected an error bound: `ulps(N)`, `abs_err(K)` or `rel_err(K)`",
                ))
            }
        };
        let ftz = match args.get(n + 2) {
            None => false,
            Some(a) => match self.expr(env, a)? {
                Val::Bool(b) => b,
                other => return Err(self.type_err(&a.span, "a compile-time flag (`ftz`)", &other)),
            },
        };
        Ok(Val::Choice(
            Outcome::Within {
                func,
                args: ids,
                format,
                bound,
                ftz,
            },
            Ty::Float(format),
        ))
    }
}

fn int_binop(op: BinOp, x: i64, y: i64) -> Option<Val> {
    Some(match op {
        BinOp::Add => Val::Int(x.checked_add(y)?),
        BinOp::Sub => Val::Int(x.checked_sub(y)?),
        BinOp::Mul => Val::Int(x.checked_mul(y)?),
        BinOp::Div => Val::Int(x.checked_div(y)?),
        BinOp::Rem => Val::Int(x.checked_rem(y)?),
        BinOp::Shl => Val::Int(x.checked_shl(u32::try_from(y).ok()?)?),
        BinOp::Shr => Val::Int(x.checked_shr(u32::try_from(y).ok()?)?),
        BinOp::BitAnd => Val::Int(x & y),
        BinOp::BitOr => Val::Int(x | y),
        BinOp::BitXor => Val::Int(x ^ y),
        BinOp::Eq => Val::Bool(x == y),
        BinOp::Ne => Val::Bool(x != y),
        BinOp::Lt => Val::Bool(x < y),
        BinOp::Le => Val::Bool(x <= y),
        BinOp::Gt => Val::Bool(x > y),
        BinOp::Ge => Val::Bool(x >= y),
        BinOp::And | BinOp::Or => return None,
    })
}

fn renumber(mut op: Op, n: &[ValueId]) -> Op {
    for a in op.args_mut() {
        *a = n[*a as usize];
    }
    op
}

fn renumber_outcome(o: &mut Outcome, n: &[ValueId]) {
    match o {
        Outcome::Exact(v) => *v = n[*v as usize],
        Outcome::AnyNan(_) | Outcome::Any(_) => {}
        Outcome::Within { args, .. } => args.iter_mut().for_each(|v| *v = n[*v as usize]),
        Outcome::OneOf(vs) => vs.iter_mut().for_each(|v| *v = n[*v as usize]),
        Outcome::Select(c, a, b) => {
            *c = n[*c as usize];
            renumber_outcome(a, n);
            renumber_outcome(b, n);
        }
    }
}
