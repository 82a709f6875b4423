//! Inputs for a variant: per source operand, boundary-heavy values of its format (whole
//! lanes for packed formats), random bits otherwise. Deterministic in the seed.

use crate::catalog::{FormatInfo, ModifierKind, OperandRole, Spec, Variant};
use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};

enum OperandGen {
    Lanes {
        gens: Vec<BoundaryGen>,
        width: u32,
    },
    Bits {
        rng: SplitMix64,
        width: u32,
    },
    /// An integer register (`.u32`, `.s64`, `.b16`): random bits half the time, else one
    /// of the values where integer operations change behaviour (0, 1, the extremes of both
    /// signednesses, small numbers such as shift amounts and bit positions around the width).
    Int {
        rng: SplitMix64,
        width: u32,
    },
    /// The index of a group member (an operand modifier field): below `count`.
    Member {
        rng: SplitMix64,
        count: u64,
    },
}

/// The seed of operand `i`'s generator in the stream seeded `seed`.
fn operand_seed(seed: u64, i: usize) -> u64 {
    seed.wrapping_mul(0x9E37_79B9).wrapping_add(i as u64 * 7919)
}

/// The seed of lane `l` of a packed operand whose generator is seeded `seed`.
fn lane_seed(seed: u64, l: u32) -> u64 {
    seed ^ (u64::from(l) << 32)
}

impl OperandGen {
    fn reseed(&mut self, seed: u64) {
        match self {
            OperandGen::Lanes { gens, .. } => {
                for (l, g) in gens.iter_mut().enumerate() {
                    g.reseed(lane_seed(seed, l as u32));
                }
            }
            OperandGen::Bits { rng, .. }
            | OperandGen::Int { rng, .. }
            | OperandGen::Member { rng, .. } => {
                *rng = SplitMix64::new(seed);
            }
        }
    }

    fn next(&mut self) -> u64 {
        match self {
            OperandGen::Lanes { gens, width } => {
                gens.iter_mut().enumerate().fold(0, |acc, (i, g)| {
                    acc | (g.next().unwrap_or(0) << (i as u32 * *width))
                })
            }
            OperandGen::Bits { rng, width } => rng.next_u64() & crate::ir::mask(*width),
            OperandGen::Int { rng, width } => {
                let (r, w) = (rng.next_u64(), *width);
                let m = crate::ir::mask(w);
                let min = 1u64 << (w - 1);
                let v = match r % 8 {
                    0..=3 => r >> 3,
                    4 => [0, 1, m, min, min - 1, min + 1, m - 1][(r >> 3) as usize % 7],
                    5 => (r >> 3) % u64::from(2 * w + 2),
                    6 => ((r >> 3) % 256).wrapping_neg(),
                    _ => (r >> 3) % 256,
                };
                v & m
            }
            OperandGen::Member { rng, count } => rng.next_u64() % *count,
        }
    }
}

/// Whether a type name is an integer type (`b32`, `u16`, `s64`, LLVM IR's `i32`).
fn is_int(ty: &str) -> bool {
    ty.strip_prefix(['b', 'u', 's', 'i'])
        .is_some_and(|n| n.parse::<u32>().is_ok())
}

/// An endless stream of operand tuples for one variant.
pub struct Samples {
    gens: Vec<OperandGen>,
}

impl Samples {
    /// The stream for `variant`, determined by `seed`.
    pub fn new(spec: &Spec, variant: &Variant, seed: u64) -> Samples {
        let gens = variant
            .sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let seed = operand_seed(seed, i);
                if let OperandRole::Modifier {
                    kind: ModifierKind::Member { members, .. },
                    ..
                } = &s.role
                {
                    return OperandGen::Member {
                        rng: SplitMix64::new(seed),
                        count: members.len() as u64,
                    };
                }
                match spec.format(&s.ty) {
                    Some(FormatInfo::Scalar(f)) => OperandGen::Lanes {
                        gens: vec![BoundaryGen::new(f, seed)],
                        width: f.width(),
                    },
                    Some(FormatInfo::Packed(f, n)) => OperandGen::Lanes {
                        gens: (0..n)
                            .map(|l| BoundaryGen::new(f, lane_seed(seed, l)))
                            .collect(),
                        width: f.width(),
                    },
                    None if s.role == OperandRole::Value && s.width > 1 && is_int(&s.ty) => {
                        OperandGen::Int {
                            rng: SplitMix64::new(seed),
                            width: s.width,
                        }
                    }
                    None => OperandGen::Bits {
                        rng: SplitMix64::new(seed),
                        width: s.width,
                    },
                }
            })
            .collect();
        Samples { gens }
    }

    /// Restarts the stream as [`Samples::new`] with `seed` would, without rebuilding the
    /// per-format tables.
    pub fn reseed(&mut self, seed: u64) {
        for (i, g) in self.gens.iter_mut().enumerate() {
            g.reseed(operand_seed(seed, i));
        }
    }

    /// Writes the next tuple into `out` (one value per source operand).
    pub fn fill(&mut self, out: &mut [u64]) {
        for (o, g) in out.iter_mut().zip(&mut self.gens) {
            *o = g.next();
        }
    }
}
