//! The minimal module of one function: exactly what it uses, the function renamed short.

use semfuzz_llir::syntax::parse;
use semfuzz_llir::{minimal, Module};
use semfuzz_spec::diag::SourceFile;

fn module(text: &str) -> Module {
    parse(&SourceFile::new("m.ll", text)).expect("parses")
}

const MODULE: &str = r#"; ModuleID = 'fuzz'
source_filename = "fuzz"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@table = internal constant [2 x i32] [i32 1, i32 2]
@unused = global i32 0

declare float @llvm.fma.f32(float, float, float) #1
declare float @llvm.sqrt.f32(float) #1
declare i32 @llvm.smax.i32(i32, i32) #2
declare void @other(ptr)

define float @fuzz_function_17(float %a, float %b) #0 {
entry:
  %m = fmul float %a, %b
  %r = call float @llvm.fma.f32(float %m, float %a, float %b), !fpmath !0
  ret float %r
}

define i32 @g(i32 %x) #3 {
  %y = call i32 @llvm.smax.i32(i32 %x, i32 0)
  ret i32 %y
}

attributes #0 = { "denormal-fp-math"="ieee,ieee" nounwind }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(none) }
attributes #2 = { nounwind }
attributes #3 = { "denormal-fp-math-f32"="preserve-sign,preserve-sign" }

!llvm.ident = !{!1}
!nvvm.annotations = !{!2}
!0 = !{float 2.5}
!1 = !{!"clang"}
!2 = !{ptr @g, !"kernel", i32 1}
"#;

#[test]
fn the_minimal_module_keeps_exactly_what_the_function_uses() {
    let m = module(MODULE);
    let min = minimal(&m, &m.functions[0]);
    let text = min.to_string();
    assert_eq!(
        text,
        r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare float @llvm.fma.f32(float, float, float) #1
!0 = !{float 2.5}

define float @f(float %a, float %b) #0 {
entry:
  %m = fmul float %a, %b
  %r = call float @llvm.fma.f32(float %m, float %a, float %b), !fpmath !0
  ret float %r
}

attributes #0 = { "denormal-fp-math"="ieee,ieee" nounwind }

attributes #1 = { nocallback nofree nosync nounwind willreturn memory(none) }
"#,
        "{text}"
    );
    // A function that calls itself calls its new name; a kept declaration named `f` makes
    // it `f0`.
    let m = module(
        "declare i32 @f()\ndeclare i32 @unused()\n\ndefine i32 @long_name(i32 %x) {\n  %y = call i32 @long_name(i32 %x)\n  %z = call i32 @f()\n  ret i32 %z\n}\n",
    );
    let small = minimal(&m, &m.functions[0]).to_string();
    assert_eq!(
        small,
        "declare i32 @f()\n\ndefine i32 @f0(i32 %x) {\n  %y = call i32 @f0(i32 %x)\n  %z = call i32 @f()\n  ret i32 %z\n}\n"
    );
    // The printed module reads back as the same module.
    assert_eq!(module(&text).to_string(), text);
}

/// A call's argument attributes are kept as written: `align 4` on a `memcpy`'s pointers is
/// what lets llc copy words rather than bytes, so the module compiled must carry it.
#[test]
fn call_argument_attributes_survive_the_minimal_module() {
    let m = module(
        r#"declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) noalias, ptr addrspace(1) noalias, i64, i1 immarg)

define void @copy(ptr addrspace(1) %d, ptr addrspace(1) %s) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 4 %d, ptr addrspace(1) noundef align 4 %s, i64 16, i1 false)
  ret void
}
"#,
    );
    let text = minimal(&m, &m.functions[0]).to_string();
    assert!(
        text.contains(
            "(ptr addrspace(1) align 4 %d, ptr addrspace(1) noundef align 4 %s, i64 16, i1 false)"
        ),
        "{text}"
    );
}
