//! [`Format`]: the parameters of an IEEE 754 binary interchange format, and
//! the classification, constants and sign operations on its raw encodings.

use core::fmt;

/// An IEEE 754 binary floating-point format, described by its exponent width
/// and its precision.
///
/// Encodings are carried in the low [`width`](Format::width) bits of a `u64`:
/// one sign bit, `exp_bits` biased-exponent bits, and `precision - 1`
/// trailing-significand bits (the leading significand bit is implicit).
/// Every method and every arithmetic function ignores the bits above `width`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    exp_bits: u32,
    precision: u32,
}

/// Why [`Format::try_ieee`] rejected a pair of parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FormatError {
    /// The exponent width is outside
    /// [`MIN_EXP_BITS`](Format::MIN_EXP_BITS)`..=`[`MAX_EXP_BITS`](Format::MAX_EXP_BITS).
    ExpBits(u32),
    /// The precision is outside
    /// [`MIN_PRECISION`](Format::MIN_PRECISION)`..=`[`MAX_PRECISION`](Format::MAX_PRECISION).
    Precision(u32),
    /// The encoding (`exp_bits + precision` bits) is wider than 64 bits.
    Width {
        /// The requested exponent width.
        exp_bits: u32,
        /// The requested precision.
        precision: u32,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FormatError::ExpBits(e) => write!(
                f,
                "exponent width {e} is outside {}..={}",
                Format::MIN_EXP_BITS,
                Format::MAX_EXP_BITS
            ),
            FormatError::Precision(p) => write!(
                f,
                "precision {p} is outside {}..={}",
                Format::MIN_PRECISION,
                Format::MAX_PRECISION
            ),
            FormatError::Width {
                exp_bits,
                precision,
            } => write!(
                f,
                "a format with {exp_bits} exponent bits and precision {precision} is {} bits wide, more than 64",
                // Widened: the fields are public, so any u32s can get here.
                u64::from(exp_bits) + u64::from(precision)
            ),
        }
    }
}

impl std::error::Error for FormatError {}

impl Format {
    /// Smallest supported exponent width. With one bit there would be no
    /// normal numbers between the subnormals and the infinities.
    pub const MIN_EXP_BITS: u32 = 2;
    /// Largest supported exponent width. Far beyond binary256's 19, and small
    /// enough that no exponent computation (a product's exponent in `fma`
    /// plus normalisation shifts) can overflow an `i32`.
    pub const MAX_EXP_BITS: u32 = 24;
    /// Smallest supported precision: a NaN needs a trailing significand to
    /// differ from an infinity.
    pub const MIN_PRECISION: u32 = 2;
    /// Largest supported precision. The arithmetic works in a 64-bit
    /// datapath that must hold the significand plus a carry bit and three
    /// guard bits; together with the 64-bit width limit this only excludes
    /// formats with 2 or 3 exponent bits and 61 or 62 bits of precision.
    pub const MAX_PRECISION: u32 = 60;

    /// IEEE binary16 (half precision).
    pub const F16: Format = Format::ieee(5, 11);
    /// bfloat16: binary32's exponent range with 8 bits of precision.
    pub const BF16: Format = Format::ieee(8, 8);
    /// IEEE binary32 (single precision).
    pub const F32: Format = Format::ieee(8, 24);
    /// IEEE binary64 (double precision).
    pub const F64: Format = Format::ieee(11, 53);
    /// NVIDIA TensorFloat-32: binary32's exponent range with 11 bits of
    /// precision, stored here in its 19-bit packed form.
    pub const TF32: Format = Format::ieee(8, 11);

    /// The format with `exp_bits` exponent bits and `precision` significand
    /// bits (including the implicit leading bit).
    ///
    /// # Panics
    /// If [`try_ieee`](Format::try_ieee) would return an error; in a `const`
    /// context that is a compile-time error.
    pub const fn ieee(exp_bits: u32, precision: u32) -> Format {
        match Format::try_ieee(exp_bits, precision) {
            Ok(f) => f,
            Err(FormatError::ExpBits(_)) => panic!("Format::ieee: exponent width outside 2..=24"),
            Err(FormatError::Precision(_)) => panic!("Format::ieee: precision outside 2..=60"),
            Err(FormatError::Width { .. }) => {
                panic!("Format::ieee: exp_bits + precision exceeds 64")
            }
        }
    }

    /// The format with `exp_bits` exponent bits and `precision` significand
    /// bits (including the implicit leading bit), or why there is none.
    pub const fn try_ieee(exp_bits: u32, precision: u32) -> Result<Format, FormatError> {
        if exp_bits < Format::MIN_EXP_BITS || exp_bits > Format::MAX_EXP_BITS {
            Err(FormatError::ExpBits(exp_bits))
        } else if precision < Format::MIN_PRECISION || precision > Format::MAX_PRECISION {
            Err(FormatError::Precision(precision))
        } else if exp_bits + precision > 64 {
            Err(FormatError::Width {
                exp_bits,
                precision,
            })
        } else {
            Ok(Format {
                exp_bits,
                precision,
            })
        }
    }

    /// Total encoding width in bits: sign, exponent and trailing significand.
    #[inline]
    pub const fn width(self) -> u32 {
        self.exp_bits + self.precision
    }

    /// Width of the biased-exponent field.
    #[inline]
    pub const fn exp_bits(self) -> u32 {
        self.exp_bits
    }

    /// Significand bits, including the implicit leading bit.
    #[inline]
    pub const fn precision(self) -> u32 {
        self.precision
    }

    /// A mask of the low [`width`](Format::width) bits.
    #[inline]
    pub const fn mask(self) -> u64 {
        u64::MAX >> (64 - self.width())
    }

    /// The exponent bias, which is also the largest unbiased exponent (emax).
    #[inline]
    pub const fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The smallest unbiased exponent of a normal number, `1 - bias`.
    #[inline]
    pub const fn emin(self) -> i32 {
        1 - self.bias()
    }

    /// Width of the trailing-significand field, `precision - 1`.
    #[inline]
    pub(crate) const fn trailing_bits(self) -> u32 {
        self.precision - 1
    }

    /// The sign bit alone.
    #[inline]
    pub(crate) const fn sign_mask(self) -> u64 {
        1 << (self.width() - 1)
    }

    /// Every bit of an encoding except the sign.
    #[inline]
    pub(crate) const fn magnitude_mask(self) -> u64 {
        self.mask() >> 1
    }

    /// The trailing-significand field.
    #[inline]
    pub(crate) const fn trailing_mask(self) -> u64 {
        (1 << self.trailing_bits()) - 1
    }

    /// The quiet bit of a NaN: the top bit of the trailing significand.
    #[inline]
    pub(crate) const fn quiet_bit(self) -> u64 {
        1 << (self.trailing_bits() - 1)
    }

    /// The magnitude bits of an infinity; magnitudes above it are NaNs, so
    /// comparing magnitudes against it classifies an encoding.
    #[inline]
    pub(crate) const fn inf_magnitude(self) -> u64 {
        self.magnitude_mask() & !self.trailing_mask()
    }

    /// The sign bit of `bits` placed at [`sign_mask`](Format::sign_mask).
    #[inline]
    pub(crate) const fn sign_of(self, bits: u64) -> u64 {
        bits & self.sign_mask()
    }

    /// `bits` with everything but the magnitude cleared.
    #[inline]
    pub(crate) const fn magnitude(self, bits: u64) -> u64 {
        bits & self.magnitude_mask()
    }

    /// Is `bits` a NaN?
    #[inline]
    pub const fn is_nan(self, bits: u64) -> bool {
        self.magnitude(bits) > self.inf_magnitude()
    }

    /// Is `bits` a signaling NaN (a NaN with the quiet bit clear)? Formats
    /// with precision 2 have no signaling NaNs.
    #[inline]
    pub const fn is_signaling_nan(self, bits: u64) -> bool {
        self.is_nan(bits) && bits & self.quiet_bit() == 0
    }

    /// Is `bits` a quiet NaN (a NaN with the quiet bit set)?
    #[inline]
    pub const fn is_quiet_nan(self, bits: u64) -> bool {
        self.is_nan(bits) && bits & self.quiet_bit() != 0
    }

    /// Is `bits` an infinity of either sign?
    #[inline]
    pub const fn is_inf(self, bits: u64) -> bool {
        self.magnitude(bits) == self.inf_magnitude()
    }

    /// Is `bits` a zero of either sign?
    #[inline]
    pub const fn is_zero(self, bits: u64) -> bool {
        self.magnitude(bits) == 0
    }

    /// Is `bits` subnormal (zero exponent field, nonzero significand)?
    #[inline]
    pub const fn is_subnormal(self, bits: u64) -> bool {
        let mag = self.magnitude(bits);
        mag != 0 && mag <= self.trailing_mask()
    }

    /// Is `bits` a normal number (exponent field neither all zeros nor all
    /// ones)?
    #[inline]
    pub const fn is_normal(self, bits: u64) -> bool {
        let mag = self.magnitude(bits);
        mag > self.trailing_mask() && mag < self.inf_magnitude()
    }

    /// Is `bits` finite (zero, subnormal or normal)?
    #[inline]
    pub const fn is_finite(self, bits: u64) -> bool {
        self.magnitude(bits) < self.inf_magnitude()
    }

    /// Is the sign bit of `bits` set? True for -0 and negative NaNs as well.
    #[inline]
    pub const fn sign_bit(self, bits: u64) -> bool {
        self.sign_of(bits) != 0
    }

    /// The sign-bit pattern for `negative`.
    #[inline]
    const fn sign(self, negative: bool) -> u64 {
        if negative {
            self.sign_mask()
        } else {
            0
        }
    }

    /// A zero with the given sign.
    #[inline]
    pub const fn zero(self, negative: bool) -> u64 {
        self.sign(negative)
    }

    /// An infinity with the given sign.
    #[inline]
    pub const fn inf(self, negative: bool) -> u64 {
        self.sign(negative) | self.inf_magnitude()
    }

    /// The finite number of largest magnitude, `(2 - 2^(1-p)) * 2^emax`.
    #[inline]
    pub const fn max_finite(self, negative: bool) -> u64 {
        self.sign(negative) | (self.inf_magnitude() - 1)
    }

    /// The normal number of smallest magnitude, `2^emin`.
    #[inline]
    pub const fn min_normal(self, negative: bool) -> u64 {
        self.sign(negative) | (self.trailing_mask() + 1)
    }

    /// The subnormal number of smallest magnitude, `2^(emin + 1 - p)`.
    #[inline]
    pub const fn min_subnormal(self, negative: bool) -> u64 {
        self.sign(negative) | 1
    }

    /// One with the given sign.
    #[inline]
    pub const fn one(self, negative: bool) -> u64 {
        self.sign(negative) | ((self.bias() as u64) << self.trailing_bits())
    }

    /// The NaN that invalid operations produce: sign clear, quiet bit set,
    /// rest of the payload zero (`0x7FC00000` for binary32).
    #[inline]
    pub const fn default_nan(self) -> u64 {
        self.inf_magnitude() | self.quiet_bit()
    }

    /// `bits` with the quiet bit set, which turns a signaling NaN into a
    /// quiet one and leaves a quiet NaN unchanged. Only meaningful for NaNs.
    #[inline]
    pub const fn quiet(self, bits: u64) -> u64 {
        (bits & self.mask()) | self.quiet_bit()
    }

    /// `bits` with the sign flipped; NaNs included (IEEE 754 `negate` is a
    /// bit operation).
    #[inline]
    pub const fn neg(self, bits: u64) -> u64 {
        (bits ^ self.sign_mask()) & self.mask()
    }

    /// `bits` with the sign cleared; NaNs included.
    #[inline]
    pub const fn abs(self, bits: u64) -> u64 {
        self.magnitude(bits)
    }

    /// The magnitude of `magnitude_bits` with the sign of `sign_bits`.
    #[inline]
    pub const fn copy_sign(self, magnitude_bits: u64, sign_bits: u64) -> u64 {
        self.magnitude(magnitude_bits) | self.sign_of(sign_bits)
    }

    /// The value of `bits` as an `f64`.
    ///
    /// Exact for every format whose precision and exponent range fit in
    /// binary64 (every predefined format does); wider formats are rounded to
    /// nearest, ties to even. A NaN becomes a quiet `f64` NaN with the same
    /// sign and its payload left-aligned, the rule of [`convert`](crate::convert).
    #[inline]
    pub fn to_f64(self, bits: u64) -> f64 {
        f64::from_bits(crate::convert(
            self,
            Format::F64,
            bits,
            crate::Round::NearestEven,
        ))
    }
}
