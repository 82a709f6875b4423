//! A PTX `.func` as a compiler wrote it (llc, libNVVM, nvcc), run on the GPU: [`harness`]
//! appends to the module one kernel that reads each case's arguments from memory, calls the
//! function and stores its results, so `semfuzz check-ptx --backend cuda` can confirm on
//! hardware what a validation verdict says the PTX computes.
//!
//! Every argument and result travels as one little-endian u64 per case (its bits in the low
//! end): a case is `params.len()` words in, `returns.len()` words out.

use semfuzz_ptx::syntax::{self, FunctionKind, Param};

/// The name of the generated kernel.
pub const ENTRY: &str = "semfuzz_call";

/// The bytes a parameter holds (`.b32` 4, `.b8 x[2]` 2), if it is 1, 2, 4 or 8.
fn bytes(p: &Param) -> Option<u32> {
    let digits: String = p.ty.chars().skip_while(|c| c.is_alphabetic()).collect();
    let bits: u32 = digits.parse().ok()?;
    let n = bits / 8 * p.array.unwrap_or(1);
    matches!(n, 1 | 2 | 4 | 8).then_some(n)
}

/// The declaration of `p` under another name, as the call must declare it (same type,
/// alignment and array length as the callee's, which ptxas checks).
fn declaration(p: &Param, name: &str) -> String {
    let align = p.align.map(|a| format!(".align {a} ")).unwrap_or_default();
    let array = p.array.map(|n| format!("[{n}]")).unwrap_or_default();
    format!(".param {align}.{} {name}{array};", p.ty)
}

/// The register class and `st/ld.param` width for `n` bytes (a byte goes through 16 bits).
fn reg_of(n: u32) -> (&'static str, u32) {
    match n {
        8 => ("%sf_d", 64),
        4 => ("%sf_w", 32),
        _ => ("%sf_h", 16),
    }
}

/// `module_text` with a kernel that calls `func` once per case, and how many words a case
/// reads and writes. `Err` says why the function cannot be called so (a kernel, a parameter of
/// more than 8 bytes, a name the module does not define).
pub fn harness(module_text: &str, func: &str) -> Result<(String, usize, usize), String> {
    let file =
        semfuzz_spec::diag::SourceFile::new("module.ptx".to_string(), module_text.to_string());
    let module = syntax::parse(&file).map_err(|d| d.to_string())?;
    let f = module
        .functions
        .iter()
        .find(|f| f.name == func && f.body.is_some())
        .ok_or_else(|| format!("the module defines no function `{func}`"))?;
    if f.kind == FunctionKind::Entry {
        return Err(format!(
            "`{func}` is a kernel (`.entry`), not a `.func` to call"
        ));
    }
    let sized = |ps: &[Param]| -> Result<Vec<u32>, String> {
        ps.iter()
            .map(|p| {
                bytes(p).ok_or_else(|| {
                    format!(
                        "parameter `{}` of `{func}` is not 1, 2, 4 or 8 bytes",
                        p.name
                    )
                })
            })
            .collect()
    };
    let (ins, outs) = (sized(&f.params)?, sized(&f.returns)?);
    let mut k = String::new();
    let line = |k: &mut String, s: String| {
        k.push('\t');
        k.push_str(&s);
        k.push('\n');
    };
    k.push_str(&format!(
        "\n.visible .entry {ENTRY}(.param .u64 semfuzz_n, .param .u64 semfuzz_in, .param .u64 semfuzz_out)\n{{\n"
    ));
    let slots = ins.len() + outs.len();
    line(&mut k, ".reg .pred %sf_p;".into());
    line(&mut k, ".reg .b32 %sf_t<3>;".into());
    line(&mut k, ".reg .b64 %sf_a<6>;".into());
    line(&mut k, format!(".reg .b64 %sf_d<{slots}>;"));
    line(&mut k, format!(".reg .b32 %sf_w<{slots}>;"));
    line(&mut k, format!(".reg .b16 %sf_h<{slots}>;"));
    line(&mut k, "ld.param.u64 %sf_a0, [semfuzz_n];".into());
    line(&mut k, "ld.param.u64 %sf_a1, [semfuzz_in];".into());
    line(&mut k, "ld.param.u64 %sf_a2, [semfuzz_out];".into());
    line(&mut k, "mov.u32 %sf_t0, %ctaid.x;".into());
    line(&mut k, "mov.u32 %sf_t1, %ntid.x;".into());
    line(&mut k, "mov.u32 %sf_t2, %tid.x;".into());
    line(&mut k, "mul.wide.u32 %sf_a3, %sf_t0, %sf_t1;".into());
    line(&mut k, "cvt.u64.u32 %sf_a4, %sf_t2;".into());
    line(&mut k, "add.u64 %sf_a3, %sf_a3, %sf_a4;".into());
    line(&mut k, "setp.ge.u64 %sf_p, %sf_a3, %sf_a0;".into());
    line(&mut k, "@%sf_p bra SEMFUZZ_DONE;".into());
    // This case's first input word, then its first output word.
    line(
        &mut k,
        format!("mad.lo.u64 %sf_a4, %sf_a3, {}, %sf_a1;", 8 * ins.len()),
    );
    line(
        &mut k,
        format!("mad.lo.u64 %sf_a5, %sf_a3, {}, %sf_a2;", 8 * outs.len()),
    );
    for (i, &n) in ins.iter().enumerate() {
        line(
            &mut k,
            format!("ld.global.u64 %sf_d{i}, [%sf_a4+{}];", 8 * i),
        );
        match n {
            8 => {}
            4 => line(&mut k, format!("cvt.u32.u64 %sf_w{i}, %sf_d{i};")),
            _ => line(&mut k, format!("cvt.u16.u64 %sf_h{i}, %sf_d{i};")),
        }
    }
    line(&mut k, "{".into());
    for (i, p) in f.params.iter().enumerate() {
        line(&mut k, declaration(p, &format!("semfuzz_arg{i}")));
        let (reg, bits) = reg_of(ins[i]);
        let width = if ins[i] == 1 { 8 } else { bits };
        line(
            &mut k,
            format!("st.param.b{width} [semfuzz_arg{i}], {reg}{i};"),
        );
    }
    for (j, p) in f.returns.iter().enumerate() {
        line(&mut k, declaration(p, &format!("semfuzz_ret{j}")));
    }
    let rets: Vec<String> = (0..outs.len()).map(|j| format!("semfuzz_ret{j}")).collect();
    let args: Vec<String> = (0..ins.len()).map(|i| format!("semfuzz_arg{i}")).collect();
    let returns = if rets.is_empty() {
        String::new()
    } else {
        format!("({}), ", rets.join(", "))
    };
    line(
        &mut k,
        format!("call.uni {returns}{func}, ({});", args.join(", ")),
    );
    for (j, &n) in outs.iter().enumerate() {
        let slot = ins.len() + j;
        let (reg, bits) = reg_of(n);
        let width = if n == 1 { 8 } else { bits };
        line(
            &mut k,
            format!("ld.param.b{width} {reg}{slot}, [semfuzz_ret{j}];"),
        );
    }
    line(&mut k, "}".into());
    for (j, &n) in outs.iter().enumerate() {
        let slot = ins.len() + j;
        match n {
            8 => {}
            4 => line(&mut k, format!("cvt.u64.u32 %sf_d{slot}, %sf_w{slot};")),
            // The low byte only: a `.b8` result leaves the rest of the register unspecified.
            1 => line(&mut k, format!("cvt.u64.u8 %sf_d{slot}, %sf_h{slot};")),
            _ => line(&mut k, format!("cvt.u64.u16 %sf_d{slot}, %sf_h{slot};")),
        }
        line(
            &mut k,
            format!("st.global.u64 [%sf_a5+{}], %sf_d{slot};", 8 * j),
        );
    }
    k.push_str("SEMFUZZ_DONE:\n\tret;\n}\n");
    Ok((format!("{module_text}\n{k}"), ins.len(), outs.len()))
}
