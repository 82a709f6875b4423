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
    /// C's `fmod`: `a - trunc(a / b) * b`, exact ([`semfuzz_fp::fmod`]).
    Fmod(Format, ValueId, ValueId),
    /// Conversion from the first format to the second.
    Cvt(Format, Format, Round, ValueId),
    /// A float rounded to an integral value in its own format (IEEE `roundToIntegral`).
    RoundInt(Format, Round, ValueId),
    /// A float of format `from` rounded to an integer and converted to a `width`-bit integer
    /// (two's complement when `signed`), saturating at the ends of the integer range; a NaN
    /// gives 0 ([`semfuzz_fp::to_int`]).
    FloatToInt {
        /// The source format.
        from: Format,
        /// The rounding to an integer.
        round: Round,
        /// Width of the result.
        width: u32,
        /// Whether the result is two's complement.
        signed: bool,
        /// The converted value.
        value: ValueId,
    },
    /// A `width`-bit integer (two's complement when `signed`) converted to format `to`,
    /// correctly rounded ([`semfuzz_fp::from_int`]).
    IntToFloat {
        /// Width of the source.
        width: u32,
        /// Whether the source is two's complement.
        signed: bool,
        /// The result format.
        to: Format,
        /// The rounding.
        round: Round,
        /// The converted value.
        value: ValueId,
    },
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
    /// Unsigned quotient; a zero divisor gives all ones (SMT-LIB's `bvudiv`).
    BvUDiv(u32, ValueId, ValueId),
    /// Unsigned remainder; a zero divisor gives the dividend (SMT-LIB's `bvurem`).
    BvURem(u32, ValueId, ValueId),
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
    /// A value chosen from the accept set of [`Program::choices`]`[k]`: an intermediate result
    /// the ISA leaves open (a NaN's payload) that a later instruction of a PTX function reads.
    /// Never in an instruction variant, whose choices stay in its outcomes.
    Choose(u16),
}

/// A format of `width` bits for sizing a choice of any bits (LLVM IR's `undef`, an integer's
/// `any_value`): the evaluator and the encoding accept every pattern of an [`Outcome::Any`],
/// so only its width matters. `None` below 4 bits, where no IEEE format fits.
pub fn any_bits_format(width: u32) -> Option<Format> {
    match width {
        64 => Some(Format::F64),
        63 => Some(Format::ieee(3, 60)),
        4..=62 => Some(Format::ieee(2, width - 2)),
        _ => None,
    }
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
            Op::Input(_) | Op::Choose(_) => {
                unreachable!("inputs and choices are supplied by the evaluator")
            }
            Op::Const(c) => *c,
            Op::Add(f, r, a, b) => fp::add(*f, g(a), g(b), *r),
            Op::Sub(f, r, a, b) => fp::sub(*f, g(a), g(b), *r),
            Op::Mul(f, r, a, b) => fp::mul(*f, g(a), g(b), *r),
            Op::Div(f, r, a, b) => fp::div(*f, g(a), g(b), *r),
            Op::Fma(f, r, a, b, c) => fp::fma(*f, g(a), g(b), g(c), *r),
            Op::Sqrt(f, r, a) => fp::sqrt(*f, g(a), *r),
            Op::Fmod(f, a, b) => fp::fmod(*f, g(a), g(b)),
            Op::Cvt(from, to, r, a) => fp::convert(*from, *to, g(a), *r),
            Op::RoundInt(f, r, a) => fp::round_to_integral(*f, g(a), *r),
            Op::FloatToInt {
                from,
                round,
                width,
                signed,
                value,
            } => fp::to_int(*from, g(value), *round, *width, *signed),
            Op::IntToFloat {
                width,
                signed,
                to,
                round,
                value,
            } => fp::from_int(*to, g(value), *width, *signed, *round),
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
            Op::BvUDiv(w, a, b) => g(a).checked_div(g(b)).unwrap_or(mask(*w)),
            Op::BvURem(_, a, b) => g(a).checked_rem(g(b)).unwrap_or(g(a)),
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
            Op::Input(_) | Op::Const(_) | Op::Choose(_) => vec![],
            Op::Sqrt(_, _, a)
            | Op::Cvt(_, _, _, a)
            | Op::RoundInt(_, _, a)
            | Op::Class(_, _, a)
            | Op::Not(_, a) => vec![a],
            Op::Extract { value, .. }
            | Op::Shl(_, value, _)
            | Op::Shr(_, value, _)
            | Op::FloatToInt { value, .. }
            | Op::IntToFloat { value, .. } => vec![value],
            Op::Add(_, _, a, b)
            | Op::Sub(_, _, a, b)
            | Op::Mul(_, _, a, b)
            | Op::Div(_, _, a, b)
            | Op::Fmod(_, a, b)
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
            | Op::BvUDiv(_, a, b)
            | Op::BvURem(_, a, b)
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

    /// Whether the op on known operands may be replaced by its [`exec`](Op::exec) value: every
    /// op but inputs, choices and FP arithmetic, whose NaN results are a choice the SMT
    /// encoding leaves open.
    pub fn foldable(&self) -> bool {
        !matches!(
            self,
            Op::Input(_)
                | Op::Const(_)
                | Op::Choose(_)
                | Op::Add(..)
                | Op::Sub(..)
                | Op::Mul(..)
                | Op::Div(..)
                | Op::Fmod(..)
                | Op::Fma(..)
                | Op::Sqrt(..)
                | Op::Cvt(..)
                | Op::RoundInt(..)
        )
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
    /// LLVM IR poison, of this many bits: any bits, and a value readers of whole functions
    /// keep poisoned (LangRef "Poison Values": it propagates through the instructions that
    /// read it, `select` only from the chosen arm, `freeze` stops it).
    Poison(u32),
    /// LLVM IR immediate undefined behaviour (a division by zero), of this many bits: any
    /// bits, and a whole function that reaches it may do anything at all.
    Ub(u32),
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

    /// Replaces every value `v` the tree reads by `new_id[v]`.
    pub fn renumber(&mut self, new_id: &[ValueId]) {
        match self {
            Outcome::Exact(v) => *v = new_id[*v as usize],
            Outcome::AnyNan(_) | Outcome::Any(_) | Outcome::Poison(_) | Outcome::Ub(_) => {}
            Outcome::Within { args, .. } => args.iter_mut().for_each(|v| *v = new_id[*v as usize]),
            Outcome::OneOf(vs) => vs.iter_mut().for_each(|v| *v = new_id[*v as usize]),
            Outcome::Select(c, a, b) => {
                *c = new_id[*c as usize];
                a.renumber(new_id);
                b.renumber(new_id);
            }
        }
    }

    /// Every value the tree reads.
    pub fn values(&self, out: &mut Vec<ValueId>) {
        match self {
            Outcome::Exact(v) => out.push(*v),
            Outcome::AnyNan(_) | Outcome::Any(_) | Outcome::Poison(_) | Outcome::Ub(_) => {}
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
    /// A destination of one part covering all of it (a function's result).
    pub fn whole(name: String, width: u32, kind: PartKind, outcome: Outcome) -> Dest {
        Dest {
            name,
            width,
            parts: vec![Part {
                lo: 0,
                width,
                kind,
                outcome,
            }],
            by_range: false,
        }
    }

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
    /// What each [`Op::Choose`] may be, as an outcome over earlier values (empty for every
    /// instruction variant; a PTX function's intermediate choices otherwise).
    pub choices: Vec<Outcome>,
}

/// Builds a [`Program`] op by op: identical ops are shared, bit-level ops on constants are
/// folded, and [`Builder::finish`] drops what no destination reads. The spec lowering and the
/// PTX function reader both emit through it, so both programs get the same simplifications.
#[derive(Default)]
pub struct Builder {
    ops: Vec<Op>,
    /// The width of each value emitted so far.
    pub widths: Vec<u32>,
    /// The value of each op, where it is a constant.
    pub known: Vec<Option<u64>>,
    memo: std::collections::HashMap<(Op, u32), ValueId>,
}

impl Builder {
    /// Adds an op (or finds an identical one), folding bit-level ops on constants. FP
    /// arithmetic is never folded: its NaN results are a choice the SMT encoding leaves open.
    pub fn emit(&mut self, op: Op, width: u32) -> ValueId {
        let foldable = op.foldable();
        let op = match op {
            Op::Select(c, a, b) if self.known[c as usize].is_some() => {
                return if self.known[c as usize] != Some(0) {
                    a
                } else {
                    b
                };
            }
            Op::Select(_, a, b) if a == b => return a,
            // A product with a known zero is zero and a sum with one is the other operand:
            // a CTA's row offset `%ctaid.x * stride` at a fixed `%ctaid` of 0, which would
            // otherwise keep every address of the row symbolic.
            Op::BvMul(_, a, _) if self.known[a as usize] == Some(0) => return a,
            Op::BvMul(_, _, b) if self.known[b as usize] == Some(0) => return b,
            Op::BvAdd(_, a, b) if self.known[a as usize] == Some(0) => return b,
            Op::BvAdd(_, a, b) if self.known[b as usize] == Some(0) => return a,
            // A bit-wise op with an absorbing or neutral constant: a guarded store's byte
            // select `guard & (offset == k)` at a known other offset, which would otherwise
            // stay a select on every byte of the block for every thread of a CTA.
            Op::And(_, a, _) if self.known[a as usize] == Some(0) => return a,
            Op::And(_, _, b) if self.known[b as usize] == Some(0) => return b,
            Op::And(w, a, b) if self.known[a as usize] == Some(mask(w)) => return b,
            Op::And(w, a, b) if self.known[b as usize] == Some(mask(w)) => return a,
            Op::Or(_, a, b) if self.known[a as usize] == Some(0) => return b,
            Op::Or(_, a, b) if self.known[b as usize] == Some(0) => return a,
            Op::Or(w, a, _) if self.known[a as usize] == Some(mask(w)) => return a,
            Op::Or(w, _, b) if self.known[b as usize] == Some(mask(w)) => return b,
            op if foldable && op.args().iter().all(|a| self.known[*a as usize].is_some()) => {
                // The op over its own few arguments, renumbered from 0: copying every known
                // value per fold made a CTA's read (millions of ops) quadratic.
                let mut local = op.clone();
                let mut vals = Vec::with_capacity(4);
                for a in local.args_mut() {
                    vals.push(self.known[*a as usize].unwrap_or(0));
                    *a = (vals.len() - 1) as ValueId;
                }
                Op::Const(local.exec(&vals) & mask(width))
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

    /// The constant `v` (masked to `width` bits).
    pub fn konst(&mut self, v: u64, width: u32) -> ValueId {
        self.emit(Op::Const(v & mask(width)), width)
    }

    /// The op that defines `v`.
    pub fn op(&self, v: ValueId) -> &Op {
        &self.ops[v as usize]
    }

    /// The program: ops no destination or live choice depends on are dropped and the rest
    /// renumbered. Also returns, for each choice the program keeps, its index in `choices`.
    pub fn finish(
        self,
        input_widths: Vec<u32>,
        mut dests: Vec<Dest>,
        choices: Vec<Outcome>,
    ) -> (Program, Vec<usize>) {
        let mut live = vec![false; self.ops.len()];
        let mut stack = Vec::new();
        for d in &dests {
            for p in &d.parts {
                p.outcome.values(&mut stack);
            }
        }
        while let Some(v) = stack.pop() {
            if !std::mem::replace(&mut live[v as usize], true) {
                if let Op::Choose(k) = self.ops[v as usize] {
                    choices[k as usize].values(&mut stack);
                }
                stack.extend(self.ops[v as usize].args());
            }
        }
        // Choices no live op reads are dropped, the rest renumbered in order.
        let mut new_choice = vec![u16::MAX; choices.len()];
        let mut kept = 0;
        for (i, op) in self.ops.iter().enumerate() {
            if let (true, Op::Choose(k)) = (live[i], op) {
                new_choice[*k as usize] = kept;
                kept += 1;
            }
        }
        let mut new_id = vec![0; self.ops.len()];
        let mut ops = Vec::new();
        let mut widths = Vec::new();
        for (i, mut op) in self.ops.into_iter().enumerate() {
            if live[i] {
                new_id[i] = ops.len() as ValueId;
                for a in op.args_mut() {
                    *a = new_id[*a as usize];
                }
                if let Op::Choose(k) = &mut op {
                    *k = new_choice[*k as usize];
                }
                ops.push(op);
                widths.push(self.widths[i]);
            }
        }
        for d in &mut dests {
            for p in &mut d.parts {
                p.outcome.renumber(&new_id);
            }
        }
        let kept: Vec<usize> = (0..choices.len())
            .filter(|k| new_choice[*k] != u16::MAX)
            .collect();
        let mut choices: Vec<Outcome> = choices
            .into_iter()
            .zip(&new_choice)
            .filter(|(_, n)| **n != u16::MAX)
            .map(|(c, _)| c)
            .collect();
        for c in &mut choices {
            c.renumber(&new_id);
        }
        let program = Program {
            input_widths,
            ops,
            widths,
            dests,
            choices,
        };
        (program, kept)
    }

    /// Bits `lo .. lo + width` of `v` (`v` itself when that is all of it).
    pub fn extract(&mut self, v: ValueId, lo: u32, width: u32) -> ValueId {
        if lo == 0 && self.widths[v as usize] == width {
            v
        } else {
            self.emit(
                Op::Extract {
                    value: v,
                    lo,
                    width,
                },
                width,
            )
        }
    }

    /// `hi` above `lo`, one value as wide as both.
    pub fn concat(&mut self, hi: ValueId, lo: ValueId) -> ValueId {
        let (hw, lw) = (self.widths[hi as usize], self.widths[lo as usize]);
        self.emit(
            Op::Concat {
                hi,
                lo,
                lo_width: lw,
            },
            hw + lw,
        )
    }

    /// Inlines program `p` (an instruction variant) over `args`, one value per input: one
    /// [`Inlined`] per destination, its parts concatenated. A part whose outcome is not one
    /// exact value becomes an [`Op::Choose`] whose outcome is pushed onto `choices`, so a later
    /// instruction can read it; the readers of whole functions (PTX, LLVM IR) both compose
    /// instructions this way. Where the outcome reaches a [`Outcome::Poison`] or
    /// [`Outcome::Ub`] leaf, the condition under which it does is returned beside the value, so
    /// that a reader can carry poison on as LangRef says rather than as the leaf's any bits.
    pub fn inline(
        &mut self,
        p: &Program,
        args: &[ValueId],
        choices: &mut Vec<Outcome>,
    ) -> Vec<Inlined> {
        let mut map: Vec<ValueId> = Vec::with_capacity(p.ops.len());
        for (k, op) in p.ops.iter().enumerate() {
            let id = match op {
                Op::Input(n) => args[*n as usize],
                op => {
                    let mut op = op.clone();
                    for a in op.args_mut() {
                        *a = map[*a as usize];
                    }
                    self.emit(op, p.widths[k])
                }
            };
            map.push(id);
        }
        let mut out = Vec::new();
        for d in &p.dests {
            let mut value: Option<ValueId> = None;
            let (mut poison, mut ub) = (None, None);
            for part in &d.parts {
                let mut o = part.outcome.clone();
                o.renumber(&map);
                // A select on a condition the arguments decide (a constant `bfe` position) is
                // its taken branch: an exact one is a value, not a choice.
                while let Outcome::Select(c, then, other) = o {
                    o = match self.known[c as usize] {
                        Some(0) => *other,
                        Some(_) => *then,
                        None => Outcome::Select(c, then, other),
                    };
                    if matches!(o, Outcome::Select(c, ..) if self.known[c as usize].is_none()) {
                        break;
                    }
                }
                let v = match o {
                    Outcome::Exact(v) => v,
                    o => {
                        let p = self.reaches(&o, |l| matches!(l, Outcome::Poison(_)));
                        poison = self.or_pred(poison, p);
                        let u = self.reaches(&o, |l| matches!(l, Outcome::Ub(_)));
                        ub = self.or_pred(ub, u);
                        let k = choices.len();
                        choices.push(o);
                        self.emit(Op::Choose(k as u16), part.width)
                    }
                };
                value = Some(match value {
                    None => v,
                    Some(lo) => self.concat(v, lo),
                });
            }
            let kind = match d.parts.as_slice() {
                [one] => one.kind,
                _ => PartKind::Bits,
            };
            out.push(Inlined {
                value: value.expect("a destination has parts"),
                kind,
                poison,
                ub,
            });
        }
        out
    }

    /// The condition (one bit) under which `o` reaches a leaf `is_leaf` accepts; `None` where
    /// it never does.
    fn reaches(&mut self, o: &Outcome, is_leaf: fn(&Outcome) -> bool) -> Option<ValueId> {
        match o {
            Outcome::Select(c, a, b) => {
                let (a, b) = (self.reaches(a, is_leaf), self.reaches(b, is_leaf));
                if a.is_none() && b.is_none() {
                    return None;
                }
                let zero = self.konst(0, 1);
                Some(self.emit(Op::Select(*c, a.unwrap_or(zero), b.unwrap_or(zero)), 1))
            }
            leaf if is_leaf(leaf) => Some(self.konst(1, 1)),
            _ => None,
        }
    }

    /// `a || b` of two optional one-bit conditions (`None`: never).
    pub fn or_pred(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (Some(a), Some(b)) => Some(self.emit(Op::Or(1, a, b), 1)),
            (a, b) => a.or(b),
        }
    }

    /// A function result's outcome: a choice (of `choices`, as [`Builder::inline`] made them)
    /// that flows into it unchanged through selects stays a choice of the result, as in a
    /// single instruction.
    pub fn outcome_of(&self, v: ValueId, choices: &[Outcome]) -> Outcome {
        match self.op(v) {
            Op::Choose(k) => choices[*k as usize].clone(),
            Op::Select(c, a, b) if self.has_choice_leaf(*a) || self.has_choice_leaf(*b) => {
                Outcome::Select(
                    *c,
                    Box::new(self.outcome_of(*a, choices)),
                    Box::new(self.outcome_of(*b, choices)),
                )
            }
            _ => Outcome::Exact(v),
        }
    }

    fn has_choice_leaf(&self, v: ValueId) -> bool {
        match self.op(v) {
            Op::Choose(_) => true,
            Op::Select(_, a, b) => self.has_choice_leaf(*a) || self.has_choice_leaf(*b),
            _ => false,
        }
    }
}

/// One destination of an instruction inlined by [`Builder::inline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inlined {
    /// Its bits, the parts concatenated.
    pub value: ValueId,
    /// How they read (`Bits` for a destination of several parts).
    pub kind: PartKind,
    /// Where some part of it is LLVM IR poison (one bit); `None`: never.
    pub poison: Option<ValueId>,
    /// Where computing it is immediate undefined behaviour (one bit); `None`: never.
    pub ub: Option<ValueId>,
}

/// An input or a result of a whole function read into one program (a PTX function, an LLVM
/// IR function).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Its name: a parameter (`fadd_param_0`, `%a`), a range of one (`p[8..16]`), or memory a
    /// pointer parameter names (`[fadd_param_0+4]`).
    pub name: String,
    /// Its width in bits.
    pub width: u32,
    /// How its bits read.
    pub kind: PartKind,
}
