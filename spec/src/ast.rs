//! The syntax tree of a spec file, as written (before name resolution and lowering).

use crate::diag::Span;

/// A name and where it is written.
#[derive(Clone, Debug)]
pub struct Name {
    /// The name.
    pub text: String,
    /// Where.
    pub span: Span,
}

/// A parsed spec file.
#[derive(Clone, Debug)]
pub struct File {
    /// Its items in source order.
    pub items: Vec<Item>,
}

/// A top-level item.
#[derive(Clone, Debug)]
pub enum Item {
    /// `format f32 = ieee(8, 24);`
    Format(FormatDecl),
    /// `const NAME = expr;`
    Const(ConstDecl),
    /// `def name(params) { ... }`
    Def(Def),
    /// `instr add { ... }`
    Instr(Instr),
}

/// A floating-point format declaration.
#[derive(Clone, Debug)]
pub struct FormatDecl {
    /// Its name.
    pub name: Name,
    /// What it is.
    pub kind: FormatKind,
}

/// The two kinds of format.
#[derive(Clone, Debug)]
pub enum FormatKind {
    /// An IEEE 754 binary format by exponent width and precision (hidden bit included).
    Ieee {
        /// Exponent field width.
        exp_bits: u64,
        /// Significand precision including the hidden bit.
        precision: u64,
    },
    /// `count` lanes of the format `lane`, lane 0 in the low bits.
    Packed {
        /// The lane format.
        lane: Name,
        /// The number of lanes.
        count: u64,
    },
}

/// A named compile-time constant.
#[derive(Clone, Debug)]
pub struct ConstDecl {
    /// Its name.
    pub name: Name,
    /// Its value.
    pub value: Expr,
}

/// A helper, inlined at each call.
#[derive(Clone, Debug)]
pub struct Def {
    /// Its name.
    pub name: Name,
    /// Parameter names; types come from the call.
    pub params: Vec<Name>,
    /// The body; its last statement is `return`.
    pub body: Block,
}

/// An instruction family: its syntax forms, modifier groups and semantics.
#[derive(Clone, Debug)]
pub struct Instr {
    /// The opcodes it specifies (`instr min, max { ... }` covers both; `opcode` tells which).
    pub names: Vec<Name>,
    /// Its items in source order.
    pub items: Vec<InstrItem>,
}

/// One item of an `instr` block.
#[derive(Clone, Debug)]
pub enum InstrItem {
    /// `form "syntax" requirement rejected "why";`
    Form(FormDecl),
    /// `group rnd = { .rn, .rz } default .rn fusable;`
    Group(GroupDecl),
    /// `operand p: pred;`, or `operand Rd: f32 if ofmt == .F32;` (the first item of an
    /// operand whose condition holds gives its type).
    Operand {
        /// The operand.
        name: Name,
        /// Its type.
        ty: Name,
        /// When this type applies (decided by the modifiers); `None`: always.
        cond: Option<Expr>,
    },
    /// `require sm_20 if cond;`
    Require {
        /// The extra requirement.
        req: Requirement,
        /// When it applies.
        cond: Expr,
    },
    /// `reject "why" if cond;`: the variants whose modifiers satisfy `cond` are not built
    /// (combinations a syntax line allows but the manual's prose forbids); their text is
    /// refused with `why`.
    Reject {
        /// Why, as the instruction-text error says it.
        why: String,
        /// Which variants (decided by the modifiers).
        cond: Expr,
    },
    /// `text negated(Ra) == negated(Rb) else "the manual's words";`: a rule on what SASS
    /// instruction text may write, beyond its form; text that breaks it is refused with the
    /// message (see `text_rule::TextRule`).
    Text {
        /// What must hold of the text.
        cond: Expr,
        /// Why, as the manual says it.
        message: String,
    },
    /// `fuse mul, sub into "fma.rn" negating "neg";`: the optimizer's licence to fuse (see
    /// [`FuseDecl`]).
    Fuse(FuseDecl),
    /// `sem { ... }`
    Sem(Block),
}

/// `fuse PRODUCT, SUM into "FUSED" {negating "NEG"};`: a `PRODUCT` variant and a `SUM` variant
/// of this block, both written without the modifier of a `fusable` group, where the product's
/// result is read only by the sum, may become one `FUSED` instruction carrying the sum's
/// modifiers (`FUSED` then the sum's text after its opcode): `fused(a, b, c)` for
/// `c + a·b`. With `negating`, the sum subtracts its second operand, and the fused form negates
/// with the `NEG` instruction of the type: the subtrahend when the product is first
/// (`t - c` = `fused(a, b, NEG(c))`), the product's first factor when it is second
/// (`c - t` = `fused(NEG(a), b, c)`).
#[derive(Clone, Debug)]
pub struct FuseDecl {
    /// The multiplying opcode.
    pub product: Name,
    /// The adding (or, with `negate`, subtracting) opcode.
    pub sum: Name,
    /// The fused instruction's opcode and fixed modifiers (`fma.rn`), written as a string.
    pub fused: Name,
    /// The negating opcode (`neg`), written as a string.
    pub negate: Option<Name>,
}

/// A syntax line of the manual.
#[derive(Clone, Debug)]
pub struct FormDecl {
    /// The syntax text, without quotes.
    pub syntax: String,
    /// The span of the string literal, quotes included.
    pub span: Span,
    /// The form's target requirement.
    pub req: Option<Requirement>,
    /// Why semfuzz refuses this syntax, when it does.
    pub rejected: Option<String>,
}

/// A modifier group.
#[derive(Clone, Debug)]
pub struct GroupDecl {
    /// The group's name as the form strings use it (`rnd` for `.rnd`).
    pub name: Name,
    /// Its members without dots.
    pub members: Vec<Name>,
    /// The member meant when the group is optional and not written.
    pub default: Option<Name>,
    /// Whether the written-without-modifier variant may be fused by the optimizer.
    pub fusable: bool,
}

/// A PTX ISA version and/or a target architecture.
#[derive(Clone, Debug)]
pub struct Requirement {
    /// `since ptx 8.6`: the version text.
    pub ptx: Option<Name>,
    /// `sm_100`.
    pub sm: Option<Name>,
}

/// A braced list of statements.
#[derive(Clone, Debug)]
pub struct Block {
    /// The statements.
    pub stmts: Vec<Stmt>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let x = e;`
    Let {
        /// The new variable.
        name: Name,
        /// Its value.
        value: Expr,
    },
    /// `x = e;`, `d[i] = e;`, `d[63:32] = e;`
    Assign {
        /// What is assigned.
        place: Place,
        /// The value.
        value: Expr,
    },
    /// `if c { } else { }`
    If {
        /// The condition.
        cond: Expr,
        /// Taken when true.
        then: Block,
        /// Taken when false: a block, or an `if` for `else if`.
        els: Option<Else>,
    },
    /// `for i in a .. b { }`, unrolled at lowering.
    For {
        /// The index variable.
        var: Name,
        /// First index.
        from: Expr,
        /// One past the last index.
        to: Expr,
        /// The body.
        body: Block,
    },
    /// `return e;`
    Return {
        /// The returned value.
        value: Expr,
        /// The whole statement.
        span: Span,
    },
}

/// The `else` part of an `if`.
#[derive(Clone, Debug)]
pub enum Else {
    /// `else { ... }`
    Block(Block),
    /// `else if ...`
    If(Box<Stmt>),
}

/// An assignable place.
#[derive(Clone, Debug)]
pub struct Place {
    /// The variable or operand.
    pub name: Name,
    /// A lane or bit range of it.
    pub index: Option<Index>,
}

/// `[i]` or `[hi:lo]`.
#[derive(Clone, Debug)]
pub enum Index {
    /// A lane of a packed value.
    Lane(Box<Expr>),
    /// A bit range (the bounds in either order).
    Slice(Box<Expr>, Box<Expr>),
}

/// An expression and where it is written.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where.
    pub span: Span,
}

/// The kinds of expression.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// `42`, `0x7FFF`
    Int(u64),
    /// `1.0`
    Real(String),
    /// `true`, `false`
    Bool(bool),
    /// `.rn`
    Mod(String),
    /// `x`
    Name(String),
    /// `f(a, b)`
    Call {
        /// The function.
        func: Name,
        /// Its arguments.
        args: Vec<Expr>,
    },
    /// `!e`, `-e`, `~e`
    Unary {
        /// The operator.
        op: UnOp,
        /// The operand.
        expr: Box<Expr>,
    },
    /// `a op b`
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        els: Box<Expr>,
    },
    /// `e[i]`, `e[hi:lo]`
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The lane or range.
        index: Index,
    },
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
    /// `~`
    BitNot,
}

/// Binary operators, loosest-binding last in each line of [`BinOp::precedence`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

impl BinOp {
    /// All operators with their spelling.
    pub const ALL: [(BinOp, &'static str); 18] = [
        (BinOp::Or, "||"),
        (BinOp::And, "&&"),
        (BinOp::Eq, "=="),
        (BinOp::Ne, "!="),
        (BinOp::Lt, "<"),
        (BinOp::Le, "<="),
        (BinOp::Gt, ">"),
        (BinOp::Ge, ">="),
        (BinOp::BitOr, "|"),
        (BinOp::BitXor, "^"),
        (BinOp::BitAnd, "&"),
        (BinOp::Shl, "<<"),
        (BinOp::Shr, ">>"),
        (BinOp::Add, "+"),
        (BinOp::Sub, "-"),
        (BinOp::Mul, "*"),
        (BinOp::Div, "/"),
        (BinOp::Rem, "%"),
    ];

    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        BinOp::ALL
            .iter()
            .find(|(op, _)| *op == self)
            .map_or("?", |(_, s)| s)
    }

    /// Binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::BitOr => 4,
            BinOp::BitXor => 5,
            BinOp::BitAnd => 6,
            BinOp::Shl | BinOp::Shr => 7,
            BinOp::Add | BinOp::Sub => 8,
            BinOp::Mul | BinOp::Div | BinOp::Rem => 9,
        }
    }

    /// Whether chains like `a < b < c` are refused (comparisons do not associate).
    pub fn is_comparison(self) -> bool {
        self.precedence() == 3
    }
}
