//! The IR spellings of a variant (`llvm+nvvm`, `llvm+nvvm+daz`, `llvm+ir`, `llvm+ir+daz`):
//! each backend name the registry opens has the spellings README.md's table gives, each folds
//! and agrees where LLVM is right, a discrepancy of one spelling only is found there, and a
//! campaign's findings name the spelling that produced them. Needs `cargo xtask setup`
//! (llvmlite in `.deps/py`).

mod common;

use common::accepted;
use semfuzz_backend::{Backend, Support, Verdict};
use semfuzz_fuzz::campaign::{self, Config, Counters};
use semfuzz_fuzz::{registry, GeneratorKind};
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::sync::atomic::AtomicBool;

/// Every spelling's backend on llvmlite's LLVM, the default first.
const SPELLINGS: [&str; 5] = [
    "llvm",
    "llvm+nvvm",
    "llvm+nvvm+daz",
    "llvm+ir",
    "llvm+ir+daz",
];

fn spec() -> Spec {
    Spec::embedded().expect("the embedded spec loads")
}

fn backend(name: &str) -> Box<dyn Backend> {
    let backend = registry::open(name).unwrap_or_else(|e| panic!("{e} (run `cargo xtask setup`)"));
    assert_eq!(backend.identity().name, name);
    backend
}

/// The spellings (of [`SPELLINGS`]) that support `text` (of two sources); on each, 1024 boundary-heavy samples
/// of which at least `min_folded` fold, every folded one accepted by the evaluator.
fn folding_spellings(spec: &Spec, text: &str, min_folded: usize) -> Vec<&'static str> {
    let variant = spec.lookup(text, Some(2)).expect("variant");
    let n = variant.sources.len();
    let mut samples = Samples::new(spec, variant, 5);
    let mut inputs = vec![0; 1024 * n];
    for row in inputs.chunks_exact_mut(n) {
        samples.fill(row);
    }
    let mut supported = Vec::new();
    for name in SPELLINGS {
        let mut backend = backend(name);
        if let Support::No(_) = backend.supports(variant) {
            continue;
        }
        supported.push(name);
        let mut out = vec![Verdict::Unsupported; 1024];
        backend.run(variant, &inputs, &mut out).expect("batch runs");
        let mut folded = 0;
        for (row, v) in inputs.chunks_exact(n).zip(&out) {
            if let Verdict::Bits(bits) = *v {
                folded += 1;
                assert!(
                    accepted(variant, row, bits),
                    "{name} {text} {row:x?}: LLVM gives {bits:#x}"
                );
            }
        }
        assert!(
            folded >= min_folded,
            "{name} {text}: only {folded} of 1024 folded"
        );
    }
    supported
}

#[test]
fn each_spelling_folds_and_agrees() {
    let spec = spec();
    // LLVM 22 folds no NVVM add with a NaN operand (a tenth of the samples); fadd folds all.
    assert_eq!(
        folding_spellings(&spec, "add.rn.ftz.f32", 800),
        ["llvm", "llvm+nvvm", "llvm+nvvm+daz", "llvm+ir+daz"]
    );
    assert_eq!(
        folding_spellings(&spec, "add.rn.f32", 800),
        ["llvm", "llvm+nvvm", "llvm+nvvm+daz", "llvm+ir"]
    );
    // llvm.minnum with a signalling NaN operand does not fold.
    assert_eq!(
        folding_spellings(&spec, "min.f32", 800),
        ["llvm", "llvm+nvvm", "llvm+nvvm+daz", "llvm+ir"]
    );
}

#[test]
fn an_unknown_spelling_is_refused_with_the_known_ones() {
    let err = registry::open("llvm+daz")
        .err()
        .expect("llvm+daz is refused");
    let text = err.to_string();
    assert!(text.contains("llvm+daz"), "{text}");
    assert!(text.contains("+nvvm, +nvvm+daz, +ir, +ir+daz"), "{text}");
    // No other backend takes a spelling.
    assert!(registry::open("host+ir").is_err());
}

/// `:OPT` follows the spelling, and the attribute reaches LLVM 16 too: `fadd float` of the
/// smallest normal and minus the largest subnormal is the smallest subnormal; under the
/// attribute the subnormal operand reads as zero.
#[test]
fn a_spelling_takes_an_opt_after_it() {
    let spec = spec();
    let variant = spec.lookup("add.f32", Some(2)).expect("variant");
    let ftz = spec.lookup("add.ftz.f32", Some(2)).expect("variant");
    let row = [0x0080_0000, 0x807f_ffff];
    for (name, variant, want) in [
        ("llvm+ir:opt-16", variant, 1),
        ("llvm+ir+daz:opt-16", ftz, 0x0080_0000),
    ] {
        let mut opt = backend(name);
        assert!(
            opt.identity().version.starts_with("LLVM 16."),
            "{}",
            opt.identity()
        );
        let mut out = [Verdict::Unsupported];
        opt.run(variant, &row, &mut out).expect("batch runs");
        assert_eq!(out, [Verdict::Bits(want)], "{name}");
    }
}

/// min.ftz.f32 of the smallest subnormal and 1: PTX flushes the subnormal (`+0`), and so does
/// LLVM 22 folding `llvm.nvvm.fmin.ftz.f` (the default spelling), but its folding of
/// `llvm.minnum` ignores `"denormal-fp-math-f32"="preserve-sign"` and keeps the subnormal,
/// where LangRef says an input denormal "must" be treated as zero: a folding bug only the
/// `+ir+daz` spelling shows.
#[test]
fn a_discrepancy_of_one_spelling_names_it() {
    let spec = spec();
    let variant = spec.lookup("min.ftz.f32", Some(2)).expect("variant");
    let row = [0x0000_0001, 0x3f80_0000];
    for (name, want) in [("llvm", 0), ("llvm+nvvm+daz", 0), ("llvm+ir+daz", 1)] {
        let mut out = [Verdict::Unsupported];
        backend(name)
            .run(variant, &row, &mut out)
            .expect("batch runs");
        assert_eq!(out, [Verdict::Bits(want)], "{name}");
    }
    let config = Config {
        generator: GeneratorKind::Boundary,
        cases: Some(2048),
        time: None,
        seed: 3,
        threads: 1,
        resume: 0,
        evaluator: semfuzz_jit::EvaluatorKind::Jit,
    };
    let found = |name: &str| {
        let open = || registry::open(name);
        campaign::run(
            &spec,
            &[variant],
            &open,
            None,
            &config,
            &Counters::default(),
            &AtomicBool::new(false),
        )
        .expect("the campaign runs")
        .findings
    };
    let default = found("llvm");
    assert!(default.is_empty(), "{default:?}");
    let findings = found("llvm+ir+daz");
    assert!(!findings.is_empty());
    for f in &findings {
        assert_eq!(f.backend, "llvm+ir+daz");
        assert_eq!(f.class, "ftz-not-applied+folding-bug");
    }
}

/// What the backend `name` folds `text` to on `row`, which the evaluator must reject, and its
/// triage (what LangRef says of it).
fn discrepancy(spec: &Spec, name: &str, text: &str, row: &[u64]) -> (u64, Option<&'static str>) {
    let variant = spec.lookup(text, Some(row.len())).expect("variant");
    let mut backend = backend(name);
    let mut out = [Verdict::Unsupported];
    backend.run(variant, row, &mut out).expect("batch runs");
    let Verdict::Bits(bits) = out[0] else {
        panic!("{name} {text} {row:x?}: not folded ({:?})", out[0]);
    };
    assert!(
        !accepted(variant, row, bits),
        "{name} {text} {row:x?}: the spec now accepts {bits:#x}"
    );
    (bits, backend.triage(spec, variant, row, bits))
}

/// The discrepancies README.md lists for the spellings, one case each; none of them shows in
/// the default spelling.
#[test]
fn spelling_only_discrepancies() {
    let spec = spec();
    let bug = Some("folding-bug");
    let opt = Some("opt-level");
    // Under the attribute NVPTX's instcombine rewrites llvm.nvvm.fma.rn.ftz.f into llvm.fma.f32,
    // whose folding ignores the attribute: the subnormal c survives, PTX flushes it.
    let fma = [0x8180_2002, 0x00ff_fffe, 0x007f_fffd];
    for name in ["llvm+nvvm+daz", "llvm+ir+daz"] {
        let got = discrepancy(&spec, name, "fma.rn.ftz.f32", &fma);
        assert_eq!(got, (0x007f_fffd, bug), "{name}");
    }
    // Without the attribute the intrinsic is not rewritten, and LLVM 22 leaves this case.
    let variant = spec.lookup("fma.rn.ftz.f32", Some(3)).expect("variant");
    let mut out = [Verdict::Unsupported];
    backend("llvm+nvvm")
        .run(variant, &fma, &mut out)
        .expect("batch runs");
    assert_eq!(out, [Verdict::NoVerdict]);
    // llvm.sqrt's folding reads a subnormal input as it is, not as zero.
    let got = discrepancy(&spec, "llvm+ir+daz", "sqrt.rn.ftz.f32", &[0x007f_ffff]);
    assert_eq!(got, (0x1fff_ffff, bug));
    // llvm.minimum returns the NaN operand (quieted), PTX min.NaN the canonical NaN.
    let got = discrepancy(&spec, "llvm+ir", "min.NaN.f32", &[0x1f80_0002, 0x7fc0_0001]);
    assert_eq!(got, (0x7fc0_0001, opt));
    // fneg and llvm.fabs are bit operations in LangRef; NVPTX selects neg.ftz/abs.ftz.
    let got = discrepancy(&spec, "llvm+ir+daz", "neg.ftz.f32", &[0x803f_ffff]);
    assert_eq!(got, (0x003f_ffff, opt));
    let got = discrepancy(&spec, "llvm+ir+daz", "abs.ftz.f32", &[0x803f_ffff]);
    assert_eq!(got, (0x003f_ffff, opt));
}
