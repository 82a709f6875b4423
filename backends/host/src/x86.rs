//! The x86-64 implementation: one `asm!` block per instruction.

use core::arch::asm;
use core::ptr::{addr_of, addr_of_mut};

use crate::Op2;

/// MXCSR at power-on: round to nearest, all exceptions masked, no FTZ/DAZ.
const DEFAULT_MXCSR: u32 = 0x1F80;

/// Proof that the CPU has SSE2, FMA and F16C; every instruction below needs
/// one of them, and executing one the CPU lacks would fault.
#[derive(Copy, Clone)]
pub(crate) struct Cpu(());

impl Cpu {
    /// The proof, if this CPU has the features.
    pub(crate) fn detect() -> Option<Cpu> {
        let present = is_x86_feature_detected!("sse2")
            && is_x86_feature_detected!("fma")
            && is_x86_feature_detected!("f16c");
        present.then_some(Cpu(()))
    }
}

/// Executes one instruction with MXCSR set to `$csr`, then restores the
/// caller's MXCSR, all in one `asm!` block: code the compiler generates
/// around the block may itself use SSE and assumes the default environment,
/// so the modified MXCSR must never outlive the block.
macro_rules! under_mxcsr {
    ($csr:expr, $insn:literal, $($operands:tt)*) => {{
        let csr: u32 = $csr;
        let mut saved: u32 = 0;
        // SAFETY: `Cpu` proves the instruction exists; `stmxcsr`/`ldmxcsr`
        // only access the two local u32s; the MXCSR value masks every
        // exception, so nothing traps; and the caller's MXCSR is restored
        // before the block ends.
        unsafe {
            asm!(
                "stmxcsr [{saved}]",
                "ldmxcsr [{csr}]",
                $insn,
                "ldmxcsr [{saved}]",
                saved = in(reg) addr_of_mut!(saved),
                csr = in(reg) addr_of!(csr),
                $($operands)*
                options(nostack, preserves_flags),
            )
        }
    }};
}

impl Cpu {
    /// `a op b` (`addss` etc.) under MXCSR `csr`.
    pub(crate) fn f32_op2(self, op: Op2, a: u32, b: u32, csr: u32) -> u32 {
        let mut x = f32::from_bits(a);
        let y = f32::from_bits(b);
        match op {
            Op2::Add => {
                under_mxcsr!(csr, "addss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Sub => {
                under_mxcsr!(csr, "subss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Mul => {
                under_mxcsr!(csr, "mulss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Div => {
                under_mxcsr!(csr, "divss {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
        }
        x.to_bits()
    }

    /// `a op b` (`addsd` etc.) under MXCSR `csr`.
    pub(crate) fn f64_op2(self, op: Op2, a: u64, b: u64, csr: u32) -> u64 {
        let mut x = f64::from_bits(a);
        let y = f64::from_bits(b);
        match op {
            Op2::Add => {
                under_mxcsr!(csr, "addsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Sub => {
                under_mxcsr!(csr, "subsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Mul => {
                under_mxcsr!(csr, "mulsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
            Op2::Div => {
                under_mxcsr!(csr, "divsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) y,)
            }
        }
        x.to_bits()
    }

    /// `a * b + c` (`vfmadd213ss x, y, z` computes `x = y * x + z`).
    pub(crate) fn f32_fma(self, a: u32, b: u32, c: u32, csr: u32) -> u32 {
        let mut x = f32::from_bits(a);
        let (y, z) = (f32::from_bits(b), f32::from_bits(c));
        under_mxcsr!(csr, "vfmadd213ss {x}, {y}, {z}",
            x = inout(xmm_reg) x, y = in(xmm_reg) y, z = in(xmm_reg) z,);
        x.to_bits()
    }

    /// `a * b + c` (`vfmadd213sd`).
    pub(crate) fn f64_fma(self, a: u64, b: u64, c: u64, csr: u32) -> u64 {
        let mut x = f64::from_bits(a);
        let (y, z) = (f64::from_bits(b), f64::from_bits(c));
        under_mxcsr!(csr, "vfmadd213sd {x}, {y}, {z}",
            x = inout(xmm_reg) x, y = in(xmm_reg) y, z = in(xmm_reg) z,);
        x.to_bits()
    }

    /// `sqrtss` under MXCSR `csr`.
    pub(crate) fn f32_sqrt(self, a: u32, csr: u32) -> u32 {
        let mut x = f32::from_bits(a);
        under_mxcsr!(csr, "sqrtss {x}, {x}", x = inout(xmm_reg) x,);
        x.to_bits()
    }

    /// `sqrtsd` under MXCSR `csr`.
    pub(crate) fn f64_sqrt(self, a: u64, csr: u32) -> u64 {
        let mut x = f64::from_bits(a);
        under_mxcsr!(csr, "sqrtsd {x}, {x}", x = inout(xmm_reg) x,);
        x.to_bits()
    }

    /// `vcvtps2ph` with rounding-control immediate `rc` (0..=3; bit 2 of
    /// the immediate, "use MXCSR.RC instead", stays clear).
    pub(crate) fn f32_to_f16(self, a: u32, rc: u32) -> u16 {
        let x = f32::from_bits(a);
        let r: f32;
        // The immediate must be a literal, hence one block per direction.
        match rc {
            0 => {
                under_mxcsr!(DEFAULT_MXCSR, "vcvtps2ph {r}, {x}, 0", r = out(xmm_reg) r, x = in(xmm_reg) x,)
            }
            1 => {
                under_mxcsr!(DEFAULT_MXCSR, "vcvtps2ph {r}, {x}, 1", r = out(xmm_reg) r, x = in(xmm_reg) x,)
            }
            2 => {
                under_mxcsr!(DEFAULT_MXCSR, "vcvtps2ph {r}, {x}, 2", r = out(xmm_reg) r, x = in(xmm_reg) x,)
            }
            _ => {
                under_mxcsr!(DEFAULT_MXCSR, "vcvtps2ph {r}, {x}, 3", r = out(xmm_reg) r, x = in(xmm_reg) x,)
            }
        }
        // The binary16 result is the low 16 bits of the register.
        r.to_bits() as u16
    }

    /// `vcvtph2ps` (exact) under the default MXCSR.
    pub(crate) fn f16_to_f32(self, a: u16) -> u32 {
        let r: f32;
        under_mxcsr!(DEFAULT_MXCSR, "vcvtph2ps {r}, {x}", r = out(xmm_reg) r, x = in(xmm_reg) a as i32,);
        r.to_bits()
    }

    /// `cvtsd2ss` under MXCSR `csr`.
    pub(crate) fn f64_to_f32(self, a: u64, csr: u32) -> u32 {
        let x = f64::from_bits(a);
        let r: f32;
        under_mxcsr!(csr, "cvtsd2ss {r}, {x}", r = out(xmm_reg) r, x = in(xmm_reg) x,);
        r.to_bits()
    }
}
