//! Deterministic, boundary-heavy test inputs in the manner of Berkeley
//! TestFloat: the values where floating-point implementations go wrong
//! (signed zeros, subnormal edges, exponent extremes where overflow and
//! underflow start, rounding ties, NaN payloads) rather than uniformly random
//! bits, which almost never hit them.
//!
//! Everything here is a pure function of the format and the seed, so a
//! failing case can be regenerated from the seed and its index.

use crate::Format;

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, fast generator with
/// good statistical quality for test inputs. Not for cryptography.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose whole output is determined by `seed`.
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random number in `0..n` (0 when `n` is 0), by multiply-shift; the
    /// bias of at most `n / 2^64` does not matter for test inputs.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// The positive encoding with biased exponent `field` and trailing
/// significand `frac`.
fn encode(f: Format, field: u64, frac: u64) -> u64 {
    (field << (f.precision() - 1)) | (frac & f.trailing_mask())
}

/// Trailing-significand patterns that sit on rounding edges: exact powers of
/// two, 1.000..01 and its neighbours, the midpoint 1.1000 and around it,
/// 1.111..1, and alternating bits.
fn frac_patterns(f: Format) -> Vec<u64> {
    let all = f.trailing_mask();
    let half = all / 2 + 1;
    let mut out = vec![
        0,
        1,
        2,
        3,
        half.wrapping_sub(1),
        half,
        half + 1,
        half | (half >> 1),
        all.wrapping_sub(2),
        all.wrapping_sub(1),
        all,
        0x5555_5555_5555_5555 & all,
        0xAAAA_AAAA_AAAA_AAAA & all,
    ];
    // Tiny formats have fewer trailing bits than the patterns assume.
    for x in &mut out {
        *x &= all;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Biased exponent fields of normal numbers where results change behaviour:
/// the extremes (overflow, underflow into the subnormals), the square roots
/// of the extremes (where products and quotients overflow or underflow,
/// including below the smallest subnormal), around 1 (exponent 0), and
/// around ±p and ±(p+1) (where integer rounding and alignment of an addend
/// change).
fn exponent_fields(f: Format) -> Vec<u64> {
    let bias = f.bias();
    let emin = f.emin();
    let p = f.precision() as i32;
    let mut unbiased = vec![
        emin,
        emin + 1,
        emin + 2,
        emin + p,
        -1,
        0,
        1,
        2,
        p - 2,
        p - 1,
        p,
        p + 1,
        -p,
        -p - 1,
        bias - 2,
        bias - 1,
        bias,
        bias / 2,
        bias / 2 + 1,
        emin / 2,
        emin / 2 - 1,
        (emin - p) / 2,
        (emin - p) / 2 - 1,
    ];
    unbiased.retain(|&e| (emin..=bias).contains(&e));
    let mut out: Vec<u64> = unbiased.into_iter().map(|e| (e + bias) as u64).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Boundary values of `f`, each with both signs, sorted and without
/// duplicates: zeros; subnormals (smallest, largest and patterned); normal
/// numbers combining edge exponents (emin, emin + 1, emin + 2, emin + p,
/// around 0, ±p and ±(p + 1), emax and just below, and half of emin, emax
/// and emin - p, where squares and products overflow or underflow) with edge
/// significands (1.0, 1.000..01 and neighbours, the midpoint 1.1 and its
/// neighbours, 1.11, 1.111..1 and neighbours, alternating bits) — which
/// covers the smallest normal, 1.0 and its neighbours, values around
/// `2^±p`, and the largest finite number and its neighbours; infinities;
/// quiet NaNs with zero, one and all-ones payloads; and signaling NaNs with
/// small, top and all-ones payloads.
pub fn boundary_values(f: Format) -> Vec<u64> {
    let fracs = frac_patterns(f);
    let max_field = (1u64 << f.exp_bits()) - 1;
    let mut magnitudes = vec![0, f.inf(false), f.default_nan()];
    // Subnormals: the zero exponent field with every nonzero pattern.
    magnitudes.extend(fracs.iter().filter(|&&m| m != 0).copied());
    for field in exponent_fields(f) {
        magnitudes.extend(fracs.iter().map(|&m| encode(f, field, m)));
    }
    let quiet = f.trailing_mask() / 2 + 1;
    let payload = quiet - 1;
    for frac in [quiet | 1, f.trailing_mask()] {
        magnitudes.push(encode(f, max_field, frac));
    }
    // Precision 2 leaves no payload bits, so no signaling NaNs.
    if payload != 0 {
        for frac in [1, payload, (payload >> 1) + 1] {
            magnitudes.push(encode(f, max_field, frac));
        }
    }
    let mut out: Vec<u64> = magnitudes.iter().flat_map(|&m| [m, f.neg(m)]).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// An endless, deterministic stream of boundary-heavy encodings of a format.
///
/// Each item is, by a weighted random choice:
/// - (4/16) one of [`boundary_values`];
/// - (6/16) a random sign, a biased exponent from a table of edge exponents
///   (minimum and maximum, near zero, near the bias, near ±precision, the
///   special all-ones field), and a random significand pattern: all zeros,
///   all ones, a single bit, a run of ones from the top or bottom, random,
///   or within a few units of the half-way point;
/// - (2/16) a near neighbour of the previous item (a few units away, with
///   either sign), so that consecutive operands often nearly cancel or share
///   an exponent;
/// - (1/16) a zero, an infinity or a NaN, since operations treat them all
///   specially and the other choices produce them rarely;
/// - (3/16) uniformly random bits.
///
/// Construction allocates the tables; iteration does not allocate.
#[derive(Clone, Debug)]
pub struct BoundaryGen {
    format: Format,
    rng: SplitMix64,
    boundary: Vec<u64>,
    fields: Vec<u64>,
    previous: u64,
    /// Zeros, infinities and NaNs (quiet and, if any, signaling).
    specials: [u64; 4],
}

impl BoundaryGen {
    /// The stream for `format` determined by `seed`.
    pub fn new(format: Format, seed: u64) -> BoundaryGen {
        let max_field = (1u64 << format.exp_bits()) - 1;
        let mut fields = exponent_fields(format);
        // The zero field (zeros and subnormals) and the all-ones field
        // (infinities and NaNs) are exponent edges too.
        fields.extend([0, max_field]);
        BoundaryGen {
            format,
            rng: SplitMix64::new(seed),
            boundary: boundary_values(format),
            fields,
            previous: format.one(false),
            specials: [
                format.zero(false),
                format.inf(false),
                format.default_nan(),
                // Precision 2 has no signaling NaN; this is then another
                // quiet one.
                format.inf(false) | 1,
            ],
        }
    }

    /// Restarts the stream as [`BoundaryGen::new`] with `seed` would, keeping the tables, so
    /// a generator can be reused for many short streams without rebuilding them.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = SplitMix64::new(seed);
        self.previous = self.format.one(false);
    }

    /// `x` with a random sign.
    fn random_sign(&mut self, x: u64) -> u64 {
        if self.rng.next_u64() & 1 != 0 {
            self.format.neg(x)
        } else {
            x
        }
    }

    /// A random element of `table`, which is never empty.
    fn pick(rng: &mut SplitMix64, table: &[u64]) -> u64 {
        table[rng.below(table.len() as u64) as usize]
    }

    /// A random trailing significand shaped like a rounding edge.
    fn significand(&mut self) -> u64 {
        let f = self.format;
        let t = f.precision() - 1;
        let all = f.trailing_mask();
        let bit = self.rng.below(t as u64) as u32;
        match self.rng.below(7) {
            0 => 0,
            1 => all,
            2 => 1 << bit,
            3 => all & !(all >> bit),
            4 => all >> bit,
            5 => self.rng.next_u64() & all,
            _ => {
                let offset = self.rng.below(7);
                ((all / 2 + 1) + offset).wrapping_sub(3) & all
            }
        }
    }
}

impl Iterator for BoundaryGen {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let f = self.format;
        let value = match self.rng.below(16) {
            0..=3 => Self::pick(&mut self.rng, &self.boundary),
            4..=9 => {
                let field = Self::pick(&mut self.rng, &self.fields);
                let frac = self.significand();
                self.random_sign(encode(f, field, frac))
            }
            10 | 11 => {
                let delta = self.rng.below(4);
                let near = if self.rng.next_u64() & 1 != 0 {
                    self.previous.wrapping_add(delta)
                } else {
                    self.previous.wrapping_sub(delta)
                };
                self.random_sign(near & f.mask())
            }
            12 => {
                let special = Self::pick(&mut self.rng, &self.specials);
                self.random_sign(special)
            }
            _ => self.rng.next_u64() & f.mask(),
        };
        self.previous = value;
        Some(value)
    }
}
