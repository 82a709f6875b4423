//! PTX ISA 9.7.7.1 Half Precision Comparison Instructions: `set`. Every prose rule as a test
//! citing it, the instruction text of every syntax and example line, the `{!}c` operand
//! modifier, and an independent compare (ordering on bit patterns written here, not
//! `semfuzz-fp`) over sampled inputs of every f16/bf16-source variant.

mod common;
use common::{eval, exact, spec};
// The default evaluator (compiled where the JIT supports the variant): these hold-outs check
// it, and jit/tests/equivalence.rs checks it against the interpreter.
use semfuzz_jit::Evaluator;
use semfuzz_spec::outcome::Accept;

const F16_ONE: u64 = 0x3C00;
const F16_TWO: u64 = 0x4000;
const F16_NAN: u64 = 0x7E00;
const F16_MIN_SUB: u64 = 0x0001;
const BF16_ONE: u64 = 0x3F80;
const BF16_NAN: u64 = 0x7FC0;

/// The value `sem` sees for a `{!}c` operand written `!bits` (as `semfuzz eval` reads it).
fn not_c(instr: &str, bits: u64) -> u64 {
    let v = spec().lookup(instr, Some(3)).unwrap();
    v.sources[2].read(true, bits).unwrap()
}

// ---- Description ----

#[test]
fn true_writes_one_point_zero_or_all_ones_by_destination_type() {
    // "If result is True, 0xffffffff is written for destination types .u32/.s32. 0xffff is
    // written for destination types .u16/.s16. 1.0 in target precision floating point format
    // is written for destination type .f16, .bf16."
    assert_eq!(exact("set.lt.f16.f16", &[F16_ONE, F16_TWO]), 0x3C00);
    assert_eq!(exact("set.lt.bf16.f16", &[F16_ONE, F16_TWO]), 0x3F80);
    assert_eq!(exact("set.lt.u16.f16", &[F16_ONE, F16_TWO]), 0xFFFF);
    assert_eq!(exact("set.lt.s16.bf16", &[BF16_ONE, 0x4000]), 0xFFFF);
    assert_eq!(exact("set.lt.u32.f16", &[F16_ONE, F16_TWO]), 0xFFFF_FFFF);
    assert_eq!(exact("set.lt.s32.bf16", &[BF16_ONE, 0x4000]), 0xFFFF_FFFF);
}

#[test]
fn false_writes_zero_in_every_destination_type() {
    // "If result is False, 0x0 is written for all integer destination types. 0.0 in target
    // precision floating point format is written for destination type .f16, .bf16."
    for d in ["f16", "bf16", "u16", "s16", "u32", "s32"] {
        assert_eq!(
            exact(&format!("set.gt.{d}.f16"), &[F16_ONE, F16_TWO]),
            0,
            "{d}"
        );
    }
}

#[test]
fn packed_sources_give_per_half_results() {
    // "If the source type is .f16x2 or .bf16x2 then result of individual operations are packed
    // in the 32-bit destination operand." Semantics: "d[i] = BoolOp(t[i], c) ? 0xffff : 0".
    let a = (F16_ONE << 16) | F16_ONE; // [1, 1]
    let b = (F16_ONE << 16) | F16_TWO; // [2, 1]
    assert_eq!(exact("set.eq.u32.f16x2", &[a, b]), 0xFFFF_0000);
    assert_eq!(exact("set.lt.s32.f16x2", &[a, b]), 0x0000_FFFF);
    // "d[i] = BoolOp(t[i], c) ? 1.0 : 0.0" for .f16x2/.bf16x2 destinations: one part per lane.
    assert_eq!(
        eval("set.eq.f16x2.f16x2", &[a, b]),
        vec![Accept::Exact(0), Accept::Exact(F16_ONE)]
    );
    let ab = (BF16_ONE << 16) | 0x4000;
    let bb = (BF16_ONE << 16) | BF16_ONE;
    assert_eq!(
        eval("set.gt.bf16x2.bf16x2", &[ab, bb]),
        vec![Accept::Exact(BF16_ONE), Accept::Exact(0)]
    );
    assert_eq!(exact("set.geu.s32.bf16x2", &[ab, bb]), 0xFFFF_FFFF);
}

// ---- Floating Point Notes ----

#[test]
fn ordered_compares_are_false_with_nan() {
    // "The ordered comparisons are eq, ne, lt, le, gt, ge. If either operand is NaN, the
    // result is False."
    for op in ["eq", "ne", "lt", "le", "gt", "ge"] {
        for (a, b) in [(F16_NAN, F16_ONE), (F16_ONE, F16_NAN), (F16_NAN, F16_NAN)] {
            assert_eq!(exact(&format!("set.{op}.u32.f16"), &[a, b]), 0, "{op}");
        }
        assert_eq!(
            exact(&format!("set.{op}.u32.bf16"), &[BF16_NAN, BF16_ONE]),
            0,
            "{op}"
        );
        assert_eq!(
            exact(&format!("set.{op}.f16.f32"), &[0x7FC0_0000, 0x3F80_0000]),
            0
        );
        assert_eq!(
            exact(&format!("set.{op}.f16.f64"), &[0, 0x7FF8_0000_0000_0000]),
            0
        );
    }
    // ne is ordered: 1 != NaN is False, 1 != 2 is True.
    assert_eq!(exact("set.ne.u16.f16", &[F16_ONE, F16_TWO]), 0xFFFF);
}

#[test]
fn unordered_compares_are_true_with_nan_and_ordered_otherwise() {
    // "If both operands are numeric values (not NaN), then these comparisons have the same
    // result as their ordered counterparts. If either operand is NaN, then the result of these
    // comparisons is True."
    let pairs = [
        (F16_ONE, F16_TWO),
        (F16_TWO, F16_ONE),
        (F16_ONE, F16_ONE),
        (0x8000, 0),
    ];
    for (u, o) in [
        ("equ", "eq"),
        ("neu", "ne"),
        ("ltu", "lt"),
        ("leu", "le"),
        ("gtu", "gt"),
        ("geu", "ge"),
    ] {
        for (a, b) in [(F16_NAN, F16_ONE), (F16_ONE, F16_NAN), (F16_NAN, F16_NAN)] {
            assert_eq!(
                exact(&format!("set.{u}.u32.f16"), &[a, b]),
                0xFFFF_FFFF,
                "{u}"
            );
        }
        for (a, b) in pairs {
            assert_eq!(
                exact(&format!("set.{u}.u32.f16"), &[a, b]),
                exact(&format!("set.{o}.u32.f16"), &[a, b]),
                "{u} {a:x} {b:x}"
            );
        }
    }
}

#[test]
fn num_and_nan_test_for_nan_operands() {
    // "num returns True if both operands are numeric values (not NaN), and nan returns True
    // if either operand is NaN."
    assert_eq!(exact("set.num.u32.f16", &[F16_ONE, 0x7C00]), 0xFFFF_FFFF);
    assert_eq!(exact("set.num.u32.f16", &[F16_ONE, F16_NAN]), 0);
    assert_eq!(exact("set.nan.u32.f16", &[F16_NAN, F16_ONE]), 0xFFFF_FFFF);
    assert_eq!(exact("set.nan.u32.f16", &[F16_ONE, 0xFC00]), 0);
    assert_eq!(exact("set.nan.u32.bf16", &[BF16_ONE, 0xFF81]), 0xFFFF_FFFF);
}

#[test]
fn ftz_flushes_subnormal_inputs() {
    // "When .ftz modifier is specified then subnormal inputs and results are flushed to sign
    // preserving zero."
    assert_eq!(exact("set.gt.u32.f16", &[F16_MIN_SUB, 0]), 0xFFFF_FFFF);
    assert_eq!(exact("set.gt.ftz.u32.f16", &[F16_MIN_SUB, 0]), 0);
    assert_eq!(exact("set.eq.ftz.f16.f32", &[1, 0x8000_0000]), F16_ONE);
    assert_eq!(exact("set.eq.f16.f32", &[1, 0x8000_0000]), 0);
    let sub2 = (F16_MIN_SUB << 16) | F16_MIN_SUB;
    assert_eq!(exact("set.eq.ftz.u32.f16x2", &[sub2, 0]), 0xFFFF_FFFF);
    assert_eq!(exact("set.eq.u32.f16x2", &[sub2, 0]), 0);
    // "By default, subnormal numbers are supported": bf16 forms have no .ftz.
    assert_eq!(exact("set.gt.u32.bf16", &[1, 0]), 0xFFFF_FFFF);
}

#[test]
fn bool_op_combines_with_c_and_with_not_c() {
    // Semantics: "d = BoolOp(t, c) ? trueVal : 0" with ".BoolOp = { and, or, xor }"; the
    // syntax writes the predicate `{!}c`.
    for (t_true, a, b) in [(true, F16_ONE, F16_TWO), (false, F16_TWO, F16_ONE)] {
        for c in [false, true] {
            for (op, f) in [
                ("and", (|x, y| x && y) as fn(bool, bool) -> bool),
                ("or", |x, y| x || y),
                ("xor", |x, y| x ^ y),
            ] {
                let instr = format!("set.lt.{op}.u32.f16");
                let want = |r: bool| if r { 0xFFFF_FFFF } else { 0 };
                assert_eq!(
                    exact(&instr, &[a, b, c as u64]),
                    want(f(t_true, c)),
                    "{instr} c={c}"
                );
                let nc = not_c(&instr, c as u64);
                assert_eq!(
                    exact(&instr, &[a, b, nc]),
                    want(f(t_true, !c)),
                    "{instr} !c={c}"
                );
            }
        }
    }
    // Per half with packed sources: one c for both halves.
    let a = (F16_ONE << 16) | F16_TWO;
    let b = (F16_TWO << 16) | F16_ONE; // lt: [false, true]
    assert_eq!(exact("set.lt.xor.u32.f16x2", &[a, b, 1]), 0x0000_FFFF);
    assert_eq!(exact("set.lt.or.u32.f16x2", &[a, b, 0]), 0xFFFF_0000);
    assert_eq!(
        exact(
            "set.lt.and.u32.f16x2",
            &[a, b, not_c("set.lt.and.u32.f16x2", 0)]
        ),
        0xFFFF_0000
    );
}

#[test]
fn only_braced_operands_can_be_negated() {
    let v = spec().lookup("set.lt.and.f16.f16", Some(3)).unwrap();
    assert!(v.sources[2].negatable && !v.sources[0].negatable && !v.sources[1].negatable);
    assert_eq!(v.sources[2].read(true, 1), Ok(0));
    assert!(v.sources[0]
        .read(true, 1)
        .unwrap_err()
        .contains("cannot be negated"));
    assert_eq!(v.signature(), "set.lt.and.f16.f16 d, a, b, {!}c");
}

// ---- the named assumptions on integer sources ----

#[test]
fn integer_sources_compare_unsigned_signed_and_b_as_unsigned() {
    // ASSUMPTIONs in ptx-9.7.7.1-half-set.sem: .u unsigned, .s signed, .b unsigned
    // (B_TYPES_COMPARE_SIGNED = false), unordered ops = ordered, num true, nan false.
    assert_eq!(exact("set.lt.f16.u16", &[0xFFFF, 1]), 0);
    assert_eq!(exact("set.lt.f16.s16", &[0xFFFF, 1]), F16_ONE);
    assert_eq!(exact("set.lt.f16.b16", &[0xFFFF, 1]), 0);
    assert_eq!(
        exact(
            "set.lt.f16.s64",
            &[0x8000_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF]
        ),
        F16_ONE
    );
    assert_eq!(
        exact("set.ge.bf16.s32", &[0x8000_0000, 0x8000_0000]),
        BF16_ONE
    );
    assert_eq!(exact("set.le.f16.u64", &[u64::MAX, u64::MAX - 1]), 0);
    assert_eq!(exact("set.ltu.f16.s32", &[0xFFFF_FFFF, 0]), F16_ONE);
    assert_eq!(exact("set.num.f16.b32", &[0xFFFF_FFFF, 0]), F16_ONE);
    assert_eq!(exact("set.nan.f16.b32", &[0xFFFF_FFFF, 0]), 0);
    assert_eq!(exact("set.ne.and.f16.u32", &[1, 2, 1]), F16_ONE);
}

// ---- instruction text ----

#[test]
fn every_syntax_line_and_example_resolves() {
    // One instance of each of the 12 syntax lines, then the 8 Examples (with their operand
    // counts).
    for (text, n) in [
        ("set.lt.ftz.f16.b64", 2),
        ("set.lt.and.ftz.f16.s16", 3),
        ("set.lt.bf16.f64", 2),
        ("set.lt.and.bf16.u64", 3),
        ("set.lt.ftz.s16.f16", 2),
        ("set.lt.or.ftz.u32.f16", 3),
        ("set.lt.u16.bf16", 2),
        ("set.lt.xor.s32.bf16", 3),
        ("set.lt.ftz.f16x2.f16x2", 2),
        ("set.lt.and.ftz.s32.f16x2", 3),
        ("set.lt.bf16x2.bf16x2", 2),
        ("set.lt.or.u32.bf16x2", 3),
        ("set.lt.and.f16.f16", 3),
        ("set.eq.f16x2.f16x2", 2),
        ("set.eq.u32.f16x2", 2),
        ("set.lt.and.u16.f16", 3),
        ("set.ltu.or.bf16.f16", 3),
        ("set.equ.bf16x2.bf16x2", 2),
        ("set.geu.s32.bf16x2", 2),
        ("set.num.xor.s32.bf16", 3),
    ] {
        spec()
            .lookup(text, Some(n))
            .unwrap_or_else(|d| panic!("{text}: {d}"));
    }
    let n = spec().variants.iter().filter(|v| v.family == "set").count();
    assert_eq!(
        n, 3192,
        "14 CmpOp x BoolOp x dtype x stype x ftz as the syntax allows"
    );
}

#[test]
fn requirements_follow_the_isa_notes() {
    let req = common::requirement;
    // "Introduced in PTX ISA version 4.2." "Requires sm_53 or higher."
    assert_eq!(req("set.lt.f16.f32", 2), "PTX ISA 4.2, sm_53");
    assert_eq!(req("set.eq.f16x2.f16x2", 2), "PTX ISA 4.2, sm_53");
    // "set.{u16, u32, s16, s32}.f16 and set.{u32, s32}.f16x2 are introduced in PTX ISA 6.5."
    assert_eq!(req("set.lt.u16.f16", 2), "PTX ISA 6.5, sm_53");
    assert_eq!(req("set.eq.s32.f16x2", 2), "PTX ISA 6.5, sm_53");
    // bf16 forms: "introduced in PTX ISA version 7.8", "require sm_90 or higher".
    assert_eq!(req("set.lt.bf16.b16", 2), "PTX ISA 7.8, sm_90");
    assert_eq!(req("set.lt.u32.bf16", 2), "PTX ISA 7.8, sm_90");
    assert_eq!(req("set.lt.bf16x2.bf16x2", 2), "PTX ISA 7.8, sm_90");
}

#[test]
fn invalid_combinations_are_explained() {
    let msg = common::refusal;
    // .stype has no .bf16 for a .bf16 destination; .dtype has no .u16 for .f16x2 sources.
    assert!(msg("set.lt.bf16.bf16", 2).contains("matches no form of `set`"));
    assert!(msg("set.lt.u16.f16x2", 2).contains("matches no form of `set`"));
    // The bf16 forms have no {.ftz}.
    assert!(msg("set.lt.ftz.bf16.f16", 2).contains("`.ftz` is not allowed"));
    assert!(msg("set.foo.f16.f16", 2).contains("`.foo` is not a modifier of `set`"));
    // A BoolOp needs c; c needs a BoolOp.
    assert!(msg("set.lt.and.f16.f16", 2).contains("takes 3 (a, b, c) source operands"));
    assert!(msg("set.lt.f16.f16", 3).contains("takes 2 (a, b) source operands"));
}

// ---- independent compare over sampled inputs ----

/// Ordering on 16-bit patterns of either format, written here: NaN is exponent all ones and
/// a nonzero fraction; otherwise sign-magnitude order with -0 == +0.
fn reference(op: &str, bf16: bool, ftz: bool, a: u64, b: u64) -> bool {
    let man = if bf16 { 0x7F } else { 0x3FF };
    let exp = 0x7FFF & !man;
    let is_nan = |x: u64| x & exp == exp && x & man != 0;
    let flush = |x: u64| if ftz && x & exp == 0 { x & 0x8000 } else { x };
    let (a, b) = (flush(a), flush(b));
    let key = |x: u64| {
        let m = (x & 0x7FFF) as i64;
        if x & 0x8000 != 0 {
            -m
        } else {
            m
        }
    };
    let un = is_nan(a) || is_nan(b);
    let (ka, kb) = (key(a), key(b));
    let ordered = |o: &str| match o {
        "eq" => ka == kb,
        "ne" => ka != kb,
        "lt" => ka < kb,
        "le" => ka <= kb,
        "gt" => ka > kb,
        _ => ka >= kb,
    };
    match op {
        "num" => !un,
        "nan" => un,
        o if o.ends_with('u') => un || ordered(&o[..2]),
        o => !un && ordered(o),
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A 16-bit pattern, half of the time from the boundary values of both formats.
    fn half(&mut self) -> u64 {
        const EDGE: [u64; 16] = [
            0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01,
            0x3C00, 0x007F, 0x0080, 0x7F80, 0x7FC0,
        ];
        let r = self.next();
        if r & 1 == 0 {
            EDGE[(r >> 8) as usize % EDGE.len()] ^ ((r >> 32) & 0x8000)
        } else {
            (r >> 16) & 0xFFFF
        }
    }
}

const CMPOPS: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

/// Checks `samples` inputs of one variant against the reference; the variant text is split
/// into its modifiers to know what to compute.
fn check_variant(text: &str, samples: usize, seed: u64) {
    let v = spec()
        .variants
        .iter()
        .find(|v| v.text == text && v.family == "set")
        .unwrap();
    let m: Vec<&str> = text.split('.').collect();
    let op = m[1];
    let bool_op = ["and", "or", "xor"].into_iter().find(|b| m.contains(b));
    let ftz = m.contains(&"ftz");
    let (dtype, stype) = (m[m.len() - 2], m[m.len() - 1]);
    let bf16 = stype.starts_with("bf16");
    let packed = stype.ends_with("x2");
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    let mut rng = Rng(seed | 1);
    for _ in 0..samples {
        let lanes = if packed { 2 } else { 1 };
        let (mut a, mut b) = (0, 0);
        for i in 0..lanes {
            a |= rng.half() << (16 * i);
            b |= rng.half() << (16 * i);
        }
        let c = rng.next() & 1;
        let mut inputs = vec![a, b];
        if bool_op.is_some() {
            inputs.push(c);
        }
        ev.eval(&inputs, &mut out);
        let got: u64 = v.program.dests[0]
            .parts
            .iter()
            .zip(&out)
            .map(|(p, acc)| match acc {
                Accept::Exact(x) => x << p.lo,
                other => panic!("{text}: {other:?}"),
            })
            .sum();
        let mut want = 0;
        for i in 0..lanes {
            let t = reference(
                op,
                bf16,
                ftz,
                (a >> (16 * i)) & 0xFFFF,
                (b >> (16 * i)) & 0xFFFF,
            );
            let r = match bool_op {
                Some("and") => t && c == 1,
                Some("or") => t || c == 1,
                Some(_) => t ^ (c == 1),
                None => t,
            };
            let one = match dtype {
                "f16" | "f16x2" => 0x3C00,
                "bf16" | "bf16x2" => 0x3F80,
                "u32" | "s32" if !packed => 0xFFFF_FFFF,
                _ => 0xFFFF,
            };
            if r {
                want |= one << (16 * i);
            }
        }
        assert_eq!(got, want, "{text} a={a:#x} b={b:#x} c={c}");
    }
}

#[test]
fn representative_variants_match_an_independent_compare_on_a_million_inputs() {
    for (i, text) in [
        "set.lt.ftz.f16.f16",
        "set.neu.and.u32.f16",
        "set.geu.or.ftz.s16.f16",
        "set.nan.xor.s32.bf16",
        "set.le.bf16.f16",
        "set.gtu.and.ftz.f16x2.f16x2",
        "set.eq.xor.u32.bf16x2",
    ]
    .into_iter()
    .enumerate()
    {
        check_variant(text, 1_000_000, 0x9E37_79B9_7F4A_7C15 ^ i as u64);
    }
}

#[test]
fn every_half_source_variant_matches_an_independent_compare() {
    let mut n = 0;
    for (i, v) in spec()
        .variants
        .iter()
        .filter(|v| v.family == "set")
        .enumerate()
    {
        let stype = v.text.rsplit('.').next().unwrap();
        if ["f16", "bf16", "f16x2", "bf16x2"].contains(&stype) {
            assert!(CMPOPS.contains(&v.text.split('.').nth(1).unwrap()));
            check_variant(&v.text, 4_000, i as u64 + 1);
            n += 1;
        }
    }
    assert_eq!(n, 14 * 96);
}
