//! The integer, logic, shift, selection and data-movement instructions (PTX ISA 9.7.1, 9.7.6,
//! 9.7.8, 9.7.9; the text relied on is in `spec/isa-docs/`) against independent models: Rust's
//! own integer operations, `i128` for the high halves and wide products, the manual's
//! pseudo-code for bfe and bfi transcribed bit by bit, prmt's tables as the manual prints them,
//! and the host's f32/f64 comparisons for setp and slct. Every variant of each family is run
//! on boundary values (0, ±1, the extremes, shift amounts around the width) and random ones.

mod common;
use common::spec;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;

/// A deterministic stream (SplitMix64), so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn mask(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

/// `x` (`w` bits) as a signed integer.
fn sx(x: u64, w: u32) -> i64 {
    ((x << (64 - w)) as i64) >> (64 - w)
}

/// Boundary values of a `w`-bit integer, then `n` random ones.
fn values(w: u32, n: usize, seed: u64) -> Vec<u64> {
    let m = mask(w);
    let min = 1u64 << (w - 1);
    let mut v = vec![
        0,
        1,
        2,
        3,
        7,
        8,
        15,
        16,
        31,
        32,
        33,
        63,
        64,
        65,
        255,
        256,
        0xFFFF,
        m,
        m - 1,
        min,
        min + 1,
        min - 1,
        min - 2,
    ];
    v.iter_mut().for_each(|x| *x &= m);
    let mut r = Rng(seed);
    for _ in 0..n {
        // Random bits, and small magnitudes (where the sign and carries change).
        let x = r.next();
        v.push(if x & 1 == 0 { x & m } else { (x >> 1) % 300 } & m);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Evaluates `instr` (one destination) on `inputs`: its exact result.
fn run(instr: &str, inputs: &[u64]) -> u64 {
    let out = run_all(instr, inputs);
    match out[..] {
        [Accept::Exact(b)] => b,
        ref other => panic!("{instr} {inputs:x?}: expected one exact result, got {other:?}"),
    }
}

/// Evaluates `instr` on `inputs`: the accept set of every destination part.
fn run_all(instr: &str, inputs: &[u64]) -> Vec<Accept> {
    let v = spec()
        .lookup(instr, Some(inputs.len()))
        .unwrap_or_else(|d| panic!("{instr}: {d}"));
    let mut ev = Evaluator::new(&v.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

const INT_TYPES: [(&str, u32, bool); 6] = [
    ("u16", 16, false),
    ("u32", 32, false),
    ("u64", 64, false),
    ("s16", 16, true),
    ("s32", 32, true),
    ("s64", 64, true),
];

/// Checks a two-source instruction on every pair of `values`.
fn pairs(instr: &str, w: u32, model: impl Fn(u64, u64) -> u64) {
    let vs = values(w, 40, w as u64);
    for &a in &vs {
        for &b in &vs {
            assert_eq!(run(instr, &[a, b]), model(a, b), "{instr} {a:#x}, {b:#x}");
        }
    }
}

#[test]
fn add_sub_wrap_and_saturate() {
    for (t, w, _) in INT_TYPES {
        let m = mask(w);
        pairs(&format!("add.{t}"), w, |a, b| a.wrapping_add(b) & m);
        pairs(&format!("sub.{t}"), w, |a, b| a.wrapping_sub(b) & m);
    }
    let sat = |r: i64| r.clamp(i32::MIN.into(), i32::MAX.into()) as u64 & mask(32);
    pairs("add.sat.s32", 32, |a, b| sat(sx(a, 32) + sx(b, 32)));
    pairs("sub.sat.s32", 32, |a, b| sat(sx(a, 32) - sx(b, 32)));
}

/// The exact product of two `w`-bit integers as the type reads them, as its two's-complement
/// 128 bits (a product of 64-bit factors needs all of them, signed or not).
fn product(a: u64, b: u64, w: u32, signed: bool) -> u128 {
    if signed {
        (i128::from(sx(a, w)) * i128::from(sx(b, w))) as u128
    } else {
        u128::from(a) * u128::from(b)
    }
}

#[test]
fn mul_lo_hi_wide_against_i128() {
    for (t, w, s) in INT_TYPES {
        pairs(&format!("mul.lo.{t}"), w, |a, b| {
            product(a, b, w, s) as u64 & mask(w)
        });
        pairs(&format!("mul.hi.{t}"), w, |a, b| {
            (product(a, b, w, s) >> w) as u64 & mask(w)
        });
        if w < 64 {
            pairs(&format!("mul.wide.{t}"), w, |a, b| {
                product(a, b, w, s) as u64 & mask(2 * w)
            });
        } else {
            assert!(spec().lookup(&format!("mul.wide.{t}"), Some(2)).is_err());
        }
    }
}

#[test]
fn mad_against_i128() {
    for (t, w, s) in INT_TYPES {
        let vs = values(w, 12, 3 + w as u64);
        for &a in &vs {
            for &b in &vs {
                for &c in vs.iter().step_by(3) {
                    let p = product(a, b, w, s);
                    let lo = (p as u64).wrapping_add(c) & mask(w);
                    let hi = ((p >> w) as u64).wrapping_add(c) & mask(w);
                    assert_eq!(run(&format!("mad.lo.{t}"), &[a, b, c]), lo);
                    assert_eq!(run(&format!("mad.hi.{t}"), &[a, b, c]), hi);
                    if w < 64 {
                        let c2 = c | (c << w);
                        let wide = (p as u64).wrapping_add(c2) & mask(2 * w);
                        assert_eq!(
                            run(&format!("mad.wide.{t}"), &[a, b, c2]),
                            wide,
                            "mad.wide.{t} {a:#x} {b:#x} {c2:#x}"
                        );
                    }
                    if t == "s32" {
                        let r = sx((p >> 32) as u64, 32) + sx(c, 32);
                        let sat = r.clamp(i32::MIN.into(), i32::MAX.into()) as u64 & mask(32);
                        assert_eq!(run("mad.hi.sat.s32", &[a, b, c]), sat);
                    }
                }
            }
        }
    }
}

#[test]
fn neg_abs_min_max() {
    for (t, w, s) in INT_TYPES {
        let m = mask(w);
        let lt = |a: u64, b: u64| if s { sx(a, w) < sx(b, w) } else { a < b };
        pairs(&format!("min.{t}"), w, |a, b| if lt(a, b) { a } else { b });
        pairs(&format!("max.{t}"), w, |a, b| if lt(b, a) { a } else { b });
        if s {
            for a in values(w, 100, 9) {
                assert_eq!(run(&format!("neg.{t}"), &[a]), a.wrapping_neg() & m);
                let abs = sx(a, w).wrapping_abs() as u64 & m;
                assert_eq!(run(&format!("abs.{t}"), &[a]), abs, "abs.{t} {a:#x}");
            }
        }
    }
    pairs("min.relu.s32", 32, |a, b| {
        sx(a, 32).min(sx(b, 32)).max(0) as u64
    });
    pairs("max.relu.s32", 32, |a, b| {
        sx(a, 32).max(sx(b, 32)).max(0) as u64
    });
}

#[test]
fn logic() {
    for w in [16, 32, 64] {
        let m = mask(w);
        pairs(&format!("and.b{w}"), w, |a, b| a & b);
        pairs(&format!("or.b{w}"), w, |a, b| a | b);
        pairs(&format!("xor.b{w}"), w, |a, b| a ^ b);
        for a in values(w, 50, 4) {
            assert_eq!(run(&format!("not.b{w}"), &[a]), !a & m);
            assert_eq!(run(&format!("cnot.b{w}"), &[a]), u64::from(a == 0));
        }
    }
    for a in 0..2u64 {
        assert_eq!(run("not.pred", &[a]), a ^ 1);
        for b in 0..2u64 {
            assert_eq!(run("and.pred", &[a, b]), a & b);
            assert_eq!(run("or.pred", &[a, b]), a | b);
            assert_eq!(run("xor.pred", &[a, b]), a ^ b);
        }
    }
}

/// popc, clz and brev against Rust's `count_ones`, `leading_zeros` and `reverse_bits`; the
/// counts are a .u32 for both types (9.7.1.14: "destination d has type .u32").
#[test]
fn popc_clz_brev() {
    for a in values(32, 300, 14) {
        let x = a as u32;
        assert_eq!(run("popc.b32", &[a]), u64::from(x.count_ones()), "{a:#x}");
        assert_eq!(run("clz.b32", &[a]), u64::from(x.leading_zeros()), "{a:#x}");
        assert_eq!(run("brev.b32", &[a]), u64::from(x.reverse_bits()), "{a:#x}");
    }
    for a in values(64, 300, 15) {
        assert_eq!(run("popc.b64", &[a]), u64::from(a.count_ones()), "{a:#x}");
        assert_eq!(run("clz.b64", &[a]), u64::from(a.leading_zeros()), "{a:#x}");
        assert_eq!(run("brev.b64", &[a]), a.reverse_bits(), "{a:#x}");
    }
    let v = spec().lookup("popc.b64", Some(1)).expect("popc.b64");
    assert_eq!(v.dests[0].width, 32, "a .u32 count");
}

#[test]
fn shifts_clamp_the_amount() {
    let amounts: Vec<u64> = (0..=70)
        .chain([127, 128, 255, 256, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF])
        .collect();
    for w in [16u32, 32, 64] {
        for a in values(w, 20, 5) {
            for &n in &amounts {
                // "Shift amounts greater than the register width N are clamped to N."
                let k = n.min(u64::from(w)) as u32;
                let shl = if k >= w { 0 } else { (a << k) & mask(w) };
                let shr = if k >= w { 0 } else { a >> k };
                let sar = (sx(a, w) >> k.min(w - 1)) as u64 & mask(w);
                assert_eq!(
                    run(&format!("shl.b{w}"), &[a, n]),
                    shl,
                    "shl.b{w} {a:#x} {n}"
                );
                assert_eq!(
                    run(&format!("shr.b{w}"), &[a, n]),
                    shr,
                    "shr.b{w} {a:#x} {n}"
                );
                assert_eq!(
                    run(&format!("shr.u{w}"), &[a, n]),
                    shr,
                    "shr.u{w} {a:#x} {n}"
                );
                assert_eq!(
                    run(&format!("shr.s{w}"), &[a, n]),
                    sar,
                    "shr.s{w} {a:#x} {n}"
                );
            }
        }
    }
}

/// The two readings of "restricted to the 8-bit value range 0..255" (docs/ambiguities.md 120):
/// the pseudo-code's `& 0xff`, and the prose's clamp.
const READINGS: [fn(u64) -> u64; 2] = [|x| x & 0xff, |x| x.min(0xff)];

/// 9.7.1.19 bfe's pseudo-code, transcribed, with `field` reading `pos` and `len`.
fn bfe_manual(a: u64, b: u64, c: u64, w: u32, signed: bool, field: fn(u64) -> u64) -> u64 {
    let msb = w as u64 - 1;
    let pos = field(b);
    let len = field(c);
    let sbit = if !signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// 9.7.1.20 bfi's pseudo-code, transcribed, with `field` reading `pos` and `len`.
fn bfi_manual(a: u64, b: u64, c: u64, d: u64, w: u32, field: fn(u64) -> u64) -> u64 {
    let msb = w as u64 - 1;
    let pos = field(c);
    let len = field(d);
    let mut f = b;
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

/// The results the two readings give, each once, in order.
fn readings(model: impl Fn(fn(u64) -> u64) -> u64) -> Vec<u64> {
    let mut v: Vec<u64> = READINGS.iter().map(|&f| model(f)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The results the spec allows for `instr` (one destination, exact or one of a few), in order.
fn allowed(instr: &str, inputs: &[u64]) -> Vec<u64> {
    let out = run_all(instr, inputs);
    let mut v = match out[..] {
        [ref a @ (Accept::Exact(_) | Accept::OneOf { .. })] => a.values().to_vec(),
        ref other => panic!("{instr} {inputs:x?}: expected listed results, got {other:?}"),
    };
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn bfe_bfi_against_the_manuals_pseudo_code() {
    let fields: Vec<u64> = [
        0, 1, 2, 5, 8, 15, 16, 24, 31, 32, 33, 40, 63, 64, 65, 100, 255,
    ]
    .into_iter()
    .chain([256, 257, 0x1_0000_0010, 0xFFFF_FF08])
    .collect();
    for (t, w, s) in [
        ("u32", 32, false),
        ("u64", 64, false),
        ("s32", 32, true),
        ("s64", 64, true),
    ] {
        for a in values(w, 6, 6) {
            for &b in &fields {
                for &c in &fields {
                    let (b, c) = (b & mask(32), c & mask(32));
                    assert_eq!(
                        allowed(&format!("bfe.{t}"), &[a, b, c]),
                        readings(|f| bfe_manual(a, b, c, w, s, f)),
                        "bfe.{t} {a:#x}, {b}, {c}"
                    );
                }
            }
        }
    }
    for w in [32u32, 64] {
        let vs = values(w, 3, 7);
        for &a in &vs {
            for &b in vs.iter().step_by(4) {
                for &c in &fields {
                    for &d in &fields {
                        let (c, d) = (c & mask(32), d & mask(32));
                        assert_eq!(
                            allowed(&format!("bfi.b{w}"), &[a, b, c, d]),
                            readings(|f| bfi_manual(a, b, c, d, w, f)),
                            "bfi.b{w} {a:#x}, {b:#x}, {c}, {d}"
                        );
                    }
                }
            }
        }
    }
    // 9.7.1.19: "If the bit field length is zero, the result is zero." 9.7.1.20: "If the bit
    // field length is zero, the result is b." "If the start position is beyond the msb of the
    // input, the result is b."
    assert_eq!(run("bfe.s32", &[0xFFFF_FFFF, 4, 0]), 0);
    assert_eq!(run("bfi.b32", &[0xFFFF_FFFF, 0x1234, 4, 0]), 0x1234);
    assert_eq!(run("bfi.b32", &[0xFFFF_FFFF, 0x1234, 32, 8]), 0x1234);
    // The bf16-rounding idiom of issue 17: bit 16 of a float's bits.
    assert_eq!(run("bfe.u32", &[0x3F81_0000, 16, 1]), 1);
}

/// prmt's mode tables, as 9.7.9.7 prints them: per mode and selector, the source byte of
/// d.b3, d.b2, d.b1, d.b0.
const PRMT_TABLES: [(&str, [[u64; 4]; 4]); 6] = [
    (
        "f4e",
        [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
    ),
    (
        "b4e",
        [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
    ),
    (
        "rc8",
        [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecl",
        [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
    ),
    (
        "ecr",
        [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
    ),
    (
        "rc16",
        [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    ),
];

#[test]
fn prmt_against_the_manuals_tables() {
    let mut r = Rng(11);
    for _ in 0..300 {
        let (a, b, c) = (
            r.next() & mask(32),
            r.next() & mask(32),
            r.next() & mask(32),
        );
        let src = (b << 32) | a;
        let byte = |k: u64| (src >> (8 * k)) & 0xFF;
        // The default mode: "The 3 lsbs of the selection value specify which of the 8 source
        // bytes ... msb=1 means replicate the sign".
        let mut want = 0;
        for i in 0..4 {
            let ctl = (c >> (4 * i)) & 0xF;
            let v = byte(ctl & 7);
            let v = if ctl & 8 != 0 {
                if v & 0x80 != 0 {
                    0xFF
                } else {
                    0
                }
            } else {
                v
            };
            want |= v << (8 * i);
        }
        assert_eq!(
            run("prmt.b32", &[a, b, c]),
            want,
            "prmt.b32 {a:#x} {b:#x} {c:#x}"
        );
        for (mode, table) in PRMT_TABLES {
            let row = table[(c & 3) as usize];
            let want = (0..4).fold(0, |acc, i| acc | byte(row[3 - i]) << (8 * i));
            assert_eq!(
                run(&format!("prmt.b32.{mode}"), &[a, b, c]),
                want,
                "prmt.b32.{mode} {a:#x} {b:#x} {c:#x}"
            );
        }
    }
}

/// The integer comparisons of 9.3.1.1 Table 22 (`lo ls hi hs` unsigned).
fn int_cmp(op: &str, a: u64, b: u64, w: u32, signed: bool) -> bool {
    let (x, y) = if signed {
        (i128::from(sx(a, w)), i128::from(sx(b, w)))
    } else {
        (i128::from(a), i128::from(b))
    };
    match op {
        "eq" => x == y,
        "ne" => x != y,
        "lt" | "lo" => x < y,
        "le" | "ls" => x <= y,
        "gt" | "hi" => x > y,
        _ => x >= y,
    }
}

/// The floating-point comparisons of 9.3.1.2 Tables 23-25, by the host's comparisons.
fn float_cmp(op: &str, x: f64, y: f64) -> bool {
    let un = x.is_nan() || y.is_nan();
    match op {
        "eq" => x == y,
        "ne" => !un && x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "equ" => un || x == y,
        "neu" => x != y,
        "ltu" => un || x < y,
        "leu" => un || x <= y,
        "gtu" => un || x > y,
        "geu" => un || x >= y,
        "num" => !un,
        _ => un,
    }
}

/// setp's two destinations for compare result `t` (9.7.6.2: "p = BoolOp(t, c); q =
/// BoolOp(!t, c);").
fn setp_want(bool_op: Option<&str>, t: bool, c: bool) -> [Accept; 2] {
    let f = |t: bool| match bool_op {
        None => t,
        Some("and") => t && c,
        Some("or") => t || c,
        _ => t ^ c,
    };
    [Accept::Exact(f(t).into()), Accept::Exact(f(!t).into())]
}

#[test]
fn setp_integer() {
    let ops = ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"];
    for (t, w, s) in INT_TYPES {
        let vs = values(w, 8, 8);
        for op in ops {
            if ["lo", "ls", "hi", "hs"].contains(&op) && s {
                assert!(spec().lookup(&format!("setp.{op}.{t}"), Some(2)).is_err());
                continue;
            }
            for bool_op in [None, Some("and"), Some("or"), Some("xor")] {
                let text = match bool_op {
                    Some(b) => format!("setp.{op}.{b}.{t}"),
                    None => format!("setp.{op}.{t}"),
                };
                for &a in &vs {
                    for &b in &vs {
                        for c in 0..2u64 {
                            let cmp = int_cmp(op, a, b, w, s);
                            let inputs = if bool_op.is_some() {
                                vec![a, b, c]
                            } else {
                                vec![a, b]
                            };
                            assert_eq!(
                                run_all(&text, &inputs),
                                setp_want(bool_op, cmp, c != 0),
                                "{text} {a:#x} {b:#x} {c}"
                            );
                        }
                    }
                }
            }
        }
    }
    // Bit-size types compare for equality only (9.3.1.1).
    assert_eq!(
        run_all("setp.eq.b32", &[5, 5]),
        setp_want(None, true, false)
    );
    assert!(spec().lookup("setp.lt.b32", Some(2)).is_err());
}

/// f32 and f64 values around the comparisons' edges: zeros, NaNs, infinities, subnormals.
fn float_values(f64_format: bool) -> Vec<u64> {
    if f64_format {
        [
            0.0f64,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f64::INFINITY,
            -f64::INFINITY,
            f64::NAN,
            5e-324,
            -5e-324,
            f64::MAX,
        ]
        .iter()
        .map(|x| x.to_bits())
        .chain([0x7FF0_0000_0000_0001, 0xFFF8_0000_0000_0000])
        .collect()
    } else {
        [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f32::INFINITY,
            -f32::INFINITY,
            f32::NAN,
            1e-45,
            -1e-45,
            1e-40,
            f32::MAX,
        ]
        .iter()
        .map(|x| u64::from(x.to_bits()))
        .chain([0x7F80_0001, 0xFFC0_0000])
        .collect()
    }
}

#[test]
fn setp_float() {
    let ops = [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    ];
    for (t, is64) in [("f32", false), ("f64", true)] {
        let vs = float_values(is64);
        let val = |b: u64, ftz: bool| -> f64 {
            if is64 {
                f64::from_bits(b)
            } else {
                let x = f32::from_bits(b as u32);
                // ".ftz flushes subnormal inputs to sign-preserving zero"
                if ftz && x.is_subnormal() {
                    if x.is_sign_negative() {
                        -0.0
                    } else {
                        0.0
                    }
                } else {
                    f64::from(x)
                }
            }
        };
        for op in ops {
            for ftz in [false, true] {
                if ftz && is64 {
                    continue;
                }
                let f = if ftz { ".ftz" } else { "" };
                for &a in &vs {
                    for &b in &vs {
                        let cmp = float_cmp(op, val(a, ftz), val(b, ftz));
                        assert_eq!(
                            run_all(&format!("setp.{op}{f}.{t}"), &[a, b]),
                            setp_want(None, cmp, false),
                            "setp.{op}{f}.{t} {a:#x} {b:#x}"
                        );
                        for c in 0..2 {
                            assert_eq!(
                                run_all(&format!("setp.{op}.xor{f}.{t}"), &[a, b, c]),
                                setp_want(Some("xor"), cmp, c != 0)
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn selp_and_slct_copy_bits() {
    let mut r = Rng(12);
    for t in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        let w: u32 = t[1..].parse().unwrap();
        for _ in 0..20 {
            let (a, b) = (r.next() & mask(w), r.next() & mask(w));
            assert_eq!(run(&format!("selp.{t}"), &[a, b, 1]), a);
            assert_eq!(run(&format!("selp.{t}"), &[a, b, 0]), b);
            for c in values(32, 10, 13) {
                let want = if sx(c, 32) >= 0 { a } else { b };
                assert_eq!(run(&format!("slct.{t}.s32"), &[a, b, c]), want);
            }
            for c in float_values(false) {
                let x = f32::from_bits(c as u32);
                // "negative zero equals zero"; "If operand c is NaN, ... operand b is
                // selected"; with .ftz a subnormal c is a zero: "operand a is selected".
                assert_eq!(
                    run(&format!("slct.{t}.f32"), &[a, b, c]),
                    if x >= 0.0 { a } else { b }
                );
                let flushed = x >= 0.0 || x.is_subnormal();
                assert_eq!(
                    run(&format!("slct.ftz.{t}.f32"), &[a, b, c]),
                    if flushed { a } else { b }
                );
            }
        }
    }
}

#[test]
fn mov_ld_st_move_bits() {
    let mut r = Rng(14);
    for t in [
        "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64",
    ] {
        let w: u32 = t[1..].parse().unwrap();
        let a = r.next() & mask(w);
        assert_eq!(run(&format!("mov.{t}"), &[a]), a);
    }
    assert_eq!(run("mov.pred", &[1]), 1);
    for t in [
        "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32",
        "f64",
    ] {
        let w: u32 = t[1..].parse().unwrap();
        let a = r.next() & mask(w);
        for ss in ["", ".param", ".global", ".const", ".local", ".shared"] {
            assert_eq!(run(&format!("ld{ss}.{t}"), &[a]), a);
            if ss != ".const" {
                assert_eq!(run(&format!("st{ss}.{t}"), &[a]), a);
            }
        }
        assert_eq!(run(&format!("ld.global.nc.{t}"), &[a]), a);
    }
    assert!(spec().lookup("st.const.b32", Some(1)).is_err());
    // 9.7.9.4: "d = a.x | (a.y << 16)", "{ d.x, d.y } = { a[0..15], a[16..31] }".
    assert_eq!(run("mov.b32", &[0x1234, 0xABCD]), 0xABCD_1234);
    assert_eq!(run("mov.b16", &[0x34, 0x12]), 0x1234);
    assert_eq!(
        run("mov.b64", &[0x1111_2222, 0x3333_4444]),
        0x3333_4444_1111_2222
    );
    assert_eq!(run("mov.b32", &[0x01, 0x02, 0x03, 0x04]), 0x0403_0201);
    assert_eq!(run("mov.b64", &[0x1, 0x2, 0x3, 0x4]), 0x0004_0003_0002_0001);
    let unpack = |text: &str, n_dests: usize, a: u64| {
        let v = spec().lookup_shape(text, n_dests, 1).unwrap();
        let mut ev = Evaluator::new(&v.program);
        let mut out = vec![Accept::default(); ev.n_parts()];
        ev.eval(&[a], &mut out);
        out
    };
    let exact = |xs: &[u64]| xs.iter().map(|&x| Accept::Exact(x)).collect::<Vec<_>>();
    assert_eq!(
        unpack("mov.b64", 2, 0x3333_4444_1111_2222),
        exact(&[0x1111_2222, 0x3333_4444])
    );
    assert_eq!(unpack("mov.b32", 2, 0xABCD_1234), exact(&[0x1234, 0xABCD]));
    assert_eq!(unpack("mov.b32", 4, 0x0403_0201), exact(&[1, 2, 3, 4]));
    assert_eq!(
        unpack("mov.b64", 4, 0x0004_0003_0002_0001),
        exact(&[1, 2, 3, 4])
    );
    assert_eq!(unpack("mov.b16", 2, 0x1234), exact(&[0x34, 0x12]));
    assert_eq!(unpack("mov.b64", 1, 0x77), exact(&[0x77]));
}
