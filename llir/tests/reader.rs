//! The `.ll` reader: parsing, printing as a fixpoint, and located refusals.

use semfuzz_llir::syntax::{parse, Attr, FloatTy, Statement, Type, Value};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// What clang writes for a CUDA `__device__ float f(float a, float b) { return a * b + 1; }`
/// under `-fcuda-flush-denormals-to-zero`, with llvmlite's spellings mixed in.
const CLANG: &str = r#"; ModuleID = 'k.cu'
source_filename = "k.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nounwind
define dso_local noundef float @f(float noundef %a, float noundef %b) local_unnamed_addr #0 {
entry:
  %mul = fmul contract float %a, %b
  %add = fadd contract float %mul, 1.000000e+00
  %h = fptrunc float %add to half
  %v = insertelement <2 x half> <half 0xH0000, half 0xH3C00>, half %h, i32 1
  %e = extractelement <2 x half> %v, i64 1
  %m = tail call fast float @llvm.minimum.f32(float %add, float 0x7FF8000000000000)
  %c = fcmp nnan olt float %m, %a
  %s = select i1 %c, float %m, float %b, !dbg !7
  ret float %s
}

declare float @llvm.minimum.f32(float, float) #1

attributes #0 = { mustprogress nounwind "denormal-fp-math-f32"="preserve-sign,preserve-sign" "target-cpu"="sm_70" }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
!7 = !{}
"#;

#[test]
fn clang_output_parses_and_prints_a_fixpoint() {
    let m = parse(&SourceFile::new("k.ll", CLANG)).expect("parses");
    assert_eq!(m.functions.len(), 1);
    let f = &m.functions[0];
    assert_eq!(f.name, "f");
    assert_eq!(f.ret, Type::Float(FloatTy::Float));
    assert_eq!(
        f.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(f.attrs.contains(&Attr::Group(0)));
    let g0 = m.groups.iter().find(|g| g.id == 0).expect("group #0");
    assert!(g0.attrs.contains(&Attr::Pair(
        "denormal-fp-math-f32".into(),
        "preserve-sign,preserve-sign".into()
    )));
    let instrs: Vec<_> = f
        .body
        .iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i),
            Statement::Label(..) => None,
        })
        .collect();
    assert_eq!(instrs.len(), 9);
    assert_eq!(instrs[0].flags, ["contract"]);
    assert_eq!(
        instrs[1].operands[1].value,
        Value::Const("1.000000e+00".into())
    );
    assert_eq!(instrs[5].flags, ["tail", "fast"]);
    assert_eq!(instrs[5].callee.as_deref(), Some("llvm.minimum.f32"));
    assert_eq!(instrs[6].pred.as_deref(), Some("olt"));
    assert_eq!(instrs[7].metadata[0].name, "dbg");
    let once = m.to_string();
    let twice = parse(&SourceFile::new("printed.ll", &once))
        .expect("printed text parses")
        .to_string();
    assert_eq!(once, twice, "printing is a fixpoint");
}

/// Pointers (with their address space), literal structs and `extractvalue` print back as
/// they parse.
#[test]
fn pointers_structs_and_extractvalue_print_a_fixpoint() {
    let text = "define i1 @f(ptr %p, ptr addrspace(1) %q, i32 %a) {
  %s = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %a, i32 %a)
  %o = extractvalue {i32, i1} %s, 1
  ret i1 %o
}
";
    let m = parse(&SourceFile::new("t.ll", text)).expect("parses");
    let f = &m.functions[0];
    assert_eq!(f.params[0].ty, Type::Ptr(0));
    assert_eq!(f.params[1].ty, Type::Ptr(1));
    let once = m.to_string();
    assert!(once.contains("ptr addrspace(1) %q"), "{once}");
    assert!(once.contains("%o = extractvalue {i32, i1} %s, 1"), "{once}");
    let twice = parse(&SourceFile::new("printed.ll", &once))
        .expect("printed text parses")
        .to_string();
    assert_eq!(once, twice, "printing is a fixpoint");
}

#[test]
fn denormal_modes_come_from_groups_and_inline_attributes() {
    use semfuzz_llir::lower::{denormal_modes, Mode};
    let m = parse(&SourceFile::new("k.ll", CLANG)).expect("parses");
    let d = denormal_modes(&m, &m.functions[0]).expect("modes");
    assert_eq!(d.f32, (Mode::PreserveSign, Mode::PreserveSign));
    assert_eq!(d.other, (Mode::Ieee, Mode::Ieee));
    let text =
        "define half @g(half %a) \"denormal-fp-math\"=\"positive-zero,ieee\" {\n  ret half %a\n}\n";
    let m = parse(&SourceFile::new("g.ll", text)).expect("parses");
    let d = denormal_modes(&m, &m.functions[0]).expect("modes");
    assert_eq!(d.other, (Mode::PositiveZero, Mode::Ieee));
    // LangRef: without "denormal-fp-math-f32", float follows "denormal-fp-math".
    assert_eq!(d.f32, d.other);
}

#[test]
fn denormal_fpenv_reads_as_the_strings_it_replaces() {
    use semfuzz_llir::lower::{denormal_modes, Mode};
    let modes = |attrs: &str| {
        let text = format!("define float @f(float %a) {attrs} {{\n  ret float %a\n}}\n");
        let m = parse(&SourceFile::new("f.ll", text.as_str())).expect("parses");
        denormal_modes(&m, &m.functions[0]).map(|d| (d.other, d.f32))
    };
    let (ps, ieee) = (
        (Mode::PreserveSign, Mode::PreserveSign),
        (Mode::Ieee, Mode::Ieee),
    );
    // Trunk's spellings (its LangRef and clang's tests), each beside the strings it replaces.
    for (fpenv, strings, want) in [
        (
            "denormal_fpenv(preservesign)",
            r#""denormal-fp-math"="preserve-sign,preserve-sign""#,
            (ps, ps),
        ),
        (
            "denormal_fpenv(float: preservesign)",
            r#""denormal-fp-math-f32"="preserve-sign,preserve-sign""#,
            (ieee, ps),
        ),
        (
            "denormal_fpenv(positivezero, float: ieee)",
            r#""denormal-fp-math"="positive-zero" "denormal-fp-math-f32"="ieee""#,
            ((Mode::PositiveZero, Mode::PositiveZero), ieee),
        ),
        (
            "denormal_fpenv(float: preservesign|ieee)",
            r#""denormal-fp-math-f32"="preserve-sign,ieee""#,
            (ieee, (Mode::PreserveSign, Mode::Ieee)),
        ),
    ] {
        assert_eq!(modes(fpenv).expect(fpenv), want, "{fpenv}");
        assert_eq!(modes(strings).expect(strings), want, "{strings}");
        assert_eq!(
            modes(&format!("{fpenv} {strings}")).expect("agreeing spellings"),
            want
        );
    }
    let e = modes("denormal_fpenv(preserve-sign)").expect_err("the strings' word");
    assert!(e.message.contains("is not a denormal environment"), "{e}");
    let e = modes(r#"denormal_fpenv(preservesign) "denormal-fp-math"="ieee""#)
        .expect_err("two spellings that disagree");
    assert!(e.message.contains("spells its denormal modes twice"), "{e}");
    // The programs are the same, and not the IEEE one.
    for body in [
        "%r = fadd float %a, %a",
        "%r = fmul float %a, %a",
        "%r = call float @llvm.sqrt.f32(float %a)",
    ] {
        let program = |attrs: &str| {
            let text = format!(
                "define float @f(float %a) {attrs} {{\n  {body}\n  ret float %r\n}}\n\
                 declare float @llvm.sqrt.f32(float)\n"
            );
            let f = semfuzz_llir::load(spec(), "f.ll", &text, None).expect("reads");
            (f.program, f.variants)
        };
        let old = program(r#""denormal-fp-math-f32"="preserve-sign,preserve-sign""#);
        assert_eq!(
            old,
            program("denormal_fpenv(float: preservesign)"),
            "{body}"
        );
        assert_ne!(old, program(""), "{body}");
    }
}

fn error(text: &str, func: Option<&str>) -> String {
    let e = semfuzz_llir::load(spec(), "t.ll", text, func).expect_err("refused");
    let (line, col) = e
        .span
        .as_ref()
        .map(|s| s.file.line_col(s.start))
        .expect("the error is located");
    format!("t.ll:{line}:{col}: {}", e.message)
}

#[test]
fn what_the_reader_does_not_model_is_a_located_error() {
    // Loads through pointer parameters and allocas of a constant size are read (the memory
    // model: tests in cli/tests/llc); an alloca of a size known only at run time is not.
    let alloca = "define float @l(i32 %n) {\n  %x = alloca float, i32 %n\n  %y = load float, ptr %x\n  ret float %y\n}\n";
    assert_eq!(
        error(alloca, None),
        "t.ll:2:8: unsupported `alloca` of `%n` elements"
    );
    let shared = "define i1 @l(ptr addrspace(3) %p) {\n  %x = icmp eq ptr addrspace(3) %p, null\n  ret i1 %x\n}\n";
    assert!(
        error(shared, None).ends_with("unsupported `icmp` on type `ptr addrspace(3)`"),
        "{}",
        error(shared, None)
    );
    let wide = "define i128 @w(i128 %a) {\n  ret i128 %a\n}\n";
    assert_eq!(
        error(wide, None),
        "t.ll:1:16: unsupported type `i128`: 128 bits"
    );
    // A shuffle mask element that is neither a lane nor poison/undef (which make the lane
    // poison: llir/tests/poison.rs).
    let shuffle = "define <2 x i32> @s(<2 x i32> %a) {\n  %x = shufflevector <2 x i32> %a, <2 x i32> %a, <2 x i32> <i32 1, i32 -1>\n  ret <2 x i32> %x\n}\n";
    assert_eq!(
        error(shuffle, None),
        "t.ll:2:50: unsupported mask element `-1`"
    );
    let ctlz = "define i32 @z(i32 %a, i1 %p) {\n  %x = call i32 @llvm.ctlz.i32(i32 %a, i1 %p)\n  ret i32 %x\n}\n";
    assert_eq!(
        error(ctlz, None),
        "t.ll:2:3: `@llvm.ctlz.i32` takes a constant `i1` as its second argument"
    );
    let two = "define i32 @e(i32 %a) {\n  %s = call {i32, i1} @llvm.smul.with.overflow.i32(i32 %a, i32 %a)\n  %x = extractvalue {i32, i1} %s, 2\n  ret i32 %x\n}\n";
    assert_eq!(
        error(two, None),
        "t.ll:3:35: `2` is no field of a struct of 2"
    );
    let load = "define float @l(float %a) {\n  %x = load float, ptr null\n  ret float %x\n}\n";
    assert!(
        error(load, None).ends_with("unsupported `load` through a pointer no parameter gives"),
        "{}",
        error(load, None)
    );
    // Branches are read (tests/control.rs); one to a block the function lacks is located.
    let branch =
        "define float @b(float %a) {\nentry:\n  br label %nowhere\nnext:\n  ret float %a\n}\n";
    assert_eq!(
        error(branch, None),
        "t.ll:3:6: no block is labelled `nowhere`"
    );
    let call = "define float @c(float %a) {\n  %x = call float @llvm.exp.f32(float %a)\n  ret float %x\n}\n";
    assert_eq!(
        error(call, None),
        "t.ll:2:8: unsupported intrinsic `@llvm.exp.f32`"
    );
    // A declared function's call is read (its result an input, its arguments results), but
    // not one that passes a pointer: what the callee does to that memory is unknown.
    let callee =
        "define float @c(float %a) {\n  %x = call float @helper(float %a)\n  ret float %x\n}\n";
    let f = semfuzz_llir::load(spec(), "t.ll", callee, None).expect("reads");
    let names = |s: &[semfuzz_spec::ir::Slot]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&f.inputs), ["%a", "@helper#0"]);
    assert_eq!(names(&f.results), ["ret", "@helper#0(arg 0)"]);
    let pointer =
        "define float @c(ptr %p) {\n  %x = call float @helper(ptr %p)\n  ret float %x\n}\n";
    assert_eq!(
        error(pointer, None),
        "t.ll:2:8: unsupported call of `@helper` with a pointer, whose memory effects are unknown"
    );
    let wide = "define <2 x double> @w(<2 x double> %a) {\n  ret <2 x double> %a\n}\n";
    assert_eq!(
        error(wide, None),
        "t.ll:1:24: unsupported type `<2 x double>`: 128 bits"
    );
    // The catalogue spells equal output and input modes only (docs/llvm-ir-spec.md, OUT / IN).
    let mixed = "define half @m(half %a) \"denormal-fp-math\"=\"preserve-sign,ieee\" {\n  %x = fadd half %a, %a\n  ret half %x\n}\n";
    assert_eq!(
        error(mixed, None),
        "t.ll:2:8: unsupported denormal-fp-math \"preserve-sign,ieee\""
    );
    let icmp =
        "define i1 @s(i32 %a, i32 %b) {\n  %x = icmp samesign ult i32 %a, %b\n  ret i1 %x\n}\n";
    assert_eq!(
        error(icmp, None),
        "t.ll:2:8: unsupported flag `samesign` on `icmp`"
    );
    let call = |c: &str| format!("define float @n(float %a) {{\n  %x = {c}\n  ret float %x\n}}\n");
    assert_eq!(
        error(&call("call float @llvm.nvvm.sqrt.f(float %a)"), None),
        "t.ll:2:8: unsupported intrinsic `@llvm.nvvm.sqrt.f`"
    );
    assert_eq!(
        error(&call("call float @llvm.nvvm.lohi.i2d(float %a)"), None),
        "t.ll:2:8: unsupported intrinsic `@llvm.nvvm.lohi.i2d`"
    );
    assert_eq!(
        error(&call("call nnan float @llvm.nvvm.rcp.rn.f(float %a)"), None),
        "t.ll:2:8: unsupported fast-math flag `nnan` on `@llvm.nvvm.rcp.rn.f`"
    );
    let lg2 = "define double @n(double %a) {\n  %x = call double @llvm.nvvm.lg2.approx.d(double %a)\n  ret double %x\n}\n";
    assert_eq!(
        error(lg2, None),
        "t.ll:2:8: unsupported `@llvm.nvvm.lg2.approx.d`: NVPTX selects `lg2.approx.f64`, which the catalogue does not have"
    );
    // LangRef: "For this intrinsic, the "round.dynamic" mode is not supported."
    let dynamic = "define half @r(float %a) {\n  %x = call half @llvm.fptrunc.round.f16.f32(float %a, metadata !\"round.dynamic\")\n  ret half %x\n}\n";
    assert_eq!(
        error(dynamic, None),
        "t.ll:2:8: unsupported rounding mode `!\"round.dynamic\"` of `llvm.fptrunc.round`"
    );
    let fpmath = "define float @d(float %a, float %b) {\n  %x = fdiv float %a, %b, !fpmath !0\n  ret float %x\n}\n";
    assert_eq!(
        error(fpmath, None),
        "t.ll:2:8: unsupported metadata `!fpmath !0` on `fdiv`"
    );
}

#[test]
fn syntax_errors_are_located() {
    let e = parse(&SourceFile::new("t.ll", "define float @f(float %a {\n}\n")).expect_err("bad");
    let (line, col) = e
        .span
        .as_ref()
        .map(|s| s.file.line_col(s.start))
        .expect("located");
    assert_eq!(
        (line, col, e.message.as_str()),
        (1, 26, "expected `,` between parameters")
    );
    let e = parse(&SourceFile::new(
        "t.ll",
        "define float @f(float %a) {\n  %x = fadd float %a\n  ret float %x\n",
    ))
    .expect_err("bad");
    let (line, _) = e
        .span
        .as_ref()
        .map(|s| s.file.line_col(s.start))
        .expect("located");
    assert_eq!(
        line, 1,
        "an unclosed body points at its `define`: {}",
        e.message
    );
}

#[test]
fn a_missing_function_suggests_a_near_name() {
    let e = semfuzz_llir::load(spec(), "t.ll", CLANG, Some("g")).expect_err("no @g");
    assert_eq!(e.message, "the module defines no function `g`");
}
