//! Narrow formats' arithmetic (f16, bf16, tf32, f32 under a directed rounding, fp8) in native
//! f64, where that is provably exact, followed by one rounding to the narrow format in inline
//! integer code: no call into `semfuzz-fp` per operation.
//!
//! The formats are those [`fits`] accepts: at most 8 exponent bits and 24 bits of precision,
//! so every finite value is a multiple of 2^-149 below 2^128, and every one (subnormals
//! included) is a normal f64. The arguments, each with its bound:
//!
//! - **Widening** ([`widen`]) is exact: ≤ 24 significand bits fit f64's 53, and 2^-149 ..
//!   2^128 lies inside f64's normal range (2^-1022 .. 2^1024).
//! - **Products** are exact in f64: ≤ 2·24 = 48 significand bits ≤ 53, and a nonzero product
//!   lies in 2^-298 .. 2^256, again inside f64's normal range.
//! - **Sums** `s = RN64(a + b)` (and `a·b + c` with the exact product) are made exact as a
//!   pair by TwoSum (Knuth; Muller et al., *Handbook of Floating-Point Arithmetic*, §4.3):
//!   `s + err = a + b` exactly when nothing overflows, and |a + b| < 2^257 ≪ 2^1024. Where the
//!   format's whole range spans at most 53 bits (f16: its sums are multiples of 2^-24 below
//!   2^17, 41 bits) `a + b` is itself exact and `err` is not computed.
//! - **Rounding to odd**: `s` is replaced by its odd neighbour on `err`'s side when `err ≠ 0`
//!   and `s` is even ([`to_odd`]). Rounding the round-to-odd value at p = 53 bits to q bits,
//!   in any of the five modes, equals rounding the exact value, whenever p ≥ q + 2 (Boldo and
//!   Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding
//!   to odd", IEEE TC 57(4), 2008, Theorem 1); here q ≤ 24. The narrow format's subnormal
//!   range only makes its grid coarser (fewer kept bits), so the condition still holds, and
//!   the f64 values stay normal (≥ 2^-298), so p is 53 everywhere.
//! - **The final rounding** ([`narrow`]) is exact integer code on the f64's bits.
//!
//! Division and square root have no exact pair this way and stay calls into `semfuzz-fp`.
//! NaN results are the caller's: [`narrow`] returns some NaN of the format for a NaN, and
//! the lowering replaces it by `semfuzz-fp`'s NaN.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;
use semfuzz_fp::{Format, Round};

const I64: types::Type = types::I64;
/// f64's exponent field, all ones (the infinities and NaNs).
const F64_EXP: i64 = 0x7ff << 52;
/// f64's trailing significand field.
const F64_FRAC: i64 = (1 << 52) - 1;

/// Whether [`widen`], [`sum`], [`product`] and [`narrow`] are exact for `f` (module docs):
/// at most 8 exponent bits and 24 bits of precision.
pub fn fits(f: Format) -> bool {
    f.exp_bits() <= 8 && f.precision() <= 24
}

/// The value of `f`'s encoding `x` as an f64 (exact; a NaN stays some NaN). Without
/// `subnormals` the caller knows `x` is never a subnormal of `f`, and the widening of one (an
/// integer conversion and a multiply) is left out: a zero exponent field is then a zero.
pub fn widen(b: &mut FunctionBuilder<'_>, f: Format, x: Value, subnormals: bool) -> Value {
    if f == Format::F32 {
        // The hardware's f32 -> f64 conversion is exact (subnormals included: the process
        // keeps the default floating-point environment, as the native f32 arithmetic also
        // assumes) and keeps a NaN a NaN: two instructions for the twenty below.
        let single = b.ins().ireduce(types::I32, x);
        let single = b.ins().bitcast(types::F32, MemFlagsData::new(), single);
        return b.ins().fpromote(types::F64, single);
    }
    let t = i64::from(f.precision() - 1);
    let mag = b.ins().band_imm_s(x, (f.mask() >> 1) as i64);
    let field = b.ins().ushr_imm_s(mag, t);
    let frac = b.ins().band_imm_s(mag, (1 << t) - 1);
    // The fields moved into f64's places: exponent at bit 52, fraction just below it.
    let up = b.ins().ishl_imm_s(mag, 52 - t);
    let normal = b.ins().iadd_imm_s(up, (1023 - i64::from(f.bias())) << 52);
    let special = b.ins().bor_imm_s(up, F64_EXP);
    // A subnormal (or zero) is frac · 2^(emin - t): frac < 2^23 converts exactly, and the
    // power of two scales exactly since the result is ≥ 2^-149, normal in f64.
    let small = if subnormals {
        let scale = b.ins().iconst(I64, (1023 + i64::from(f.emin()) - t) << 52);
        let scale = b.ins().bitcast(types::F64, MemFlagsData::new(), scale);
        let small = b.ins().fcvt_from_sint(types::F64, frac);
        let small = b.ins().fmul(small, scale);
        b.ins().bitcast(I64, MemFlagsData::new(), small)
    } else {
        b.ins().iconst(I64, 0)
    };
    let is_small = b.ins().icmp_imm_s(IntCC::Equal, field, 0);
    let max_field = i64::from((1u32 << f.exp_bits()) - 1);
    let is_special = b.ins().icmp_imm_s(IntCC::Equal, field, max_field);
    let m = b.ins().select(is_special, special, normal);
    let m = b.ins().select(is_small, small, m);
    // `x` holds no bits above f's width (the lowering's values are the interpreter's slots).
    let sign = b.ins().ushr_imm_s(x, i64::from(f.width() - 1));
    let sign = b.ins().ishl_imm_s(sign, 63);
    let bits = b.ins().bor(m, sign);
    b.ins().bitcast(types::F64, MemFlagsData::new(), bits)
}

/// Whether every sum of two of `f`'s values is exact in f64: its bits run from the
/// subnormal unit 2^(emin - p + 1) to 2^(emax + 1), at most 53 of them.
fn sums_exact(f: Format) -> bool {
    let lowest = f.emin() - f.precision() as i32 + 1;
    f.bias() + 1 - lowest < 53
}

/// `s` rounded to odd given the exact error `err` of `s` (module docs): when `err ≠ 0` and
/// `s`'s last bit is 0, the neighbour of `s` on `err`'s side, whose last bit is 1 (adjacent
/// f64 magnitudes alternate parity, across a binade boundary too). An infinite `s` (whose
/// TwoSum error is NaN) is left alone; `s` is never 0 when `err ≠ 0`, since a nonzero exact
/// sum of multiples of 2^-298 rounds to a nonzero f64.
fn to_odd(b: &mut FunctionBuilder<'_>, s: Value, err: Value) -> Value {
    let bits = b.ins().bitcast(I64, MemFlagsData::new(), s);
    let e = b.ins().bitcast(I64, MemFlagsData::new(), err);
    let zero = b.ins().f64const(0.0);
    let inexact = b.ins().fcmp(FloatCC::NotEqual, err, zero);
    let mag = b.ins().band_imm_s(bits, i64::MAX);
    let finite = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, mag, F64_EXP);
    let low = b.ins().band_imm_s(bits, 1);
    let even = b.ins().icmp_imm_s(IntCC::Equal, low, 0);
    // Same signs: the exact value is farther from zero than `s`, so the magnitude grows.
    let signs = b.ins().bxor(bits, e);
    let same = b
        .ins()
        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, signs, 0);
    let (up, down) = (b.ins().iconst(I64, 1), b.ins().iconst(I64, -1));
    let step = b.ins().select(same, up, down);
    let stepped = b.ins().iadd(bits, step);
    let adjust = b.ins().band(inexact, finite);
    let adjust = b.ins().band(adjust, even);
    let r = b.ins().select(adjust, stepped, bits);
    b.ins().bitcast(types::F64, MemFlagsData::new(), r)
}

/// `x + y` of two widened values of `f`, rounded to odd (or exact), with the sign IEEE 754
/// gives an exact zero sum under `r` (§6.3: +0, but -0 when rounding down unless both are +0;
/// the f64 addition gives the round-to-nearest sign).
pub fn sum(b: &mut FunctionBuilder<'_>, f: Format, r: Round, x: Value, y: Value) -> Value {
    let s = b.ins().fadd(x, y);
    let s = if sums_exact(f) {
        s
    } else {
        // TwoSum: err = (x - (s - (s - x))) + (y - (s - x)), exact without overflow.
        let y1 = b.ins().fsub(s, x);
        let x1 = b.ins().fsub(s, y1);
        let dx = b.ins().fsub(x, x1);
        let dy = b.ins().fsub(y, y1);
        let err = b.ins().fadd(dx, dy);
        to_odd(b, s, err)
    };
    if r != Round::Down {
        return s;
    }
    let bits = b.ins().bitcast(I64, MemFlagsData::new(), s);
    let mag = b.ins().band_imm_s(bits, i64::MAX);
    let is_zero = b.ins().icmp_imm_s(IntCC::Equal, mag, 0);
    let xb = b.ins().bitcast(I64, MemFlagsData::new(), x);
    let yb = b.ins().bitcast(I64, MemFlagsData::new(), y);
    let any = b.ins().bor(xb, yb);
    let not_both_plus = b.ins().icmp_imm_s(IntCC::NotEqual, any, 0);
    let minus = b.ins().band(is_zero, not_both_plus);
    let neg_zero = b.ins().f64const(-0.0);
    b.ins().select(minus, neg_zero, s)
}

/// `x · y` of two widened values of `f`: exact in f64 (module docs).
pub fn product(b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Value {
    b.ins().fmul(x, y)
}

/// The f64 `s` (zero, normal, infinite or NaN; an exact value or a round-to-odd one) rounded
/// to `f` under `r`: integer code on its bits, as `semfuzz-fp`'s `round_pack` would round
/// the exact value (overflow to infinity or the largest finite value by the mode; an
/// infinite `s` stays infinite). A NaN `s` gives unspecified bits: each caller writes the
/// NaN its operation returns (an arithmetic op by `semfuzz-fp`'s rule, a conversion from its
/// operand's payload), so rounding does not test for one a second time.
pub fn narrow(b: &mut FunctionBuilder<'_>, f: Format, r: Round, s: Value) -> Value {
    if r == Round::NearestEven {
        return narrow_even(b, f, s);
    }
    let q = i64::from(f.precision());
    let bits = b.ins().bitcast(I64, MemFlagsData::new(), s);
    let sign = b.ins().ushr_imm_s(bits, 63);
    let mag = b.ins().band_imm_s(bits, i64::MAX);
    let field = b.ins().ushr_imm_s(mag, 52);
    let frac = b.ins().band_imm_s(mag, F64_FRAC);
    // The significand with its hidden bit; 0 for a zero (the only f64 with field 0 here).
    let nonzero = b.ins().icmp_imm_s(IntCC::NotEqual, field, 0);
    let hidden = b.ins().uextend(I64, nonzero);
    let hidden = b.ins().ishl_imm_s(hidden, 52);
    let m = b.ins().bor(frac, hidden);
    // Bits dropped: 53 - q, plus how far below f's emin the value lies (capped at 63: m has
    // 53 bits, so a shift of 63 keeps 0 with a round bit of 0 and the rest sticky).
    let emin = i64::from(f.emin()) + 1023;
    let below = b.ins().iconst(I64, emin);
    let below = b.ins().isub(below, field);
    let zero = b.ins().iconst(I64, 0);
    let below = b.ins().smax(below, zero);
    let drop = b.ins().iadd_imm_s(below, 53 - q);
    let cap = b.ins().iconst(I64, 63);
    let drop = b.ins().umin(drop, cap);
    let kept = b.ins().ushr(m, drop);
    let drop1 = b.ins().iadd_imm_s(drop, -1);
    let half = b.ins().ushr(m, drop1);
    let round_bit = b.ins().band_imm_s(half, 1);
    let one = b.ins().iconst(I64, 1);
    let rest = b.ins().ishl(one, drop1);
    let rest = b.ins().iadd_imm_s(rest, -1);
    let rest = b.ins().band(m, rest);
    let sticky = b.ins().icmp_imm_s(IntCC::NotEqual, rest, 0);
    let sticky = b.ins().uextend(I64, sticky);
    let inexact = b.ins().bor(round_bit, sticky);
    let up = match r {
        Round::NearestEven => {
            let odd = b.ins().band_imm_s(kept, 1);
            let t = b.ins().bor(sticky, odd);
            b.ins().band(round_bit, t)
        }
        Round::NearestAway => round_bit,
        Round::TowardZero => zero,
        Round::Up => {
            let positive = b.ins().bxor_imm_s(sign, 1);
            b.ins().band(positive, inexact)
        }
        Round::Down => b.ins().band(sign, inexact),
    };
    let kept = b.ins().iadd(kept, up);
    // The encoding is (biased exponent - 1) · 2^(q-1) + the rounded significand: a carry out
    // of the significand (or out of the subnormal range) moves into the exponent by itself.
    let exp = b.ins().iadd_imm_s(field, -emin);
    let exp = b.ins().smax(exp, zero);
    let exp = b.ins().ishl_imm_s(exp, q - 1);
    let enc = b.ins().iadd(exp, kept);
    let inf = f.inf(false) as i64;
    let over = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, enc, inf);
    let (to_inf, to_max) = (
        b.ins().iconst(I64, inf),
        b.ins().iconst(I64, f.max_finite(false) as i64),
    );
    let overflow = match r {
        Round::NearestEven | Round::NearestAway => to_inf,
        Round::TowardZero => to_max,
        Round::Up => b.ins().select(sign, to_max, to_inf),
        Round::Down => b.ins().select(sign, to_inf, to_max),
    };
    let enc = b.ins().select(over, overflow, enc);
    let special = b.ins().icmp_imm_s(IntCC::Equal, field, 0x7ff);
    let enc = b.ins().select(special, to_inf, enc);
    let sign = b.ins().ishl_imm_s(sign, i64::from(f.width() - 1));
    b.ins().bor(enc, sign)
}

/// [`narrow`] under round-to-nearest-even, in fewer instructions: in `f`'s normal range the
/// f64 encoding itself is rounded at its `53 - q` low bits (ties to even; the encoding is
/// monotonic, so a carry out of the significand moves into the exponent, and past `f`'s
/// largest exponent gives an encoding at or above its infinity: overflow); below it, adding
/// `M = 2^(emin - q + 53)` rounds |s| to a multiple of `f`'s subnormal unit 2^(emin - q + 1)
/// (every f64 in [M, 2M) is such a multiple, and the addition rounds to nearest even), and
/// the multiple is the encoding (2^(q-1) of them being the smallest normal's).
fn narrow_even(b: &mut FunctionBuilder<'_>, f: Format, s: Value) -> Value {
    let q = i64::from(f.precision());
    let drop = 53 - q;
    let bits = b.ins().bitcast(I64, MemFlagsData::new(), s);
    let sign = b.ins().ushr_imm_s(bits, 63);
    let mag = b.ins().band_imm_s(bits, i64::MAX);
    let kept = b.ins().ushr_imm_s(mag, drop);
    let odd = b.ins().band_imm_s(kept, 1);
    let biased = b.ins().iadd_imm_s(mag, (1 << (drop - 1)) - 1);
    let biased = b.ins().iadd(biased, odd);
    let normal = b.ins().ushr_imm_s(biased, drop);
    let rebias = (1023 - i64::from(f.bias())) << (q - 1);
    let normal = b.ins().iadd_imm_s(normal, -rebias);
    let m = (1023 + i64::from(f.emin()) - q + 53) << 52;
    let abs = b.ins().bitcast(types::F64, MemFlagsData::new(), mag);
    let big = b.ins().iconst(I64, m);
    let big = b.ins().bitcast(types::F64, MemFlagsData::new(), big);
    let t = b.ins().fadd(abs, big);
    let t = b.ins().bitcast(I64, MemFlagsData::new(), t);
    let small = b.ins().iadd_imm_s(t, -m);
    let min_normal = (1023 + i64::from(f.emin())) << 52;
    let tiny = b.ins().icmp_imm_s(IntCC::UnsignedLessThan, mag, min_normal);
    let enc = b.ins().select(tiny, small, normal);
    let inf = f.inf(false) as i64;
    let over = b
        .ins()
        .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, enc, inf);
    let to_inf = b.ins().iconst(I64, inf);
    let enc = b.ins().select(over, to_inf, enc);
    let sign = b.ins().ishl_imm_s(sign, i64::from(f.width() - 1));
    b.ins().bor(enc, sign)
}
