//! The warp collectives (spec/isa/ptx-9.7.9.6-shfl-sync.sem, ptx-9.7.13.9-warp-collectives.sem)
//! against lane-by-lane models written here from the manual's pseudo-code and prose (PTX ISA
//! 9.7.9.6 shfl.sync, 9.7.13.9 vote.sync, 9.7.13.10 match.sync, 9.7.13.11 activemask, 9.7.13.12
//! redux.sync), on seeded random lane values, member masks, active masks and `c` values.
//!
//! Each variant's sources are the warp view (docs/spec-language.md, "Warp collectives"): the 32
//! lanes' values of the exchanged operand, the executing lane's other operands, then `laneid`
//! and `active`. A model result `None` is the manual's "undefined": the spec must accept any
//! value there. The evaluator ≡ Z3 side is smt/tests/consistency.rs (every variant, these
//! included); `semfuzz selfcheck 'shfl.sync.*' 'vote.sync.*' 'match.*' 'redux.sync.*'
//! --cases 10000` is the long sweep.

mod common;
use common::eval;
use semfuzz_spec::outcome::Accept;

/// Cases per variant: each is one lane of one random warp state.
const CASES: usize = 600;

/// A small seeded generator (splitmix64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A lane mask: the whole warp half the time (the common case, where nothing is
    /// undefined), else a random subset that usually holds `lane`.
    fn mask(&mut self, lane: u32) -> u32 {
        match self.below(4) {
            0 | 1 => u32::MAX,
            2 => self.next() as u32 | (1 << lane),
            _ => self.next() as u32,
        }
    }
}

/// One warp state seen from one lane.
struct Warp {
    lanes: [u64; 32],
    membermask: u32,
    laneid: u32,
    active: u32,
}

impl Warp {
    fn random(rng: &mut Rng, value: impl Fn(&mut Rng) -> u64) -> Warp {
        let laneid = rng.below(32) as u32;
        let mut lanes = [0; 32];
        for v in &mut lanes {
            *v = value(rng);
        }
        Warp {
            lanes,
            membermask: rng.mask(laneid),
            laneid,
            active: rng.mask(laneid) | (1 << laneid),
        }
    }

    fn participants(&self) -> u32 {
        self.membermask & self.active
    }

    fn member(&self) -> bool {
        self.membermask >> self.laneid & 1 == 1
    }

    /// The variant's sources: the lanes, the executing lane's `middle` operands, the context.
    fn inputs(&self, middle: &[u64]) -> Vec<u64> {
        let mut v = self.lanes.to_vec();
        v.extend_from_slice(middle);
        v.extend([
            self.membermask as u64,
            self.laneid as u64,
            self.active as u64,
        ]);
        v
    }
}

/// Asserts that `got` is `want` exactly, or accepts every value where `want` is undefined.
fn expect(what: &str, got: &Accept, want: Option<u64>, width: u32) {
    match want {
        Some(bits) => assert_eq!(*got, Accept::Exact(bits), "{what}"),
        None => {
            let all = if width == 64 {
                u64::MAX
            } else {
                (1 << width) - 1
            };
            for bits in [0, 1, all, 0x1234_5678_9abc_def0 & all] {
                assert!(
                    got.accepts(bits),
                    "{what}: undefined, but {bits:#x} refused ({got:?})"
                );
            }
        }
    }
}

/// The manual's shfl.sync pseudo-code, for the executing lane: `(d, p)`, `None` where the
/// result is undefined.
fn shfl_model(mode: &str, w: &Warp, b: u32, c: u32) -> (Option<u64>, Option<bool>) {
    let lane = w.laneid as i64;
    let bval = (b & 0x1f) as i64;
    let cval = (c & 0x1f) as i64;
    let segmask = ((c >> 8) & 0x1f) as i64;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, pval) = match mode {
        "up" => (lane - bval, lane - bval >= max_lane),
        "down" => (lane + bval, lane + bval <= max_lane),
        "bfly" => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !segmask & 0x1f);
            (j, j <= max_lane)
        }
    };
    let j = if pval { j } else { lane };
    if !w.member() {
        return (None, None);
    }
    let in_mask = |m: u32| m >> j & 1 == 1;
    let sourced = j == lane || (in_mask(w.active) && in_mask(w.membermask));
    (sourced.then_some(w.lanes[j as usize]), Some(pval))
}

#[test]
fn shfl_sync_matches_the_manuals_pseudo_code() {
    let mut rng = Rng(31);
    for mode in ["up", "down", "bfly", "idx"] {
        let instr = format!("shfl.sync.{mode}.b32");
        let (mut moved, mut out_of_range, mut undefined) = (0, 0, 0);
        for case in 0..CASES {
            let w = Warp::random(&mut rng, |r| r.next() as u32 as u64);
            // b: mostly a lane offset, sometimes with bits above [4:0] the manual ignores.
            let b = if rng.below(4) == 0 {
                rng.next() as u32
            } else {
                rng.below(40) as u32
            };
            // c: a segment mask of contiguous low bits (the `width` CUDA's __shfl_*_sync
            // take) or random bits, a clamp, and noise above bit 12 that must not matter.
            let seg = [0, 0x10, 0x18, 0x1c, 0x1f, rng.below(32) as u32][rng.below(6) as usize];
            // The clamp: CUDA's __shfl_up_sync passes 0 (lanes below the segment's start are
            // out of range), the others 0x1f; sometimes random.
            let clamp = match rng.below(3) {
                0 => rng.below(32) as u32,
                _ if mode == "up" => 0,
                _ => 0x1f,
            };
            let c = (seg << 8) | clamp | ((rng.next() as u32) & 0xffff_e000);
            let got = eval(&instr, &w.inputs(&[b as u64, c as u64]));
            let (d, p) = shfl_model(mode, &w, b, c);
            let what = format!(
                "{instr} case {case}: lane {} b {b:#x} c {c:#x} member {:#x} active {:#x}",
                w.laneid, w.membermask, w.active
            );
            expect(&what, &got[0], d, 32);
            expect(&what, &got[1], p.map(u64::from), 1);
            match (d, p) {
                (None, _) => undefined += 1,
                (Some(_), Some(false)) => out_of_range += 1,
                _ => moved += 1,
            }
        }
        // The sample reaches every kind of outcome, so a broken branch cannot hide.
        assert!(
            moved > 50 && out_of_range > 20 && undefined > 20,
            "{instr}: {moved} {out_of_range} {undefined}"
        );
    }
}

/// docs/ambiguities.md 170: the source lane `j` is an integer, not the 5-bit field the
/// manual's other names are. `.down` by 15 from lane 20 is lane 35: out of range, own value,
/// `p` false (a 5-bit `j` would wrap to lane 3). `.up` by 5 from lane 3 is -2: below maxLane 0.
#[test]
fn shfl_sync_source_lane_does_not_wrap() {
    let w = Warp {
        lanes: std::array::from_fn(|i| 100 + i as u64),
        membermask: u32::MAX,
        laneid: 20,
        active: u32::MAX,
    };
    let got = eval("shfl.sync.down.b32", &w.inputs(&[15, 0x1f]));
    assert_eq!(got, [Accept::Exact(120), Accept::Exact(0)]);
    let w = Warp { laneid: 3, ..w };
    let got = eval("shfl.sync.up.b32", &w.inputs(&[5, 0]));
    assert_eq!(got, [Accept::Exact(103), Accept::Exact(0)]);
}

#[test]
fn vote_sync_matches_the_manual() {
    let mut rng = Rng(32);
    for mode in ["all", "any", "uni", "ballot"] {
        let instr = if mode == "ballot" {
            "vote.sync.ballot.b32".to_string()
        } else {
            format!("vote.sync.{mode}.pred")
        };
        let mut seen = [0usize; 2];
        for case in 0..CASES {
            // Mostly-true or mostly-false predicates, so that .all/.uni are sometimes true.
            let bias = rng.below(3);
            let w = Warp::random(&mut rng, |r| (r.below(16) != 0) as u64 ^ (bias == 0) as u64);
            let got = eval(&instr, &w.inputs(&[]));
            let part = w.participants();
            let votes = (0..32)
                .filter(|&i| w.lanes[i] == 1)
                .fold(0u32, |m, i| m | 1 << i)
                & part;
            let r = match mode {
                "all" => (votes == part) as u64,
                "any" => (votes != 0) as u64,
                "uni" => (votes == 0 || votes == part) as u64,
                _ => votes as u64,
            };
            let want = w.member().then_some(r);
            expect(
                &format!("{instr} case {case}"),
                &got[0],
                want,
                if mode == "ballot" { 32 } else { 1 },
            );
            seen[(r != 0) as usize] += 1;
        }
        assert!(seen[0] > 20 && seen[1] > 20, "{instr}: {seen:?}");
    }
}

/// docs/ambiguities.md 171: a lane of `membermask` that does not execute the instruction is
/// taken as exited: it does not vote, so `.all` holds over the lanes that do.
#[test]
fn vote_sync_ignores_member_lanes_that_do_not_execute() {
    let mut lanes = [1u64; 32];
    lanes[5] = 0;
    let w = Warp {
        lanes,
        membermask: u32::MAX,
        laneid: 0,
        active: !(1 << 5),
    };
    assert_eq!(
        eval("vote.sync.all.pred", &w.inputs(&[])),
        [Accept::Exact(1)]
    );
    let w = Warp {
        active: u32::MAX,
        ..w
    };
    assert_eq!(
        eval("vote.sync.all.pred", &w.inputs(&[])),
        [Accept::Exact(0)]
    );
}

#[test]
fn match_sync_matches_the_manual() {
    let mut rng = Rng(33);
    for ty in ["b32", "b64"] {
        for mode in ["any", "all"] {
            let instr = format!("match.{mode}.sync.{ty}");
            let mut all_equal = 0;
            for case in 0..CASES {
                // Few distinct values (sometimes one), so lanes match; b64 values differ in
                // the high word only, which a 32-bit compare would miss.
                let kinds = [1, 2, 3][rng.below(3) as usize];
                let w = Warp::random(&mut rng, |r| {
                    let k = r.below(kinds);
                    if ty == "b64" {
                        k << 40 | 7
                    } else {
                        k + 7
                    }
                });
                let got = eval(&instr, &w.inputs(&[]));
                let part = w.participants();
                let own = w.lanes[w.laneid as usize];
                let same = (0..32)
                    .filter(|&i| w.lanes[i] == own)
                    .fold(0u32, |m, i| m | 1 << i)
                    & part;
                let what = format!("{instr} case {case}");
                if mode == "any" {
                    expect(&what, &got[0], w.member().then_some(same as u64), 32);
                } else {
                    let all = same == part;
                    all_equal += all as usize;
                    let d = if all { part } else { 0 };
                    expect(&what, &got[0], w.member().then_some(d as u64), 32);
                    expect(&what, &got[1], w.member().then_some(all as u64), 1);
                }
            }
            assert!(
                mode == "any" || (all_equal > 20 && all_equal < CASES - 20),
                "{instr}: {all_equal}"
            );
        }
    }
}

#[test]
fn activemask_is_the_active_lanes() {
    for active in [0x1, 0xffff_ffff, 0x8000_0001, 0x0f0f_0f0f] {
        assert_eq!(eval("activemask.b32", &[active]), [Accept::Exact(active)]);
    }
}

/// The manual's integer reductions over the participants.
fn redux_int_model(op: &str, signed: bool, values: &[u32]) -> u32 {
    let key = |v: u32| if signed { v as i32 as i64 } else { v as i64 };
    let mut it = values.iter().copied();
    let first = it.next().expect("the executing lane participates");
    it.fold(first, |r, v| match op {
        "add" => r.wrapping_add(v),
        "and" => r & v,
        "or" => r | v,
        "xor" => r ^ v,
        "min" => {
            if key(v) < key(r) {
                v
            } else {
                r
            }
        }
        _ => {
            if key(v) > key(r) {
                v
            } else {
                r
            }
        }
    })
}

/// The manual's .f32 min/max: "+0.0 > -0.0"; `.abs` takes absolute values; with `.NaN` any NaN
/// gives the canonical NaN, without it NaNs are skipped and only all-NaN gives it.
fn redux_f32_model(max: bool, abs: bool, nan: bool, values: &[u32]) -> u32 {
    const CANONICAL_NAN: u32 = 0x7fff_ffff;
    let xs: Vec<f32> = values
        .iter()
        .map(|&v| f32::from_bits(if abs { v & 0x7fff_ffff } else { v }))
        .collect();
    if nan && xs.iter().any(|x| x.is_nan()) {
        return CANONICAL_NAN;
    }
    let numbers = xs.into_iter().filter(|x| !x.is_nan());
    let best = if max {
        numbers.max_by(f32::total_cmp)
    } else {
        numbers.min_by(f32::total_cmp)
    };
    best.map_or(CANONICAL_NAN, f32::to_bits)
}

#[test]
fn redux_sync_matches_the_manual() {
    let mut rng = Rng(34);
    let mut variants: Vec<(String, String)> = Vec::new();
    for (op, types) in [
        ("add", &["u32", "s32"][..]),
        ("min", &["u32", "s32"]),
        ("max", &["u32", "s32"]),
        ("and", &["b32"]),
        ("or", &["b32"]),
        ("xor", &["b32"]),
    ] {
        for ty in types {
            variants.push((format!("redux.sync.{op}.{ty}"), op.to_string()));
        }
    }
    for op in ["min", "max"] {
        for quals in ["", ".abs", ".NaN", ".abs.NaN"] {
            variants.push((format!("redux.sync.{op}{quals}.f32"), op.to_string()));
        }
    }
    const SPECIAL: [u32; 9] = [
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x0000_0001,
    ];
    for (instr, op) in &variants {
        let float = instr.ends_with(".f32");
        for case in 0..CASES / 3 {
            // Floats: specials, small integers (ties and signed zeros) and random bits; some
            // warps all NaN.
            let all_nan = float && rng.below(8) == 0;
            let w = Warp::random(&mut rng, |r| {
                if all_nan {
                    0x7fc0_0000 | r.below(1 << 22)
                } else if float {
                    match r.below(3) {
                        0 => SPECIAL[r.below(9) as usize] as u64,
                        1 => (r.below(7) as f32 - 3.0).to_bits() as u64,
                        _ => r.next() as u32 as u64,
                    }
                } else {
                    r.next() as u32 as u64
                }
            });
            let part = w.participants();
            let values: Vec<u32> = (0..32)
                .filter(|i| part >> i & 1 == 1)
                .map(|i| w.lanes[i] as u32)
                .collect();
            let got = eval(instr, &w.inputs(&[]));
            let r = if float {
                (!values.is_empty()).then(|| {
                    redux_f32_model(
                        op == "max",
                        instr.contains(".abs"),
                        instr.contains(".NaN"),
                        &values,
                    )
                })
            } else {
                (!values.is_empty()).then(|| redux_int_model(op, instr.ends_with(".s32"), &values))
            };
            let want = if w.member() { r.map(u64::from) } else { None };
            expect(
                &format!("{instr} case {case} {:x?}", values),
                &got[0],
                want,
                32,
            );
        }
    }
}

/// The warp view is recognised by its contract (the last source `active`): every collective's
/// variant and no other, so one-thread backends refuse exactly these.
#[test]
fn warp_view_variants_are_exactly_the_collectives() {
    let families = ["shfl", "vote", "match", "activemask", "redux"];
    let spec = common::spec();
    let mut warp = 0;
    for v in &spec.variants {
        let collective = families.contains(&v.family.as_str());
        assert_eq!(v.is_warp_view(), collective, "{}", v.text);
        warp += usize::from(collective);
    }
    assert_eq!(warp, 30);
}
