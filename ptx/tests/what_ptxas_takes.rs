//! The PTX reader takes what ptxas takes, no more: an instruction only where the module's
//! `.version` and `.target` have it (LLVM 14-16 write `max.NaN.f32` at sm_50, which ptxas
//! refuses, and a proof of such a program proves nothing a GPU runs), and modifiers in any
//! order (LLVM 14-19 write `max.NaN.ftz.f32`, which ptxas assembles as `max.ftz.NaN.f32`).

use semfuzz_ptx::{load, PtxFunction};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// A module with `header` whose one function computes `instr` of two 32-bit parameters
/// (`%r1`, `%r2`) into `%r3`; an `instr` with its operands written is taken whole.
fn module(header: &str, instr: &str) -> String {
    let instr = if instr.contains(' ') {
        instr.to_string()
    } else {
        format!("{instr} %r3, %r1, %r2")
    };
    format!(
        "{header}\n\
         .visible .func (.param .b32 r) f(.param .b32 a, .param .b32 b)\n{{\n\
         \t.reg .b32 %r<4>;\n\
         \tld.param.b32 %r1, [a];\n\
         \tld.param.b32 %r2, [b];\n\
         \t{instr};\n\
         \tst.param.b32 [r], %r3;\n\
         \tret;\n}}\n"
    )
}

fn function(header: &str, instr: &str) -> Result<PtxFunction, String> {
    load(spec(), "t.ptx", &module(header, instr), None).map_err(|d| d.to_string())
}

fn read(header: &str, instr: &str) -> Result<(), String> {
    function(header, instr).map(|_| ())
}

#[test]
fn an_instruction_newer_than_the_target_is_a_located_error() {
    let err = read(".version 6.0\n.target sm_50", "max.NaN.f32").expect_err("sm_50");
    assert!(
        err.contains("`max.NaN.f32` requires PTX ISA 7.0, sm_80"),
        "{err}"
    );
    assert!(
        err.contains("the module declares .version 6.0, .target sm_50"),
        "{err}"
    );
    assert!(err.contains("t.ptx:8:2"), "located at the opcode: {err}");
}

#[test]
fn the_target_and_the_version_are_each_checked() {
    // sm_80 with a PTX version before 7.0: the version refuses it.
    let err = read(".version 6.4\n.target sm_80", "max.NaN.f32").expect_err("ptx 6.4");
    assert!(err.contains("requires PTX ISA 7.0"), "{err}");
    // PTX 7.0 at sm_75: the target refuses it.
    let err = read(".version 7.0\n.target sm_75", "max.NaN.f32").expect_err("sm_75");
    assert!(err.contains(".target sm_75"), "{err}");
    // f16 arithmetic came with sm_53.
    let err = read(".version 7.0\n.target sm_52", "add.rn.f16x2").expect_err("sm_52");
    assert!(err.contains("`add.rn.f16x2` requires"), "{err}");
}

#[test]
fn an_instruction_the_target_has_reads() {
    for header in [
        ".version 7.0\n.target sm_80",
        ".version 8.7\n.target sm_90a",
        // What a module does not declare does not refuse it.
        "",
        ".target sm_80",
    ] {
        read(header, "max.NaN.f32").unwrap_or_else(|e| panic!("{header:?}: {e}"));
    }
    read(".version 6.0\n.target sm_50", "max.f32").expect("max.f32 is as old as PTX");
    read(".version 7.0\n.target sm_53", "add.rn.f16x2").expect("f16x2 at sm_53");
}

/// Outcomes of `instr` on pairs of f32 patterns that tell `.ftz` and `.NaN` apart.
fn outcomes(instr: &str) -> Vec<Accept> {
    let f = function(".version 7.0\n.target sm_80", instr).unwrap_or_else(|e| panic!("{e}"));
    let patterns = [
        0x0000_0001u64,
        0x8000_0001,
        0x3f80_0000,
        0x7fc0_0000,
        0xff80_0000,
        0,
    ];
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    let mut all = Vec::new();
    for a in patterns {
        for b in patterns {
            ev.eval(&[a, b], &mut out);
            all.push(out[0]);
        }
    }
    all
}

#[test]
fn modifiers_read_in_any_order_types_in_theirs() {
    let manual = outcomes("max.ftz.NaN.f32");
    assert_eq!(outcomes("max.NaN.ftz.f32"), manual);
    // Both modifiers took effect: a NaN wins and a subnormal is flushed.
    assert_ne!(outcomes("max.ftz.f32"), manual);
    assert_ne!(outcomes("max.NaN.f32"), manual);
    assert_eq!(outcomes("add.ftz.rn.f32"), outcomes("add.rn.ftz.f32"));
    // A modifier between the types moves before them; the types keep their order, so
    // `cvt.f32.rn.f16` is not read as `cvt.rn.f16.f32` (ptxas refuses it: a rounding
    // modifier on an exact conversion).
    read(".version 7.0\n.target sm_80", "cvt.f16.rn.f32 %r3, %r1").expect("cvt.rn.f16.f32");
    let err = read(".version 7.0\n.target sm_80", "cvt.f32.rn.f16 %r3, %r1").expect_err("types");
    assert!(
        err.contains("unspecified instruction `cvt.f32.rn.f16`"),
        "{err}"
    );
    let err = read(".version 7.0\n.target sm_80", "max.fast.ftz.f32").expect_err("no such");
    assert!(
        err.contains("unspecified instruction `max.fast.ftz.f32`"),
        "{err}"
    );
}

/// A warp collective reads the other lanes, which a one-thread reading does not have: a
/// located `unsupported` naming it, not a complaint about its operand count.
#[test]
fn a_warp_collective_is_a_located_unsupported() {
    for instr in [
        "shfl.sync.bfly.b32 %r3, %r1, 16, 31, -1",
        "redux.sync.add.s32 %r3, %r1, -1",
        "activemask.b32 %r3",
    ] {
        let err = read(".version 7.0\n.target sm_80", instr).expect_err(instr);
        assert!(
            err.contains("unsupported:") && err.contains("is a warp collective"),
            "{err}"
        );
        assert!(err.contains("t.ptx:8:2"), "located at the opcode: {err}");
    }
}
