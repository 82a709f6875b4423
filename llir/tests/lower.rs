//! Reading IR functions into programs: each instruction names the variant the naming contract
//! (docs/llvm-ir-spec.md, "Worked examples") gives it, vectors run lane by lane, and the
//! program computes what the host computes for IEEE arithmetic.

use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// The contract's worked examples: (attributes, parameters, instruction, result type, text).
const EXAMPLES: &[(&str, &str, &str, &str, &str)] = &[
    (
        "",
        "float %a, float %b",
        "fadd nnan float %a, %b",
        "float",
        "ir_fadd.nnan.f32",
    ),
    (
        "",
        "float %a, float %b",
        "fadd fast float %a, %b",
        "float",
        "ir_fadd.nnan.ninf.nsz.f32",
    ),
    (
        "",
        "double %a, double %b",
        "fdiv arcp double %a, %b",
        "double",
        "ir_fdiv.arcp.f64",
    ),
    (
        r#""denormal-fp-math-f32"="preserve-sign,preserve-sign""#,
        "float %a, float %b",
        "fmul float %a, %b",
        "float",
        "ir_fmul.out_ps.in_ps.f32",
    ),
    (
        r#""denormal-fp-math-f32"="preserve-sign,preserve-sign""#,
        "half %a, half %b",
        "fmul half %a, %b",
        "half",
        "ir_fmul.f16",
    ),
    (
        r#""denormal-fp-math"="positive-zero""#,
        "double %a, double %b",
        "fsub double %a, %b",
        "double",
        "ir_fsub.out_pz.in_pz.f64",
    ),
    ("", "float %a", "fneg float %a", "float", "ir_fneg.f32"),
    (
        "",
        "double %a, double %b",
        "fcmp ult double %a, %b",
        "i1",
        "ir_fcmp.ult.f64",
    ),
    (
        "",
        "half %a, half %b",
        "fcmp nnan oeq half %a, %b",
        "i1",
        "ir_fcmp.oeq.nnan.f16",
    ),
    (
        "",
        "i1 %c, float %a, float %b",
        "select i1 %c, float %a, float %b",
        "float",
        "ir_select.f32",
    ),
    (
        "",
        "float %a",
        "fptosi float %a to i32",
        "i32",
        "ir_fptosi.i32.f32",
    ),
    (
        "",
        "float %a",
        "fptrunc float %a to bfloat",
        "bfloat",
        "ir_fptrunc.bf16.f32",
    ),
    (
        "",
        "i64 %a",
        "uitofp i64 %a to half",
        "half",
        "ir_uitofp.f16.i64",
    ),
    (
        "",
        "float %a",
        "bitcast float %a to i32",
        "i32",
        "ir_bitcast.i32.f32",
    ),
    (
        "",
        "<2 x half> %a, <2 x half> %b",
        "call <2 x half> @llvm.minimum.v2f16(<2 x half> %a, <2 x half> %b)",
        "<2 x half>",
        "llvm_minimum.f16",
    ),
    (
        "",
        "float %a, float %b, float %c",
        "call nsz float @llvm.fma.f32(float %a, float %b, float %c)",
        "float",
        "llvm_fma.nsz.f32",
    ),
    (
        "",
        "float %a, float %b",
        "call float @llvm.copysign.f32(float %a, float %b)",
        "float",
        "llvm_copysign.f32",
    ),
    (
        "",
        "i32 %a, i32 %b",
        "add nsw i32 %a, %b",
        "i32",
        "ir_add.nsw.i32",
    ),
    (
        "",
        "i64 %a, i64 %b",
        "icmp slt i64 %a, %b",
        "i1",
        "ir_icmp.slt.i64",
    ),
    ("", "i8 %a", "zext i8 %a to i32", "i32", "ir_zext.i32.i8"),
];

fn function(attrs: &str, params: &str, instr: &str, ret: &str) -> String {
    format!("define {ret} @f({params}) {attrs} {{\n  %r = {instr}\n  ret {ret} %r\n}}\n")
}

/// Every worked example names the contract's variant: read into a program where the built-in
/// specs have the family, refused naming exactly that text where they do not.
#[test]
fn instructions_name_the_contracts_variants() {
    for (attrs, params, instr, ret, text) in EXAMPLES {
        let family = text.split('.').next().expect("an opcode");
        let read = semfuzz_llir::load(spec(), "t.ll", &function(attrs, params, instr, ret), None);
        if spec().variants.iter().any(|v| v.family == family) {
            let f = read.unwrap_or_else(|e| panic!("`{instr}`: {e}"));
            assert_eq!(f.variants, [*text], "`{instr}` with {attrs:?}");
        } else {
            let e = read.expect_err("no such family");
            assert_eq!(
                e.message,
                format!("unsupported `{text}`: no such variant in the catalogue"),
                "`{instr}` with {attrs:?}"
            );
        }
    }
}

/// Whether the IR arithmetic specs (spec/isa/llvm-fp.sem) are built in; the evaluation tests
/// below need them.
fn ir_specs_built() -> bool {
    spec().variants.iter().any(|v| v.text == "ir_fadd.f32")
}

fn eval(text: &str, inputs: &[u64]) -> Vec<Accept> {
    let f = semfuzz_llir::load(spec(), "t.ll", text, None).expect("reads");
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// `fadd float`/`fmul double` round once to nearest, as the host does (IEEE 754).
#[test]
fn ieee_arithmetic_agrees_with_the_host() {
    if !ir_specs_built() {
        return;
    }
    let add = function("", "float %a, float %b", "fadd float %a, %b", "float");
    let mul = function("", "double %a, double %b", "fmul double %a, %b", "double");
    let pairs: [(f32, f32); 5] = [
        (1.0, 2.0),
        (0.1, 0.2),
        (1e38, 1e38),
        (-0.0, 0.0),
        (1e-45, -3e-45),
    ];
    for (a, b) in pairs {
        let acc = eval(&add, &[u64::from(a.to_bits()), u64::from(b.to_bits())]);
        assert!(
            acc[0].accepts(u64::from((a + b).to_bits())),
            "{a} + {b}: {:?}",
            acc[0]
        );
        let (x, y) = (f64::from(a) * 3.7, f64::from(b) / 1.3);
        let acc = eval(&mul, &[x.to_bits(), y.to_bits()]);
        assert!(acc[0].accepts((x * y).to_bits()), "{x} * {y}: {:?}", acc[0]);
    }
}

/// A `<2 x float>` sum is two scalar sums, lane 0 in the low bits.
#[test]
fn vectors_run_lane_by_lane() {
    if !ir_specs_built() {
        return;
    }
    let v = function(
        "",
        "<2 x float> %a, <2 x float> %b",
        "fadd <2 x float> %a, %b",
        "<2 x float>",
    );
    let pack = |lo: f32, hi: f32| u64::from(hi.to_bits()) << 32 | u64::from(lo.to_bits());
    let acc = eval(&v, &[pack(1.5, -2.0), pack(0.25, 8.0)]);
    assert!(acc[0].accepts(pack(1.75, 6.0)), "{:?}", acc[0]);
    assert!(!acc[0].accepts(pack(6.0, 1.75)), "lanes kept apart");
    // Lanes moved by insertelement/extractelement.
    let text = "define float @g(<2 x float> %v, float %x) {\n  %w = insertelement <2 x float> %v, float %x, i32 0\n  %e = extractelement <2 x float> %w, i64 0\n  %r = fadd float %e, 1.000000e+00\n  ret float %r\n}\n";
    let acc = eval(text, &[pack(7.0, 9.0), u64::from(2.0f32.to_bits())]);
    assert!(acc[0].accepts(u64::from(3.0f32.to_bits())), "{:?}", acc[0]);
}
