//! `semfuzz eval`.

use crate::operand::{parse_operand, sass_inputs};
use anyhow::Result;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::PartKind;
use semfuzz_spec::outcome::{describe, describe_accept, Accept};
use semfuzz_spec::Spec;

/// How to read an operand's bits for display: the lane format if it is a float or packed one.
pub fn operand_kind(spec: &Spec, ty: &str) -> PartKind {
    match spec.format(ty) {
        Some(semfuzz_spec::catalog::FormatInfo::Scalar(f)) => PartKind::Float(f),
        _ if ty == "pred" => PartKind::Pred,
        _ => PartKind::Bits,
    }
}

pub fn run(spec: &Spec, instr: &str, operands: &[String]) -> Result<()> {
    if semfuzz_spec::sass::looks_like_sass(instr) {
        return run_sass(spec, instr, operands);
    }
    let v = spec.lookup(instr, Some(operands.len()))?;
    let mut inputs = Vec::new();
    for (src, text) in v.sources.iter().zip(operands) {
        let what = format!("operand {} of {}", src.name, v.text);
        inputs.push(parse_operand(spec, src, text, &what)?);
    }
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    outln!(
        "{}   ({}{})",
        v.signature(),
        v.requirement,
        if v.fusable {
            "; may be fused into fma"
        } else {
            ""
        }
    );
    for (src, bits) in v.sources.iter().zip(&inputs) {
        outln!(
            "  {} = {}",
            src.name,
            describe_operand(spec, &src.ty, *bits)
        );
    }
    print_dests(v, &out);
    Ok(())
}

/// `semfuzz eval 'HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;' 0x... 0x...`: the values are
/// those of the registers and constants the instruction reads, in order of first appearance.
fn run_sass(spec: &Spec, text: &str, operands: &[String]) -> Result<()> {
    let sass = semfuzz_spec::sass::parse(spec, text).map_err(|d| {
        if text.trim().contains(char::is_whitespace) {
            d
        } else {
            // `semfuzz eval HMUL2.FTZ 0x1 0x2`: the operands belong to the text.
            d.with_note(format!("a SASS instruction is given whole, in quotes, then the values it reads: semfuzz eval '{} R0, R1, R2;' 0x3c003c00 0x40004000", text.trim()))
        }
    })?;
    let (values, inputs) = sass_inputs(&sass, operands)?;
    let v = sass.variant;
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    outln!("{}   ({})", v.signature(), v.requirement);
    outln!("  {}", text.trim());
    if let Some(g) = &sass.guard {
        outln!("  (guard {g}: the result when the instruction executes)");
    }
    for (k, (name, bits)) in sass.values.iter().zip(&values).enumerate() {
        outln!(
            "  {name} = {}",
            describe_operand(spec, sass.value_type(k), *bits)
        );
    }
    print_dests(v, &out);
    Ok(())
}

/// Prints each destination part's accept set.
fn print_dests(v: &semfuzz_spec::Variant, out: &[Accept]) {
    let mut out = out.iter();
    for d in &v.program.dests {
        for (i, part) in d.parts.iter().enumerate() {
            let a = out.next().copied().unwrap_or_default();
            outln!("  {} = {}", d.part_name(i), describe_accept(part.kind, &a));
        }
    }
}

/// Shows an operand: lanes of a packed format one by one.
pub fn describe_operand(spec: &Spec, ty: &str, bits: u64) -> String {
    if let Some(semfuzz_spec::catalog::FormatInfo::Packed(f, n)) = spec.format(ty) {
        let w = f.width();
        let lanes: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    "[{i}] {}",
                    describe(PartKind::Float(f), (bits >> (i * w)) & ((1u64 << w) - 1))
                )
            })
            .collect();
        let digits = (w * n).div_ceil(4) as usize;
        return format!("0x{bits:0digits$x}: {}", lanes.join(", "));
    }
    describe(operand_kind(spec, ty), bits)
}
