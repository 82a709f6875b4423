//! Recursive-descent parser from tokens to [`crate::ast::File`].

use crate::ast::*;
use crate::diag::{Diagnostic, SourceFile, Span};
use crate::lexer::{lex, Tok, Token};
use std::sync::Arc;

/// Parses one spec source.
pub fn parse_file(file: &Arc<SourceFile>) -> Result<File, Diagnostic> {
    let toks = lex(file)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let mut items = Vec::new();
    while !p.at_eof() {
        items.push(p.item()?);
    }
    Ok(File { items })
}

/// How deep expressions and blocks may nest: far beyond any spec (the shipped ones stay
/// below 20), and shallow enough that the recursive passes after parsing (checker, lowering,
/// printer) stay within a 2 MiB thread stack. Without a bound, `((((…1…))))` overflowed the
/// stack (a crash, not an error) in the parser itself.
pub const MAX_NESTING: usize = 100;

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// The nesting level of the syntax being parsed: an upper bound on the depth of the
    /// tree built so far (each enclosing expression, block, operator of a chain and index).
    depth: usize,
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(_) | Tok::Real(_) => "a number".into(),
        Tok::Mod(m) => format!("`.{m}`"),
        Tok::Str(_) => "a string".into(),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Eof => "the end of the file".into(),
    }
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn span(&self) -> Span {
        self.toks[self.pos].span.clone()
    }

    fn prev_span(&self) -> Span {
        self.toks[self.pos.saturating_sub(1)].span.clone()
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    /// One level deeper; an error past [`MAX_NESTING`]. Callers restore `depth` on success
    /// (an error ends the parse).
    fn nest(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Diagnostic::at(
                &self.span(),
                format!("nested more than {MAX_NESTING} levels deep"),
            )
            .with_hint("name parts of the expression with `let`, or move a block into a `def`"));
        }
        Ok(())
    }

    fn error(&self, expected: &str) -> Diagnostic {
        Diagnostic::at(
            &self.span(),
            format!("expected {expected}, found {}", describe(self.peek())),
        )
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_keyword(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(p);
        if hit {
            self.bump();
        }
        hit
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        let hit = self.is_keyword(k);
        if hit {
            self.bump();
        }
        hit
    }

    fn expect_punct(&mut self, p: &str) -> Result<Span, Diagnostic> {
        if self.is_punct(p) {
            Ok(self.bump().span)
        } else {
            let mut d = self.error(&format!("`{p}`"));
            if p == ";" {
                d = Diagnostic::at(
                    &self.prev_span(),
                    format!("expected `;` after this, found {}", describe(self.peek())),
                )
                .with_hint("every item and statement ends with `;`");
            }
            Err(d)
        }
    }

    fn expect_keyword(&mut self, k: &str) -> Result<(), Diagnostic> {
        if self.eat_keyword(k) {
            Ok(())
        } else {
            Err(self.error(&format!("`{k}`")))
        }
    }

    fn name(&mut self, what: &str) -> Result<Name, Diagnostic> {
        match self.peek().clone() {
            Tok::Ident(text) => Ok(Name {
                text,
                span: self.bump().span,
            }),
            _ => Err(self.error(what)),
        }
    }

    fn int(&mut self, what: &str) -> Result<u64, Diagnostic> {
        match *self.peek() {
            Tok::Int(v) => {
                self.bump();
                Ok(v)
            }
            _ => Err(self.error(what)),
        }
    }

    fn string(&mut self, what: &str) -> Result<(String, Span), Diagnostic> {
        match self.peek().clone() {
            Tok::Str(s) => Ok((s, self.bump().span)),
            _ => Err(self.error(what)),
        }
    }

    fn modifier(&mut self, what: &str) -> Result<Name, Diagnostic> {
        match self.peek().clone() {
            Tok::Mod(text) => Ok(Name {
                text,
                span: self.bump().span,
            }),
            _ => Err(self.error(what)),
        }
    }

    fn item(&mut self) -> Result<Item, Diagnostic> {
        if self.eat_keyword("format") {
            let name = self.name("a format name")?;
            self.expect_punct("=")?;
            let kind = if self.eat_keyword("ieee") {
                self.expect_punct("(")?;
                let exp_bits = self.int("the exponent width")?;
                self.expect_punct(",")?;
                let precision =
                    self.int("the precision (significand bits including the hidden bit)")?;
                self.expect_punct(")")?;
                FormatKind::Ieee {
                    exp_bits,
                    precision,
                }
            } else {
                let lane = self.name("`ieee(E, P)` or a lane format such as `f32`")?;
                self.expect_keyword("x")
                    .map_err(|d| d.with_hint("a packed format is written `f32 x 2`"))?;
                let count = self.int("a lane count")?;
                FormatKind::Packed { lane, count }
            };
            self.expect_punct(";")?;
            Ok(Item::Format(FormatDecl { name, kind }))
        } else if self.eat_keyword("const") {
            let name = self.name("a constant name")?;
            self.expect_punct("=")?;
            let value = self.expr()?;
            self.expect_punct(";")?;
            Ok(Item::Const(ConstDecl { name, value }))
        } else if self.eat_keyword("def") {
            let name = self.name("a function name")?;
            self.expect_punct("(")?;
            let mut params = Vec::new();
            if !self.is_punct(")") {
                loop {
                    params.push(self.name("a parameter name")?);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            }
            self.expect_punct(")")?;
            let body = self.block()?;
            Ok(Item::Def(Def { name, params, body }))
        } else if self.eat_keyword("instr") {
            let mut names = vec![self.name("an instruction name")?];
            while self.eat_punct(",") {
                names.push(self.name("an instruction name")?);
            }
            self.expect_punct("{")?;
            let mut items = Vec::new();
            while !self.eat_punct("}") {
                if self.at_eof() {
                    return Err(self.error("`}` closing the instr block"));
                }
                items.push(self.instr_item()?);
            }
            Ok(Item::Instr(Instr { names, items }))
        } else {
            Err(self.error("`format`, `const`, `def` or `instr`"))
        }
    }

    fn requirement(&mut self) -> Result<Option<Requirement>, Diagnostic> {
        let mut req = Requirement {
            ptx: None,
            sm: None,
        };
        if self.eat_keyword("since") {
            self.expect_keyword("ptx")
                .map_err(|d| d.with_hint("write `since ptx 8.6 sm_100`"))?;
            match self.peek().clone() {
                Tok::Real(text) => {
                    req.ptx = Some(Name {
                        text,
                        span: self.bump().span,
                    })
                }
                _ => return Err(self.error("a PTX ISA version such as `8.6`")),
            }
        }
        if matches!(self.peek(), Tok::Ident(s) if s.starts_with("sm_")) {
            req.sm = Some(self.name("a target")?);
        }
        Ok((req.ptx.is_some() || req.sm.is_some()).then_some(req))
    }

    fn instr_item(&mut self) -> Result<InstrItem, Diagnostic> {
        if self.eat_keyword("form") {
            let (syntax, span) = self.string("the syntax line as a string")?;
            let req = self.requirement()?;
            let rejected = if self.eat_keyword("rejected") {
                Some(self.string("the reason as a string")?.0)
            } else {
                None
            };
            self.expect_punct(";")?;
            Ok(InstrItem::Form(FormDecl {
                syntax,
                span,
                req,
                rejected,
            }))
        } else if self.eat_keyword("group") {
            let name = self.name("a group name")?;
            self.expect_punct("=")?;
            self.expect_punct("{")?;
            let mut members = vec![self.modifier("a modifier such as `.rn`")?];
            while self.eat_punct(",") {
                members.push(self.modifier("a modifier such as `.rn`")?);
            }
            self.expect_punct("}")?;
            let default = if self.eat_keyword("default") {
                Some(self.modifier("the default modifier")?)
            } else {
                None
            };
            let fusable = self.eat_keyword("fusable");
            self.expect_punct(";")?;
            Ok(InstrItem::Group(GroupDecl {
                name,
                members,
                default,
                fusable,
            }))
        } else if self.eat_keyword("operand") {
            let name = self.name("an operand name")?;
            self.expect_punct(":")?;
            let mut ty = self.name("a type (`pred`, `b32`, a format or a group of formats)")?;
            // `f16[15:6]`: bits of a format, for a SASS immediate field that keeps part of
            // the value the text writes.
            if self.eat_punct("[") {
                let hi = self.int("the high bit")?;
                self.expect_punct(":")?;
                let lo = self.int("the low bit")?;
                let end = self.expect_punct("]")?;
                ty.text = format!("{}[{hi}:{lo}]", ty.text);
                ty.span = Span::new(&ty.span.file, ty.span.start, end.end);
            }
            let cond = if self.eat_keyword("if") {
                Some(self.expr()?)
            } else {
                None
            };
            self.expect_punct(";")?;
            Ok(InstrItem::Operand { name, ty, cond })
        } else if self.eat_keyword("require") {
            let req = self
                .requirement()?
                .ok_or_else(|| self.error("`since ptx X.Y` or a target such as `sm_20`"))?;
            self.expect_keyword("if")?;
            let cond = self.expr()?;
            self.expect_punct(";")?;
            Ok(InstrItem::Require { req, cond })
        } else if self.eat_keyword("reject") {
            let why = self.string("the reason as a string")?.0;
            self.expect_keyword("if")?;
            let cond = self.expr()?;
            self.expect_punct(";")?;
            Ok(InstrItem::Reject { why, cond })
        } else if self.eat_keyword("text") {
            let cond = self.expr()?;
            self.expect_keyword("else")?;
            let (message, _) = self.string("the message as a string")?;
            self.expect_punct(";")?;
            Ok(InstrItem::Text { cond, message })
        } else if self.eat_keyword("fuse") {
            let product =
                self.name("the multiplying opcode, as in `fuse mul, add into \"fma.rn\";`")?;
            self.expect_punct(",")?;
            let sum = self.name("the adding opcode, as in `fuse mul, add into \"fma.rn\";`")?;
            self.expect_keyword("into")?;
            let (text, span) = self.string("the fused instruction as a string, e.g. \"fma.rn\"")?;
            let fused = Name { text, span };
            let negate = if self.eat_keyword("negating") {
                let (text, span) =
                    self.string("the negating instruction as a string, e.g. \"neg\"")?;
                Some(Name { text, span })
            } else {
                None
            };
            self.expect_punct(";")?;
            Ok(InstrItem::Fuse(FuseDecl {
                product,
                sum,
                fused,
                negate,
            }))
        } else if self.eat_keyword("sem") {
            Ok(InstrItem::Sem(self.block()?))
        } else {
            Err(self
                .error("`form`, `group`, `operand`, `require`, `reject`, `text`, `fuse` or `sem`"))
        }
    }

    fn block(&mut self) -> Result<Block, Diagnostic> {
        let outer = self.depth;
        self.expect_punct("{")?;
        self.nest()?;
        let mut stmts = Vec::new();
        while !self.eat_punct("}") {
            if self.at_eof() {
                return Err(self.error("`}`"));
            }
            stmts.push(self.stmt()?);
        }
        self.depth = outer;
        Ok(Block { stmts })
    }

    fn stmt(&mut self) -> Result<Stmt, Diagnostic> {
        if self.eat_keyword("let") {
            let name = self.name("a variable name")?;
            self.expect_punct("=")?;
            let value = self.expr()?;
            self.expect_punct(";")?;
            Ok(Stmt::Let { name, value })
        } else if self.eat_keyword("if") {
            self.if_rest()
        } else if self.eat_keyword("for") {
            let var = self.name("a loop variable")?;
            self.expect_keyword("in")?;
            let from = self.expr()?;
            self.expect_punct("..")?;
            let to = self.expr()?;
            let body = self.block()?;
            Ok(Stmt::For {
                var,
                from,
                to,
                body,
            })
        } else if self.is_keyword("return") {
            let start = self.bump().span;
            let value = self.expr()?;
            let end = self.expect_punct(";")?;
            Ok(Stmt::Return {
                value,
                span: start.to(&end),
            })
        } else if matches!(self.peek(), Tok::Ident(_)) {
            let name = self.name("a variable")?;
            let index = if self.eat_punct("[") {
                Some(self.index_rest()?)
            } else {
                None
            };
            if !self.is_punct("=") {
                return Err(self
                    .error("`=`")
                    .with_hint("a statement is `let x = e;`, `x = e;`, `if`, `for` or `return`"));
            }
            self.bump();
            let value = self.expr()?;
            self.expect_punct(";")?;
            Ok(Stmt::Assign {
                place: Place { name, index },
                value,
            })
        } else {
            Err(self.error("a statement (`let`, an assignment, `if`, `for` or `return`)"))
        }
    }

    fn if_rest(&mut self) -> Result<Stmt, Diagnostic> {
        // `else if` chains nest in the tree.
        let outer = self.depth;
        self.nest()?;
        let cond = self.expr()?;
        let then = self.block()?;
        let els = if self.eat_keyword("else") {
            if self.eat_keyword("if") {
                Some(Else::If(Box::new(self.if_rest()?)))
            } else {
                Some(Else::Block(self.block()?))
            }
        } else {
            None
        };
        self.depth = outer;
        Ok(Stmt::If { cond, then, els })
    }

    /// After `[`: `e]` or `e:e]`.
    fn index_rest(&mut self) -> Result<Index, Diagnostic> {
        let first = self.expr()?;
        let index = if self.eat_punct(":") {
            let second = self.expr()?;
            Index::Slice(Box::new(first), Box::new(second))
        } else {
            Index::Lane(Box::new(first))
        };
        self.expect_punct("]")?;
        Ok(index)
    }

    pub(crate) fn expr(&mut self) -> Result<Expr, Diagnostic> {
        let outer = self.depth;
        self.nest()?;
        let e = self.ternary()?;
        self.depth = outer;
        Ok(e)
    }

    fn ternary(&mut self) -> Result<Expr, Diagnostic> {
        let cond = self.binary(1)?;
        if self.eat_punct("?") {
            let then = self.expr()?;
            self.expect_punct(":")
                .map_err(|d| d.with_hint("a conditional is `c ? a : b`"))?;
            let els = self.expr()?;
            let span = cond.span.to(&els.span);
            return Ok(Expr {
                kind: ExprKind::Ternary {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    els: Box::new(els),
                },
                span,
            });
        }
        Ok(cond)
    }

    fn binop(&self) -> Option<BinOp> {
        match self.peek() {
            Tok::Punct(p) => BinOp::ALL.iter().find(|(_, s)| s == p).map(|(op, _)| *op),
            _ => None,
        }
    }

    fn binary(&mut self, min_prec: u8) -> Result<Expr, Diagnostic> {
        let outer = self.depth;
        let mut lhs = self.unary()?;
        while let Some(op) = self.binop().filter(|op| op.precedence() >= min_prec) {
            // A chain `a + b + c` is a tree as deep as it is long.
            self.nest()?;
            let op_span = self.bump().span;
            let rhs = self.binary(op.precedence() + 1)?;
            if op.is_comparison() {
                if let Some(next) = self.binop().filter(|o| o.is_comparison()) {
                    return Err(Diagnostic::at(
                        &self.span(),
                        format!(
                            "comparison `{}` cannot follow `{}`",
                            next.symbol(),
                            op.symbol()
                        ),
                    )
                    .with_hint("comparisons do not chain: write `a < b && b < c`")
                    .with_note(format!(
                        "the first comparison is at {}",
                        op_span.file.line_col(op_span.start).0
                    )));
                }
            }
            let span = lhs.span.to(&rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            };
        }
        self.depth = outer;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        let op = match self.peek() {
            Tok::Punct("!") => Some(UnOp::Not),
            Tok::Punct("-") => Some(UnOp::Neg),
            Tok::Punct("~") => Some(UnOp::BitNot),
            _ => None,
        };
        let outer = self.depth;
        if let Some(op) = op {
            self.nest()?;
            let start = self.bump().span;
            let expr = self.unary()?;
            self.depth = outer;
            let span = start.to(&expr.span);
            return Ok(Expr {
                kind: ExprKind::Unary {
                    op,
                    expr: Box::new(expr),
                },
                span,
            });
        }
        let mut e = self.primary()?;
        while self.eat_punct("[") {
            self.nest()?;
            let index = self.index_rest()?;
            let span = e.span.to(&self.prev_span());
            e = Expr {
                kind: ExprKind::Index {
                    base: Box::new(e),
                    index,
                },
                span,
            };
        }
        self.depth = outer;
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr, Diagnostic> {
        let span = self.span();
        let kind = match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                ExprKind::Int(v)
            }
            Tok::Real(r) => {
                self.bump();
                ExprKind::Real(r)
            }
            Tok::Mod(m) => {
                self.bump();
                ExprKind::Mod(m)
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump();
                ExprKind::Bool(s == "true")
            }
            Tok::Ident(_) => {
                let func = self.name("a name")?;
                if self.eat_punct("(") {
                    let mut args = Vec::new();
                    if !self.is_punct(")") {
                        loop {
                            args.push(self.expr()?);
                            if !self.eat_punct(",") {
                                break;
                            }
                        }
                    }
                    let end = self.expect_punct(")")?;
                    return Ok(Expr {
                        kind: ExprKind::Call { func, args },
                        span: span.to(&end),
                    });
                }
                ExprKind::Name(func.text)
            }
            Tok::Punct("(") => {
                self.bump();
                let inner = self.expr()?;
                let end = self.expect_punct(")")?;
                return Ok(Expr {
                    kind: inner.kind,
                    span: span.to(&end),
                });
            }
            Tok::Punct("|") if matches!(self.peek_at(1), Tok::Ident(_)) => {
                return Err(self
                    .error("an expression")
                    .with_hint("absolute value is written `fabs(x)`, not `|x|`"))
            }
            _ => return Err(self.error("an expression")),
        };
        Ok(Expr { kind, span })
    }
}

/// Parses a lone expression (used for tests and for `require` conditions in tools).
pub fn parse_expr(file: &Arc<SourceFile>) -> Result<Expr, Diagnostic> {
    let toks = lex(file)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    if !p.at_eof() {
        return Err(p.error("the end of the expression"));
    }
    Ok(e)
}
