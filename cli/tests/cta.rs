//! Triton's fused softmax and layer norm (ptx/fixtures, BLOCK 128, sm_80 and sm_90) read as
//! one CTA of 128 threads (issue 31): 14 butterfly shuffles, two or three barriers and
//! `.shared` partial sums, run on random rows and compared with numpy in float64 within the
//! error the kernels' approximate instructions and roundings allow (bounds below). Rows
//! are sampled (`SEMFUZZ_CTA_ROWS`, default 24 per kernel); docs/cta.md gives the full run.

use semfuzz_jit::{Evaluator, EvaluatorKind};
use semfuzz_ptx::{load_cta, Cta, PtxFunction};
use semfuzz_spec::outcome::Accept;
use semfuzz_spec::Spec;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| Spec::embedded().expect("the built-in specs load"))
}

const THREADS: u32 = 128;

/// Fixture `name` read as a 128-thread CTA, at grid position `ctaid` where given.
fn kernel(name: &str, ctaid: Option<u32>) -> PtxFunction {
    kernel_from(name, &fixture_text(name), ctaid)
}

fn fixture_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../ptx/fixtures")
        .join(name);
    std::fs::read_to_string(&path).expect("fixture")
}

/// `text` (named `name`) read as a 128-thread CTA, at grid position `ctaid` where given.
fn kernel_from(name: &str, text: &str, ctaid: Option<u32>) -> PtxFunction {
    load_cta(
        spec(),
        name,
        text,
        None,
        semfuzz_ptx::DEFAULT_UNROLL,
        Cta {
            block_bytes: 4 * THREADS,
            ctaid,
            ..Cta::of(THREADS)
        },
    )
    .unwrap_or_else(|d| panic!("{name}: {d}"))
}

fn rows() -> usize {
    std::env::var("SEMFUZZ_CTA_ROWS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Row `r`'s length, at least `least`: the whole 128 first, then `least`, then random.
    fn row_length(&mut self, r: usize, least: usize) -> usize {
        match r {
            0 => 128,
            1 => least,
            _ => least + (self.next() % (129 - least as u64)) as usize,
        }
    }

    /// A float in [-r, r], with 2^-20 steps, so every value is exact in f32.
    fn float(&mut self, r: f32) -> f32 {
        ((self.next() % (1 << 21)) as f32 / (1 << 20) as f32 - 1.0) * r
    }
}

/// The kernel's inputs: scalar parameters by their number, each block (by its pointer
/// parameter's number) the f32 words given (the rest zero), one CTA (`%ctaid` 0 of 1).
fn inputs(f: &PtxFunction, scalars: &[(usize, u64)], blocks: &[(usize, &[f32])]) -> Vec<u64> {
    let param = |name: &str| {
        name.rsplit('_')
            .next()
            .and_then(|k| k.parse::<usize>().ok())
    };
    f.inputs
        .iter()
        .map(|slot| {
            if let Some(rest) = slot.name.strip_prefix('[') {
                let (pointer, range) = rest.split_once('+').expect("[p+a..b]");
                let at: usize = range
                    .split('.')
                    .next()
                    .and_then(|a| a.parse().ok())
                    .expect("offset");
                let words = blocks
                    .iter()
                    .find(|(k, _)| Some(*k) == param(pointer))
                    .map_or(&[][..], |(_, w)| *w);
                let word = |k: usize| u64::from(words.get(k).map_or(0, |x| x.to_bits()));
                return word(at / 4) | word(at / 4 + 1) << 32;
            }
            if slot.name.starts_with("%nctaid") {
                return 1;
            }
            if slot.name.starts_with('%') {
                return 0;
            }
            let k = param(&slot.name).expect("a parameter");
            scalars
                .iter()
                .find(|(p, _)| *p == k)
                .map_or(0x1000_0000 * (k as u64 + 1), |(_, v)| *v)
        })
        .collect()
}

/// The f32 words block `pointer` (its parameter's number) ends with, `n` of them.
fn block(f: &PtxFunction, out: &[Accept], pointer: usize, n: usize) -> Vec<f32> {
    let prefix = format!("[{}_param_{pointer}+", f.name);
    let mut words = Vec::new();
    for (slot, a) in f.results.iter().zip(out) {
        if slot.name.starts_with(&prefix) {
            let Accept::Exact(v) = a else {
                panic!("{} is not one value: {a:?}", slot.name)
            };
            words.push(f32::from_bits(*v as u32));
            words.push(f32::from_bits((*v >> 32) as u32));
        }
    }
    words.truncate(n);
    words
}

fn flag(f: &PtxFunction, out: &[Accept], name: &str) -> Accept {
    let k = f.results.iter().position(|s| s.name == name).expect(name);
    out[k]
}

/// numpy's float64 result of `program` (Python reading `rows`, each a line of numbers, from
/// `rows` and printing one line of results each).
fn numpy(program: &str, rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let py = semfuzz_backend::python_deps("numpy").unwrap_or_else(|e| panic!("{e}"));
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import sys, numpy as np\nfor line in sys.stdin:\n    v = np.array([float(t) for t in line.split()], dtype=np.float64)\n{program}\n    print(' '.join(repr(float(t)) for t in y))\n"
        ))
        .env("PYTHONPATH", py)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let text: String = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| format!("{x:e}"))
                .collect::<Vec<_>>()
                .join(" ")
                + "\n"
        })
        .collect();
    // Written from a thread of its own: numpy's answers fill the pipe back while it reads.
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("numpy ran");
    writer.join().expect("the writer ran").expect("written");
    assert!(out.status.success(), "numpy failed");
    String::from_utf8(out.stdout)
        .expect("text")
        .lines()
        .map(|l| {
            l.split_whitespace()
                .map(|t| t.parse().expect("a float"))
                .collect()
        })
        .collect()
}

/// One row: the kernel's inputs, how many of its output words it computes, and the row as
/// numpy reads it.
struct Row {
    inputs: Vec<u64>,
    n: usize,
    given: Vec<f64>,
}

/// What a kernel computed over `rows()` rows that `row` makes (from the random source and
/// the row's number): each row's first `n` output words of block `output`, the rows as
/// numpy reads them, and how many rows' warps stored agreeing values. Every row must be
/// race-free and in bounds, and the output words past `n` (the masked lanes') untouched.
struct Run {
    got: Vec<Vec<f32>>,
    given: Vec<Vec<f64>>,
    stores_agreed: usize,
}

/// The value the output words start as: a masked lane must leave it.
const UNTOUCHED: f32 = -7.0;

fn run_rows(
    fixture: &str,
    f: &PtxFunction,
    evaluator: EvaluatorKind,
    output: usize,
    seed: u64,
    mut row: impl FnMut(&mut Random, usize) -> Row,
) -> Run {
    let mut ev = Evaluator::of_kind(&f.program, evaluator);
    assert_eq!(ev.kind(), evaluator, "{fixture}: the evaluator runs it");
    let mut out = vec![Accept::default(); ev.n_parts()];
    let mut rng = Random(seed);
    let mut run = Run {
        got: Vec::new(),
        given: Vec::new(),
        stores_agreed: 0,
    };
    for r in 0..rows() {
        let Row { inputs, n, given } = row(&mut rng, r);
        ev.eval(&inputs, &mut out);
        assert_eq!(flag(f, &out, "race_free"), Accept::Exact(1), "{fixture}");
        assert_eq!(flag(f, &out, "in_bounds"), Accept::Exact(1), "{fixture}");
        run.stores_agreed += usize::from(flag(f, &out, "warp_stores_agree") == Accept::Exact(1));
        let y = block(f, &out, output, THREADS as usize);
        assert!(
            y[n..].iter().all(|v| *v == UNTOUCHED),
            "{fixture}: the masked lanes store nothing"
        );
        run.got.push(y[..n].to_vec());
        run.given.push(given);
    }
    run
}

/// The largest of `|got - expected| / allowed` over every computed word, where numpy's rows
/// give each word's expected value and `allowed` turns numpy's row and the word's number
/// into its bound; panics at the first word past its bound.
fn worst_error(
    fixture: &str,
    got: &[Vec<f32>],
    expected: &[Vec<f64>],
    allowed: impl Fn(&[f64], usize) -> (f64, f64),
) -> f64 {
    let mut worst: f64 = 0.0;
    for (row, (g, e)) in got.iter().zip(expected).enumerate() {
        for (k, g) in g.iter().enumerate() {
            let (value, bound) = allowed(e, k);
            let err = (f64::from(*g) - value).abs();
            worst = worst.max(err / bound);
            assert!(
                err <= bound,
                "{fixture} row {row} [{k}]: {g:e} against numpy's {value:e} (error {err:e}, allowed {bound:e})"
            );
        }
    }
    worst
}

const SOFTMAX: &str = "    e = np.exp(v - v.max())\n    y = e / e.sum()";

/// Softmax's error against the exact result, relative: `x - max` rounds once (|x - max| ≤ 8
/// for rows in [-4, 4]: 2^-21 absolute), the product by the f32 `log2 e` rounds once and
/// carries that constant's 2^-25 relative error (together < 2^-19.6 absolute in the exponent,
/// so 2^-20 relative after `ex2`), `ex2.approx.f32` adds its 2 ulp (2^-22), the sum of 128
/// positive terms in a 7-level tree 7 · 2^-24 and `div.full.f32` 2 ulp (2^-22): under 2^-18.5
/// in all; the test allows 2^-18.
const SOFTMAX_RTOL: f64 = 1.0 / (1u64 << 18) as f64;

#[test]
fn tritons_softmax_agrees_with_numpy() {
    for fixture in [
        "triton-3.9-softmax-sm_80.ptx",
        "triton-3.9-softmax-sm_90.ptx",
    ] {
        // The CTA of row 0, its place fixed (`--ctaid 0`): each access one byte range.
        let f = kernel(fixture, Some(0));
        // Compiled (33k ops, seconds): the JIT against numpy, as the layer norm below
        // checks the interpreter.
        let run = run_rows(
            fixture,
            &f,
            EvaluatorKind::Jit,
            1,
            0x5eed_0000_0000_0001,
            |rng, r| {
                let n = rng.row_length(r, 1);
                let x: Vec<f32> = (0..n).map(|_| rng.float(4.0)).collect();
                Row {
                    inputs: inputs(
                        &f,
                        &[(2, 128), (3, n as u64)],
                        &[(0, &x), (1, &[UNTOUCHED; 128])],
                    ),
                    n,
                    given: x.iter().map(|v| f64::from(*v)).collect(),
                }
            },
        );
        assert_eq!(
            run.stores_agreed,
            run.got.len(),
            "{fixture}: a warp's stores disagreed"
        );
        let expected = numpy(SOFTMAX, &run.given);
        let worst = worst_error(fixture, &run.got, &expected, |e, k| {
            (e[k], SOFTMAX_RTOL * e[k].abs())
        });
        eprintln!(
            "{fixture}: {} rows, largest relative error 2^{:.1} (allowed 2^-18)",
            run.got.len(),
            (worst * SOFTMAX_RTOL).log2()
        );
    }
}

/// Layer norm's error, absolute, against `|d| rstd |w| + |b|` (the output's own scale): the
/// mean of up to 128 values in [-1, 1] through a 7-level sum and `div.full` is within
/// 2^-21 of the exact one, so `d = x - mean` is within 2^-20; the variance's sum, the
/// `div.full`, `sqrt.approx.ftz` (2^-22.8 relative) and `1 / sqrt` through `div.full` give
/// `rstd` within 2^-19 relative, and the products and the final `fma` add 3 roundings: under
/// 2^-18 of the scale while `d` is not tiny; the test allows 2^-17 of the scale plus 2^-20
/// absolute (the `d` error times rstd ≤ 2^3 for these rows).
const LAYER_NORM_TOL: f64 = 1.0 / (1u64 << 17) as f64;

#[test]
fn tritons_layer_norm_agrees_with_numpy() {
    let eps = 1e-5f32;
    for fixture in [
        "triton-3.9-layer-norm-sm_80.ptx",
        "triton-3.9-layer-norm-sm_90.ptx",
    ] {
        // `%ctaid` an input (0 here): the addresses stay symbolic in the row.
        let f = kernel(fixture, None);
        let run = run_rows(
            fixture,
            &f,
            EvaluatorKind::Interp,
            3,
            0x1a7e_0000_0000_0003,
            |rng, r| {
                let n = rng.row_length(r, 2);
                let x: Vec<f32> = (0..n).map(|_| rng.float(1.0)).collect();
                let w: Vec<f32> = (0..n).map(|_| rng.float(2.0)).collect();
                let b: Vec<f32> = (0..n).map(|_| rng.float(2.0)).collect();
                let scalars = [(4, 128), (5, n as u64), (6, u64::from(eps.to_bits()))];
                let blocks = [(0, &x[..]), (1, &w), (2, &b), (3, &[UNTOUCHED; 128])];
                let given = [&x[..], &w, &b].concat();
                Row {
                    inputs: inputs(&f, &scalars, &blocks),
                    n,
                    given: given.iter().map(|v| f64::from(*v)).collect(),
                }
            },
        );
        // LLVM contracts the variance's first butterfly step into `fma(d, d, shfl(d*d))`,
        // so lanes i and i^16 hold different sums, and all 32 store to their warp's one
        // `.shared` slot: which lane's sum lands is undefined (docs/cta.md).
        assert!(
            run.stores_agreed < run.got.len(),
            "{fixture}: the contracted butterfly's lanes disagree"
        );
        let program = format!(
            "    n = len(v) // 3\n    x, w, b = v[:n], v[n:2*n], v[2*n:]\n    d = x - x.mean()\n    rstd = 1 / np.sqrt((d * d).mean() + {})\n    y = np.concatenate([d * rstd * w + b, np.abs(d) * rstd * np.abs(w) + np.abs(b)])",
            f64::from(eps)
        );
        let expected = numpy(&program, &run.given);
        // numpy's row is the values, then their scales.
        let worst = worst_error(fixture, &run.got, &expected, |e, k| {
            let n = e.len() / 2;
            (e[k], LAYER_NORM_TOL * e[n + k] + 1.0 / (1u64 << 20) as f64)
        });
        eprintln!(
            "{fixture}: {} rows, largest error {:.3} of the allowed",
            run.got.len(),
            worst
        );
    }
}

/// The issue's own mutant: the same softmax reducing with `shfl.sync.up` where Triton wrote
/// `.bfly` (every lane then keeps most of its own value instead of its warp's maximum and
/// sum) is told apart from numpy on the first full row.
#[test]
fn a_softmax_shuffling_up_disagrees_with_numpy() {
    let text = fixture_text("triton-3.9-softmax-sm_90.ptx")
        .replace("shfl.sync.bfly.b32", "shfl.sync.up.b32");
    let f = kernel_from("softmax-up.ptx", &text, Some(0));
    let mut ev = Evaluator::of_kind(&f.program, EvaluatorKind::Interp);
    let mut out = vec![Accept::default(); ev.n_parts()];
    let mut rng = Random(0x5eed_0000_0000_0001);
    let x: Vec<f32> = (0..128).map(|_| rng.float(4.0)).collect();
    ev.eval(
        &inputs(&f, &[(2, 128), (3, 128)], &[(0, &x), (1, &[0.0; 128])]),
        &mut out,
    );
    let y = block(&f, &out, 1, 128);
    let row: Vec<f64> = x.iter().map(|v| f64::from(*v)).collect();
    let expected = numpy(SOFTMAX, &[row]);
    let worst = y
        .iter()
        .zip(&expected[0])
        .map(|(g, e)| (f64::from(*g) - e).abs() / e.abs())
        .fold(0.0, f64::max);
    assert!(worst > 0.5, "the mutant is within {worst:e} of numpy");
}
