//! The host backend against the evaluator: on the fuzzer's boundary-heavy
//! inputs, every result the host gives is accepted by the spec except for
//! the differences a CPU fallback without fix-ups is known to have; each such
//! difference must fall in one named class, and every expected class must
//! show up (so a test fails when the mapping changes either way). Does
//! nothing, with a note, on hosts without the instructions.

use std::collections::BTreeSet;

use semfuzz_backend::{Backend, Support, Verdict};
use semfuzz_host::{Mode, Round};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;

/// Cases per variant: enough for the rare classes (FTZ tininess shows up
/// about once in 10,000 `mul.rn.ftz.f32` cases).
const CASES: usize = 100_000;

/// One destination lane on which the host and the spec disagree.
struct Lane<'a> {
    /// The case's inputs (whole registers).
    row: &'a [u64],
    /// The lane's index and width.
    index: u32,
    width: u32,
    /// The host's bits for the lane.
    got: u64,
    /// What the spec accepts there.
    accept: Accept,
}

impl Lane<'_> {
    /// Lane `self.index` of input `k`.
    fn input(&self, k: usize) -> u64 {
        (self.row[k] >> (self.index * self.width)) & (u64::MAX >> (64 - self.width))
    }

    /// The exact bits the spec requires, if it requires one value.
    fn exact(&self) -> Option<u64> {
        match self.accept {
            Accept::Exact(bits) => Some(bits),
            _ => None,
        }
    }
}

/// Whether this CPU has the instruction the backend narrows bf16 results with
/// (`vcvtneps2bf16`): asked here of the CPU, independently of the backend's own detection.
fn cpu_narrows_bf16() -> bool {
    std::arch::is_x86_feature_detected!("avx512bf16")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

fn host() -> Option<Box<dyn Backend>> {
    match semfuzz_host::open(None) {
        Ok(host) => Some(host),
        Err(e) => {
            eprintln!("note: {e}; nothing to check");
            None
        }
    }
}

/// Runs `CASES` cases of `text` (with `n_sources` operands) on the host and
/// returns the classes of the lanes where it differs from the spec; panics
/// on a lane that `classify` does not explain.
fn classes_of_differences(
    host: &mut dyn Backend,
    text: &str,
    n_sources: usize,
    classify: impl Fn(&Lane) -> Option<&'static str>,
) -> BTreeSet<&'static str> {
    let spec = Spec::embedded().expect("embedded spec");
    let v = spec.lookup(text, Some(n_sources)).expect("variant");
    assert_eq!(host.supports(v), Support::Yes, "{text}");
    let mut inputs = vec![0; CASES * n_sources];
    let mut samples = Samples::new(&spec, v, 0x5EED);
    inputs
        .chunks_exact_mut(n_sources)
        .for_each(|row| samples.fill(row));
    let mut out = vec![Verdict::NoVerdict; CASES];
    for (rows, verdicts) in inputs
        .chunks(host.batch_size() * n_sources)
        .zip(out.chunks_mut(host.batch_size()))
    {
        host.run(v, rows, verdicts).expect("batch runs");
    }
    let mut eval = Evaluator::new(&v.program);
    let mut accepts = vec![Accept::default(); eval.n_parts()];
    let parts = &v.program.dests[0].parts;
    let mut seen = BTreeSet::new();
    for (row, verdict) in inputs.chunks_exact(n_sources).zip(&out) {
        let Verdict::Bits(bits) = *verdict else {
            panic!("{text} {row:x?}: {verdict:?}")
        };
        eval.eval(row, &mut accepts);
        for (i, (part, accept)) in parts.iter().zip(&accepts).enumerate() {
            let got = (bits >> part.lo) & (u64::MAX >> (64 - part.width));
            if accept.accepts(got) {
                continue;
            }
            let lane = Lane {
                row,
                index: i as u32,
                width: part.width,
                got,
                accept: *accept,
            };
            match classify(&lane) {
                Some(class) => seen.insert(class),
                None => panic!(
                    "{text} {row:x?}: lane {i} is {got:#x}, the spec accepts {accept:?}; \
                     no expected class explains it"
                ),
            };
        }
    }
    seen
}

fn none(_: &Lane) -> Option<&'static str> {
    None
}

/// Asserts that `text` differs from the spec in exactly the classes `expected`, and that the
/// crate's list of known differences (which `eval_vs_host` fuzzes outside of) says so too.
fn check(
    text: &str,
    n_sources: usize,
    expected: &[&str],
    classify: fn(&Lane) -> Option<&'static str>,
) {
    let spec = Spec::embedded().expect("embedded spec");
    let v = spec.lookup(text, Some(n_sources)).expect("variant");
    assert_eq!(
        semfuzz_host::known_difference(v).is_some(),
        !expected.is_empty(),
        "{text}: semfuzz_host::known_difference disagrees with the differences this test finds"
    );
    let Some(mut host) = host() else { return };
    if text.contains("bf16") && !cpu_narrows_bf16() {
        // The backend refuses the variant on such a CPU (checked in `unmapped_variants_say_why`).
        eprintln!("note: this CPU lacks AVX512-BF16; {text} not checked");
        return;
    }
    let seen = classes_of_differences(host.as_mut(), text, n_sources, classify);
    let expected: BTreeSet<&str> = expected.iter().copied().collect();
    assert_eq!(seen, expected, "{text}: classes of differences");
}

const F32_SIGN: u64 = 0x8000_0000;

fn f32_is_nan(x: u64) -> bool {
    x & 0x7FFF_FFFF > 0x7F80_0000
}

fn is_subnormal16(x: u64) -> bool {
    x & 0x7C00 == 0 && x & 0x3FF != 0
}

#[test]
fn correctly_rounded_arithmetic_agrees_with_the_spec() {
    check("add.rn.f32", 2, &[], none);
    check("fma.rz.f64", 3, &[], none);
    check("sqrt.rn.f32", 1, &[], none);
    // Binary32 has more than 2 * 11 + 2 bits, so rounding a product of two
    // halves to binary32 and then to binary16 equals rounding once.
    check("mul.rn.f16x2", 2, &[], none);
}

/// docs/ambiguities.md item 7: x86 FTZ, like the H200, flushes a result that is tiny after
/// rounding with an unbounded exponent, and so does the spec: binary32 `.ftz` arithmetic
/// agrees with it in every rounding mode, also where the rounded result is ±2^-126.
#[test]
fn x86_flushes_results_tiny_after_rounding_as_ptx_does() {
    check("mul.rn.ftz.f32", 2, &[], none);
    check("mul.rp.ftz.f32", 2, &[], none);
    check("fma.rn.ftz.f32", 3, &[], none);
    check("div.rm.ftz.f32", 2, &[], none);
}

/// `minss a, b` returns b when either operand is NaN: right when a is the
/// NaN (PTX min returns the other operand), wrong when b is. It also returns
/// b for two zeros, where PTX orders -0.0 below +0.0.
#[test]
fn minss_returns_its_second_operand_for_nans_and_zeros() {
    check("min.f32", 2, &["b NaN", "zeros unordered"], |l| {
        let (a, b) = (l.input(0), l.input(1));
        if f32_is_nan(b) && !f32_is_nan(a) && l.got == b && l.exact()? == a {
            return Some("b NaN");
        }
        let zeros = (a | b) & !F32_SIGN == 0;
        (zeros && l.got == b && l.exact()? == F32_SIGN).then_some("zeros unordered")
    });
}

/// `vcvtneps2bf16` flushes a subnormal binary32 result to zero; PTX bf16
/// arithmetic keeps bf16 subnormals.
#[test]
fn vcvtneps2bf16_flushes_subnormal_results() {
    check("add.rn.bf16", 2, &["bf16 result flushed"], |l| {
        let want = l.exact()?;
        (is_subnormal16(want) && l.got == want & 0x8000).then_some("bf16 result flushed")
    });
}

/// `.ftz` as MXCSR FTZ/DAZ on the binary32 computation cannot flush
/// binary16 subnormals, which are normal binary32 numbers.
#[test]
fn f16_ftz_through_binary32_does_not_flush() {
    check("mul.rn.ftz.f16x2", 2, &["f16 subnormal kept"], |l| {
        // A result that rounds up to 2^-14 from below is tiny after rounding: the spec
        // flushes it too.
        let tiny = l.got & 0x7FFF == 0x0400 && l.exact() == Some(l.got & 0x8000);
        let subnormal = [l.input(0), l.input(1), l.got]
            .into_iter()
            .any(is_subnormal16);
        (subnormal || tiny).then_some("f16 subnormal kept")
    });
}

/// fma of halves in binary32 rounds twice: the binary32 sum can land exactly
/// on a binary16 tie, which then rounds to even instead of toward the exact
/// value.
fn double_rounding(l: &Lane) -> Option<&'static str> {
    let [a, b, c] = [0, 1, 2].map(|k| semfuzz_host::f16_to_f32(l.input(k) as u16).unwrap_or(0));
    let once = semfuzz_host::f32_fma(a, b, c, Mode::ieee(Round::NearestEven))?;
    // A binary16-normal result: the binary32 value has 13 extra fraction
    // bits, and a tie has exactly the top one set.
    let tie = once & 0x1FFF == 0x1000;
    (tie && l.got.abs_diff(l.exact()?) == 1).then_some("double rounding")
}

#[test]
fn f16_fma_through_binary32_rounds_twice() {
    check("fma.rn.f16", 3, &["double rounding"], double_rounding);
}

/// `.relu` as `maxss x, +0.0` turns a NaN into +0.0; PTX gives the
/// canonical NaN.
#[test]
fn relu_as_maxss_loses_nans() {
    check(
        "fma.rn.relu.f16",
        3,
        &["NaN to +0", "double rounding"],
        |l| {
            if l.got == 0 && l.exact()? == 0x7FFF {
                return Some("NaN to +0");
            }
            double_rounding(l)
        },
    );
}

/// abs.f64 passes a NaN through unchanged (a signaling one possibly quieted, docs/ambiguities.md
/// 121); clearing the sign bit does not.
#[test]
fn abs_f64_clears_the_sign_of_nans() {
    check("abs.f64", 1, &["NaN sign cleared"], |l| {
        let a = l.input(0);
        let nan = a & !(1 << 63) > 0x7FF0_0000_0000_0000;
        (nan && l.got == a & !(1 << 63) && l.accept.accepts(a)).then_some("NaN sign cleared")
    });
}

/// div.approx computes a * (1/b) with 1/b flushed to zero for 2^126 < |b| <
/// 2^128 (a zero quotient, or NaN for an infinite a); `divss` divides.
#[test]
fn div_approx_as_divss_misses_the_large_divisor_rule() {
    check("div.approx.f32", 2, &["large divisor"], |l| {
        let b = l.input(1) & !F32_SIGN;
        (0x7E80_0001..0x7F80_0000)
            .contains(&b)
            .then_some("large divisor")
    });
}

#[test]
fn unmapped_variants_say_why() {
    let Some(host) = host() else { return };
    let spec = Spec::embedded().expect("embedded spec");
    for text in [
        "testp.finite.f32",
        "ex2.approx.f32",
        "rcp.approx.ftz.f64",
        "fma.rn.oob.f16",
        // Conversions the batch path has no instructions for.
        "cvt.rn.f32.f64",
        "cvt.f64.f32",
        "cvt.rn.f16.bf16",
        "cvt.rzi.s32.f32",
        "cvt.rn.f32.s32",
        "cvt.u32.u16",
    ] {
        let v = spec.lookup(text, None).expect("variant");
        assert!(
            matches!(host.supports(v), Support::No(why) if !why.is_empty()),
            "{text}"
        );
    }
    for text in [
        "add.rn.f32x2",
        "min.NaN.xorsign.abs.bf16x2",
        "copysign.f64",
        "mad.rm.f32",
    ] {
        let v = spec.lookup(text, None).expect("variant");
        match host.supports(v) {
            Support::No(why) if text.contains("bf16") && !cpu_narrows_bf16() => {
                assert!(why.contains("AVX512-BF16"), "{text}: {why}")
            }
            other => assert_eq!(other, Support::Yes, "{text}"),
        }
    }
    assert!(semfuzz_host::probe(Some("x")).is_err());
    assert_eq!(semfuzz_host::probe(None).expect("probe").name, "host");
}

#[test]
fn a_batch_of_the_wrong_shape_is_an_error() {
    let Some(mut host) = host() else { return };
    let spec = Spec::embedded().expect("embedded spec");
    let v = spec.lookup("add.rn.f32", None).expect("variant");
    let mut out = [Verdict::NoVerdict; 2];
    assert!(host.run(v, &[1, 2, 3], &mut out).is_err());
    // f32x2, lanes packed from bit 0: (1 + 2, 0.5 + 0.25).
    let v = spec.lookup("add.rn.f32x2", None).expect("variant");
    let pack = |lo: f32, hi: f32| u64::from(lo.to_bits()) | u64::from(hi.to_bits()) << 32;
    host.run(v, &[pack(1.0, 0.5), pack(2.0, 0.25)], &mut out[..1])
        .expect("runs");
    assert_eq!(out[0], Verdict::Bits(pack(3.0, 0.75)));
}

/// `cvt` (9.7.9.21) between binary32 and binary16 is one `vcvtps2ph` (rounding
/// from MXCSR) or `vcvtph2ps`: in every rounding, with `.ftz` (MXCSR DAZ on
/// the binary32 input) and `.sat`, exactly what the spec says.
#[test]
fn f16_conversions_agree_with_the_spec_in_every_rounding() {
    for text in [
        "cvt.rn.f16.f32",
        "cvt.rz.f16.f32",
        "cvt.rm.f16.f32",
        "cvt.rp.ftz.sat.f16.f32",
        "cvt.rz.f16x2.f32",
        "cvt.ftz.sat.f32.f16",
    ] {
        let n = if text.contains("x2") { 2 } else { 1 };
        check(text, n, &[], none);
    }
}

/// `cvt.rn.relu` as `maxps x, +0.0` then a conversion turns a NaN into +0.0
/// (PTX: the canonical NaN); to bf16, `vcvtneps2bf16` also reads binary32
/// subnormals as zero and flushes subnormal results; from bf16, a 16-bit
/// shift widens, so `.ftz` flushes nothing.
#[test]
fn conversions_without_fix_ups_differ_where_the_mapping_says() {
    check("cvt.rn.relu.f16.f32", 1, &["NaN to +0"], |l| {
        (l.got == 0 && l.exact()? == 0x7FFF).then_some("NaN to +0")
    });
    check("cvt.rn.bf16.f32", 1, &["subnormal flushed"], |l| {
        let want = l.exact()?;
        let subnormal_in = l.input(0) & 0x7F80_0000 == 0;
        let subnormal_out = want & 0x7F80 == 0 && want & 0x7F != 0;
        ((subnormal_in || subnormal_out) && l.got == want & 0x8000).then_some("subnormal flushed")
    });
    check("cvt.ftz.f32.bf16", 1, &["f32 subnormal kept"], |l| {
        (l.exact()? & 0x7FFF_FFFF == 0 && l.got & 0x7F80_0000 == 0 && l.got & 0x7F_FFFF != 0)
            .then_some("f32 subnormal kept")
    });
}
