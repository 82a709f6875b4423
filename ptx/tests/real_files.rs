//! Whole PTX files as llc and nvcc write them with debug information: `.file`, `.loc` (with
//! `function_name`/`inlined_at`), `.section .debug_*` blocks, `.pragma`, launch directives and
//! module variables read, and each function computes what llc's output without debug
//! information computes.

use semfuzz_ptx::syntax::{parse, Directive, Module};
use semfuzz_ptx::{read_function, PtxFunction};
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

fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name);
    std::fs::read_to_string(&path).expect("fixture exists")
}

fn module_of(name: &str, text: &str) -> Module {
    parse(&SourceFile::new(name, text)).unwrap_or_else(|d| panic!("{d}"))
}

fn function(m: &Module, name: &str) -> PtxFunction {
    read_function(spec(), m, Some(name)).unwrap_or_else(|d| panic!("{name}: {d}"))
}

fn eval(f: &PtxFunction, inputs: &[u64]) -> Vec<Accept> {
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

/// Where `a` and `b` (functions of three parameters `bits` wide) give different accept sets.
fn first_difference(a: &PtxFunction, b: &PtxFunction, bits: u32) -> Option<[u64; 3]> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x & ((1u64 << bits) - 1)
    };
    let special: [u64; 6] = [0, 0x3c00, 0x7c00, 0x0001, 0x3f80_0000, 0x7f80_0001];
    for k in 0..400 {
        let inputs = if k < special.len() {
            [special[k], special[(k + 1) % 6], special[(k + 2) % 6]]
        } else {
            [next(), next(), next()]
        };
        if eval(a, &inputs) != eval(b, &inputs) {
            return Some(inputs);
        }
    }
    None
}

const DEBUG: &str = "llc22-debug-sm_80.ptx";
const STRIPPED: &str = "llc22-debug-sm_80.stripped.ptx";

#[test]
fn debug_directives_change_nothing() {
    let full = module_of(DEBUG, &fixture_text(DEBUG));
    let bare = module_of(STRIPPED, &fixture_text(STRIPPED));
    for (name, bits) in [("axpy_h", 16), ("fma_f", 32)] {
        let (f, g) = (function(&full, name), function(&bare, name));
        assert_eq!(f.instructions, g.instructions, "{name}");
        assert_eq!(first_difference(&f, &g, bits), None, "{name}");
    }
}

/// The comparison above sees one changed instruction.
#[test]
fn a_changed_instruction_is_a_difference() {
    let text = fixture_text(DEBUG);
    let broken = text.replacen("add.rn.f16", "sub.rn.f16", 1);
    assert_ne!(broken, text);
    let full = module_of("broken.ptx", &broken);
    let bare = module_of(STRIPPED, &fixture_text(STRIPPED));
    let (f, g) = (function(&full, "axpy_h"), function(&bare, "axpy_h"));
    assert!(first_difference(&f, &g, 16).is_some());
}

#[test]
fn launch_directives_and_module_variables_are_kept() {
    let m = module_of(DEBUG, &fixture_text(DEBUG));
    let kern = m.functions.iter().find(|f| f.name == "kern").expect("kern");
    assert_eq!(kern.directive("reqntid"), Some(&[128, 1, 1][..]));
    assert_eq!(kern.directive("minnctapersm"), Some(&[2][..]));
    assert_eq!(kern.directive("maxntid"), None);
    assert_eq!(
        kern.directives[0],
        Directive {
            name: "reqntid".into(),
            args: vec![128, 1, 1]
        }
    );
    let vars: Vec<&str> = m.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(vars, ["scale", "table"]);
    // Printing keeps them, and the printed module parses to the same print.
    let once = m.to_string();
    assert!(
        once.contains(".reqntid 128, 1, 1\n.minnctapersm 2"),
        "{once}"
    );
    assert_eq!(module_of("printed.ptx", &once).to_string(), once);
}

#[test]
fn module_variables_are_read_as_memory_or_refused_naming_them() {
    // An initialised `.global` is read as a constant (docs/ambiguities.md 180).
    let m = module_of(DEBUG, &fixture_text(DEBUG));
    read_function(spec(), &m, Some("uses_global")).expect("`scale` read through its initializer");
    // One without an initializer is memory the function may write (docs/ambiguities.md 184):
    // its bytes are inputs and results.
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n.global .align 4 .b8 x[12];\n\
                .visible .func (.param .b32 r) f()\n{\n\t.reg .b32 %r<2>;\n\tld.global.b32 %r1, [x+8];\n\tst.param.b32 [r], %r1;\n\tret;\n}\n";
    let f = read_function(spec(), &module_of("x.ptx", text), Some("f")).expect("read");
    let names: Vec<&str> = f.inputs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["[x+0..8]", "[x+8..12]"]);
    // A `.const` without an initializer is memory semfuzz does not model, named where it is
    // used, through `mov` of its address as well.
    let text = ".version 7.0\n.target sm_80\n.address_size 64\n.const .align 4 .b8 x[16];\n\
                .visible .func (.param .b64 r) f()\n{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, x;\n\tst.param.b64 [r], %rd1;\n\tret;\n}\n";
    let m = module_of("mov.ptx", text);
    let e = read_function(spec(), &m, Some("f")).expect_err("refused");
    assert_eq!(
        e.message,
        "unsupported: `mov.u64` names the module variable `x`"
    );
    let span = e.span.expect("located");
    assert_eq!(&span.file.text[span.start..span.end], "x");
}

#[test]
fn an_unterminated_string_is_located() {
    let e = parse(&SourceFile::new("s.ptx", ".version 7.0\n.file 1 \"k.cu\n")).expect_err("bad");
    assert_eq!(e.message, "unterminated string");
    let span = e.span.expect("located");
    assert_eq!(span.file.line_col(span.start), (2, 9));
}

/// Triton 3.9's PTX: read whole, as one thread of a launch: its special registers are inputs
/// after its parameters and memory, bounded by its `.reqntid`.
#[test]
fn tritons_ptx_reads_whole() {
    let name = "triton-3.9-exp-add-sm_80.ptx";
    let m = module_of(name, &fixture_text(name));
    let k = &m.functions[0];
    assert_eq!(k.name, "add_kernel");
    assert_eq!(k.directive("reqntid"), Some(&[128][..]));
    let f = read_function(spec(), &m, None).expect("one thread");
    let names: Vec<&str> = f.inputs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names[names.len() - semfuzz_spec::launch::SPECIAL_REGISTERS.len()..],
        semfuzz_spec::launch::SPECIAL_REGISTERS
    );
    assert_eq!(f.launch.reqntid, Some([128, 1, 1]));
}

/// The project's Triton kernels (scripts/kernel-fixtures.py, sm_80 and sm_90): the vector add
/// and the bf16 exp read whole as one thread of their launch, and the vector add adds; the
/// softmax and the layer norm stop, located, at their shared memory (the CTA issue's).
#[test]
fn tritons_kernels_read_as_one_thread_or_name_what_stops_them() {
    use semfuzz_spec::launch::SPECIAL_REGISTERS;
    for sm in ["sm_80", "sm_90"] {
        for kernel in ["vector-add", "exp-bf16"] {
            let name = format!("triton-3.9-{kernel}-{sm}.ptx");
            let m = module_of(&name, &fixture_text(&name));
            let f = read_function(spec(), &m, None).unwrap_or_else(|d| panic!("{name}: {d}"));
            assert_eq!(f.launch.reqntid, Some([128, 1, 1]), "{name}");
            let names: Vec<&str> = f.inputs.iter().map(|s| s.name.as_str()).collect();
            assert!(names.ends_with(&SPECIAL_REGISTERS), "{name}: {names:?}");
        }
        // Thread 0 of block 0 of a 128-thread CTA: out[0] = x[0] + y[0] = 1 + 2.
        let name = format!("triton-3.9-vector-add-{sm}.ptx");
        let f = function(&module_of(&name, &fixture_text(&name)), "vector_add");
        let mut inputs = vec![0x1000, 0x2000, 0x3000, 8, 0, 0];
        inputs.extend([0x3f80_0000, 0, 0x4000_0000, 0, 0, 0]);
        inputs.extend([0, 0, 0, 128, 1, 1, 0, 0, 0, 1, 1, 1, 0]);
        assert_eq!(inputs.len(), f.inputs.len(), "{name}");
        let out = eval(&f, &inputs);
        let at = |slot: &str| {
            f.results
                .iter()
                .position(|s| s.name == slot)
                .unwrap_or_else(|| panic!("{name}: no {slot}"))
        };
        assert_eq!(
            out[at("[vector_add_param_2+0..8]")],
            Accept::Exact(0x4040_0000),
            "{name}"
        );
        for kernel in ["softmax", "layer-norm"] {
            let name = format!("triton-3.9-{kernel}-{sm}.ptx");
            let m = module_of(&name, &fixture_text(&name));
            let e = read_function(spec(), &m, None).expect_err("shared memory");
            assert!(
                e.message
                    .contains("names the module variable `global_smem`")
                    && e.span.is_some(),
                "{name}: {}",
                e.message
            );
        }
    }
}
