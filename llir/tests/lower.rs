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
    (
        "",
        "float %a, float %b",
        "frem nsz float %a, %b",
        "float",
        "ir_frem.nsz.f32",
    ),
    (
        "",
        "i64 %a, i64 %b",
        "sdiv exact i64 %a, %b",
        "i64",
        "ir_sdiv.exact.i64",
    ),
    ("", "i8 %a, i8 %b", "urem i8 %a, %b", "i8", "ir_urem.i8"),
    (
        "",
        "i32 %a, i32 %b, i32 %c",
        "call i32 @llvm.fshl.i32(i32 %a, i32 %b, i32 %c)",
        "i32",
        "llvm_fshl.i32",
    ),
    (
        "",
        "i1 %c, i64 %a, i64 %b",
        "select i1 %c, i64 %a, i64 %b",
        "i64",
        "ir_select.i64",
    ),
    (
        "",
        "ptr %p, ptr %q",
        "icmp ult ptr %p, %q",
        "i1",
        "ir_icmp.ult.i64",
    ),
    (
        "",
        "i1 %c, ptr %p",
        "select i1 %c, ptr %p, ptr null",
        "ptr",
        "ir_select.i64",
    ),
    (
        "",
        "i32 %a",
        "call i32 @llvm.ctpop.i32(i32 %a)",
        "i32",
        "llvm_ctpop.i32",
    ),
    (
        "",
        "i64 %a",
        "call i64 @llvm.cttz.i64(i64 %a, i1 true)",
        "i64",
        "llvm_cttz.poison.i64",
    ),
    (
        "",
        "i16 %a",
        "call i16 @llvm.bswap.i16(i16 %a)",
        "i16",
        "llvm_bswap.i16",
    ),
    (
        "",
        "i32 %a, i32 %b",
        "call i32 @llvm.sadd.sat.i32(i32 %a, i32 %b)",
        "i32",
        "llvm_sadd_sat.i32",
    ),
    (
        "",
        "float %a, i32 %e",
        "call float @llvm.ldexp.f32.i32(float %a, i32 %e)",
        "float",
        "llvm_ldexp.f32",
    ),
    (
        "",
        "float %a",
        "call half @llvm.fptrunc.round.f16.f32(float %a, metadata !\"round.towardzero\")",
        "half",
        "llvm_fptrunc_round.rz.f16.f32",
    ),
    (
        "",
        "float %a, float %b",
        "call float @llvm.nvvm.add.rn.ftz.f(float %a, float %b)",
        "float",
        "add.rn.ftz.f32",
    ),
    (
        "",
        "<2 x half> %a, <2 x half> %b",
        "call <2 x half> @llvm.nvvm.fmin.nan.f16x2(<2 x half> %a, <2 x half> %b)",
        "<2 x half>",
        "min.NaN.f16x2",
    ),
    (
        "",
        "float %a",
        "call i32 @llvm.nvvm.f2i.rn(float %a)",
        "i32",
        "cvt.rni.s32.f32",
    ),
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

/// An intrinsic whose name spells its overload another way is the known intrinsic its name
/// starts with, overloaded by its types, as LLVM remangles it (docs/ambiguities.md 111):
/// `@llvm.maxnum.f16x2` on `<2 x half>` is `llvm.maxnum` per lane; an unknown name stays
/// refused, naming the callee.
#[test]
fn an_intrinsic_suffix_spelled_otherwise_is_the_overload_of_its_types() {
    if !ir_specs_built() {
        return;
    }
    let max = function(
        "",
        "<2 x half> %a, <2 x half> %b",
        "call <2 x half> @llvm.maxnum.f16x2(<2 x half> %a, <2 x half> %b)",
        "<2 x half>",
    );
    // max(1.0, 2.0) = 2.0 in lane 0, max(-3.0, -4.0) = -3.0 in lane 1.
    let acc = eval(&max, &[0xc200_3c00, 0xc400_4000]);
    assert!(acc[0].accepts(0xc200_4000), "{:?}", acc[0]);
    assert!(!acc[0].accepts(0xc400_4000), "{:?}", acc[0]);
    let unknown = function(
        "",
        "float %a",
        "call float @llvm.experimental.nothing.f32(float %a)",
        "float",
    );
    let e = semfuzz_llir::load(spec(), "t.ll", &unknown, None).expect_err("no such intrinsic");
    assert!(
        e.message.contains("@llvm.experimental.nothing.f32"),
        "{}",
        e.message
    );
}

/// NVVM intrinsics read as the PTX instructions NVPTX selects (docs/llvm-ir-spec.md, "NVVM
/// intrinsics"): each rule's spelling names its variant, and the programs compute what the
/// host computes for the IEEE ones.
#[test]
fn nvvm_intrinsics_are_the_ptx_nvptx_selects() {
    for (params, call, ret, text) in [
        ("double %a, double %b", "call double @llvm.nvvm.mul.rz.d(double %a, double %b)", "double", "mul.rz.f64"),
        ("float %a, float %b, float %c", "call float @llvm.nvvm.fma.rm.ftz.sat.f(float %a, float %b, float %c)", "float", "fma.rm.ftz.sat.f32"),
        ("float %a", "call float @llvm.nvvm.rcp.rp.ftz.f(float %a)", "float", "rcp.rp.ftz.f32"),
        ("double %a", "call double @llvm.nvvm.sqrt.rn.d(double %a)", "double", "sqrt.rn.f64"),
        ("float %a", "call float @llvm.nvvm.sqrt.approx.ftz.f(float %a)", "float", "sqrt.approx.ftz.f32"),
        ("float %a, float %b", "call float @llvm.nvvm.div.approx.f(float %a, float %b)", "float", "div.approx.f32"),
        ("float %a, float %b", "call float @llvm.nvvm.div.full.ftz(float %a, float %b)", "float", "div.full.ftz.f32"),
        ("float %a", "call float @llvm.nvvm.ex2.approx.ftz.f32(float %a)", "float", "ex2.approx.ftz.f32"),
        ("<2 x half> %a", "call <2 x half> @llvm.nvvm.ex2.approx.v2f16(<2 x half> %a)", "<2 x half>", "ex2.approx.f16x2"),
        ("float %a", "call float @llvm.nvvm.sin.approx.f(float %a)", "float", "sin.approx.f32"),
        ("float %a", "call float @llvm.nvvm.lg2.approx.ftz.f(float %a)", "float", "lg2.approx.ftz.f32"),
        ("double %a", "call double @llvm.nvvm.rsqrt.approx.d(double %a)", "double", "rsqrt.approx.f64"),
        ("float %a, float %b", "call float @llvm.nvvm.fmax.ftz.nan.xorsign.abs.f(float %a, float %b)", "float", "max.ftz.NaN.xorsign.abs.f32"),
        ("bfloat %a, bfloat %b", "call bfloat @llvm.nvvm.fmin.bf16(bfloat %a, bfloat %b)", "bfloat", "min.bf16"),
        ("half %a, half %b", "call half @llvm.nvvm.add.rn.sat.f16(half %a, half %b)", "half", "add.rn.sat.f16"),
        ("<2 x bfloat> %a, <2 x bfloat> %b, <2 x bfloat> %c", "call <2 x bfloat> @llvm.nvvm.fma.rn.relu.bf16x2(<2 x bfloat> %a, <2 x bfloat> %b, <2 x bfloat> %c)", "<2 x bfloat>", "fma.rn.relu.bf16x2"),
        ("float %a", "call i64 @llvm.nvvm.f2ull.rz.ftz(float %a)", "i64", "cvt.rzi.ftz.u64.f32"),
        ("i64 %a", "call double @llvm.nvvm.ll2d.rm(i64 %a)", "double", "cvt.rm.f64.s64"),
        ("double %a", "call float @llvm.nvvm.d2f.rp.ftz(double %a)", "float", "cvt.rp.ftz.f32.f64"),
        ("float %a", "call i16 @llvm.nvvm.f2h.rn(float %a)", "i16", "cvt.rn.f16.f32"),
        ("float %a", "call bfloat @llvm.nvvm.f2bf16.rz.relu(float %a)", "bfloat", "cvt.rz.relu.bf16.f32"),
        ("float %a, float %b", "call <2 x half> @llvm.nvvm.ff2f16x2.rn.satfinite(float %a, float %b)", "<2 x half>", "cvt.rn.satfinite.f16x2.f32"),
        ("float %a", "call float @llvm.nvvm.floor.ftz.f(float %a)", "float", "cvt.rmi.ftz.f32.f32"),
    ] {
        let f = semfuzz_llir::load(spec(), "t.ll", &function("", params, call, ret), None)
            .unwrap_or_else(|e| panic!("`{call}`: {e}"));
        assert_eq!(f.variants, [text], "`{call}`");
    }
    let add = function(
        "",
        "float %a, float %b",
        "call float @llvm.nvvm.add.rn.f(float %a, float %b)",
        "float",
    );
    let f2i = function(
        "",
        "float %a",
        "call i32 @llvm.nvvm.f2i.rn(float %a)",
        "i32",
    );
    for (a, b) in [
        (1.5f32, 2.25f32),
        (0.1, 0.2),
        (3e38, 3e38),
        (1e-45, -3e-45),
        (-2.5, 0.0),
    ] {
        let got = eval(&add, &[u64::from(a.to_bits()), u64::from(b.to_bits())]);
        assert!(
            got[0].accepts(u64::from((a + b).to_bits())),
            "{a} + {b}: {:?}",
            got[0]
        );
        // cvt.rni.s32.f32: to nearest even, saturating (Rust's `as` saturates too).
        let got = eval(&f2i, &[u64::from(a.to_bits())]);
        let want = a.round_ties_even() as i32 as u32;
        assert!(got[0].accepts(u64::from(want)), "f2i.rn {a}: {:?}", got[0]);
    }
    // min.f16x2 works on each half of the register: lane 0 low.
    let min = function(
        "",
        "<2 x half> %a, <2 x half> %b",
        "call <2 x half> @llvm.nvvm.fmin.f16x2(<2 x half> %a, <2 x half> %b)",
        "<2 x half>",
    );
    // a = <1.0, -2.0>, b = <3.0, -4.0>: min = <1.0, -4.0>.
    let got = eval(&min, &[0xc000_3c00, 0xc400_4200]);
    assert!(got[0].accepts(0xc400_3c00), "{:?}", got[0]);
    // cvt.rn.bf16x2.f32 d, a, b puts a's conversion in the upper half: lane 1.
    let pack = function(
        "",
        "float %a, float %b",
        "call <2 x bfloat> @llvm.nvvm.ff2bf16x2.rn(float %a, float %b)",
        "<2 x bfloat>",
    );
    let got = eval(
        &pack,
        &[u64::from(1.0f32.to_bits()), u64::from(2.0f32.to_bits())],
    );
    assert!(got[0].accepts(0x3f80_4000), "{:?}", got[0]);
}

/// ldexp on a vector is the scalar variant per lane, its `<2 x i32>` exponents too; and
/// `llvm.fptrunc.round` rounds as its metadata says.
#[test]
fn ldexp_and_fptrunc_round_read_their_arguments() {
    if !ir_specs_built() {
        return;
    }
    let v = function(
        "",
        "<2 x float> %a, <2 x i32> %e",
        "call <2 x float> @llvm.ldexp.v2f32.v2i32(<2 x float> %a, <2 x i32> %e)",
        "<2 x float>",
    );
    let pack = |lo: u32, hi: u32| u64::from(hi) << 32 | u64::from(lo);
    let got = eval(
        &v,
        &[
            pack(1.5f32.to_bits(), 3.0f32.to_bits()),
            pack(4, (-2i32) as u32),
        ],
    );
    assert!(
        got[0].accepts(pack(24.0f32.to_bits(), 0.75f32.to_bits())),
        "{:?}",
        got[0]
    );
    // 1 + 2^-12 is between two halves; toward zero gives 1, upward the next half.
    let x = u64::from((1.0f32 + 2f32.powi(-12)).to_bits());
    for (m, want) in [
        ("towardzero", 0x3c00),
        ("upward", 0x3c01),
        ("tonearest", 0x3c00),
    ] {
        let f = function(
            "",
            "float %a",
            &format!("call half @llvm.fptrunc.round.f16.f32(float %a, metadata !\"round.{m}\")"),
            "half",
        );
        let got = eval(&f, &[x]);
        assert_eq!(got[0], Accept::Exact(want), "round.{m}");
    }
}

/// The IR type of an NVVM name's type suffix.
fn nvvm_type(suffix: &str) -> &'static str {
    match suffix {
        "f" | "f32" => "float",
        "d" | "f64" => "double",
        "f16" => "half",
        "f16x2" | "v2f16" => "<2 x half>",
        "bf16" => "bfloat",
        _ => "<2 x bfloat>",
    }
}

/// Every NVVM intrinsic of the families the reader restates, as IntrinsicsNVVM.td declares
/// them (the excerpt in shared/ref-docs/llvm-nvptx-usage.md), with its IR signature:
/// (name, result type, operand types).
fn nvvm_declarations() -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut arith = |name: String, n: usize, suffix: &str| {
        let t = nvvm_type(suffix).to_string();
        out.push((format!("{name}.{suffix}"), t.clone(), vec![t; n]));
    };
    for rnd in ["rn", "rz", "rm", "rp"] {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                arith(format!("add.{rnd}{ftz}{sat}"), 2, "f");
                arith(format!("fma.{rnd}{ftz}{sat}"), 3, "f");
            }
            arith(format!("mul.{rnd}{ftz}"), 2, "f");
            arith(format!("div.{rnd}{ftz}"), 2, "f");
            arith(format!("rcp.{rnd}{ftz}"), 1, "f");
            arith(format!("sqrt.{rnd}{ftz}"), 1, "f");
        }
        for op in ["add", "mul", "div", "rcp", "sqrt"] {
            arith(
                format!("{op}.{rnd}"),
                if op == "rcp" || op == "sqrt" { 1 } else { 2 },
                "d",
            );
        }
        arith(format!("fma.{rnd}"), 3, "d");
    }
    for ftz in ["", ".ftz"] {
        for ty in ["f16", "v2f16"] {
            arith(format!("add.rn{ftz}.sat"), 2, ty);
            arith(format!("mul.rn{ftz}.sat"), 2, ty);
        }
        for v in ["", ".sat", ".relu"] {
            for ty in ["f16", "f16x2"] {
                arith(format!("fma.rn{ftz}{v}"), 3, ty);
            }
        }
        arith(format!("div.approx{ftz}"), 2, "f");
        arith(format!("sqrt.approx{ftz}"), 1, "f");
        arith(format!("lg2.approx{ftz}"), 1, "f");
        arith(format!("sin.approx{ftz}"), 1, "f");
        arith(format!("cos.approx{ftz}"), 1, "f");
        arith(format!("rsqrt.approx{ftz}"), 1, "f");
        arith(format!("rsqrt.approx{ftz}"), 1, "d");
        arith(format!("ex2.approx{ftz}"), 1, "f32");
        for op in ["floor", "ceil", "round", "trunc", "saturate"] {
            arith(format!("{op}{ftz}"), 1, "f");
        }
        for v in ["", ".xorsign.abs"] {
            for nan in ["", ".nan"] {
                for op in ["fmin", "fmax"] {
                    for ty in ["f", "f16", "f16x2", "bf16", "bf16x2"] {
                        arith(format!("{op}{ftz}{nan}{v}"), 2, ty);
                    }
                }
            }
        }
    }
    for relu in ["", ".relu"] {
        for ty in ["bf16", "bf16x2"] {
            arith(format!("fma.rn{relu}"), 3, ty);
        }
    }
    for (name, ty) in [
        ("rcp.approx.ftz", "f"),
        ("rcp.approx.ftz", "d"),
        ("lg2.approx", "d"),
        ("ex2.approx", "f16"),
        ("ex2.approx", "v2f16"),
        ("ex2.approx.ftz", "bf16"),
        ("ex2.approx.ftz", "v2bf16"),
        ("fmin", "d"),
        ("fmax", "d"),
        ("floor", "d"),
        ("ceil", "d"),
        ("round", "d"),
        ("trunc", "d"),
        ("saturate", "d"),
    ] {
        arith(
            name.to_string(),
            if name.starts_with("fm") { 2 } else { 1 },
            ty,
        );
    }
    let mut conv = |name: String, ret: &str, args: &[&str]| {
        out.push((
            name,
            ret.to_string(),
            args.iter().map(|a| a.to_string()).collect(),
        ));
    };
    let int = |s: &str| if s.ends_with("ll") { "i64" } else { "i32" };
    for rnd in ["rn", "rz", "rm", "rp"] {
        for ftz in ["", ".ftz"] {
            conv(format!("d2f.{rnd}{ftz}"), "float", &["double"]);
            for i in ["i", "ui", "ll", "ull"] {
                conv(format!("f2{i}.{rnd}{ftz}"), int(i), &["float"]);
            }
        }
        for i in ["i", "ui", "ll", "ull"] {
            conv(format!("d2{i}.{rnd}"), int(i), &["double"]);
            conv(format!("{i}2f.{rnd}"), "float", &[int(i)]);
            conv(format!("{i}2d.{rnd}"), "double", &[int(i)]);
        }
    }
    for ftz in ["", ".ftz"] {
        conv(format!("f2h.rn{ftz}"), "i16", &["float"]);
    }
    for rnd in ["rn", "rz"] {
        for relu in ["", ".relu"] {
            for sf in ["", ".satfinite"] {
                conv(format!("f2bf16.{rnd}{relu}{sf}"), "bfloat", &["float"]);
                conv(format!("f2f16.{rnd}{relu}{sf}"), "half", &["float"]);
                conv(
                    format!("ff2bf16x2.{rnd}{relu}{sf}"),
                    "<2 x bfloat>",
                    &["float", "float"],
                );
                conv(
                    format!("ff2f16x2.{rnd}{relu}{sf}"),
                    "<2 x half>",
                    &["float", "float"],
                );
            }
        }
    }
    conv("sqrt.f".into(), "float", &["float"]);
    out
}

/// Each declared NVVM intrinsic of those families is read as its PTX variant, or refused
/// with a located `unsupported` naming why: NVPTX selects no instruction the catalogue has
/// (the ftz forms of the bf16 min/max, which NVPTXIntrinsics.td's MIN_MAX does not list, and
/// `lg2.approx.f64`), or its selection is not by name (`sqrt.f`).
#[test]
fn every_declared_nvvm_intrinsic_is_read_or_refused() {
    let mut read = 0;
    let mut refused = Vec::new();
    for (name, ret, args) in nvvm_declarations() {
        let params: Vec<String> = args
            .iter()
            .enumerate()
            .map(|(k, t)| format!("{t} %a{k}"))
            .collect();
        // The parameters are the call's arguments, in order.
        let call = format!("call {ret} @llvm.nvvm.{name}({})", params.join(", "));
        let text = function("", &params.join(", "), &call, &ret);
        match semfuzz_llir::load(spec(), "t.ll", &text, None) {
            Ok(f) => {
                assert_eq!(f.variants.len(), 1, "{name}");
                read += 1;
            }
            Err(e) => {
                assert!(e.message.starts_with("unsupported "), "{name}: {e}");
                assert!(e.span.is_some(), "{name}: located");
                refused.push(name);
            }
        }
    }
    let mut want: Vec<String> = ["sqrt.f", "lg2.approx.d"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for v in ["", ".xorsign.abs"] {
        for nan in ["", ".nan"] {
            for op in ["fmin", "fmax"] {
                for ty in ["bf16", "bf16x2"] {
                    want.push(format!("{op}.ftz{nan}{v}.{ty}"));
                }
            }
        }
    }
    refused.sort();
    want.sort();
    assert_eq!(refused, want);
    assert_eq!(read, 337, "NVVM intrinsics read as PTX variants");
}

/// A `*.with.overflow` call is one variant with two destinations, the struct's two fields,
/// which `extractvalue` reads; per lane for a vector struct.
#[test]
fn with_overflow_structs_are_read_by_extractvalue() {
    let text = "define i32 @o(i32 %a, i32 %b) {
  %s = call {i32, i1} @llvm.uadd.with.overflow.i32(i32 %a, i32 %b)
  %v = extractvalue {i32, i1} %s, 0
  %o = extractvalue {i32, i1} %s, 1
  %z = zext i1 %o to i32
  %r = add i32 %v, %z
  ret i32 %r
}
";
    let f = semfuzz_llir::load(spec(), "t.ll", text, None).expect("reads");
    assert_eq!(
        f.variants,
        [
            "llvm_uadd_with_overflow.i32",
            "ir_zext.i32.i1",
            "ir_add.i32"
        ]
    );
    // The carry is added back: 0xffffffff + 2 wraps to 1, plus the carry.
    assert_eq!(eval(text, &[0xffff_ffff, 2])[0], Accept::Exact(2));
    assert_eq!(eval(text, &[1, 2])[0], Accept::Exact(3));
    // Lane 0 overflows (0x7fff + 1), lane 1 (1 + 1) does not.
    let v = "define <2 x i1> @v(<2 x i16> %a, <2 x i16> %b) {
  %s = call {<2 x i16>, <2 x i1>} @llvm.sadd.with.overflow.v2i16(<2 x i16> %a, <2 x i16> %b)
  %o = extractvalue {<2 x i16>, <2 x i1>} %s, 1
  ret <2 x i1> %o
}
";
    assert_eq!(eval(v, &[0x0001_7fff, 0x0001_0001])[0], Accept::Exact(0b01));
}

/// Integer vectors: a bitcast between lane counts moves bits, select and shufflevector pick
/// lanes; pointers are 64-bit addresses compared as integers.
#[test]
fn integer_vectors_and_pointers_compute_what_the_ir_says() {
    let text = "define <4 x i8> @s(i32 %a, <4 x i8> %b, i1 %c) {
  %v = bitcast i32 %a to <4 x i8>
  %w = shufflevector <4 x i8> %v, <4 x i8> %b, <4 x i32> <i32 0, i32 5, i32 2, i32 7>
  %r = select i1 %c, <4 x i8> %w, <4 x i8> %b
  ret <4 x i8> %r
}
";
    assert_eq!(
        eval(text, &[0x4433_2211, 0x8877_6655, 1])[0],
        Accept::Exact(0x8833_6611)
    );
    assert_eq!(
        eval(text, &[0x4433_2211, 0x8877_6655, 0])[0],
        Accept::Exact(0x8877_6655)
    );
    let min = "define ptr @m(ptr %p, ptr %q) {
  %c = icmp ult ptr %p, %q
  %r = select i1 %c, ptr %p, ptr %q
  ret ptr %r
}
";
    let f = semfuzz_llir::load(spec(), "t.ll", min, None).expect("reads");
    assert_eq!(f.inputs[0].width, 64);
    assert_eq!(f.variants, ["ir_icmp.ult.i64", "ir_select.i64"]);
    let high = 0x8000_0000_0000_1000u64;
    assert_eq!(eval(min, &[high, 0x1000])[0], Accept::Exact(0x1000));
    assert_eq!(eval(min, &[0x10, high])[0], Accept::Exact(0x10));
}
