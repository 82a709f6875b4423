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

// ---------------------------------------------------------------------------
// Batch kernels: one MXCSR switch around a loop over a whole batch.
// ---------------------------------------------------------------------------

use core::arch::x86_64::{__m128, __m128d, _mm_set1_pd, _mm_set1_ps, _mm_setzero_ps};

use crate::batch::{Arith, Columns, Precision};

/// Emits a batch loop: MXCSR saved and set to `csr`, then for each of `n`
/// rows the instructions `$insn` with the row's operands at `[rdi]`, `[rsi]`
/// and `[rdx]` (all three pointers step by `r9` bytes) and its result stored
/// at `[r8]` (which steps by 8), then the caller's MXCSR restored. `xmm3`
/// holds 1.0f32 in every lane, `xmm4` 1.0f64, `xmm5` +0.0; `xmm0`-`xmm2`
/// are scratch. Everything happens inside one `asm!` block so that no
/// compiler-generated code runs under the modified MXCSR.
macro_rules! batch_kernel {
    ($(#[$doc:meta])* $name:ident: $($insn:literal),+ $(,)?) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `job`'s pointers must be valid for `job.n` rows (see [`Job`]) and
        /// the CPU must have the instructions.
        unsafe fn $name(job: &Job) {
            let mut env: [u32; 2] = [job.csr, 0];
            let ones_f32: __m128 = _mm_set1_ps(1.0);
            let ones_f64: __m128d = _mm_set1_pd(1.0);
            let zero: __m128 = _mm_setzero_ps();
            // SAFETY: the caller guarantees the pointers and the CPU; the
            // MXCSR value masks every exception, so nothing traps; the
            // caller's MXCSR is restored before the block ends.
            unsafe {
                asm!(
                    "stmxcsr [rax + 4]",
                    "ldmxcsr [rax]",
                    "test rcx, rcx",
                    "jz 3f",
                    "2:",
                    $($insn,)+
                    "add rdi, r9",
                    "add rsi, r9",
                    "add rdx, r9",
                    "add r8, 8",
                    "dec rcx",
                    "jnz 2b",
                    "3:",
                    "ldmxcsr [rax + 4]",
                    in("rax") env.as_mut_ptr(),
                    inout("rdi") job.a => _,
                    inout("rsi") job.b => _,
                    inout("rdx") job.c => _,
                    inout("r8") job.d => _,
                    inout("rcx") job.n => _,
                    in("r9") job.stride,
                    in("xmm3") ones_f32,
                    in("xmm4") ones_f64,
                    in("xmm5") zero,
                    out("xmm0") _,
                    out("xmm1") _,
                    out("xmm2") _,
                    options(nostack),
                );
            }
        }
    };
}

/// Raw operands of one batch loop (see [`batch_kernel!`]).
struct Job {
    csr: u32,
    n: usize,
    a: *const u64,
    b: *const u64,
    c: *const u64,
    /// Bytes from one row's operand to the next row's.
    stride: usize,
    d: *mut u64,
}

// Packed-single forms: lanes 0 and 1 are a row's `.f32x2` lanes (or its
// `.f32` value and a zero lane, whose result is discarded); lane-wise each is
// exactly the scalar `...ss` instruction.
batch_kernel!(
    /// `addps` per row.
    f32_add: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "addps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `subps` per row.
    f32_sub: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "subps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `mulps` per row.
    f32_mul: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "mulps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `divps` per row.
    f32_div: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "divps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `vfmadd213ps` (a * b + c) per row.
    f32_fma: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "movq xmm2, qword ptr [rdx]", "vfmadd213ps xmm0, xmm1, xmm2", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `sqrtps` per row.
    f32_sqrt: "movq xmm0, qword ptr [rdi]", "sqrtps xmm0, xmm0", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `divps` of 1.0 per row.
    f32_rcp: "movq xmm1, qword ptr [rdi]", "movaps xmm0, xmm3", "divps xmm0, xmm1",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `minps a, b` per row: b when either is NaN or both are zeros.
    f32_min: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "minps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `maxps a, b` per row: b when either is NaN or both are zeros.
    f32_max: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "maxps xmm0, xmm1", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `minps (minps a, b), c` per row.
    f32_min3: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "minps xmm0, xmm1", "movq xmm1, qword ptr [rdx]", "minps xmm0, xmm1",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `maxps (maxps a, b), c` per row.
    f32_max3: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "maxps xmm0, xmm1", "movq xmm1, qword ptr [rdx]", "maxps xmm0, xmm1",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `.sat` as a fallback writes it: `maxps x, +0.0` (NaN and -0.0 give
    /// +0.0, the second operand), then `minps x, 1.0`.
    f32_sat: "movq xmm0, qword ptr [rdi]", "maxps xmm0, xmm5", "minps xmm0, xmm3",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `.relu` as a fallback writes it: `maxps x, +0.0`.
    f32_relu: "movq xmm0, qword ptr [rdi]", "maxps xmm0, xmm5", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `addsd` per row.
    f64_add: "movq xmm0, qword ptr [rdi]", "addsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `subsd` per row.
    f64_sub: "movq xmm0, qword ptr [rdi]", "subsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `mulsd` per row.
    f64_mul: "movq xmm0, qword ptr [rdi]", "mulsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `divsd` per row.
    f64_div: "movq xmm0, qword ptr [rdi]", "divsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `vfmadd213sd` (a * b + c) per row.
    f64_fma: "movq xmm0, qword ptr [rdi]", "movq xmm1, qword ptr [rsi]",
    "vfmadd213sd xmm0, xmm1, qword ptr [rdx]", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `sqrtsd` per row.
    f64_sqrt: "movq xmm0, qword ptr [rdi]", "sqrtsd xmm0, xmm0", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `divsd` of 1.0 per row.
    f64_rcp: "movapd xmm0, xmm4", "divsd xmm0, qword ptr [rdi]", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `minsd a, b` per row.
    f64_min: "movq xmm0, qword ptr [rdi]", "minsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `maxsd a, b` per row.
    f64_max: "movq xmm0, qword ptr [rdi]", "maxsd xmm0, qword ptr [rsi]",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `vcvtph2ps`: two binary16 lanes to two binary32 lanes.
    f16_widen: "movd xmm0, dword ptr [rdi]", "vcvtph2ps xmm0, xmm0", "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `vcvtps2ph` rounding as MXCSR.RC says (immediate 4): two binary32
    /// lanes to two binary16 lanes.
    f16_narrow: "movq xmm0, qword ptr [rdi]", "vcvtps2ph xmm0, xmm0, 4",
    "movq qword ptr [r8], xmm0"
);
batch_kernel!(
    /// `vcvtneps2bf16` (AVX512-BF16; round to nearest even, subnormal
    /// inputs and results flushed to zero): two binary32 lanes to two bf16
    /// lanes.
    bf16_narrow: "movq xmm0, qword ptr [rdi]", "vcvtneps2bf16 xmm0, xmm0",
    "movq qword ptr [r8], xmm0"
);

impl Cpu {
    /// Runs `op` at `precision` on `dst.len()` rows of `src` (a row is
    /// `stride` values; operand k of a row is at `cols[k]`; a form with fewer
    /// operands ignores the rest) under MXCSR `csr`, writing one result per
    /// row into `dst`. For `.f32` the low lane of each value is used.
    /// `None` (and nothing written) for an operation that has no kernel at
    /// that precision ([`Arith::exists`] says which).
    pub(crate) fn arith(
        self,
        precision: Precision,
        op: Arith,
        csr: u32,
        src: Columns,
        dst: &mut [u64],
    ) -> Option<()> {
        let kernel: unsafe fn(&Job) = match (precision, op) {
            (Precision::F32, Arith::Add) => f32_add,
            (Precision::F32, Arith::Sub) => f32_sub,
            (Precision::F32, Arith::Mul) => f32_mul,
            (Precision::F32, Arith::Div) => f32_div,
            (Precision::F32, Arith::Fma) => f32_fma,
            (Precision::F32, Arith::Sqrt) => f32_sqrt,
            (Precision::F32, Arith::Rcp) => f32_rcp,
            (Precision::F32, Arith::Min) => f32_min,
            (Precision::F32, Arith::Max) => f32_max,
            (Precision::F32, Arith::Min3) => f32_min3,
            (Precision::F32, Arith::Max3) => f32_max3,
            (Precision::F64, Arith::Add) => f64_add,
            (Precision::F64, Arith::Sub) => f64_sub,
            (Precision::F64, Arith::Mul) => f64_mul,
            (Precision::F64, Arith::Div) => f64_div,
            (Precision::F64, Arith::Fma) => f64_fma,
            (Precision::F64, Arith::Sqrt) => f64_sqrt,
            (Precision::F64, Arith::Rcp) => f64_rcp,
            (Precision::F64, Arith::Min) => f64_min,
            (Precision::F64, Arith::Max) => f64_max,
            (Precision::F64, Arith::Min3 | Arith::Max3) => return None,
        };
        let n = dst.len();
        let [a, b, c] = src.operand_ptrs(n);
        let job = Job {
            csr,
            n,
            a,
            b,
            c,
            stride: src.stride * 8,
            d: dst.as_mut_ptr(),
        };
        // SAFETY: `operand_ptrs` checked that every row's operands lie in
        // `src`, `dst` holds `n` values, and `Cpu` proves SSE2/FMA/F16C.
        unsafe { kernel(&job) };
        Some(())
    }

    /// Applies a one-operand kernel to each value of `buf` in place under
    /// MXCSR `csr`.
    fn in_place(self, kernel: unsafe fn(&Job), csr: u32, buf: &mut [u64]) {
        let p = buf.as_mut_ptr();
        let job = Job {
            csr,
            n: buf.len(),
            a: p,
            b: p,
            c: p,
            stride: 8,
            d: p,
        };
        // SAFETY: every row reads and then writes its own value of `buf`;
        // `Cpu` (or `Bf16Cpu` for its caller) proves the instructions.
        unsafe { kernel(&job) }
    }

    /// `.sat` on each binary32 lane pair of `buf` (`maxps` with +0.0, `minps` with 1.0).
    pub(crate) fn sat(self, csr: u32, buf: &mut [u64]) {
        self.in_place(f32_sat, csr, buf)
    }

    /// `.relu` on each binary32 lane pair of `buf` (`maxps` with +0.0).
    pub(crate) fn relu(self, csr: u32, buf: &mut [u64]) {
        self.in_place(f32_relu, csr, buf)
    }

    /// Each value's two binary16 lanes (low 32 bits) to two binary32 lanes.
    pub(crate) fn widen_f16(self, csr: u32, buf: &mut [u64]) {
        self.in_place(f16_widen, csr, buf)
    }

    /// Each value's two binary32 lanes to two binary16 lanes (low 32 bits), rounded as
    /// `csr`'s rounding control says.
    pub(crate) fn narrow_f16(self, csr: u32, buf: &mut [u64]) {
        self.in_place(f16_narrow, csr, buf)
    }
}

/// Proof that the CPU has AVX512-BF16 with AVX512-VL (the 128-bit
/// `vcvtneps2bf16`) besides what [`Cpu`] proves.
#[derive(Copy, Clone)]
pub(crate) struct Bf16Cpu(Cpu);

impl Bf16Cpu {
    /// The proof, if this CPU has the features.
    pub(crate) fn detect(cpu: Cpu) -> Option<Bf16Cpu> {
        let present =
            is_x86_feature_detected!("avx512bf16") && is_x86_feature_detected!("avx512vl");
        present.then_some(Bf16Cpu(cpu))
    }

    /// Each value's two binary32 lanes to two bf16 lanes (low 32 bits) with
    /// `vcvtneps2bf16`.
    pub(crate) fn narrow_bf16(self, csr: u32, buf: &mut [u64]) {
        self.0.in_place(bf16_narrow, csr, buf)
    }
}
