//! `semfuzz list`.

use anyhow::Result;
use semfuzz_spec::Spec;

pub fn run(spec: &Spec, pattern: Option<&str>, json: bool) -> Result<()> {
    let variants: Vec<_> = spec
        .variants
        .iter()
        .filter(|v| pattern.is_none_or(|p| v.text.contains(p)))
        .collect();
    if json {
        let items: Vec<_> = variants
            .iter()
            .map(|v| {
                let ops = |os: &[semfuzz_spec::catalog::OperandSig]| {
                    os.iter()
                        .map(
                            |o| serde_json::json!({"name": o.name, "type": o.ty, "width": o.width}),
                        )
                        .collect::<Vec<_>>()
                };
                serde_json::json!({
                    "instr": v.text,
                    "opcode": v.family,
                    "syntax": v.syntax,
                    "signature": v.signature(),
                    "dests": ops(&v.dests),
                    "sources": ops(&v.sources),
                    "ptx": v.requirement.ptx.map(|(a, b)| format!("{a}.{b}")),
                    "sm": v.requirement.sm,
                    "may_fuse": v.fusable,
                })
            })
            .collect();
        crate::emit(&format!("{}\n", serde_json::to_string_pretty(&items)?));
        return Ok(());
    }
    let width = variants
        .iter()
        .map(|v| v.signature().len())
        .max()
        .unwrap_or(0);
    for v in &variants {
        let types: Vec<String> = v
            .dests
            .iter()
            .chain(&v.sources)
            .map(|o| format!("{}:{}", o.name, o.ty))
            .collect();
        let fuse = if v.fusable {
            "  [no rounding modifier: may be fused into fma]"
        } else {
            ""
        };
        crate::emit(&format!(
            "{:width$}  {:28}  {}{fuse}\n",
            v.signature(),
            types.join(" "),
            v.requirement
        ));
    }
    eprintln!("{} variants", variants.len());
    Ok(())
}
