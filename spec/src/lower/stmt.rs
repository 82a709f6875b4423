//! Statements: blocks, `let`, assignment to variables, lanes and bit ranges of the
//! destination, compile-time and run-time `if` (merging both branches' bindings), `for`.

use super::{err, Binding, Env, Lowerer, Slice, Ty, Val, MAX_UNROLL};
use crate::ast::{Block, Else, Expr, Index, Stmt};
use crate::diag::{with_article, Diagnostic, Span};
use crate::ir::{Op, ValueId};

impl Lowerer<'_> {
    pub(super) fn block(
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

    pub(super) fn stmt(
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
                let iterations = b.saturating_sub(a);
                if iterations > MAX_UNROLL {
                    return Err(err(
                        &to.span,
                        format!(
                            "loop of {iterations} iterations; at most {MAX_UNROLL} are unrolled"
                        ),
                    ));
                }
                for i in a..b {
                    self.step(&var.span)?;
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

    pub(super) fn else_branch(
        &mut self,
        env: &mut Env,
        e: &Else,
        in_def: bool,
    ) -> Result<(), Diagnostic> {
        match e {
            Else::Block(b) => self.block(env, b, in_def).map(|_| ()),
            Else::If(s) => self.stmt(env, s, in_def).map(|_| ()),
        }
    }

    /// Joins the two sides of a run-time `if` with selects.
    pub(super) fn merge(
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

    pub(super) fn assign(
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
                            &format!(
                                "{} for `{}`",
                                with_article(&self.ty_name(ty.lane())),
                                name.text
                            ),
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
    pub(super) fn assign_slice(
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
                    &format!(
                        "{} value for bits [{hi}:{lo}] of `{name}`",
                        with_article(&format!("{width}-bit"))
                    ),
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
}
