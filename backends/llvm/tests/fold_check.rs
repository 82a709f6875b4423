//! Fold against codegen: LLVM 22's `instcombine` (llvmlite, `cargo xtask setup`) folds IR
//! functions at constant arguments, and each folded constant is judged against the IR spec and
//! a PTX function, in cases built to be each of the three kinds: a constant-folding bug (real:
//! `llvm.fma` under preserve-sign), a result that changes with the optimisation level (`fadd`
//! against a flushing `add.rn.ftz.f32` written by hand), and consistent pairs.

use semfuzz_llvm::fold_check::{
    boundary_inputs, classify, fold_check, witness_inputs, FoldKind, Folded,
};
use semfuzz_llvm::Folder;
use semfuzz_spec::ir::Program;
use semfuzz_spec::Spec;

fn spec() -> Spec {
    Spec::embedded().expect("the embedded spec loads")
}

fn folder() -> Folder {
    Folder::find(None).unwrap_or_else(|e| panic!("{e} (run `cargo xtask setup`)"))
}

/// A module of one function `f` of `float` parameters computing `instr` (`%r = ...`), with
/// `attrs` written after the parameters (`#0` and its group, or nothing).
fn ir(params: usize, instr: &str, ftz: bool) -> String {
    let names: Vec<String> = ["a", "b", "c"][..params]
        .iter()
        .map(|p| format!("float %{p}"))
        .collect();
    let (attrs, group) = if ftz {
        (
            " #0",
            "\nattributes #0 = { \"denormal-fp-math-f32\"=\"preserve-sign,preserve-sign\" }\n",
        )
    } else {
        ("", "")
    };
    format!(
        "declare float @llvm.fma.f32(float, float, float)\n\n\
         define float @f({}){attrs} {{\n  %r = {instr}\n  ret float %r\n}}\n{group}",
        names.join(", ")
    )
}

/// The program of a PTX function `f` in llc's shape: its `.b32` parameters loaded into
/// registers, `instr` applied (`add.rn.f32 %r0, %r1, %r2`), the result stored.
fn ptx(spec: &Spec, params: usize, instr: &str) -> Program {
    ptx_of(spec, params, 32, instr)
}

/// [`ptx`] with parameters and result of `width` bits.
fn ptx_of(spec: &Spec, params: usize, width: u32, instr: &str) -> Program {
    let decls: Vec<String> = (0..params)
        .map(|k| format!("\t.param .b{width} f_param_{k}"))
        .collect();
    let loads: String = (0..params)
        .map(|k| format!("\tld.param.b{width} \t%r{}, [f_param_{k}];\n", k + 1))
        .collect();
    let text = format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\n\
         .visible .func  (.param .b{width} func_retval0) f(\n{}\n)\n{{\n\t.reg .b{width} \t%r<8>;\n\n\
         {loads}\t{instr};\n\tst.param.b{width} \t[func_retval0], %r0;\n\tret;\n\n}}\n",
        decls.join(",\n")
    );
    semfuzz_ptx::load(spec, "f.ptx", &text, Some("f"))
        .unwrap_or_else(|d| panic!("{d}\n{text}"))
        .program
}

/// The IR function's program, as `fold_check` reads it.
fn ir_program(spec: &Spec, text: &str) -> Program {
    semfuzz_llir::load(spec, "f.ll", text, Some("f"))
        .unwrap_or_else(|d| panic!("{d}"))
        .program
}

const SUBNORMAL: u64 = 0x0040_0000; // 2^-127
const MIN_NORMAL: u64 = 0x0080_0000; // 2^-126
const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;
const THREE: u64 = 0x4040_0000;

fn is_nan(bits: u64) -> bool {
    bits & 0x7fff_ffff > 0x7f80_0000
}

#[test]
fn fma_folded_without_flushing_its_inputs_is_a_folding_bug() {
    // Under preserve-sign, LangRef says denormal inputs "must" be treated as zero, so
    // fma(2^-127, 2, +0) is +0 (or -0 by the sign rule); LLVM 22 folds it to 2^-126, as if the
    // attribute were not there. llc emits fma.rn.ftz.f32, which computes +0: consistent with
    // the IR, so only the folded program is wrong.
    let spec = spec();
    let text = ir(
        3,
        "call float @llvm.fma.f32(float %a, float %b, float %c)",
        true,
    );
    let ptx = ptx(&spec, 3, "fma.rn.ftz.f32 \t%r0, %r1, %r2, %r3");
    let rows = vec![vec![SUBNORMAL, TWO, 0], vec![ONE, TWO, ONE]];
    let v = fold_check(&spec, &text, "f", &ptx, &rows, &folder()).expect("folds");
    assert_eq!(v[0].folded, Folded::Bits(MIN_NORMAL), "{}", v[0]);
    assert_eq!(v[0].kind, FoldKind::FoldingBug, "{}", v[0]);
    assert_eq!(v[0].ptx_computes, v[0].ir_allows, "{}", v[0]);
    // 1 × 2 + 1 = 3 is folded right.
    assert_eq!(
        (v[1].folded, v[1].kind),
        (Folded::Bits(THREE), FoldKind::Consistent),
        "{}",
        v[1]
    );
}

#[test]
fn fadd_against_a_flushing_add_changes_with_the_optimisation_level() {
    // `fadd float` without denormal attributes keeps subnormals, and LLVM folds it so; the PTX
    // written by hand flushes them (add.rn.ftz.f32, right only under preserve-sign). The folded
    // constant is what the IR allows, the PTX computes another: the result depends on whether
    // the arguments were constants when the optimiser ran.
    let spec = spec();
    let text = ir(2, "fadd float %a, %b", false);
    let ptx = ptx(&spec, 2, "add.rn.ftz.f32 \t%r0, %r1, %r2");
    let rows = vec![
        vec![SUBNORMAL, SUBNORMAL],
        vec![SUBNORMAL, 0],
        vec![ONE, TWO],
    ];
    let v = fold_check(&spec, &text, "f", &ptx, &rows, &folder()).expect("folds");
    assert_eq!(
        (v[0].folded, v[0].kind),
        (Folded::Bits(MIN_NORMAL), FoldKind::OptLevel),
        "{}",
        v[0]
    );
    assert_eq!(
        (v[1].folded, v[1].kind),
        (Folded::Bits(SUBNORMAL), FoldKind::OptLevel),
        "{}",
        v[1]
    );
    assert_eq!(
        (v[2].folded, v[2].kind),
        (Folded::Bits(THREE), FoldKind::Consistent),
        "{}",
        v[2]
    );
}

#[test]
fn correct_pairs_are_consistent_at_boundary_inputs() {
    // llc's own PTX for `fadd float` (add.rn.f32) and for the same under preserve-sign
    // (add.rn.ftz.f32): every folded constant is consistent (a NaN too: both LangRef and
    // PTX's f32 add allow any NaN).
    let spec = spec();
    for (ftz, instr) in [(false, "add.rn.f32"), (true, "add.rn.ftz.f32")] {
        let text = ir(2, "fadd float %a, %b", ftz);
        let ptx = ptx(&spec, 2, &format!("{instr} \t%r0, %r1, %r2"));
        let rows = boundary_inputs(&text, "f", 512, 7).expect("inputs");
        let v = fold_check(&spec, &text, "f", &ptx, &rows, &folder()).expect("folds");
        let (mut folded, mut nans) = (0, 0);
        for r in &v {
            let Folded::Bits(bits) = r.folded else {
                continue;
            };
            folded += 1;
            nans += usize::from(is_nan(bits));
            assert_eq!(r.kind, FoldKind::Consistent, "{instr}: {r}");
        }
        assert!(folded > 400, "{instr}: only {folded} of 512 folded");
        assert!(nans > 20, "{instr}: only {nans} NaNs folded");
    }
}

#[test]
fn a_signalling_nan_kept_by_the_folder_changes_with_the_optimisation_level() {
    // `fadd double %a, -0.0` at a signalling NaN: LLVM folds the identity `x + -0.0 → x` and
    // returns the NaN unquieted, which LangRef allows (any NaN); PTX's add.rn.f64 quiets the
    // payload ("NaN payloads are supported for double-precision").
    let spec = spec();
    let text =
        "define double @f(double %a, double %b) {\n  %r = fadd double %a, %b\n  ret double %r\n}\n";
    let ptx = ptx_of(&spec, 2, 64, "add.rn.f64 \t%r0, %r1, %r2");
    let snan = 0x7ff4_0000_0000_0000;
    let v = fold_check(
        &spec,
        text,
        "f",
        &ptx,
        &[vec![snan, 0x8000_0000_0000_0000]],
        &folder(),
    )
    .expect("folds");
    assert_eq!(
        (v[0].folded, v[0].kind),
        (Folded::Bits(snan), FoldKind::OptLevel),
        "{}",
        v[0]
    );
}

#[test]
fn classification_of_constructed_folds() {
    // The verdict alone, on folded values made up here: each kind whatever LLVM does today.
    let spec = spec();
    let add = ir(2, "fadd float %a, %b", false);
    let fast = ir(2, "fadd nnan float %a, %b", false);
    let (ir_add, ir_fast) = (ir_program(&spec, &add), ir_program(&spec, &fast));
    let exact = ptx(&spec, 2, "add.rn.f32 \t%r0, %r1, %r2");
    let flush = ptx(&spec, 2, "add.rn.ftz.f32 \t%r0, %r1, %r2");
    let kind =
        |ir: &Program, ptx: &Program, row: [u64; 2], folded| classify(ir, ptx, &row, folded).kind;
    // 1 + 2 folded to 2: no IR allows it.
    assert_eq!(
        kind(&ir_add, &exact, [ONE, TWO], Folded::Bits(TWO)),
        FoldKind::FoldingBug
    );
    // Rounded up by one ulp: still a folding bug, whatever the PTX.
    assert_eq!(
        kind(&ir_add, &flush, [ONE, TWO], Folded::Bits(THREE + 1)),
        FoldKind::FoldingBug
    );
    assert_eq!(
        kind(
            &ir_add,
            &flush,
            [SUBNORMAL, SUBNORMAL],
            Folded::Bits(MIN_NORMAL)
        ),
        FoldKind::OptLevel
    );
    assert_eq!(
        kind(
            &ir_add,
            &exact,
            [SUBNORMAL, SUBNORMAL],
            Folded::Bits(MIN_NORMAL)
        ),
        FoldKind::Consistent
    );
    // Poison: wrong for a plain fadd of numbers, allowed where `nnan` meets a NaN.
    assert_eq!(
        kind(&ir_add, &exact, [ONE, TWO], Folded::Poison),
        FoldKind::FoldingBug
    );
    assert_eq!(
        kind(&ir_fast, &exact, [0x7fc0_0000, TWO], Folded::Poison),
        FoldKind::Consistent
    );
    assert_eq!(
        kind(&ir_add, &exact, [ONE, TWO], Folded::Unfolded),
        FoldKind::NotFolded
    );
    let v = classify(
        &ir_add,
        &flush,
        &[SUBNORMAL, SUBNORMAL],
        Folded::Bits(MIN_NORMAL),
    );
    let line = v.to_string();
    assert!(
        line.starts_with("0x400000, 0x400000: folded 0x800000: opt-level (the IR allows "),
        "{line}"
    );
}

#[test]
fn boundary_inputs_follow_the_parameter_types() {
    let text = "define i1 @g(<2 x half> %v, i32 %n, i1 %p, double %d) {\n  ret i1 %p\n}\n";
    let rows = boundary_inputs(text, "g", 300, 1).expect("inputs");
    assert_eq!(rows.len(), 300);
    assert!(rows.iter().all(|r| r.len() == 4));
    assert!(rows
        .iter()
        .all(|r| r[0] >> 32 == 0 && r[1] >> 32 == 0 && r[2] <= 1));
    // Boundary-heavy: zeros, infinities and the i32 extremes all appear.
    let col = |k: usize| rows.iter().map(move |r| r[k]);
    assert!(col(3).any(|d| d == 0) && col(3).any(|d| d == 0x7ff0_0000_0000_0000));
    assert!(col(0).any(|v| v & 0xffff == 0x7c00));
    assert!(col(1).any(|n| n == 0x8000_0000) && col(1).any(|n| n == 0xffff_ffff));
    assert_eq!(rows, boundary_inputs(text, "g", 300, 1).expect("inputs"));
    assert!(boundary_inputs(text, "h", 1, 1)
        .unwrap_err()
        .contains("no function `h`"));
}

#[test]
fn integer_and_predicate_results_fold_too() {
    // An fcmp returns an i1 (`ret i1 true`), read as the predicate's bit; llc returns it in a
    // 32-bit register as 0 or 1 (`selp.b32`).
    let spec = spec();
    let text = "define i1 @f(float %a, float %b) {\n  %c = fcmp olt float %a, %b\n  ret i1 %c\n}\n";
    let ptx_text = ".version 7.8\n.target sm_90\n.address_size 64\n\n\
        .visible .func  (.param .b32 func_retval0) f(\n\t.param .b32 f_param_0,\n\t.param .b32 f_param_1\n)\n{\n\
        \t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<4>;\n\n\
        \tld.param.b32 \t%r1, [f_param_0];\n\tld.param.b32 \t%r2, [f_param_1];\n\
        \tsetp.lt.f32 \t%p1, %r1, %r2;\n\tselp.b32 \t%r3, 1, 0, %p1;\n\
        \tst.param.b32 \t[func_retval0], %r3;\n\tret;\n\n}\n";
    let ptx = semfuzz_ptx::load(&spec, "f.ptx", ptx_text, Some("f"))
        .unwrap_or_else(|d| panic!("{d}"))
        .program;
    let rows = vec![vec![ONE, TWO], vec![TWO, ONE]];
    let v = fold_check(&spec, text, "f", &ptx, &rows, &folder()).expect("folds");
    assert_eq!(
        (v[0].folded, v[0].kind),
        (Folded::Bits(1), FoldKind::Consistent),
        "{}",
        v[0]
    );
    assert_eq!(
        (v[1].folded, v[1].kind),
        (Folded::Bits(0), FoldKind::Consistent),
        "{}",
        v[1]
    );
}

#[test]
fn unusable_input_is_an_error_not_a_panic() {
    let spec = spec();
    let text = ir(2, "fadd float %a, %b", false);
    let ptx = ptx(&spec, 2, "add.rn.f32 \t%r0, %r1, %r2");
    let folder = folder();
    let err = fold_check(&spec, &text, "f", &ptx, &[vec![ONE]], &folder).unwrap_err();
    assert!(err.contains("1 values for the 2 parameters"), "{err}");
    let err = fold_check(&spec, &text, "nope", &ptx, &[], &folder).unwrap_err();
    assert!(err.contains("nope"), "{err}");
    // A call of a function the module only declares: the reader has no meaning for it.
    let opaque = "define float @f(float %a, float %b) {\n  %r = call float @g(float %a)\n  ret float %r\n}\ndeclare float @g(float)\n";
    assert!(fold_check(&spec, opaque, "f", &ptx, &[vec![ONE, TWO]], &folder).is_err());
    let unary = ptx_one(&spec);
    let err = fold_check(&spec, &text, "f", &unary, &[vec![ONE, TWO]], &folder).unwrap_err();
    assert!(err.contains("the PTX takes 1 inputs"), "{err}");
}

/// A one-parameter PTX function (`neg.f32`).
fn ptx_one(spec: &Spec) -> Program {
    ptx(spec, 1, "neg.f32 \t%r0, %r1")
}

#[test]
fn campaign_findings_are_triaged_by_what_langref_allows() {
    // The `llvm` backend's reading of a result the PTX spec rejects, through the IR its cases
    // compute (the route's instruction and attributes): results made up here, so that each
    // reading is tested whatever LLVM folds today.
    let spec = spec();
    let mut llvm = semfuzz_llvm::open(None).unwrap_or_else(|e| panic!("{e}"));
    let variant = |text: &str| spec.lookup(text, None).expect("variant");
    let fma = variant("fma.rn.ftz.f32x2");
    // Lane 0: fma(2^-127, 2, 0). Under preserve-sign LangRef flushes the input: 2^-126 is
    // a folding bug (what LLVM 22 folds, README.md), +0 what the PTX computes.
    assert_eq!(
        llvm.triage(&spec, fma, &[SUBNORMAL, TWO, 0], MIN_NORMAL),
        Some("folding-bug")
    );
    // fma(2^-126, 0.5, 0) = 2^-127: LangRef "may" flush an output, so keeping it is LLVM's
    // right; PTX's fma.rn.ftz flushes it. The optimisation level decides.
    assert_eq!(
        llvm.triage(&spec, fma, &[MIN_NORMAL, 0x3f00_0000, 0], SUBNORMAL),
        Some("opt-level")
    );
    // abs.f64 of a negative NaN: llvm.fabs clears the sign (a bit operation LangRef defines),
    // PTX abs.f64 passes the NaN through.
    assert_eq!(
        llvm.triage(
            &spec,
            variant("abs.f64"),
            &[0xfff8_0000_0000_0000],
            0x7ff8_0000_0000_0000
        ),
        Some("opt-level")
    );
    // sub through fsub: 3 - 1 is not 3.
    assert_eq!(
        llvm.triage(&spec, variant("sub.f32"), &[THREE, ONE], THREE),
        Some("folding-bug")
    );
    // The identity fold `x + -0.0 → x` keeps a signalling NaN: LangRef allows any NaN.
    assert_eq!(
        llvm.triage(
            &spec,
            variant("add.f64"),
            &[0x8000_0000_0000_0000, 0x7ff4_0000_0000_0000],
            0x7ff4_0000_0000_0000
        ),
        Some("opt-level")
    );
    // No route, no reading.
    assert_eq!(
        llvm.triage(&spec, variant("testp.finite.f32"), &[ONE], 1),
        None
    );
}

#[test]
fn witnesses_of_a_one_instruction_function_fold_consistently() {
    // Z3's witnesses of ir_fadd.f32 (its NaN and zero branches, ties, the overflow and
    // subnormal thresholds) as arguments; llc's add.rn.f32 agrees with every fold there.
    let spec = spec();
    let text = ir(2, "fadd float %a, %b", false);
    let rows = witness_inputs(&spec, &text, "f", 2_000).expect("witnesses");
    assert!(rows.len() >= 4, "{rows:x?}");
    assert!(rows.iter().all(|r| r.len() == 2));
    let ptx = ptx(&spec, 2, "add.rn.f32 \t%r0, %r1, %r2");
    let v = fold_check(&spec, &text, "f", &ptx, &rows, &folder()).expect("folds");
    assert!(v.iter().all(|r| r.kind == FoldKind::Consistent), "{v:#?}");
    // Two instructions: no single variant to ask Z3 about.
    let two = "define float @f(float %a, float %b) {\n  %s = fadd float %a, %b\n  %r = fmul float %s, %b\n  ret float %r\n}\n";
    assert_eq!(witness_inputs(&spec, two, "f", 2_000), Ok(Vec::new()));
}

#[test]
fn numbered_values_as_clang_writes_them_fold() {
    // Unnamed parameters and results (`%0`, `%1`, `%3`): the case has no parameters, so its
    // values are renamed, or LLVM 16 would refuse the numbering (LLVM 22 accepts gaps); both
    // folders are asked.
    let spec = spec();
    let text = "define dso_local float @f(float noundef %0, float noundef %1) #0 {\n  \
                %3 = fmul float %0, %1\n  %4 = fadd float %3, %1\n  ret float %4\n}\n\n\
                attributes #0 = { nounwind }\n";
    let ptx = ptx(&spec, 2, "fma.rn.f32 \t%r0, %r1, %r2, %r2");
    let opt16 = Folder::find(Some("opt-16")).unwrap_or_else(|e| panic!("{e}"));
    for folder in [folder(), opt16] {
        let v = fold_check(&spec, text, "f", &ptx, &[vec![TWO, ONE]], &folder)
            .unwrap_or_else(|e| panic!("{folder:?}: {e}"));
        // 2 × 1 + 1 = 3 both ways.
        assert_eq!(
            (v[0].folded, v[0].kind),
            (Folded::Bits(THREE), FoldKind::Consistent),
            "{folder:?}: {}",
            v[0]
        );
    }
}
