//! An arbitrary variant and input tuple: the evaluator's accept set is exactly what the Z3
//! formulas admit (`smt::consistency::Checker`, as `semfuzz selfcheck` does on sampled inputs).
//!
//! A query Z3 cannot answer within the timeout is skipped, not a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;
use semfuzz_libfuzzer::{hex, spec, VariantCase};
use semfuzz_smt::consistency::{Checker, Inconsistency};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;
use std::sync::OnceLock;

/// Per query: long enough for every f64 query selfcheck answers, short enough to keep
/// libFuzzer's executions per second useful.
const TIMEOUT_MS: u32 = 2_000;

fuzz_target!(|case: VariantCase| {
    static ALL: OnceLock<Vec<&'static Variant>> = OnceLock::new();
    let all = ALL.get_or_init(|| spec().variants.iter().collect());
    let Some((v, inputs)) = case.pick(all) else {
        return;
    };
    let mut ev = Evaluator::new(&v.program);
    let mut expected = vec![Accept::default(); ev.n_parts()];
    ev.eval(&inputs, &mut expected);
    match Checker::new(&v.program, TIMEOUT_MS).check(&inputs, &expected) {
        Ok(()) | Err(Inconsistency::Unknown(_)) => {}
        Err(e) => panic!("{} on {}: {e}", v.text, hex(&inputs)),
    }
});
