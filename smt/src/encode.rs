//! The variant IR as Z3 terms.
//!
//! Every IR value is a [`Val`]: its bits, and where the value is a floating-point number, a
//! term of the FP sort that the solver reads directly. Values stay in the FP sort through the
//! FP operations and the sign operations the specs write as bits (`neg` is an `xor` with the
//! sign bit, `abs` an `and` without it, a NaN choice a NaN), and a result is compared with
//! SMT `=` on FP terms (exact bits apart from NaN), its NaN-ness and NaN bits separately
//! ([`eq_bits`]). Bits are made only where an operation reads bits: there a number's
//! encoding is `fp.to_ieee_bv` ([`ToBits::Native`]) or a fresh bit-vector defined by
//! `(= ((_ to_fp e s) b) r)` ([`ToBits::Fresh`]), and a NaN is a fresh bit-vector constrained
//! to the NaN encodings ([`NanBits::Free`]) or the default NaN ([`NanBits::Pinned`]).
//!
//! Why: a solver bit-blasts an FP operation into a circuit over the unpacked sign, exponent
//! and significand. Two programs that differ by sign operations (`-a * -b` against `a * b`)
//! give two circuits over the *same* significand bits, which the solver's structural hashing
//! merges, so the query is decided in milliseconds; the same operations through bits (each
//! value re-packed with a NaN choice and unpacked again) give circuits over different bits,
//! which no solver related in minutes (issue 18, docs/BENCHMARKS.md).
//!
//! A new [`Op`] is one arm of [`Encoder::op`]: its result as bits over `self.bits(k)` of its
//! operands (`Val::bits_term`), or as an FP term over `self.fp(k, format)` with
//! [`Val::float`] when it is a floating-point operation.

use crate::fpbits::{fp_from_bits, fp_from_int, fp_sort, rounding_mode, Rm};
use crate::lemma::{self, LemmaOp};
use semfuzz_fp::{Format, Round};
use semfuzz_spec::ir::{
    mask, ApproxFn, Bound, Class, Cmp, Op, Outcome, PartKind, Program, Shift, ValueId,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use z3::ast::{Ast, Bool, Float, BV};

/// One destination part as a Z3 variable plus what the spec allows it to be.
pub struct EncodedPart {
    /// The part's bits.
    pub result: BV,
    /// The outcome tree as a formula over `result`.
    pub allowed: Bool,
    /// How to read the bits.
    pub kind: PartKind,
    /// The part's value: the outcome tree's run-time selects over its leaves, an exact leaf
    /// its value, a leaf with a choice (`any_nan`, `one_of`, a bound) a fresh variable listed
    /// in `choices`. A sequence passes it to the next instruction, which keeps the structure
    /// (and the FP terms) visible.
    pub term: Val,
    /// The fresh variables of `term`.
    pub choices: Vec<Choice>,
}

/// The choices [`Encoder::choice_term`] names as it meets an outcome tree's leaves: variables
/// `{name}{n}`, `n` counting up, each read in the format `hint`.
struct Leaves {
    name: String,
    n: usize,
    choices: Vec<Choice>,
    hint: Option<Format>,
}

/// A nondeterministic leaf of an outcome as a fresh variable.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The variable.
    pub var: BV,
    /// What it may be.
    pub allowed: Bool,
    /// One value it may always take, when one is known without solving (the default NaN
    /// for `any_nan`, the first of a `one_of`, the function itself for an approximation Z3
    /// treats as uninterpreted).
    pub witness: Option<BV>,
    /// Whether it is an `any_nan` choice (whose witness is the default NaN).
    pub nan: bool,
}

/// A program as formulas over free input variables.
pub struct Encoded {
    /// One variable per source operand.
    pub inputs: Vec<BV>,
    /// The destination parts, in order.
    pub parts: Vec<EncodedPart>,
    /// Every IR value, by [`ValueId`].
    pub vals: Vec<Val>,
    /// How values became bits, and what that defined.
    pub ctx: Rc<Ctx>,
    /// The fresh variables of the program's intermediate choices ([`Op::Choose`]), each
    /// with what it may be; [`Encoded::constraints`] requires every one to be allowed.
    pub choices: Vec<Choice>,
}

impl Encoded {
    /// Every IR value's bits, by [`ValueId`]. Making bits may define fresh variables: read
    /// [`Ctx::definitions`] after.
    pub fn values(&self) -> Vec<BV> {
        self.vals.iter().map(|v| v.bits(&self.ctx)).collect()
    }

    /// Everything that must hold: the definitions and every part's outcome.
    pub fn constraints(&self) -> Bool {
        let mut terms: Vec<Bool> = self.parts.iter().map(|p| p.allowed.clone()).collect();
        terms.extend(self.choices.iter().map(|c| c.allowed.clone()));
        terms.extend(self.ctx.definitions());
        Bool::and(&terms)
    }
}

fn rm(r: Round) -> Rm {
    match r {
        Round::NearestEven => Rm::NearestEven,
        Round::TowardZero => Rm::TowardZero,
        Round::Down => Rm::Down,
        Round::Up => Rm::Up,
        Round::NearestAway => Rm::NearestAway,
    }
}

pub(crate) fn float(bv: &BV, f: Format) -> Float {
    fp_from_bits(bv, f.exp_bits(), f.precision())
}

fn bit(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

pub(crate) fn truth(bv: &BV) -> Bool {
    bv.eq(BV::from_u64(1, 1))
}

/// Per input of `program`: whether its bits are only ever read as floating-point numbers
/// (arithmetic, comparisons, classification other than signalling-NaN, through lane
/// extracts), never copied to a destination or used as bits. Such an input cannot tell one
/// NaN encoding from another, so a NaN it receives may be any fixed one.
pub fn payload_blind_inputs(program: &Program) -> Vec<bool> {
    let n = program.ops.len();
    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, op) in program.ops.iter().enumerate() {
        for a in op.args() {
            uses[a as usize].push(i);
        }
    }
    let mut observed = vec![false; n];
    for d in &program.dests {
        for p in &d.parts {
            let mut vs = Vec::new();
            p.outcome.values(&mut vs);
            vs.into_iter().for_each(|v| observed[v as usize] = true);
        }
    }
    // Ops only use earlier values, so deciding from the last op backwards sees every use first.
    let mut blind = vec![false; n];
    for v in (0..n).rev() {
        blind[v] = !observed[v]
            && uses[v].iter().all(|&u| match &program.ops[u] {
                Op::Add(..) | Op::Sub(..) | Op::Mul(..) | Op::Div(..) | Op::Fma(..) => true,
                Op::Fmod(..) => true,
                Op::Sqrt(..) | Op::Cvt(..) | Op::RoundInt(..) | Op::FCmp(..) => true,
                Op::FloatToInt { .. } => true,
                Op::Class(_, c, _) => *c != Class::SignalingNan,
                Op::Extract { .. } => blind[u],
                _ => false,
            });
    }
    (0..program.input_widths.len())
        .map(|k| {
            program
                .ops
                .iter()
                .enumerate()
                .filter(|(_, op)| **op == Op::Input(k as u16))
                .all(|(v, _)| blind[v])
        })
        .collect()
}

/// Whether `bv` is a NaN encoding of `f`.
pub fn is_nan(bv: &BV, f: Format) -> Bool {
    float(bv, f).is_nan()
}

/// How the bits of a NaN produced by a floating-point op are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanBits {
    /// Any NaN encoding (a fresh variable): what the ISA permits of an op whose NaN the spec
    /// does not pin. The consistency check uses this, so a spec whose outcome leaks such bits
    /// fails it.
    Free,
    /// The format's default NaN: no fresh variables, so an outcome can be negated without a
    /// quantifier. Sound for proofs over specs that pass the consistency check, whose outcomes
    /// never depend on those bits.
    Pinned,
}

/// How a floating-point number becomes its IEEE bits, where an operation reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToBits {
    /// Z3's `fp.to_ieee_bv`: the simplifier sees through it, so Z3 in process solves fastest
    /// this way; but it is Z3's extension of SMT-LIB, which cvc5 and bitwuzla do not parse.
    Native,
    /// A fresh bit-vector `b` with `(= ((_ to_fp e s) b) r)`, listed in [`Ctx::fresh`]:
    /// standard SMT-LIB that z3, cvc5 and bitwuzla all read. `b` is the one encoding of a
    /// number `r`; a NaN `r` leaves it any NaN encoding, which no formula reads (a NaN result
    /// is the op's NaN choice, as in `Native`).
    Fresh,
}

/// The state of one encoding (one program, or one side of a rule, whose instructions share
/// it): how numbers and NaNs become bits, and the fresh variables that made.
pub struct Ctx {
    nan: NanBits,
    to_bits: ToBits,
    prefix: String,
    state: RefCell<CtxState>,
}

#[derive(Default)]
struct CtxState {
    definitions: Vec<Bool>,
    fresh: Vec<BV>,
    /// Each number's bits and each NaN-able result's NaN bits, made once per FP term.
    numbers: HashMap<Float, BV>,
    nans: HashMap<Float, BV>,
}

impl Ctx {
    /// A context whose fresh variables' names start with `prefix`.
    pub fn new(prefix: &str, nan: NanBits, to_bits: ToBits) -> Rc<Ctx> {
        Rc::new(Ctx {
            nan,
            to_bits,
            prefix: prefix.to_string(),
            state: RefCell::default(),
        })
    }

    /// How op NaNs are encoded.
    pub fn nan_bits(&self) -> NanBits {
        self.nan
    }

    /// How numbers become bits.
    pub fn to_bits(&self) -> ToBits {
        self.to_bits
    }

    /// Definitions of the fresh variables made so far (numbers' bits under `Fresh`, op NaNs
    /// under `Free`).
    pub fn definitions(&self) -> Vec<Bool> {
        self.state.borrow().definitions.clone()
    }

    /// The fresh bit-vectors [`ToBits::Fresh`] and [`NanBits::Free`] made so far (defined in
    /// [`Ctx::definitions`]), so that a caller can quantify them with the values they
    /// depend on.
    pub fn fresh(&self) -> Vec<BV> {
        self.state.borrow().fresh.clone()
    }

    fn define(&self, name: &str, f: Format, definition: impl Fn(&BV) -> Bool) -> BV {
        let mut st = self.state.borrow_mut();
        let b = BV::new_const(
            format!("{}{name}{}", self.prefix, st.fresh.len()),
            f.width(),
        );
        st.definitions.push(definition(&b));
        st.fresh.push(b.clone());
        b
    }

    /// The bits of `r` where it is a number (a NaN `r` leaves them unread).
    fn number_bits(&self, r: &Float, f: Format) -> BV {
        if self.to_bits == ToBits::Native {
            return r.to_ieee_bv();
        }
        if let Some(b) = self.state.borrow().numbers.get(r) {
            return b.clone();
        }
        let b = self.define("b", f, |b| float(b, f).eq(r));
        self.state.borrow_mut().numbers.insert(r.clone(), b.clone());
        b
    }

    /// The bits of the op result `r` where it is a NaN.
    fn nan_of(&self, r: &Float, f: Format) -> BV {
        if self.nan == NanBits::Pinned {
            return BV::from_u64(f.default_nan(), f.width());
        }
        if let Some(b) = self.state.borrow().nans.get(r) {
            return b.clone();
        }
        let b = self.define("v", f, |b| float(b, f).is_nan());
        self.state.borrow_mut().nans.insert(r.clone(), b.clone());
        b
    }
}

/// An IR value: its bits and, where it is a floating-point number, its FP term. Cheap to
/// clone (shared).
#[derive(Clone, Debug)]
pub struct Val(Rc<Kind>);

#[derive(Debug)]
enum Kind {
    /// Known bits.
    Const(u64, u32),
    /// Bits as a term.
    Bits(BV),
    /// A predicate as a formula (1 bit); `nan_of` when it is `isNaN(z)`.
    Pred { b: Bool, nan_of: Option<Float> },
    /// The result of an FP operation (its NaN bits are the context's).
    Float(Format, Fp),
    /// Any NaN encoding of the format: a choice variable constrained elsewhere.
    Nan(Format, BV),
    /// `a ^ k`: a sign flip where `k` is a sign bit.
    Xor(Val, u64),
    /// `a & k`: an absolute value where `k` is all bits but the sign.
    And(Val, u64),
    /// `a | k`: a quieted NaN where `k` is the quiet bit.
    Or(Val, u64),
    /// `c ? a : b`, `nan_of` when `c` is `isNaN(z)`.
    Select {
        c: Bool,
        nan_of: Option<Float>,
        a: Val,
        b: Val,
    },
    /// `hi` above `lo`.
    Concat(Val, Val),
}

/// A value's FP term in one format.
#[derive(Clone, Debug)]
pub struct Fp {
    /// The term.
    x: Float,
    /// Terms `z` such that `x` is a NaN when `z` is (`x` itself among them): an outcome
    /// `isNaN(z) ? any NaN : x` is `x` in the FP sort.
    sources: Rc<Vec<Float>>,
    /// Whether `x` is the NaN.
    nan: bool,
    /// The number this one is the negation of: sign operations cancel and move through
    /// products without reaching the solver.
    negated: Option<Rc<Fp>>,
    /// How `x` was computed, where a lemma may rewrite it (`lemma.rs`).
    origin: Option<Rc<Origin>>,
}

/// How an FP term was computed, as far as the lemmas of `lemma.rs` need to see.
#[derive(Debug)]
enum Origin {
    /// An exact conversion of this number of a narrower format (`cvt.f32.f16`).
    Widened(Format, Fp),
    /// The operation rounded to nearest even in the term's format, on these operands (as
    /// the operation read them, negations included).
    Nearest(LemmaOp, Vec<Fp>),
}

impl Fp {
    fn leaf(x: Float) -> Fp {
        Fp {
            sources: Rc::new(vec![x.clone()]),
            x,
            nan: false,
            negated: None,
            origin: None,
        }
    }

    /// `x`, NaN whenever one of `args` is.
    fn from_args(x: Float, args: &[&Fp]) -> Fp {
        let mut sources = vec![x.clone()];
        for a in args {
            sources.extend(a.sources.iter().cloned());
        }
        Fp {
            x,
            sources: Rc::new(sources),
            nan: args.iter().any(|a| a.nan),
            negated: None,
            origin: None,
        }
    }

    fn with_origin(mut self, origin: Origin) -> Fp {
        self.origin = Some(Rc::new(origin));
        self
    }

    /// This number as the exact widening of a number of `narrow` (through negations), if it
    /// is one: that number.
    fn narrowed(&self, narrow: Format) -> Option<Fp> {
        if let Some(y) = &self.negated {
            return y.narrowed(narrow).map(|x| x.neg());
        }
        match self.origin.as_deref() {
            Some(Origin::Widened(f, x)) if *f == narrow => Some(x.clone()),
            _ => None,
        }
    }

    fn nan(f: Format) -> Fp {
        Fp::leaf(Float::nan(&fp_sort(f.exp_bits(), f.precision()))).with_nan()
    }

    fn with_nan(mut self) -> Fp {
        self.nan = true;
        self
    }

    /// `-x`; `-(-y)` is `y`.
    fn neg(&self) -> Fp {
        if let Some(y) = &self.negated {
            return (**y).clone();
        }
        let mut r = Fp::from_args(self.x.unary_neg(), &[self]);
        r.negated = Some(Rc::new(self.clone()));
        r
    }

    /// `|x|`; `|-y|` is `|y|`.
    fn abs(&self) -> Fp {
        let base = self.negated.as_deref().unwrap_or(self);
        Fp::from_args(base.x.unary_abs(), &[self])
    }

    /// The number this is the negation of, or itself, and whether it was negated.
    fn unsigned(&self) -> (&Fp, bool) {
        match &self.negated {
            Some(y) => (y, true),
            None => (self, false),
        }
    }
}

/// The rounding that mirrors `r` under negation: `RD(-x) = -RU(x)`.
fn mirrored(r: Round) -> Round {
    match r {
        Round::Down => Round::Up,
        Round::Up => Round::Down,
        r => r,
    }
}

fn sign_bit(w: u32) -> u64 {
    1 << (w - 1)
}

impl Val {
    fn new(kind: Kind) -> Val {
        Val(Rc::new(kind))
    }

    /// Bits as a term.
    pub fn bits_term(b: BV) -> Val {
        Val::new(Kind::Bits(b))
    }

    /// Known bits.
    pub fn konst(v: u64, width: u32) -> Val {
        Val::new(Kind::Const(v & mask(width), width))
    }

    /// The result of an FP operation over the FP terms `args`: a NaN exactly when the
    /// operation says, with the context's NaN bits.
    pub fn float(f: Format, x: Float, args: &[&Fp]) -> Val {
        Val::new(Kind::Float(f, Fp::from_args(x, args)))
    }

    /// A number of `f`.
    fn number(f: Format, x: Fp) -> Val {
        Val::new(Kind::Float(f, x))
    }

    /// A predicate.
    fn pred_of(b: Bool) -> Val {
        Val::new(Kind::Pred { b, nan_of: None })
    }

    /// The width in bits.
    pub fn width(&self) -> u32 {
        match &*self.0 {
            Kind::Const(_, w) => *w,
            Kind::Bits(b) => b.get_size(),
            Kind::Pred { .. } => 1,
            Kind::Float(f, _) | Kind::Nan(f, _) => f.width(),
            Kind::Xor(a, _) | Kind::And(a, _) | Kind::Or(a, _) => a.width(),
            Kind::Select { a, .. } => a.width(),
            Kind::Concat(hi, lo) => hi.width() + lo.width(),
        }
    }

    fn known(&self) -> Option<u64> {
        match &*self.0 {
            Kind::Const(v, _) => Some(*v),
            _ => None,
        }
    }

    /// The format the value is a number of, where it says (an FP result, a NaN, a sign
    /// operation on one).
    fn format(&self) -> Option<Format> {
        match &*self.0 {
            Kind::Float(f, _) | Kind::Nan(f, _) => Some(*f),
            Kind::Xor(a, _) | Kind::And(a, _) => a.format(),
            Kind::Select { a, b, .. } => a.format().or_else(|| b.format()),
            _ => None,
        }
    }

    /// The bits.
    pub fn bits(&self, ctx: &Ctx) -> BV {
        match &*self.0 {
            Kind::Const(v, w) => BV::from_u64(*v, *w),
            Kind::Bits(b) | Kind::Nan(_, b) => b.clone(),
            Kind::Pred { b, .. } => bit(b),
            Kind::Float(f, r) => {
                r.x.is_nan()
                    .ite(&ctx.nan_of(&r.x, *f), &ctx.number_bits(&r.x, *f))
            }
            Kind::Xor(a, k) => a.bits(ctx).bvxor(BV::from_u64(*k, a.width())),
            Kind::And(a, k) => a.bits(ctx).bvand(BV::from_u64(*k, a.width())),
            Kind::Or(a, k) => a.bits(ctx).bvor(BV::from_u64(*k, a.width())),
            Kind::Select { c, a, b, .. } => c.ite(&a.bits(ctx), &b.bits(ctx)),
            Kind::Concat(hi, lo) => hi.bits(ctx).concat(lo.bits(ctx)),
        }
    }

    /// A 1-bit value as a formula.
    pub fn pred(&self, ctx: &Ctx) -> Bool {
        match &*self.0 {
            Kind::Pred { b, .. } => b.clone(),
            Kind::Const(v, _) => Bool::from_bool(*v & 1 == 1),
            Kind::Select { c, a, b, .. } => c.ite(&a.pred(ctx), &b.pred(ctx)),
            _ => truth(&self.bits(ctx)),
        }
    }

    /// The bits where the value is a NaN: an op result's are the context's NaN bits, a
    /// select's those of the arm taken.
    fn nan_bits(&self, ctx: &Ctx) -> BV {
        match &*self.0 {
            Kind::Float(f, r) => ctx.nan_of(&r.x, *f),
            Kind::Xor(a, k) => a.nan_bits(ctx).bvxor(BV::from_u64(*k, a.width())),
            Kind::Select { c, a, b, .. } => c.ite(&a.nan_bits(ctx), &b.nan_bits(ctx)),
            _ => self.bits(ctx),
        }
    }

    fn nan_test(&self) -> Option<Float> {
        match &*self.0 {
            Kind::Pred { nan_of, .. } => nan_of.clone(),
            _ => None,
        }
    }

    /// The value as a number of `f` (whose width it has).
    pub fn fp(&self, f: Format, ctx: &Ctx) -> Fp {
        let w = f.width();
        match &*self.0 {
            Kind::Float(g, r) if *g == f => r.clone(),
            Kind::Nan(g, _) if *g == f => Fp::nan(f),
            Kind::Const(v, _) if f.is_nan(*v) => Fp::nan(f),
            Kind::Xor(a, k) if *k == sign_bit(w) => a.fp(f, ctx).neg(),
            Kind::And(a, k) if *k == mask(w - 1) => a.fp(f, ctx).abs(),
            // A number of a format with `f`'s exponent and fewer significand bits, above
            // zeros: its exact widening (bfloat's bits shifted into an f32, as LLVM widens
            // where NVPTX has no `cvt.f32.bf16`), which a lemma may narrow again.
            Kind::Concat(hi, lo) if lo.known() == Some(0) && lo.width() + 2 <= f.precision() => {
                let g = Format::ieee(f.exp_bits(), f.precision() - lo.width());
                let narrow = hi.fp(g, ctx);
                let x = narrow.x.to_fp_with_rounding_mode(
                    &rounding_mode(rm(Round::NearestEven)),
                    &fp_sort(f.exp_bits(), f.precision()),
                );
                Fp::from_args(x, &[&narrow]).with_origin(Origin::Widened(g, narrow))
            }
            Kind::Select { c, nan_of, a, b } => {
                let (fa, fb) = (a.fp(f, ctx), b.fp(f, ctx));
                // `isNaN(z) ? NaN : y` is `y` when `y` is a NaN whenever `z` is.
                let covers = |n: &Fp, y: &Fp| {
                    n.nan && nan_of.as_ref().is_some_and(|z| y.sources.contains(z))
                };
                if covers(&fa, &fb) || fa.x == fb.x {
                    return fb;
                }
                let x = c.ite(&fa.x, &fb.x);
                let sources: Vec<Float> = std::iter::once(x.clone())
                    .chain(
                        fa.sources
                            .iter()
                            .filter(|s| fb.sources.contains(s))
                            .cloned(),
                    )
                    .collect();
                Fp {
                    x,
                    sources: Rc::new(sources),
                    nan: fa.nan && fb.nan,
                    negated: None,
                    origin: None,
                }
            }
            _ => Fp::leaf(float(&self.bits(ctx), f)),
        }
    }

    /// The value with the choice variable `var` replaced by the bits `with`.
    pub fn pin(&self, var: &BV, with: &BV) -> Val {
        match &*self.0 {
            Kind::Nan(_, v) | Kind::Bits(v) if v == var => match with.as_u64() {
                Some(k) => Val::konst(k, with.get_size()),
                None => Val::bits_term(with.clone()),
            },
            Kind::Select { c, nan_of, a, b } => Val::new(Kind::Select {
                c: c.clone(),
                nan_of: nan_of.clone(),
                a: a.pin(var, with),
                b: b.pin(var, with),
            }),
            Kind::Concat(hi, lo) => Val::new(Kind::Concat(hi.pin(var, with), lo.pin(var, with))),
            _ => self.clone(),
        }
    }

    /// `c ? a : b`.
    pub fn select(c: &Val, a: &Val, b: &Val, ctx: &Ctx) -> Val {
        if let Some(k) = c.known() {
            return if k & 1 == 1 { a.clone() } else { b.clone() };
        }
        let cond = c.pred(ctx);
        if a.width() == 1
            && matches!(&*a.0, Kind::Pred { .. } | Kind::Const(..))
            && matches!(&*b.0, Kind::Pred { .. } | Kind::Const(..))
        {
            return Val::pred_of(cond.ite(&a.pred(ctx), &b.pred(ctx)));
        }
        Val::new(Kind::Select {
            c: cond,
            nan_of: c.nan_test(),
            a: a.clone(),
            b: b.clone(),
        })
    }

    /// `width` bits of the value from bit `lo`: a part of a concatenation is that part.
    pub fn extract(&self, lo: u32, width: u32, ctx: &Ctx) -> Val {
        if lo == 0 && width == self.width() {
            return self.clone();
        }
        match &*self.0 {
            Kind::Const(v, _) => Val::konst(v >> lo, width),
            Kind::Concat(hi, low) => {
                let lw = low.width();
                if lo + width <= lw {
                    low.extract(lo, width, ctx)
                } else if lo >= lw {
                    hi.extract(lo - lw, width, ctx)
                } else {
                    Val::bits_term(self.bits(ctx).extract(lo + width - 1, lo))
                }
            }
            _ => Val::bits_term(self.bits(ctx).extract(lo + width - 1, lo)),
        }
    }

    /// `hi` above `lo`.
    pub fn concat(hi: &Val, lo: &Val) -> Val {
        match (hi.known(), lo.known()) {
            (Some(h), Some(l)) => Val::konst(h << lo.width() | l, hi.width() + lo.width()),
            _ => Val::new(Kind::Concat(hi.clone(), lo.clone())),
        }
    }
}

/// Whether the bits `o` are the bits of `v`, `f` the format `o` holds a number of where the
/// destination says. A value with an FP term compares as a number (SMT `=` on FP terms: the
/// same encoding, for a number) and, where it is a NaN, by its NaN bits ([`nan_eq`]).
pub fn eq_bits(o: &BV, v: &Val, f: Option<Format>, ctx: &Ctx) -> Bool {
    let w = v.width();
    match &*v.0 {
        Kind::Const(..) | Kind::Bits(_) | Kind::Pred { .. } | Kind::Nan(..) => o.eq(v.bits(ctx)),
        Kind::Xor(a, k) => eq_bits(&o.bvxor(BV::from_u64(*k, w)), a, f, ctx),
        Kind::Select { c, a, b, .. } => c.ite(&eq_bits(o, a, f, ctx), &eq_bits(o, b, f, ctx)),
        Kind::Concat(hi, lo) => {
            let lw = lo.width();
            eq_bits(&o.extract(w - 1, lw), hi, None, ctx)
                & eq_bits(&o.extract(lw - 1, 0), lo, None, ctx)
        }
        _ => match v.format().or(f).filter(|f| f.width() == w) {
            Some(f) => {
                let x = v.fp(f, ctx);
                if x.nan {
                    nan_eq(o, v, ctx)
                } else {
                    x.x.is_nan().ite(&nan_eq(o, v, ctx), &float(o, f).eq(&x.x))
                }
            }
            None => o.eq(v.bits(ctx)),
        },
    }
}

/// Whether `o` is the bits of `v` where `v` is a NaN: an op's NaN is any NaN ([`NanBits::Free`]:
/// no variable needed) or the default one; a sign operation applies to the NaN's bits.
fn nan_eq(o: &BV, v: &Val, ctx: &Ctx) -> Bool {
    let w = v.width();
    match &*v.0 {
        Kind::Float(f, _) if ctx.nan == NanBits::Free => float(o, *f).is_nan(),
        Kind::Float(f, _) => o.eq(BV::from_u64(f.default_nan(), w)),
        Kind::Xor(a, k) => nan_eq(&o.bvxor(BV::from_u64(*k, w)), a, ctx),
        Kind::Select { c, a, b, .. } => c.ite(&nan_eq(o, a, ctx), &nan_eq(o, b, ctx)),
        _ => o.eq(v.bits(ctx)),
    }
}

/// Encodes `program` over free inputs; variable names start with `prefix` so two encodings
/// can share a solver.
pub fn encode(program: &Program, prefix: &str, nan: NanBits) -> Encoded {
    let inputs = program
        .input_widths
        .iter()
        .enumerate()
        .map(|(i, w)| BV::new_const(format!("{prefix}in{i}"), *w))
        .collect();
    encode_over(program, prefix, nan, inputs)
}

/// `Op::FloatToInt`: `x` rounded to an integral value, then saturated and converted. SMT-LIB
/// leaves `fp.to_sbv`/`fp.to_ubv` unspecified on NaN and out of range, so both are decided
/// here (NaN: 0; beyond an end: that end) and the conversion only meets integral values in
/// range, where it is exact.
fn float_to_int(x: &Float, f: Format, round: Round, width: u32, signed: bool) -> BV {
    let r = x.round_to_integral_with_rounding_mode(&rounding_mode(rm(round)));
    // The power of two 2^k in `f`, or `None` beyond its finite range.
    let pow2 = |k: u32, negative: bool| {
        (k as i32 <= f.bias()).then(|| {
            let bits = f.one(negative) + (u64::from(k) << (f.precision() - 1));
            float(&BV::from_u64(bits, f.width()), f)
        })
    };
    // The integers are [-2^(w-1), 2^(w-1)) signed and [0, 2^w) unsigned: a value at or above
    // the upper end (infinity where 2^k is not finite in `f`) is too big.
    let top = if signed { width - 1 } else { width };
    let too_big = match pow2(top, false) {
        Some(end) => r.ge(&end),
        None => Bool::and(&[r.is_infinite(), r.is_positive()]),
    };
    let too_small = if signed {
        match pow2(width - 1, true) {
            Some(end) => r.lt(&end),
            None => Bool::and(&[r.is_infinite(), r.is_negative()]),
        }
    } else {
        r.lt(float(&BV::from_u64(f.zero(false), f.width()), f))
    };
    let rtz = rounding_mode(Rm::TowardZero);
    let exact = if signed {
        r.to_sbv_with_rounding_mode(&rtz, width)
    } else {
        r.to_ubv_with_rounding_mode(&rtz, width)
    };
    let (max, min) = if signed {
        (mask(width - 1), 1 << (width - 1))
    } else {
        (mask(width), 0)
    };
    let k = |v: u64| BV::from_u64(v, width);
    x.is_nan().ite(
        &k(0),
        &too_big.ite(&k(max), &too_small.ite(&k(min), &exact)),
    )
}

/// The high half of the double-width product (`Op::MulHi`).
fn mul_hi(a: &BV, b: &BV, width: u32, signed: bool) -> BV {
    let wide = |x: &BV| {
        if signed {
            x.sign_ext(width)
        } else {
            x.zero_ext(width)
        }
    };
    wide(a).bvmul(wide(b)).extract(2 * width - 1, width)
}

/// A shift by a run-time amount of any width (`Op::ShiftBy`): both are widened to the wider
/// of the two, where SMT-LIB's shifts already give 0 (or the sign) for an amount of the
/// width or more, and the result is cut back to the value's width.
fn shift_by(kind: Shift, value: &BV, amount: &BV, width: u32) -> BV {
    let n = amount.get_size();
    let w = width.max(n);
    let x = match kind {
        Shift::Arithmetic => value.sign_ext(w - width),
        _ => value.zero_ext(w - width),
    };
    let k = amount.zero_ext(w - n);
    let r = match kind {
        Shift::Left => x.bvshl(&k),
        Shift::Logical => x.bvlshr(&k),
        Shift::Arithmetic => x.bvashr(&k),
    };
    r.extract(width - 1, 0)
}

/// The floating-point format of an outcome's leaves, if any names one.
fn leaf_format(o: &Outcome) -> Option<Format> {
    let mut leaves = Vec::new();
    o.leaves(&mut leaves);
    leaves.iter().find_map(|l| match l {
        Outcome::AnyNan(f) | Outcome::Any(f) => Some(*f),
        Outcome::Within { format, .. } => Some(*format),
        _ => None,
    })
}

/// Encodes `program` with its inputs fixed to `values`. Z3 then folds the floating-point
/// operations on constants instead of bit-blasting them, so each query is fast.
pub fn encode_concrete(program: &Program, prefix: &str, nan: NanBits, values: &[u64]) -> Encoded {
    let inputs: Vec<BV> = program
        .input_widths
        .iter()
        .zip(values)
        .map(|(w, v)| BV::from_u64(*v, *w))
        .collect();
    let vals = program
        .input_widths
        .iter()
        .zip(values)
        .map(|(w, v)| Val::konst(*v, *w))
        .collect();
    let ctx = Ctx::new(prefix, nan, ToBits::Native);
    let mut e = encode_vals(program, prefix, &ctx, vals);
    e.inputs = inputs;
    e
}

/// Encodes `program` over the given input terms (e.g. another encoding's inputs, so that
/// the rewriter sees shared subterms).
pub fn encode_over(program: &Program, prefix: &str, nan: NanBits, inputs: Vec<BV>) -> Encoded {
    let ctx = Ctx::new(prefix, nan, ToBits::Native);
    let vals = inputs.iter().cloned().map(Val::bits_term).collect();
    let mut e = encode_vals(program, prefix, &ctx, vals);
    e.inputs = inputs;
    e
}

/// Encodes `program` over the input values `inputs` in the context `ctx` (shared by the
/// instructions of a sequence); names start with `prefix`. [`Encoded::inputs`] is empty.
pub fn encode_vals(program: &Program, prefix: &str, ctx: &Rc<Ctx>, inputs: Vec<Val>) -> Encoded {
    let mut enc = Encoder {
        ctx,
        vals: Vec::with_capacity(program.ops.len()),
        prefix,
        choices: &program.choices,
        intermediate: Vec::new(),
        ops: &program.ops,
    };
    for (i, op) in program.ops.iter().enumerate() {
        let v = enc.op(op, program.widths[i], &inputs);
        enc.vals.push(v);
    }
    let mut parts = Vec::new();
    for d in &program.dests {
        for (j, p) in d.parts.iter().enumerate() {
            let result = BV::new_const(format!("{prefix}{}_{j}", d.name), p.width);
            let hint = match p.kind {
                PartKind::Float(f) => Some(f),
                _ => None,
            };
            let allowed = enc.allowed(&p.outcome, &result, hint);
            let mut leaves = Leaves {
                name: format!("{prefix}{}_{j}_c", d.name),
                n: 0,
                choices: Vec::new(),
                hint,
            };
            let term = enc.choice_term(&p.outcome, &mut leaves, &Bool::from_bool(true));
            let choices = leaves.choices;
            parts.push(EncodedPart {
                result,
                allowed,
                kind: p.kind,
                term,
                choices,
            });
        }
    }
    Encoded {
        inputs: Vec::new(),
        parts,
        vals: enc.vals,
        ctx: ctx.clone(),
        choices: enc.intermediate,
    }
}

/// Encodes the ops of one program, value by value.
struct Encoder<'c> {
    ctx: &'c Ctx,
    vals: Vec<Val>,
    prefix: &'c str,
    /// The program's intermediate choices, by [`Op::Choose`] index.
    choices: &'c [Outcome],
    /// Their variables, as [`Encoded::choices`].
    intermediate: Vec<Choice>,
    /// The program's ops, for rewrites that match a sequence of them (`integer_rounding`).
    ops: &'c [Op],
}

impl Encoder<'_> {
    fn bits(&self, k: ValueId) -> BV {
        self.vals[k as usize].bits(self.ctx)
    }

    fn fp(&self, k: ValueId, f: Format) -> Fp {
        self.vals[k as usize].fp(f, self.ctx)
    }

    fn pred(&self, k: ValueId) -> Bool {
        self.vals[k as usize].pred(self.ctx)
    }

    fn val(&self, k: ValueId) -> &Val {
        &self.vals[k as usize]
    }

    /// `RN_narrow(x)` for the value `k` of `wide`, where `x` is an operation rounded to
    /// nearest in `wide` on exact widenings of numbers of `narrow` (through negations) and a
    /// proved lemma says rounding twice is rounding once (`lemma.rs`): the narrow operation
    /// on those numbers, built as the encoding builds that operation anywhere, so a program
    /// computing it through `wide` and one computing it directly meet structurally.
    fn rounded_once(&self, wide: Format, narrow: Format, k: ValueId) -> Option<Fp> {
        let x = self.fp(k, wide);
        let (base, flip) = x.unsigned();
        let Some(Origin::Nearest(op, args)) = base.origin.as_deref() else {
            return None;
        };
        if !lemma::proved(*op, narrow, wide) {
            return None;
        }
        let args: Vec<Fp> = args
            .iter()
            .map(|a| a.narrowed(narrow))
            .collect::<Option<_>>()?;
        let once = nearest(*op, narrow, &args);
        // A NaN exactly when the wide result is one (the lemma compares NaN-ness too), so an
        // outcome testing either for NaN sees through the other.
        let once = Fp::from_args(once.x.clone(), &[&once, base]);
        // RN(-y) = -RN(y).
        Some(if flip { once.neg() } else { once })
    }

    /// Where `op` takes the high half of LLVM's integer rounding of an f32 `x` to bfloat
    /// (`integer_rounding`; a shift right by 16 or the high 16 bits), `cvt.rn.bf16.f32 x`: the
    /// conversion (narrowed further by a double-rounding lemma where one applies) where it is
    /// a number, the sequence's own quieted, truncated NaN where it is not. A NaN exactly
    /// when `x` is one, which the conversion's NaN test stands for.
    fn bf16_by_integers(&mut self, op: &Op, inputs: &[Val]) -> Option<Val> {
        let (y, shifted) = match *op {
            Op::ShiftBy {
                kind: Shift::Logical,
                width: 32,
                value,
                amount,
            } if self.val(amount).known() == Some(16) => (value, true),
            Op::Shr(32, value, 16) => (value, true),
            Op::Extract {
                value,
                lo: 16,
                width: 16,
            } if self.val(value).width() == 32 => (value, false),
            _ => return None,
        };
        if !lemma::integer_rounding_proved() {
            return None;
        }
        let x = integer_rounding(self.ops, y, |k| self.val(k).known())?;
        let rounded = self.op(
            &Op::Cvt(Format::F32, Format::BF16, Round::NearestEven, x),
            16,
            inputs,
        );
        let once = rounded.fp(Format::BF16, self.ctx);
        let nan = self
            .val(x)
            .nan_bits(self.ctx)
            .bvor(BV::from_u64(0x40_0000, 32))
            .extract(31, 16);
        let half = Val::new(Kind::Select {
            c: once.x.is_nan(),
            nan_of: Some(once.x.clone()),
            a: Val::new(Kind::Nan(Format::BF16, nan)),
            b: rounded,
        });
        Some(if shifted {
            Val::concat(&Val::konst(0, 16), &half)
        } else {
            half
        })
    }

    /// A bitwise op of `width` bits: on predicates a formula, with a constant a sign
    /// operation the FP view can see through, else bits.
    fn bitwise(
        &self,
        width: u32,
        (a, b): (ValueId, ValueId),
        on_bools: fn(&Bool, &Bool) -> Bool,
        on_bits: fn(&BV, &BV) -> BV,
        keep: fn(Val, u64) -> Kind,
    ) -> Val {
        let (x, y) = (self.val(a), self.val(b));
        if let (Some(p), Some(q)) = (x.known(), y.known()) {
            let r = on_bits(&BV::from_u64(p, width), &BV::from_u64(q, width));
            return Val::bits_term(r.simplify());
        }
        // A constant that decides the result (`p && false`) or leaves the other operand as it
        // is (`p && true`): what a spec's compile-time flag leaves in a run-time condition
        // (`is_zero(r) && nsz`). Folded, a select on it picks its branch here, and
        // `isNaN(r) ? NaN : r` stays visible as `r` to the operations reading it.
        let other = |k: u64, v: &Val| {
            let at = |y: u64| {
                on_bits(&BV::from_u64(k, width), &BV::from_u64(y, width))
                    .simplify()
                    .as_u64()
            };
            match (at(0), at(mask(width))) {
                (Some(r0), Some(r1)) if r0 == r1 => Some(Val::konst(r0, width)),
                (Some(0), Some(r1)) if r1 == mask(width) => Some(v.clone()),
                _ => None,
            }
        };
        let folded = match (x.known(), y.known()) {
            (_, Some(k)) => other(k, x),
            (Some(k), _) => other(k, y),
            _ => None,
        };
        if let Some(v) = folded {
            return v;
        }
        if width == 1 {
            return Val::pred_of(on_bools(&x.pred(self.ctx), &y.pred(self.ctx)));
        }
        match (x.known(), y.known()) {
            (_, Some(k)) => Val::new(keep(x.clone(), k)),
            (Some(k), _) => Val::new(keep(y.clone(), k)),
            _ => Val::bits_term(on_bits(&self.bits(a), &self.bits(b))),
        }
    }

    fn op(&mut self, op: &Op, w: u32, inputs: &[Val]) -> Val {
        let ctx = self.ctx;
        // Operands the lowering did not know may be known here (a folded condition, a pinned
        // choice): fold as the lowering folds.
        let args = op.args();
        if op.foldable() && args.iter().all(|&a| self.val(a).known().is_some()) {
            let mut vals = vec![0; self.vals.len()];
            for &a in &args {
                vals[a as usize] = self.val(a).known().expect("known");
            }
            return Val::konst(op.exec(&vals), w);
        }
        if let Some(v) = self.bf16_by_integers(op, inputs) {
            return v;
        }
        match op {
            Op::Input(k) => inputs[*k as usize].clone(),
            Op::Const(c) => Val::konst(*c, w),
            // Negations move out of products (`product`; in `fma` too, whose product is
            // exact). Sums are left alone: `-a + -b` is not `-(a + b)` where the sum cancels
            // to zero.
            Op::Mul(f, r, a, b) | Op::Div(f, r, a, b) => {
                let divide = matches!(op, Op::Div(..));
                Val::number(*f, product(*r, &self.fp(*a, *f), &self.fp(*b, *f), divide))
            }
            Op::Fma(f, r, a, b, c) => {
                let (x, y, s) = (self.fp(*a, *f), self.fp(*b, *f), self.fp(*c, *f));
                // A zero addend whose sign cannot change the sum: `x·y + z` is `x·y` rounded
                // once, the product's own sign of zero included (an exact `+0 + -0` is `+0`
                // but under roundTowardNegative, where it is `-0`).
                let neutral_zero = f.zero(*r != Round::Down);
                if self.val(*c).known() == Some(neutral_zero) {
                    return Val::number(*f, product(*r, &x, &y, false));
                }
                // A factor of ±1: the product `±x` is exact (infinities, zeros' signs and NaNs
                // included), so the fused result is the one rounding of `±x + z`.
                let unit = |k: ValueId| match self.val(k).known() {
                    Some(v) if v == f.one(false) => Some(false),
                    Some(v) if v == f.one(true) => Some(true),
                    _ => None,
                };
                let scaled = match (unit(*a), unit(*b)) {
                    (_, Some(neg)) => Some((&x, neg)),
                    (Some(neg), None) => Some((&y, neg)),
                    (None, None) => None,
                };
                let mode = rounding_mode(rm(*r));
                let z = match scaled {
                    Some((t, neg)) => {
                        let t = if neg { t.neg() } else { t.clone() };
                        t.x.add_with_rounding_mode(&s.x, &mode)
                    }
                    None => {
                        let ((p, neg_p), (q, neg_q)) = (x.unsigned(), y.unsigned());
                        let (p, q) = if neg_p && neg_q { (p, q) } else { (&x, &y) };
                        p.x.fma_with_rounding_mode(&q.x, &s.x, &mode)
                    }
                };
                Val::number(*f, Fp::from_args(z, &[&x, &y, &s]))
            }
            Op::Add(..) | Op::Sub(..) | Op::Sqrt(..) | Op::Cvt(..) => {
                if let Op::Cvt(wide, narrow, Round::NearestEven, a) = op {
                    if let Some(x) = self.rounded_once(*wide, *narrow, *a) {
                        return Val::number(*narrow, x);
                    }
                }
                let mut args: Vec<Fp> = Vec::new();
                let (f, r) = rounded_with(op, None, |k, f| {
                    let x = self.fp(k, f);
                    args.push(x.clone());
                    x.x
                })
                .expect("a rounded operation");
                let refs: Vec<&Fp> = args.iter().collect();
                let z = Fp::from_args(r, &refs);
                Val::number(
                    f,
                    match (op, nearest_op(op)) {
                        (Op::Cvt(from, to, ..), _) if widens(*from, *to) => {
                            z.with_origin(Origin::Widened(*from, args[0].clone()))
                        }
                        (_, Some(l)) => z.with_origin(Origin::Nearest(l, args)),
                        _ => z,
                    },
                )
            }
            // fmod from IEEE 754's remainder (fp.rem: the quotient rounded to nearest even).
            // Where that quotient was rounded away from zero, the remainder is nonzero with
            // the sign opposite to a's, and fmod's is |b| further toward a's sign: a sum that
            // is exact, fmod's result being representable. A NaN stays a NaN either way.
            Op::Fmod(f, a, b) => {
                let (x, y) = (self.fp(*a, *f), self.fp(*b, *f));
                let r = x.x.rem(y.x.clone());
                let away = Bool::and(&[
                    r.is_zero().not(),
                    r.is_negative().eq(x.x.is_negative()).not(),
                ]);
                let step =
                    x.x.is_negative()
                        .ite(&y.x.unary_abs().unary_neg(), &y.x.unary_abs());
                let z = away.ite(
                    &r.add_with_rounding_mode(step, &rounding_mode(rm(Round::NearestEven))),
                    &r,
                );
                Val::float(*f, z, &[&x, &y])
            }
            Op::RoundInt(f, r, a) => {
                let x = self.fp(*a, *f);
                let z =
                    x.x.round_to_integral_with_rounding_mode(&rounding_mode(rm(*r)));
                Val::float(*f, z, &[&x])
            }
            Op::FloatToInt {
                from,
                round,
                width,
                signed,
                value,
            } => Val::bits_term(float_to_int(
                &self.fp(*value, *from).x,
                *from,
                *round,
                *width,
                *signed,
            )),
            Op::IntToFloat {
                width: _,
                signed,
                to,
                round,
                value,
            } => {
                let z = fp_from_int(
                    &self.bits(*value),
                    *signed,
                    &rounding_mode(rm(*round)),
                    to.exp_bits(),
                    to.precision(),
                );
                Val::float(*to, z, &[])
            }
            Op::Class(f, c, a) => {
                let x = self.fp(*a, *f).x;
                let b = match c {
                    Class::Nan => {
                        return Val::new(Kind::Pred {
                            b: x.is_nan(),
                            nan_of: Some(x),
                        })
                    }
                    Class::Inf => x.is_infinite(),
                    Class::Zero => x.is_zero(),
                    Class::Subnormal => x.is_subnormal(),
                    Class::Normal => x.is_normal(),
                    Class::Finite => Bool::or(&[x.is_nan(), x.is_infinite()]).not(),
                    Class::SignalingNan => {
                        let quiet_bit = f.precision() - 2;
                        Bool::and(&[
                            x.is_nan(),
                            self.bits(*a)
                                .extract(quiet_bit, quiet_bit)
                                .eq(BV::from_u64(0, 1)),
                        ])
                    }
                };
                Val::pred_of(b)
            }
            Op::FCmp(f, c, a, b) => {
                let (x, y) = (self.fp(*a, *f).x, self.fp(*b, *f).x);
                Val::pred_of(match c {
                    Cmp::Eq => x.eq_fpa(&y),
                    Cmp::Lt => x.lt(&y),
                    Cmp::Le => x.le(&y),
                })
            }
            Op::And(_, a, b) => self.bitwise(
                w,
                (*a, *b),
                |p, q| Bool::and(&[p, q]),
                |p, q| p.bvand(q),
                Kind::And,
            ),
            Op::Or(_, a, b) => self.bitwise(
                w,
                (*a, *b),
                |p, q| Bool::or(&[p, q]),
                |p, q| p.bvor(q),
                Kind::Or,
            ),
            Op::Xor(_, a, b) => {
                self.bitwise(w, (*a, *b), |p, q| p.xor(q), |p, q| p.bvxor(q), Kind::Xor)
            }
            Op::Not(_, a) if w == 1 => Val::pred_of(self.pred(*a).not()),
            Op::Not(_, a) => Val::new(Kind::Xor(self.val(*a).clone(), mask(w))),
            Op::BvAdd(_, a, b) => Val::bits_term(self.bits(*a).bvadd(self.bits(*b))),
            Op::BvSub(_, a, b) => Val::bits_term(self.bits(*a).bvsub(self.bits(*b))),
            Op::BvEq(a, b) => Val::pred_of(self.bits(*a).eq(self.bits(*b))),
            Op::BvUlt(a, b) => Val::pred_of(self.bits(*a).bvult(self.bits(*b))),
            Op::Extract { value, lo, width } => self.val(*value).extract(*lo, *width, ctx),
            Op::Concat { hi, lo, .. } => Val::concat(self.val(*hi), self.val(*lo)),
            Op::Shl(w, a, n) => {
                if n >= w {
                    Val::konst(0, *w)
                } else {
                    Val::bits_term(self.bits(*a).bvshl(BV::from_u64(u64::from(*n), *w)))
                }
            }
            Op::Shr(w, a, n) => {
                if n >= w {
                    Val::konst(0, *w)
                } else {
                    Val::bits_term(self.bits(*a).bvlshr(BV::from_u64(u64::from(*n), *w)))
                }
            }
            Op::BvSlt(_, a, b) => Val::pred_of(self.bits(*a).bvslt(self.bits(*b))),
            Op::BvMul(_, a, b) => Val::bits_term(self.bits(*a).bvmul(self.bits(*b))),
            Op::BvUDiv(_, a, b) => Val::bits_term(self.bits(*a).bvudiv(self.bits(*b))),
            Op::BvURem(_, a, b) => Val::bits_term(self.bits(*a).bvurem(self.bits(*b))),
            Op::MulHi {
                width,
                signed,
                a,
                b,
            } => Val::bits_term(mul_hi(&self.bits(*a), &self.bits(*b), *width, *signed)),
            // A value's low bits shifted to the top of its width, zeros below, stays a
            // concatenation: a narrower number placed above zeros is its widening
            // ([`Val::fp`]).
            Op::ShiftBy {
                kind: Shift::Left,
                width,
                value,
                amount,
            } if self
                .val(*amount)
                .known()
                .is_some_and(|n| n > 0 && n < u64::from(*width)) =>
            {
                let n = self.val(*amount).known().expect("known") as u32;
                let v = self.val(*value);
                Val::concat(&v.extract(0, width - n, ctx), &Val::konst(0, n))
            }
            Op::ShiftBy {
                kind,
                width,
                value,
                amount,
            } => Val::bits_term(shift_by(
                *kind,
                &self.bits(*value),
                &self.bits(*amount),
                *width,
            )),
            Op::Select(c, a, b) => Val::select(self.val(*c), self.val(*a), self.val(*b), ctx),
            Op::Choose(k) => {
                let outcome = &self.choices[*k as usize];
                let mut leaves = Leaves {
                    name: format!("{}choice{k}_", self.prefix),
                    n: 0,
                    choices: std::mem::take(&mut self.intermediate),
                    hint: leaf_format(outcome),
                };
                let v = self.choice_term(outcome, &mut leaves, &Bool::from_bool(true));
                self.intermediate = leaves.choices;
                v
            }
        }
    }

    /// The outcome tree as a value (see [`EncodedPart::term`]); leaf variables are `{name}{n}`.
    /// `reached` is where the tree's selects lead to `o`: a leaf's choice must be allowed
    /// there only, as elsewhere its value is not read (`ex2`'s approximation where the input
    /// is NaN). Required everywhere, it would constrain the approximation's free function at
    /// bits no computation reads, which can leave a source no choice a target's run needs.
    fn choice_term(&self, o: &Outcome, leaves: &mut Leaves, reached: &Bool) -> Val {
        match o {
            Outcome::Exact(v) => self.val(*v).clone(),
            Outcome::OneOf(vs) if vs.len() == 1 => self.val(vs[0]).clone(),
            // A known condition takes its branch alone: the other's choices are no choices.
            Outcome::Select(c, a, b) => match self.val(*c).known() {
                Some(k) => self.choice_term(if k & 1 == 1 { a } else { b }, leaves, reached),
                None => {
                    let taken = self.pred(*c);
                    let a = self.choice_term(a, leaves, &Bool::and(&[reached, &taken]));
                    let b = self.choice_term(b, leaves, &Bool::and(&[reached, &taken.not()]));
                    Val::select(self.val(*c), &a, &b, self.ctx)
                }
            },
            leaf => {
                let width = match leaf {
                    Outcome::AnyNan(f) | Outcome::Any(f) => f.width(),
                    Outcome::Poison(w) | Outcome::Ub(w) => *w,
                    Outcome::Within { format, .. } => format.width(),
                    Outcome::OneOf(vs) => self.val(vs[0]).width(),
                    _ => unreachable!("exact and select are handled above"),
                };
                let var = BV::new_const(format!("{}{}", leaves.name, leaves.n), width);
                leaves.n += 1;
                let witness = match leaf {
                    Outcome::AnyNan(f) => Some(BV::from_u64(f.default_nan(), width)),
                    Outcome::OneOf(vs) => Some(self.bits(vs[0])),
                    Outcome::Within {
                        func,
                        args,
                        format,
                        bound,
                        ftz: false,
                    } if !bound_in_z3(*func, *bound, *format) => {
                        let actuals: Vec<BV> = args.iter().map(|a| self.bits(*a)).collect();
                        Some(uninterpreted(*func, *format, &actuals))
                    }
                    _ => None,
                };
                leaves.choices.push(Choice {
                    allowed: reached
                        .implies(self.allowed(leaf, &var, leaves.hint))
                        .simplify(),
                    var: var.clone(),
                    witness,
                    nan: matches!(leaf, Outcome::AnyNan(_)),
                });
                match leaf {
                    Outcome::AnyNan(f) => Val::new(Kind::Nan(*f, var)),
                    _ => Val::bits_term(var),
                }
            }
        }
    }

    /// The outcome tree as a formula over the bits `r`.
    fn allowed(&self, o: &Outcome, r: &BV, hint: Option<Format>) -> Bool {
        let ctx = self.ctx;
        match o {
            Outcome::Exact(v) => eq_bits(r, self.val(*v), hint, ctx),
            Outcome::AnyNan(f) => is_nan(r, *f),
            Outcome::OneOf(vs) => Bool::or(
                &vs.iter()
                    .map(|v| eq_bits(r, self.val(*v), hint, ctx))
                    .collect::<Vec<_>>(),
            ),
            Outcome::Select(c, a, b) => match self.val(*c).known() {
                Some(k) => self.allowed(if k & 1 == 1 { a } else { b }, r, hint),
                None => {
                    let (a, b) = (self.allowed(a, r, hint), self.allowed(b, r, hint));
                    self.pred(*c).ite(&a, &b)
                }
            },
            Outcome::Any(_) | Outcome::Poison(_) | Outcome::Ub(_) => Bool::from_bool(true),
            Outcome::Within {
                func,
                args,
                format,
                bound,
                ftz,
            } => {
                let x = float(r, *format);
                let mut cs = vec![x.is_nan().not()];
                if *ftz {
                    cs.push(x.is_subnormal().not());
                }
                let actuals: Vec<BV> = args.iter().map(|a| self.bits(*a)).collect();
                cs.push(
                    stated_bound(*func, *bound, *format, &actuals, r, *ftz, ctx)
                        .unwrap_or_else(|| r.eq(uninterpreted(*func, *format, &actuals))),
                );
                Bool::and(&cs)
            }
        }
    }
}

/// The f32 `x` that the select `y` rounds to bfloat with integers, where `y` is LLVM's
/// `isNaN(x) ? x | 0x400000 : x + ((x >> 16) & 1) + 0x7fff` (`lemma::IntegerRounding`,
/// matched by the structure of the ops, constants where the sequence has them (`known`),
/// operands of the commutative ops in either order).
pub fn integer_rounding(
    ops: &[Op],
    y: ValueId,
    known: impl Fn(ValueId) -> Option<u64>,
) -> Option<ValueId> {
    let Op::Select(p, q, r) = ops[y as usize] else {
        return None;
    };
    // The operand of a 32-bit op `want` that is not the constant `k`.
    let with_const = |k: ValueId, want: fn(&Op) -> Option<(ValueId, ValueId)>, c: u64| {
        let (a, b) = want(&ops[k as usize])?;
        match (known(a), known(b)) {
            (_, Some(v)) if v == c => Some(a),
            (Some(v), _) if v == c => Some(b),
            _ => None,
        }
    };
    let or = |op: &Op| match op {
        Op::Or(32, a, b) => Some((*a, *b)),
        _ => None,
    };
    let add = |op: &Op| match op {
        Op::BvAdd(32, a, b) => Some((*a, *b)),
        _ => None,
    };
    let and = |op: &Op| match op {
        Op::And(32, a, b) => Some((*a, *b)),
        _ => None,
    };
    let x = with_const(q, or, 0x40_0000)?;
    // `setp.nan.f32 p, x, x` is `isNaN(x) || isNaN(x)`.
    let is_nan =
        |k: ValueId| matches!(ops[k as usize], Op::Class(Format::F32, Class::Nan, v) if v == x);
    let nan_test =
        is_nan(p) || matches!(ops[p as usize], Op::Or(1, a, b) if is_nan(a) && is_nan(b));
    let sum = with_const(r, add, 0x7fff)?;
    let (a, b) = add(&ops[sum as usize])?;
    let lsb = match (a == x, b == x) {
        (_, true) => a,
        (true, false) => b,
        _ => return None,
    };
    let shifted = with_const(lsb, and, 1)?;
    let bit16 = match ops[shifted as usize] {
        Op::ShiftBy {
            kind: Shift::Logical,
            width: 32,
            value,
            amount,
        } => value == x && known(amount) == Some(16),
        Op::Shr(32, value, 16) => value == x,
        _ => false,
    };
    (nan_test && bit16).then_some(x)
}

/// `x·y` (or `x/y` with `divide`) rounded by `r`. Negations move out of products:
/// `(-a)·(-b)` is `a·b`, and `RD((-a)·b)` is `-RU(a·b)` (likewise for quotients), exactly,
/// zeros' signs and NaNs included. Rounded to nearest, the unsigned product remembers its
/// operands (`Origin::Nearest`).
fn product(r: Round, x: &Fp, y: &Fp, divide: bool) -> Fp {
    let ((p, neg_p), (q, neg_q)) = (x.unsigned(), y.unsigned());
    let flip = neg_p != neg_q;
    let mode = rounding_mode(rm(if flip { mirrored(r) } else { r }));
    let z = if divide {
        p.x.div_with_rounding_mode(&q.x, &mode)
    } else {
        p.x.mul_with_rounding_mode(&q.x, &mode)
    };
    let mut z = Fp::from_args(z, &[x, y]);
    if r == Round::NearestEven {
        let op = if divide { LemmaOp::Div } else { LemmaOp::Mul };
        z = z.with_origin(Origin::Nearest(op, vec![p.clone(), q.clone()]));
    }
    if flip {
        z.neg()
    } else {
        z
    }
}

/// The operation a lemma is about that `op` is, when it rounds to nearest even.
fn nearest_op(op: &Op) -> Option<LemmaOp> {
    let (l, r) = match op {
        Op::Add(_, r, ..) => (LemmaOp::Add, r),
        Op::Sub(_, r, ..) => (LemmaOp::Sub, r),
        Op::Mul(_, r, ..) => (LemmaOp::Mul, r),
        Op::Div(_, r, ..) => (LemmaOp::Div, r),
        Op::Sqrt(_, r, _) => (LemmaOp::Sqrt, r),
        _ => return None,
    };
    (*r == Round::NearestEven).then_some(l)
}

/// `op` on `args` in `f`, rounded to nearest even, built as [`Encoder::op`] builds it.
fn nearest(op: LemmaOp, f: Format, args: &[Fp]) -> Fp {
    let rn = Round::NearestEven;
    let ir = match op {
        LemmaOp::Mul | LemmaOp::Div => return product(rn, &args[0], &args[1], op == LemmaOp::Div),
        LemmaOp::Add => Op::Add(f, rn, 0, 1),
        LemmaOp::Sub => Op::Sub(f, rn, 0, 1),
        LemmaOp::Sqrt => Op::Sqrt(f, rn, 0),
    };
    let (_, z) = rounded_with(&ir, None, |k, _| args[k as usize].x.clone()).expect("rounded");
    let refs: Vec<&Fp> = args.iter().collect();
    Fp::from_args(z, &refs).with_origin(Origin::Nearest(op, args.to_vec()))
}

/// Whether every number of `from` is one of `to`.
fn widens(from: Format, to: Format) -> bool {
    to.exp_bits() >= from.exp_bits() && to.precision() >= from.precision()
}

/// A rounded floating-point op (`add`, `sub`, `mul`, `div`, `fma`, `sqrt`, `cvt`) over the
/// terms `values` of earlier ops, rounded as `round` says (`None`: as the op says), with its
/// result format; `None` for every other op.
pub fn rounded(op: &Op, values: &[BV], round: Option<Round>) -> Option<(Format, Float)> {
    rounded_with(op, round, |k, f| float(&values[k as usize], f))
}

/// [`rounded`] with operand `k` read as a number of `f` by `arg`.
fn rounded_with(
    op: &Op,
    round: Option<Round>,
    mut arg: impl FnMut(ValueId, Format) -> Float,
) -> Option<(Format, Float)> {
    let mode = |r: &Round| rounding_mode(rm(round.unwrap_or(*r)));
    Some(match op {
        Op::Add(f, r, a, b) => (
            *f,
            arg(*a, *f).add_with_rounding_mode(arg(*b, *f), &mode(r)),
        ),
        Op::Sub(f, r, a, b) => (
            *f,
            arg(*a, *f).sub_with_rounding_mode(arg(*b, *f), &mode(r)),
        ),
        Op::Mul(f, r, a, b) => (
            *f,
            arg(*a, *f).mul_with_rounding_mode(arg(*b, *f), &mode(r)),
        ),
        Op::Div(f, r, a, b) => (
            *f,
            arg(*a, *f).div_with_rounding_mode(arg(*b, *f), &mode(r)),
        ),
        Op::Fma(f, r, a, b, c) => {
            let (x, y, z) = (arg(*a, *f), arg(*b, *f), arg(*c, *f));
            (*f, x.fma_with_rounding_mode(y, z, &mode(r)))
        }
        Op::Sqrt(f, r, a) => (*f, arg(*a, *f).sqrt_with_rounding_mode(&mode(r))),
        Op::Cvt(from, to, r, a) => (
            *to,
            arg(*a, *from)
                .to_fp_with_rounding_mode(&mode(r), &fp_sort(to.exp_bits(), to.precision())),
        ),
        _ => return None,
    })
}

/// Whether Z3 states the bound of `func` exactly. Two kinds are expressible in the FP
/// theory: an ulp bound around an IEEE division (`rcp`: 1/x, `div`: a/b), and a relative
/// bound 2^k (k a whole number) on `sqrt`, whose ends are square roots of x·(1 ± 2^k)², exact
/// in binary128 for `f32` and narrower. Other approximations are uninterpreted functions
/// constrained only by what every admitted value satisfies (not NaN, under ftz not subnormal).
pub fn bound_in_z3(func: ApproxFn, bound: Bound, f: Format) -> bool {
    match (func, bound) {
        (ApproxFn::Rcp | ApproxFn::Div, Bound::Ulps(_)) => true,
        (ApproxFn::Sqrt, Bound::RelErr(k)) => sqrt_rel_err_is_exact(k, f),
        _ => false,
    }
}

/// Significand bits of the wide format the square-root ends are computed in (binary128).
const WIDE_PRECISION: u32 = 113;

/// Whether `x·(1 ± 2^k)²` is exact in binary128 for every x of `f`: k is a negative whole
/// number and the product needs `precision + 2|k| + 1` bits.
fn sqrt_rel_err_is_exact(k: f64, f: Format) -> bool {
    k.fract() == 0.0
        && (-50.0..0.0).contains(&k)
        && f.precision() + 2 * ((-k) as u32) < WIDE_PRECISION
}

/// The formula over `r` for a bound that [`bound_in_z3`] states, as the evaluator builds the
/// interval (`eval::within`); `None` for the others.
fn stated_bound(
    func: ApproxFn,
    bound: Bound,
    f: Format,
    args: &[BV],
    r: &BV,
    ftz: bool,
    ctx: &Ctx,
) -> Option<Bool> {
    if !bound_in_z3(func, bound, f) {
        return None;
    }
    let (key_lo, key_hi) = match (func, bound) {
        (ApproxFn::Sqrt, Bound::RelErr(k)) => sqrt_rel_err_ends(&float(&args[0], f), f, k, ctx),
        (_, Bound::Ulps(n)) => {
            let rne = rounding_mode(Rm::NearestEven);
            let (num, den) = match func {
                ApproxFn::Rcp => (
                    float(&BV::from_u64(f.one(false), f.width()), f),
                    float(&args[0], f),
                ),
                _ => (float(&args[0], f), float(&args[1], f)),
            };
            ulp_ends(
                &ctx.number_bits(&num.div_with_rounding_mode(den, &rne), f),
                f,
                n,
            )
        }
        _ => return None,
    };
    let (key_lo, key_hi) = if ftz {
        flush_ends(key_lo, key_hi, f)
    } else {
        (key_lo, key_hi)
    };
    let key = order_key(r, f);
    Some(key_lo.bvsle(&key) & key.bvsle(&key_hi))
}

/// The order keys of the ends of `|d - sqrt(x)| <= 2^k · sqrt(x)` for a positive finite x,
/// widened to the two neighbours of sqrt(x) in `f` (`ir::Bound`): the low end is
/// `RU(sqrt(x·(1 - 2^k)²))`, the high end `RD(sqrt(x·(1 + 2^k)²))`. Directed roundings
/// compose (RD to binary128, then RD to `f`, is RD to `f`), so the ends are exact.
fn sqrt_rel_err_ends(x: &Float, f: Format, k: f64, ctx: &Ctx) -> (BV, BV) {
    let wide = fp_sort(15, WIDE_PRECISION);
    let (rne, rd, ru) = (
        rounding_mode(Rm::NearestEven),
        rounding_mode(Rm::Down),
        rounding_mode(Rm::Up),
    );
    let eps = 2f64.powi(k as i32);
    let factor = |s: f64| {
        // (1 ± 2^k)² = 1 ± 2^(k+1) + 2^(2k): exact in binary128 for k >= -50.
        let one = Float::from_f64(1.0).to_fp_with_rounding_mode(&rne, &wide);
        let term = |v: f64| Float::from_f64(v).to_fp_with_rounding_mode(&rne, &wide);
        one.add_with_rounding_mode(term(s * 2.0 * eps), &rne)
            .add_with_rounding_mode(term(eps * eps), &rne)
    };
    let xw = x.to_fp_with_rounding_mode(&rne, &wide);
    let end = |s: f64, rm: &z3::ast::RoundingMode| {
        xw.mul_with_rounding_mode(factor(s), &rne)
            .sqrt_with_rounding_mode(rm)
            .to_fp_with_rounding_mode(rm, &fp_sort(f.exp_bits(), f.precision()))
    };
    let key = |b: BV| order_key(&b, f);
    let (lo, hi) = (
        key(ctx.number_bits(&end(-1.0, &ru), f)),
        key(ctx.number_bits(&end(1.0, &rd), f)),
    );
    let down = key(ctx.number_bits(&x.sqrt_with_rounding_mode(&rd), f));
    let up = key(ctx.number_bits(&x.sqrt_with_rounding_mode(&ru), f));
    (lo.bvsle(&down).ite(&lo, &down), hi.bvsge(&up).ite(&hi, &up))
}

/// The approximation as a free function, one per function and format (f16 and bf16 share
/// a width, f32 and the 1.11.20 upper word of an f64 too).
fn uninterpreted(func: ApproxFn, f: Format, args: &[BV]) -> BV {
    let sort = z3::Sort::bitvector(f.width());
    let domain: Vec<&z3::Sort> = args.iter().map(|_| &sort).collect();
    let uf = z3::FuncDecl::new(
        format!("approx_{}_e{}p{}", func.name(), f.exp_bits(), f.precision()),
        &domain,
        &sort,
    );
    let actuals: Vec<&dyn z3::ast::Ast> = args.iter().map(|a| a as &dyn z3::ast::Ast).collect();
    uf.apply(&actuals).as_bv().expect("a bit-vector function")
}

/// The order keys of the ends of the interval of `n` encodings around `rn`, as the
/// evaluator builds it: `ordinal(rn) ∓ n` clamped to ±infinity and to the zero of `rn`'s sign
/// (a positive `rn` keeps +0 as its lowest end, a negative one -0 as its highest).
/// Arithmetic is on `width + 2` signed bits.
fn ulp_ends(rn: &BV, f: Format, n: u32) -> (BV, BV) {
    let w = f.width();
    let k = |v: u64| BV::from_u64(v, w + 2);
    let sign = rn.extract(w - 1, w - 1).eq(BV::from_u64(1, 1));
    let magnitude = rn.extract(w - 2, 0).zero_ext(3);
    let o = sign.ite(&magnitude.bvneg(), &magnitude);
    let inf = k(f.inf(false));
    let neg_inf = inf.bvneg();
    let clamp = |o: BV| {
        o.bvslt(&neg_inf)
            .ite(&neg_inf, &o.bvsgt(&inf).ite(&inf, &o))
    };
    let o_lo = clamp(o.bvsub(k(u64::from(n))));
    let o_hi = clamp(o.bvadd(k(u64::from(n))));
    let zero = k(0);
    let negative_one = k(1).bvneg();
    (
        o_lo.bvsle(&zero)
            .ite(&sign.ite(&o_lo.bvsub(k(1)), &zero), &o_lo),
        o_hi.bvslt(&zero)
            .ite(&o_hi.bvsub(k(1)), &sign.ite(&negative_one, &o_hi)),
    )
}

/// Under ftz a subnormal end of an interval moves to the zero on its side (`eval::bounded`):
/// a positive subnormal low end to +0 (key 0), a negative subnormal high end to -0 (key -1).
fn flush_ends(key_lo: BV, key_hi: BV, f: Format) -> (BV, BV) {
    let k = |v: u64| BV::from_u64(v, f.width() + 2);
    let min_normal = k(1u64 << (f.precision() - 1));
    let lo_pos_subnormal = key_lo.bvsgt(k(0)) & key_lo.bvslt(&min_normal);
    // Negative keys are -magnitude - 1: a subnormal magnitude in [1, min_normal) is a key in
    // [-min_normal, -2].
    let hi_neg_subnormal = key_hi.bvsge(min_normal.bvneg()) & key_hi.bvsle(k(2).bvneg());
    (
        lo_pos_subnormal.ite(&k(0), &key_lo),
        hi_neg_subnormal.ite(&k(1).bvneg(), &key_hi),
    )
}

/// The numeric order of a non-NaN encoding of `f` with -0 < +0, as a `width + 2`-bit signed
/// bit-vector: `magnitude` for positive values, `-magnitude - 1` for negative ones
/// (`semfuzz_spec::outcome::order_key`).
pub fn order_key(b: &BV, f: Format) -> BV {
    let w = f.width();
    let magnitude = b.extract(w - 2, 0).zero_ext(3);
    b.extract(w - 1, w - 1)
        .eq(BV::from_u64(1, 1))
        .ite(&magnitude.bvneg().bvsub(BV::from_u64(1, w + 2)), &magnitude)
}
