//! The PTX reader's two performance lines of issue 17 (docs/BENCHMARKS.md, "PTX functions"):
//! loading and lowering a 200-instruction function, and evaluating a ~20-instruction one with
//! the interpreter, in one run: `cargo run --profile test -p semfuzz-ptx --example speed`.
//!
//! The 20-instruction function is LLVM 22's `fma_bf16` for sm_70 (ptx/fixtures). The
//! 200-instruction one chains that function's body: LLVM's f32-then-bf16 sequence applied to
//! its own result 15 times (every copy reads the previous sum), so nothing folds away.

use semfuzz_ptx::{load, syntax::parse};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::time::Instant;

const FIXTURE: &str = include_str!("../fixtures/llvm22-sm_70.ptx");

/// Calls of `f` per second, timed over at least 0.5 s.
fn rate(mut f: impl FnMut()) -> f64 {
    f();
    let (start, mut n) = (Instant::now(), 0u64);
    while start.elapsed().as_secs_f64() < 0.5 {
        f();
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// One `.func` whose body is `copies` chained copies of sm_70's bf16 fma lowering.
fn chained(copies: usize) -> String {
    let mut body = String::from(
        "\tld.param.b16 \t%r1, [chain_param_0];\n\tshl.b32 \t%r2, %r1, 16;\n\
         \tld.param.b16 \t%r3, [chain_param_1];\n\tshl.b32 \t%r4, %r3, 16;\n\
         \tld.param.b16 \t%r5, [chain_param_2];\n\tshl.b32 \t%r6, %r5, 16;\n",
    );
    for _ in 0..copies {
        body.push_str(
            "\tfma.rn.f32 \t%r7, %r6, %r4, %r2;\n\tbfe.u32 \t%r8, %r7, 16, 1;\n\
             \tadd.s32 \t%r9, %r8, %r7;\n\tadd.s32 \t%r10, %r9, 32767;\n\
             \tsetp.nan.f32 \t%p1, %r7, %r7;\n\tor.b32 \t%r11, %r7, 4194304;\n\
             \tselp.b32 \t%r12, %r11, %r10, %p1;\n\tshr.u32 \t%r13, %r12, 16;\n\
             \tshl.b32 \t%r6, %r13, 16;\n\tmov.b32 \t%r4, %r7;\n\
             \tadd.rn.f32 \t%r2, %r2, %r6;\n\tmul.rn.f32 \t%r4, %r4, %r2;\n\
             \tsub.rn.f32 \t%r2, %r4, %r6;\n",
        );
    }
    body.push_str("\tshr.u32 \t%r13, %r2, 16;\n\tst.param.b16 \t[func_retval0], %r13;\n\tret;\n");
    format!(
        ".version 8.7\n.target sm_70\n.address_size 64\n\n\
         .visible .func (.param .align 2 .b8 func_retval0[2]) chain(\n\
         \t.param .align 2 .b8 chain_param_0[2],\n\t.param .align 2 .b8 chain_param_1[2],\n\
         \t.param .align 2 .b8 chain_param_2[2]\n)\n{{\n\t.reg .pred \t%p<2>;\n\
         \t.reg .b32 \t%r<14>;\n\n{body}}}\n"
    )
}

fn main() {
    let spec = Spec::embedded().expect("the embedded specs load");
    println!("| work | size | per second | time each |");
    println!("| --- | --- | --- | --- |");

    let text = chained(15);
    let f = load(&spec, "chain.ptx", &text, None).expect("the chain reads");
    let loads = rate(|| {
        load(&spec, "chain.ptx", &text, None).expect("reads");
    });
    println!(
        "| parse + read `chain` (15 × sm_70 bf16 fma) | {} instructions, {} IR ops | {loads:.0} | {:.2} ms |",
        f.instructions,
        f.program.ops.len(),
        1e3 / loads
    );
    let parses = rate(|| {
        parse(&SourceFile::new("chain.ptx", &text)).expect("parses");
    });
    println!(
        "| parse only | {} bytes | {parses:.0} | {:.3} ms |",
        text.len(),
        1e3 / parses
    );

    let f = load(&spec, "llvm22-sm_70.ptx", FIXTURE, Some("fma_bf16")).expect("reads");
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    // Boundary-heavy bf16 inputs, as a campaign draws them (the evaluator's cost does not
    // depend on which: every op runs).
    let specials: [u64; 8] = [
        0x0000, 0x8000, 0x3f80, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x7f7f,
    ];
    let mut rows: Vec<[u64; 3]> = Vec::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for k in 0..4096 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let pick = |s: u64, j: u32| {
            if (s >> (60 - j)) & 1 == 0 {
                specials[((s >> (8 * j)) & 7) as usize]
            } else {
                (s >> (16 * j)) & 0xffff
            }
        };
        rows.push([pick(state, 0), pick(state, 1), pick(state ^ k, 2)]);
    }
    let batches = rate(|| {
        for r in &rows {
            ev.eval(r, &mut out);
        }
    });
    println!(
        "| interpreter: `fma_bf16` (sm_70) | {} instructions, {} IR ops | {:.0} evals | {:.0} ns |",
        f.instructions,
        f.program.ops.len(),
        batches * rows.len() as f64,
        1e9 / (batches * rows.len() as f64)
    );
}
