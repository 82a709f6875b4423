//! The operations. Each one unpacks its finite nonzero operands into a sign,
//! an unbiased exponent and a 64-bit significand normalised so that its
//! leading one is bit 63 (value = `sig * 2^(exp - 63)`), computes an exact
//! result or one whose discarded bits are ORed ("jammed") into the lowest
//! bit, and hands it to [`round_pack`]. Jamming keeps the value strictly
//! inside the same interval between consecutive multiples of two units of
//! the lowest bit, and every rounding boundary lies on such a multiple, so
//! rounding the jammed value gives the correctly rounded result.

use core::cmp::Ordering;

use crate::{Format, Round};

/// The unpacked magnitude of a finite nonzero encoding.
#[derive(Copy, Clone)]
struct Unpacked {
    /// Unbiased exponent of the leading significand bit.
    exp: i32,
    /// Significand with its leading one at bit 63.
    sig: u64,
}

/// Unpacks the magnitude `mag` (sign already cleared), which must be finite
/// and nonzero; subnormals come out normalised with an exponent below emin.
#[inline(always)]
fn unpack(f: Format, mag: u64) -> Unpacked {
    let t = f.trailing_bits();
    let field = (mag >> t) as i32;
    let frac = mag & f.trailing_mask();
    if field != 0 {
        Unpacked {
            exp: field - f.bias(),
            sig: (frac | (1 << t)) << (63 - t),
        }
    } else {
        // The leading one of a subnormal sits `lz - (64 - p)` bits below
        // where a normal number's hidden bit would be.
        let lz = frac.leading_zeros();
        Unpacked {
            exp: f.emin() - (lz + f.precision()) as i32 + 64,
            sig: frac << lz,
        }
    }
}

/// Is the magnitude zero, infinite or NaN? The arithmetic fast paths only
/// handle the other cases (normal and subnormal numbers).
#[inline(always)]
fn is_special(f: Format, mag: u64) -> bool {
    mag.wrapping_sub(1) >= f.inf_magnitude() - 1
}

/// Shifts `x` right by `n` (any amount), ORing every bit shifted out into the
/// lowest bit of the result.
#[inline(always)]
fn shr_jam(x: u64, n: u32) -> u64 {
    if n < 64 {
        (x >> n) | ((x & ((1 << n) - 1)) != 0) as u64
    } else {
        (x != 0) as u64
    }
}

/// [`shr_jam`] for 128-bit values.
#[inline(always)]
fn shr_jam128(x: u128, n: u32) -> u128 {
    if n < 128 {
        (x >> n) | ((x & ((1 << n) - 1)) != 0) as u128
    } else {
        (x != 0) as u128
    }
}

/// Folds a 128-bit significand with its leading one at bit 127 into 64 bits,
/// jamming the low half.
#[inline(always)]
fn jam_high(x: u128) -> u64 {
    (x >> 64) as u64 | (x as u64 != 0) as u64
}

/// Drops the low `bits` bits of `sig` (1..=63 of them), rounding the kept
/// part per `rm`. The result may carry into one bit above the kept part.
#[inline(always)]
fn round_bits(sig: u64, bits: u32, negative: bool, rm: Round) -> u64 {
    let rem = sig & ((1 << bits) - 1);
    let half = 1 << (bits - 1);
    let kept = sig >> bits;
    let up = match rm {
        Round::NearestEven | Round::NearestAway => rem >= half,
        Round::TowardZero => false,
        Round::Up => !negative && rem != 0,
        Round::Down => negative && rem != 0,
    };
    let rounded = kept + up as u64;
    if rm == Round::NearestEven && rem == half {
        // A tie rounded up to an odd result: clearing the low bit gives the
        // even neighbour, which is `kept` whenever `kept` was even.
        rounded & !1
    } else {
        rounded
    }
}

/// The result of an overflow: infinity when the rounding direction carries
/// the value away from zero, otherwise the largest finite number.
#[inline]
fn overflow(f: Format, negative: bool, rm: Round) -> u64 {
    let to_inf = match rm {
        Round::NearestEven | Round::NearestAway => true,
        Round::TowardZero => false,
        Round::Up => !negative,
        Round::Down => negative,
    };
    if to_inf {
        f.inf(negative)
    } else {
        f.max_finite(negative)
    }
}

/// The zero that an exact cancellation produces: +0, except -0 when rounding
/// down (IEEE 754-2019 §6.3).
#[inline]
fn cancellation_zero(f: Format, rm: Round) -> u64 {
    f.zero(rm == Round::Down)
}

/// Rounds `sig * 2^(exp - 63)` to `f` and encodes it with the given sign.
/// `sig` must have bit 63 set; its low bits may carry a jammed sticky bit.
/// Handles subnormal results and overflow.
#[inline(always)]
fn round_pack(f: Format, negative: bool, exp: i32, sig: u64, rm: Round) -> u64 {
    let sign = f.zero(negative);
    let emin = f.emin();
    if exp > f.bias() {
        return overflow(f, negative, rm);
    }
    let (exp, sig) = if exp < emin {
        (emin, shr_jam(sig, (emin - exp) as u32))
    } else {
        (exp, sig)
    };
    let m = round_bits(sig, 64 - f.precision(), negative, rm);
    // `m` includes the leading bit (zero for subnormals), so adding it to
    // `exp - emin` (the biased exponent minus one) in the exponent field
    // yields the right field, including when rounding carried out of the
    // significand or from the subnormals into the normals. A carry out of
    // the largest exponent yields the infinity encoding, which is the right
    // overflow result: only rounding away from zero carries.
    sign | ((((exp - emin) as u64) << f.trailing_bits()) + m)
}

/// The result of an operation with a NaN operand: the first NaN in operand
/// order, quieted.
#[inline]
fn propagate_nan(f: Format, operands: &[u64]) -> Option<u64> {
    operands.iter().find(|&&x| f.is_nan(x)).map(|&x| f.quiet(x))
}

/// `a + b`, correctly rounded.
#[inline]
pub fn add(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    add_signed(f, a, b, false, rm)
}

/// `a - b`, correctly rounded.
#[inline]
pub fn sub(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    add_signed(f, a, b, true, rm)
}

/// `a + b` or `a - b`: subtraction flips `b`'s sign after NaN checks, so that
/// a NaN `b` propagates with its own sign.
#[inline(always)]
fn add_signed(f: Format, a: u64, b: u64, negate_b: bool, rm: Round) -> u64 {
    let a = a & f.mask();
    let b = b & f.mask();
    let b_eff = if negate_b { b ^ f.sign_mask() } else { b };
    let (mag_a, mag_b) = (f.magnitude(a), f.magnitude(b));
    if is_special(f, mag_a) || is_special(f, mag_b) {
        return add_special(f, a, b, b_eff, rm);
    }
    let (big, small) = if mag_a >= mag_b {
        (a, b_eff)
    } else {
        (b_eff, a)
    };
    let x = unpack(f, f.magnitude(big));
    let y = unpack(f, f.magnitude(small));
    // One bit of headroom for the carry; MAX_PRECISION leaves at least three
    // zero guard bits below the significand for the jammed alignment.
    let mx = x.sig >> 1;
    let my = shr_jam(y.sig >> 1, (x.exp - y.exp) as u32);
    let sum = if (big ^ small) & f.sign_mask() == 0 {
        mx + my
    } else {
        mx - my
    };
    if sum == 0 {
        return cancellation_zero(f, rm);
    }
    let lz = sum.leading_zeros();
    round_pack(f, f.sign_bit(big), x.exp + 1 - lz as i32, sum << lz, rm)
}

/// [`add_signed`] when an operand is zero, infinite or NaN.
#[cold]
fn add_special(f: Format, a: u64, b: u64, b_eff: u64, rm: Round) -> u64 {
    if let Some(nan) = propagate_nan(f, &[a, b]) {
        return nan;
    }
    let opposite = f.sign_of(a ^ b_eff) != 0;
    match (f.is_inf(a), f.is_inf(b)) {
        (true, true) if opposite => f.default_nan(),
        (true, _) => a,
        (false, true) => b_eff,
        (false, false) => match (f.is_zero(a), f.is_zero(b)) {
            (true, true) if opposite => cancellation_zero(f, rm),
            (true, _) => b_eff,
            (false, _) => a,
        },
    }
}

/// `a * b`, correctly rounded.
#[inline]
pub fn mul(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    let a = a & f.mask();
    let b = b & f.mask();
    let negative = f.sign_bit(a ^ b);
    let (mag_a, mag_b) = (f.magnitude(a), f.magnitude(b));
    if is_special(f, mag_a) || is_special(f, mag_b) {
        return mul_special(f, a, b);
    }
    let x = unpack(f, mag_a);
    let y = unpack(f, mag_b);
    let prod = x.sig as u128 * y.sig as u128;
    // The product of two [1, 2) significands is in [1, 4): at most one bit
    // of normalisation.
    let lz = prod.leading_zeros();
    round_pack(
        f,
        negative,
        x.exp + y.exp + 1 - lz as i32,
        jam_high(prod << lz),
        rm,
    )
}

/// [`mul`] when an operand is zero, infinite or NaN.
#[cold]
fn mul_special(f: Format, a: u64, b: u64) -> u64 {
    if let Some(nan) = propagate_nan(f, &[a, b]) {
        return nan;
    }
    let negative = f.sign_bit(a ^ b);
    if f.is_inf(a) || f.is_inf(b) {
        if f.is_zero(a) || f.is_zero(b) {
            f.default_nan()
        } else {
            f.inf(negative)
        }
    } else {
        f.zero(negative)
    }
}

/// `a / b`, correctly rounded.
#[inline]
pub fn div(f: Format, a: u64, b: u64, rm: Round) -> u64 {
    let a = a & f.mask();
    let b = b & f.mask();
    let negative = f.sign_bit(a ^ b);
    let (mag_a, mag_b) = (f.magnitude(a), f.magnitude(b));
    if is_special(f, mag_a) || is_special(f, mag_b) {
        return div_special(f, a, b);
    }
    let x = unpack(f, mag_a);
    let y = unpack(f, mag_b);
    let p = f.precision();
    // Integer significands in [2^(p-1), 2^p); shifting the dividend by p + 2
    // gives a quotient of p + 2 or p + 3 bits: the p result bits, a round
    // bit and one more, with the remainder as the sticky bit.
    let shift = p + 2;
    let (n, d) = (x.sig >> (64 - p), y.sig >> (64 - p));
    let (q, inexact) = if 2 * p + 2 <= 64 {
        // Formats up to binary32 divide in 64 bits, which is several times
        // faster than a 128-bit division.
        let num = n << shift;
        (num / d, !num.is_multiple_of(d))
    } else {
        let num = (n as u128) << shift;
        ((num / d as u128) as u64, !num.is_multiple_of(d as u128))
    };
    let lz = q.leading_zeros();
    round_pack(
        f,
        negative,
        x.exp - y.exp - shift as i32 + 63 - lz as i32,
        (q << lz) | inexact as u64,
        rm,
    )
}

/// [`div`] when an operand is zero, infinite or NaN.
#[cold]
fn div_special(f: Format, a: u64, b: u64) -> u64 {
    if let Some(nan) = propagate_nan(f, &[a, b]) {
        return nan;
    }
    let negative = f.sign_bit(a ^ b);
    match (f.is_inf(a), f.is_inf(b), f.is_zero(a), f.is_zero(b)) {
        (true, true, _, _) | (_, _, true, true) => f.default_nan(),
        (true, _, _, _) | (_, _, _, true) => f.inf(negative),
        _ => f.zero(negative),
    }
}

/// `a * b + c` with a single rounding.
#[inline]
pub fn fma(f: Format, a: u64, b: u64, c: u64, rm: Round) -> u64 {
    let a = a & f.mask();
    let b = b & f.mask();
    let c = c & f.mask();
    let (mag_a, mag_b, mag_c) = (f.magnitude(a), f.magnitude(b), f.magnitude(c));
    if is_special(f, mag_a) || is_special(f, mag_b) || is_special(f, mag_c) {
        return fma_special(f, a, b, c, rm);
    }
    let prod_negative = f.sign_bit(a ^ b);
    let c_negative = f.sign_bit(c);
    let x = unpack(f, mag_a);
    let y = unpack(f, mag_b);
    let z = unpack(f, mag_c);
    // Both addends as 128-bit significands whose value is
    // `X * 2^(reference exponent - 124)`: the product (in [2^124, 2^126)
    // after dropping two bits that are zero since p <= 60) and c (leading
    // one at bit 124) leave a carry bit and many guard bits.
    let prod = (x.sig as u128 * y.sig as u128) >> 2;
    let addend = (z.sig as u128) << 61;
    let prod_exp = x.exp + y.exp;
    let (prod, addend, exp) = if prod_exp >= z.exp {
        (
            prod,
            shr_jam128(addend, (prod_exp - z.exp) as u32),
            prod_exp,
        )
    } else {
        (shr_jam128(prod, (z.exp - prod_exp) as u32), addend, z.exp)
    };
    let (sum, negative) = if prod_negative == c_negative {
        (prod + addend, prod_negative)
    } else if prod >= addend {
        (prod - addend, prod_negative)
    } else {
        (addend - prod, c_negative)
    };
    if sum == 0 {
        return cancellation_zero(f, rm);
    }
    let lz = sum.leading_zeros();
    round_pack(f, negative, exp + 3 - lz as i32, jam_high(sum << lz), rm)
}

/// [`fma`] when an operand is zero, infinite or NaN.
#[cold]
fn fma_special(f: Format, a: u64, b: u64, c: u64, rm: Round) -> u64 {
    if let Some(nan) = propagate_nan(f, &[a, b, c]) {
        return nan;
    }
    let prod_negative = f.sign_bit(a ^ b);
    let c_negative = f.sign_bit(c);
    let prod_inf = f.is_inf(a) || f.is_inf(b);
    let prod_zero = f.is_zero(a) || f.is_zero(b);
    if prod_inf && prod_zero {
        return f.default_nan();
    }
    if prod_inf {
        return if f.is_inf(c) && prod_negative != c_negative {
            f.default_nan()
        } else {
            f.inf(prod_negative)
        };
    }
    if f.is_inf(c) {
        return c;
    }
    if prod_zero {
        // The sum is exact: c itself, unless c is a zero of the other sign.
        return if !f.is_zero(c) || prod_negative == c_negative {
            c
        } else {
            cancellation_zero(f, rm)
        };
    }
    // A finite nonzero product plus a zero: the rounded product, whose sign
    // is right even if it rounds to zero (the exact sum is not zero).
    mul(f, a, b, rm)
}

/// The square root of `a`, correctly rounded.
#[inline]
pub fn sqrt(f: Format, a: u64, rm: Round) -> u64 {
    let a = a & f.mask();
    let mag = f.magnitude(a);
    if is_special(f, mag) || f.sign_bit(a) {
        return sqrt_special(f, a);
    }
    let x = unpack(f, mag);
    let p = f.precision();
    // Integer significand n with value n * 2^e; make e even so the root of
    // the power of two is exact.
    let mut n = (x.sig >> (64 - p)) as u128;
    let mut e = x.exp - (p as i32 - 1);
    if e & 1 != 0 {
        n <<= 1;
        e -= 1;
    }
    // Scaling by 2^(2k) with k = p/2 + 2 gives a root of at least p + 2 bits
    // (result, round bit, one more); the remainder supplies the sticky bit.
    // The radicand has at most 2p + 5 bits.
    let k = p / 2 + 2;
    let (root, exact) = isqrt(n << (2 * k), 2 * p + 5);
    let lz = root.leading_zeros();
    round_pack(
        f,
        false,
        e / 2 - k as i32 + 63 - lz as i32,
        (root << lz) | !exact as u64,
        rm,
    )
}

/// `floor(sqrt(n))` and whether it is exact, for `n < 2^bits` with
/// `bits <= 126`.
///
/// Up to 112 bits, `f64::sqrt` (correctly rounded, which Rust guarantees)
/// estimates the root to within 13 units; above 53 bits one integer Newton
/// step brings that to within one; exact integer corrections then finish,
/// so the result does not depend on the estimate's rounding. This makes
/// `sqrt` about twice as fast as with the standard library's `isqrt`, which
/// only the radicands of precisions above 53 bits still use.
#[inline(always)]
fn isqrt(n: u128, bits: u32) -> (u64, bool) {
    if bits > 112 {
        let r = n.isqrt();
        return (r as u64, r * r == n);
    }
    // Converting a u128 to f64 is a library call; an i64 is one instruction.
    // Dropping the radicand's low bits (and scaling the root back exactly by
    // a power of two) changes the estimate by far less than its rounding.
    let half_shift = bits.saturating_sub(62) / 2;
    let scale = (1u64 << half_shift) as f64;
    let estimate = ((n >> (2 * half_shift)) as i64 as f64).sqrt() * scale;
    let mut r = estimate as u64;
    if bits > 53 {
        // |remainder| < 2 * 2^56 * 13 < 2^63, so it fits an i64; the step
        // itself needs no precision (floating-point division is faster).
        let rem = (n as i128 - (r as u128 * r as u128) as i128) as i64;
        r = (r as i64 + (rem as f64 / (2.0 * r as f64)) as i64) as u64;
    }
    let square = |r: u64| r as u128 * r as u128;
    while square(r) > n {
        r -= 1;
    }
    while square(r + 1) <= n {
        r += 1;
    }
    (r, square(r) == n)
}

/// [`sqrt`] of a zero, infinity, NaN or negative number.
#[cold]
fn sqrt_special(f: Format, a: u64) -> u64 {
    if f.is_nan(a) {
        f.quiet(a)
    } else if f.is_zero(a) {
        a
    } else if f.sign_bit(a) {
        f.default_nan()
    } else {
        a
    }
}

/// C's `fmod(a, b)`: `a - trunc(a / b) * b`, the remainder of the division whose quotient
/// is rounded toward zero. It is exact (a multiple of the smaller operand's unit below
/// `|b|`), so there is no rounding mode; a nonzero result, and a zero one, has `a`'s sign.
/// A NaN operand gives that NaN quieted, an infinite `a` or a zero `b` the default NaN, an
/// infinite `b` the finite `a` itself.
#[inline]
pub fn fmod(f: Format, a: u64, b: u64) -> u64 {
    let (a, b) = (a & f.mask(), b & f.mask());
    let (ma, mb) = (f.magnitude(a), f.magnitude(b));
    if is_special(f, ma) || is_special(f, mb) {
        return fmod_special(f, a, b);
    }
    // Magnitudes of finite encodings order as their values.
    if ma < mb {
        return a;
    }
    let (x, y) = (unpack(f, ma), unpack(f, mb));
    // |a| = x.sig 2^(x.exp-63), |b| = y.sig 2^(y.exp-63) with x.exp >= y.exp: the remainder
    // is (x.sig 2^(x.exp-y.exp) mod y.sig) 2^(y.exp-63), reduced 64 doublings at a time.
    let m = u128::from(y.sig);
    let mut r = u128::from(x.sig) % m;
    let mut left = (x.exp - y.exp) as u32;
    while left > 0 {
        let k = left.min(64);
        r = (r << k) % m;
        left -= k;
    }
    if r == 0 {
        return f.zero(f.sign_bit(a));
    }
    let lz = (r as u64).leading_zeros();
    // Exact: round_pack only places it (a subnormal result is a multiple of the least one).
    round_pack(
        f,
        f.sign_bit(a),
        y.exp - lz as i32,
        (r as u64) << lz,
        Round::NearestEven,
    )
}

/// [`fmod`] when an operand is zero, infinite or NaN.
#[cold]
fn fmod_special(f: Format, a: u64, b: u64) -> u64 {
    if let Some(nan) = propagate_nan(f, &[a, b]) {
        nan
    } else if f.is_inf(a) || f.is_zero(b) {
        f.default_nan()
    } else {
        a
    }
}

/// Converts `a` from format `from` to format `to`, correctly rounded.
///
/// A NaN converts to a quiet NaN with the same sign whose payload is the
/// source payload left-aligned: low bits dropped when narrowing, zeros
/// appended when widening (what x86 and Arm hardware do).
#[inline]
pub fn convert(from: Format, to: Format, a: u64, rm: Round) -> u64 {
    let a = a & from.mask();
    let negative = from.sign_bit(a);
    let mag = from.magnitude(a);
    if is_special(from, mag) {
        return if from.is_nan(a) {
            let payload = a & from.trailing_mask();
            let (ft, tt) = (from.trailing_bits(), to.trailing_bits());
            let payload = if tt >= ft {
                payload << (tt - ft)
            } else {
                payload >> (ft - tt)
            };
            to.quiet(to.inf(negative) | payload)
        } else if from.is_inf(a) {
            to.inf(negative)
        } else {
            to.zero(negative)
        };
    }
    let x = unpack(from, mag);
    round_pack(to, negative, x.exp, x.sig, rm)
}

/// `a` rounded to an integral value in the same format (IEEE
/// `roundToIntegral`); the sign of a zero result is the sign of `a`.
#[inline]
pub fn round_to_integral(f: Format, a: u64, rm: Round) -> u64 {
    let a = a & f.mask();
    let negative = f.sign_bit(a);
    let mag = f.magnitude(a);
    if f.is_nan(a) {
        return f.quiet(a);
    }
    if is_special(f, mag) {
        return a;
    }
    let x = unpack(f, mag);
    if x.exp >= f.precision() as i32 - 1 {
        // No fraction bits.
        return a;
    }
    // `sig` has `63 - exp` fraction bits. A value below one is shifted (with
    // jamming) until its binary point sits above bit 63, so that round_bits
    // always drops at most 63 bits and the integer part is 0 or 1.
    let (sig, frac_bits) = if x.exp >= 0 {
        (x.sig, (63 - x.exp) as u32)
    } else {
        (shr_jam(x.sig, (-x.exp) as u32), 63)
    };
    let int = round_bits(sig, frac_bits, negative, rm);
    if int == 0 {
        return f.zero(negative);
    }
    let lz = int.leading_zeros();
    round_pack(f, negative, 63 - lz as i32, int << lz, rm)
}

/// `a` rounded to an integer per `rm` and converted to a `width`-bit integer (1 to 64 bits),
/// two's complement when `signed`: a value beyond the integer range (infinities included)
/// saturates to its nearest end, and a NaN gives 0. The result is the integer's low `width`
/// bits.
///
/// Saturating with NaN as 0 is what Rust's `as` casts define, so that the operation is
/// total; a caller whose instruction gives a NaN another integer tests for NaN itself.
#[inline]
pub fn to_int(f: Format, a: u64, rm: Round, width: u32, signed: bool) -> u64 {
    debug_assert!((1..=64).contains(&width));
    let a = a & f.mask();
    if f.is_nan(a) {
        return 0;
    }
    let negative = f.sign_bit(a);
    // The largest magnitudes: 2^(w-1) - 1 and 2^(w-1) (signed), 2^w - 1 (unsigned).
    let max = if signed {
        (1u64 << (width - 1)) - 1
    } else {
        u64::MAX >> (64 - width)
    };
    let min_mag = if signed { 1u64 << (width - 1) } else { 0 };
    let from_mag = |mag: u64| -> u64 {
        let bits = if negative {
            mag.min(min_mag).wrapping_neg()
        } else {
            mag.min(max)
        };
        bits & (u64::MAX >> (64 - width))
    };
    if f.is_inf(a) {
        return from_mag(u64::MAX);
    }
    let r = round_to_integral(f, a, rm);
    let mag = f.magnitude(r);
    if mag == 0 {
        return 0;
    }
    let x = unpack(f, mag);
    // An integral value has no bits below 2^0, so it is `sig >> (63 - exp)` when below 2^64.
    from_mag(if x.exp >= 64 {
        u64::MAX
    } else {
        x.sig >> (63 - x.exp)
    })
}

/// The `width`-bit integer `a` (two's complement when `signed`, else unsigned) converted to
/// format `f`, correctly rounded; zero converts to +0.
#[inline]
pub fn from_int(f: Format, a: u64, width: u32, signed: bool, rm: Round) -> u64 {
    debug_assert!((1..=64).contains(&width));
    let shift = 64 - width;
    let a = (a << shift) >> shift;
    let negative = signed && (a >> (width - 1)) & 1 == 1;
    // The magnitude of a negative value is its two's complement within `width` bits, which
    // for the most negative value is 2^(width-1): it still fits in a u64.
    let mag = if negative {
        a.wrapping_neg() & (u64::MAX >> shift)
    } else {
        a
    };
    if mag == 0 {
        return f.zero(false);
    }
    let lz = mag.leading_zeros();
    round_pack(f, negative, 63 - lz as i32, mag << lz, rm)
}

/// Compares `a` and `b`: `None` if either is a NaN, and -0 equals +0.
#[inline]
pub fn compare(f: Format, a: u64, b: u64) -> Option<Ordering> {
    if f.is_nan(a) || f.is_nan(b) {
        return None;
    }
    // Sign-magnitude to two's complement makes the encodings' order the
    // numeric order, and maps both zeros to 0.
    let key = |x: u64| {
        let mag = f.magnitude(x) as i64;
        if f.sign_bit(x) {
            -mag
        } else {
            mag
        }
    };
    Some(key(a).cmp(&key(b)))
}
