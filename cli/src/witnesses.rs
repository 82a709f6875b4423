//! `semfuzz witnesses PATTERN...`: per variant, the inputs Z3 finds for each branch and rounding
//! boundary (`semfuzz_smt::witness`), one line each: the inputs as `semfuzz check` reads them
//! (a PTX line lacks only the result), then after `#` what the inputs reach and the spec's
//! outcome for them.

use anyhow::{anyhow, Result};
use semfuzz_smt::witness::witnesses;
use semfuzz_spec::catalog::{ModifierKind, OperandRole};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::{Spec, Variant};
use std::time::Instant;

pub fn run(spec: &Spec, variants: &[&Variant], timeout_ms: u32) -> Result<()> {
    if timeout_ms == 0 {
        return Err(anyhow!(
            "--timeout 0 gives Z3 no time at all: give milliseconds per query, e.g. --timeout 2000"
        ));
    }
    outln!(
        "# libz3 {}; {} variant{}; at most {timeout_ms} ms per query",
        semfuzz_smt::z3_version(),
        variants.len(),
        if variants.len() == 1 { "" } else { "s" }
    );
    for &v in variants {
        if v.is_warp_view() {
            outln!(
                "# {}: skipped: a warp collective, whose {} operands (every lane's value) make \
                 more branch queries than a search ends in; `semfuzz eval` it at chosen lanes",
                v.signature(),
                v.sources.len()
            );
            continue;
        }
        let start = Instant::now();
        let report = witnesses(spec, v, timeout_ms);
        outln!(
            "# {}: {} witnesses, {} unreachable, {} unknown ({:.2} s)",
            v.signature(),
            report.witnesses.len(),
            report.unsat,
            report.unknown,
            start.elapsed().as_secs_f64()
        );
        let mut ev = Evaluator::new(&v.program);
        let mut out = vec![Accept::default(); ev.n_parts()];
        for w in &report.witnesses {
            ev.eval(&w.inputs, &mut out);
            outln!(
                "{}  # {} => {}",
                inputs_text(v, &w.inputs),
                w.reason,
                crate::eval::dest_outcomes(v, &out).join(", ")
            );
        }
    }
    Ok(())
}

/// `add.rn.f32 0x3f800000 0x00000001`: the `check` line without its result. A SASS variant,
/// whose modifiers belong in the instruction text, names every input instead
/// (`HMUL2 Ra=0x3c003c00 Ra.neg=1 Ra.iswz=H0_H0 ...`).
fn inputs_text(v: &Variant, inputs: &[u64]) -> String {
    let sass = v.sources.iter().any(|s| s.role != OperandRole::Value);
    let mut words = vec![v.text.clone()];
    for (s, &x) in v.sources.iter().zip(inputs) {
        let hex = format!("0x{x:0digits$x}", digits = s.width.div_ceil(4) as usize);
        words.push(match &s.role {
            _ if !sass => hex,
            OperandRole::Modifier {
                kind: ModifierKind::Member { members, .. },
                ..
            } => format!(
                "{}={}",
                s.name,
                members.get(x as usize).map_or(hex, |m| m.clone())
            ),
            OperandRole::Modifier { .. } => format!("{}={x}", s.name),
            _ => format!("{}={hex}", s.name),
        });
    }
    words.join(" ")
}
