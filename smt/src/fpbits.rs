//! Glue between IEEE-754 bit patterns (Z3 bit-vectors) and Z3 floating-point terms.
//!
//! The spec compiler works on raw register bits (`BV` of width 16/32/64) because
//! that is what PTX instructions read and write; the FP theory works on `Float`
//! terms. These helpers convert between the two and build rounding-mode terms.
//!
//! All functions use the `z3` crate's implicit thread-local [`z3::Context`]
//! (z3 0.22 has no explicit context parameter); to use a custom configuration
//! wrap the calls in [`z3::with_z3_config`].
//!
//! Sort convention (same as Z3 / SMT-LIB): `exp_bits` is the exponent width and
//! `precision` is the significand width *including* the hidden bit, so
//! f16 = (5, 11), f32 = (8, 24), f64 = (11, 53), bf16 = (8, 8); the bit-vector
//! width is `exp_bits + precision`.

use z3::ast::{Ast, Bool, Float, RoundingMode, BV};
use z3::Sort;

/// IEEE-754 rounding modes, as used by PTX rounding modifiers
/// (`.rn`, `.rz`, `.rm`, `.rp`, and `.rna` for the few instructions that have it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rm {
    /// Round to nearest, ties to even (`.rn`, IEEE roundTiesToEven).
    NearestEven,
    /// Round toward zero (`.rz`, IEEE roundTowardZero).
    TowardZero,
    /// Round toward negative infinity (`.rm`, IEEE roundTowardNegative).
    Down,
    /// Round toward positive infinity (`.rp`, IEEE roundTowardPositive).
    Up,
    /// Round to nearest, ties away from zero (`.rna`, IEEE roundTiesToAway).
    NearestAway,
}

/// The floating-point sort with `exp_bits` exponent bits and `precision`
/// significand bits (hidden bit included), in the thread-local context.
///
/// # Panics
/// If `exp_bits < 2` or `precision < 2` (Z3's own limits).
pub fn fp_sort(exp_bits: u32, precision: u32) -> Sort {
    assert!(
        exp_bits >= 2 && precision >= 2,
        "invalid FP sort ({exp_bits}, {precision})"
    );
    Sort::float(exp_bits, precision)
}

/// Reinterprets the IEEE-754 interchange-format bits `bv` as a `Float` of sort
/// `(exp_bits, precision)` (SMT-LIB `(_ to_fp eb sb)` applied to one bit-vector).
///
/// Every bit pattern maps to a value; all NaN patterns map to the single NaN of
/// the FP theory (the payload and quiet bit are lost).
///
/// # Panics
/// If `bv` is not a bit-vector of width `exp_bits + precision`.
pub fn fp_from_bits(bv: &BV, exp_bits: u32, precision: u32) -> Float {
    let width = bv.get_size();
    assert_eq!(
        width,
        exp_bits + precision,
        "fp_from_bits: bit-vector width {width} != {exp_bits} + {precision}"
    );
    let sort = fp_sort(exp_bits, precision);
    let ctx = bv.get_ctx();
    let raw = ctx.get_z3_context();
    // SAFETY: `raw`, the bit-vector and the sort all belong to the same live
    // context (the thread-local one, or `bv`'s, which we also wrap into), and
    // the width check above guarantees Z3 accepts the arguments. Z3 returns
    // null on error (z3 installs no error handler), which `expect` catches.
    // `Float::wrap` takes its own reference on the new AST.
    unsafe {
        let ast = z3_sys::Z3_mk_fpa_to_fp_bv(raw, bv.get_z3_ast(), sort.get_z3_sort())
            .expect("Z3_mk_fpa_to_fp_bv failed");
        Float::wrap(ctx, ast)
    }
}

/// The integer `bv` (two's complement when `signed`, else unsigned) as a `Float` of sort
/// `(exp_bits, precision)`, rounded per `rm` (SMT-LIB `(_ to_fp eb sb)` applied to a rounding
/// mode and a bit-vector, and `(_ to_fp_unsigned eb sb)`).
pub fn fp_from_int(
    bv: &BV,
    signed: bool,
    rm: &RoundingMode,
    exp_bits: u32,
    precision: u32,
) -> Float {
    let sort = fp_sort(exp_bits, precision);
    let ctx = bv.get_ctx();
    let raw = ctx.get_z3_context();
    // SAFETY: as in `fp_from_bits`: every argument belongs to the same live context, and Z3
    // accepts any bit-vector width for these conversions.
    unsafe {
        let ast = if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(
                raw,
                rm.get_z3_ast(),
                bv.get_z3_ast(),
                sort.get_z3_sort(),
            )
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(
                raw,
                rm.get_z3_ast(),
                bv.get_z3_ast(),
                sort.get_z3_sort(),
            )
        }
        .expect("Z3_mk_fpa_to_fp_signed/unsigned failed");
        Float::wrap(ctx, ast)
    }
}

/// The IEEE-754 bits of `f` (SMT-LIB `fp.to_ieee_bv`), width `exp_bits + precision`.
///
/// **Unspecified on NaN.** SMT-LIB deliberately leaves the result undefined
/// when `f` is NaN and Z3 may pick *any* bit pattern (not necessarily a NaN
/// encoding, and not necessarily the same one across queries). Never compare
/// these bits for an input that may be NaN; use [`fp_to_bits_nan_as`] to pin
/// NaN to a concrete encoding (e.g. the PTX canonical NaN).
pub fn fp_to_bits(f: &Float) -> BV {
    f.to_ieee_bv()
}

/// Like [`fp_to_bits`], but a NaN `f` yields exactly `nan_bits`
/// (`ite(fp.isNaN(f), nan_bits, fp.to_ieee_bv(f))`). For PTX, pass the
/// canonical NaN of the format, e.g. `0x7fffffff` for f32, `0x7fff` for f16.
///
/// # Panics
/// If `nan_bits` does not have the width of `f`'s sort.
pub fn fp_to_bits_nan_as(f: &Float, nan_bits: &BV) -> BV {
    let bits = f.to_ieee_bv();
    assert_eq!(
        bits.get_size(),
        nan_bits.get_size(),
        "fp_to_bits_nan_as: NaN encoding has the wrong width"
    );
    f.is_nan().ite(nan_bits, &bits)
}

/// The Z3 rounding-mode term (sort `RoundingMode`) for `rm`.
pub fn rounding_mode(rm: Rm) -> RoundingMode {
    match rm {
        Rm::NearestEven => RoundingMode::round_nearest_ties_to_even(),
        Rm::TowardZero => RoundingMode::round_towards_zero(),
        Rm::Down => RoundingMode::round_towards_negative(),
        Rm::Up => RoundingMode::round_towards_positive(),
        Rm::NearestAway => RoundingMode::round_nearest_ties_to_away(),
    }
}

/// Structural ("SMT `=`") equality of two floats: NaN equals NaN, and +0 and
/// −0 are *different*. This is the right notion when checking that two
/// formulas compute the same result; `Float::eq_fpa` is IEEE `==` instead
/// (NaN != NaN, +0 == −0).
pub fn fp_same(a: &Float, b: &Float) -> Bool {
    a.eq(b)
}
