//! numba-cuda's CUDA simulator against the spec, through the external protocol: where it is
//! right, it must agree; where it is not, the discrepancies found while building this backend
//! must still be there, on the inputs that show them, for the reason given.

use semfuzz_backend::{Backend, Support, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::sync::{Mutex, OnceLock};

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the embedded spec loads"))
}

fn variant(text: &str) -> &'static Variant {
    spec().lookup(text, None).expect("variant exists")
}

/// One simulator for all tests: numba's import is the slow part of starting it.
fn backend() -> std::sync::MutexGuard<'static, Box<dyn Backend>> {
    static BACKEND: OnceLock<Mutex<Box<dyn Backend>>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            Mutex::new(semfuzz_numba_sim::open(None).unwrap_or_else(|e| {
                panic!("numba-sim must run in CI (`cargo xtask setup` installs it): {e}")
            }))
        })
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// The results of `rows` of `v` and, per row, whether the spec accepts them.
fn run(v: &Variant, inputs: &[u64]) -> Vec<(Vec<u64>, u64, bool)> {
    let n = inputs.len() / v.sources.len();
    let mut out = vec![Verdict::NoVerdict; n];
    let mut b = backend();
    assert_eq!(b.supports(v), Support::Yes, "{}", v.text);
    b.run(v, inputs, &mut out).expect("the batch runs");
    let mut eval = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); eval.n_parts()];
    inputs
        .chunks_exact(v.sources.len())
        .zip(out)
        .map(|(row, verdict)| {
            let Verdict::Bits(bits) = verdict else {
                panic!("{} {row:x?}: {verdict:?}", v.text)
            };
            eval.eval(row, &mut accepts);
            (row.to_vec(), bits, accepts[0].accepts(bits))
        })
        .collect()
}

fn samples(v: &Variant, seed: u64, n: usize) -> Vec<u64> {
    let mut s = Samples::new(spec(), v, seed);
    let mut inputs = vec![0; n * v.sources.len()];
    for row in inputs.chunks_exact_mut(v.sources.len()) {
        s.fill(row);
    }
    inputs
}

/// The rows of `v`'s boundary samples the spec rejects.
fn rejected(v: &Variant, seed: u64, n: usize) -> Vec<(Vec<u64>, u64)> {
    run(v, &samples(v, seed, n))
        .into_iter()
        .filter(|r| !r.2)
        .map(|(row, bits, _)| (row, bits))
        .collect()
}

/// The simulator's result for one row, and whether the spec accepts it.
fn one(text: &str, row: &[u64]) -> (u64, bool) {
    let r = run(variant(text), row);
    (r[0].1, r[0].2)
}

/// The one value the spec gives `text` on `row`, or `None` when it is any NaN.
fn spec_value(text: &str, row: &[u64]) -> Option<u64> {
    let v = variant(text);
    let mut eval = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); eval.n_parts()];
    eval.eval(row, &mut accepts);
    match accepts[0] {
        Accept::Exact(bits) => Some(bits),
        Accept::AnyNan(_) => None,
        ref other => panic!("{text} {row:x?}: {other:?}"),
    }
}

fn is_nan(ty: &str, bits: u64) -> bool {
    let (exp, frac) = match ty {
        "f16" => (0x7c00, 0x3ff),
        "f32" => (0x7f80_0000, 0x7f_ffff),
        _ => (0x7ff0_0000_0000_0000, 0xf_ffff_ffff_ffff),
    };
    bits & exp == exp && bits & frac != 0
}

#[test]
fn plain_arithmetic_agrees_with_the_spec() {
    for text in [
        "add.f32",
        "sub.f32",
        "mul.f32",
        "div.rn.f32",
        "neg.f32",
        "abs.f32",
        "add.f64",
        "div.rn.f64",
        "add.f16",
        "mul.f16",
        "neg.f16",
        "abs.f16",
    ] {
        let v = variant(text);
        let bad = rejected(v, 11, 300);
        assert!(
            bad.is_empty(),
            "{text}: {} rejected, e.g. {:x?}",
            bad.len(),
            bad[0]
        );
    }
}

/// `cuda.fma` and `cuda.fp16.hfma` compute `a * b + c` on numpy scalars: the product is
/// rounded before the sum. The spec (fma.rn: "computes the product of a and b to infinite
/// precision and then adds c", rounded once) is right; the simulator is at fault.
#[test]
fn fma_rounds_twice_in_the_simulator() {
    // (1 + u)² - (1 + 2u) = u²: the rounded product loses it.
    for (text, row, spec) in [
        (
            "fma.rn.f32",
            [0x3f80_0001, 0x3f80_0001, 0xbf80_0002],
            0x2880_0000,
        ),
        (
            "fma.rn.f64",
            [
                0x3ff0_0000_0000_0001,
                0x3ff0_0000_0000_0001,
                0xbff0_0000_0000_0002,
            ],
            0x3970_0000_0000_0000,
        ),
        ("fma.rn.f16", [0x3c01, 0x3c01, 0xbc02], 0x0010),
        // The product overflows on its own; the fused result is the largest finite value.
        (
            "fma.rn.f32",
            [0x7f7f_ffff, 0x4000_0000, 0xff7f_ffff],
            0x7f7f_ffff,
        ),
        ("fma.rn.f16", [0x7bff, 0x4000, 0xfbff], 0x7bff),
    ] {
        assert_eq!(spec_value(text, &row), Some(spec), "{text} {row:x?}");
        let (got, accepted) = one(text, &row);
        assert!(!accepted, "{text} {row:x?}: the simulator gave {got:#x}");
    }
    // Boundary samples find it on their own, and every rejected result is the unfused one:
    // round(round(a * b) + c), as the spec computes it with mul.rn and add.rn.
    for ty in ["f16", "f32", "f64"] {
        let bad = rejected(variant(&format!("fma.rn.{ty}")), 5, 1000);
        assert!(
            !bad.is_empty(),
            "fma.rn.{ty}: the samples no longer find the double rounding"
        );
        for (row, got) in bad {
            let product = spec_value(&format!("mul.rn.{ty}"), &row[..2]);
            let unfused = product.and_then(|p| spec_value(&format!("add.rn.{ty}"), &[p, row[2]]));
            match unfused {
                Some(bits) => assert_eq!(got, bits, "fma.rn.{ty} {row:x?}"),
                None => assert!(is_nan(ty, got), "fma.rn.{ty} {row:x?}: {got:#x}"),
            }
        }
    }
}

/// numba-cuda's simulator implements `cuda.fp16.hfloor` as `np.ceil` (simulator/kernelapi.py
/// of numba-cuda 0.30.4), so it rounds up: hfloor(1.5) is 2.0. The CUDA Math API says "hfloor:
/// calculate the largest integer less than or equal to h", which is `cvt.rmi.f16.f16`, and on
/// a GPU numba links cuda_fp16.hpp's hfloor, that instruction. `hceil`, `htrunc` and `hrint`
/// agree with their conversions on every sample. Found by `semfuzz fuzz --backend numba-sim
/// --instr 'cvt.r?i.f16.f16'` once the mapping existed (issue 30 item 5).
#[test]
fn hfloor_rounds_up_in_the_simulator() {
    assert_eq!(spec_value("cvt.rmi.f16.f16", &[0x3e00]), Some(0x3c00)); // floor(1.5) = 1
    assert_eq!(one("cvt.rmi.f16.f16", &[0x3e00]), (0x4000, false)); // the simulator: 2
    assert_eq!(one("cvt.rmi.f16.f16", &[0xbe00]), (0xbc00, false)); // floor(-1.5) = -2, not -1
    assert_eq!(one("cvt.rmi.f16.f16", &[0x4000]), (0x4000, true)); // integers are themselves
    let bad = rejected(variant("cvt.rmi.f16.f16"), 3, 1000);
    assert!(
        !bad.is_empty(),
        "cvt.rmi.f16.f16: the samples no longer find it"
    );
    for (row, got) in bad {
        assert_eq!(
            Some(got),
            spec_value("cvt.rpi.f16.f16", &row),
            "cvt.rmi.f16.f16 {row:x?}: the simulator's result is the ceiling"
        );
    }
    for text in ["cvt.rpi.f16.f16", "cvt.rzi.f16.f16", "cvt.rni.f16.f16"] {
        let bad = rejected(variant(text), 3, 1000);
        assert!(
            bad.is_empty(),
            "{text}: {} rejected, e.g. {:x?}",
            bad.len(),
            bad[0]
        );
    }
}

/// numpy's `abs` clears the sign of a NaN; PTX says "For abs.f64, NaN input is passed through
/// unchanged" (9.7.3.9). On a GPU numba's `abs(float64)` is llvm.fabs, i.e. abs.f64. The
/// simulator differs from the manual (which adds that "future implementations may comply with
/// the IEEE 754 standard by preserving payload and modifying only the sign bit"): a wrong NaN
/// pattern, the simulator's fault unless a GPU shows abs.f64 clearing the sign.
#[test]
fn abs_f64_clears_the_sign_of_nan() {
    let row = [0xfff8_0000_0000_0001];
    assert_eq!(spec_value("abs.f64", &row), Some(row[0]));
    assert_eq!(one("abs.f64", &row), (0x7ff8_0000_0000_0001, false));
    let bad = rejected(variant("abs.f64"), 5, 500);
    assert!(!bad.is_empty(), "abs.f64: the samples no longer find it");
    for (row, got) in bad {
        assert!(
            is_nan("f64", row[0]) && got == row[0] & !(1 << 63),
            "{row:x?}: {got:#x}"
        );
    }
}

#[test]
fn identity_and_supported_variants() {
    let b = backend();
    let id = b.identity();
    assert_eq!(id.name, "numba-sim");
    assert!(
        id.version.starts_with("numba-cuda 0.30.4 (numba "),
        "{}",
        id.version
    );
    assert_eq!(id.device, "CUDA simulator (numpy)");
    // A plain `a + b` is add.f32 (no rounding modifier); add.rn.f32 is not claimed, nor are
    // hmax/hmin, which numba compiles to a compare and a select.
    assert_eq!(b.supports(variant("add.f32")), Support::Yes);
    for text in ["add.rn.f32", "max.f16", "min.f16", "max.f32", "add.f16x2"] {
        if let Ok(v) = spec().lookup(text, None) {
            assert!(matches!(b.supports(v), Support::No(_)), "{text}");
        }
    }
    drop(b);
    let e = semfuzz_numba_sim::probe(Some("x")).unwrap_err();
    assert!(e.contains("numba-sim takes no argument"), "{e}");
}

/// The PTX numba compiles each mapped operation to (libNVVM, for sm_80; no GPU needed) holds
/// exactly the variant it is mapped to, and no other floating-point instruction.
#[test]
fn each_mapped_operation_compiles_to_its_variant() {
    let modules = semfuzz_numba_sim::compiled().expect("numba's compiler runs in CI");
    assert!(modules.len() >= 20, "{:?}", modules.keys());
    for (variant, ptx) in &modules {
        assert!(
            spec().lookup(variant, None).is_ok(),
            "{variant} is a spec variant"
        );
        let f = semfuzz_ptx::load(spec(), "numba.ptx", ptx, None)
            .unwrap_or_else(|e| panic!("{variant}: numba's PTX reads:\n{e}\n{ptx}"));
        let computing: Vec<&str> = ptx
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with(['.', '/', '{', '}', ')']))
            .filter_map(|l| l.split_whitespace().next())
            // Floating-point instructions; parameter moves and the widening of an f16 return
            // (`cvt.u32.u16`) carry bits only.
            .filter(|op| {
                !op.starts_with("ld.param")
                    && !op.starts_with("st.param")
                    && op.split('.').any(|t| matches!(t, "f16" | "f32" | "f64"))
            })
            .collect();
        assert_eq!(computing, [variant.as_str()], "{variant}:\n{ptx}");
        assert_eq!(f.results.len(), 1, "{variant}");
    }
}

/// A finding of the simulator's double rounding in `cuda.fma` is the simulator's alone: the
/// PTX numba compiles `cuda.fma` to (`fma.rn.f32`) does not allow the unfused result; and the
/// reading needs a result the compiled code does allow to say `numba-too`.
#[test]
fn findings_say_whether_compiled_numba_computes_them_too() {
    let modules = semfuzz_numba_sim::compiled().expect("numba's compiler runs in CI");
    let row = [0x3f80_0001, 0x3f80_0001, 0xbf80_0002];
    let (got, accepted) = one("fma.rn.f32", &row);
    assert!(!accepted);
    let compiled = semfuzz_numba_sim::compiled_allows(spec(), &modules["fma.rn.f32"], &row)
        .expect("numba's fma reads and evaluates");
    assert!(
        !compiled.accepts(got),
        "the GPU's numba fuses: {got:#x} is the simulator's"
    );
    assert!(compiled.accepts(0x2880_0000), "{compiled:?}");
    let mut b = backend();
    let v = variant("fma.rn.f32");
    assert_eq!(b.triage(spec(), v, &row, got), Some("sim-only"));
    assert_eq!(b.triage(spec(), v, &row, 0x2880_0000), Some("numba-too"));
}
