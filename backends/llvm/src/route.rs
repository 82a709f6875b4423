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
    /// reaches plain f32 IR (NVPTX then selects the `.ftz` instruction), and the attribute
    /// context of the `+daz` spellings.
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

/// Which LLVM IR a case is written in (the backend's `+SPELLING`): the operation, and whether
/// the function carries `"denormal-fp-math-f32"="preserve-sign,preserve-sign"`, the one
/// denormal attribute clang's CUDA `-fgpu-flush-denormals-to-zero` sets (NVPTX selects `.ftz`
/// only from it, and only for f32, so there is no separate attribute for other types).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// The one spelling per variant of README.md's table (the backend `llvm`): the NVVM
    /// intrinsic where the PTX text names one, else the plain IR, with the attribute where
    /// `.ftz` needs it.
    #[default]
    Default,
    /// The NVVM intrinsic the PTX text names; its name fixes `.ftz`, so with `daz` the result
    /// must not change (a folder that lets the attribute change it is a finding).
    Nvvm {
        /// Under the attribute.
        daz: bool,
    },
    /// The plain IR operation NVPTX selects the instruction from; on f32 the attribute is
    /// what makes it `.ftz`.
    Ir {
        /// Under the attribute.
        daz: bool,
    },
}

impl Spelling {
    /// Every spelling, the default first.
    pub const ALL: [Spelling; 5] = [
        Spelling::Default,
        Spelling::Nvvm { daz: false },
        Spelling::Nvvm { daz: true },
        Spelling::Ir { daz: false },
        Spelling::Ir { daz: true },
    ];

    /// The suffix the backend's name gets (`+nvvm+daz`); empty for the default.
    pub fn suffix(self) -> &'static str {
        match self {
            Spelling::Default => "",
            Spelling::Nvvm { daz: false } => "+nvvm",
            Spelling::Nvvm { daz: true } => "+nvvm+daz",
            Spelling::Ir { daz: false } => "+ir",
            Spelling::Ir { daz: true } => "+ir+daz",
        }
    }

    /// The spelling `suffix` names (`+ir+daz`).
    pub fn parse(suffix: &str) -> Option<Spelling> {
        Spelling::ALL.into_iter().find(|s| s.suffix() == suffix)
    }
}

/// The route of `variant` in `spelling`, or why the variant has none there.
pub(crate) fn route(variant: &Variant, spelling: Spelling) -> Result<Route, String> {
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
    let packed_or_16 = ty.lanes > 1 || ty.elem_bits == 16;
    let ftz = words.has("ftz");
    let spelling = match spelling {
        Spelling::Default => {
            let plain = match words.opcode {
                "add" | "sub" | "mul" => words.rounding().is_none() || packed_or_16,
                "fma" | "mad" => ty.lanes == 2 && ty.elem == "float",
                "neg" | "abs" => !ftz,
                "copysign" => true,
                _ => false,
            };
            match plain {
                true => Spelling::Ir { daz: ftz },
                false => Spelling::Nvvm { daz: false },
            }
        }
        other => other,
    };
    let args: Vec<usize> = (0..n).collect();
    match spelling {
        Spelling::Ir { daz } => {
            plain_ir(&words, ty, args, daz).map_err(|why| format!("{}: {why}", variant.text))
        }
        _ if words.opcode == "copysign" => no("no NVVM intrinsic computes copysign"),
        _ if matches!(words.opcode, "add" | "sub" | "mul") && words.rounding().is_none() => {
            no("NVVM's add and mul intrinsics name a rounding (llvm.nvvm.add.rn.f is add.rn.f32)")
        }
        _ => Ok(Route {
            op: Op::Call(nvvm_name(
                words.opcode,
                &words.modifiers[..words.modifiers.len() - 1],
                words.ty().unwrap_or_default(),
            )),
            ty,
            args,
            negate_b: words.opcode == "sub",
            ftz_attribute: spelling == Spelling::Nvvm { daz: true },
        }),
    }
}

/// The plain IR route of the PTX text `words` on `ty`, under the attribute when `daz`, where
/// NVPTX selects exactly that instruction from it (LLVM's default options: no fast-math flags,
/// IEEE `fdiv` and `llvm.sqrt` on f32), or why there is none.
fn plain_ir(words: &Words, ty: IrType, args: Vec<usize>, daz: bool) -> Result<Route, String> {
    let ftz = words.has("ftz");
    let rounding = words.rounding();
    let packed_or_16 = ty.lanes > 1 || ty.elem_bits == 16;
    let call = |name: &str| Op::Call(format!("llvm.{name}.{}", ty.mangled()));
    let nan = words.has("NaN");
    let (op, rounds) = match words.opcode {
        "add" => (Op::Instr("fadd"), true),
        "sub" => (Op::Instr("fsub"), true),
        "mul" => (Op::Instr("fmul"), true),
        "fma" | "mad" => (call("fma"), true),
        "div" => (Op::Instr("fdiv"), true),
        "sqrt" => (call("sqrt"), true),
        "neg" => (Op::Instr("fneg"), false),
        "abs" => (call("fabs"), false),
        "copysign" => (call("copysign"), false),
        "min" if nan => (call("minimum"), false),
        "max" if nan => (call("maximum"), false),
        "min" => (call("minnum"), false),
        "max" => (call("maxnum"), false),
        _ => return Err("no plain IR operation computes this opcode".into()),
    };
    // Everything but the rounding, .ftz, min/max's .NaN and the type needs an NVVM intrinsic.
    let known = |m: &&str| *m == "ftz" || Some(*m) == rounding || (*m == "NaN" && nan);
    if let Some(other) = words.modifiers[..words.modifiers.len() - 1]
        .iter()
        .find(|m| !known(m))
    {
        return Err(format!("no plain IR operation has .{other}"));
    }
    let bare = matches!(words.opcode, "add" | "sub" | "mul") && rounding.is_none();
    match (rounds, rounding) {
        (true, Some("rn")) => {}
        (true, None) if bare => {}
        (true, _) if packed_or_16 => {
            return Err("only .rn exists in IR for 16-bit and packed types".into())
        }
        (true, _) => {
            return Err(
                "plain IR rounds to nearest only (.rn; the others are NVVM intrinsics)".into(),
            )
        }
        (false, None) => {}
        (false, Some(r)) => return Err(format!("no plain IR operation has .{r}")),
    }
    // NVPTX selects .ftz from the attribute for f32 operations (copysign has no .ftz form).
    let flushes = ty.elem == "float" && words.opcode != "copysign";
    if ftz && !flushes {
        return Err("NVPTX selects .ftz only for f32 IR (denormal-fp-math-f32)".into());
    }
    if flushes && ftz != daz {
        return Err(match ftz {
            true => "plain f32 IR is .ftz only under the denormal attribute (+ir+daz)".into(),
            false => "under the denormal attribute NVPTX selects the .ftz instruction from plain f32 IR (+ir)".into(),
        });
    }
    Ok(Route {
        op,
        ty,
        // PTX copysign d, a, b copies a's sign onto b.
        args: match words.opcode {
            "copysign" => args.into_iter().rev().collect(),
            _ => args,
        },
        negate_b: false,
        ftz_attribute: daz,
    })
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
        route(spec.lookup(text, None).expect("variant"), Spelling::Default)
    }

    /// The suffixes of the spellings `text` has besides the default.
    fn spellings(text: &str) -> Vec<&'static str> {
        let spec = Spec::embedded().expect("embedded spec");
        let opcode = text.split('.').next().unwrap_or_default();
        let variant = spec.lookup(text, arity(opcode)).expect("variant");
        Spelling::ALL[1..]
            .iter()
            .filter(|&&s| route(variant, s).is_ok())
            .map(|s| s.suffix())
            .collect()
    }

    #[test]
    fn each_variant_has_the_spellings_that_mean_it() {
        let nvvm = ["+nvvm", "+nvvm+daz"];
        // Plain f32 IR is .ftz exactly under the attribute; an intrinsic's name fixes it.
        assert_eq!(
            spellings("add.rn.ftz.f32"),
            [&nvvm[..], &["+ir+daz"]].concat()
        );
        assert_eq!(spellings("add.rn.f32"), [&nvvm[..], &["+ir"]].concat());
        assert_eq!(spellings("min.f32"), [&nvvm[..], &["+ir"]].concat());
        assert_eq!(
            spellings("min.ftz.NaN.f32"),
            [&nvvm[..], &["+ir+daz"]].concat()
        );
        assert_eq!(
            spellings("div.rn.ftz.f32"),
            [&nvvm[..], &["+ir+daz"]].concat()
        );
        // The attribute does not touch f64, so both contexts spell it.
        let all = ["+nvvm", "+nvvm+daz", "+ir", "+ir+daz"];
        assert_eq!(spellings("min.f64"), all);
        assert_eq!(spellings("sqrt.rn.f64"), all);
        // Only an NVVM intrinsic has a directed rounding or .xorsign.abs.
        assert_eq!(spellings("add.rz.f32"), nvvm);
        assert_eq!(spellings("min.NaN.xorsign.abs.f16"), nvvm);
        // No NVVM add without a rounding, no NVVM copysign, no .ftz on 16-bit plain IR.
        assert_eq!(spellings("add.ftz.f32"), ["+ir+daz"]);
        assert_eq!(spellings("copysign.f32"), ["+ir", "+ir+daz"]);
        assert_eq!(
            spellings("add.rn.f16"),
            ["+nvvm", "+nvvm+daz", "+ir", "+ir+daz"]
        );
        assert_eq!(spellings("add.rn.ftz.f16"), nvvm);
        assert_eq!(spellings("neg.ftz.f32"), [&nvvm[..], &["+ir+daz"]].concat());
        let names: Vec<&str> = Spelling::ALL.iter().map(|s| s.suffix()).collect();
        assert_eq!(names, ["", "+nvvm", "+nvvm+daz", "+ir", "+ir+daz"]);
        assert!(Spelling::ALL
            .iter()
            .all(|&s| Spelling::parse(s.suffix()) == Some(s)));
        assert_eq!(Spelling::parse("+daz"), None);
    }

    #[test]
    fn the_default_is_one_of_the_spellings() {
        let spec = Spec::embedded().expect("embedded spec");
        let mut defaults = 0;
        for variant in &spec.variants {
            let Ok(default) = route(variant, Spelling::Default) else {
                continue;
            };
            defaults += 1;
            assert!(
                Spelling::ALL[1..]
                    .iter()
                    .any(|&s| route(variant, s).as_ref() == Ok(&default)),
                "{}: {default:?}",
                variant.text
            );
        }
        assert!(defaults > 300, "only {defaults} variants have a route");
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
