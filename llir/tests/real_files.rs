//! Whole files as compilers write them: debug information, metadata, module flags, comdats,
//! linkage, dangling attribute groups, implicitly declared intrinsics and globals read, and
//! each function computes what the same function written bare computes.

use semfuzz_llir::syntax::{parse, Module, Shape, Statement};
use semfuzz_llir::{read_function, IrFunction};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::path::Path;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

fn fixture_text(name: &str) -> (String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("fixture exists");
    (path.display().to_string(), text)
}

fn module_of(name: &str, text: &str) -> Module {
    parse(&SourceFile::new(name, text)).unwrap_or_else(|d| panic!("{d}"))
}

fn module(name: &str) -> Module {
    let (path, text) = fixture_text(name);
    module_of(&path, &text)
}

fn function(m: &Module, name: &str) -> IrFunction {
    read_function(spec(), m, Some(name)).unwrap_or_else(|d| panic!("{name}: {d}"))
}

fn eval(f: &IrFunction, inputs: &[u64]) -> Vec<Accept> {
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// Boundary-heavy 16-bit patterns (as halves and as bfloat's top bits) and a spread of the
/// rest.
fn samples16() -> Vec<u64> {
    let mut v: Vec<u64> = vec![
        0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x7e00,
        0x3f80, 0x7f80, 0x7fc0, 0x4000, 0x3555,
    ];
    let mut x: u32 = 0x9e37_79b9;
    for _ in 0..40 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push(u64::from(x as u16));
    }
    v
}

/// Where `a` and `b` (functions of the same parameters) give different accept sets: the
/// first such input, or `None` where they agree on every sample.
fn first_difference(a: &IrFunction, b: &IrFunction, widths: &[u32]) -> Option<Vec<u64>> {
    let s = samples16();
    for (k, &x) in s.iter().enumerate() {
        for &y in s.iter().step_by(3) {
            let z = s[(k * 7 + 3) % s.len()];
            let inputs: Vec<u64> = [x, y, z]
                .iter()
                .zip(widths)
                .map(|(&v, &w)| if w == 32 { (v << 16) | (v & 0xffff) } else { v })
                .collect();
            if eval(a, &inputs) != eval(b, &inputs) {
                return Some(inputs);
            }
        }
    }
    None
}

#[test]
fn debug_info_and_module_furniture_change_nothing() {
    let full = module("debug-llvm22.ll");
    let bare = module("debug-llvm22.stripped.ll");
    for (name, widths) in [("axpy_h", [16, 16, 16]), ("fma_f", [32, 32, 32])] {
        let (f, g) = (function(&full, name), function(&bare, name));
        assert_eq!(f.variants, g.variants, "{name}");
        assert_eq!(first_difference(&f, &g, &widths), None, "{name}");
    }
    // What the tree keeps of the furniture: globals by name and address space.
    let globals: Vec<(&str, &str, u32)> = full
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.kind.as_str(), g.addrspace))
        .collect();
    assert_eq!(
        globals,
        [("scale", "global", 1), ("table", "global", 3)],
        "{:?}",
        full.globals
    );
}

/// The comparison the test above relies on sees a change of one constant.
#[test]
fn a_changed_constant_is_a_difference() {
    let (_, text) = fixture_text("debug-llvm22.ll");
    let broken = text.replace("0xH3C00", "0xH3C01");
    assert_ne!(broken, text);
    let full = module_of("broken.ll", &broken);
    let bare = module("debug-llvm22.stripped.ll");
    let (f, g) = (function(&full, "axpy_h"), function(&bare, "axpy_h"));
    assert!(first_difference(&f, &g, &[16, 16, 16]).is_some());
}

/// LLVM 14-18: `@llvm.dbg.value` calls, a parameter list over lines, a decimal half constant.
#[test]
fn dbg_value_calls_compute_nothing() {
    let old = module("debug-llvm14.ll");
    let bare = module("debug-llvm22.stripped.ll");
    let (f, g) = (function(&old, "axpy_h"), function(&bare, "axpy_h"));
    assert_eq!(f.variants, g.variants);
    assert_eq!(first_difference(&f, &g, &[16, 16, 16]), None);
}

#[test]
fn printing_the_debug_module_is_a_fixpoint() {
    for name in ["debug-llvm22.ll", "debug-llvm14.ll"] {
        let once = module(name).to_string();
        let twice = module_of("printed.ll", &once).to_string();
        assert_eq!(once, twice, "{name}");
        assert!(
            !once.contains("#dbg_value"),
            "{name}: debug records are dropped"
        );
    }
}

/// A `global` the function may write is a block of its own (docs/ambiguities.md 184): its
/// bytes when the function starts are inputs, whatever its initializer, and its final bytes
/// results.
#[test]
fn a_global_the_function_may_write_is_read_as_memory() {
    let m = module("debug-llvm22.ll");
    let f = read_function(spec(), &m, Some("uses_global")).expect("read");
    let names = |s: &[semfuzz_spec::ir::Slot]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&f.inputs), ["%x", "[@scale+0..4]"]);
    assert_eq!(names(&f.results), ["ret", "[@scale+0..4]", "in_bounds"]);
    assert_eq!(f.layout.globals, Some(vec![("scale".to_string(), 4)]));
}

/// A global of another address space (a CTA's `addrspace(3)`) is refused by name where it is
/// used.
#[test]
fn a_global_of_another_space_is_refused_naming_it() {
    let text = r#"@g = external addrspace(3) global i32
define i32 @h() {
  %v = load i32, ptr addrspace(3) @g, align 4
  ret i32 %v
}
"#;
    let m = module_of("g.ll", text);
    let e = read_function(spec(), &m, Some("h")).expect_err("refused");
    assert_eq!(
        e.message,
        "unsupported use of the global variable `@g` (addrspace(3)) by `load`"
    );
    let span = e.span.expect("located");
    let (line, _) = span.file.line_col(span.start);
    assert!(span.file.line_text(line).contains("%v = load i32"));
}

/// `!fpmath` on `fdiv float` is a bound of N ulps, read as ⌊2N⌋ encodings around the
/// rounded quotient (docs/ambiguities.md 173), from the node the attachment names, inline or
/// numbered; elsewhere it is refused by name.
#[test]
fn fpmath_on_fdiv_is_a_bound() {
    let read = |instr: &str, nodes: &str| {
        let text = format!(
            "define float @f(float %a, float %b) {{\n  %q = {instr}, !dbg !1\n  ret float %q\n}}\n{nodes}!1 = !{{}}\n"
        );
        let m = module_of("fpmath.ll", &text);
        read_function(spec(), &m, Some("f"))
    };
    let bounded = read("fdiv float %a, %b, !fpmath !0", "!0 = !{float 2.5}\n").expect("read");
    let one_third = eval(&bounded, &[0x3f80_0000, 0x4040_0000])[0];
    assert!(one_third.accepts(0x3eaa_aaab + 5) && !one_third.accepts(0x3eaa_aaab + 6));
    // LLVM's hexadecimal spelling of 2.5, an inline node, and a node after others.
    for (instr, nodes) in [
        (
            "fdiv float %a, %b, !fpmath !0",
            "!0 = !{float 0x4004000000000000}\n",
        ),
        ("fdiv float %a, %b, !fpmath !{float 2.5}", ""),
        (
            "fdiv float %a, %b, !fpmath !7",
            "!7 = !{float 2.500000e+00}\n",
        ),
    ] {
        let f = read(instr, nodes).expect(instr);
        assert_eq!(
            eval(&f, &[0x3f80_0000, 0x4040_0000])[0],
            one_third,
            "{instr}"
        );
    }
    let refused = |instr: &str, nodes: &str| read(instr, nodes).expect_err(instr).to_string();
    let e = refused("fadd float %a, %b, !fpmath !0", "!0 = !{float 2.5}\n");
    assert!(
        e.contains("metadata `!fpmath !0` on `fadd`") && e.contains("`fdiv float` only"),
        "{e}"
    );
    let e = refused("fdiv float %a, %b, !fpmath !0", "!0 = !{float 0.25}\n");
    assert!(e.contains("from 0.5 to 4 ulp; this one is 0.25"), "{e}");
    let e = refused("fdiv float %a, %b, !fpmath !3", "!0 = !{float 2.5}\n");
    assert!(e.contains("is not defined"), "{e}");
}

/// Half and bfloat constants in every spelling LLParser takes, and the ones it refuses.
#[test]
fn half_and_bfloat_constants_in_every_spelling() {
    let read = |ty: &str, c: &str| {
        let text =
            format!("define {ty} @f({ty} %a) {{\n  %r = fadd {ty} %a, {c}\n  ret {ty} %r\n}}\n");
        let m = module_of("c.ll", &text);
        read_function(spec(), &m, Some("f")).map(|f| eval(&f, &[0x8000])[0])
    };
    let one_h = read("half", "0xH3C00").unwrap();
    for c in ["1.0", "1.000000e+00", "0x3FF0000000000000"] {
        assert_eq!(read("half", c).unwrap(), one_h, "half {c}");
    }
    let one_b = read("bfloat", "0xR3F80").unwrap();
    for c in ["1.0", "0x3FF0000000000000"] {
        assert_eq!(read("bfloat", c).unwrap(), one_b, "bfloat {c}");
    }
    // LLVM 24's own-format bits (Triton 3.9 writes `float f0x3FB8AA3B`).
    assert_eq!(read("half", "f0x3C00").unwrap(), one_h);
    assert_eq!(read("bfloat", "f0x3F80").unwrap(), one_b);
    assert_eq!(
        read("float", "f0x3F800000").unwrap(),
        read("float", "1.0").unwrap()
    );
    let e = read("half", "f0x13C00").expect_err("too wide");
    assert!(e.message.contains("16 hex bits"), "{}", e.message);
    // 2^-24, the least half subnormal: exact.
    assert!(read("half", "0x3E70000000000000").is_ok());
    // 0.1 is not exact in half; x86_fp80 spelling is another type.
    let e = read("half", "0.1").expect_err("inexact");
    assert!(e.message.contains("not exact in half"), "{}", e.message);
    let e = read("float", "0xK3FFF8000000000000000").expect_err("fp80");
    assert!(e.message.contains("x86_fp80"), "{}", e.message);
}

/// Trunk's tests: an undefined attribute group, an intrinsic called with no `declare`, a
/// parameter list over several lines, `align`/`section`/`comdat` on definitions.
#[test]
fn what_trunk_tests_leave_out_or_spread_out() {
    let text = r#"$f = comdat any
define internal float @f(float noundef %a,
    float %b) #9 section ".text.f" comdat align 16 {
  %m = call float @llvm.maxnum.f32(float %a, float %b) #10
  ret float %m
}
"#;
    let m = module_of("trunk.ll", text);
    let f = function(&m, "f");
    assert_eq!(f.variants.len(), 1, "{:?}", f.variants);
}

/// Triton 3.9's IR (LLVM 24): read whole; its kernel reads its special registers as inputs
/// and stops at what is not modelled yet (its inline `asm`), never at syntax.
#[test]
fn tritons_ir_reads_whole() {
    let m = module("triton-3.9-exp-add-sm_80.ll");
    let f = &m.functions[0];
    assert_eq!(f.name, "add_kernel");
    let asm = f
        .body
        .iter()
        .filter(
            |s| matches!(s, Statement::Instr(i) if i.shape == Shape::Unknown && i.opcode == "call"),
        )
        .count();
    assert_eq!(asm, 3, "the inline asm calls are kept as text");
    let k = read_function(spec(), &m, None).expect("one thread, inline asm included");
    assert!(
        k.inputs.iter().any(|s| s.name == "%ctaid.x"),
        "{:?}",
        k.inputs
    );
    assert_eq!(
        semfuzz_llir::lower::launch_of(&m, f).reqntid,
        Some([128, 1, 1])
    );
    assert!(
        f.kernel,
        "ptx_kernel is kept, so a reproducer compiles to an .entry"
    );
    // Inline asm that is no PTX semfuzz reads is refused, located, with the statements.
    let asm_only = "define i32 @f(i1 %p) {\n  %r = tail call i32 asm sideeffect \"vote.sync.ballot.b32 $0, $1, 0xffffffff;\", \"=r,b\"(i1 %p) #3, !dbg !1\n  ret i32 %r\n}\n";
    let e = read_function(spec(), &module_of("asm.ll", asm_only), None).expect_err("asm");
    assert!(
        e.message.starts_with("unsupported inline `asm`: "),
        "{}",
        e.message
    );
    assert!(e.span.is_some());
    let once = m.to_string();
    assert!(once.contains("fmul float %16, f0x3FB8AA3B"), "{once}");
    assert_eq!(module_of("printed.ll", &once).to_string(), once);
}

/// What llvm-dis writes for libdevice and the vectorizer writes for Triton's runtime: LLVM
/// 14's typed pointers, `splat (...)` constants (LLVM 19+), a double whose bits print with no
/// leading zeros.
#[test]
fn typed_pointers_splats_and_short_hex_doubles() {
    let text = r#"define void @sincos(float %a, float* %s, float addrspace(1)* %c) {
  ret void
}

define <2 x i32> @mask(<2 x i32> %v) {
  %m = and <2 x i32> %v, splat (i32 -2)
  ret <2 x i32> %m
}

define i1 @tiny(double %x) {
  %c = fcmp olt double %x, 0x730D67819E8D2
  ret i1 %c
}
"#;
    let m = module_of("old.ll", text);
    assert_eq!(m.functions[0].params[1].ty.to_string(), "float*");
    assert_eq!(
        m.functions[0].params[2].ty.to_string(),
        "float addrspace(1)*"
    );
    let e = read_function(spec(), &m, Some("sincos")).expect_err("pointers");
    assert_eq!(e.message, "unsupported type `float*`");
    let mask = function(&m, "mask");
    // Lane 0 (the low bits) holds 7, lane 1 holds 5.
    let inputs = [(5u64 << 32) | 7];
    let out = eval(&mask, &inputs);
    let again = eval(
        &function(
            &module_of("m.ll", &text.replace("splat (i32 -2)", "<i32 -2, i32 -2>")),
            "mask",
        ),
        &inputs,
    );
    assert_eq!(out, again);
    let broken = eval(
        &function(
            &module_of("m.ll", &text.replace("splat (i32 -2)", "<i32 -2, i32 -1>")),
            "mask",
        ),
        &inputs,
    );
    assert_ne!(out, broken);
    let tiny = function(&m, "tiny");
    let below = eval(&tiny, &[0x0000_0000_0000_0001])[0];
    let above = eval(&tiny, &[0x0073_0D67_819E_8D2F])[0];
    assert_ne!(below, above);
}

/// Triton writes every intrinsic call `tail call`: a hint about the caller's frame, which an
/// NVVM call reads through, while a fast-math flag on it stays refused.
#[test]
fn a_tail_call_of_an_nvvm_intrinsic_reads() {
    let text = |call: &str| {
        format!("define float @f(float %a) {{\n  %r = {call} float @llvm.nvvm.ex2.approx.f32(float %a)\n  ret float %r\n}}\n")
    };
    let plain = function(&module_of("p.ll", &text("call")), "f");
    let tail = function(&module_of("t.ll", &text("tail call")), "f");
    assert_eq!(plain.variants, tail.variants);
    let e = read_function(
        spec(),
        &module_of("n.ll", &text("tail call nnan")),
        Some("f"),
    )
    .expect_err("a fast-math flag");
    assert_eq!(
        e.message,
        "unsupported fast-math flag `nnan` on `@llvm.nvvm.ex2.approx.f32`"
    );
}

/// The reproducer of a function of a debug module: no debug information, attachments or
/// comdat left to make llc warn or refuse, and it reads to the same program.
#[test]
fn the_minimal_module_of_a_debug_function_is_bare() {
    let m = module("debug-llvm22.ll");
    for name in ["axpy_h", "fma_f"] {
        let f = m
            .functions
            .iter()
            .find(|f| f.name == name)
            .expect("defined");
        let small = semfuzz_llir::minimal(&m, f);
        let text = small.to_string();
        for gone in ["!dbg", "!tbaa", "!noundef", "comdat", "DICompileUnit"] {
            assert!(!text.contains(gone), "{name}: {gone} kept:\n{text}");
        }
        let again = module_of("min.ll", &text);
        let g = function(&again, &small.functions[0].name);
        assert_eq!(g.variants, function(&m, name).variants, "{name}");
    }
}

/// The project's Triton kernels (scripts/kernel-fixtures.py): each module parses whole,
/// prints a fixpoint and reads whole: its special registers, and its inline-asm loads and
/// stores through the PTX reader.
#[test]
fn tritons_kernels_read_whole_inline_asm_included() {
    for sm in ["sm_80", "sm_90"] {
        for kernel in ["vector-add", "exp-bf16", "softmax", "layer-norm"] {
            let name = format!("triton-3.9-{kernel}-{sm}.ll");
            let m = module(&name);
            let f = &m.functions[0];
            assert!(f.kernel, "{name}: ptx_kernel");
            assert_eq!(
                semfuzz_llir::lower::launch_of(&m, f).reqntid,
                Some([128, 1, 1]),
                "{name}"
            );
            let printed = m.to_string();
            assert_eq!(
                module_of("printed.ll", &printed).to_string(),
                printed,
                "{name}"
            );
            let read = read_function(spec(), &m, None);
            match kernel {
                "vector-add" | "exp-bf16" => {
                    let f = read.unwrap_or_else(|d| panic!("{name}: {d}"));
                    assert!(
                        f.inputs.iter().any(|s| s.name == "%tid.x"),
                        "{name}: {:?}",
                        f.inputs
                    );
                }
                // The reductions stop, located, at what is the CTA semantics' (issue 31).
                _ => {
                    let e = read.expect_err("a CTA kernel");
                    assert!(e.span.is_some(), "{name}: {}", e.message);
                    assert!(
                        e.message.starts_with("unsupported"),
                        "{name}: {}",
                        e.message
                    );
                }
            }
        }
    }
}

/// `"no-nans-fp-math"="true"` is read as `nnan` on each operation that takes the flag
/// (docs/ambiguities.md 183): a NaN operand makes the result poison, which allows anything,
/// and the function says which attribute its reading rests on; without the attribute the NaN
/// is the result.
#[test]
fn no_nans_fp_math_is_nnan_on_every_operation() {
    let text = |attrs: &str| {
        format!(
            "define float @f(float %a, float %b) #0 {{\n  %s = fadd float %a, %b\n  ret float %s\n}}\n\nattributes #0 = {{ {attrs} }}\n"
        )
    };
    let with = module_of("with.ll", &text("\"no-nans-fp-math\"=\"true\""));
    let f = function(&with, "f");
    assert_eq!(f.attributes_read, ["no-nans-fp-math"]);
    assert!(
        f.variants.iter().any(|v| v == "ir_fadd.nnan.f32"),
        "{:?}",
        f.variants
    );
    let nan = [0x7fc0_0000, 0x3f80_0000];
    assert!(
        matches!(eval(&f, &nan)[0], Accept::Poison(_)),
        "{:?}",
        eval(&f, &nan)
    );
    let without = module_of("without.ll", &text("\"no-nans-fp-math\"=\"false\""));
    let g = function(&without, "f");
    assert!(g.attributes_read.is_empty());
    assert!(
        matches!(eval(&g, &nan)[0], Accept::AnyNan(_)),
        "{:?}",
        eval(&g, &nan)
    );
}
