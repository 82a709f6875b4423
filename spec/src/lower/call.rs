//! Calls: the built-in functions (IEEE operations, classification, bits, choices and
//! approximations), inlined `def`s, and the SASS operand modifiers.

use super::{err, rounding, Binding, Env, Lowerer, OldDest, Ty, Val, MAX_INLINE_DEPTH};
use crate::ast::{Expr, ExprKind};
use crate::diag::{with_article, Diagnostic, Span};
use crate::form::FieldKind;
use crate::ir::{mask, ApproxFn, Bound, Class, Op, Outcome, Shift, ValueId};
use crate::resolved::FormatInfo;
use semfuzz_fp::Format;

impl Lowerer<'_> {
    pub(super) fn call(
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
            if self.inlining.iter().any(|d| d == f) {
                return Err(err(span, format!("`{f}` is recursive"))
                    .with_hint("defs are inlined, so they cannot recurse"));
            }
            if self.inlining.len() >= MAX_INLINE_DEPTH {
                return Err(err(
                    span,
                    format!("defs call defs more than {MAX_INLINE_DEPTH} deep here"),
                )
                .with_hint("defs are inlined: flatten the chain of calls"));
            }
            let mut inner = Env::default();
            for (p, a) in def.params.iter().zip(args) {
                let v = self.expr(env, a)?;
                inner.vars.push((p.text.clone(), Binding::Val(v)));
            }
            self.inlining.push(f.to_string());
            let r = self.block(&mut inner, &def.body, true);
            self.inlining.pop();
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
                err(s, format!("`.{m}` is not a rounding mode")).with_hint(
                    "use .rn .rz .rm .rp, or .rna (to nearest, ties away from zero: 9.7.9.21 cvt)",
                )
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
            "fmod" => {
                arity(2)?;
                let (ids, fm) = float_args(self, vals)?;
                Ok(Val::Rt(
                    self.emit(Op::Fmod(fm, ids[0], ids[1]), fm.width()),
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
            "round_int" => {
                arity(2)?;
                let rm = rm_of(self, &vals[1], &args[1].span)?;
                let (x, fm) = self.float(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(Op::RoundInt(fm, rm, x), fm.width()),
                    Ty::Float(fm),
                ))
            }
            "to_int" => {
                arity(3)?;
                let rm = rm_of(self, &vals[2], &args[2].span)?;
                let (width, signed) = int_type_arg(&vals[1]).ok_or_else(|| {
                    self.type_err(&args[1].span, "an integer type such as `.s32`", &vals[1])
                })?;
                let (x, from) = self.float(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(
                        Op::FloatToInt {
                            from,
                            round: rm,
                            width,
                            signed,
                            value: x,
                        },
                        width,
                    ),
                    Ty::Bits(width),
                ))
            }
            "to_float" => {
                arity(4)?;
                let rm = rm_of(self, &vals[3], &args[3].span)?;
                let to = match &vals[2] {
                    Val::Mod(m) => match self.spec.format(m) {
                        Some(FormatInfo::Scalar(t)) => t,
                        _ => {
                            return Err(err(
                                &args[2].span,
                                format!("`.{m}` is not a scalar format"),
                            ))
                        }
                    },
                    other => {
                        return Err(self.type_err(&args[2].span, "a format such as `.f32`", other))
                    }
                };
                let signed = match &vals[1] {
                    Val::Bool(b) => *b,
                    other => {
                        return Err(self.type_err(
                            &args[1].span,
                            "a compile-time boolean (signed)",
                            other,
                        ))
                    }
                };
                let (x, width) = self.bits_arg(vals.remove(0), &args[0].span)?;
                Ok(Val::Rt(
                    self.emit(
                        Op::IntToFloat {
                            width,
                            signed,
                            to,
                            round: rm,
                            value: x,
                        },
                        to.width(),
                    ),
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
                    // LLVM IR's poison on an integer (`fptosi` out of range): any bits of
                    // the width. The outcome carries a format of that width, which only
                    // sizes the result (the encoding and the evaluator accept every pattern).
                    (_, Ty::Bits(w)) if f == "any_value" && w >= 4 => {
                        let fm = crate::ir::any_bits_format(w).expect("4 bits or more");
                        Ok(Val::Choice(Outcome::Any(fm), Ty::Bits(w)))
                    }
                    (id, t) => Err(self.type_err(
                        &args[0].span,
                        if f == "any_value" {
                            "a floating-point value or bits of 4 or more (`one_of(x, ~x)` for fewer)"
                        } else {
                            "a floating-point value"
                        },
                        &Val::Rt(id, t),
                    )),
                }
            }
            // LLVM IR's poison and immediate undefined behaviour: a choice of any bits of the
            // value's type (a predicate's included), which the readers of whole functions
            // carry on as LangRef says (`ir::Outcome::Poison`, `ir::Outcome::Ub`).
            "poison" | "undefined" => {
                arity(1)?;
                let (_, t) = self.rt(vals.remove(0), &args[0].span)?;
                let w = t.width();
                let outcome = if f == "poison" {
                    Outcome::Poison(w)
                } else {
                    Outcome::Ub(w)
                };
                Ok(Val::Choice(outcome, t))
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
            "sext" => {
                arity(2)?;
                let n = match vals.remove(1) {
                    Val::Int(n) => n,
                    other => {
                        return Err(self.type_err(&args[1].span, "a compile-time width", &other))
                    }
                };
                let (x, w) = self.bits_arg(vals.remove(0), &args[0].span)?;
                if n < i64::from(w) || n > 64 {
                    return Err(err(
                        span,
                        format!("`sext` widens a {w}-bit value to {n} bits: give {w} to 64"),
                    ));
                }
                Ok(Val::Rt(self.sext(x, w, n as u32), Ty::Bits(n as u32)))
            }
            "slt" => {
                arity(2)?;
                let (x, y, w) = self.bits_pair(vals, args, span)?;
                Ok(Val::Rt(self.emit(Op::BvSlt(w, x, y), 1), Ty::Pred))
            }
            "mul_hi" => {
                arity(3)?;
                let signed = match vals.remove(2) {
                    Val::Bool(b) => b,
                    other => {
                        return Err(self.type_err(
                            &args[2].span,
                            "a compile-time boolean (signed)",
                            &other,
                        ))
                    }
                };
                let (a, b, width) = self.bits_pair(vals, args, span)?;
                Ok(Val::Rt(
                    self.emit(
                        Op::MulHi {
                            width,
                            signed,
                            a,
                            b,
                        },
                        width,
                    ),
                    Ty::Bits(width),
                ))
            }
            "ashr" => {
                arity(2)?;
                let (x, w) = self.bits_arg(vals.remove(0), &args[0].span)?;
                let n = self.coerce(vals.remove(0), Ty::Bits(w), &args[1].span)?;
                let (n, _) = self.bits_arg(n, &args[1].span)?;
                Ok(Val::Rt(
                    self.emit(super::expr::shift_by(Shift::Arithmetic, w, x, n), w),
                    Ty::Bits(w),
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
                                &with_article(&self.ty_name(ty)),
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
    /// A bit-vector argument (a predicate is one bit) and its width.
    fn bits_arg(&mut self, v: Val, span: &Span) -> Result<(ValueId, u32), Diagnostic> {
        match self.rt(v, span)? {
            (id, t @ (Ty::Bits(_) | Ty::Pred)) => Ok((id, t.width())),
            (id, t) => Err(self.type_err(span, "a bit-vector (bN)", &Val::Rt(id, t))),
        }
    }

    /// Two bit-vector arguments of one width (a literal takes the other's width).
    fn bits_pair(
        &mut self,
        mut vals: Vec<Val>,
        args: &[Expr],
        span: &Span,
    ) -> Result<(ValueId, ValueId, u32), Diagnostic> {
        let (b, a) = (vals.remove(1), vals.remove(0));
        let (a, b) = match (&a, &b) {
            (Val::Rt(_, t), Val::Int(_)) => {
                let t = *t;
                (a, self.coerce(b, t, &args[1].span)?)
            }
            (Val::Int(_), Val::Rt(_, t)) => {
                let t = *t;
                (self.coerce(a, t, &args[0].span)?, b)
            }
            _ => (a, b),
        };
        let (x, wx) = self.bits_arg(a, &args[0].span)?;
        let (y, wy) = self.bits_arg(b, &args[1].span)?;
        if wx != wy {
            return Err(err(
                span,
                format!("the arguments are b{wx} and b{wy}: give them one width"),
            )
            .with_hint("widen the narrower with zext(x, n) or sext(x, n)"));
        }
        Ok((x, y, wx))
    }

    /// `x` (`w` bits) sign-extended to `n` bits.
    pub(super) fn sext(&mut self, x: ValueId, w: u32, n: u32) -> ValueId {
        if n == w {
            return x;
        }
        let sign = self.emit(
            Op::Extract {
                value: x,
                lo: w - 1,
                width: 1,
            },
            1,
        );
        let ones = self.konst(mask(n - w), n - w);
        let zeros = self.konst(0, n - w);
        let hi = self.emit(Op::Select(sign, ones, zeros), n - w);
        self.emit(
            Op::Concat {
                hi,
                lo: x,
                lo_width: w,
            },
            n,
        )
    }

    /// The operand modifiers of SASS forms: `negated(x)`, `absolute(x)` (whether the text
    /// writes `-x`, `|x|`: `false` where the form does not allow it), `G(x)` for a group `G`
    /// (the member written after `x`, the group's default where the form allows none), and
    /// `old(d)`, the destination's value before the instruction. `None` for other functions.
    pub(super) fn operand_modifier(
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
    pub(super) fn approx(
        &mut self,
        env: &Env,
        args: &[Expr],
        span: &Span,
    ) -> Result<Val, Diagnostic> {
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

/// The width and signedness an integer type modifier names: `.s32` is (32, true), `.u8`
/// (8, false).
fn int_type_arg(v: &Val) -> Option<(u32, bool)> {
    let Val::Mod(m) = v else {
        return None;
    };
    let width = m.strip_prefix(['s', 'u'])?.parse::<u32>().ok()?;
    (1..=64)
        .contains(&width)
        .then_some((width, m.starts_with('s')))
}
