//! NVVM intrinsics as the PTX instructions NVPTX selects for them.
//!
//! `IntrinsicsNVVM.td` declares the `@llvm.nvvm.*` intrinsics without saying what they
//! compute; `NVPTXIntrinsics.td` (llvm/lib/Target/NVPTX) selects one PTX instruction for each,
//! and that instruction is its meaning (docs/ambiguities.md 84). So the reader does not
//! specify them again: it names the catalogue's PTX variant and inlines it as it inlines an IR
//! variant. The rules below restate the selection patterns, each citing its records
//! (docs/llvm-ir-spec.md, "NVVM intrinsics"); a name they do not cover is refused with the
//! reason, and a PTX text the catalogue lacks is refused by the reader's lookup.

/// The PTX instruction text (opcode, modifiers, types; no operands) that NVPTX selects for
/// `@llvm.nvvm.NAME`, given NAME (`add.rn.ftz.f`); `Err` says why there is none.
pub fn ptx_text(name: &str) -> Result<String, String> {
    let parts: Vec<&str> = name.split('.').collect();
    let (op, rest) = parts.split_first().ok_or("an empty name")?;
    // The type suffix: `_f`/`_d` of the f32/f64 records, the half types as written
    // (`_f16x2`, or `_v2f16` for `add/mul ... sat`), and the overload suffix of the
    // overloaded ones (`ex2.approx`, `fabs`, `fma.rn.oob`).
    let ty = |c: &str| -> Option<&'static str> {
        Some(match c {
            "f" | "f32" => "f32",
            "d" | "f64" => "f64",
            "f16" => "f16",
            "f16x2" | "v2f16" => "f16x2",
            "bf16" => "bf16",
            "bf16x2" | "v2bf16" => "bf16x2",
            _ => return None,
        })
    };
    let typed = |mods: &[&str]| -> Result<(Vec<String>, &'static str), String> {
        let (last, mods) = mods
            .split_last()
            .ok_or_else(|| format!("`llvm.nvvm.{name}` has no type suffix"))?;
        let t = ty(last).ok_or_else(|| format!("`.{last}` is no type suffix NVPTX selects on"))?;
        Ok((mods.iter().map(|m| m.to_string()).collect(), t))
    };
    let join = |head: &str, mods: &[String], tail: &[&str]| {
        let mut s = head.to_string();
        for m in mods.iter().map(String::as_str).chain(tail.iter().copied()) {
            s.push('.');
            s.push_str(m);
        }
        s
    };
    match *op {
        // F_MATH_1/2/3 records whose string is the intrinsic's name with the type spelled out:
        // INT_NVVM_ADD_RN_FTZ_F "add.rn.ftz.f32", INT_NVVM_MUL_RN_D "mul.rn.f64",
        // INT_NVVM_DIV_RZ_FTZ_F "div.rz.ftz.f32", INT_NVVM_FMA (FMA_TUPLE "_rn_ftz_sat_f32",
        // "_rn_relu_bf16x2", ...), INT_NVVM_RCP_RM_F "rcp.rm.f32", INT_NVVM_RCP_APPROX_FTZ_D
        // "rcp.approx.ftz.f64", INT_NVVM_SQRT_RP_FTZ_F "sqrt.rp.ftz.f32",
        // INT_NVVM_SQRT_APPROX_F "sqrt.approx.f32", INT_NVVM_ADD_RN_SAT_F16X2
        // "add.rn.sat.f16x2" (int_nvvm_add_rn_sat_v2f16), INT_NVVM_FMA_OOB "fma.rn.oob.f16";
        // the patterns to DIV_APPROX_F32_rr, RSQRT_APPROX_f32/f64, EX2_APPROX_f32/f16/bf16,
        // LG2_APPROX_f32, SIN_APPROX_f32, COS_APPROX_f32 with FTZ or NoFTZ as the name says.
        "add" | "mul" | "fma" | "rcp" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "sqrt" => {
            if *op == "sqrt" && rest == ["f"] {
                return Err("`llvm.nvvm.sqrt.f` selects sqrt.rn, sqrt.rn.ftz or sqrt.approx by llc's options and the function's denormal mode (the `fsqrt_approx` and `int_nvvm_sqrt_f` patterns), not by its name".into());
            }
            let (mods, t) = typed(rest)?;
            Ok(join(op, &mods, &[t]))
        }
        // `int_nvvm_div_full{_ftz}` has no type suffix: FDIV32rr, "div.full{.ftz}.f32".
        "div" if rest.first() == Some(&"full") => Ok(join("div", &[], &[rest, &["f32"]].concat())),
        "div" => {
            let (mods, t) = typed(rest)?;
            Ok(join("div", &mods, &[t]))
        }
        // MIN_f32_rr/MAX_f32_rr with FTZ or NoFTZ, MIN_NAN_f32_rr, the F_MATH_2 records
        // INT_NVVM_FMIN_FTZ_NAN_XORSIGN_ABS_F "min.ftz.NaN.xorsign.abs.f32", the MIN_MAX
        // multiclass ("_ftz_NaN_xorsign_abs_f16x2" → "min.ftz.NaN.xorsign.abs.f16x2") and
        // MIN_f64_rr for `_d`: the name's `nan` is PTX's `.NaN`.
        "fmin" | "fmax" => {
            let (mods, t) = typed(rest)?;
            let mods: Vec<String> = mods
                .into_iter()
                .map(|m| if m == "nan" { "NaN".into() } else { m })
                .collect();
            Ok(join(&op[1..], &mods, &[t]))
        }
        // F_ABS: int_nvvm_fabs → "abs.TYPE", int_nvvm_fabs_ftz → "abs.ftz.TYPE".
        "fabs" => {
            let (mods, t) = typed(rest)?;
            Ok(join("abs", &mods, &[t]))
        }
        // INT_NVVM_NEG_BF16 "neg.bf16", INT_NVVM_NEG_BF16X2 "neg.bf16x2".
        "neg" => {
            let (mods, t) = typed(rest)?;
            Ok(join("neg", &mods, &[t]))
        }
        // `def : Pat<(int_nvvm_floor_ftz_f f32:$a), (CVT_f32_f32 $a, CvtRMI_FTZ)>` and the
        // like: floor → .rmi, ceil → .rpi, round → .rni, trunc → .rzi, saturate → .sat.
        "floor" | "ceil" | "round" | "trunc" | "saturate" => {
            let (mods, t) = typed(rest)?;
            let ftz = match mods.as_slice() {
                [] => false,
                [f] if f == "ftz" => true,
                _ => return Err(format!("`llvm.nvvm.{name}` is no intrinsic of this family")),
            };
            let f: &[&str] = if ftz { &["ftz"] } else { &[] };
            Ok(match *op {
                "saturate" => join("cvt", &[], &[f, &["sat", t, t]].concat()),
                _ => {
                    let r = match *op {
                        "floor" => "rmi",
                        "ceil" => "rpi",
                        "round" => "rni",
                        _ => "rzi",
                    };
                    join("cvt", &[], &[&[r], f, &[t, t]].concat())
                }
            })
        }
        _ => conversion(op, rest).ok_or_else(|| {
            format!("`llvm.nvvm.{name}`: no NVPTXIntrinsics.td selection semfuzz restates (docs/llvm-ir-spec.md, \"NVVM intrinsics\")")
        }),
    }
}

/// The `cvt` NVPTX selects for a conversion intrinsic (`f2i.rn.ftz`, `ull2d.rz`, `f2h.rn`,
/// `ff2bf16x2.rn.relu`), or `None`.
fn conversion(op: &str, mods: &[&str]) -> Option<String> {
    let (rnd, tail) = mods.split_first()?;
    if !matches!(*rnd, "rn" | "rz" | "rm" | "rp") {
        return None;
    }
    let int = |s: &str| -> Option<&'static str> {
        Some(match s {
            "i" => "s32",
            "ui" => "u32",
            "ll" => "s64",
            "ull" => "u64",
            _ => return None,
        })
    };
    let float = |s: &str| -> Option<&'static str> {
        Some(match s {
            "f" => "f32",
            "d" => "f64",
            _ => return None,
        })
    };
    let cvt = |head: &str, flags: &[&str], d: &str, a: &str| {
        let mut s = format!("cvt.{head}");
        for f in flags {
            s.push('.');
            s.push_str(f);
        }
        format!("{s}.{d}.{a}")
    };
    let ftz_only = || match tail {
        [] => Some(&[][..]),
        ["ftz"] => Some(&["ftz"][..]),
        _ => None,
    };
    let (from, to) = op.split_once('2')?;
    match (from, to) {
        // (int_nvvm_f2i_rn_ftz f32:$a) → (CVT_s32_f32 $a, CvtRNI_FTZ); f2ui → CVT_u32_f32,
        // f2ll → CVT_s64_f32, f2ull → CVT_u64_f32; d2i ... → CVT_*_f64 (no ftz forms).
        ("f" | "d", _) if int(to).is_some() => {
            let flags = ftz_only()?;
            if from == "d" && !flags.is_empty() {
                return None;
            }
            Some(cvt(&format!("{rnd}i"), flags, int(to)?, float(from)?))
        }
        // (int_nvvm_i2f_rn i32:$a) → (CVT_f32_s32 $a, CvtRN), ui2f, ll2f, ull2f, i2d, ...
        (_, "f" | "d") if int(from).is_some() && tail.is_empty() => {
            Some(cvt(rnd, &[], float(to)?, int(from)?))
        }
        // (int_nvvm_d2f_rn_ftz f64:$a) → (CVT_f32_f64 $a, CvtRN_FTZ).
        ("d", "f") => Some(cvt(rnd, ftz_only()?, "f32", "f64")),
        // (int_nvvm_f2h_rn_ftz f32:$a) → (CVT_f16_f32 $a, CvtRN_FTZ); the result is the i16
        // of its bits.
        ("f", "h") if *rnd == "rn" => Some(cvt(rnd, ftz_only()?, "f16", "f32")),
        // (int_nvvm_f2bf16_rn_relu f32:$a) → (CVT_bf16_f32 $a, CvtRN_RELU), the `_satfinite`
        // ones → CVT_bf16_f32_sf; f2f16 → CVT_f16_f32; ff2bf16x2/ff2f16x2 → CVT_bf16x2_f32
        // $a, $b (the operands in order: PTX puts a's conversion in the upper half).
        ("f", "bf16" | "f16") | ("ff", "bf16x2" | "f16x2") if matches!(*rnd, "rn" | "rz") => {
            let ok = matches!(tail, [] | ["relu"] | ["satfinite"] | ["relu", "satfinite"]);
            ok.then(|| cvt(rnd, tail, to, "f32"))
        }
        _ => None,
    }
}
