//! The compiled evaluator against the interpreter, the reference, on every variant of the
//! embedded specs and every function of the committed llc fixtures (`ptx/fixtures`):
//! boundary-heavy inputs (`spec::samples`, TestFloat-style edges per format and lane) and raw
//! random bits (bits above an operand's width included) give the same accept sets bit for bit
//! and, for PTX functions, the same open-choice flags; and the compiled accept-set test flags
//! exactly the results some part's interpreted set rejects.

use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::Format;
use semfuzz_jit::{compile, Evaluator, EvaluatorKind, Unsupported};
use semfuzz_ptx::syntax::parse;
use semfuzz_ptx::{read_function, Slot};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::ir::{mask, PartKind, Program};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::samples::Samples;
use semfuzz_spec::Spec;
use std::path::Path;
use std::sync::Arc;

/// Rows per variant and input kind.
const ROWS: usize = 384;

/// Backend results to screen per row: the representative, one bit flipped, random bits.
fn results(accepts: &[Accept], program: &Program, rng: &mut SplitMix64) -> [u64; 3] {
    let dest = &program.dests[0];
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
fn rejected(program: &Program, accepts: &[Accept], got: u64) -> bool {
    program.dests[0]
        .parts
        .iter()
        .zip(accepts)
        .any(|(p, a)| !a.accepts((got >> p.lo) & mask(p.width)))
}

/// Compares both evaluators on `inputs` (`ROWS` rows) of `program` (named `name` in
/// messages); returns whether the accept-set test was compiled (and checked).
fn compare(
    name: &str,
    program: &Program,
    jit: &mut Evaluator<'_>,
    inputs: &[u64],
    rng: &mut SplitMix64,
) -> bool {
    let mut interp = Evaluator::of_kind(program, EvaluatorKind::Interp);
    let (ni, np) = (program.input_widths.len(), interp.n_parts());
    let rows = ROWS;
    let mut want = vec![Accept::default(); rows * np];
    let mut want_open = Vec::new();
    for (r, res) in want.chunks_exact_mut(np.max(1)).enumerate() {
        interp.eval(&inputs[r * ni..(r + 1) * ni], res);
        want_open.push(interp.met_open_choice());
    }
    let mut got = vec![Accept::default(); rows * np];
    jit.eval_batch(&inputs[..rows * ni], &mut got);
    for r in 0..rows {
        assert_eq!(
            got[r * np..(r + 1) * np],
            want[r * np..(r + 1) * np],
            "{name}: inputs {:x?}: compiled (left) and interpreted (right) accept sets differ",
            &inputs[r * ni..(r + 1) * ni]
        );
    }
    if program.choices.is_empty() {
        assert!(
            jit.open_choices().is_empty(),
            "{name}: flags without choices"
        );
    } else {
        for (r, (g, w)) in jit.open_choices().iter().zip(&want_open).enumerate() {
            assert_eq!(
                g,
                w,
                "{name}: inputs {:x?}: met an open choice compiled: {g}, interpreted: {w}",
                &inputs[r * ni..(r + 1) * ni]
            );
        }
        assert_eq!(jit.open_choices().len(), rows, "{name}: one flag per row");
        assert_eq!(
            jit.met_open_choice(),
            want_open[rows - 1],
            "{name}: last row"
        );
    }
    if program.dests.is_empty() {
        return false;
    }
    let mut screened = Vec::new();
    let mut expected = Vec::new();
    for r in 0..rows {
        let sets = &want[r * np..(r + 1) * np];
        for g in results(sets, program, rng) {
            screened.push(g);
            expected.push(rejected(program, sets, g) as u8);
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
            "{name}: inputs {:x?}, result 0x{:x}: the compiled test says {} where the accept sets say {}",
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
    assert_eq!(batch_flags, batch_expected, "{name}: batch screening");
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
        screened += compare(&v.text, &v.program, &mut jit, &inputs, &mut rng) as usize;
        inputs.iter_mut().for_each(|x| *x = rng.next_u64());
        compare(&v.text, &v.program, &mut jit, &inputs, &mut rng);
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

/// Boundary-heavy values for a function's input: the float edges of its format (of the float
/// format of its width where the reader only knows bits, as for llc's `.b16` halves) half the
/// time, integer edges (0, 1, extremes, small shift amounts) a quarter, random bits the rest.
struct SlotGen {
    floats: Option<BoundaryGen>,
    width: u32,
    rng: SplitMix64,
}

impl SlotGen {
    fn new(slot: &Slot, seed: u64) -> SlotGen {
        let format = match slot.kind {
            PartKind::Float(f) => Some(f),
            _ => match slot.width {
                16 if seed & 1 == 0 => Some(Format::F16),
                16 => Some(Format::BF16),
                32 => Some(Format::F32),
                64 => Some(Format::F64),
                _ => None,
            },
        };
        SlotGen {
            floats: format.map(|f| BoundaryGen::new(f, seed)),
            width: slot.width,
            rng: SplitMix64::new(seed),
        }
    }

    fn next(&mut self) -> u64 {
        let r = self.rng.next_u64();
        let (m, w) = (mask(self.width), self.width.max(1));
        let min = 1u64 << (w - 1);
        match (r % 4, &mut self.floats) {
            (0 | 1, Some(g)) => g.next().unwrap_or(0),
            (2, _) => [
                0,
                1,
                m,
                min,
                min - 1,
                min + 1,
                (r >> 8) % u64::from(2 * w + 2),
            ][(r >> 2) as usize % 7],
            _ => r >> 2,
        }
    }
}

/// Rows of boundary-heavy inputs for a function's input slots.
fn slot_inputs(inputs: &[Slot], seed: u64) -> Vec<u64> {
    let mut gens: Vec<SlotGen> = inputs
        .iter()
        .enumerate()
        .map(|(i, s)| SlotGen::new(s, seed ^ (i as u64 * 0x9E37_79B9)))
        .collect();
    (0..ROWS)
        .flat_map(|_| gens.iter_mut().map(SlotGen::next).collect::<Vec<_>>())
        .collect()
}

#[test]
fn every_fixture_function_gives_the_interpreters_accept_sets_and_choices() {
    let spec = Spec::embedded().unwrap_or_else(|d| panic!("embedded specs fail to load:\n{d}"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ptx/fixtures");
    let mut modules: Vec<_> = std::fs::read_dir(&dir)
        .expect("the fixtures directory")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    modules.sort();
    // The llc modules (one per target), numba-cuda's and the hand-written kernel.
    let llc = modules
        .iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("llvm22-"))
        })
        .count();
    assert_eq!(llc, 10, "one llc fixture module per target");
    let (mut total, mut unread, mut interpreted, mut compiled, mut with_choices) = (0, 0, 0, 0, 0);
    let mut rng = SplitMix64::new(0x097C_5EED);
    for path in &modules {
        let text = std::fs::read_to_string(path).expect("the fixture reads");
        let module = parse(&SourceFile::new(path.display().to_string(), text)).expect("parses");
        for func in module.functions.iter().filter(|f| f.body.is_some()) {
            total += 1;
            // A function may need an instruction the reader does not have yet (cvt's integer
            // forms): counted, not compared.
            let Ok(f) = read_function(&spec, &module, Some(&func.name)) else {
                unread += 1;
                continue;
            };
            let name = format!("{} {}", path.display(), f.name);
            let code = match compile(&f.program) {
                Ok(code) => Arc::new(code),
                Err(Unsupported(why)) => {
                    assert!(why.starts_with("no lowering for"), "{name}: {why}");
                    interpreted += 1;
                    continue;
                }
            };
            compiled += 1;
            with_choices += usize::from(!f.program.choices.is_empty());
            let mut jit = Evaluator::compiled(&f.program, code);
            let mut inputs = slot_inputs(&f.inputs, rng.next_u64());
            compare(&name, &f.program, &mut jit, &inputs, &mut rng);
            inputs.iter_mut().for_each(|x| *x = rng.next_u64());
            compare(&name, &f.program, &mut jit, &inputs, &mut rng);
        }
    }
    eprintln!(
        "{total} fixture functions: {compiled} compiled and compared ({with_choices} with \
         intermediate choices), {interpreted} interpreted only, {unread} not read"
    );
    let read = total - unread;
    assert!(
        compiled * 10 >= read * 9,
        "only {compiled} of the {read} fixture functions that read compile"
    );
    assert!(
        with_choices > 0,
        "no fixture function has a choice to compare"
    );
}
