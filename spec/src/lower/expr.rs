//! Expressions: names, literals, indexing and slicing, unary and binary operators with their
//! compile-time folding, selects, and the type errors they report.

use super::{err, Binding, Env, Lowerer, Ty, Val};
use crate::ast::{BinOp, Expr, ExprKind, Index, UnOp};
use crate::diag::{with_article, Diagnostic, Span};
use crate::ir::{Cmp, Op, Outcome, Shift, ValueId};
use semfuzz_fp::{Format, Round};

impl Lowerer<'_> {
    pub(super) fn const_int(&mut self, env: &Env, e: &Expr) -> Result<i64, Diagnostic> {
        match self.expr(env, e)? {
            Val::Int(i) => Ok(i),
            other => Err(self.type_err(&e.span, "a compile-time integer", &other)),
        }
    }

    pub(super) fn ty_name(&self, ty: Ty) -> String {
        match ty {
            Ty::Pred => "pred".into(),
            Ty::Bits(n) => format!("b{n}"),
            Ty::Float(f) => self.spec.format_name(f),
            Ty::Packed(f, n) => format!("{}x{n}", self.spec.format_name(f)),
        }
    }

    pub(super) fn describe(&self, v: &Val) -> String {
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

    pub(super) fn type_err(&self, span: &Span, expected: &str, found: &Val) -> Diagnostic {
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
    pub(super) fn coerce(&mut self, v: Val, ty: Ty, span: &Span) -> Result<Val, Diagnostic> {
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

    pub(super) fn rt(&mut self, v: Val, span: &Span) -> Result<(ValueId, Ty), Diagnostic> {
        match v {
            Val::Rt(id, ty) => Ok((id, ty)),
            Val::Bool(b) => Ok((self.konst(u64::from(b), 1), Ty::Pred)),
            other => Err(self.type_err(span, "a run-time value", &other)),
        }
    }

    pub(super) fn float(&mut self, v: Val, span: &Span) -> Result<(ValueId, Format), Diagnostic> {
        match v {
            Val::Rt(id, Ty::Float(f)) => Ok((id, f)),
            other => Err(self.type_err(span, "a floating-point value", &other)),
        }
    }

    pub(super) fn pred(&mut self, v: Val, span: &Span) -> Result<ValueId, Diagnostic> {
        match self.rt(v, span)? {
            (id, Ty::Pred) => Ok(id),
            (id, ty) => Err(self.type_err(span, "a predicate", &Val::Rt(id, ty))),
        }
    }

    /// `c ? a : b` over values that may be literals or choices.
    pub(super) fn select(
        &mut self,
        c: ValueId,
        a: Val,
        b: Val,
        span: &Span,
    ) -> Result<Val, Diagnostic> {
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

    pub(super) fn expr(&mut self, env: &Env, e: &Expr) -> Result<Val, Diagnostic> {
        self.step(&e.span)?;
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

    pub(super) fn name(&mut self, env: &Env, n: &str, span: &Span) -> Result<Val, Diagnostic> {
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
        // A block whose integer forms write `.type` (a group) and whose float forms write
        // `.f32`: `type` is the group's member, else the form's type suffix.
        let type_suffix = n == "type" && self.params.groups.get(n).is_some_and(Option::is_none);
        if let Some(m) = self.params.groups.get(n).filter(|_| !type_suffix) {
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

    pub(super) fn index(
        &mut self,
        env: &Env,
        v: Val,
        index: &Index,
        span: &Span,
    ) -> Result<Val, Diagnostic> {
        let (id, ty) = self.rt(v, span)?;
        match index {
            Index::Lane(i) => {
                let l = self.const_int(env, i)?;
                if l < 0 || l >= i64::from(ty.lanes()) {
                    return Err(err(
                        &i.span,
                        format!(
                            "lane {l} of {} value, which has {} lane(s)",
                            with_article(&self.ty_name(ty)),
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
                        format!(
                            "bits [{hi}:{lo}] of {} value",
                            with_article(&format!("{}-bit", ty.width()))
                        ),
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

    pub(super) fn unary(&mut self, op: UnOp, v: Val, span: &Span) -> Result<Val, Diagnostic> {
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

    pub(super) fn sign_flip(&mut self, id: ValueId, f: Format) -> ValueId {
        let w = f.width();
        let s = self.konst(1 << (w - 1), w);
        self.emit(Op::Xor(w, id, s), w)
    }

    pub(super) fn binary(
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
                    // A helper shared by instructions (HMUL2's `component`) may test members
                    // some of their groups lack: the text can never write those, so the test
                    // is false there, and each instruction keeps its own group. Directly in an
                    // instruction's `sem`, such a test is a mistake.
                    if !self.inlining.is_empty() {
                        return Ok(Val::Bool(op == BinOp::Ne));
                    }
                    let all: Vec<String> = members.iter().map(|x| format!(".{x}")).collect();
                    return Err(err(span, format!("`.{m}` is not a member of this group"))
                        .with_hint(format!("its members are {}", all.join(" "))));
                };
                let id = *id;
                let k = self.konst(ix as u64, self.b.widths[id as usize]);
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
        // A shift's amount has its own width (PTX shifts a .b64 by a .u32): known amounts
        // shift by a constant, run-time ones by their value (`ShiftBy`).
        if let (BinOp::Shl | BinOp::Shr, Ty::Bits(w), Val::Rt(n, Ty::Bits(_))) = (op, tx, &b) {
            let o = match (op, self.b.known[*n as usize]) {
                (BinOp::Shl, Some(k)) => Op::Shl(w, x, k.min(64) as u32),
                (_, Some(k)) => Op::Shr(w, x, k.min(64) as u32),
                (BinOp::Shl, None) => shift_by(Shift::Left, w, x, *n),
                (_, None) => shift_by(Shift::Logical, w, x, *n),
            };
            return Ok(Val::Rt(self.emit(o, w), tx));
        }
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
            (Ty::Bits(_), BinOp::Mul) => Val::Rt(self.emit(Op::BvMul(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Div) => Val::Rt(self.emit(Op::BvUDiv(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Rem) => Val::Rt(self.emit(Op::BvURem(w, x, y), w), tx),
            (Ty::Bits(_), BinOp::Lt) => pred(self, Op::BvUlt(x, y)),
            (Ty::Bits(_), BinOp::Gt) => pred(self, Op::BvUlt(y, x)),
            (Ty::Bits(_), BinOp::Le | BinOp::Ge) => {
                let (lo, hi) = if op == BinOp::Le { (x, y) } else { (y, x) };
                let gt = self.emit(Op::BvUlt(hi, lo), 1);
                pred(self, Op::Not(1, gt))
            }
            _ => {
                return Err(err(
                    span,
                    format!("`{}` is not defined on {}", op.symbol(), self.ty_name(tx)),
                ))
            }
        })
    }
}

/// A shift of the `w`-bit `x` by the run-time amount `n`.
pub(super) fn shift_by(kind: Shift, w: u32, x: ValueId, n: ValueId) -> Op {
    Op::ShiftBy {
        kind,
        width: w,
        value: x,
        amount: n,
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
