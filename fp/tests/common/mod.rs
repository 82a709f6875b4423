//! The differential-testing harness shared by the test files: run an
//! operation of `semfuzz-fp` and a reference implementation on the same
//! boundary-heavy inputs and report every disagreement.

// Each test file uses the part of the harness it needs.
#![allow(dead_code)]

use semfuzz_fp::vectors::BoundaryGen;
use semfuzz_fp::{Format, Round};

/// Cases per (operation, format, rounding mode).
pub const CASES: usize = 1_000_000;

/// The rounding directions that every reference supports.
pub const MODES: [Round; 4] = [
    Round::NearestEven,
    Round::TowardZero,
    Round::Down,
    Round::Up,
];

/// The formats that every soft-float reference supports.
pub const FORMATS: [Format; 4] = [Format::F16, Format::BF16, Format::F32, Format::F64];

/// A short name for a format in failure messages.
pub fn format_name(f: Format) -> String {
    match f {
        Format::F16 => "f16".into(),
        Format::BF16 => "bf16".into(),
        Format::F32 => "f32".into(),
        Format::F64 => "f64".into(),
        _ => format!("e{}p{}", f.exp_bits(), f.precision()),
    }
}

/// A short name for a rounding mode in failure messages.
pub fn mode_name(rm: Round) -> &'static str {
    match rm {
        Round::NearestEven => "rne",
        Round::TowardZero => "rz",
        Round::Down => "rm",
        Round::Up => "rp",
        Round::NearestAway => "rna",
    }
}

/// Do two results agree? NaNs agree with any NaN, since the implementations
/// pick different NaN payloads; everything else must match bit for bit.
pub fn agree(f: Format, ours: u64, theirs: u64) -> bool {
    (f.is_nan(ours) && f.is_nan(theirs)) || ours == theirs
}

/// Collects disagreements, printing the first few in full.
pub struct Report {
    label: String,
    cases: usize,
    mismatches: usize,
}

impl Report {
    /// An empty report for the operation described by `label`.
    pub fn new(label: String) -> Report {
        Report {
            label,
            cases: 0,
            mismatches: 0,
        }
    }

    /// Records one case, printing it if the results disagree.
    pub fn check(&mut self, out: Format, inputs: &[u64], ours: u64, theirs: u64) {
        self.cases += 1;
        if !agree(out, ours, theirs) {
            self.mismatches += 1;
            if self.mismatches <= 10 {
                let inputs: Vec<String> = inputs.iter().map(|x| format!("{x:#x}")).collect();
                eprintln!(
                    "MISMATCH {}: inputs [{}]: ours {ours:#x}, reference {theirs:#x}",
                    self.label,
                    inputs.join(", ")
                );
            }
        }
    }

    /// Panics if any case disagreed.
    pub fn finish(self) {
        assert_eq!(
            self.mismatches, 0,
            "{}: {} of {} cases disagree with the reference",
            self.label, self.mismatches, self.cases
        );
    }
}

/// A seed derived from a label (FNV-1a), so every operation, format and mode
/// gets its own reproducible input stream.
pub fn seed(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The failure-message label of an operation.
fn label(op: &str, input: Format, output: Format, rm: Round) -> String {
    if input == output {
        format!("{op} {} {}", format_name(input), mode_name(rm))
    } else {
        format!(
            "{op} {}->{} {}",
            format_name(input),
            format_name(output),
            mode_name(rm)
        )
    }
}

/// Runs `cases` cases of an `N`-operand operation: operands come from one
/// [`BoundaryGen`] of format `input` in sequence (so consecutive operands
/// are often near each other), results are compared in format `output`.
pub fn differential<const N: usize>(
    cases: usize,
    op: &str,
    input: Format,
    output: Format,
    rm: Round,
    ours: impl Fn([u64; N]) -> u64,
    theirs: impl Fn([u64; N]) -> u64,
) {
    let label = label(op, input, output, rm);
    let mut gen = BoundaryGen::new(input, seed(&label));
    let mut report = Report::new(label);
    for _ in 0..cases {
        let args: [u64; N] = core::array::from_fn(|_| gen.next().unwrap_or_default());
        report.check(output, &args, ours(args), theirs(args));
    }
    report.finish();
}

/// Runs an `N`-operand operation on every `N`-tuple of encodings of the
/// (small) format `input`, comparing results in format `output`.
pub fn exhaustive<const N: usize>(
    op: &str,
    input: Format,
    output: Format,
    rm: Round,
    ours: impl Fn([u64; N]) -> u64,
    theirs: impl Fn([u64; N]) -> u64,
) {
    let width = input.width();
    assert!(
        width * N as u32 <= 24,
        "exhaustive {op}: too many cases for {}",
        format_name(input)
    );
    let mut report = Report::new(format!("{} (exhaustive)", label(op, input, output, rm)));
    for i in 0..1u64 << (width * N as u32) {
        let args: [u64; N] = core::array::from_fn(|k| (i >> (k as u32 * width)) & input.mask());
        report.check(output, &args, ours(args), theirs(args));
    }
    report.finish();
}
