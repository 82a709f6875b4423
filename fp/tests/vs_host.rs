//! Differential tests against the host CPU's SSE/AVX instructions (through
//! `semfuzz-host`, under IEEE mode: no FTZ/DAZ) for binary32 and binary64
//! arithmetic and the conversions the host has. Skipped, with a note, on
//! hosts without the instructions.

mod common;

use common::{differential, CASES, MODES};
use semfuzz_fp::{Format, Round};
use semfuzz_host::{self as host, Mode, Op2};

/// Is the host usable? Prints why the test does nothing if not.
fn host_available() -> bool {
    let ok = host::available();
    if !ok {
        eprintln!("note: host lacks x86-64 SSE2/FMA/F16C; skipping host differential test");
    }
    ok
}

const EXPECT: &str = "host supports every directed and nearest-even mode";

type Ours2 = fn(Format, u64, u64, Round) -> u64;

const OPS2: [(Op2, &str, Ours2); 4] = [
    (Op2::Add, "add", semfuzz_fp::add),
    (Op2::Sub, "sub", semfuzz_fp::sub),
    (Op2::Mul, "mul", semfuzz_fp::mul),
    (Op2::Div, "div", semfuzz_fp::div),
];

#[test]
fn f32_arithmetic_matches_host() {
    if !host_available() {
        return;
    }
    for (op, name, ours) in OPS2 {
        for rm in MODES {
            let f = Format::F32;
            differential(
                CASES,
                name,
                f,
                f,
                rm,
                |[a, b]| ours(f, a, b, rm),
                |[a, b]| {
                    host::f32_op2(op, a as u32, b as u32, Mode::ieee(rm)).expect(EXPECT) as u64
                },
            );
        }
    }
}

#[test]
fn f64_arithmetic_matches_host() {
    if !host_available() {
        return;
    }
    for (op, name, ours) in OPS2 {
        for rm in MODES {
            let f = Format::F64;
            differential(
                CASES,
                name,
                f,
                f,
                rm,
                |[a, b]| ours(f, a, b, rm),
                |[a, b]| host::f64_op2(op, a, b, Mode::ieee(rm)).expect(EXPECT),
            );
        }
    }
}

#[test]
fn fma_matches_host() {
    if !host_available() {
        return;
    }
    for rm in MODES {
        let f = Format::F32;
        differential(
            CASES,
            "fma",
            f,
            f,
            rm,
            |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
            |[a, b, c]| {
                host::f32_fma(a as u32, b as u32, c as u32, Mode::ieee(rm)).expect(EXPECT) as u64
            },
        );
        let f = Format::F64;
        differential(
            CASES,
            "fma",
            f,
            f,
            rm,
            |[a, b, c]| semfuzz_fp::fma(f, a, b, c, rm),
            |[a, b, c]| host::f64_fma(a, b, c, Mode::ieee(rm)).expect(EXPECT),
        );
    }
}

#[test]
fn sqrt_matches_host() {
    if !host_available() {
        return;
    }
    for rm in MODES {
        let f = Format::F32;
        differential(
            CASES,
            "sqrt",
            f,
            f,
            rm,
            |[a]| semfuzz_fp::sqrt(f, a, rm),
            |[a]| host::f32_sqrt(a as u32, Mode::ieee(rm)).expect(EXPECT) as u64,
        );
        let f = Format::F64;
        differential(
            CASES,
            "sqrt",
            f,
            f,
            rm,
            |[a]| semfuzz_fp::sqrt(f, a, rm),
            |[a]| host::f64_sqrt(a, Mode::ieee(rm)).expect(EXPECT),
        );
    }
}

#[test]
fn conversions_match_host() {
    if !host_available() {
        return;
    }
    for rm in MODES {
        differential(
            CASES,
            "convert",
            Format::F32,
            Format::F16,
            rm,
            |[a]| semfuzz_fp::convert(Format::F32, Format::F16, a, rm),
            |[a]| host::f32_to_f16(a as u32, rm).expect(EXPECT) as u64,
        );
        differential(
            CASES,
            "convert",
            Format::F64,
            Format::F32,
            rm,
            |[a]| semfuzz_fp::convert(Format::F64, Format::F32, a, rm),
            |[a]| host::f64_to_f32(a, Mode::ieee(rm)).expect(EXPECT) as u64,
        );
    }
    // Widening is exact, so the rounding mode is irrelevant.
    let rm = Round::NearestEven;
    differential(
        CASES,
        "convert",
        Format::F16,
        Format::F32,
        rm,
        |[a]| semfuzz_fp::convert(Format::F16, Format::F32, a, rm),
        |[a]| host::f16_to_f32(a as u16).expect(EXPECT) as u64,
    );
}

/// `fmod` against Rust's `%` on floats (C's `fmod`, exact: IEEE 754's remainder with the
/// quotient truncated), on boundary-heavy binary32, binary64 and
/// binary16 pairs (each exact in binary32, whose remainder is then the binary16 one).
#[test]
fn fmod_matches_rust_remainder() {
    let rm = Round::NearestEven;
    let f = Format::F32;
    differential(
        CASES,
        "fmod",
        f,
        f,
        rm,
        |[a, b]| semfuzz_fp::fmod(f, a, b),
        |[a, b]| u64::from((f32::from_bits(a as u32) % f32::from_bits(b as u32)).to_bits()),
    );
    let f = Format::F64;
    differential(
        CASES,
        "fmod",
        f,
        f,
        rm,
        |[a, b]| semfuzz_fp::fmod(f, a, b),
        |[a, b]| (f64::from_bits(a) % f64::from_bits(b)).to_bits(),
    );
    let h = Format::F16;
    let wide = |x: u64| f32::from_bits(semfuzz_fp::convert(h, Format::F32, x, rm) as u32);
    differential(
        CASES,
        "fmod",
        h,
        h,
        rm,
        |[a, b]| semfuzz_fp::fmod(h, a, b),
        |[a, b]| {
            let r = wide(a) % wide(b);
            semfuzz_fp::convert(Format::F32, h, u64::from(r.to_bits()), rm)
        },
    );
}
