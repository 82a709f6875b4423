//! The host CPU as a [`Backend`]: each PTX variant mapped to what a CPU
//! fallback emulator would execute with the SSE/AVX instructions, with no
//! fix-ups. Where the naive mapping and the ISA disagree (x86 `minss` with a
//! NaN operand, a flush that x86 decides before rounding, `vcvtneps2bf16`
//! flushing subnormals), the campaign reports the difference as a finding.
//!
//! Every batch runs with one MXCSR switch per stage (widen, compute,
//! saturate, narrow), each a loop inside one `asm!` block
//! (`src/x86.rs`). The variant → instruction map is in `README.md`.

use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict, Words};
use semfuzz_spec::catalog::OperandRole;
use semfuzz_spec::Variant;

use crate::batch::{Arith, Columns, Precision};
use crate::imp::{Bf16Cpu, Cpu};
use crate::{mxcsr, Mode, Round};

/// The name on the command line.
const NAME: &str = "host";

/// Whether the host backend can run here, and who it is: `Err` says why not.
/// `arg` is what follows `host:` on the command line; the backend takes none.
pub fn probe(arg: Option<&str>) -> Result<Identity, String> {
    let (_, bf16) = detect(arg)?;
    Ok(identity(bf16))
}

/// Opens the host backend (see [`probe`] for `arg`).
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    let (cpu, bf16) = detect(arg).map_err(|reason| BackendError::Unavailable {
        backend: NAME.to_string(),
        reason,
    })?;
    Ok(Box::new(Host {
        identity: identity(bf16),
        cpu,
        bf16,
        scratch: Vec::new(),
        results: Vec::new(),
    }))
}

fn detect(arg: Option<&str>) -> Result<(Cpu, Option<Bf16Cpu>), String> {
    if let Some(arg) = arg {
        return Err(format!(
            "`host:{arg}`: the host backend takes no argument; write `host`"
        ));
    }
    let cpu = Cpu::detect().ok_or_else(|| {
        if cfg!(target_arch = "x86_64") {
            "this CPU lacks SSE2, FMA or F16C, which every host operation needs".to_string()
        } else {
            "not an x86-64 host: the host backend runs SSE/AVX instructions".to_string()
        }
    })?;
    Ok((cpu, Bf16Cpu::detect(cpu)))
}

fn identity(bf16: Option<Bf16Cpu>) -> Identity {
    let features = if bf16.is_some() {
        "f16c, fma, avx512_bf16"
    } else {
        "f16c, fma"
    };
    Identity {
        name: NAME.to_string(),
        version: format!("x86-64 SSE/AVX ({features})"),
        device: cpu_model(),
    }
}

/// The `model name` line of /proc/cpuinfo.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "x86-64 CPU (no model name in /proc/cpuinfo)".to_string())
}

/// The host backend: one per thread.
pub struct Host {
    identity: Identity,
    cpu: Cpu,
    bf16: Option<Bf16Cpu>,
    /// The inputs, rewritten (widened to binary32, absolute values) when the
    /// plan computes on something other than the raw inputs.
    scratch: Vec<u64>,
    /// One value per case: the kernel's result, then the destination's bits.
    results: Vec<u64>,
}

/// A register's format: the element type and its lane count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ty {
    F32,
    F32x2,
    F64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
}

impl Ty {
    fn parse(word: &str) -> Option<Ty> {
        Some(match word {
            "f32" => Ty::F32,
            "f32x2" => Ty::F32x2,
            "f64" => Ty::F64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            _ => return None,
        })
    }

    /// The register width in bits.
    fn width(self) -> u32 {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 32,
            Ty::F64 | Ty::F32x2 => 64,
        }
    }

    /// Every lane's sign bit.
    fn sign_mask(self) -> u64 {
        match self {
            Ty::F16 | Ty::Bf16 => 0x8000,
            Ty::F16x2 | Ty::Bf16x2 => 0x8000_8000,
            Ty::F32 => 0x8000_0000,
            Ty::F32x2 => 0x8000_0000_8000_0000,
            Ty::F64 => 0x8000_0000_0000_0000,
        }
    }

    /// The precision the host computes in: binary32 for the 16-bit formats.
    fn precision(self) -> Precision {
        if self == Ty::F64 {
            Precision::F64
        } else {
            Precision::F32
        }
    }

    /// The 16-bit format computed through binary32, if it is one.
    fn half(self) -> Option<Half> {
        match self {
            Ty::F16 | Ty::F16x2 => Some(Half::F16),
            Ty::Bf16 | Ty::Bf16x2 => Some(Half::Bf16),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Half {
    F16,
    Bf16,
}

/// A sign-bit operation (no floating-point instruction, no flush).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SignOp {
    Neg,
    Abs,
    /// `copysign d, a, b`: b with a's sign.
    Copysign,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Compute {
    Sign(SignOp),
    /// `cvt` between binary32 and a 16-bit format (`Plan::ty` is the destination):
    /// `vcvtph2ps` or a shift to widen, `vcvtps2ph` (rounding from MXCSR) or
    /// `vcvtneps2bf16` to narrow, with `.sat`/`.relu` on the binary32 value between.
    Convert {
        /// The source format.
        from: Ty,
        /// `.sat`: `maxps` with +0.0 then `minps` with 1.0.
        sat: bool,
        /// `.relu`: `maxps` with +0.0 before narrowing.
        relu: bool,
    },
    Float {
        op: Arith,
        /// `.sat`: `maxss` with +0.0 then `minss` with 1.0 after the operation.
        sat: bool,
        /// `.relu`: `maxss` with +0.0 after the operation.
        relu: bool,
        /// `.abs` (min/max): the inputs' sign bits cleared first.
        abs_inputs: bool,
        /// `.xorsign`: the result's sign bit set to sign(a) xor sign(b).
        xorsign: bool,
    },
}

/// How the host computes one variant.
#[derive(Copy, Clone, Debug)]
struct Plan {
    ty: Ty,
    compute: Compute,
    /// MXCSR for every stage: the rounding modifier (default `.rn`), FTZ and
    /// DAZ for `.ftz`.
    csr: u32,
}

/// Maps a `cvt` variant (`cvt.rn.relu.f16.f32`: modifiers, then the destination
/// and source types) to the host's conversions.
fn plan_cvt(words: &Words, bf16: bool) -> Result<Plan, String> {
    let [modifiers @ .., to, from] = words.modifiers.as_slice() else {
        return Err("a conversion names two types".to_string());
    };
    let (to, from) = match (Ty::parse(to), Ty::parse(from)) {
        (Some(t), Some(f)) => (t, f),
        _ => return Err(format!("no host format for `.{to}.{from}`")),
    };
    // The batch path widens halves to binary32 lanes and narrows binary32 lanes: it has
    // conversions between binary32 and a 16-bit format only.
    if (to == Ty::F32) == (from == Ty::F32) || to == Ty::F64 || from == Ty::F64 {
        return Err(format!(
            "no host conversion from {from:?} to {to:?}: only between binary32 and a 16-bit format"
        ));
    }
    let (mut round, mut ftz, mut sat, mut relu) = (Round::NearestEven, false, false, false);
    for &m in modifiers {
        if let Some(r) = rounding_word(m) {
            round = r;
            continue;
        }
        match m {
            "ftz" => ftz = true,
            "sat" => sat = true,
            "relu" => relu = true,
            other => return Err(format!("no x86 counterpart of `.{other}`")),
        }
    }
    if to.half() == Some(Half::Bf16) {
        if !bf16 {
            return Err(
                "this CPU lacks AVX512-BF16 (vcvtneps2bf16), which narrows bf16 results".into(),
            );
        }
        if round != Round::NearestEven {
            return Err("vcvtneps2bf16 rounds to nearest even only".to_string());
        }
    }
    let csr = plan_mxcsr(round, ftz)?;
    Ok(Plan {
        ty: to,
        compute: Compute::Convert { from, sat, relu },
        csr,
    })
}

/// Maps `variant` to the host's instructions, or says why the host has none.
fn plan(variant: &Variant, bf16: bool) -> Result<Plan, String> {
    let words = Words::of(variant);
    if words.opcode == "cvt" && variant.sources.iter().all(|s| s.role == OperandRole::Value) {
        return plan_cvt(&words, bf16);
    }
    let why_not = match words.opcode {
        "set" | "setp" | "testp" => Some("comparisons and class tests are not mapped to the host"),
        "sin" | "cos" | "lg2" | "ex2" | "tanh" | "rsqrt" => {
            Some("SSE/AVX has no instruction for this approximated function")
        }
        op if op.chars().any(|c| c.is_ascii_uppercase()) => {
            Some("a SASS instruction: the host maps PTX only")
        }
        _ => None,
    };
    if let Some(why) = why_not {
        return Err(why.to_string());
    }
    let ty = words
        .ty()
        .and_then(Ty::parse)
        .ok_or_else(|| format!("no host format for `.{}`", words.ty().unwrap_or("")))?;
    if variant.sources.iter().any(|s| s.role != OperandRole::Value) {
        return Err("an operand that is not a register value".to_string());
    }
    if ty.half() == Some(Half::Bf16) && !bf16 {
        return Err(
            "this CPU lacks AVX512-BF16 (vcvtneps2bf16), which narrows bf16 results".into(),
        );
    }
    let (mut round, mut ftz) = (Round::NearestEven, false);
    let (mut sat, mut relu, mut abs_inputs, mut xorsign) = (false, false, false, false);
    for &m in &words.modifiers[..words.modifiers.len() - 1] {
        if let Some(r) = rounding_word(m) {
            round = r;
            continue;
        }
        match m {
            "ftz" => ftz = true,
            "sat" => sat = true,
            "relu" => relu = true,
            "abs" => abs_inputs = true,
            "xorsign" => xorsign = true,
            // Approximations: the exact instruction under the default
            // rounding; `.NaN`: what minss/maxss do anyway (no fix-up).
            "approx" | "full" | "NaN" => {}
            other => return Err(format!("no x86 counterpart of `.{other}`")),
        }
    }
    if words.opcode == "rcp" && ty == Ty::F64 && words.has("approx") {
        return Err(
            "rcp.approx.ftz.f64 approximates from the upper word into a 1.11.20 result; \
             no x86 instruction computes that"
                .to_string(),
        );
    }
    let n = variant.sources.len();
    let op = match (words.opcode, n) {
        ("neg", 1) => Err(SignOp::Neg),
        ("abs", 1) => Err(SignOp::Abs),
        ("copysign", 2) => Err(SignOp::Copysign),
        ("add", 2) => Ok(Arith::Add),
        ("sub", 2) => Ok(Arith::Sub),
        ("mul", 2) => Ok(Arith::Mul),
        ("div", 2) => Ok(Arith::Div),
        ("fma" | "mad", 3) => Ok(Arith::Fma),
        ("sqrt", 1) => Ok(Arith::Sqrt),
        ("rcp", 1) => Ok(Arith::Rcp),
        ("min", 2) => Ok(Arith::Min),
        ("max", 2) => Ok(Arith::Max),
        ("min", 3) => Ok(Arith::Min3),
        ("max", 3) => Ok(Arith::Max3),
        (op, n) => {
            return Err(format!(
                "`{op}` with {n} operands is not mapped to the host"
            ))
        }
    };
    let precision = ty.precision();
    let compute = match op {
        Err(sign) => Compute::Sign(sign),
        Ok(op) if op.exists(precision) => Compute::Float {
            op,
            sat,
            relu,
            abs_inputs,
            xorsign,
        },
        Ok(op) => {
            return Err(format!(
                "no {op:?} instruction for `.{}`",
                words.ty().unwrap_or("")
            ))
        }
    };
    if ty.half().is_some() && round != Round::NearestEven {
        return Err("the 16-bit results are narrowed to nearest even only".to_string());
    }
    let csr = plan_mxcsr(round, ftz)?;
    Ok(Plan { ty, compute, csr })
}

impl Backend for Host {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn supports(&self, variant: &Variant) -> Support {
        match plan(variant, self.bf16.is_some()) {
            Ok(_) => Support::Yes,
            Err(why) => Support::No(why),
        }
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        let plan = plan(variant, self.bf16.is_some()).map_err(|why| {
            BackendError::failed(NAME, format!("cannot run `{}`: {why}", variant.text))
        })?;
        let stride = variant.sources.len();
        if inputs.len() != out.len() * stride {
            return Err(BackendError::failed(
                NAME,
                format!(
                    "`{}` takes {stride} inputs per case: got {} values for {} cases",
                    variant.text,
                    inputs.len(),
                    out.len()
                ),
            ));
        }
        let dest_mask = u64::MAX >> (64 - plan.ty.width());
        let sign = plan.ty.sign_mask();
        let rows = inputs.chunks_exact(stride.max(1));
        match plan.compute {
            Compute::Sign(op) => {
                for (row, o) in rows.zip(out.iter_mut()) {
                    let bits = match op {
                        SignOp::Neg => row[0] ^ sign,
                        SignOp::Abs => row[0] & !sign,
                        SignOp::Copysign => (row[1] & !sign) | (row[0] & sign),
                    };
                    *o = Verdict::Bits(bits & dest_mask);
                }
            }
            Compute::Convert { from, sat, relu } => {
                self.convert(plan, from, sat, relu, inputs, stride)?;
                for (r, o) in self.results.iter().zip(out.iter_mut()) {
                    *o = Verdict::Bits(r & dest_mask);
                }
            }
            Compute::Float {
                op,
                sat,
                relu,
                abs_inputs,
                xorsign,
            } => {
                self.compute(plan, op, abs_inputs, inputs, stride)?;
                let (cpu, csr, results) = (self.cpu, plan.csr, &mut self.results);
                if sat {
                    cpu.sat(csr, results);
                }
                if relu {
                    cpu.relu(csr, results);
                }
                match plan.ty.half() {
                    Some(Half::F16) => cpu.narrow_f16(csr, results),
                    Some(Half::Bf16) => self
                        .bf16
                        .ok_or_else(|| BackendError::failed(NAME, "no AVX512-BF16 on this CPU"))?
                        .narrow_bf16(csr, results),
                    None => {}
                }
                for ((r, row), o) in results.iter().zip(rows).zip(out.iter_mut()) {
                    let sign_bits = if xorsign { (row[0] ^ row[1]) & sign } else { 0 };
                    *o = Verdict::Bits((r | sign_bits) & dest_mask);
                }
            }
        }
        Ok(())
    }
}

impl Host {
    /// Runs a conversion of `plan` from `from` on the batch into `self.results`:
    /// each source as binary32 lanes (the two sources of `.f16x2`/`.bf16x2`,
    /// `a` in the upper lane), `.sat`/`.relu`, then narrowed to the destination.
    fn convert(
        &mut self,
        plan: Plan,
        from: Ty,
        sat: bool,
        relu: bool,
        inputs: &[u64],
        stride: usize,
    ) -> Result<(), BackendError> {
        let (cpu, csr) = (self.cpu, plan.csr);
        self.results.clear();
        self.results.extend(
            inputs
                .chunks_exact(stride.max(1))
                .map(|row| match (from, row) {
                    (Ty::F32, [a, b]) => (b & 0xFFFF_FFFF) | (a & 0xFFFF_FFFF) << 32,
                    // A bf16 is the high half of the binary32 with the same value.
                    (Ty::Bf16, [h, ..]) => (h & 0xFFFF) << 16,
                    (_, [x, ..]) => *x,
                    (_, []) => 0,
                }),
        );
        if from == Ty::F16 {
            cpu.widen_f16(csr, &mut self.results);
        }
        if sat {
            cpu.sat(csr, &mut self.results);
        }
        if relu {
            cpu.relu(csr, &mut self.results);
        }
        match plan.ty.half() {
            Some(Half::F16) => cpu.narrow_f16(csr, &mut self.results),
            Some(Half::Bf16) => self
                .bf16
                .ok_or_else(|| BackendError::failed(NAME, "no AVX512-BF16 on this CPU"))?
                .narrow_bf16(csr, &mut self.results),
            None => {}
        }
        Ok(())
    }

    /// Runs `op` of `plan` on the batch into `self.results` (binary32 lanes
    /// for the 16-bit formats, not yet narrowed).
    fn compute(
        &mut self,
        plan: Plan,
        op: Arith,
        abs_inputs: bool,
        inputs: &[u64],
        stride: usize,
    ) -> Result<(), BackendError> {
        let half = plan.ty.half();
        let values: &[u64] = if half.is_some() || abs_inputs {
            self.scratch.clear();
            self.scratch.extend_from_slice(inputs);
            if abs_inputs {
                let magnitude = !plan.ty.sign_mask();
                self.scratch.iter_mut().for_each(|v| *v &= magnitude);
            }
            match half {
                Some(Half::F16) => self.cpu.widen_f16(plan.csr, &mut self.scratch),
                // A bf16 is the high half of the binary32 with the same value.
                Some(Half::Bf16) => self
                    .scratch
                    .iter_mut()
                    .for_each(|v| *v = (*v & 0xFFFF) << 16 | (*v & 0xFFFF_0000) << 32),
                None => {}
            }
            &self.scratch
        } else {
            inputs
        };
        let precision = plan.ty.precision();
        let rows = inputs.len() / stride.max(1);
        self.results.clear();
        self.results.resize(rows, 0);
        // Operands past the form's arity read column 0 (always in bounds).
        let cols = [0, 1, 2].map(|k| if k < op.arity() && k < stride { k } else { 0 });
        let src = Columns {
            values,
            stride: stride.max(1),
            cols,
        };
        self.cpu
            .arith(precision, op, plan.csr, src, &mut self.results)
            .ok_or_else(|| {
                BackendError::failed(NAME, format!("no {op:?} kernel for {precision:?}"))
            })
    }
}

/// The MXCSR a plan runs under: PTX's `.ftz` flushes subnormal inputs and results, which is
/// FTZ and DAZ together.
fn plan_mxcsr(round: Round, ftz: bool) -> Result<u32, String> {
    mxcsr(Mode {
        round,
        ftz,
        daz: ftz,
    })
    .ok_or_else(|| "a rounding mode SSE lacks".to_string())
}

/// The rounding a PTX rounding modifier names (`rn`, `rz`, `rm`, `rp`); `rna` has no SSE
/// encoding, so it is left to the caller's "no x86 counterpart".
fn rounding_word(m: &str) -> Option<Round> {
    Some(match m {
        "rn" => Round::NearestEven,
        "rz" => Round::TowardZero,
        "rm" => Round::Down,
        "rp" => Round::Up,
        _ => return None,
    })
}
