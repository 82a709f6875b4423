//! The soft-float operations compiled code calls where no native instruction is exact
//! (directed rounding, 16-bit and other narrow formats, conversions).
//!
//! Every shim has one signature, `(a, b, c, format, mode) -> bits`, so the lowering builds
//! one Cranelift signature for all of them. The common formats get shims with the format as a
//! const generic, so `semfuzz-fp` (all `#[inline]`) compiles a specialised body for each;
//! any other format goes through a shim that unpacks it at run time.

use semfuzz_fp::{self as fp, Format, Round};
use semfuzz_spec::eval::Resolver;
use semfuzz_spec::ir::Outcome;
use std::cell::RefCell;

/// The signature every shim has: operands `a`, `b`, `c` (unused ones are 0), the packed
/// format ([`pack`]), and the rounding mode ([`round_code`]).
pub type Shim = extern "C" fn(u64, u64, u64, u64, u64) -> u64;

/// A format as one machine word: exponent bits low, precision high.
pub fn pack(f: Format) -> u64 {
    u64::from(f.exp_bits()) | u64::from(f.precision()) << 32
}

fn unpack(w: u64) -> Format {
    Format::ieee(w as u32, (w >> 32) as u32)
}

/// The code compiled code passes for `r`: its index in [`Round::ALL`].
pub fn round_code(r: Round) -> u64 {
    Round::ALL.iter().position(|m| *m == r).unwrap_or(0) as u64
}

fn round(code: u64) -> Round {
    Round::ALL[code as usize % Round::ALL.len()]
}

/// The operations that have shims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FpOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `a * b + c`
    Fma,
    /// `sqrt(a)`
    Sqrt,
}

/// Where a shim gets its format from: a const generic, or its packed argument.
trait Fmt {
    fn get(packed: u64) -> Format;
}

/// A format fixed at compile time, so the soft-float code is specialised for it.
struct Fixed<const E: u32, const P: u32>;

impl<const E: u32, const P: u32> Fmt for Fixed<E, P> {
    #[inline(always)]
    fn get(_: u64) -> Format {
        const { Format::ieee(E, P) }
    }
}

/// Any other format, unpacked at run time.
struct Dynamic;

impl Fmt for Dynamic {
    #[inline(always)]
    fn get(packed: u64) -> Format {
        unpack(packed)
    }
}

extern "C" fn add<F: Fmt>(a: u64, b: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::add(F::get(f), a, b, round(r))
}

extern "C" fn sub<F: Fmt>(a: u64, b: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::sub(F::get(f), a, b, round(r))
}

extern "C" fn mul<F: Fmt>(a: u64, b: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::mul(F::get(f), a, b, round(r))
}

extern "C" fn div<F: Fmt>(a: u64, b: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::div(F::get(f), a, b, round(r))
}

extern "C" fn fma<F: Fmt>(a: u64, b: u64, c: u64, f: u64, r: u64) -> u64 {
    fp::fma(F::get(f), a, b, c, round(r))
}

extern "C" fn sqrt<F: Fmt>(a: u64, _: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::sqrt(F::get(f), a, round(r))
}

/// Conversion from the format packed in the fourth argument to the one packed in `b`.
extern "C" fn convert<F: Fmt, T: Fmt>(a: u64, to: u64, _: u64, from: u64, r: u64) -> u64 {
    fp::convert(F::get(from), T::get(to), a, round(r))
}

fn table<F: Fmt>(op: FpOp) -> Shim {
    match op {
        FpOp::Add => add::<F>,
        FpOp::Sub => sub::<F>,
        FpOp::Mul => mul::<F>,
        FpOp::Div => div::<F>,
        FpOp::Fma => fma::<F>,
        FpOp::Sqrt => sqrt::<F>,
    }
}

/// Calls `$go::<F>($arg)` with `F` the [`Fmt`] of `$f`: a [`Fixed`] one for the formats the
/// specs use most (f16, bf16, f32, f64, tf32), [`Dynamic`] for the rest.
macro_rules! by_format {
    ($f:expr, $go:ident, $arg:expr) => {
        match ($f.exp_bits(), $f.precision()) {
            (5, 11) => $go::<Fixed<5, 11>>($arg),
            (8, 8) => $go::<Fixed<8, 8>>($arg),
            (8, 24) => $go::<Fixed<8, 24>>($arg),
            (11, 53) => $go::<Fixed<11, 53>>($arg),
            (8, 11) => $go::<Fixed<8, 11>>($arg),
            _ => $go::<Dynamic>($arg),
        }
    };
}

/// The shim for `op` on format `f`.
pub fn shim(op: FpOp, f: Format) -> Shim {
    by_format!(f, table, op)
}

/// The conversion shim from `from` to `to`.
pub fn convert_shim(from: Format, to: Format) -> Shim {
    macro_rules! into {
        ($from:ty) => {
            match (to.exp_bits(), to.precision()) {
                (5, 11) => convert::<$from, Fixed<5, 11>> as Shim,
                (8, 8) => convert::<$from, Fixed<8, 8>>,
                (8, 24) => convert::<$from, Fixed<8, 24>>,
                (11, 53) => convert::<$from, Fixed<11, 53>>,
                (8, 11) => convert::<$from, Fixed<8, 11>>,
                _ => convert::<$from, Dynamic>,
            }
        };
    }
    match (from.exp_bits(), from.precision()) {
        (5, 11) => into!(Fixed<5, 11>),
        (8, 8) => into!(Fixed<8, 8>),
        (8, 24) => into!(Fixed<8, 24>),
        (11, 53) => into!(Fixed<11, 53>),
        (8, 11) => into!(Fixed<8, 11>),
        _ => into!(Dynamic),
    }
}

/// `roundToIntegral` of `a` in the packed format `f`.
pub extern "C" fn round_int(a: u64, _: u64, _: u64, f: u64, r: u64) -> u64 {
    fp::round_to_integral(unpack(f), a, round(r))
}

/// `a` of the packed format `f` to a `width`-bit integer, two's complement when `signed` is 1.
pub extern "C" fn to_int(a: u64, width: u64, signed: u64, f: u64, r: u64) -> u64 {
    fp::to_int(unpack(f), a, round(r), width as u32, signed != 0)
}

/// The `width`-bit integer `a` (two's complement when `signed` is 1) in the packed format `to`.
pub extern "C" fn from_int(a: u64, width: u64, signed: u64, to: u64, r: u64) -> u64 {
    fp::from_int(unpack(to), a, width as u32, signed != 0, round(r))
}

thread_local! {
    /// MPFR scratch for [`within_rep`], one per thread that runs compiled code.
    static RESOLVER: RefCell<Option<Resolver>> = const { RefCell::new(None) };
}

/// The representative of a bounded outcome's accept set: `leaf` is the address of an
/// [`Outcome::Within`] whose arguments are values 0 and 1, here `a` and `b`. The interpreter's
/// own resolver computes it, so a choice that is an approximation (`ex2.approx` read by a
/// later instruction) takes the same value compiled as interpreted.
pub extern "C" fn within_rep(a: u64, b: u64, leaf: u64, _: u64, _: u64) -> u64 {
    // SAFETY: compiled code passes the address of a leaf that `Compiled` owns for as long as
    // the code exists.
    let leaf = unsafe { &*(leaf as usize as *const Outcome) };
    RESOLVER.with(|r| {
        let mut r = r.borrow_mut();
        r.get_or_insert_with(|| Resolver::new([leaf]))
            .resolve(leaf, &[a, b])
            .representative()
    })
}
