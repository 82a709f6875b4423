//! What the integration tests share: the evaluator's verdict on a backend's bits.

use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Variant;

/// Whether the evaluator accepts `bits` for `row`.
pub fn accepted(variant: &Variant, row: &[u64], bits: u64) -> bool {
    let mut eval = Evaluator::new(&variant.program);
    let mut accepts = vec![Accept::Exact(0); eval.n_parts()];
    eval.eval(row, &mut accepts);
    variant.program.dests[0]
        .parts
        .iter()
        .zip(&accepts)
        .all(|(p, a)| a.accepts(bits >> p.lo & (u64::MAX >> (64 - p.width))))
}
