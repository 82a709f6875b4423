//! Prints a variant's lowered program: `cargo run -p semfuzz-spec --example dump_ir -- min.NaN.f32 2`.
fn main() {
    let spec = semfuzz_spec::Spec::embedded().unwrap_or_else(|e| panic!("{e}"));
    let mut args = std::env::args().skip(1);
    let text = args.next().unwrap_or_else(|| "add.rn.f32".into());
    let n = args.next().and_then(|s| s.parse().ok());
    let v = spec.lookup(&text, n).unwrap_or_else(|d| panic!("{d}"));
    for (i, op) in v.program.ops.iter().enumerate() {
        println!("{i:3} w{:<2} {op:?}", v.program.widths[i]);
    }
    for d in &v.program.dests {
        for p in &d.parts {
            println!("{}[{}..]: {:?}", d.name, p.lo, p.outcome);
        }
    }
}
