//! The compiled evaluator against the interpreter, the reference, on every variant of the
//! embedded specs: boundary-heavy inputs (`spec::samples`, TestFloat-style edges per format
//! and lane) and raw random bits (bits above an operand's width included) give the same accept
//! sets bit for bit, and the compiled accept-set test flags exactly the results some part's
//! interpreted set rejects.

use semfuzz_fp::vectors::SplitMix64;
use semfuzz_jit::{compile, Evaluator, EvaluatorKind, Unsupported};
use semfuzz_spec::ir::mask;
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::sync::Arc;

/// Rows per variant and input kind.
const ROWS: usize = 384;

/// Backend results to screen per row: the representative, one bit flipped, random bits.
fn results(accepts: &[Accept], v: &Variant, rng: &mut SplitMix64) -> [u64; 3] {
    let dest = &v.program.dests[0];
    let rep = dest
        .parts
        .iter()
        .zip(accepts)
        .fold(0, |bits, (p, a)| bits | (a.representative() << p.lo));
    let w = dest.width.max(1);
    let flipped = rep ^ (1 << (rng.next_u64() % u64::from(w)));
    [rep, flipped & mask(w), rng.next_u64() & mask(w)]
}

/// Whether some part of the first destination rejects `got` (the campaign's test).
fn rejected(v: &Variant, accepts: &[Accept], got: u64) -> bool {
    v.program.dests[0]
        .parts
        .iter()
        .zip(accepts)
        .any(|(p, a)| !a.accepts((got >> p.lo) & mask(p.width)))
}

/// Compares both evaluators on `inputs` (`ROWS` rows); returns whether the accept-set test
/// was compiled (and checked).
fn compare(v: &Variant, jit: &mut Evaluator<'_>, inputs: &[u64], rng: &mut SplitMix64) -> bool {
    let mut interp = Evaluator::of_kind(&v.program, EvaluatorKind::Interp);
    let (ni, np) = (v.program.input_widths.len(), interp.n_parts());
    let rows = ROWS;
    let mut want = vec![Accept::default(); rows * np];
    for (r, res) in want.chunks_exact_mut(np.max(1)).enumerate() {
        interp.eval(&inputs[r * ni..(r + 1) * ni], res);
    }
    let mut got = vec![Accept::default(); rows * np];
    jit.eval_batch(&inputs[..rows * ni], &mut got);
    for r in 0..rows {
        assert_eq!(
            got[r * np..(r + 1) * np],
            want[r * np..(r + 1) * np],
            "{}: inputs {:x?}: compiled (left) and interpreted (right) accept sets differ",
            v.text,
            &inputs[r * ni..(r + 1) * ni]
        );
    }
    if v.program.dests.is_empty() {
        return false;
    }
    let mut screened = Vec::new();
    let mut expected = Vec::new();
    for r in 0..rows {
        let sets = &want[r * np..(r + 1) * np];
        for g in results(sets, v, rng) {
            screened.push(g);
            expected.push(rejected(v, sets, g) as u8);
        }
    }
    // Each row screened three times: the inputs repeat with stride 0 within a group.
    let mut flags = vec![0xAA; screened.len()];
    let mut checked = false;
    for (k, (gs, fs)) in screened.chunks(3).zip(flags.chunks_mut(3)).enumerate() {
        let row = &inputs[k * ni..(k + 1) * ni];
        checked = jit.screen(row, 0, gs, fs);
        if !checked {
            return false;
        }
    }
    for (i, (f, e)) in flags.iter().zip(&expected).enumerate() {
        let r = i / 3;
        assert_eq!(
            f,
            e,
            "{}: inputs {:x?}, result 0x{:x}: the compiled test says {} where the accept sets say {}",
            v.text,
            &inputs[r * ni..(r + 1) * ni],
            screened[i],
            if *f == 1 { "rejected" } else { "accepted" },
            if *e == 1 { "rejected" } else { "accepted" },
        );
    }
    // A whole batch at once, rows `ni` apart, must flag the representatives alike.
    let reps: Vec<u64> = screened.iter().step_by(3).copied().collect();
    let mut batch_flags = vec![0xAA; rows];
    assert!(jit.screen(inputs, ni, &reps, &mut batch_flags));
    let batch_expected: Vec<u8> = expected.iter().step_by(3).copied().collect();
    assert_eq!(batch_flags, batch_expected, "{}: batch screening", v.text);
    checked
}

#[test]
fn every_variant_gives_the_interpreters_accept_sets() {
    let spec = Spec::embedded().unwrap_or_else(|d| panic!("embedded specs fail to load:\n{d}"));
    let (mut compiled, mut screened) = (0, 0);
    let mut rng = SplitMix64::new(0x1D1E_5EED);
    for v in &spec.variants {
        let code = match compile(&v.program) {
            Ok(code) => Arc::new(code),
            // Only an op added to the IR after this lowering may leave a variant interpreted.
            Err(Unsupported(why)) => {
                assert!(why.starts_with("no lowering for"), "{}: {why}", v.text);
                continue;
            }
        };
        compiled += 1;
        let mut jit = Evaluator::compiled(&v.program, code);
        assert_eq!(jit.kind(), EvaluatorKind::Jit);
        let ni = v.program.input_widths.len();
        assert_eq!(ni, v.sources.len(), "{}", v.text);
        let mut inputs = vec![0; ROWS * ni];
        let mut samples = Samples::new(&spec, v, 7);
        for row in inputs.chunks_exact_mut(ni.max(1)) {
            samples.fill(row);
        }
        screened += compare(v, &mut jit, &inputs, &mut rng) as usize;
        inputs.iter_mut().for_each(|x| *x = rng.next_u64());
        compare(v, &mut jit, &inputs, &mut rng);
    }
    let total = spec.variants.len();
    eprintln!("{compiled} of {total} variants compiled, {screened} with the accept-set test");
    assert!(
        compiled * 10 >= total * 9,
        "only {compiled} of {total} variants compile"
    );
    assert!(
        screened * 2 >= compiled,
        "only {screened} variants screened"
    );
}
