//! The variant IR: one instruction variant as a flat SSA program over bit-vectors of at most
//! 64 bits, plus an outcome tree per destination part.
//!
//! Both compilation targets consume exactly this: the evaluator runs [`Op::exec`] over a slot
//! array; the SMT compiler maps each [`Op`] to a Z3 term. Predicates are 1-bit values.

use semfuzz_fp::{self as fp, Format, Round};

/// Index of a value: the op that defines it.
pub type ValueId = u32;

/// Floating-point classification predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// Any NaN.
    Nan,
    /// A signaling NaN.
    SignalingNan,
    /// ±infinity.
    Inf,
    /// ±0.
    Zero,
    /// A nonzero value with the minimum exponent field.
    Subnormal,
    /// A finite nonzero value that is not subnormal.
    Normal,
    /// Not infinite and not NaN.
    Finite,
}

/// IEEE comparison predicates (false when unordered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `==`
    Eq,
    /// `<`
    Lt,
    /// `<=`
    Le,
}

/// A shift by a run-time amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shift {
    /// Left, filling with zeros.
    Left,
    /// Right, filling with zeros.
    Logical,
    /// Right, filling with copies of the sign bit.
    Arithmetic,
}

/// One operation. Operands are earlier [`ValueId`]s.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// The bits of source operand `n` (in the variant's operand order).
    Input(u16),
    /// A constant.
    Const(u64),
    /// IEEE addition.
    Add(Format, Round, ValueId, ValueId),
    /// IEEE subtraction.
    Sub(Format, Round, ValueId, ValueId),
    /// IEEE multiplication.
    Mul(Format, Round, ValueId, ValueId),
    /// IEEE division.
    Div(Format, Round, ValueId, ValueId),
    /// Fused multiply-add `a*b+c`, one rounding.
    Fma(Format, Round, ValueId, ValueId, ValueId),
    /// IEEE square root.
    Sqrt(Format, Round, ValueId),
    /// Conversion from the first format to the second.
    Cvt(Format, Format, Round, ValueId),
    /// A classification predicate.
    Class(Format, Class, ValueId),
    /// An IEEE comparison predicate.
    FCmp(Format, Cmp, ValueId, ValueId),
    /// Bitwise and of two `width`-bit values.
    And(u32, ValueId, ValueId),
    /// Bitwise or.
    Or(u32, ValueId, ValueId),
    /// Bitwise exclusive or.
    Xor(u32, ValueId, ValueId),
    /// Bitwise complement of a `width`-bit value.
    Not(u32, ValueId),
    /// Wrapping addition of `width`-bit values.
    BvAdd(u32, ValueId, ValueId),
    /// Wrapping subtraction of `width`-bit values.
    BvSub(u32, ValueId, ValueId),
    /// Bit equality (a predicate).
    BvEq(ValueId, ValueId),
    /// Unsigned less-than (a predicate).
    BvUlt(ValueId, ValueId),
    /// Two's-complement less-than of `width`-bit values (a predicate).
    BvSlt(u32, ValueId, ValueId),
    /// Wrapping multiplication of `width`-bit values (the low half of the product).
    BvMul(u32, ValueId, ValueId),
    /// The high `width` bits of the `2*width`-bit product of two `width`-bit values, read as
    /// two's-complement integers when `signed`, else unsigned.
    MulHi {
        /// Width of the operands and of the result.
        width: u32,
        /// Whether the operands are signed.
        signed: bool,
        /// The first factor.
        a: ValueId,
        /// The second factor.
        b: ValueId,
    },
    /// A shift of a `width`-bit value by a run-time amount (a value of any width, read as
    /// unsigned); an amount of `width` or more shifts every bit out.
    ShiftBy {
        /// Which shift.
        kind: Shift,
        /// Width of the shifted value and of the result.
        width: u32,
        /// The shifted value.
        value: ValueId,
        /// The amount.
        amount: ValueId,
    },
    /// `width` bits starting at bit `lo`.
    Extract {
        /// The source value.
        value: ValueId,
        /// Lowest bit taken.
        lo: u32,
        /// Number of bits.
        width: u32,
    },
    /// `hi` above `lo`, where `lo` is `lo_width` bits wide.
    Concat {
        /// The high part.
        hi: ValueId,
        /// The low part.
        lo: ValueId,
        /// Width of the low part.
        lo_width: u32,
    },
    /// Shift left by a constant, within `width` bits.
    Shl(u32, ValueId, u32),
    /// Logical shift right by a constant.
    Shr(u32, ValueId, u32),
    /// `cond ? a : b`.
    Select(ValueId, ValueId, ValueId),
}

/// A mask of the low `width` bits.
#[inline]
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// A `width`-bit value read as a two's-complement integer.
#[inline]
pub fn signed(x: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((x << shift) as i64) >> shift
}

impl Op {
    /// Computes the op given the values of earlier ops. Shared by the evaluator and by constant
    /// folding during lowering, so that both can never disagree.
    #[inline(always)]
    pub fn exec(&self, v: &[u64]) -> u64 {
        let g = |i: &ValueId| v[*i as usize];
        match self {
            Op::Input(_) => unreachable!("inputs are loaded by the evaluator before execution"),
            Op::Const(c) => *c,
            Op::Add(f, r, a, b) => fp::add(*f, g(a), g(b), *r),
            Op::Sub(f, r, a, b) => fp::sub(*f, g(a), g(b), *r),
            Op::Mul(f, r, a, b) => fp::mul(*f, g(a), g(b), *r),
            Op::Div(f, r, a, b) => fp::div(*f, g(a), g(b), *r),
            Op::Fma(f, r, a, b, c) => fp::fma(*f, g(a), g(b), g(c), *r),
            Op::Sqrt(f, r, a) => fp::sqrt(*f, g(a), *r),
            Op::Cvt(from, to, r, a) => fp::convert(*from, *to, g(a), *r),
            Op::Class(f, c, a) => {
                let x = g(a);
                (match c {
                    Class::Nan => f.is_nan(x),
                    Class::SignalingNan => f.is_signaling_nan(x),
                    Class::Inf => f.is_inf(x),
                    Class::Zero => f.is_zero(x),
                    Class::Subnormal => f.is_subnormal(x),
                    Class::Normal => f.is_normal(x),
                    Class::Finite => f.is_finite(x),
                }) as u64
            }
            Op::FCmp(f, c, a, b) => {
                use std::cmp::Ordering::*;
                let o = fp::compare(*f, g(a), g(b));
                (match c {
                    Cmp::Eq => o == Some(Equal),
                    Cmp::Lt => o == Some(Less),
                    Cmp::Le => matches!(o, Some(Less | Equal)),
                }) as u64
            }
            Op::And(_, a, b) => g(a) & g(b),
            Op::Or(_, a, b) => g(a) | g(b),
            Op::Xor(_, a, b) => g(a) ^ g(b),
            Op::Not(w, a) => !g(a) & mask(*w),
            Op::BvAdd(w, a, b) => g(a).wrapping_add(g(b)) & mask(*w),
            Op::BvSub(w, a, b) => g(a).wrapping_sub(g(b)) & mask(*w),
            Op::BvEq(a, b) => (g(a) == g(b)) as u64,
            Op::BvUlt(a, b) => (g(a) < g(b)) as u64,
            Op::BvSlt(w, a, b) => (signed(g(a), *w) < signed(g(b), *w)) as u64,
            Op::BvMul(w, a, b) => g(a).wrapping_mul(g(b)) & mask(*w),
            Op::MulHi {
                width,
                signed: s,
                a,
                b,
            } => {
                // The exact product in 128 bits: |x*y| <= 2^126 for signed 64-bit factors,
                // and below 2^128 for unsigned ones.
                let product = if *s {
                    (i128::from(signed(g(a), *width)) * i128::from(signed(g(b), *width))) as u128
                } else {
                    u128::from(g(a)) * u128::from(g(b))
                };
                (product >> width) as u64 & mask(*width)
            }
            Op::ShiftBy {
                kind,
                width,
                value,
                amount,
            } => {
                let (x, n) = (g(value), g(amount));
                let out = n >= u64::from(*width);
                match kind {
                    Shift::Left if out => 0,
                    Shift::Left => (x << n) & mask(*width),
                    Shift::Logical if out => 0,
                    Shift::Logical => x >> n,
                    Shift::Arithmetic => {
                        let n = n.min(u64::from(*width) - 1);
                        (signed(x, *width) >> n) as u64 & mask(*width)
                    }
                }
            }
            Op::Extract { value, lo, width } => (g(value) >> lo) & mask(*width),
            Op::Concat { hi, lo, lo_width } => (g(hi) << lo_width) | g(lo),
            Op::Shl(w, a, n) => {
                if *n >= 64 {
                    0
                } else {
                    (g(a) << n) & mask(*w)
                }
            }
            Op::Shr(_, a, n) => {
                if *n >= 64 {
                    0
                } else {
                    g(a) >> n
                }
            }
            Op::Select(c, a, b) => {
                if g(c) != 0 {
                    g(a)
                } else {
                    g(b)
                }
            }
        }
    }

    /// The values this op reads, mutably (for renumbering).
    pub fn args_mut(&mut self) -> Vec<&mut ValueId> {
        match self {
            Op::Input(_) | Op::Const(_) => vec![],
            Op::Sqrt(_, _, a) | Op::Cvt(_, _, _, a) | Op::Class(_, _, a) | Op::Not(_, a) => vec![a],
            Op::Extract { value, .. } | Op::Shl(_, value, _) | Op::Shr(_, value, _) => vec![value],
            Op::Add(_, _, a, b)
            | Op::Sub(_, _, a, b)
            | Op::Mul(_, _, a, b)
            | Op::Div(_, _, a, b)
            | Op::FCmp(_, _, a, b)
            | Op::And(_, a, b)
            | Op::Or(_, a, b)
            | Op::Xor(_, a, b)
            | Op::BvAdd(_, a, b)
            | Op::BvSub(_, a, b)
            | Op::BvEq(a, b)
            | Op::BvUlt(a, b)
            | Op::BvSlt(_, a, b)
            | Op::BvMul(_, a, b)
            | Op::MulHi { a, b, .. } => vec![a, b],
            Op::ShiftBy { value, amount, .. } => vec![value, amount],
            Op::Concat { hi, lo, .. } => vec![hi, lo],
            Op::Fma(_, _, a, b, c) | Op::Select(a, b, c) => vec![a, b, c],
        }
    }

    /// The values this op reads.
    pub fn args(&self) -> Vec<ValueId> {
        self.clone().args_mut().into_iter().map(|a| *a).collect()
    }
}

/// A function the ISA specifies only up to an error bound (`approx(.ex2, x, ulps(2))`,
/// `approx(.div, x, y, ulps(2))`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApproxFn {
    /// `1/x` (rcp.approx).
    Rcp,
    /// `sqrt(x)` (sqrt.approx).
    Sqrt,
    /// `1/sqrt(x)` (rsqrt.approx).
    Rsqrt,
    /// `2^x` (ex2.approx).
    Ex2,
    /// `log2(x)` (lg2.approx).
    Lg2,
    /// `sin(x)`, x in radians (sin.approx).
    Sin,
    /// `cos(x)`, x in radians (cos.approx).
    Cos,
    /// `tanh(x)` (tanh.approx).
    Tanh,
    /// `x / y` (div.approx, div.full): the one function of two arguments.
    Div,
}

impl ApproxFn {
    /// Every function, in declaration order.
    pub const ALL: [ApproxFn; 9] = [
        ApproxFn::Rcp,
        ApproxFn::Sqrt,
        ApproxFn::Rsqrt,
        ApproxFn::Ex2,
        ApproxFn::Lg2,
        ApproxFn::Sin,
        ApproxFn::Cos,
        ApproxFn::Tanh,
        ApproxFn::Div,
    ];

    /// The name as the spec writes it (`.ex2`).
    pub fn name(self) -> &'static str {
        match self {
            ApproxFn::Rcp => "rcp",
            ApproxFn::Sqrt => "sqrt",
            ApproxFn::Rsqrt => "rsqrt",
            ApproxFn::Ex2 => "ex2",
            ApproxFn::Lg2 => "lg2",
            ApproxFn::Sin => "sin",
            ApproxFn::Cos => "cos",
            ApproxFn::Tanh => "tanh",
            ApproxFn::Div => "div",
        }
    }

    /// The most arguments a function takes.
    pub const MAX_ARITY: usize = 2;

    /// How many arguments the function takes (1, or 2 for `div`).
    pub fn arity(self) -> usize {
        match self {
            ApproxFn::Div => 2,
            _ => 1,
        }
    }

    /// Parses a spec name (`rcp`, `ex2`, ...).
    pub fn from_name(s: &str) -> Option<ApproxFn> {
        ApproxFn::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// The error the ISA allows an approximation.
///
/// An absolute or relative bound never excludes the two values of the format next to the
/// exact `f(x)` (its roundings down and up): where the bound is finer than the format (a
/// relative error on a subnormal or overflowing result), no result could meet it, and the
/// format's own resolution is what a stated error can mean (docs/ambiguities.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// At most this many encodings (ulps) away from the correctly rounded (RN) result.
    Ulps(u32),
    /// `|y - f(x)| <= 2^k` (the field is `k`, e.g. `-22`).
    AbsErr(f64),
    /// `|y - f(x)| <= 2^k * |f(x)|`.
    RelErr(f64),
}

/// What a destination part may hold: the accept set, as a tree over run-time conditions.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Exactly these bits.
    Exact(ValueId),
    /// Any NaN of the format.
    AnyNan(Format),
    /// Any of these values.
    OneOf(Vec<ValueId>),
    /// `cond ? then : else`, decided at run time.
    Select(ValueId, Box<Outcome>, Box<Outcome>),
    /// Any value of the format within `bound` of `func(args)` computed exactly; never NaN.
    /// With `ftz`, a subnormal in that range is replaced by the zero of its sign.
    Within {
        /// The function approximated.
        func: ApproxFn,
        /// Its arguments (`func.arity()` of them).
        args: Vec<ValueId>,
        /// Format of the arguments and of the result.
        format: Format,
        /// The allowed error.
        bound: Bound,
        /// Whether results are flushed to sign-preserving zero.
        ftz: bool,
    },
    /// Any bits at all ("best effort" outside a stated range).
    Any(Format),
}

impl Outcome {
    /// The leaves of the tree (every outcome but `Select`), in order.
    pub fn leaves<'a>(&'a self, out: &mut Vec<&'a Outcome>) {
        match self {
            Outcome::Select(_, a, b) => {
                a.leaves(out);
                b.leaves(out);
            }
            leaf => out.push(leaf),
        }
    }

    /// Every value the tree reads.
    pub fn values(&self, out: &mut Vec<ValueId>) {
        match self {
            Outcome::Exact(v) => out.push(*v),
            Outcome::AnyNan(_) | Outcome::Any(_) => {}
            Outcome::Within { args, .. } => out.extend(args),
            Outcome::OneOf(vs) => out.extend(vs),
            Outcome::Select(c, a, b) => {
                out.push(*c);
                a.values(out);
                b.values(out);
            }
        }
    }
}

/// How the bits of a destination part are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// A predicate (one bit).
    Pred,
    /// Raw bits.
    Bits,
    /// A floating-point value.
    Float(Format),
}

/// One independently specified range of a destination (a lane, or the whole register).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// Lowest bit of the range in the destination register.
    pub lo: u32,
    /// Width of the range.
    pub width: u32,
    /// How to read it.
    pub kind: PartKind,
    /// What it may hold.
    pub outcome: Outcome,
}

/// A destination operand and its parts, which tile it from bit 0 upward.
#[derive(Clone, Debug, PartialEq)]
pub struct Dest {
    /// The operand name in the form (`d`, `p`).
    pub name: String,
    /// Register width.
    pub width: u32,
    /// The parts, lowest first.
    pub parts: Vec<Part>,
    /// Whether the parts are bit ranges the spec assigned (`d[63:32]`) rather than lanes.
    pub by_range: bool,
}

impl Dest {
    /// How part `i` is named in messages: `d` for a one-part destination, `d[1]` for a lane,
    /// `d[63:32]` for a bit range.
    pub fn part_name(&self, i: usize) -> String {
        match self.parts.get(i) {
            Some(p) if self.by_range => format!("{}[{}:{}]", self.name, p.lo + p.width - 1, p.lo),
            _ if self.parts.len() > 1 => format!("{}[{i}]", self.name),
            _ => self.name.clone(),
        }
    }
}

/// A lowered instruction variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Source operand widths, in operand order.
    pub input_widths: Vec<u32>,
    /// The ops; op `i` defines value `i`.
    pub ops: Vec<Op>,
    /// Width of each value.
    pub widths: Vec<u32>,
    /// The destinations.
    pub dests: Vec<Dest>,
}
