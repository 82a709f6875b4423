//! An arbitrary variant, input tuple and backend result: the compiled evaluator (semfuzz-jit)
//! gives the interpreter's accept sets bit for bit, and its compiled accept-set test flags
//! the result exactly when some part of the interpreter's sets rejects it.
//!
//! Inputs keep the bits above each operand's width (`VariantCase::pick` masks them; the
//! evaluators must ignore them alike), so the raw values are used here.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_jit::{compile, Compiled, Evaluator, EvaluatorKind};
use semfuzz_libfuzzer::{hex, spec, VariantCase};
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Each variant compiled once (`None`: the JIT does not support it).
fn compiled(v: &'static Variant) -> Option<Arc<Compiled>> {
    static CODE: OnceLock<Mutex<HashMap<usize, Option<Arc<Compiled>>>>> = OnceLock::new();
    let map = CODE.get_or_init(Default::default);
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(v as *const Variant as usize)
        .or_insert_with(|| compile(&v.program).ok().map(Arc::new))
        .clone()
}

fuzz_target!(|data: (VariantCase, bool, u64)| {
    let (case, raw, result) = data;
    static ALL: OnceLock<Vec<&'static Variant>> = OnceLock::new();
    let all = ALL.get_or_init(|| spec().variants.iter().collect());
    let Some((v, mut inputs)) = case.pick(all) else {
        return;
    };
    if raw {
        // High garbage bits: both evaluators must ignore them alike.
        for ((x, r), &w) in inputs
            .iter_mut()
            .zip(&case.inputs)
            .zip(&v.program.input_widths)
        {
            *x |= r & !mask(w);
        }
    }
    let Some(code) = compiled(v) else { return };
    let mut interp = Evaluator::of_kind(&v.program, EvaluatorKind::Interp);
    let mut jit = Evaluator::compiled(&v.program, code);
    let mut want = vec![Accept::default(); interp.n_parts()];
    let mut got = want.clone();
    interp.eval(&inputs, &mut want);
    jit.eval(&inputs, &mut got);
    assert_eq!(
        got,
        want,
        "{} {}: compiled (left) and interpreted (right) accept sets differ",
        v.text,
        hex(&inputs)
    );
    let Some(dest) = v.program.dests.first() else {
        return;
    };
    // The result to screen: the representatives with the fuzzer's bits XORed in.
    let rep = dest
        .parts
        .iter()
        .zip(&want)
        .fold(0, |bits, (p, a)| bits | (a.representative() << p.lo));
    let bits = (rep ^ result) & mask(dest.width);
    let rejected = dest
        .parts
        .iter()
        .zip(&want)
        .any(|(p, a)| !a.accepts((bits >> p.lo) & mask(p.width)));
    let mut flag = [0xAA];
    if jit.screen(&inputs, 0, &[bits], &mut flag) {
        assert_eq!(
            flag[0] == 1,
            rejected,
            "{} {}: result 0x{bits:x}: the compiled test says {}",
            v.text,
            hex(&inputs),
            if flag[0] == 1 { "rejected" } else { "accepted" }
        );
    }
});
