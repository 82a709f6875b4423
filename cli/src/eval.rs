//! `semfuzz eval`.

use crate::operand::{parse_operand, sass_inputs};
use anyhow::Result;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::{describe_accept, Accept};
use semfuzz_spec::Spec;

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
        outln!("  {} = {}", src.name, spec.describe_operand(&src.ty, *bits));
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
            spec.describe_operand(sass.value_type(k), *bits)
        );
    }
    print_dests(v, &out);
    Ok(())
}

/// Prints each destination part's accept set.
fn print_dests(v: &semfuzz_spec::Variant, out: &[Accept]) {
    for line in dest_outcomes(v, out) {
        outln!("  {line}");
    }
}

/// Each destination part's accept set as `d[1] = 0x3c00 (1)`.
pub fn dest_outcomes(v: &semfuzz_spec::Variant, out: &[Accept]) -> Vec<String> {
    let mut out = out.iter();
    let mut lines = Vec::new();
    for d in &v.program.dests {
        for (i, part) in d.parts.iter().enumerate() {
            let a = out.next().copied().unwrap_or_default();
            lines.push(format!(
                "{} = {}",
                d.part_name(i),
                describe_accept(part.kind, &a)
            ));
        }
    }
    lines
}
