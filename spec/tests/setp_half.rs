//! PTX ISA 9.7.7.2 Half Precision Comparison Instructions: `setp` on `.f16`, `.f16x2`, `.bf16`
//! and `.bf16x2`. Every prose rule as a test citing it, the instruction text of every syntax
//! and example line, and every variant against an independent model: the host CPU's `f32`
//! comparisons on the halves widened exactly (the widening written here from the IEEE 754
//! encodings, not `semfuzz-fp`), on every pair of boundary values and on random pairs.

mod common;
use common::{eval, spec};
// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;

const F16_ONE: u64 = 0x3C00;
const F16_TWO: u64 = 0x4000;
const F16_NAN: u64 = 0x7E00;
const BF16_ONE: u64 = 0x3F80;
const BF16_TWO: u64 = 0x4000;

const CMPOPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// `p` and, where the variant has it, `q`, as booleans.
fn run(instr: &str, inputs: &[u64]) -> Vec<bool> {
    eval(instr, inputs)
        .iter()
        .map(|a| predicate(instr, a))
        .collect()
}

fn predicate(instr: &str, a: &Accept) -> bool {
    match a {
        Accept::Exact(0) => false,
        Accept::Exact(1) => true,
        other => panic!("{instr}: a predicate is exactly 0 or 1, got {other:?}"),
    }
}

// ---- the independent model ----

/// The format of a half: IEEE binary16 or bfloat16.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Half {
    F16,
    Bf16,
}

/// The value of a 16-bit pattern as an `f32` (every f16 and bf16 value is one, exactly),
/// flushed to the zero of its sign first under `ftz` if subnormal.
fn widen(format: Half, bits: u64, ftz: bool) -> f32 {
    let bits = bits as u32 & 0xFFFF;
    let sign = bits >> 15;
    match format {
        // bfloat16 is the upper half of a binary32.
        Half::Bf16 => {
            let exp = (bits >> 7) & 0xFF;
            if ftz && exp == 0 {
                return f32::from_bits(sign << 31);
            }
            f32::from_bits(bits << 16)
        }
        Half::F16 => {
            let exp = (bits >> 10) & 0x1F;
            let man = bits & 0x3FF;
            let magnitude = match exp {
                0 if ftz => 0.0,
                // man * 2^-24: both factors and the product are exact in f32.
                0 => man as f32 * f32::from_bits(0x3380_0000),
                0x1F if man == 0 => f32::INFINITY,
                0x1F => f32::NAN,
                // Rebias the exponent (15 -> 127) and widen the fraction (10 -> 23 bits).
                _ => f32::from_bits(((exp + 127 - 15) << 23) | (man << 13)),
            };
            if sign == 1 {
                -magnitude
            } else {
                magnitude
            }
        }
    }
}

/// `x CmpOp y` by the host's f32 comparisons (Floating Point Notes: the ordered ops are false
/// with a NaN, the unordered true, `num`/`nan` test for one).
fn host_compare(op: &str, x: f32, y: f32) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match op {
        "eq" => x == y,
        // Ordered: false where either is NaN, though Rust's `!=` is true there.
        "ne" => !unordered && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "num" => !unordered,
        "nan" => unordered,
        u => unordered || host_compare(&u[..2], x, y),
    }
}

/// "BoolOp(t, c)" with ".BoolOp = { and, or, xor }"; no BoolOp: `t`.
fn bool_op(op: Option<&str>, t: bool, c: bool) -> bool {
    match op {
        None => t,
        Some("and") => t && c,
        Some("or") => t || c,
        Some("xor") => t ^ c,
        Some(other) => panic!("BoolOp {other}"),
    }
}

/// What 9.7.7.2's Semantics writes for `text` on `a`, `b`, `c`: `[p]` for .f16/.bf16, `[p, q]`
/// for .f16x2/.bf16x2, one compare per half.
fn model(text: &str, a: u64, b: u64, c: bool) -> Vec<bool> {
    let m: Vec<&str> = text.split('.').collect();
    let op = m[1];
    let bop = ["and", "or", "xor"].into_iter().find(|x| m.contains(x));
    let ftz = m.contains(&"ftz");
    let ty = *m.last().unwrap();
    let format = if ty.starts_with("bf16") {
        Half::Bf16
    } else {
        Half::F16
    };
    let lanes = if ty.ends_with("x2") { 2 } else { 1 };
    (0..lanes)
        .map(|i| {
            let x = widen(format, a >> (16 * i), ftz);
            let y = widen(format, b >> (16 * i), ftz);
            bool_op(bop, host_compare(op, x, y), c)
        })
        .collect()
}

/// Boundary values of a format, each with its negation: zeros, the smallest and largest
/// subnormal, the smallest normal, 1 and its neighbours, the largest finite, infinity, quiet
/// and signalling NaNs.
fn boundary(format: Half) -> Vec<u64> {
    let base: &[u64] = match format {
        Half::F16 => &[
            0x0000, 0x0001, 0x0002, 0x03FF, 0x0400, 0x0401, 0x3BFF, 0x3C00, 0x3C01, 0x4000, 0x7BFF,
            0x7C00, 0x7C01, 0x7E00, 0x7FFF,
        ],
        Half::Bf16 => &[
            0x0000, 0x0001, 0x0002, 0x007F, 0x0080, 0x0081, 0x3F7F, 0x3F80, 0x3F81, 0x4000, 0x7F7F,
            0x7F80, 0x7F81, 0x7FC0, 0x7FFF,
        ],
    };
    base.iter().flat_map(|&x| [x, x | 0x8000]).collect()
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every boundary pair (in each half of a packed operand, the other half taking another
/// pair), then `random` random pairs, each with `c` false and true where the variant reads it.
/// Returns how many inputs were checked.
fn check_against_model(text: &str, random: usize, seed: u64) -> usize {
    let v = spec()
        .variants
        .iter()
        .find(|v| v.text == text && v.family == "setp")
        .unwrap_or_else(|| panic!("{text} is not a setp variant"));
    let ty = text.rsplit('.').next().unwrap();
    let format = if ty.starts_with("bf16") {
        Half::Bf16
    } else {
        Half::F16
    };
    let packed = ty.ends_with("x2");
    let has_c = v.sources.len() == 3;
    assert_eq!(v.dests.len(), if packed { 2 } else { 1 }, "{text}");
    let edge = boundary(format);
    let mut pairs = Vec::new();
    for (i, &x) in edge.iter().enumerate() {
        for (j, &y) in edge.iter().enumerate() {
            if packed {
                // Lane 1 takes a pair of its own, so that the halves disagree as often as not.
                let (x1, y1) = (
                    edge[(i * 7 + 3) % edge.len()],
                    edge[(j * 5 + 1) % edge.len()],
                );
                pairs.push((x | (x1 << 16), y | (y1 << 16)));
            } else {
                pairs.push((x, y));
            }
        }
    }
    let mut rng = Rng(seed | 1);
    let mask = if packed { 0xFFFF_FFFF } else { 0xFFFF };
    for _ in 0..random {
        pairs.push((rng.next() & mask, rng.next() & mask));
    }
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    let mut n = 0;
    for &(a, b) in &pairs {
        for c in [false, true] {
            if c && !has_c {
                continue;
            }
            let inputs: Vec<u64> = if has_c {
                vec![a, b, c.into()]
            } else {
                vec![a, b]
            };
            ev.eval(&inputs, &mut out);
            let got: Vec<bool> = out.iter().map(|x| predicate(text, x)).collect();
            assert_eq!(got, model(text, a, b, c), "{text} a={a:#x} b={b:#x} c={c}");
            n += 1;
        }
    }
    n
}

#[test]
fn the_model_widens_exactly() {
    // The model itself against values known by heart (and f32's own f16 reading where Rust has
    // one: none on stable, so these are the IEEE 754 encodings).
    assert_eq!(widen(Half::F16, 0x3C00, false), 1.0);
    assert_eq!(widen(Half::F16, 0xC000, false), -2.0);
    assert_eq!(widen(Half::F16, 0x7BFF, false), 65504.0);
    assert_eq!(widen(Half::F16, 0x0001, false), 2f32.powi(-24));
    assert_eq!(widen(Half::F16, 0x03FF, false), 1023.0 * 2f32.powi(-24));
    assert_eq!(widen(Half::F16, 0x0400, false), 2f32.powi(-14));
    assert_eq!(
        widen(Half::F16, 0x8001, true).to_bits(),
        (-0.0f32).to_bits()
    );
    assert!(widen(Half::F16, 0x7C01, false).is_nan());
    assert_eq!(widen(Half::F16, 0xFC00, false), f32::NEG_INFINITY);
    assert_eq!(widen(Half::Bf16, 0x3F80, false), 1.0);
    assert_eq!(widen(Half::Bf16, 0x0001, false), 2f32.powi(-133));
    assert_eq!(
        widen(Half::Bf16, 0x8001, true).to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        widen(Half::Bf16, 0x7F7F, false),
        f32::from_bits(0x7F7F_0000)
    );
}

// ---- every variant against the model ----

#[test]
fn every_half_variant_matches_the_host_compare() {
    let mut variants = 0;
    let mut inputs = 0;
    for (i, v) in spec()
        .variants
        .iter()
        .filter(|v| v.family == "setp")
        .enumerate()
    {
        let ty = v.text.rsplit('.').next().unwrap();
        if ["f16", "f16x2", "bf16", "bf16x2"].contains(&ty) {
            assert!(CMPOPS.contains(&v.text.split('.').nth(1).unwrap()));
            inputs += check_against_model(&v.text, 2_000, i as u64 + 1);
            variants += 1;
        }
    }
    // CmpOp (14) x {none, and, or, xor} x {.ftz or not} for .f16 and .f16x2, without .ftz for
    // .bf16 and .bf16x2.
    assert_eq!(variants, 14 * 4 * 2 * 2 + 14 * 4 * 2);
    println!("{variants} variants, {inputs} inputs agree with the host's f32 compare");
}

#[test]
fn representative_variants_match_on_a_million_random_inputs() {
    for (i, text) in [
        "setp.lt.ftz.f16",
        "setp.neu.and.f16",
        "setp.geu.or.ftz.f16x2",
        "setp.nan.xor.bf16",
        "setp.le.bf16x2",
        "setp.eq.xor.ftz.f16x2",
    ]
    .into_iter()
    .enumerate()
    {
        check_against_model(text, 1_000_000, 0x9E37_79B9_7F4A_7C15 ^ i as u64);
    }
}

// ---- Description and Semantics ----

#[test]
fn scalar_types_write_p_only() {
    // Syntax: "setp.CmpOp{.ftz}.f16 p, a, b;" Semantics: "t = (a CmpOp b) ? 1 : 0; p =
    // BoolOp(t, c);"
    assert_eq!(run("setp.lt.f16", &[F16_ONE, F16_TWO]), [true]);
    assert_eq!(run("setp.lt.bf16", &[BF16_TWO, BF16_ONE]), [false]);
    for text in ["setp.lt.f16", "setp.lt.bf16", "setp.lt.or.ftz.f16"] {
        let n = if text.contains(".or") { 3 } else { 2 };
        let v = spec().lookup(text, Some(n)).unwrap();
        assert_eq!(v.dests.len(), 1, "{text}");
        // `p|q` is not the manual's syntax for a scalar (ptxas: "Predicate output not
        // allowed").
        assert!(spec().lookup_shape(text, 2, n).is_err(), "{text} p|q");
    }
    assert_eq!(
        spec().lookup("setp.lt.f16", Some(2)).unwrap().signature(),
        "setp.lt.f16 p, a, b"
    );
}

#[test]
fn packed_types_write_each_half_to_its_own_predicate() {
    // "p = BoolOp(t[0], c); q = BoolOp(t[1], c);" with "fA[0] = a[0:15]; fA[1] = a[16:31];":
    // q is the upper half's compare, not the complement 9.7.6.2 writes.
    let a = (F16_ONE << 16) | F16_TWO; // [2, 1]
    let b = (F16_TWO << 16) | F16_ONE; // [1, 2]
    assert_eq!(run("setp.lt.f16x2", &[a, b]), [false, true]);
    assert_eq!(run("setp.gt.f16x2", &[a, b]), [true, false]);
    assert_eq!(run("setp.eq.f16x2", &[a, a]), [true, true]);
    assert_eq!(run("setp.ne.f16x2", &[a, a]), [false, false]);
    let ab = (BF16_ONE << 16) | BF16_TWO;
    let bb = (BF16_TWO << 16) | BF16_ONE;
    assert_eq!(run("setp.lt.bf16x2", &[ab, bb]), [false, true]);
    assert_eq!(run("setp.le.bf16x2", &[ab, ab]), [true, true]);
    let v = spec().lookup("setp.lt.f16x2", Some(2)).unwrap();
    assert_eq!(v.signature(), "setp.lt.f16x2 p|q, a, b");
}

#[test]
fn bool_op_combines_each_result_with_c() {
    // "p = BoolOp(t[0], c); q = BoolOp(t[1], c);" with ".BoolOp = { and, or, xor }": one c
    // for both halves.
    let a = (F16_ONE << 16) | F16_TWO;
    let b = (F16_TWO << 16) | F16_ONE; // lt: [false, true]
    assert_eq!(run("setp.lt.and.f16x2", &[a, b, 1]), [false, true]);
    assert_eq!(run("setp.lt.and.f16x2", &[a, b, 0]), [false, false]);
    assert_eq!(run("setp.lt.or.f16x2", &[a, b, 1]), [true, true]);
    assert_eq!(run("setp.lt.xor.f16x2", &[a, b, 1]), [true, false]);
    assert_eq!(run("setp.lt.xor.bf16", &[BF16_ONE, BF16_TWO, 1]), [false]);
    assert_eq!(run("setp.lt.or.bf16", &[BF16_TWO, BF16_ONE, 0]), [false]);
    // `{!}c`: the negation is read with the operand.
    let v = spec().lookup("setp.lt.and.f16", Some(3)).unwrap();
    assert!(v.sources[2].negatable && !v.sources[0].negatable);
    let not_one = v.sources[2].read(true, 1).unwrap();
    assert_eq!(
        run("setp.lt.and.f16", &[F16_ONE, F16_TWO, not_one]),
        [false]
    );
}

// ---- Floating Point Notes ----

#[test]
fn ordered_compares_are_false_and_unordered_true_with_nan() {
    // "The ordered comparisons are eq, ne, lt, le, gt, ge. If either operand is NaN, the
    // result is False." "If either operand is NaN, then the result of these comparisons is
    // True." "num returns True if both operands are numeric values (not NaN), and nan returns
    // True if either operand is NaN."
    for op in CMPOPS {
        let want = op.ends_with('u') || op == "nan";
        for ty in ["f16", "bf16"] {
            let nan = if ty == "f16" { F16_NAN } else { 0x7FC0 };
            let one = if ty == "f16" { F16_ONE } else { BF16_ONE };
            let text = format!("setp.{op}.{ty}");
            assert_eq!(run(&text, &[nan, one]), [want], "{text}");
            assert_eq!(run(&text, &[one, nan | 0x8000]), [want], "{text}");
        }
        // One half NaN, the other numeric and equal.
        let a = (F16_NAN << 16) | F16_ONE;
        let b = (F16_ONE << 16) | F16_ONE;
        let numeric = !["ne", "lt", "gt", "neu", "ltu", "gtu", "nan"].contains(&op);
        assert_eq!(
            run(&format!("setp.{op}.f16x2"), &[a, b]),
            [numeric, want],
            "{op}"
        );
    }
    // -0.0 == +0.0.
    assert_eq!(run("setp.eq.f16", &[0x8000, 0]), [true]);
    assert_eq!(run("setp.lt.bf16", &[0x8000, 0]), [false]);
}

#[test]
fn ftz_flushes_subnormal_inputs_of_f16_only() {
    // "By default, subnormal numbers are supported. setp.ftz.{f16,f16x2} flushes subnormal
    // inputs to sign-preserving zero."
    assert_eq!(run("setp.gt.f16", &[0x0001, 0]), [true]);
    assert_eq!(run("setp.gt.ftz.f16", &[0x0001, 0]), [false]);
    assert_eq!(run("setp.eq.ftz.f16", &[0x8001, 0x0001]), [true]);
    let sub = (0x0001 << 16) | 0x03FF;
    assert_eq!(run("setp.gt.f16x2", &[sub, 0]), [true, true]);
    assert_eq!(run("setp.gt.ftz.f16x2", &[sub, 0]), [false, false]);
    // bf16 keeps its subnormals and has no .ftz.
    assert_eq!(run("setp.gt.bf16", &[0x0001, 0]), [true]);
    let e = spec().lookup("setp.gt.ftz.bf16", Some(2)).unwrap_err();
    assert!(e.message.contains("`.ftz` is not allowed"), "{}", e.message);
    assert!(spec().lookup("setp.gt.ftz.bf16x2", Some(2)).is_err());
}

// ---- instruction text ----

#[test]
fn every_syntax_line_and_example_resolves() {
    // One instance of each of the 8 syntax lines, then the 4 Examples (their operand counts).
    for (text, dests, sources) in [
        ("setp.lt.ftz.f16", 1, 2),
        ("setp.lt.and.ftz.f16", 1, 3),
        ("setp.lt.ftz.f16x2", 2, 2),
        ("setp.lt.or.ftz.f16x2", 2, 3),
        ("setp.lt.bf16", 1, 2),
        ("setp.lt.xor.bf16", 1, 3),
        ("setp.lt.bf16x2", 2, 2),
        ("setp.lt.and.bf16x2", 2, 3),
        // "setp.lt.and.f16x2 p|q,a,b,r;  @q setp.eq.f16 p,i,n;"
        ("setp.lt.and.f16x2", 2, 3),
        ("setp.eq.f16", 1, 2),
        // "setp.gt.or.bf16x2 u|v,c,d,s;  @q setp.eq.bf16 u,j,m;"
        ("setp.gt.or.bf16x2", 2, 3),
        ("setp.eq.bf16", 1, 2),
    ] {
        spec()
            .lookup_shape(text, dests, sources)
            .unwrap_or_else(|d| panic!("{text}: {d}"));
    }
    // 9.7.6.2's 384 variants and 9.7.7.2's 336.
    let n = spec()
        .variants
        .iter()
        .filter(|v| v.family == "setp")
        .count();
    assert_eq!(n, 384 + 336);
}

#[test]
fn requirements_follow_the_isa_notes() {
    let req = common::requirement;
    // "Introduced in PTX ISA version 4.2." "Requires sm_53 or higher."
    assert_eq!(req("setp.lt.f16", 2), "PTX ISA 4.2, sm_53");
    assert_eq!(req("setp.lt.and.ftz.f16x2", 3), "PTX ISA 4.2, sm_53");
    // "setp.{bf16/bf16x2} introduced in PTX ISA version 7.8." "... requires sm_90 or higher."
    assert_eq!(req("setp.lt.bf16", 2), "PTX ISA 7.8, sm_90");
    assert_eq!(req("setp.nan.xor.bf16x2", 3), "PTX ISA 7.8, sm_90");
}

#[test]
fn invalid_combinations_are_explained() {
    let msg = common::refusal;
    // 9.7.7.2's .CmpOp has no unsigned spellings.
    for op in ["lo", "ls", "hi", "hs"] {
        assert!(msg(&format!("setp.{op}.f16"), 2).contains("matches no form of `setp`"));
        assert!(msg(&format!("setp.{op}.bf16x2"), 2).contains("matches no form of `setp`"));
    }
    // A BoolOp needs c; c needs a BoolOp.
    assert!(msg("setp.lt.and.f16", 2).contains("source operands"));
    assert!(msg("setp.lt.f16x2", 3).contains("source operands"));
    // 9.7.6.2's rule on .ftz stays as it was for its own types.
    assert!(msg("setp.lt.ftz.f64", 2).contains("applies only to .f32"));
    assert!(msg("setp.eq.ftz.u32", 2).contains("applies only to .f32"));
}
