//! The host CPU as a semfuzz backend: what a CPU fallback computes with the
//! x86-64 SSE/AVX scalar instructions under a given MXCSR rounding mode and
//! flush-to-zero (FTZ) / denormals-are-zero (DAZ) setting.
//!
//! [`probe`] and [`open`] give the `host` [`semfuzz_backend::Backend`],
//! which maps PTX variants onto these instructions and runs whole batches
//! under one MXCSR switch (`README.md` has the map). The functions below
//! compute one operation each.
//!
//! Every function takes and returns raw encodings. Each call loads the
//! requested MXCSR, executes the instruction and restores the previous MXCSR
//! inside one `asm!` block: the compiler assumes round-to-nearest without
//! FTZ/DAZ everywhere else, so the mode must never be visible outside it.
//! Exception flags raised by the instruction are discarded with the restore.
//!
//! Functions return `None` when the host cannot execute the operation: not
//! x86-64, a required CPU feature missing (see [`available`]), or a rounding
//! mode that SSE has no encoding for ([`Round::NearestAway`]).

#![warn(missing_docs)]

pub use backend::{open, probe, Host};
pub use differences::known_difference;
pub use semfuzz_fp::Round;

mod backend;
mod batch;
mod differences;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
use x86 as imp;

#[cfg(not(target_arch = "x86_64"))]
mod unsupported;
#[cfg(not(target_arch = "x86_64"))]
use unsupported as imp;

/// The floating-point environment an instruction runs under.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mode {
    /// Rounding direction (MXCSR.RC). [`Round::NearestAway`] has no
    /// encoding, so operations under it return `None`.
    pub round: Round,
    /// Flush-to-zero (MXCSR.FTZ): tiny results become zero of the same sign.
    pub ftz: bool,
    /// Denormals-are-zero (MXCSR.DAZ): subnormal inputs read as zero of the
    /// same sign.
    pub daz: bool,
}

impl Mode {
    /// IEEE behaviour with rounding direction `round`: no FTZ, no DAZ.
    pub const fn ieee(round: Round) -> Mode {
        Mode {
            round,
            ftz: false,
            daz: false,
        }
    }
}

/// The SSE rounding-control encoding of `round` (MXCSR bits 13-14, and the
/// low two bits of the `vcvtps2ph` immediate), if there is one.
fn rounding_control(round: Round) -> Option<u32> {
    match round {
        Round::NearestEven => Some(0),
        Round::Down => Some(1),
        Round::Up => Some(2),
        Round::TowardZero => Some(3),
        Round::NearestAway => None,
    }
}

/// The MXCSR value for `mode`: all exceptions masked (so nothing traps),
/// status flags clear.
fn mxcsr(mode: Mode) -> Option<u32> {
    const MASK_ALL_EXCEPTIONS: u32 = 0x1F80;
    const DAZ: u32 = 1 << 6;
    const FTZ: u32 = 1 << 15;
    let rc = rounding_control(mode.round)?;
    Some(
        MASK_ALL_EXCEPTIONS
            | rc << 13
            | if mode.daz { DAZ } else { 0 }
            | if mode.ftz { FTZ } else { 0 },
    )
}

/// Does this host run every operation of this crate: x86-64 with SSE2, FMA
/// and F16C, detected at run time?
pub fn available() -> bool {
    imp::Cpu::detect().is_some()
}

/// A binary arithmetic instruction (`addss`/`addsd` and friends).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op2 {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
}

/// `a op b` in binary32 under `mode`.
pub fn f32_op2(op: Op2, a: u32, b: u32, mode: Mode) -> Option<u32> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f32_op2(op, a, b, csr))
}

/// `a op b` in binary64 under `mode`.
pub fn f64_op2(op: Op2, a: u64, b: u64, mode: Mode) -> Option<u64> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f64_op2(op, a, b, csr))
}

/// `a * b + c` in binary32 with one rounding (`vfmadd213ss`) under `mode`.
pub fn f32_fma(a: u32, b: u32, c: u32, mode: Mode) -> Option<u32> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f32_fma(a, b, c, csr))
}

/// `a * b + c` in binary64 with one rounding (`vfmadd213sd`) under `mode`.
pub fn f64_fma(a: u64, b: u64, c: u64, mode: Mode) -> Option<u64> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f64_fma(a, b, c, csr))
}

/// The square root of `a` in binary32 (`sqrtss`) under `mode`.
pub fn f32_sqrt(a: u32, mode: Mode) -> Option<u32> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f32_sqrt(a, csr))
}

/// The square root of `a` in binary64 (`sqrtsd`) under `mode`.
pub fn f64_sqrt(a: u64, mode: Mode) -> Option<u64> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f64_sqrt(a, csr))
}

/// Binary32 to binary16 (`vcvtps2ph`) with the rounding direction encoded in
/// the instruction's immediate. It runs under the default MXCSR (no FTZ, no
/// DAZ), so the result never depends on the caller's environment.
pub fn f32_to_f16(a: u32, round: Round) -> Option<u16> {
    let rc = rounding_control(round)?;
    Some(imp::Cpu::detect()?.f32_to_f16(a, rc))
}

/// Binary16 to binary32 (`vcvtph2ps`), which is exact.
pub fn f16_to_f32(a: u16) -> Option<u32> {
    Some(imp::Cpu::detect()?.f16_to_f32(a))
}

/// Binary64 to binary32 (`cvtsd2ss`) under `mode`.
pub fn f64_to_f32(a: u64, mode: Mode) -> Option<u32> {
    let csr = mxcsr(mode)?;
    Some(imp::Cpu::detect()?.f64_to_f32(a, csr))
}
