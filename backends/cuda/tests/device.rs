//! The backend on this machine: without libcuda, `cuda` is cleanly unavailable (no panic, the
//! reason `semfuzz backends` prints); with a GPU, its results agree with the spec's evaluator
//! on a few exactly specified variants, and its refusals say why.

use semfuzz_backend::{Support, Verdict};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;

fn libcuda_present() -> bool {
    // SAFETY: only dlopen()s the library.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

#[test]
fn a_bad_ordinal_is_refused_in_words() {
    let why = semfuzz_cuda::probe(Some("gpu0")).unwrap_err();
    assert!(why.contains("cuda:0"), "{why}");
}

#[test]
fn without_libcuda_cuda_is_unavailable_with_the_reason() {
    if libcuda_present() {
        eprintln!("libcuda is here: the GPU test below runs instead");
        return;
    }
    let reason = "no libcuda.so.1 (no NVIDIA driver on this machine)";
    assert_eq!(semfuzz_cuda::probe(None), Err(reason.to_string()));
    assert_eq!(semfuzz_cuda::probe(Some("1")), Err(reason.to_string()));
    let err = semfuzz_cuda::open(Some("0")).err().unwrap();
    assert_eq!(err.to_string(), format!("cuda:0 is unavailable: {reason}"));
}

/// Cases per variant: more than one block's worth, so the grid-stride loop and the array
/// offsets of every lane are exercised.
const CASES: usize = 100_000;

#[test]
fn on_a_gpu_results_are_what_the_spec_allows() {
    if !libcuda_present() {
        eprintln!("no libcuda: nothing runs on a GPU here");
        return;
    }
    let spec = Spec::embedded().unwrap();
    let mut gpu = semfuzz_cuda::open(None).unwrap();
    eprintln!("{}", gpu.identity());
    let sass = spec
        .variants
        .iter()
        .find(|v| v.text.starts_with("HMUL2"))
        .unwrap();
    assert!(matches!(gpu.supports(sass), Support::No(why) if why.contains("SASS")));
    for text in [
        "add.rn.f32",
        "fma.rz.f64",
        "mul.rn.ftz.f16x2",
        "min.NaN.bf16",
        "testp.subnormal.f64",
        "set.lt.and.f16x2.f16x2",
        "copysign.f32",
    ] {
        let v = spec
            .variants
            .iter()
            .find(|v| v.text == text)
            .unwrap_or_else(|| panic!("{text} is not in the catalogue"));
        if let Support::No(why) = gpu.supports(v) {
            eprintln!("{text}: not on this GPU: {why}");
            continue;
        }
        let width = v.sources.len();
        let mut inputs = vec![0u64; CASES * width];
        let mut samples = Samples::new(&spec, v, 7);
        for row in inputs.chunks_exact_mut(width) {
            samples.fill(row);
        }
        let mut out = vec![Verdict::NoVerdict; CASES];
        gpu.run(v, &inputs, &mut out).unwrap();
        let mut eval = Evaluator::new(&v.program);
        let mut accepts = vec![Accept::Exact(0); eval.n_parts()];
        let dest = &v.program.dests[0];
        let mut bad = Vec::new();
        for (row, verdict) in inputs.chunks_exact(width).zip(&out) {
            let Verdict::Bits(got) = *verdict else {
                panic!("{text}: {verdict:?}");
            };
            eval.eval(row, &mut accepts);
            let ok = dest
                .parts
                .iter()
                .zip(&accepts)
                .all(|(p, a)| a.accepts((got >> p.lo) & mask(p.width)));
            if !ok {
                bad.push(format!("{text} {row:x?} -> {got:#x}"));
            }
        }
        assert!(
            bad.is_empty(),
            "{} rejected, e.g. {:?}",
            bad.len(),
            &bad[..bad.len().min(5)]
        );
    }
}
