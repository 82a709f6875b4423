//! Poison and undefined behaviour as LangRef defines them, read by the evaluator on whole
//! functions: poison propagates through what reads it, `select` takes it from the chosen arm
//! only, `freeze` stops it with one value, a division by zero makes the function undefined,
//! and a poison or undefined result allows any bits. Each case has a twin that is defined.

use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// The accept set of `text`'s one function's result at `inputs`, and whether the evaluator
/// met an open intermediate choice (a lane or value it could only pick one member of).
fn eval(text: &str, inputs: &[u64]) -> (Accept, bool) {
    let f = semfuzz_llir::load(spec(), "t.ll", text, None).unwrap_or_else(|e| panic!("{e}"));
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    (out[0], ev.met_open_choice())
}

const SHL15_NSW_SEXT: &str = "define i32 @f(i16 %x) {
  %s = shl nsw i16 %x, 15
  %e = sext i16 %s to i32
  ret i32 %e
}
";

/// FuzzX NVPTX #002's IR: `shl nsw` that shifts out bits unlike the sign is poison, and so is
/// its `sext` (the old reading, "any i16, sign-extended", allowed only 2^16 values).
#[test]
fn poison_propagates_through_what_reads_it() {
    let (a, _) = eval(SHL15_NSW_SEXT, &[0xa43d]);
    assert!(matches!(a, Accept::Poison(32)), "{a:?}");
    assert!(
        a.accepts(0x2de1_8000),
        "any bits, not only a sign extension"
    );
    let (a, _) = eval(SHL15_NSW_SEXT, &[0xffff]);
    assert_eq!(a, Accept::Exact(0xffff_8000));
    let (a, _) = eval(SHL15_NSW_SEXT, &[0]);
    assert_eq!(a, Accept::Exact(0));
}

const SELECT: &str = "define float @f(i1 %c, float %a, float %b) {
  %p = fadd nnan float %a, %a
  %r = select i1 %c, float %p, float %b
  ret float %r
}
";

const NAN: u64 = 0x7fc0_0000;
const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;

/// LangRef 'select': poison from the condition and from the chosen arm, never the other.
#[test]
fn select_takes_poison_from_the_chosen_arm_only() {
    // a = NaN: `fadd nnan` is poison.
    let (a, _) = eval(SELECT, &[1, NAN, TWO]);
    assert!(matches!(a, Accept::Poison(_)), "chosen poison arm: {a:?}");
    let (a, _) = eval(SELECT, &[0, NAN, TWO]);
    assert_eq!(a, Accept::Exact(TWO), "the poison arm not chosen");
    let (a, _) = eval(SELECT, &[1, ONE, ONE]);
    assert_eq!(a, Accept::Exact(TWO));
    let cond = "define float @f(float %a, float %b) {
  %c = fcmp oeq float poison, %a
  %r = select i1 %c, float %a, float %b
  ret float %r
}
";
    let (a, _) = eval(cond, &[ONE, TWO]);
    assert!(matches!(a, Accept::Poison(_)), "poison condition: {a:?}");
}

/// LangRef 'freeze': poison becomes "an arbitrary, but fixed, value": both reads of it see the
/// same value, so `x ^ x` is 0; without freeze the xor of poison is poison.
#[test]
fn freeze_stops_poison_with_one_value() {
    let frozen = "define i32 @f(i32 %a) {
  %p = shl i32 %a, 32
  %f = freeze i32 %p
  %r = xor i32 %f, %f
  ret i32 %r
}
";
    assert_eq!(eval(frozen, &[7]).0, Accept::Exact(0));
    let (a, _) = eval(&frozen.replace("freeze i32 %p", "add i32 %p, 0"), &[7]);
    assert!(matches!(a, Accept::Poison(_)), "{a:?}");
    // A frozen value that is not poison is the value.
    let defined = frozen
        .replace("shl i32 %a, 32", "shl i32 %a, 1")
        .replace("xor i32 %f, %f", "add i32 %f, 0");
    assert_eq!(eval(&defined, &[7]).0, Accept::Exact(14));
}

/// LangRef 'udiv': "Division by zero is undefined behavior", even where the quotient is never
/// used; a poisoned divisor may be zero.
#[test]
fn division_by_zero_is_undefined_behaviour() {
    let unused = "define i32 @f(i32 %a, i32 %b, i32 %c) {
  %q = udiv i32 %a, %b
  ret i32 %c
}
";
    assert!(matches!(eval(unused, &[1, 0, 9]).0, Accept::Ub(32)));
    assert_eq!(eval(unused, &[1, 1, 9]).0, Accept::Exact(9));
    let poisoned_divisor = "define i32 @f(i32 %a, i32 %b, i32 %c) {
  %d = shl nuw i32 %b, 1
  %q = sdiv i32 %a, %d
  ret i32 %c
}
";
    assert!(matches!(
        eval(poisoned_divisor, &[1, 0x8000_0001, 9]).0,
        Accept::Ub(_)
    ));
    assert_eq!(eval(poisoned_divisor, &[1, 2, 9]).0, Accept::Exact(9));
}

/// Vectors carry poison lane by lane: a poison lane allows any bits in its lane alone, moved
/// by shufflevector, and a poison mask element is a poison lane.
#[test]
fn vector_lanes_are_poison_one_by_one() {
    let lanes = "define <2 x i32> @f(<2 x i32> %a) {
  %s = shl nuw <2 x i32> %a, <i32 1, i32 1>
  %r = shufflevector <2 x i32> %s, <2 x i32> %a, <2 x i32> <i32 1, i32 2>
  ret <2 x i32> %r
}
";
    // Lane 0 of %s (from a's lane 0 = 0x80000000) is poison but not selected; the result is
    // (s[1], a[0]) = (6, 0x80000000).
    let (a, open) = eval(lanes, &[0x0000_0003_8000_0000]);
    assert_eq!(
        a,
        Accept::Exact(0x8000_0000_0000_0006),
        "open choice: {open}"
    );
    // Lane 1 of %s poisoned: the result's lane 0 is any value, lane 1 is a[0].
    let (a, open) = eval(lanes, &[0x8000_0000_0000_0005]);
    assert!(open, "a poison lane is a choice of the result");
    assert_eq!(a.representative() >> 32, 5, "{a:?}");
    let masked = lanes.replace("<i32 1, i32 2>", "<i32 1, i32 poison>");
    let (a, open) = eval(&masked, &[0x0000_0003_0000_0001]);
    assert!(open, "a poison mask element is a poison lane");
    assert_eq!(a.representative() & 0xffff_ffff, 6, "{a:?}");
}

/// `poison` and `undef` constants: poison propagates; undef is some value at each use, never
/// poison.
#[test]
fn poison_and_undef_constants() {
    let poison = "define i32 @f(i32 %a) {
  %r = add i32 %a, poison
  ret i32 %r
}
";
    assert!(matches!(eval(poison, &[1]).0, Accept::Poison(_)));
    let undef = "define i32 @f(i32 %a) {
  %r = and i32 %a, undef
  ret i32 %r
}
";
    let (a, open) = eval(undef, &[0]);
    assert!(!matches!(a, Accept::Poison(_)), "{a:?}");
    assert!(open, "undef is a choice");
    // and 0 with anything is 0.
    assert_eq!(a.representative(), 0);
}
