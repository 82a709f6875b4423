//! Prints a syntax tree back as spec source, in one canonical layout.
//!
//! `parse(print(f))` has the same tree as `f`; the tests check that printing is a fixpoint.

use crate::ast::*;
use std::fmt::Write;

/// Prints a whole file.
pub fn print_file(file: &File) -> String {
    let mut out = String::new();
    for (i, item) in file.items.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_item(&mut out, item);
    }
    out
}

fn print_item(out: &mut String, item: &Item) {
    match item {
        Item::Format(f) => match &f.kind {
            FormatKind::Ieee {
                exp_bits,
                precision,
            } => {
                let _ = writeln!(
                    out,
                    "format {} = ieee({exp_bits}, {precision});",
                    f.name.text
                );
            }
            FormatKind::Packed { lane, count } => {
                let _ = writeln!(out, "format {} = {} x {count};", f.name.text, lane.text);
            }
        },
        Item::Const(c) => {
            let _ = writeln!(out, "const {} = {};", c.name.text, print_expr(&c.value));
        }
        Item::Def(d) => {
            let params: Vec<&str> = d.params.iter().map(|p| p.text.as_str()).collect();
            let _ = write!(out, "def {}({}) ", d.name.text, params.join(", "));
            print_block(out, &d.body, 0);
            out.push('\n');
        }
        Item::Instr(instr) => {
            let names: Vec<&str> = instr.names.iter().map(|n| n.text.as_str()).collect();
            let _ = writeln!(out, "instr {} {{", names.join(", "));
            for it in &instr.items {
                print_instr_item(out, it);
            }
            out.push_str("}\n");
        }
    }
}

fn print_requirement(req: &Requirement) -> String {
    let mut parts = Vec::new();
    if let Some(v) = &req.ptx {
        parts.push(format!("since ptx {}", v.text));
    }
    if let Some(sm) = &req.sm {
        parts.push(sm.text.clone());
    }
    parts.join(" ")
}

fn print_instr_item(out: &mut String, item: &InstrItem) {
    match item {
        InstrItem::Form(f) => {
            let _ = write!(out, "  form \"{}\"", f.syntax);
            if let Some(req) = &f.req {
                let _ = write!(out, " {}", print_requirement(req));
            }
            if let Some(why) = &f.rejected {
                let _ = write!(out, " rejected \"{why}\"");
            }
            out.push_str(";\n");
        }
        InstrItem::Group(g) => {
            let members: Vec<String> = g.members.iter().map(|m| format!(".{}", m.text)).collect();
            let _ = write!(
                out,
                "  group {} = {{ {} }}",
                g.name.text,
                members.join(", ")
            );
            if let Some(d) = &g.default {
                let _ = write!(out, " default .{}", d.text);
            }
            if g.fusable {
                out.push_str(" fusable");
            }
            out.push_str(";\n");
        }
        InstrItem::Operand { name, ty, cond } => match cond {
            Some(c) => {
                let _ = writeln!(
                    out,
                    "  operand {}: {} if {};",
                    name.text,
                    ty.text,
                    print_expr(c)
                );
            }
            None => {
                let _ = writeln!(out, "  operand {}: {};", name.text, ty.text);
            }
        },
        InstrItem::Require { req, cond } => {
            let _ = writeln!(
                out,
                "  require {} if {};",
                print_requirement(req),
                print_expr(cond)
            );
        }
        InstrItem::Reject { why, cond } => {
            let _ = writeln!(out, "  reject \"{why}\" if {};", print_expr(cond));
        }
        InstrItem::Text { cond, message } => {
            let _ = writeln!(out, "  text {} else \"{message}\";", print_expr(cond));
        }
        InstrItem::Fuse(f) => {
            let _ = write!(
                out,
                "  fuse {}, {} into \"{}\"",
                f.product.text, f.sum.text, f.fused.text
            );
            if let Some(neg) = &f.negate {
                let _ = write!(out, " negating \"{}\"", neg.text);
            }
            out.push_str(";\n");
        }
        InstrItem::Sem(b) => {
            out.push_str("  sem ");
            print_block(out, b, 1);
            out.push('\n');
        }
    }
}

fn print_block(out: &mut String, block: &Block, depth: usize) {
    out.push_str("{\n");
    for s in &block.stmts {
        print_stmt(out, s, depth + 1);
    }
    out.push_str(&"  ".repeat(depth));
    out.push('}');
}

fn print_place(place: &Place) -> String {
    match &place.index {
        None => place.name.text.clone(),
        Some(ix) => format!("{}{}", place.name.text, print_index(ix)),
    }
}

fn print_index(ix: &Index) -> String {
    match ix {
        Index::Lane(e) => format!("[{}]", print_expr(e)),
        Index::Slice(a, b) => format!("[{}:{}]", print_expr(a), print_expr(b)),
    }
}

fn print_stmt(out: &mut String, stmt: &Stmt, depth: usize) {
    let indent = "  ".repeat(depth);
    out.push_str(&indent);
    match stmt {
        Stmt::Let { name, value } => {
            let _ = writeln!(out, "let {} = {};", name.text, print_expr(value));
        }
        Stmt::Assign { place, value } => {
            let _ = writeln!(out, "{} = {};", print_place(place), print_expr(value));
        }
        Stmt::Return { value, .. } => {
            let _ = writeln!(out, "return {};", print_expr(value));
        }
        Stmt::For {
            var,
            from,
            to,
            body,
        } => {
            let _ = write!(
                out,
                "for {} in {} .. {} ",
                var.text,
                print_expr(from),
                print_expr(to)
            );
            print_block(out, body, depth);
            out.push('\n');
        }
        Stmt::If { .. } => {
            print_if(out, stmt, depth);
            out.push('\n');
        }
    }
}

fn print_if(out: &mut String, stmt: &Stmt, depth: usize) {
    if let Stmt::If { cond, then, els } = stmt {
        let _ = write!(out, "if {} ", print_expr(cond));
        print_block(out, then, depth);
        match els {
            None => {}
            Some(Else::Block(b)) => {
                out.push_str(" else ");
                print_block(out, b, depth);
            }
            Some(Else::If(inner)) => {
                out.push_str(" else ");
                print_if(out, inner, depth);
            }
        }
    }
}

/// Prints an expression with the parentheses its tree needs, and no others.
pub fn print_expr(e: &Expr) -> String {
    print_prec(e, 0)
}

/// `ctx` is the tightest binding the surrounding context requires (0: anything goes).
fn print_prec(e: &Expr, ctx: u8) -> String {
    let (text, prec) = match &e.kind {
        ExprKind::Int(v) => (
            if *v > 255 {
                format!("0x{v:X}")
            } else {
                v.to_string()
            },
            20,
        ),
        ExprKind::Real(r) => (r.clone(), 20),
        ExprKind::Bool(b) => (b.to_string(), 20),
        ExprKind::Mod(m) => (format!(".{m}"), 20),
        ExprKind::Name(n) => (n.clone(), 20),
        ExprKind::Call { func, args } => {
            let args: Vec<String> = args.iter().map(print_expr).collect();
            (format!("{}({})", func.text, args.join(", ")), 20)
        }
        ExprKind::Index { base, index } => (
            format!("{}{}", print_prec(base, 20), print_index(index)),
            20,
        ),
        ExprKind::Unary { op, expr } => {
            let sym = match op {
                UnOp::Not => "!",
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
            };
            (format!("{sym}{}", print_prec(expr, 15)), 15)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let p = op.precedence();
            // Left-associative: the right operand must bind strictly tighter; comparisons do
            // not chain, so a comparison operand of one is parenthesised on either side.
            let left = if op.is_comparison() { p + 1 } else { p };
            (
                format!(
                    "{} {} {}",
                    print_prec(lhs, left),
                    op.symbol(),
                    print_prec(rhs, p + 1)
                ),
                p,
            )
        }
        ExprKind::Ternary { cond, then, els } => (
            format!(
                "{} ? {} : {}",
                print_prec(cond, 1),
                print_prec(then, 0),
                print_prec(els, 0)
            ),
            0,
        ),
    };
    if prec < ctx {
        format!("({text})")
    } else {
        text
    }
}
