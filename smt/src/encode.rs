//! The variant IR as Z3 terms.
//!
//! Every IR value is a bit-vector (predicates are 1-bit). Floating-point ops reinterpret their
//! operands with [`fp_from_bits`], compute in the SMT FP theory, and give a result its IEEE bits,
//! or, when it is a NaN, a fresh bit-vector `v` constrained to the NaN encodings: the formulas
//! never assume a NaN pattern the spec did not state. A destination part is a fresh bit-vector
//! constrained by its outcome tree.

use crate::fpbits::{fp_from_bits, fp_sort, rounding_mode, Rm};
use semfuzz_fp::{Format, Round};
use semfuzz_spec::ir::{ApproxFn, Bound, Class, Cmp, Op, Outcome, PartKind, Program, Shift};
use z3::ast::{Bool, Float, BV};

/// One destination part as a Z3 variable plus what the spec allows it to be.
pub struct EncodedPart {
    /// The part's bits.
    pub result: BV,
    /// The outcome tree as a formula over `result`.
    pub allowed: Bool,
    /// How to read the bits.
    pub kind: PartKind,
    /// The part's value as a term: the outcome tree's run-time selects over its leaves, an
    /// exact leaf its value, a leaf with a choice (`any_nan`, `one_of`, a bound) a fresh
    /// variable listed in `choices`. A sequence passes it to the next instruction, which keeps
    /// the structure visible to the simplifier.
    pub term: BV,
    /// The fresh variables of `term`.
    pub choices: Vec<Choice>,
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
    /// Definitions of the fresh variables behind floating-point results.
    pub definitions: Vec<Bool>,
    /// The fresh bit-vectors [`ToBits::Fresh`] made for floating-point results (defined in
    /// `definitions`), so that a caller can quantify them with the values they depend on.
    pub fresh_bits: Vec<BV>,
    /// The destination parts, in order.
    pub parts: Vec<EncodedPart>,
    /// Every IR value's term, by [`ValueId`](semfuzz_spec::ir::ValueId).
    pub values: Vec<BV>,
    /// The fresh variables of the program's intermediate choices ([`Op::Choose`]), each
    /// with what it may be; [`Encoded::constraints`] requires every one to be allowed.
    pub choices: Vec<Choice>,
}

impl Encoded {
    /// Everything that must hold: the definitions and every part's outcome.
    pub fn constraints(&self) -> Bool {
        let mut terms: Vec<Bool> = self.definitions.clone();
        terms.extend(self.choices.iter().map(|c| c.allowed.clone()));
        terms.extend(self.parts.iter().map(|p| p.allowed.clone()));
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
                Op::Sqrt(..) | Op::Cvt(..) | Op::FCmp(..) => true,
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

/// How a floating-point result becomes its IEEE bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToBits {
    /// Z3's `fp.to_ieee_bv`: the simplifier sees through it, so Z3 in process solves fastest
    /// this way; but it is Z3's extension of SMT-LIB, which cvc5 and bitwuzla do not parse.
    Native,
    /// A fresh bit-vector `b` with `(= ((_ to_fp e s) b) r)`, listed in
    /// [`Encoded::fresh_bits`]: standard SMT-LIB that z3, cvc5 and bitwuzla all read. `b` is
    /// the one encoding of a number `r`; a NaN `r` leaves it any NaN encoding, which no
    /// formula reads (a NaN result is the op's NaN choice, as in `Native`).
    Fresh,
}

/// Floating-point results as bits under a [`ToBits`], collecting what `Fresh` defines.
struct Bits<'p> {
    mode: ToBits,
    prefix: &'p str,
    definitions: Vec<Bool>,
    fresh: Vec<BV>,
}

impl Bits<'_> {
    fn of(&mut self, r: &Float, f: Format) -> BV {
        match self.mode {
            ToBits::Native => r.to_ieee_bv(),
            ToBits::Fresh => {
                let b = BV::new_const(format!("{}b{}", self.prefix, self.fresh.len()), f.width());
                self.definitions.push(float(&b, f).eq(r));
                self.fresh.push(b.clone());
                b
            }
        }
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

/// Encodes `program` with its inputs fixed to `values`. Z3 then folds the floating-point
/// operations on constants instead of bit-blasting them, so each query is fast.
pub fn encode_concrete(program: &Program, prefix: &str, nan: NanBits, values: &[u64]) -> Encoded {
    let inputs = program
        .input_widths
        .iter()
        .zip(values)
        .map(|(w, v)| BV::from_u64(*v, *w))
        .collect();
    encode_over(program, prefix, nan, inputs)
}

/// Encodes `program` over the given input terms (e.g. another encoding's inputs, so that
/// the rewriter sees shared subterms).
pub fn encode_over(program: &Program, prefix: &str, nan: NanBits, inputs: Vec<BV>) -> Encoded {
    encode_over_as(program, prefix, nan, ToBits::Native, inputs)
}

/// [`encode_over`] with floating-point results made bits as `to_bits` says.
pub fn encode_over_as(
    program: &Program,
    prefix: &str,
    nan: NanBits,
    to_bits: ToBits,
    inputs: Vec<BV>,
) -> Encoded {
    let mut values: Vec<BV> = Vec::with_capacity(program.ops.len());
    let mut intermediate = Vec::new();
    let mut bits = Bits {
        mode: to_bits,
        prefix,
        definitions: Vec::new(),
        fresh: Vec::new(),
    };
    for (i, op) in program.ops.iter().enumerate() {
        let w = program.widths[i];
        let v = |k: &u32| values[*k as usize].clone();
        let mut fp_result = |f: Format, r: Float| match nan {
            // A number is its bits; a NaN is a fresh variable constrained to the NaNs. (Binding
            // every result to a fresh variable, `to_fp(v) = r`, means the same, but hides the
            // value of a non-NaN result from the simplifier, so that an operation on a result
            // of another was bit-blasted even on concrete inputs: ~10 ms a query.)
            NanBits::Free => {
                let nan_bits = BV::new_const(format!("{prefix}v{i}"), f.width());
                bits.definitions.push(float(&nan_bits, f).is_nan());
                r.is_nan().ite(&nan_bits, &bits.of(&r, f))
            }
            NanBits::Pinned => r
                .is_nan()
                .ite(&BV::from_u64(f.default_nan(), f.width()), &bits.of(&r, f)),
        };
        let term = match op {
            Op::Input(k) => inputs[*k as usize].clone(),
            Op::Const(c) => BV::from_u64(*c, w),
            Op::Add(..)
            | Op::Sub(..)
            | Op::Mul(..)
            | Op::Div(..)
            | Op::Fma(..)
            | Op::Sqrt(..)
            | Op::Cvt(..) => {
                let (f, r) = rounded(op, &values, None).expect("a rounded operation");
                fp_result(f, r)
            }
            Op::Class(f, c, a) => {
                let x = float(&v(a), *f);
                bit(&match c {
                    Class::Nan => x.is_nan(),
                    Class::Inf => x.is_infinite(),
                    Class::Zero => x.is_zero(),
                    Class::Subnormal => x.is_subnormal(),
                    Class::Normal => x.is_normal(),
                    Class::Finite => Bool::or(&[x.is_nan(), x.is_infinite()]).not(),
                    Class::SignalingNan => {
                        let quiet_bit = f.precision() - 2;
                        Bool::and(&[
                            x.is_nan(),
                            v(a).extract(quiet_bit, quiet_bit).eq(BV::from_u64(0, 1)),
                        ])
                    }
                })
            }
            Op::FCmp(f, c, a, b) => {
                let (x, y) = (float(&v(a), *f), float(&v(b), *f));
                bit(&match c {
                    Cmp::Eq => x.eq_fpa(&y),
                    Cmp::Lt => x.lt(&y),
                    Cmp::Le => x.le(&y),
                })
            }
            Op::And(_, a, b) => v(a).bvand(v(b)),
            Op::Or(_, a, b) => v(a).bvor(v(b)),
            Op::Xor(_, a, b) => v(a).bvxor(v(b)),
            Op::Not(_, a) => v(a).bvnot(),
            Op::BvAdd(_, a, b) => v(a).bvadd(v(b)),
            Op::BvSub(_, a, b) => v(a).bvsub(v(b)),
            Op::BvEq(a, b) => bit(&v(a).eq(v(b))),
            Op::BvUlt(a, b) => bit(&v(a).bvult(v(b))),
            Op::BvSlt(_, a, b) => bit(&v(a).bvslt(v(b))),
            Op::BvMul(_, a, b) => v(a).bvmul(v(b)),
            Op::MulHi {
                width,
                signed,
                a,
                b,
            } => mul_hi(&v(a), &v(b), *width, *signed),
            Op::ShiftBy {
                kind,
                width,
                value,
                amount,
            } => shift_by(*kind, &v(value), &v(amount), *width),
            Op::Extract { value, lo, width } => v(value).extract(lo + width - 1, *lo),
            Op::Concat { hi, lo, .. } => v(hi).concat(v(lo)),
            Op::Shl(w, a, n) => {
                if n >= w {
                    BV::from_u64(0, *w)
                } else {
                    v(a).bvshl(BV::from_u64(u64::from(*n), *w))
                }
            }
            Op::Shr(w, a, n) => {
                if n >= w {
                    BV::from_u64(0, *w)
                } else {
                    v(a).bvlshr(BV::from_u64(u64::from(*n), *w))
                }
            }
            Op::Select(c, a, b) => truth(&v(c)).ite(&v(a), &v(b)),
            Op::Choose(k) => {
                let mut n = 0;
                choice_term(
                    &program.choices[*k as usize],
                    &values,
                    &format!("{prefix}choice{k}_"),
                    &mut n,
                    &mut intermediate,
                    &mut bits,
                )
            }
        };
        values.push(term);
    }
    let mut parts = Vec::new();
    let mut choices = Vec::new();
    for d in &program.dests {
        for (j, p) in d.parts.iter().enumerate() {
            let result = BV::new_const(format!("{prefix}{}_{j}", d.name), p.width);
            let allowed = allowed(&p.outcome, &result, &values, &mut bits);
            parts.push(EncodedPart {
                result,
                allowed,
                kind: p.kind,
                term: {
                    let mut n = 0;
                    choice_term(
                        &p.outcome,
                        &values,
                        &format!("{prefix}{}_{j}_c", d.name),
                        &mut n,
                        &mut choices,
                        &mut bits,
                    )
                },
                choices: std::mem::take(&mut choices),
            });
        }
    }
    Encoded {
        inputs,
        definitions: bits.definitions,
        fresh_bits: bits.fresh,
        parts,
        values,
        choices: intermediate,
    }
}

/// A rounded floating-point op (`add`, `sub`, `mul`, `div`, `fma`, `sqrt`, `cvt`) over the
/// terms `values` of earlier ops, rounded as `round` says (`None`: as the op says), with its
/// result format; `None` for every other op.
pub fn rounded(op: &Op, values: &[BV], round: Option<Round>) -> Option<(Format, Float)> {
    let v = |k: &u32, f: Format| float(&values[*k as usize], f);
    let mode = |r: &Round| rounding_mode(rm(round.unwrap_or(*r)));
    Some(match op {
        Op::Add(f, r, a, b) => (*f, v(a, *f).add_with_rounding_mode(v(b, *f), &mode(r))),
        Op::Sub(f, r, a, b) => (*f, v(a, *f).sub_with_rounding_mode(v(b, *f), &mode(r))),
        Op::Mul(f, r, a, b) => (*f, v(a, *f).mul_with_rounding_mode(v(b, *f), &mode(r))),
        Op::Div(f, r, a, b) => (*f, v(a, *f).div_with_rounding_mode(v(b, *f), &mode(r))),
        Op::Fma(f, r, a, b, c) => (
            *f,
            v(a, *f).fma_with_rounding_mode(v(b, *f), v(c, *f), &mode(r)),
        ),
        Op::Sqrt(f, r, a) => (*f, v(a, *f).sqrt_with_rounding_mode(&mode(r))),
        Op::Cvt(from, to, r, a) => (
            *to,
            v(a, *from).to_fp_with_rounding_mode(&mode(r), &fp_sort(to.exp_bits(), to.precision())),
        ),
        _ => return None,
    })
}

/// The outcome tree as a term (see [`EncodedPart::term`]); leaf variables are `{name}{n}`.
fn choice_term(
    o: &Outcome,
    values: &[BV],
    name: &str,
    n: &mut usize,
    choices: &mut Vec<Choice>,
    bits: &mut Bits,
) -> BV {
    match o {
        Outcome::Exact(v) => values[*v as usize].clone(),
        Outcome::OneOf(vs) if vs.len() == 1 => values[vs[0] as usize].clone(),
        Outcome::Select(c, a, b) => {
            let a = choice_term(a, values, name, n, choices, bits);
            let b = choice_term(b, values, name, n, choices, bits);
            truth(&values[*c as usize]).ite(&a, &b)
        }
        leaf => {
            let width = match leaf {
                Outcome::AnyNan(f) | Outcome::Any(f) => f.width(),
                Outcome::Within { format, .. } => format.width(),
                Outcome::OneOf(vs) => values[vs[0] as usize].get_size(),
                _ => unreachable!("exact and select are handled above"),
            };
            let var = BV::new_const(format!("{name}{n}"), width);
            *n += 1;
            let witness = match leaf {
                Outcome::AnyNan(f) => Some(BV::from_u64(f.default_nan(), width)),
                Outcome::OneOf(vs) => Some(values[vs[0] as usize].clone()),
                Outcome::Within {
                    func,
                    args,
                    format,
                    bound,
                    ftz: false,
                } if !bound_in_z3(*func, *bound, *format) => {
                    let actuals: Vec<BV> =
                        args.iter().map(|a| values[*a as usize].clone()).collect();
                    Some(uninterpreted(*func, *format, &actuals))
                }
                _ => None,
            };
            choices.push(Choice {
                allowed: allowed(leaf, &var, values, bits),
                var: var.clone(),
                witness,
                nan: matches!(leaf, Outcome::AnyNan(_)),
            });
            var
        }
    }
}

fn allowed(o: &Outcome, r: &BV, values: &[BV], bits: &mut Bits) -> Bool {
    match o {
        Outcome::Exact(v) => r.eq(&values[*v as usize]),
        Outcome::AnyNan(f) => is_nan(r, *f),
        Outcome::OneOf(vs) => Bool::or(
            &vs.iter()
                .map(|v| r.eq(&values[*v as usize]))
                .collect::<Vec<_>>(),
        ),
        Outcome::Select(c, a, b) => {
            let (a, b) = (allowed(a, r, values, bits), allowed(b, r, values, bits));
            truth(&values[*c as usize]).ite(&a, &b)
        }
        Outcome::Any(_) => Bool::from_bool(true),
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
            let actuals: Vec<BV> = args.iter().map(|a| values[*a as usize].clone()).collect();
            cs.push(
                stated_bound(*func, *bound, *format, &actuals, r, *ftz, bits)
                    .unwrap_or_else(|| r.eq(uninterpreted(*func, *format, &actuals))),
            );
            Bool::and(&cs)
        }
    }
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
    bits: &mut Bits,
) -> Option<Bool> {
    if !bound_in_z3(func, bound, f) {
        return None;
    }
    let (key_lo, key_hi) = match (func, bound) {
        (ApproxFn::Sqrt, Bound::RelErr(k)) => sqrt_rel_err_ends(&float(&args[0], f), f, k, bits),
        (_, Bound::Ulps(n)) => {
            let rne = rounding_mode(Rm::NearestEven);
            let (num, den) = match func {
                ApproxFn::Rcp => (
                    float(&BV::from_u64(f.one(false), f.width()), f),
                    float(&args[0], f),
                ),
                _ => (float(&args[0], f), float(&args[1], f)),
            };
            ulp_ends(&bits.of(&num.div_with_rounding_mode(den, &rne), f), f, n)
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
fn sqrt_rel_err_ends(x: &Float, f: Format, k: f64, bits: &mut Bits) -> (BV, BV) {
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
        key(bits.of(&end(-1.0, &ru), f)),
        key(bits.of(&end(1.0, &rd), f)),
    );
    let down = key(bits.of(&x.sqrt_with_rounding_mode(&rd), f));
    let up = key(bits.of(&x.sqrt_with_rounding_mode(&ru), f));
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
