//! A counterexample's IR function recomputed on its inputs apart from semfuzz's spec
//! evaluators (`spec/isa/llvm-*.sem`), written from LangRef's text (spec/isa-docs/
//! llvm-langref-*.md) as `scripts/llc-confirm.py` recomputes the triaged bugs by hand: integers
//! in exact `i128` arithmetic, floating point in exact rationals (GMP's, through `rug`) rounded
//! to nearest-even by [`round`] here. Poison (LangRef's `nuw`, `nsw`, `exact`, `disjoint`,
//! `nneg`, shift amounts) is tracked, so a counterexample on inputs where the IR is poison is
//! refuted. What it does not model (fast-math flags, vectors, a subnormal under a flushing
//! denormal mode, most intrinsics) it says it did not compute, and why.

use rug::ops::Pow;
use rug::{Integer, Rational};
use semfuzz_llir::lower::{denormal_modes, Denormal, Mode};
use semfuzz_llir::syntax::{FloatTy, Instr, Shape, Statement, Type, Value};
use std::collections::HashMap;

/// What the recomputation found, and how it got there.
pub struct Recomputed {
    /// One line per input and per instruction: the instruction and the value it gives.
    pub trace: Vec<String>,
    /// Its verdict on the counterexample.
    pub check: Check,
}

/// The recomputation's verdict.
pub enum Check {
    /// The IR's value is not the PTX's: the counterexample holds. Both values, described.
    Confirmed(String),
    /// The IR allows the PTX's value: why.
    Refuted(String),
    /// Not recomputed: why.
    NotComputed(String),
}

impl Recomputed {
    /// The report's paragraph: how it was computed and what it says.
    pub fn summary(&self) -> String {
        let how = "Recomputed outside semfuzz's spec evaluators, from LangRef's text, with exact \
                   integer arithmetic (i128) and exact rationals (GMP) rounded to nearest-even \
                   by hand (`tv/src/independent.rs`)";
        match &self.check {
            Check::Confirmed(what) => format!("{how}: confirmed. {what}"),
            Check::Refuted(why) => format!(
                "{how}: **NOT confirmed: {why}.** Do not file this report before that is \
                 resolved."
            ),
            Check::NotComputed(why) => format!(
                "{how}: not recomputed ({why}); the confirmation is semfuzz's evaluators' alone."
            ),
        }
    }
}

/// A value the recomputation holds.
#[derive(Clone)]
enum V {
    /// An integer of this width.
    Int(u32, u64),
    /// A float's bits.
    Float(FloatTy, u64),
    /// A NaN of this type, which LangRef's NaN rules leave open.
    AnyNan(FloatTy),
    /// Poison, and what made it.
    Poison(String),
}

/// `func` of the module `ll_text` on `inputs` (one per parameter), against the PTX's result
/// parts `ptx`.
pub fn recompute(ll_text: &str, func: &str, inputs: &[u64], ptx: &[u64]) -> Recomputed {
    let mut trace = Vec::new();
    let check = match run(ll_text, func, inputs, ptx, &mut trace) {
        Ok(c) => c,
        Err(why) => Check::NotComputed(why),
    };
    Recomputed { trace, check }
}

/// A step it does not model: why.
type Step<T> = Result<T, String>;

fn run(
    ll_text: &str,
    func: &str,
    inputs: &[u64],
    ptx: &[u64],
    trace: &mut Vec<String>,
) -> Step<Check> {
    let file = semfuzz_spec::diag::SourceFile::new("f.ll", ll_text);
    let module = semfuzz_llir::parse(&file).map_err(|d| d.message)?;
    let f = module
        .functions
        .iter()
        .find(|f| f.name == func)
        .ok_or_else(|| format!("no function @{func}"))?;
    if ptx.len() != 1 || inputs.len() != f.params.len() {
        return Err("a result of more than one part (a vector)".into());
    }
    let mut env: HashMap<String, V> = HashMap::new();
    for (p, bits) in f.params.iter().zip(inputs) {
        let v = match &p.ty {
            Type::Int(w) => V::Int(*w, bits & mask(*w)),
            Type::Float(t) => V::Float(*t, *bits),
            t => return Err(format!("a parameter of type {t}")),
        };
        trace.push(format!("%{} = {}", p.name, show(&v)));
        env.insert(p.name.clone(), v);
    }
    let modes = denormal_modes(&module, f).map_err(|d| d.message)?;
    for s in &f.body {
        let Statement::Instr(i) = s else { continue };
        // Debug-info calls (before LLVM 19's records) compute nothing.
        if i.callee
            .as_deref()
            .is_some_and(|c| c.starts_with("llvm.dbg."))
        {
            continue;
        }
        if i.opcode == "ret" {
            let ty = i.ty.clone().unwrap_or(Type::Void);
            let v = operand(&env, &i.operands[0].value, &ty)?;
            trace.push(format!("{i}  ->  {}", show(&v)));
            return Ok(judge(&v, ptx[0]));
        }
        let v = step(&env, i, &modes)?;
        trace.push(format!("{i}  ->  {}", show(&v)));
        let name = i.result.clone().ok_or("an instruction with no result")?;
        env.insert(name, v);
    }
    Err("the function does not return".into())
}

/// The recomputed result against the PTX's bits.
fn judge(v: &V, ptx: u64) -> Check {
    match v {
        V::Poison(why) => Check::Refuted(format!(
            "on these inputs the IR returns poison ({why}), so it allows every value"
        )),
        V::Int(w, bits) if ptx & mask(*w) == *bits => Check::Refuted(format!(
            "the IR returns {}, which is what the PTX computes",
            show(v)
        )),
        V::Float(_, bits) if *bits == ptx => Check::Refuted(format!(
            "the IR returns {}, which is what the PTX computes",
            show(v)
        )),
        V::AnyNan(t) if is_nan(*t, ptx) => Check::NotComputed(
            "the IR returns a NaN and so does the PTX; which NaNs LangRef allows is not \
             recomputed here"
                .into(),
        ),
        V::Int(w, _) => Check::Confirmed(format!(
            "The IR returns {}; the PTX computes {}.",
            show(v),
            show(&V::Int(*w, ptx & mask(*w)))
        )),
        V::Float(t, _) | V::AnyNan(t) => Check::Confirmed(format!(
            "The IR returns {}; the PTX computes {}.",
            show(v),
            show(&V::Float(*t, ptx))
        )),
    }
}

/// All ones in the low `w` bits.
fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

/// `bits` of width `w` read as signed.
fn signed(w: u32, bits: u64) -> i128 {
    let u = i128::from(bits & mask(w));
    if w > 0 && (u >> (w - 1)) & 1 == 1 {
        u - (1i128 << w)
    } else {
        u
    }
}

/// A value as the trace shows it: hex and decimal, a float's value, poison and why.
fn show(v: &V) -> String {
    match v {
        V::Int(w, b) => {
            let s = signed(*w, *b);
            if s < 0 {
                format!("{b:#x} = {b} (signed {s})")
            } else {
                format!("{b:#x} = {b}")
            }
        }
        V::Float(t, b) => match decode(*t, *b) {
            F::Nan => format!("{b:#x} (NaN)"),
            F::Inf(n) => format!("{b:#x} = {}inf", if n { "-" } else { "+" }),
            F::Zero(n) => format!("{b:#x} = {}0", if n { "-" } else { "+" }),
            F::Fin(r) => {
                let x = r.to_f64();
                if (1e-4..1e16).contains(&x.abs()) {
                    format!("{b:#x} = {x} (exactly {r})")
                } else {
                    format!("{b:#x} = {x:e} (exactly {r})")
                }
            }
        },
        V::AnyNan(_) => "a NaN".into(),
        V::Poison(why) => format!("poison ({why})"),
    }
}

/// The type an instruction's operand `k` has.
fn operand_type(i: &Instr, k: usize) -> Step<Type> {
    let o = &i.operands[k];
    o.ty.clone()
        .or_else(|| i.ty.clone())
        .ok_or_else(|| format!("`{}`: an operand of unknown type", i.opcode))
}

/// Operand `value` read as a `ty`.
fn operand(env: &HashMap<String, V>, value: &Value, ty: &Type) -> Step<V> {
    match value {
        Value::Local(n) => env
            .get(n)
            .cloned()
            .ok_or_else(|| format!("%{n} is not computed")),
        Value::Const(c) if c == "poison" => Ok(V::Poison("a poison constant".into())),
        Value::Const(c) => match ty {
            Type::Int(w) => {
                let n: i128 = match c.as_str() {
                    "true" => 1,
                    "false" | "zeroinitializer" => 0,
                    _ => c.parse().map_err(|_| format!("the constant `{c}`"))?,
                };
                Ok(V::Int(*w, (n as u64) & mask(*w)))
            }
            Type::Float(t) => float_constant(*t, c).map(|b| V::Float(*t, b)),
            _ => Err(format!("a constant of type {ty}")),
        },
        Value::Vector(_) | Value::Splat(_) => Err("a vector".into()),
        Value::Global(g) => Err(format!("the global @{g}")),
    }
}

/// A float constant's bits: `0xH`/`0xR` (half, bfloat bits), `0x` (a double's bits, as LLVM
/// writes every `float` and `double`), or a decimal, which must be exact in `t`.
fn float_constant(t: FloatTy, c: &str) -> Step<u64> {
    let bad = || format!("the {} constant `{c}`", t.keyword());
    let value = if let Some(h) = c.strip_prefix("0xH").or_else(|| c.strip_prefix("0xR")) {
        return u64::from_str_radix(h, 16).map_err(|_| bad());
    } else if let Some(h) = c.strip_prefix("0x") {
        let bits = u64::from_str_radix(h, 16).map_err(|_| bad())?;
        decode(FloatTy::Double, bits)
    } else {
        let (mantissa, exp) = c.split_once(['e', 'E']).unwrap_or((c, "0"));
        let exp: i64 = exp.parse().map_err(|_| bad())?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits: Integer = format!("{int}{frac}").parse().map_err(|_| bad())?;
        let e = exp - frac.len() as i64;
        let ten = Integer::from(10).pow(e.unsigned_abs() as u32);
        let r = if e >= 0 {
            Rational::from(digits * ten)
        } else {
            Rational::from((digits, ten))
        };
        let neg = mantissa.starts_with('-');
        if r == 0 {
            F::Zero(neg)
        } else {
            F::Fin(r)
        }
    };
    let bits = encode(t, &value);
    if decode(t, bits) != value {
        return Err(format!("{}: not exact in {}", bad(), t.keyword()));
    }
    Ok(bits)
}

/// One instruction's value.
fn step(env: &HashMap<String, V>, i: &Instr, modes: &Denormal) -> Step<V> {
    if i.shape == Shape::Unknown || i.ty.as_ref().is_some_and(|t| matches!(t, Type::Vector(..))) {
        return Err(format!("`{}` is not modelled here", i.opcode));
    }
    let mut ops = Vec::new();
    for k in 0..i.operands.len() {
        let ty = operand_type(i, k)?;
        if matches!(ty, Type::Vector(..)) {
            return Err("a vector".into());
        }
        ops.push(operand(env, &i.operands[k].value, &ty)?);
    }
    let flag = |w: &str| i.flags.iter().any(|x| x == w);
    // select and freeze see poison themselves; everything else is poison with an operand.
    if i.opcode == "select" {
        return Ok(match &ops[0] {
            V::Poison(why) => V::Poison(why.clone()),
            V::Int(_, c) => ops[if *c == 1 { 1 } else { 2 }].clone(),
            _ => return Err("a select on a non-i1".into()),
        });
    }
    if i.opcode == "freeze" {
        return match &ops[0] {
            V::Poison(_) => Err("`freeze` of poison: any value of its type".into()),
            v => Ok(v.clone()),
        };
    }
    if let Some(V::Poison(why)) = ops.iter().find(|v| matches!(v, V::Poison(_))) {
        return Ok(V::Poison(why.clone()));
    }
    let fast = i.flags.iter().any(|w| {
        matches!(
            w.as_str(),
            "nnan" | "ninf" | "nsz" | "arcp" | "contract" | "afn" | "reassoc" | "fast"
        )
    });
    if fast {
        return Err(format!(
            "`{}` has fast-math flags, which allow a set of values",
            i.opcode
        ));
    }
    let callee = i.callee.as_deref().unwrap_or("");
    let family = callee.split('.').take(2).collect::<Vec<_>>().join(".");
    match (&ops[..], i.opcode.as_str()) {
        ([V::Int(w, a), V::Int(_, b)], op) if i.shape == Shape::Typed => {
            int_binary(op, *w, *a, *b, &flag)
        }
        ([V::Int(w, a), V::Int(_, b)], "icmp") => icmp(
            i.pred.as_deref().unwrap_or(""),
            *w,
            *a,
            *b,
            flag("samesign"),
        ),
        ([V::Int(w, a)], "trunc" | "zext" | "sext") => {
            let to = match &i.to {
                Some(Type::Int(t)) => *t,
                _ => return Err("an integer cast to a non-integer".into()),
            };
            int_cast(&i.opcode, *w, *a, to, &flag)
        }
        ([a], "bitcast") => bitcast(a, i.to.as_ref()),
        (ops, "call") if family.starts_with("llvm.") => {
            let ints: Option<Vec<(u32, u64)>> = ops
                .iter()
                .map(|v| match v {
                    V::Int(w, b) => Some((*w, *b)),
                    _ => None,
                })
                .collect();
            match ints {
                Some(ints) => int_intrinsic(&family, &ints),
                None => float_op(&family, ops, None, modes),
            }
        }
        (ops, "fcmp") => fcmp(i.pred.as_deref().unwrap_or(""), ops, modes),
        (ops, op) => float_op(op, ops, i.to.as_ref(), modes),
    }
}

/// An integer binary operation of width `w`, with its poison conditions (LangRef).
fn int_binary(op: &str, w: u32, a: u64, b: u64, flag: &dyn Fn(&str) -> bool) -> Step<V> {
    let m = mask(w);
    let (sa, sb) = (signed(w, a), signed(w, b));
    let (min, max) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    let fits = |x: i128| (min..=max).contains(&x);
    let (ua, ub) = (u128::from(a), u128::from(b));
    let poison = |why: &str| Ok(V::Poison(format!("`{op}` {why}")));
    let r: u64 = match op {
        "add" | "sub" | "mul" => {
            let (u, s) = match op {
                "add" => (ua.checked_add(ub), sa + sb),
                "sub" => (ua.checked_sub(ub), sa - sb),
                _ => (ua.checked_mul(ub), sa * sb),
            };
            if flag("nuw") && u.is_none_or(|u| u > u128::from(m)) {
                return poison("nuw: unsigned overflow");
            }
            if flag("nsw") && !fits(s) {
                return poison("nsw: signed overflow");
            }
            (s as u64) & m
        }
        "shl" | "lshr" | "ashr" => {
            if b >= u64::from(w) {
                return poison("by at least the width");
            }
            let r = match op {
                "shl" => (a << b) & m,
                "lshr" => a >> b,
                _ => ((sa >> b) as u64) & m,
            };
            if op == "shl" {
                if flag("nuw") && r >> b != a {
                    return poison("nuw: shifts out a non-zero bit");
                }
                if flag("nsw") && signed(w, r) >> b != sa {
                    return poison("nsw: shifts out a bit that disagrees with the result's sign");
                }
            } else if flag("exact") && a & ((1 << b) - 1) != 0 {
                return poison("exact: shifts out a non-zero bit");
            }
            r
        }
        "and" => a & b,
        "or" => {
            if flag("disjoint") && a & b != 0 {
                return poison("disjoint: both have a one in the same bit");
            }
            a | b
        }
        "xor" => a ^ b,
        "udiv" | "urem" | "sdiv" | "srem" => {
            if b == 0 || (op.starts_with('s') && sa == min && sb == -1) {
                return Err(format!("`{op}` has undefined behaviour on these inputs"));
            }
            let (q, rem) = if op.starts_with('s') {
                ((sa / sb) as u64, (sa % sb) as u64)
            } else {
                (a / b, a % b)
            };
            if flag("exact") && rem & m != 0 {
                return poison("exact: a remainder");
            }
            if op.ends_with("div") {
                q & m
            } else {
                rem & m
            }
        }
        _ => return Err(format!("`{op}` is not modelled here")),
    };
    Ok(V::Int(w, r))
}

/// `icmp PRED` (LangRef), with `samesign`'s poison.
fn icmp(pred: &str, w: u32, a: u64, b: u64, samesign: bool) -> Step<V> {
    if samesign && (signed(w, a) < 0) != (signed(w, b) < 0) {
        return Ok(V::Poison(
            "`icmp samesign` on operands of different signs".into(),
        ));
    }
    let (sa, sb) = (signed(w, a), signed(w, b));
    let r = match pred {
        "eq" => a == b,
        "ne" => a != b,
        "ugt" => a > b,
        "uge" => a >= b,
        "ult" => a < b,
        "ule" => a <= b,
        "sgt" => sa > sb,
        "sge" => sa >= sb,
        "slt" => sa < sb,
        "sle" => sa <= sb,
        _ => return Err(format!("`icmp {pred}`")),
    };
    Ok(V::Int(1, u64::from(r)))
}

/// `trunc`, `zext`, `sext` from width `w` to `to`.
fn int_cast(op: &str, w: u32, a: u64, to: u32, flag: &dyn Fn(&str) -> bool) -> Step<V> {
    let poison = |why: &str| Ok(V::Poison(format!("`{op}` {why}")));
    let r = match op {
        "trunc" => {
            let r = a & mask(to);
            if flag("nuw") && r != a {
                return poison("nuw: drops a non-zero bit");
            }
            if flag("nsw") && signed(to, r) != signed(w, a) {
                return poison("nsw: drops a bit unlike the result's sign");
            }
            r
        }
        "zext" => {
            if flag("nneg") && signed(w, a) < 0 {
                return poison("nneg: a negative operand");
            }
            a
        }
        _ => (signed(w, a) as u64) & mask(to),
    };
    Ok(V::Int(to, r))
}

/// `llvm.smax` and friends, `llvm.abs`, `llvm.fshl`, `llvm.fshr` on integers.
fn int_intrinsic(family: &str, ops: &[(u32, u64)]) -> Step<V> {
    let (w, a) = ops[0];
    let b = ops.get(1).map_or(0, |o| o.1);
    let (sa, sb) = (signed(w, a), signed(w, b));
    let r = match family {
        "llvm.smax" => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
        "llvm.smin" => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        "llvm.umax" => a.max(b),
        "llvm.umin" => a.min(b),
        "llvm.abs" => {
            if b == 1 && sa == -(1i128 << (w - 1)) {
                return Ok(V::Poison(
                    "`llvm.abs` of the minimum with is_int_min_poison".into(),
                ));
            }
            (sa.unsigned_abs() as u64) & mask(w)
        }
        "llvm.fshl" | "llvm.fshr" => {
            let c = ops.get(2).map_or(0, |o| o.1) % u64::from(w);
            let wide = (u128::from(a) << w) | u128::from(b);
            let r = if family == "llvm.fshl" {
                (wide << c) >> w
            } else {
                wide >> c
            };
            (r as u64) & mask(w)
        }
        _ => return Err(format!("`{family}` is not modelled here")),
    };
    Ok(V::Int(w, r))
}

/// `bitcast` between a float and an integer of one width.
fn bitcast(a: &V, to: Option<&Type>) -> Step<V> {
    let bits = match a {
        V::Int(_, b) | V::Float(_, b) => *b,
        _ => return Err("a bitcast of a NaN LangRef leaves open".into()),
    };
    match to {
        Some(Type::Int(w)) => Ok(V::Int(*w, bits)),
        Some(Type::Float(t)) => Ok(V::Float(*t, bits)),
        _ => Err("a bitcast to a vector".into()),
    }
}

/// A float's value.
#[derive(Clone, Debug, PartialEq)]
enum F {
    Nan,
    /// Infinity, negative or not.
    Inf(bool),
    /// Zero, negative or not.
    Zero(bool),
    /// A non-zero finite value, exactly.
    Fin(Rational),
}

/// Exponent and fraction widths.
fn layout(t: FloatTy) -> (u32, u32) {
    match t {
        FloatTy::Half => (5, 10),
        FloatTy::BFloat => (8, 7),
        FloatTy::Float => (8, 23),
        FloatTy::Double => (11, 52),
    }
}

fn pow2(k: i64) -> Rational {
    let p = Integer::from(1) << (k.unsigned_abs() as u32);
    if k >= 0 {
        Rational::from(p)
    } else {
        Rational::from((Integer::from(1), p))
    }
}

fn is_nan(t: FloatTy, bits: u64) -> bool {
    matches!(decode(t, bits), F::Nan)
}

fn decode(t: FloatTy, bits: u64) -> F {
    let (e, m) = layout(t);
    let neg = (bits >> (e + m)) & 1 == 1;
    let exp = ((bits >> m) & ((1 << e) - 1)) as i64;
    let frac = bits & ((1 << m) - 1);
    let bias = (1i64 << (e - 1)) - 1;
    let r = match exp {
        0 if frac == 0 => return F::Zero(neg),
        0 => Rational::from(frac) * pow2(1 - bias - i64::from(m)),
        x if x == (1 << e) - 1 => return if frac == 0 { F::Inf(neg) } else { F::Nan },
        x => Rational::from(frac | (1 << m)) * pow2(x - bias - i64::from(m)),
    };
    F::Fin(if neg { -r } else { r })
}

/// The bits of `v` in `t`: a finite value rounded to nearest, ties to even, overflowing to
/// infinity; a NaN as the quiet NaN with no payload.
fn encode(t: FloatTy, v: &F) -> u64 {
    let (e, m) = layout(t);
    let sign = |neg: bool| u64::from(neg) << (e + m);
    let inf = ((1u64 << e) - 1) << m;
    match v {
        F::Nan => inf | (1 << (m - 1)),
        F::Inf(n) => sign(*n) | inf,
        F::Zero(n) => sign(*n),
        F::Fin(r) => round(t, r),
    }
}

/// A non-zero rational rounded to `t` (IEEE 754 roundTiesToEven, with subnormals).
fn round(t: FloatTy, r: &Rational) -> u64 {
    let (e, m) = layout(t);
    let neg = *r < 0;
    let bias = (1i64 << (e - 1)) - 1;
    let (q, exp) = round_significand(&Rational::from(r.abs_ref()), m, 1 - bias);
    let sign = u64::from(neg) << (e + m);
    if exp > bias {
        return sign | (((1u64 << e) - 1) << m);
    }
    let q = q.to_u64().expect("fits the fraction");
    if q < 1 << m {
        sign | q
    } else {
        sign | (((exp + bias) as u64) << m) | (q - (1 << m))
    }
}

/// A positive rational `a` rounded to `m` fraction bits, ties to even, its exponent at least
/// `min_exp` (below it the significand loses bits, as a subnormal does): the significand `q`
/// and exponent `exp` with the rounded value `q · 2^(exp - m)`, `q` below `2^(m+1)` (a carry
/// out of the rounding raises `exp`).
fn round_significand(a: &Rational, m: u32, min_exp: i64) -> (Integer, i64) {
    // floor(log2 a) is one of two values, by the bit lengths of the numerator and denominator.
    let guess = i64::from(a.numer().significant_bits()) - i64::from(a.denom().significant_bits());
    let exp = if *a >= pow2(guess) { guess } else { guess - 1 };
    let mut exp = exp.max(min_exp);
    let scaled = a / pow2(exp - i64::from(m));
    let floor = Rational::from(scaled.floor_ref());
    let rest = scaled - &floor;
    let mut q = floor.numer().clone();
    let half = Rational::from((1, 2));
    if rest > half || (rest == half && q.is_odd()) {
        q += 1;
    }
    if q == Integer::from(1) << (m + 1) {
        q >>= 1;
        exp += 1;
    }
    (q, exp)
}

/// The value of a finite or infinite operand as a signed rational (±infinity as `None`).
fn exact(v: &F) -> Option<Rational> {
    match v {
        F::Zero(_) => Some(Rational::new()),
        F::Fin(r) => Some(r.clone()),
        _ => None,
    }
}

fn negative(v: &F) -> bool {
    match v {
        F::Zero(n) | F::Inf(n) => *n,
        F::Fin(r) => *r < 0,
        F::Nan => false,
    }
}

/// A float operation: `fadd fsub fmul fdiv fneg`, `llvm.fma`, `llvm.fabs`, `llvm.copysign`,
/// and the conversions `fpext fptrunc sitofp uitofp fptosi fptoui`.
fn float_op(op: &str, ops: &[V], to: Option<&Type>, modes: &Denormal) -> Step<V> {
    let ty = ops.iter().find_map(|v| match v {
        V::Float(t, _) | V::AnyNan(t) => Some(*t),
        _ => None,
    });
    let vals: Vec<F> = ops
        .iter()
        .map(|v| match v {
            V::Float(t, b) => decode(*t, *b),
            _ => F::Nan,
        })
        .collect();
    let check = |t: FloatTy, v: &F| unflushed(modes, t, std::iter::once(v).chain(&vals));
    let float = |t: FloatTy, v: F| -> Step<V> {
        check(t, &v)?;
        Ok(match v {
            F::Nan => V::AnyNan(t),
            v => V::Float(t, encode(t, &v)),
        })
    };
    let bits = |k: usize| match &ops[k] {
        V::Float(_, b) => Some(*b),
        _ => None,
    };
    match op {
        "fneg" | "llvm.fabs" | "llvm.copysign" => {
            let t = ty.ok_or("a float operation on no float")?;
            let b = bits(0).ok_or("a NaN LangRef leaves open")?;
            let s = 1u64 << (layout(t).0 + layout(t).1);
            let r = match op {
                "fneg" => b ^ s,
                "llvm.fabs" => b & !s,
                _ => (b & !s) | (bits(1).ok_or("a NaN LangRef leaves open")? & s),
            };
            Ok(V::Float(t, r))
        }
        "fadd" | "fsub" | "fmul" | "fdiv" | "llvm.fma" => {
            let t = ty.ok_or("a float operation on no float")?;
            let r = match op {
                "fadd" => add(&vals[0], &vals[1]),
                "fsub" => add(&vals[0], &neg(&vals[1])),
                "fmul" => mul(&vals[0], &vals[1]),
                "fdiv" => div(&vals[0], &vals[1]),
                _ => add(&mul(&vals[0], &vals[1]), &vals[2]),
            };
            unflushed_result(modes, t, &r)?;
            float(t, rounded(t, r))
        }
        "fpext" | "fptrunc" | "sitofp" | "uitofp" => {
            let Some(Type::Float(tt)) = to else {
                return Err(format!("`{op}` to a non-float"));
            };
            let v = match &ops[0] {
                V::Int(w, b) => {
                    let n = if op == "sitofp" {
                        signed(*w, *b)
                    } else {
                        i128::from(*b)
                    };
                    if n == 0 {
                        F::Zero(false)
                    } else {
                        F::Fin(Rational::from(n))
                    }
                }
                _ => vals[0].clone(),
            };
            if let Some(t) = ty {
                check(t, &vals[0])?;
            }
            unflushed_result(modes, *tt, &v)?;
            float(*tt, rounded(*tt, v))
        }
        "fptosi" | "fptoui" => {
            let Some(Type::Int(w)) = to else {
                return Err(format!("`{op}` to a non-integer"));
            };
            let Some(x) = exact(&vals[0]) else {
                return Ok(V::Poison(format!("`{op}` of a NaN or an infinity")));
            };
            let n = Rational::from(x.trunc_ref()).numer().clone();
            let (lo, hi) = if op == "fptosi" {
                (
                    -(Integer::from(1) << (w - 1)),
                    (Integer::from(1) << (w - 1)) - 1,
                )
            } else {
                (Integer::new(), (Integer::from(1) << *w) - 1)
            };
            if n < lo || n > hi {
                return Ok(V::Poison(format!("`{op}`: the value does not fit")));
            }
            let n = n.to_i128().expect("fits");
            Ok(V::Int(*w, (n as u64) & mask(*w)))
        }
        _ => Err(format!("`{op}` is not modelled here")),
    }
}

/// Refuses a subnormal among `vals` where the function's denormal mode for `t` flushes: that
/// is not modelled here.
fn unflushed<'a>(modes: &Denormal, t: FloatTy, mut vals: impl Iterator<Item = &'a F>) -> Step<()> {
    let (out, inp) = if t == FloatTy::Float {
        modes.f32
    } else {
        modes.other
    };
    let smallest_normal = pow2(2 - (1i64 << (layout(t).0 - 1)));
    let subnormal = |v: &F| matches!(v, F::Fin(r) if Rational::from(r.abs_ref()) < smallest_normal);
    if (out != Mode::Ieee || inp != Mode::Ieee) && vals.any(subnormal) {
        return Err("a subnormal under a flushing \"denormal-fp-math\"".into());
    }
    Ok(())
}

/// Refuses an exact result `v` that the function's output mode for `t` may flush although it
/// rounds up to the smallest normal: one tiny after rounding (rounded to `t`'s precision with
/// an unbounded exponent, still below 2^emin: docs/ambiguities.md 182), which is not modelled
/// here. A result that rounds to a subnormal is refused by [`unflushed`].
fn unflushed_result(modes: &Denormal, t: FloatTy, v: &F) -> Step<()> {
    let out = if t == FloatTy::Float {
        modes.f32.0
    } else {
        modes.other.0
    };
    let F::Fin(r) = v else {
        return Ok(());
    };
    let (e, m) = layout(t);
    let (_, exp) = round_significand(&Rational::from(r.abs_ref()), m, i64::MIN);
    let emin = 2 - (1i64 << (e - 1));
    if out != Mode::Ieee && exp < emin {
        return Err("a result tiny after rounding under a flushing \"denormal-fp-math\"".into());
    }
    Ok(())
}

/// `v` as `t` holds it: a finite value rounded, underflowing to a zero of its sign.
fn rounded(t: FloatTy, v: F) -> F {
    match v {
        F::Fin(r) => decode(t, round(t, &r)),
        v => v,
    }
}

fn neg(v: &F) -> F {
    match v {
        F::Nan => F::Nan,
        F::Inf(n) => F::Inf(!n),
        F::Zero(n) => F::Zero(!n),
        F::Fin(r) => F::Fin(Rational::from(-r)),
    }
}

/// The exact sum (IEEE 754: an exact zero sum is +0 unless both are -0).
fn add(a: &F, b: &F) -> F {
    match (a, b) {
        (F::Nan, _) | (_, F::Nan) => F::Nan,
        (F::Inf(x), F::Inf(y)) if x != y => F::Nan,
        (F::Inf(x), _) | (_, F::Inf(x)) => F::Inf(*x),
        (F::Zero(x), F::Zero(y)) => F::Zero(*x && *y),
        _ => {
            let s = exact(a).expect("finite") + exact(b).expect("finite");
            if s == 0 {
                F::Zero(false)
            } else {
                F::Fin(s)
            }
        }
    }
}

/// The exact product.
fn mul(a: &F, b: &F) -> F {
    let sign = negative(a) != negative(b);
    match (a, b) {
        (F::Nan, _) | (_, F::Nan) => F::Nan,
        (F::Inf(_), F::Zero(_)) | (F::Zero(_), F::Inf(_)) => F::Nan,
        (F::Inf(_), _) | (_, F::Inf(_)) => F::Inf(sign),
        (F::Zero(_), _) | (_, F::Zero(_)) => F::Zero(sign),
        (F::Fin(x), F::Fin(y)) => F::Fin(Rational::from(x * y)),
    }
}

/// The exact quotient.
fn div(a: &F, b: &F) -> F {
    let sign = negative(a) != negative(b);
    match (a, b) {
        (F::Nan, _) | (_, F::Nan) => F::Nan,
        (F::Inf(_), F::Inf(_)) | (F::Zero(_), F::Zero(_)) => F::Nan,
        (F::Inf(_), _) | (_, F::Zero(_)) => F::Inf(sign),
        (_, F::Inf(_)) | (F::Zero(_), _) => F::Zero(sign),
        (F::Fin(x), F::Fin(y)) => F::Fin(Rational::from(x / y)),
    }
}

/// `fcmp PRED` on two floats (LangRef: ordered predicates are false on a NaN, unordered ones
/// true).
fn fcmp(pred: &str, ops: &[V], modes: &Denormal) -> Step<V> {
    let (t, a, b) = match ops {
        [V::Float(t, a), V::Float(_, b)] => (*t, decode(*t, *a), decode(*t, *b)),
        [V::AnyNan(t), _] | [_, V::AnyNan(t)] => (*t, F::Nan, F::Nan),
        _ => return Err("`fcmp` on a non-float".into()),
    };
    unflushed(modes, t, [&a, &b].into_iter())?;
    let key = |v: &F| -> Option<(i8, Rational)> {
        match v {
            F::Nan => None,
            F::Inf(n) => Some((if *n { -1 } else { 1 }, Rational::new())),
            v => Some((0, exact(v).expect("finite"))),
        }
    };
    let ord = match (key(&a), key(&b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => None,
    };
    use std::cmp::Ordering::*;
    let r = match (pred, ord) {
        ("false", _) => false,
        ("true", _) => true,
        ("ord", o) => o.is_some(),
        ("uno", o) => o.is_none(),
        (p, None) => p.starts_with('u'),
        ("oeq" | "ueq", Some(o)) => o == Equal,
        ("one" | "une", Some(o)) => o != Equal,
        ("ogt" | "ugt", Some(o)) => o == Greater,
        ("oge" | "uge", Some(o)) => o != Less,
        ("olt" | "ult", Some(o)) => o == Less,
        ("ole" | "ule", Some(o)) => o != Greater,
        (p, _) => return Err(format!("`fcmp {p}`")),
    };
    Ok(V::Int(1, u64::from(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(ll: &str, inputs: &[u64], ptx: u64) -> (String, Vec<String>) {
        let r = recompute(ll, "f", inputs, &[ptx]);
        (r.summary(), r.trace)
    }

    /// FuzzX #002: at x = 0xffff the IR is well defined and returns 0xffff8000; at
    /// x = 0xa43d its `shl nsw` is poison.
    #[test]
    fn integers_with_their_poison() {
        let ll = "define i32 @f(i16 %x) {\n  %s = shl nsw i16 %x, 15\n  %e = sext i16 %s to i32\n  ret i32 %e\n}\n";
        let (s, trace) = check(ll, &[0xffff], 0x8000);
        assert!(s.contains(": confirmed. The IR returns 0xffff8000"), "{s}");
        assert!(
            trace[1].ends_with("->  0x8000 = 32768 (signed -32768)"),
            "{trace:?}"
        );
        let (s, _) = check(ll, &[0xa43d], 0x8000);
        assert!(
            s.contains("NOT confirmed: on these inputs the IR returns poison (`shl` nsw"),
            "{s}"
        );
        let (s, _) = check(ll, &[0xffff], 0xffff8000);
        assert!(s.contains("which is what the PTX computes"), "{s}");
    }

    /// The double rounding of `fma_bf16` at sm_70 (docs/llc-validation.md bug 1):
    /// scripts/llc-confirm.py's "once 0x5011".
    #[test]
    fn floats_round_once_to_nearest_even() {
        let ll = "declare bfloat @llvm.fma.bf16(bfloat, bfloat, bfloat)\n\ndefine bfloat @f(bfloat %a, bfloat %b, bfloat %c) {\n  %r = call bfloat @llvm.fma.bf16(bfloat %a, bfloat %b, bfloat %c)\n  ret bfloat %r\n}\n";
        let (s, _) = check(ll, &[0x9808, 0xf788, 0x2080], 0x5010);
        assert!(s.contains("confirmed. The IR returns 0x5011"), "{s}");
        let add =
            "define float @f(float %a, float %b) {\n  %r = fadd float %a, %b\n  ret float %r\n}\n";
        // 1 + 2^-24 is a tie: to even, 1.0.
        let (s, _) = check(add, &[0x3f80_0000, 0x3380_0000], 0x3f80_0001);
        assert!(s.contains("The IR returns 0x3f800000"), "{s}");
        // The smallest subnormal halved is a tie to +0.
        let mul = "define float @f(float %a) {\n  %r = fmul float %a, 0x3FE0000000000000\n  ret float %r\n}\n";
        let (s, _) = check(mul, &[1], 1);
        assert!(s.contains("The IR returns 0x0 = +0"), "{s}");
        let fast =
            "define float @f(float %a) {\n  %r = fmul fast float %a, 2.0\n  ret float %r\n}\n";
        assert!(check(fast, &[1], 1)
            .0
            .contains("not recomputed (`fmul` has fast-math flags"));
    }

    /// Under preserve-sign a result tiny after rounding is not recomputed (the mode may flush
    /// it: docs/ambiguities.md 182), whether it rounds to a subnormal or up to 2^-126; a bf16
    /// product that is tiny at f32's precision but not at bf16's is, and the flush the PTX
    /// does is confirmed as a difference (upstream report llvm-4).
    #[test]
    fn results_a_flushing_mode_may_flush_are_not_recomputed() {
        let mul = |ty: &str| {
            format!("define {ty} @f({ty} %a, {ty} %b) #0 {{\n  %r = fmul {ty} %a, %b\n  ret {ty} %r\n}}\n\nattributes #0 = {{ \"denormal-fp-math\"=\"preserve-sign,preserve-sign\" }}\n")
        };
        let (s, _) = check(&mul("float"), &[0x00ff_ffff, 0x3f00_0000], 0);
        assert!(
            s.contains("not recomputed (a result tiny after rounding"),
            "{s}"
        );
        let (s, _) = check(&mul("float"), &[0x3f7f_fffe, 0x0080_0001], 0);
        assert!(s.contains("confirmed. The IR returns 0x800000"), "{s}");
        let (s, _) = check(&mul("bfloat"), &[0x93cf, 0xac1e], 0);
        assert!(s.contains("confirmed. The IR returns 0x80"), "{s}");
    }
}
