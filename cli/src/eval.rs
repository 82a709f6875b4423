//! `semfuzz eval`.

use anyhow::{anyhow, Result};
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
    let v = spec
        .lookup(instr, Some(operands.len()))
        .map_err(|d| anyhow!("{d}"))?;
    let mut inputs = Vec::new();
    for (src, text) in v.sources.iter().zip(operands) {
        inputs.push(
            crate::parse_operand(src, text, &format!("operand {} of {}", src.name, v.text))
                .map_err(|e| anyhow!(e))?,
        );
    }
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    println!(
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
        println!(
            "  {} = {}",
            src.name,
            describe_operand(spec, &src.ty, *bits)
        );
    }
    let mut out = out.iter();
    for d in &v.program.dests {
        for (i, part) in d.parts.iter().enumerate() {
            let a = out.next().copied().unwrap_or_default();
            println!("  {} = {}", d.part_name(i), describe_accept(part.kind, &a));
        }
    }
    Ok(())
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
