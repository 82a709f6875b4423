//! Which LLVM IR computes a PTX variant: an NVVM intrinsic, or the plain IR operation NVPTX
//! selects the instruction from. README.md has the table this code implements.

use semfuzz_backend::Words;
use semfuzz_spec::catalog::OperandRole;
use semfuzz_spec::Variant;

/// An LLVM IR value type a variant's operands have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IrType {
    /// The element type (`float`, `double`, `half`, `bfloat`).
    pub elem: &'static str,
    /// 1 for a scalar, 2 for `<2 x elem>`.
    pub lanes: u32,
    /// Bits per element.
    pub elem_bits: u32,
}

impl IrType {
    /// The type of PTX type `ty` (`f32`, `bf16x2`), if LLVM has one.
    fn of(ty: &str) -> Option<IrType> {
        let (elem, elem_bits, lanes) = match ty {
            "f32" => ("float", 32, 1),
            "f64" => ("double", 64, 1),
            "f16" => ("half", 16, 1),
            "bf16" => ("bfloat", 16, 1),
            "f32x2" => ("float", 32, 2),
            "f16x2" => ("half", 16, 2),
            "bf16x2" => ("bfloat", 16, 2),
            _ => return None,
        };
        Some(IrType {
            elem,
            lanes,
            elem_bits,
        })
    }

    /// The register width.
    pub fn bits(self) -> u32 {
        self.elem_bits * self.lanes
    }

    /// How IR text writes it: `float`, `<2 x half>`.
    pub fn text(self) -> String {
        if self.lanes == 1 {
            self.elem.to_string()
        } else {
            format!("<{} x {}>", self.lanes, self.elem)
        }
    }

    /// Whether scalar `bits` of this type are a NaN.
    pub fn is_nan(self, bits: u64) -> bool {
        let infinity: u64 = match self.elem {
            "float" => 0x7f80_0000,
            "double" => 0x7ff0_0000_0000_0000,
            "half" => 0x7c00,
            _ => 0x7f80,
        };
        bits & !(1 << (self.elem_bits - 1)) > infinity
    }

    /// The overloaded-intrinsic suffix: `f32`, `v2f16`, `bf16`.
    fn mangled(self) -> String {
        let elem = match self.elem {
            "float" => "f32",
            "double" => "f64",
            "half" => "f16",
            _ => "bf16",
        };
        if self.lanes == 1 {
            elem.to_string()
        } else {
            format!("v{}{elem}", self.lanes)
        }
    }
}

/// The IR instruction a case becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// `call @name(...)`: an intrinsic (NVVM or generic), declared in the module.
    Call(String),
    /// A plain instruction (`fadd`, `fsub`, `fmul`, `fneg`).
    Instr(&'static str),
}

/// How a variant is written in IR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Route {
    /// The instruction.
    pub op: Op,
    /// The operand and result type.
    pub ty: IrType,
    /// Operand order: `args[i]` is the variant's source `args[i]`.
    pub args: Vec<usize>,
    /// Flip the sign bit of source 1 unless it is a NaN (`sub` through the `add` intrinsics:
    /// PTX `sub` returns a NaN `b` with its own sign, as `add` does).
    pub negate_b: bool,
    /// Mark the function `"denormal-fp-math-f32"="preserve-sign,preserve-sign"`: how `.ftz`
    /// reaches plain f32 IR (NVPTX then selects the `.ftz` instruction).
    pub ftz_attribute: bool,
}

impl Route {
    /// The IR operands of the case for `row` (the variant's sources), in IR order: `args`
    /// applied, and `b`'s sign flipped where [`Route::negate_b`] says.
    pub fn arguments(&self, row: &[u64]) -> Vec<u64> {
        let sign =
            (0..self.ty.lanes).fold(0u64, |acc, l| acc | 1 << ((l + 1) * self.ty.elem_bits - 1));
        self.args
            .iter()
            .map(|&a| {
                if self.negate_b && a == 1 && !self.ty.is_nan(row[a]) {
                    row[a] ^ sign
                } else {
                    row[a]
                }
            })
            .collect()
    }

    /// Whether the case is a call to an NVVM intrinsic (which an LLVM may not know).
    pub fn intrinsic(&self) -> Option<&str> {
        match &self.op {
            Op::Call(name) if name.starts_with("llvm.nvvm.") => Some(name),
            _ => None,
        }
    }
}

/// How many sources each opcode takes.
fn arity(opcode: &str) -> Option<usize> {
    Some(match opcode {
        "abs" | "neg" | "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => 1,
        "add" | "sub" | "mul" | "div" | "min" | "max" | "copysign" => 2,
        "fma" | "mad" => 3,
        _ => return None,
    })
}

/// The route of `variant`, or why it has none.
pub(crate) fn route(variant: &Variant) -> Result<Route, String> {
    let words = Words::of(variant);
    let no = |why: &str| Err(format!("{}: {why}", variant.text));
    let Some(n) = arity(words.opcode) else {
        return no("no NVVM intrinsic or IR operation computes this opcode");
    };
    let Some(ty) = words.ty().and_then(IrType::of) else {
        return no("LLVM has no IR type for this operand type");
    };
    if variant.sources.len() != n
        || variant
            .sources
            .iter()
            .any(|s| s.role != OperandRole::Value || s.width != ty.bits())
        || variant.dests.first().map(|d| d.width) != Some(ty.bits())
    {
        return no("this operand form has no LLVM counterpart (operand count or widths differ)");
    }
    let mods = &words.modifiers[..words.modifiers.len() - 1];
    let rounding = words.rounding();
    let ftz = words.has("ftz");
    let packed_or_16 = ty.lanes > 1 || ty.elem_bits == 16;
    let args: Vec<usize> = (0..n).collect();
    let plain = |op: Op, args: Vec<usize>| -> Result<Route, String> {
        if words.has("sat") {
            return no("no IR operation saturates, and no NVVM intrinsic exists for it");
        }
        if ftz && ty.elem != "float" {
            return no("NVPTX selects .ftz only for f32 IR (denormal-fp-math-f32)");
        }
        Ok(Route {
            op,
            ty,
            args,
            negate_b: false,
            ftz_attribute: ftz,
        })
    };
    match words.opcode {
        // Plain IR: no rounding modifier, or .rn on the types NVVM has no add/mul intrinsics for.
        "add" | "sub" | "mul" if rounding.is_none() || (rounding == Some("rn") && packed_or_16) => {
            let instr = match words.opcode {
                "add" => "fadd",
                "sub" => "fsub",
                _ => "fmul",
            };
            plain(Op::Instr(instr), args)
        }
        "add" | "sub" | "mul" if packed_or_16 => {
            no("only .rn exists in IR for 16-bit and packed types")
        }
        "fma" | "mad" if ty.lanes == 2 && ty.elem == "float" => {
            if rounding != Some("rn") {
                return no("only .rn exists in IR for f32x2");
            }
            plain(Op::Call(format!("llvm.fma.{}", ty.mangled())), args)
        }
        "neg" if !ftz => plain(Op::Instr("fneg"), args),
        "abs" if !ftz => plain(Op::Call(format!("llvm.fabs.{}", ty.mangled())), args),
        // PTX copysign d, a, b copies a's sign onto b.
        "copysign" => plain(
            Op::Call(format!("llvm.copysign.{}", ty.mangled())),
            vec![1, 0],
        ),
        _ => Ok(Route {
            op: Op::Call(nvvm_name(
                words.opcode,
                mods,
                words.ty().unwrap_or_default(),
            )),
            ty,
            args,
            negate_b: words.opcode == "sub",
            ftz_attribute: false,
        }),
    }
}

/// The NVVM intrinsic for `opcode.mods.ty`: IntrinsicsNVVM.td names them after the PTX text
/// (`fma.rn.ftz.f32` → `llvm.nvvm.fma.rn.ftz.f`, `min.NaN.bf16x2` → `llvm.nvvm.fmin.nan.bf16x2`),
/// with `f`/`d` for f32/f64; `sub` is `add` with the second operand negated, `mad` is `fma`.
fn nvvm_name(opcode: &str, mods: &[&str], ty: &str) -> String {
    let opcode = match opcode {
        "min" => "fmin",
        "max" => "fmax",
        "abs" => "fabs",
        "sub" => "add",
        "mad" => "fma",
        other => other,
    };
    // div.full has no type suffix: llvm.nvvm.div.full, llvm.nvvm.div.full.ftz.
    let suffix = match ty {
        _ if mods.contains(&"full") => None,
        "f32" => Some("f"),
        "f64" => Some("d"),
        other => Some(other),
    };
    let mut name = format!("llvm.nvvm.{opcode}");
    for m in mods.iter().copied().chain(suffix) {
        name.push('.');
        name.push_str(&m.to_ascii_lowercase());
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use semfuzz_spec::Spec;

    fn route_of(text: &str) -> Result<Route, String> {
        let spec = Spec::embedded().expect("embedded spec");
        route(spec.lookup(text, None).expect("variant"))
    }

    #[test]
    fn names_follow_the_ptx_text() {
        let name = |t: &str| route_of(t).map(|r| r.op);
        assert_eq!(
            name("add.rz.ftz.f32"),
            Ok(Op::Call("llvm.nvvm.add.rz.ftz.f".into()))
        );
        assert_eq!(
            name("min.ftz.NaN.xorsign.abs.f32"),
            Ok(Op::Call("llvm.nvvm.fmin.ftz.nan.xorsign.abs.f".into()))
        );
        assert_eq!(
            name("div.full.ftz.f32"),
            Ok(Op::Call("llvm.nvvm.div.full.ftz".into()))
        );
        assert_eq!(
            name("rcp.rm.f64"),
            Ok(Op::Call("llvm.nvvm.rcp.rm.d".into()))
        );
        assert_eq!(
            name("fma.rn.relu.bf16x2"),
            Ok(Op::Call("llvm.nvvm.fma.rn.relu.bf16x2".into()))
        );
        assert_eq!(name("add.rn.f16x2"), Ok(Op::Instr("fadd")));
        assert_eq!(name("fma.rn.f32x2"), Ok(Op::Call("llvm.fma.v2f32".into())));
        let sub = route_of("sub.rm.f64").expect("route");
        assert!(sub.negate_b && sub.op == Op::Call("llvm.nvvm.add.rm.d".into()));
        let copysign = route_of("copysign.f32").expect("route");
        assert_eq!(copysign.args, vec![1, 0]);
        assert!(route_of("add.ftz.f32").expect("route").ftz_attribute);
    }

    #[test]
    fn variants_without_a_counterpart_are_refused() {
        for text in [
            "add.rz.f32x2",
            "add.sat.f16",
            "add.ftz.f16",
            "testp.finite.f32",
        ] {
            assert!(route_of(text).is_err(), "{text}");
        }
    }
}
