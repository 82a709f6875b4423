//! Proved facts the encoder uses as rewrite steps: innocuous double rounding, and the integer
//! sequence LLVM rounds an f32 to bfloat with ([`IntegerRounding`]).
//!
//! A narrow format `N` (f16, bf16) widens exactly into a wide one `W` (f32). Where a program
//! computes `RN_N(op_W(widen(a), widen(b)))` with the wide operation rounded to nearest, that
//! is `op_N(a, b)` rounded once, for op ∈ {add, sub, mul, div, sqrt}: Figueroa, "When is double
//! rounding innocuous?" (SIGNUM 1995), for a wide precision p' ≥ 2p + 2 (f32's 24 against
//! f16's 11 and bf16's 8). The theorem assumes an unbounded exponent range; the lemmas here
//! are finite statements about all 2^32 pairs of 16-bit inputs, so semfuzz proves each one
//! itself by checking every pair ([`DoubleRounding::prove`], `semfuzz lemmas --prove`),
//! subnormals, overflow, infinities and NaNs included, and records what it checked in
//! `smt/lemmas.txt`. The encoder rewrites with a lemma only when that record says it was
//! proved ([`proved`]); the test suite re-checks a random sample of each and refutes a false
//! twin (a wide format with too few bits), so the checker can fail.
//!
//! Equality is of the results' bits where they are numbers and of NaN-ness otherwise: the
//! encoder gives a rewritten result the NaN bits its context gives any operation's NaN, which
//! is what the spec's NaN rules decide after the operation.
//!
//! The two sides are computed by independent routes: the direct rounding by `semfuzz-fp` in
//! the narrow format; the double rounding by widening with `semfuzz_fp::convert` (exact),
//! the host's IEEE binary32 arithmetic (SSE `addss`/`divss`/`sqrtss`, round to nearest,
//! no flush: Rust never sets MXCSR's FTZ/DAZ) where the wide format is f32, and
//! `semfuzz_fp::convert` down.

use semfuzz_fp::vectors::{boundary_values, SplitMix64};
use semfuzz_fp::{Format, Round};
use std::fmt;
use std::time::{Duration, Instant};

/// An operation a double-rounding lemma is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LemmaOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a · b`.
    Mul,
    /// `a / b`.
    Div,
    /// `√a`.
    Sqrt,
}

impl LemmaOp {
    /// Every operation, in the record's order.
    pub const ALL: [LemmaOp; 5] = [
        LemmaOp::Add,
        LemmaOp::Sub,
        LemmaOp::Mul,
        LemmaOp::Div,
        LemmaOp::Sqrt,
    ];

    /// The name in the record and in messages.
    pub fn name(self) -> &'static str {
        match self {
            LemmaOp::Add => "add",
            LemmaOp::Sub => "sub",
            LemmaOp::Mul => "mul",
            LemmaOp::Div => "div",
            LemmaOp::Sqrt => "sqrt",
        }
    }

    /// How many operands it takes.
    pub fn arity(self) -> u32 {
        match self {
            LemmaOp::Sqrt => 1,
            _ => 2,
        }
    }

    /// The operation in `f`, rounded to nearest even, by `semfuzz-fp` (`b` unused by sqrt).
    fn soft(self, f: Format, a: u64, b: u64) -> u64 {
        let rn = Round::NearestEven;
        match self {
            LemmaOp::Add => semfuzz_fp::add(f, a, b, rn),
            LemmaOp::Sub => semfuzz_fp::sub(f, a, b, rn),
            LemmaOp::Mul => semfuzz_fp::mul(f, a, b, rn),
            LemmaOp::Div => semfuzz_fp::div(f, a, b, rn),
            LemmaOp::Sqrt => semfuzz_fp::sqrt(f, a, rn),
        }
    }

    /// The operation on binary32 by the host's IEEE arithmetic, round to nearest even.
    fn native_f32(self, a: u64, b: u64) -> u64 {
        let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
        let r = match self {
            LemmaOp::Add => x + y,
            LemmaOp::Sub => x - y,
            LemmaOp::Mul => x * y,
            LemmaOp::Div => x / y,
            LemmaOp::Sqrt => x.sqrt(),
        };
        u64::from(r.to_bits())
    }
}

/// The short name of a format in the record (`f16`, `bf16`, `f32`, else `e5m10`-style).
fn format_name(f: Format) -> String {
    match f {
        Format::F16 => "f16".into(),
        Format::BF16 => "bf16".into(),
        Format::F32 => "f32".into(),
        _ => format!("e{}m{}", f.exp_bits(), f.precision() - 1),
    }
}

/// `RN_narrow(op_wide(widen(a), widen(b)))` = `op_narrow(a, b)` rounded to nearest even.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DoubleRounding {
    /// The operation.
    pub op: LemmaOp,
    /// The format of the operands and the result.
    pub narrow: Format,
    /// The format the operation is computed in; it holds every value of `narrow` exactly.
    pub wide: Format,
}

/// Every lemma the encoder may use once proved: the five operations on f16 and bf16 through
/// f32.
pub const LEMMAS: [DoubleRounding; 10] = {
    let mut out = [DoubleRounding {
        op: LemmaOp::Add,
        narrow: Format::F16,
        wide: Format::F32,
    }; 10];
    let mut i = 0;
    while i < 10 {
        out[i].op = LemmaOp::ALL[i % 5];
        if i >= 5 {
            out[i].narrow = Format::BF16;
        }
        i += 1;
    }
    out
};

/// Inputs where the two roundings differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refuted {
    /// The operands (`b` is 0 for sqrt).
    pub a: u64,
    /// The second operand.
    pub b: u64,
    /// The narrow operation rounded once.
    pub once: u64,
    /// Through the wide format.
    pub twice: u64,
}

/// What an exhaustive check established.
#[derive(Clone, Copy, Debug)]
pub struct Proof {
    /// Input tuples checked (all of them).
    pub checked: u64,
    /// How long it took.
    pub elapsed: Duration,
    /// Threads it ran on.
    pub threads: usize,
}

impl DoubleRounding {
    /// The lemma's name in the record: `div f16 f32`.
    pub fn name(&self) -> String {
        format!(
            "{} {} {}",
            self.op.name(),
            format_name(self.narrow),
            format_name(self.wide)
        )
    }

    /// Every input tuple: 2^(arity · width).
    pub fn space(&self) -> u64 {
        1 << (self.op.arity() * self.narrow.width())
    }

    /// The operands of tuple `i` of [`space`](Self::space): `a` in the high bits.
    fn operands(&self, i: u64) -> (u64, u64) {
        let w = self.narrow.width();
        match self.op.arity() {
            1 => (i, 0),
            _ => (i >> w, i & self.narrow.mask()),
        }
    }

    /// The operation rounded once in the narrow format.
    pub fn once(&self, a: u64, b: u64) -> u64 {
        self.op.soft(self.narrow, a, b)
    }

    /// Whether the two agree on `a`, `b` (bits where a number, NaN-ness otherwise), or how
    /// they differ.
    pub fn at(&self, a: u64, b: u64) -> Result<(), Refuted> {
        Checker::new(*self).at(a, b)
    }

    /// Checks every input tuple on `threads` threads: a proof, or the first counterexample
    /// of the lowest-numbered slice that has one.
    pub fn prove(&self, threads: usize) -> Result<Proof, Refuted> {
        let checker = Checker::new(*self);
        exhaustive(self.space(), threads, |i| {
            let (a, b) = self.operands(i);
            checker.at(a, b)
        })
    }

    /// Checks the format's boundary values against each other, then `count` random tuples
    /// drawn from `seed`: the sampled re-check of the test suite.
    pub fn sample(&self, count: u64, seed: u64) -> Result<(), Refuted> {
        let checker = Checker::new(*self);
        let edges = boundary_values(self.narrow);
        for &a in &edges {
            for &b in &edges {
                checker.at(a, b)?;
            }
        }
        let mut rng = SplitMix64::new(seed);
        (0..count).try_for_each(|_| {
            let (a, b) = self.operands(rng.below(self.space()));
            checker.at(a, b)
        })
    }
}

/// A lemma with every narrow value's exact widening computed once (a table of 2^16 entries
/// for a 16-bit format): the conversion up would otherwise cost a third of each check.
struct Checker {
    lemma: DoubleRounding,
    wide: Vec<u64>,
}

impl Checker {
    fn new(lemma: DoubleRounding) -> Checker {
        let (n, w) = (lemma.narrow, lemma.wide);
        let wide = (0..1u64 << n.width())
            .map(|x| semfuzz_fp::convert(n, w, x, Round::NearestEven))
            .collect();
        Checker { lemma, wide }
    }

    /// The operation computed in the wide format on the widened operands, rounded to the
    /// narrow one.
    fn twice(&self, a: u64, b: u64) -> u64 {
        let l = &self.lemma;
        let (x, y) = (self.wide[a as usize], self.wide[b as usize]);
        let r = if l.wide == Format::F32 {
            l.op.native_f32(x, y)
        } else {
            l.op.soft(l.wide, x, y)
        };
        semfuzz_fp::convert(l.wide, l.narrow, r, Round::NearestEven)
    }

    fn at(&self, a: u64, b: u64) -> Result<(), Refuted> {
        let (once, twice) = (self.lemma.once(a, b), self.twice(a, b));
        let f = self.lemma.narrow;
        if once == twice || (f.is_nan(once) && f.is_nan(twice)) {
            Ok(())
        } else {
            Err(Refuted { a, b, once, twice })
        }
    }
}

/// Runs `check` on every index below `n`, split into `threads` slices: a proof, or the first
/// counterexample of the lowest-numbered slice that has one.
fn exhaustive(
    n: u64,
    threads: usize,
    check: impl Fn(u64) -> Result<(), Refuted> + Sync,
) -> Result<Proof, Refuted> {
    let start = Instant::now();
    let threads = threads.max(1);
    let slice = n.div_ceil(threads as u64);
    let results: Vec<Result<(), Refuted>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let check = &check;
                s.spawn(move || (t * slice..((t + 1) * slice).min(n)).try_for_each(check))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a lemma thread does not panic"))
            .collect()
    });
    results.into_iter().collect::<Result<(), Refuted>>()?;
    Ok(Proof {
        checked: n,
        elapsed: start.elapsed(),
        threads,
    })
}

/// LLVM's rounding of an f32 to bfloat with integer arithmetic, where NVPTX has no
/// `cvt.rn.bf16.f32` (before sm_80 for LLVM 19, before sm_90 for LLVM 22), on the f32's bits
/// `x`:
///
/// ```text
/// bfe.u32   t, x, 16, 1;        // the lowest bit that is kept
/// add.s32   s, t, x;
/// add.s32   r, s, 0x7fff;       // below half an ulp rounds down, a tie to the even one
/// setp.nan.f32 p, x, x;
/// or.b32    q, x, 0x400000;     // a NaN is quieted, its payload truncated
/// selp.b32  y, q, r, p;
/// shr.u32   d, y, 16;           // (or the high half of `y` moved out)
/// ```
///
/// The lemma ([`BF16_BY_INTEGERS`]): `d` is `cvt.rn.bf16.f32 x`, bit for bit, for each of the
/// 2^32 patterns `x` (NaNs included: `semfuzz-fp`'s conversion keeps a NaN's sign and the top
/// of its payload, and quiets it). The two routes are independent: the sequence is transcribed
/// here on `u32` with wrapping arithmetic (what `add.s32` does), the conversion is
/// `semfuzz_fp::convert`'s unpack-and-round. The encoder rewrites the sequence, matched by the
/// structure of its ops, to the conversion (`encode.rs`, `Encoder::integer_rounding`) once
/// `smt/lemmas.txt` records the proof. The fields make the false twins the tests refute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntegerRounding {
    /// What is added besides the kept half's lowest bit: `0x7fff`, half an ulp less one.
    pub bias: u32,
    /// Whether a NaN takes the quieting arm (else it is rounded like a number).
    pub quiets: bool,
}

/// The sequence LLVM emits.
pub const BF16_BY_INTEGERS: IntegerRounding = IntegerRounding {
    bias: 0x7fff,
    quiets: true,
};

impl IntegerRounding {
    /// The lemma's name in the record: `cvt bf16 f32 by integers` (a twin's names its
    /// difference).
    pub fn name(&self) -> String {
        let mut name = String::from("cvt bf16 f32 by integers");
        if self.bias != BF16_BY_INTEGERS.bias {
            name += &format!(" adding {:#x}", self.bias);
        }
        if !self.quiets {
            name += " without quieting";
        }
        name
    }

    /// Every f32 pattern.
    pub fn space(&self) -> u64 {
        1 << 32
    }

    /// The sequence on the bits `x` (the transcription of the PTX above).
    pub fn sequence(&self, x: u32) -> u64 {
        let nan = x & 0x7fff_ffff > 0x7f80_0000;
        let y = if self.quiets && nan {
            x | 0x40_0000
        } else {
            ((x >> 16) & 1).wrapping_add(x).wrapping_add(self.bias)
        };
        u64::from(y >> 16)
    }

    /// Whether the sequence is the conversion at `x`, or how they differ (`a` is `x`, `once`
    /// the conversion, `twice` the sequence).
    pub fn at(&self, x: u32) -> Result<(), Refuted> {
        let once = semfuzz_fp::convert(Format::F32, Format::BF16, u64::from(x), Round::NearestEven);
        let twice = self.sequence(x);
        if once == twice {
            Ok(())
        } else {
            Err(Refuted {
                a: u64::from(x),
                b: 0,
                once,
                twice,
            })
        }
    }

    /// Checks every f32 pattern on `threads` threads.
    pub fn prove(&self, threads: usize) -> Result<Proof, Refuted> {
        exhaustive(self.space(), threads, |i| self.at(i as u32))
    }

    /// Checks f32's boundary values, then `count` random patterns drawn from `seed`.
    pub fn sample(&self, count: u64, seed: u64) -> Result<(), Refuted> {
        for x in boundary_values(Format::F32) {
            self.at(x as u32)?;
        }
        let mut rng = SplitMix64::new(seed);
        (0..count).try_for_each(|_| self.at(rng.below(self.space()) as u32))
    }
}

/// A lemma of the library, of either kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lemma {
    /// Innocuous double rounding.
    Double(DoubleRounding),
    /// An integer sequence that is a conversion.
    Integer(IntegerRounding),
}

impl Lemma {
    /// Every lemma the encoder may use once proved, in the record's order.
    pub fn all() -> Vec<Lemma> {
        LEMMAS
            .into_iter()
            .map(Lemma::Double)
            .chain([Lemma::Integer(BF16_BY_INTEGERS)])
            .collect()
    }

    /// The name in the record.
    pub fn name(&self) -> String {
        match self {
            Lemma::Double(l) => l.name(),
            Lemma::Integer(l) => l.name(),
        }
    }

    /// How many input tuples a proof checks.
    pub fn space(&self) -> u64 {
        match self {
            Lemma::Double(l) => l.space(),
            Lemma::Integer(l) => l.space(),
        }
    }

    /// Checks every input tuple.
    pub fn prove(&self, threads: usize) -> Result<Proof, Refuted> {
        match self {
            Lemma::Double(l) => l.prove(threads),
            Lemma::Integer(l) => l.prove(threads),
        }
    }

    /// Whether the committed record says it was proved over its whole space.
    pub fn is_recorded(&self) -> bool {
        recorded(RECORD, self)
    }
}

impl fmt::Display for Refuted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a={:#x} b={:#x}: once {:#x}, through the wide format {:#x}",
            self.a, self.b, self.once, self.twice
        )
    }
}

/// The record of proved lemmas, one line each: `NAME proved: PAIRS tuples, SECONDS s on
/// THREADS threads, DATE`, `#` comments. Written by `semfuzz lemmas --prove`.
pub const RECORD: &str = include_str!("../lemmas.txt");

/// The record's line for `lemma`, if it says the lemma was proved over its whole space.
fn recorded(record: &str, lemma: &Lemma) -> bool {
    let want = format!("{} proved: {} tuples,", lemma.name(), lemma.space());
    record
        .lines()
        .any(|l| l.starts_with(&want) && !l.starts_with('#'))
}

/// Whether `RN_narrow(op_wide(...))` may be rewritten to `op_narrow` rounded once: a lemma
/// of [`LEMMAS`] the committed record says was proved over every input.
pub fn proved(op: LemmaOp, narrow: Format, wide: Format) -> bool {
    let lemma = DoubleRounding { op, narrow, wide };
    LEMMAS.contains(&lemma) && Lemma::Double(lemma).is_recorded()
}

/// Whether LLVM's integer rounding of an f32 to bfloat may be rewritten to `cvt.rn.bf16.f32`:
/// the committed record says [`BF16_BY_INTEGERS`] was proved over every f32.
pub fn integer_rounding_proved() -> bool {
    Lemma::Integer(BF16_BY_INTEGERS).is_recorded()
}

/// A record line for a proof.
pub fn record_line(lemma: &Lemma, proof: &Proof, date: &str) -> String {
    format!(
        "{} proved: {} tuples, {:.1} s on {} threads, {date}",
        lemma.name(),
        proof.checked,
        proof.elapsed.as_secs_f64(),
        proof.threads
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_spaces() {
        assert_eq!(LEMMAS[3].name(), "div f16 f32");
        assert_eq!(LEMMAS[9].name(), "sqrt bf16 f32");
        assert_eq!(LEMMAS[3].space(), 1 << 32);
        assert_eq!(LEMMAS[4].space(), 1 << 16);
    }

    #[test]
    fn a_record_line_is_read_back() {
        let proof = Proof {
            checked: 1 << 32,
            elapsed: Duration::from_secs(3),
            threads: 2,
        };
        let (div, sqrt) = (Lemma::Double(LEMMAS[3]), Lemma::Double(LEMMAS[8]));
        let line = record_line(&div, &proof, "2026-11-28");
        assert!(recorded(&line, &div));
        assert!(!recorded(&line, &sqrt));
        assert!(!recorded(&format!("# {line}"), &div));
        let integers = Lemma::Integer(BF16_BY_INTEGERS);
        let line = record_line(&integers, &proof, "2026-11-28");
        assert_eq!(
            line,
            "cvt bf16 f32 by integers proved: 4294967296 tuples, 3.0 s on 2 threads, 2026-11-28"
        );
        assert!(recorded(&line, &integers));
        let twin = Lemma::Integer(IntegerRounding {
            bias: 0x8000,
            quiets: true,
        });
        assert!(!recorded(&line, &twin));
    }
}
