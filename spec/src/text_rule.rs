//! Rules on what SASS instruction text may write beyond its form (`text COND else "why";`),
//! as the resolved spec holds them: the rule, and the load-time check of its condition. The
//! text parser ([`crate::sass`]) evaluates them against what an instruction writes.

use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::diag::Diagnostic;
use crate::form::OperandKind;
use crate::resolved::{Form, Group};

/// A rule on what the instruction text may write, beyond its form: `text COND else "why";`
/// in a family (the manual's prose rules, e.g. that two immediates share one sign bit). It
/// applies to the forms that have every operand it names; text that breaks it is refused
/// with the message.
///
/// COND is an expression over the text: `negated(x)` and `absolute(x)` (whether `-` or
/// `|..|` is written on operand `x`, inside the braces for an immediate), `sign(x)` (the sign
/// bit of immediate `x` as read, 0 or 1), `suffixed(x)` (whether `.member` follows `x`),
/// `g(x)` for a group `g` the form writes on `x` (the member written, or the default), `.M`,
/// integers, `true`/`false`, `==`, `!=`, `&&`, `||`, `!` and parentheses.
#[derive(Clone, Debug)]
pub struct TextRule {
    /// What must hold.
    pub cond: Expr,
    /// Why, as the manual says it.
    pub message: String,
}

impl TextRule {
    /// Checks the rule's condition against a family's forms and groups at load time: only the
    /// text functions above, on operands of its forms.
    pub fn new(
        forms: &[Form],
        groups: &[Group],
        cond: Expr,
        message: String,
    ) -> Result<TextRule, Diagnostic> {
        validate(forms, groups, &cond)?;
        Ok(TextRule { cond, message })
    }
}

/// The functions a text condition may call, besides the groups of the family.
const TEXT_FUNCTIONS: [&str; 4] = ["negated", "absolute", "sign", "suffixed"];

/// Whether `cond` (of an `operand` item) is about the text (`iswz(Ra) == .F32`) rather than
/// the modifiers: it calls a text function or a group on an operand. Such an item says how a
/// value the caller gives is read (`SassInstr::value_type`), not the variant's type.
pub fn is_text_condition(groups: &[Group], cond: &Expr) -> bool {
    let mut found = false;
    visit(cond, &mut |e| {
        if let ExprKind::Call { func, args } = &e.kind {
            let is_group = groups.iter().any(|g| g.name == func.text);
            if (TEXT_FUNCTIONS.contains(&func.text.as_str()) || is_group)
                && matches!(
                    args.as_slice(),
                    [Expr {
                        kind: ExprKind::Name(_),
                        ..
                    }]
                )
            {
                found = true;
            }
        }
    });
    found
}

pub(crate) fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Call { args, .. } => args.iter().for_each(|a| visit(a, f)),
        ExprKind::Unary { expr, .. } => visit(expr, f),
        ExprKind::Binary { lhs, rhs, .. } => {
            visit(lhs, f);
            visit(rhs, f);
        }
        ExprKind::Ternary { cond, then, els } => {
            visit(cond, f);
            visit(then, f);
            visit(els, f);
        }
        ExprKind::Index { base, .. } => visit(base, f),
        _ => {}
    }
}

/// The operands a text condition names, in order of appearance.
pub(crate) fn operand_names(e: &Expr, out: &mut Vec<String>) {
    visit(e, &mut |e| {
        if let ExprKind::Call { args, .. } = &e.kind {
            for a in args {
                if let ExprKind::Name(n) = &a.kind {
                    if !out.contains(n) {
                        out.push(n.clone());
                    }
                }
            }
        }
    });
}

/// Load-time check of a text condition (see [`TextRule`]).
pub fn validate(forms: &[Form], groups: &[Group], e: &Expr) -> Result<(), Diagnostic> {
    let bad = |msg: String| {
        Diagnostic::at(&e.span, msg).with_hint(
            "a text condition uses negated(x), absolute(x), sign(x), suffixed(x), group(x), `.member`, integers, ==, !=, &&, ||, !",
        )
    };
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Mod(_) => Ok(()),
        ExprKind::Unary {
            op: UnOp::Not,
            expr,
        } => validate(forms, groups, expr),
        ExprKind::Binary {
            op: BinOp::Eq | BinOp::Ne | BinOp::And | BinOp::Or,
            lhs,
            rhs,
        } => {
            validate(forms, groups, lhs)?;
            validate(forms, groups, rhs)
        }
        ExprKind::Call { func, args } => {
            let [Expr {
                kind: ExprKind::Name(x),
                span,
            }] = args.as_slice()
            else {
                return Err(bad(format!("`{}` takes one operand name", func.text)));
            };
            // Rejected forms are never parsed against.
            let in_form = |f: &&Form| f.rejected.is_none() && f.pattern.operands.contains(x);
            let Some(form) = forms.iter().find(in_form) else {
                return Err(Diagnostic::at(
                    span,
                    format!("`{x}` is an operand of no form of this instruction"),
                ));
            };
            let group = groups.iter().position(|g| g.name == func.text);
            if func.text == "sign" {
                let immediate = forms.iter().filter(in_form).all(|f| {
                    f.pattern
                        .operands
                        .iter()
                        .position(|o| o == x)
                        .is_some_and(|i| f.pattern.mods[i].kind == OperandKind::Immediate)
                });
                if !immediate {
                    return Err(Diagnostic::at(
                        span,
                        format!("`sign({x})`: `{x}` is not an immediate, so the text does not give its sign"),
                    ));
                }
            } else if let Some(g) = group {
                let writes = forms.iter().filter(in_form).all(|f| {
                    f.pattern
                        .operands
                        .iter()
                        .position(|o| o == x)
                        .is_some_and(|i| f.pattern.mods[i].member == Some(g))
                });
                if !writes {
                    return Err(Diagnostic::at(
                        span,
                        format!(
                            "the forms do not write `.{}` on `{x}` (`{}`)",
                            func.text, form.syntax
                        ),
                    ));
                }
            } else if !TEXT_FUNCTIONS.contains(&func.text.as_str()) {
                return Err(bad(format!(
                    "`{}` is not a function of the text",
                    func.text
                )));
            }
            Ok(())
        }
        _ => Err(bad(format!(
            "`{}` is not a condition on the text",
            crate::printer::print_expr(e)
        ))),
    }
}
