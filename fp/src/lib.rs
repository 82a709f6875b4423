//! A soft-float core for IEEE 754 binary formats, generic over the format.
//!
//! Encodings are raw bits in a `u64` (see [`Format`]); every operation takes
//! the format as a value, and all of them are `#[inline]` so that a call with
//! a constant format compiles to code specialised for it. Nothing allocates.
//!
//! # Semantics
//!
//! IEEE 754-2019 with correctly rounded results in every [`Round`] mode, with
//! these choices where the standard leaves freedom or the caller needs none:
//!
//! - **No exception flags** and no traps.
//! - **Subnormals are never flushed**: results are rounded to the subnormal
//!   grid exactly as IEEE specifies. Flush-to-zero and denormals-are-zero
//!   belong to the caller (the spec language models them explicitly).
//! - **Exact zero results** of [`add`], [`sub`] and [`fma`] whose operands
//!   cancel are +0, or -0 under [`Round::Down`] (§6.3); `x + x` for a zero
//!   `x` keeps its sign.
//! - **NaNs**: if any operand is a NaN, the result is the first NaN operand
//!   in operand order, quieted with [`Format::quiet`] (its sign and payload
//!   are kept; [`sub`] does not flip the sign of a NaN `b`). An invalid
//!   operation without NaN operands (`inf - inf`, `0 * inf`, `0 / 0`,
//!   `inf / inf`, `sqrt` of a negative number, `fma(0, inf, c)`, or an
//!   `fma` whose infinite product meets an infinity of the other sign)
//!   returns [`Format::default_nan`]. [`convert`] keeps a NaN's sign and
//!   left-aligns its payload. The NaN bits are deterministic but a hardware
//!   target may choose others; compare NaN-ness, not NaN bits.
//! - Bits above the format's width are ignored on input and zero on output.
//!
//! # Example
//!
//! ```
//! use semfuzz_fp::{add, Format, Round};
//! let f = Format::F32;
//! let one = f.one(false);
//! let tiny = 1.0f32.to_bits() as u64 - (24 << 23); // 2^-24
//! assert_eq!(add(f, one, tiny, Round::NearestEven), one); // a tie, to even
//! assert_eq!(add(f, one, tiny, Round::Up), one + 1);
//! ```
//!
//! [`vectors`] generates boundary-heavy test inputs for any format.

#![warn(missing_docs)]

mod arith;
mod format;
pub mod vectors;

pub use arith::{
    add, compare, convert, div, fma, fmod, from_int, mul, round_to_integral, sqrt, sub, to_int,
};
pub use format::{Format, FormatError};

/// A rounding-direction attribute of IEEE 754-2019 (§4.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// roundTiesToEven: to the nearest value, ties to the even significand.
    NearestEven,
    /// roundTowardZero: to the value of nearest magnitude not above the
    /// exact one.
    TowardZero,
    /// roundTowardNegative: to the nearest value not above the exact one.
    Down,
    /// roundTowardPositive: to the nearest value not below the exact one.
    Up,
    /// roundTiesToAway: to the nearest value, ties away from zero.
    NearestAway,
}

impl Round {
    /// Every rounding direction, nearest-even first.
    pub const ALL: [Round; 5] = [
        Round::NearestEven,
        Round::TowardZero,
        Round::Down,
        Round::Up,
        Round::NearestAway,
    ];
}
