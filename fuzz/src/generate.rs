//! Input generators: where a campaign's input tuples come from.
//!
//! Every generator is a pure function of (seed, variant, case index): the inputs of case `i`
//! do not depend on the batch size, the number of threads or which thread ran it, so the same
//! `--seed` gives the same inputs and the same findings.

use semfuzz_fp::vectors::SplitMix64;
use semfuzz_spec::catalog::{ModifierKind, OperandRole};
use semfuzz_spec::samples::Samples;
use semfuzz_spec::{Spec, Variant};
use std::fmt;
use std::str::FromStr;

/// Cases are generated in chunks of this many, each seeded by its index, so that batch sizes
/// (multiples of it) never change which inputs a case gets.
pub const CHUNK: u64 = 1024;

/// The most input bits `exhaustive` enumerates.
pub const EXHAUSTIVE_MAX_BITS: u32 = 32;

/// Which generator (`--generator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneratorKind {
    /// TestFloat-style values per format and lane: zeros, subnormals, min/max normal, ties and
    /// near-ties, overflow and underflow edges, NaN payloads, mixed with random bits.
    Boundary,
    /// Uniformly random bits per operand.
    Uniform,
    /// Every input tuple, in a fixed order, for variants of at most 32 input bits.
    Exhaustive,
    /// Z3's witnesses for each branch and rounding boundary of the variant first, then
    /// `boundary`.
    Witness,
}

impl GeneratorKind {
    /// Every generator, as named on the command line.
    pub const ALL: [(&'static str, GeneratorKind); 4] = [
        ("boundary", GeneratorKind::Boundary),
        ("uniform", GeneratorKind::Uniform),
        ("exhaustive", GeneratorKind::Exhaustive),
        ("witness", GeneratorKind::Witness),
    ];
}

impl FromStr for GeneratorKind {
    type Err = String;
    fn from_str(s: &str) -> Result<GeneratorKind, String> {
        GeneratorKind::ALL
            .iter()
            .find(|(name, _)| *name == s)
            .map(|(_, g)| *g)
            .ok_or_else(|| {
                let names: Vec<&str> = GeneratorKind::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "unknown generator `{s}`; the generators are {}",
                    names.join(", ")
                )
            })
    }
}

impl fmt::Display for GeneratorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = GeneratorKind::ALL
            .iter()
            .find(|(_, g)| g == self)
            .map_or("?", |(n, _)| n);
        f.write_str(name)
    }
}

/// How many values input `k` of a variant can take: `2^width` for a value, the member count
/// for a field selecting a group member, 2 for a `-`/`|..|` field.
fn radix(variant: &Variant, k: usize) -> u128 {
    let src = &variant.sources[k];
    match &src.role {
        OperandRole::Modifier {
            kind: ModifierKind::Member { members, .. },
            ..
        } => members.len() as u128,
        OperandRole::Modifier { .. } => 2,
        _ => 1u128 << src.width,
    }
}

/// The number of input tuples of `variant`, if `exhaustive` can enumerate them, or a message
/// saying why not.
pub fn exhaustive_total(variant: &Variant) -> Result<u64, String> {
    let total: u128 = (0..variant.sources.len())
        .map(|k| radix(variant, k))
        .try_fold(1u128, |acc, r| acc.checked_mul(r))
        .unwrap_or(u128::MAX);
    if total > 1u128 << EXHAUSTIVE_MAX_BITS {
        let widths: Vec<String> = variant
            .sources
            .iter()
            .map(|s| format!("{} {}", s.name, s.width))
            .collect();
        return Err(format!(
            "{} has more than 2^{EXHAUSTIVE_MAX_BITS} input tuples ({}); \
             `exhaustive` covers variants of at most {EXHAUSTIVE_MAX_BITS} input bits",
            variant.text,
            widths.join(" + ")
        ));
    }
    Ok(total as u64)
}

/// SplitMix64's finaliser over a seed and a value: one well-mixed 64-bit word.
fn mix(seed: u64, value: u64) -> u64 {
    SplitMix64::new(seed ^ value.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// A stable hash of a variant's text (FNV-1a), so that a variant's inputs do not depend on
/// which other variants a campaign selected.
fn text_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The inputs of one variant in one campaign.
pub struct Inputs<'s> {
    variant: &'s Variant,
    kind: GeneratorKind,
    seed: u64,
    witnesses: Vec<Vec<u64>>,
    /// The boundary stream, reseeded per chunk (its tables are built once).
    samples: Samples,
    /// How many values each source operand takes ([`radix`]), for `exhaustive`.
    radices: Vec<u128>,
}

impl<'s> Inputs<'s> {
    /// The inputs of `variant` under `kind` and `seed`. Fails for `exhaustive` on a variant of
    /// more than 32 input bits.
    pub fn new(
        spec: &'s Spec,
        variant: &'s Variant,
        kind: GeneratorKind,
        seed: u64,
    ) -> Result<Inputs<'s>, String> {
        if kind == GeneratorKind::Exhaustive {
            exhaustive_total(variant)?;
        }
        Ok(Inputs {
            variant,
            kind,
            seed: mix(seed, text_hash(&variant.text)),
            witnesses: Vec::new(),
            samples: Samples::new(spec, variant, 0),
            radices: (0..variant.sources.len())
                .map(|k| radix(variant, k))
                .collect(),
        })
    }

    /// Z3's input tuples for [`GeneratorKind::Witness`]: cases `0..witnesses.len()` (ignored
    /// by the other generators).
    pub fn set_witnesses(&mut self, witnesses: Vec<Vec<u64>>) {
        self.witnesses = witnesses;
    }

    /// How many cases the generator has (`exhaustive`), or `None` for an endless stream.
    pub fn total(&self) -> Option<u64> {
        (self.kind == GeneratorKind::Exhaustive)
            .then(|| exhaustive_total(self.variant).unwrap_or(0))
    }

    /// Writes the inputs of cases `first..first + rows` into `out`, row by row (one value per
    /// source operand). `first` must be a multiple of [`CHUNK`].
    pub fn fill(&mut self, first: u64, rows: usize, out: &mut Vec<u64>) {
        debug_assert_eq!(first % CHUNK, 0, "batches start on a chunk");
        let n = self.variant.sources.len();
        out.clear();
        out.resize(rows * n, 0);
        for (c, chunk) in out.chunks_mut(CHUNK as usize * n.max(1)).enumerate() {
            let start = first + c as u64 * CHUNK;
            self.fill_chunk(start, chunk);
        }
    }

    fn fill_chunk(&mut self, start: u64, out: &mut [u64]) {
        let n = self.variant.sources.len().max(1);
        match self.kind {
            GeneratorKind::Boundary => {
                self.samples.reseed(mix(self.seed, start));
                for row in out.chunks_exact_mut(n) {
                    self.samples.fill(row);
                }
            }
            GeneratorKind::Uniform => {
                let mut rng = SplitMix64::new(mix(self.seed, start));
                for row in out.chunks_exact_mut(n) {
                    for (k, v) in row.iter_mut().enumerate() {
                        let r = radix(self.variant, k);
                        *v = if r >= 1 << 64 {
                            rng.next_u64()
                        } else {
                            rng.below(r as u64)
                        };
                    }
                }
            }
            GeneratorKind::Exhaustive => {
                // The last operand varies fastest. The chunk's first row is its index in
                // mixed radix; each later row counts on from the one before (a `u128`
                // division per operand and row cost as much as evaluating the case).
                let mut index = u128::from(start);
                for (k, &r) in self.radices.iter().enumerate().rev() {
                    out[k] = (index % r) as u64;
                    index /= r;
                }
                // Value by value, not a slice copy: a copy of a run-time length is a `memmove`
                // call per row, which cost a fifth of an exhaustive campaign.
                for at in (n..out.len()).step_by(n) {
                    let mut carry = true;
                    for (k, &r) in self.radices.iter().enumerate().rev() {
                        let last = out[at - n + k];
                        out[at + k] = match carry {
                            true if u128::from(last) + 1 < r => {
                                carry = false;
                                last + 1
                            }
                            true => 0,
                            false => last,
                        };
                    }
                }
            }
            GeneratorKind::Witness => {
                self.samples.reseed(mix(self.seed, start));
                for (i, row) in out.chunks_exact_mut(n).enumerate() {
                    match self.witnesses.get((start + i as u64) as usize) {
                        Some(w) if w.len() == row.len() => row.copy_from_slice(w),
                        _ => self.samples.fill(row),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting on from a chunk's first row gives every row the digits of its own index,
    /// carries included: checked against the division on variants with an operand that wraps
    /// inside a chunk.
    #[test]
    fn exhaustive_rows_are_their_index_in_mixed_radix() {
        let spec = Spec::embedded().expect("the embedded specs load");
        let mut checked = 0;
        for v in spec.variants.iter().filter(|v| {
            v.sources.len() >= 2
                && exhaustive_total(v).is_ok()
                && (0..v.sources.len()).any(|k| radix(v, k) < u128::from(CHUNK))
        }) {
            let mut gen = Inputs::new(&spec, v, GeneratorKind::Exhaustive, 0).expect("enumerable");
            let total = exhaustive_total(v).expect("enumerable");
            let first = total / 2 / CHUNK * CHUNK;
            let mut out = Vec::new();
            gen.fill(first, 2 * CHUNK as usize, &mut out);
            let n = v.sources.len();
            for (i, row) in out.chunks_exact(n).enumerate() {
                let case = first + i as u64;
                let mut index = u128::from(case);
                for k in (0..n).rev() {
                    let r = radix(v, k);
                    assert_eq!(row[k], (index % r) as u64, "{}: case {case}", v.text);
                    index /= r;
                }
            }
            checked += 1;
        }
        assert!(
            checked > 0,
            "no enumerable variant has an operand that wraps in a chunk"
        );
    }
}
