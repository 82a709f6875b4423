//! The IR module of a batch, and the verdicts read back from the folded module.
//!
//! Case `i` is function `@c<i>`: its operands are integer constants bitcast to the operand type
//! (`float bitcast (i32 2139095041 to float)`: exact bits, NaN payloads included), and it
//! returns the result bitcast back to an integer, so a folded case is `ret i32 <decimal>` in
//! every LLVM version and for every type (`<2 x half>` folds to one `i32`, lane 0 low).

use crate::route::{Op, Route};
use semfuzz_backend::Verdict;
use std::fmt::Write;

/// The target every module names: NVPTX's own combines of NVVM intrinsics run in `instcombine`
/// only when the module is for NVPTX.
const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// `value`'s low `bits` bits as a signed decimal, as IR writes an `i<bits>` constant.
fn signed(value: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((value << shift) as i64) >> shift
}

/// The module computing every row of `inputs` (`n_sources` values per row) through `route`.
pub(crate) fn build(route: &Route, n_sources: usize, inputs: &[u64]) -> String {
    let ty = route.ty.text();
    let bits = route.ty.bits();
    let mut out = format!("target triple = \"{TRIPLE}\"\n\n");
    if let Op::Call(name) = &route.op {
        let params = vec![ty.as_str(); route.args.len()].join(", ");
        let _ = writeln!(out, "declare {ty} @{name}({params})\n");
    }
    let sign =
        (0..route.ty.lanes).fold(0u64, |acc, l| acc | 1 << ((l + 1) * route.ty.elem_bits - 1));
    let attributes = if route.ftz_attribute { " #0" } else { "" };
    for (i, row) in inputs.chunks_exact(n_sources.max(1)).enumerate() {
        let operands: Vec<String> = route
            .args
            .iter()
            .map(|&a| {
                let v = if route.negate_b && a == 1 && !route.ty.is_nan(row[a]) {
                    row[a] ^ sign
                } else {
                    row[a]
                };
                format!("bitcast (i{bits} {} to {ty})", signed(v, bits))
            })
            .collect();
        let instr = match &route.op {
            Op::Call(name) => format!(
                "call {ty} @{name}({ty} {})",
                operands.join(&format!(", {ty} "))
            ),
            // `fadd float A, B`: the type once.
            Op::Instr(op) => format!("{op} {ty} {}", operands.join(", ")),
        };
        let _ = write!(
            out,
            "define i{bits} @c{i}(){attributes} {{\n  %r = {instr}\n  \
             %b = bitcast {ty} %r to i{bits}\n  ret i{bits} %b\n}}\n\n"
        );
    }
    if route.ftz_attribute {
        out.push_str(
            "attributes #0 = { \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\" }\n",
        );
    }
    out
}

/// Reads each case's verdict from the folded module into `out`: the bits when `@c<i>` folded to
/// `ret i<bits> <constant>`, [`Verdict::NoVerdict`] when anything else is left.
pub(crate) fn read(folded: &str, bits: u32, out: &mut [Verdict]) -> Result<(), String> {
    out.fill(Verdict::NoVerdict);
    let mut seen = vec![false; out.len()];
    let mut lines = folded.lines();
    while let Some(line) = lines.next() {
        let Some(index) = case_index(line) else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim() != "}")
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let slot = seen.get_mut(index).ok_or_else(|| {
            format!("the folded module has a function @c{index} it was not given")
        })?;
        *slot = true;
        if let [ret] = body.as_slice() {
            if let Some(value) = ret
                .strip_prefix(&format!("ret i{bits} "))
                .and_then(|v| v.parse::<i128>().ok())
            {
                let mask = u64::MAX >> (64 - bits);
                out[index] = Verdict::Bits(value as u64 & mask);
            }
        }
    }
    match seen.iter().position(|s| !s) {
        Some(missing) => Err(format!("the folded module lacks function @c{missing}")),
        None => Ok(()),
    }
}

/// `i` when `line` opens the definition of `@c<i>`.
fn case_index(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("define ")?;
    let name = rest.split_once(" @c")?.1;
    let digits = name.split_once('(')?.0;
    digits.parse().ok()
}

/// Whether the folded module shows that LLVM does not know intrinsic `name`: its declaration
/// kept no attributes (every NVVM arithmetic intrinsic LLVM knows is at least `readnone`).
pub(crate) fn unknown_intrinsic(folded: &str, name: &str) -> bool {
    let needle = format!("@{name}(");
    folded
        .lines()
        .filter(|l| l.starts_with("declare ") && l.contains(&needle))
        .any(|l| {
            !l.rsplit_once(')')
                .is_some_and(|(_, attrs)| attrs.contains('#'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_folded_and_unfolded_cases() {
        let folded = "define i32 @c0() {\n  ret i32 -8388609\n}\n\n\
                      define i32 @c1() {\n  %r = call float @f(float 1.0)\n  \
                      %b = bitcast float %r to i32\n  ret i32 %b\n}\n\n\
                      define i32 @c2() {\n  ret i32 poison\n}\n";
        let mut out = [Verdict::Unsupported; 3];
        read(folded, 32, &mut out).expect("well formed");
        assert_eq!(
            out,
            [
                Verdict::Bits(0xFF7F_FFFF),
                Verdict::NoVerdict,
                Verdict::NoVerdict
            ]
        );
        let mut four = [Verdict::Unsupported; 4];
        assert!(read(folded, 32, &mut four).unwrap_err().contains("@c3"));
    }

    #[test]
    fn tells_unknown_intrinsics() {
        let out = "declare float @llvm.nvvm.add.rn.sat.f(float, float)\n\
                   declare float @llvm.nvvm.add.rn.f(float, float) #0\n";
        assert!(unknown_intrinsic(out, "llvm.nvvm.add.rn.sat.f"));
        assert!(!unknown_intrinsic(out, "llvm.nvvm.add.rn.f"));
    }
}
