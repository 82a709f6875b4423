//! The H200 campaign's findings other than flush-to-zero (docs/gpu.md), pinned as the
//! `semfuzz check` lines the GPU wrote (`INSTR OPERAND... RESULT`): each class's reading of the
//! manual (docs/ambiguities.md 120-123), and the one place where the GPU exceeds the manual's
//! bound and the spec keeps the bound (tanh.approx.bf16).

mod common;
use common::spec;
use semfuzz_jit::Evaluator;
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::Accept;

/// Whether the spec allows the result of one `semfuzz check` line, part by part.
fn allows(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let hex = |w: &str| u64::from_str_radix(w.trim_start_matches("0x"), 16).expect("hex");
    let (instr, result) = (words[0], hex(words[words.len() - 1]));
    let inputs: Vec<u64> = words[1..words.len() - 1].iter().map(|w| hex(w)).collect();
    let v = spec()
        .lookup(instr, Some(inputs.len()))
        .unwrap_or_else(|d| panic!("{line}: {d}"));
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut out);
    let dest = &v.program.dests[0];
    dest.parts
        .iter()
        .zip(&out)
        .all(|(part, a)| a.accepts((result >> part.lo) & mask(part.width)))
}

fn assert_allowed(lines: &[&str]) {
    for line in lines {
        assert!(allows(line), "the spec refuses {line}");
    }
}

fn assert_refused(lines: &[&str]) {
    for line in lines {
        assert!(!allows(line), "the spec allows {line}");
    }
}

// 9.7.1.19/20: b and c (bfi: c and d) "are restricted to the 8-bit value range 0..255"; the
// pseudo-code masks ("pos = b & 0xff"). The H200's 64-bit forms clamp, its 32-bit forms mask:
// the spec allows either reading's result (ambiguity 120), and nothing else.
#[test]
fn bfe_bfi_take_either_reading_of_an_operand_beyond_255() {
    assert_allowed(&[
        // The campaign's findings (64-bit: clamped to 255).
        "bfi.b64 0x0000000000000028 0x0000000000000000 0x00000001 0x80000000 0x0000000000000050",
        "bfe.u64 0x0000000000000001 0x00000000 0x80000000 0x0000000000000001",
        "bfe.s64 0x8000000000000000 0x00000000 0x80000000 0x8000000000000000",
        // The pseudo-code's reading of the same operands (len 0: zero, or b).
        "bfe.u64 0x0000000000000001 0x00000000 0x80000000 0x0000000000000000",
        "bfi.b64 0x0000000000000028 0x0000000000000000 0x00000001 0x80000000 0x0000000000000000",
        // The 32-bit forms on the H200 (len 0x101: 1 masked, 255 clamped).
        "bfe.u32 0x89abcdef 0x00000000 0x00000101 0x00000001",
        "bfe.s32 0x89abcdef 0x00000000 0x00000101 0xffffffff",
        "bfi.b32 0x89abcdef 0x55555555 0x00000001 0x00000101 0x55555557",
    ]);
    assert_refused(&[
        "bfe.u64 0x0000000000000001 0x00000000 0x80000000 0x0000000000000003",
        // In range, the readings agree: one result.
        "bfe.u32 0x89abcdef 0x00000004 0x00000008 0x000000ef",
    ]);
}

// 9.7.3.9: "For abs.f64, NaN input is passed through unchanged" (ambiguity 121: the bits, or
// the NaN quieted as double precision propagates payloads). 9.7.3.10: "NaN inputs yield an
// unspecified NaN".
#[test]
fn abs_f64_passes_a_signaling_nan_through_or_quiets_it() {
    assert_allowed(&[
        "abs.f64 0x7ff4000000000000 0x7ffc000000000000",
        "abs.f64 0x7ff4000000000000 0x7ff4000000000000",
        "abs.f64 0xfff0000000000001 0xfff8000000000001",
        "neg.f64 0x7ff4000000000000 0x7ffc000000000000",
    ]);
    assert_refused(&[
        "abs.f64 0x7ff4000000000000 0x7ff8000000000000",
        "abs.f64 0xfff0000000000001 0x7ff8000000000001",
    ]);
}

// 9.7.4.4: "fma.oob ... clamps the result to 0 if either of the operands is OOB NaN"
// (ambiguities 12, 122): the H200 zeroes for 0x7FF7 of either sign in a or b only.
#[test]
fn fma_oob_zeroes_for_the_oob_nan_in_a_factor() {
    assert_allowed(&[
        // nan-for-number: 0xFFFF is an ordinary NaN.
        "fma.rn.oob.f16 0xffff 0x3ff0 0x0000 0x7fff",
        "fma.rn.oob.bf16 0xffff 0x7e02 0x0000 0x7fff",
        "fma.rn.oob.f16x2 0x0c1f0803 0x0aa2ffff 0xec000000 0xec007fff",
        "fma.rn.oob.bf16x2 0xfe40ffff 0x7fc07eff 0xc09f0000 0x7fff7fff",
        // saturation: .relu's canonical NaN, not +0.
        "fma.rn.oob.relu.f16 0x1c00 0xffff 0x0000 0x7fff",
        "fma.rn.oob.relu.bf16 0xffff 0xbb00 0x0000 0x7fff",
        "fma.rn.oob.relu.f16x2 0x5c00f300 0x43fdffff 0x00000000 0x63fd7fff",
        "fma.rn.oob.relu.bf16x2 0x9dff7f7f 0xffffbb29 0xff800000 0x7fff0000",
        // number-for-nan: 0x7FF7 and 0xFFF7 in a or b.
        "fma.rn.oob.f16 0x7ff7 0x9c00 0x5aaa 0x0000",
        "fma.rn.oob.bf16 0xc2ff 0x7ff7 0x0000 0x0000",
        "fma.rn.oob.relu.bf16 0xfff7 0xd10b 0x1fc0 0x0000",
        "fma.rn.oob.bf16x2 0x2c207ff7 0x7f81bbfe 0xff80fe00 0x7fff0000",
        "fma.rn.oob.relu.f16x2 0xfff88ffe 0xfff77401 0x64026c00 0x00006bfc",
        // In c alone it is a NaN like any other.
        "fma.rn.oob.f16 0x3c00 0x3c00 0x7ff7 0x7fff",
    ]);
    assert_refused(&[
        "fma.rn.oob.f16 0x3c00 0x3c00 0x7ff7 0x0000",
        "fma.rn.oob.f16 0xffff 0x3c00 0x3c00 0x0000",
        "fma.rn.oob.bf16 0x3f80 0xfff7 0x3f80 0x7fff",
    ]);
}

// 9.7.4.9: "The maximum absolute error for .bf16 type is 2-8." The H200 returns tanh.approx.f32
// truncated to bf16 (all 65536 inputs), 2^-8 * 1.0000652 from tanh(0.74609375): the spec keeps
// the manual's bound, and this line stays a finding (docs/gpu.md).
#[test]
fn tanh_bf16_keeps_the_manuals_bound_the_h200_exceeds() {
    assert_refused(&[
        "tanh.approx.bf16 0x3f3f 0x3f21",
        "tanh.approx.bf16 0xbf3f 0xbf21",
        "tanh.approx.bf16x2 0x3f3f0000 0x3f210000",
    ]);
    assert_allowed(&[
        "tanh.approx.bf16 0x3f3f 0x3f22",
        "tanh.approx.bf16 0x3f3f 0x3f23",
        "tanh.approx.bf16x2 0x3f3f0000 0x3f220000",
    ]);
}

// 9.7.9.21 (ambiguity 123): .ftz on cvt.frnd.{f16,bf16}.f32 may or may not flush a subnormal
// .f32 input (the H200 does not for .f16, does for .bf16); to .f64 it flushes.
#[test]
fn cvt_ftz_to_a_half_format_may_keep_a_subnormal_input() {
    assert_allowed(&[
        "cvt.rp.ftz.sat.f16.f32 0x00000001 0x0001",
        "cvt.rp.ftz.f16.f32 0x00000001 0x0001",
        "cvt.rm.ftz.f16.f32 0x80400000 0x8001",
        "cvt.rp.ftz.f16.f32 0x00000001 0x0000",
        "cvt.rm.ftz.bf16.f32 0x80000001 0x8000",
        "cvt.rm.ftz.bf16.f32 0x80000001 0x8001",
        // To .bf16 every rounding tells the readings apart.
        "cvt.rn.ftz.bf16.f32 0x007fffff 0x0000",
        "cvt.rn.ftz.bf16.f32 0x007fffff 0x0080",
    ]);
    assert_refused(&[
        // Without .ftz there is no choice; a normal input has one result.
        "cvt.rp.f16.f32 0x00000001 0x0000",
        "cvt.rp.ftz.f16.f32 0x33000000 0x0000",
        "cvt.ftz.f64.f32 0x00000001 0x36a0000000000000",
    ]);
}
