//! A subword scalar in a 32-bit `.param` (PTX ISA 7.1: "Subword scalar objects in the source
//! language should be promoted to 32-bit registers in PTX"): LLVM 14 to 16 pass and return a
//! `half` in a `.b32`, loading and storing its low 16 bits. The parameter stays a 32-bit
//! input (a rule's step gives it the argument in its low bits, the rest arbitrary); the
//! result is the bytes written from the first.

use semfuzz_ptx::{load, PtxFunction};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// `fadd half` as LLVM 14.0.6's llc writes it at sm_70.
const LLVM14_FADD_F16: &str = "
.version 6.0
.target sm_70
.address_size 64
.visible .func  (.param .b32 func_retval0) fadd_f16(
	.param .b32 fadd_f16_param_0,
	.param .b32 fadd_f16_param_1
)
{
	.reg .b16 	%h<4>;
	ld.param.b16 	%h1, [fadd_f16_param_0];
	ld.param.b16 	%h2, [fadd_f16_param_1];
	add.rn.f16 	%h3, %h1, %h2;
	st.param.b16 	[func_retval0+0], %h3;
	ret;
}
";

/// A function of one `.b32` parameter `a` returning `.b32` `r`, with `body` between.
fn function(body: &str) -> Result<PtxFunction, String> {
    let text = format!(
        ".version 7.0\n.target sm_80\n\
         .visible .func (.param .b32 r) f(.param .b32 a)\n{{\n\
         \t.reg .b16 %h<4>;\n\t.reg .b32 %r<4>;\n{body}\tret;\n}}\n"
    );
    load(spec(), "t.ptx", &text, None).map_err(|d| d.to_string())
}

fn widths(f: &PtxFunction) -> (Vec<u32>, Vec<u32>) {
    (
        f.inputs.iter().map(|s| s.width).collect(),
        f.results.iter().map(|s| s.width).collect(),
    )
}

fn eval(f: &PtxFunction, inputs: &[u64]) -> Accept {
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out[0]
}

#[test]
fn a_half_returned_in_a_b32_is_a_16_bit_result_of_the_low_bits() {
    let f = load(spec(), "fadd_f16.ptx", LLVM14_FADD_F16, None).expect("reads");
    assert_eq!(widths(&f), (vec![32, 32], vec![16]));
    // 1.0 + 1.0 = 2.0 whatever the upper halves hold; 65504 + 65504 overflows to +inf.
    assert!(eval(&f, &[0xdead_3c00, 0xbeef_3c00]).accepts(0x4000));
    assert!(eval(&f, &[0x7bff, 0x7bff]).accepts(0x7c00));
    assert!(!eval(&f, &[0x3c00, 0x3c00]).accepts(0x3c00));
}

#[test]
fn a_result_is_its_written_bytes_from_the_first_and_a_gap_is_an_error() {
    let low = function("\tld.param.b16 %h1, [a];\n\tst.param.b16 [r], %h1;\n").expect("low half");
    assert_eq!(widths(&low), (vec![32], vec![16]));
    assert!(eval(&low, &[0x1234_5678]).accepts(0x5678));
    let whole =
        function("\tld.param.b32 %r1, [a];\n\tst.param.b32 [r], %r1;\n").expect("all four bytes");
    assert_eq!(widths(&whole), (vec![32], vec![32]));
    let err = function("\tld.param.b16 %h1, [a];\n\tst.param.b16 [r+2], %h1;\n")
        .expect_err("bytes 0 and 1 are never written");
    assert!(err.contains("`f` never writes byte 1 of `r`"), "{err}");
    let err = function("\tret;\n").expect_err("nothing written");
    assert!(err.contains("`f` never writes byte 3 of `r`"), "{err}");
}

/// `<2 x i1>` as LLVM returns it (docs/ambiguities.md 112): lane k in byte k of a return
/// parameter declared one byte wide; the store past its end extends it.
#[test]
fn a_store_past_a_return_parameters_end_extends_it() {
    let text = ".version 7.0\n.target sm_80\n\
        .visible .func (.param .align 1 .b8 r[1]) f(.param .b32 a)\n{\n\
        \t.reg .b16 %h<4>;\n\
        \tld.param.b16 %h1, [a];\n\tld.param.b16 %h2, [a+2];\n\
        \tst.param.b8 [r+1], %h2;\n\tst.param.b8 [r], %h1;\n\tret;\n}\n";
    let f = load(spec(), "t.ptx", text, None).expect("reads");
    assert_eq!(widths(&f), (vec![32], vec![16]));
    assert!(eval(&f, &[0x00ff_0001]).accepts(0xff01));
}

/// A parameter's address (docs/ambiguities.md 113) is read only by `mov` into a 64-bit
/// register and loaded through; a result that is the address itself is refused.
#[test]
fn a_parameters_address_is_only_loaded_through() {
    let head = ".version 7.0\n.target sm_80\n.address_size 64\n\
        .visible .func (.param .b64 r) f(.param .b32 a, .param .b32 b, .param .b32 c)\n{\n\
        \t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n";
    let read = |body: &str| {
        load(spec(), "t.ptx", &format!("{head}{body}\tret;\n}}\n"), None).map_err(|d| d.to_string())
    };
    let picked = read(
        "\tld.param.b32 %r1, [c];\n\tsetp.ne.b32 %p1, %r1, 0;\n\
         \tmov.b64 %rd1, a;\n\tmov.b64 %rd2, b;\n\tselp.b64 %rd3, %rd1, %rd2, %p1;\n\
         \tld.param.b32 %r2, [%rd3];\n\tcvt.u64.u32 %rd1, %r2;\n\tst.param.b64 [r], %rd1;\n",
    )
    .expect("a load through a selected address reads");
    assert!(eval(&picked, &[7, 9, 1]).accepts(7));
    assert!(eval(&picked, &[7, 9, 0]).accepts(9));
    let err = read("\tmov.b64 %rd1, a;\n\tst.param.b64 [r], %rd1;\n")
        .expect_err("the address is not known");
    assert!(err.contains("depends on a parameter's address"), "{err}");
    let err = read("\tadd.s32 %r1, a, 1;\n\tcvt.u64.u32 %rd1, %r1;\n\tst.param.b64 [r], %rd1;\n")
        .expect_err("only mov reads an address");
    assert!(err.contains("parameter `a`'s address in `add"), "{err}");
}
