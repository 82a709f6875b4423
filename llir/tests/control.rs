//! Control flow read into one program, run by the evaluator: `phi` takes the value of the edge
//! taken, a branch or switch on poison is undefined behaviour only where it is reached, a
//! reached `unreachable` likewise, loops run to the bound and say where they went past it, and
//! a call of the module's own function is its body. Each case has a twin that differs.

use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

/// Every part's accept set of `func` (or the one function) of `text` at `inputs`: the result,
/// then `bounded` where the function has loops.
fn eval_fn(text: &str, func: Option<&str>, inputs: &[u64]) -> Vec<Accept> {
    let f = semfuzz_llir::load(spec(), "t.ll", text, func).unwrap_or_else(|e| panic!("{e}"));
    let mut ev = Evaluator::new(&f.program);
    let mut out = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut out);
    out
}

fn eval(text: &str, inputs: &[u64]) -> Accept {
    eval_fn(text, None, inputs)[0]
}

const ONE: u64 = 0x3f80_0000;
const TWO: u64 = 0x4000_0000;
const FOUR: u64 = 0x4080_0000;
const MINUS_ONE: u64 = 0xbf80_0000;

const DIAMOND: &str = "define float @f(float %x) {
entry:
  %neg = fcmp olt float %x, 0.0
  br i1 %neg, label %a, label %b
a:
  %n = fneg float %x
  br label %join
b:
  %d = fmul float %x, 2.0
  br label %join
join:
  %r = phi float [ %n, %a ], [ %d, %b ]
  ret float %r
}
";

/// LangRef 'phi': "the value specified by the pair corresponding to the predecessor basic
/// block that executed just prior to the current block".
#[test]
fn phi_takes_the_value_of_the_edge_taken() {
    assert_eq!(eval(DIAMOND, &[MINUS_ONE]), Accept::Exact(ONE));
    assert_eq!(eval(DIAMOND, &[ONE]), Accept::Exact(TWO));
    assert_eq!(eval(DIAMOND, &[TWO]), Accept::Exact(FOUR));
}

const BRANCH_ON: &str = "define i32 @f(i32 %a, i32 %b) {
entry:
  %s = add nsw i32 %a, %b
  %c = icmp sgt i32 %s, 0
  br i1 %c, label %yes, label %no
yes:
  ret i32 1
no:
  ret i32 2
}
";

/// LangRef 'br': "If 'cond' is poison or undef, this instruction has undefined behavior"
/// (Alive2 likewise): a branch on an overflowing `add nsw` allows anything; the same branch
/// on a defined sum is one of its arms.
#[test]
fn a_branch_on_poison_is_undefined_behaviour() {
    let a = eval(BRANCH_ON, &[0x7fff_ffff, 1]);
    assert!(matches!(a, Accept::Ub(_)), "{a:?}");
    assert_eq!(eval(BRANCH_ON, &[1, 1]), Accept::Exact(1));
    assert_eq!(eval(BRANCH_ON, &[0, 0]), Accept::Exact(2));
}

const POISON_OFF_PATH: &str = "define i32 @f(i1 %go, i32 %a) {
entry:
  br i1 %go, label %risky, label %safe
risky:
  %s = add nsw i32 %a, 1
  %c = icmp sgt i32 %s, 0
  br i1 %c, label %safe, label %other
safe:
  ret i32 7
other:
  ret i32 8
}
";

/// Undefined behaviour counts only on the path that reaches it: the branch on poison is never
/// executed when `%go` is false.
#[test]
fn undefined_behaviour_counts_only_where_reached() {
    let a = eval(POISON_OFF_PATH, &[1, 0x7fff_ffff]);
    assert!(matches!(a, Accept::Ub(_)), "{a:?}");
    assert_eq!(eval(POISON_OFF_PATH, &[0, 0x7fff_ffff]), Accept::Exact(7));
}

const SWITCH_UNREACHABLE: &str = "define i32 @f(i32 %k) {
entry:
  switch i32 %k, label %never [
    i32 0, label %zero
    i32 5, label %five
  ]
zero:
  ret i32 10
five:
  ret i32 50
never:
  unreachable
}
";

/// A switch picks its case; a reached `unreachable` is undefined behaviour (LangRef: "The
/// behavior of this instruction is undefined").
#[test]
fn switch_cases_and_reached_unreachable() {
    assert_eq!(eval(SWITCH_UNREACHABLE, &[0]), Accept::Exact(10));
    assert_eq!(eval(SWITCH_UNREACHABLE, &[5]), Accept::Exact(50));
    assert!(matches!(eval(SWITCH_UNREACHABLE, &[3]), Accept::Ub(_)));
}

const COUNT: &str = "define i32 @f(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %j = add i32 %i, 1
  %more = icmp ult i32 %j, %n
  br i1 %more, label %loop, label %exit
exit:
  ret i32 %j
}
";

/// A loop runs its header at most the bound (8) times: within it, the result is the count and
/// `bounded` holds; past it, `bounded` is false (what a refinement query assumes away).
#[test]
fn loops_run_to_the_bound_and_say_where_they_went_past_it() {
    let f = semfuzz_llir::load(spec(), "t.ll", COUNT, None).expect("reads");
    assert_eq!(f.unrolled, Some(8));
    assert_eq!(
        f.program.dests.last().map(|d| d.name.as_str()),
        Some(semfuzz_llir::BOUNDED)
    );
    for n in [0, 1, 5, 8] {
        let out = eval_fn(COUNT, None, &[n]);
        assert_eq!(out[0], Accept::Exact(n.max(1)), "n = {n}");
        assert_eq!(out[1], Accept::Exact(1), "n = {n} is within the bound");
    }
    assert_eq!(eval_fn(COUNT, None, &[9])[1], Accept::Exact(0));
    // Without a loop, no such destination.
    let f = semfuzz_llir::load(spec(), "t.ll", DIAMOND, None).expect("reads");
    assert_eq!((f.unrolled, f.program.dests.len()), (None, 1));
}

const CALLS: &str = "define internal float @twice(float %x) {
  %r = fadd float %x, %x
  ret float %r
}

define float @f(float %a) {
  %t = call float @twice(float %a)
  %u = call float @twice(float %t)
  ret float %u
}

define i32 @g(i32 %a) {
  %r = call i32 @g(i32 %a)
  ret i32 %r
}
";

/// A call of the module's own function is its body on the arguments; recursion is a located
/// `unsupported`.
#[test]
fn calls_are_inlined_and_recursion_is_refused() {
    assert_eq!(eval_fn(CALLS, Some("f"), &[ONE])[0], Accept::Exact(FOUR));
    let e = semfuzz_llir::load(spec(), "t.ll", CALLS, Some("g")).expect_err("recursive");
    assert!(e.message.starts_with("unsupported recursion"), "{e}");
    assert!(e.span.is_some(), "located");
}

/// A loop with two entries has no header that dominates it: a located `unsupported`.
#[test]
fn irreducible_loops_are_refused() {
    let text = "define i32 @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  br label %a
}
";
    let e = semfuzz_llir::load(spec(), "t.ll", text, None).expect_err("irreducible");
    assert!(e.message.contains("irreducible"), "{e}");
}
