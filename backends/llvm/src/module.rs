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
pub(crate) const TRIPLE: &str = "nvptx64-nvidia-cuda";

/// `value`'s low `bits` bits as a signed decimal, as IR writes an `i<bits>` constant.
pub(crate) fn signed(value: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((value << shift) as i64) >> shift
}

/// The attribute group of a route with [`Route::ftz_attribute`], as its functions name it (`#0`).
const FTZ_GROUP: &str =
    "attributes #0 = { \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\" }\n";

/// The module's opening: the triple, and the declaration of the route's callee if any.
fn header(route: &Route) -> String {
    let ty = route.ty.text();
    let mut out = format!("target triple = \"{TRIPLE}\"\n\n");
    if let Op::Call(name) = &route.op {
        let params = vec![ty.as_str(); route.args.len()].join(", ");
        let _ = writeln!(out, "declare {ty} @{name}({params})\n");
    }
    out
}

/// The route's instruction on `operands` (IR operand texts in IR order), without `%r = `.
fn instruction(route: &Route, operands: &[String]) -> String {
    let ty = route.ty.text();
    match &route.op {
        Op::Call(name) => format!(
            "call {ty} @{name}({ty} {})",
            operands.join(&format!(", {ty} "))
        ),
        // `fadd float A, B`: the type once.
        Op::Instr(op) => format!("{op} {ty} {}", operands.join(", ")),
    }
}

/// The function attributes of the route's functions.
fn attributes(route: &Route) -> &'static str {
    if route.ftz_attribute {
        " #0"
    } else {
        ""
    }
}

/// The module computing every row of `inputs` (`n_sources` values per row) through `route`.
pub(crate) fn build(route: &Route, n_sources: usize, inputs: &[u64]) -> String {
    let ty = route.ty.text();
    let bits = route.ty.bits();
    let mut out = header(route);
    let attributes = attributes(route);
    for (i, row) in inputs.chunks_exact(n_sources.max(1)).enumerate() {
        let operands: Vec<String> = route
            .arguments(row)
            .into_iter()
            .map(|v| format!("bitcast (i{bits} {} to {ty})", signed(v, bits)))
            .collect();
        let instr = instruction(route, &operands);
        let _ = write!(
            out,
            "define i{bits} @c{i}(){attributes} {{\n  %r = {instr}\n  \
             %b = bitcast {ty} %r to i{bits}\n  ret i{bits} %b\n}}\n\n"
        );
    }
    if route.ftz_attribute {
        out.push_str(FTZ_GROUP);
    }
    out
}

/// The route as an IR function `@f` of parameters `%a0`, `%a1`, ... (in IR order, the values
/// [`Route::arguments`] gives), for reading with the IR spec: what LangRef allows the folder.
pub(crate) fn function(route: &Route) -> String {
    let ty = route.ty.text();
    let names: Vec<String> = (0..route.args.len()).map(|k| format!("%a{k}")).collect();
    let params: Vec<String> = names.iter().map(|n| format!("{ty} {n}")).collect();
    let mut out = header(route);
    let _ = write!(
        out,
        "define {ty} @f({}){} {{\n  %r = {}\n  ret {ty} %r\n}}\n\n",
        params.join(", "),
        attributes(route),
        instruction(route, &names)
    );
    if route.ftz_attribute {
        out.push_str(FTZ_GROUP);
    }
    out
}

/// Reads each case's verdict from the folded module into `out`: the bits when `@c<i>` folded to
/// `ret i<bits> <constant>`, [`Verdict::NoVerdict`] when anything else is left.
pub(crate) fn read(folded: &str, bits: u32, out: &mut [Verdict]) -> Result<(), String> {
    let returned = returns(folded, bits, out.len())?;
    for (o, r) in out.iter_mut().zip(returned) {
        *o = match r.and_then(|v| integer(v, bits)) {
            Some(v) => Verdict::Bits(v),
            None => Verdict::NoVerdict,
        };
    }
    Ok(())
}

/// The `i<bits>` constant `text` as IR writes it (`-5`, `true`), as bits.
pub(crate) fn integer(text: &str, bits: u32) -> Option<u64> {
    let value = match text {
        "true" if bits == 1 => 1,
        "false" if bits == 1 => 0,
        _ => text.parse::<i128>().ok()?,
    };
    Some(value as u64 & (u64::MAX >> (64 - bits)))
}

/// For each of the `n` cases of the folded module, the constant `@c<i>` returns when its body
/// folded to `ret i<bits> <constant>` alone (as written: `-8388609`, `true`, `poison`), `None`
/// when anything else is left.
pub(crate) fn returns(folded: &str, bits: u32, n: usize) -> Result<Vec<Option<&str>>, String> {
    let mut out = vec![None; n];
    let mut seen = vec![false; n];
    let mut lines = folded.lines();
    let prefix = format!("ret i{bits} ");
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
            out[index] = ret.strip_prefix(&prefix);
        }
    }
    match seen.iter().position(|s| !s) {
        Some(missing) => Err(format!("the folded module lacks function @c{missing}")),
        None => Ok(out),
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
        let predicates =
            "define i1 @c0() {\n  ret i1 true\n}\n\ndefine i1 @c1() {\n  ret i1 false\n}\n";
        let mut two = [Verdict::Unsupported; 2];
        read(predicates, 1, &mut two).expect("well formed");
        assert_eq!(two, [Verdict::Bits(1), Verdict::Bits(0)]);
        assert_eq!(
            returns(folded, 32, 3).expect("well formed")[2],
            Some("poison")
        );
    }

    #[test]
    fn tells_unknown_intrinsics() {
        let out = "declare float @llvm.nvvm.add.rn.sat.f(float, float)\n\
                   declare float @llvm.nvvm.add.rn.f(float, float) #0\n";
        assert!(unknown_intrinsic(out, "llvm.nvvm.add.rn.sat.f"));
        assert!(!unknown_intrinsic(out, "llvm.nvvm.add.rn.f"));
    }
}
