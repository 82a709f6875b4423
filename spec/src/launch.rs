//! A kernel as one thread sees it: the special registers that place the thread in its launch
//! (PTX ISA 10, "Special Registers"), shared by the PTX reader (`mov.u32 %r1, %tid.x`) and the
//! LLVM IR reader (`@llvm.nvvm.read.ptx.sreg.tid.x`), so that both sides of a translation
//! validation name the same inputs, and the bounds a launch puts on them (docs/ambiguities.md
//! 174), from the kernel's launch attributes (`.reqntid`, `.maxntid`, `"nvvm.reqntid"`).

/// The special registers a kernel reads as inputs, in the order both readers add them (after
/// the parameters and the memory they point to). `%warpid` is not one: PTX ISA 10.8 calls it
/// volatile ("may change during execution"), so it is no input a thread could be given.
pub const SPECIAL_REGISTERS: [&str; 13] = [
    "%tid.x",
    "%tid.y",
    "%tid.z",
    "%ntid.x",
    "%ntid.y",
    "%ntid.z",
    "%ctaid.x",
    "%ctaid.y",
    "%ctaid.z",
    "%nctaid.x",
    "%nctaid.y",
    "%nctaid.z",
    "%laneid",
];

/// Whether `name` names a special register of PTX ISA 10 (those semfuzz reads and those it
/// refuses by name: `%warpid`, `%smid`, `%clock`, ...).
pub fn is_special_register(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    SPECIAL_REGISTERS.contains(&name)
        || matches!(
            base,
            "%tid"
                | "%ntid"
                | "%ctaid"
                | "%nctaid"
                | "%laneid"
                | "%warpid"
                | "%nwarpid"
                | "%smid"
                | "%nsmid"
                | "%gridid"
                | "%clock"
                | "%clock_hi"
                | "%clock64"
                | "%globaltimer"
                | "%globaltimer_lo"
                | "%globaltimer_hi"
                | "%lanemask_eq"
                | "%lanemask_le"
                | "%lanemask_lt"
                | "%lanemask_ge"
                | "%lanemask_gt"
                | "%dynamic_smem_size"
                | "%total_smem_size"
                | "%clusterid"
                | "%nclusterid"
                | "%cluster_ctaid"
                | "%cluster_nctaid"
                | "%cluster_ctarank"
                | "%cluster_nctarank"
                | "%is_explicit_cluster"
        )
        || name.starts_with("%envreg")
        || name.starts_with("%pm")
}

/// The launch attributes of a kernel: `.reqntid nx, ny, nz` (PTX ISA 11.4.3, "the number of
/// threads in the thread block (CTA)") and `.maxntid` (11.4.2, "the maximum number of threads
/// in the thread block"), or LLVM's `"nvvm.reqntid"`/`"nvvm.maxntid"` and their
/// `!nvvm.annotations` spellings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The CTA's exact shape, where required.
    pub reqntid: Option<[u32; 3]>,
    /// The largest extent of each dimension, where declared.
    pub maxntid: Option<[u32; 3]>,
}

impl Launch {
    /// A directive's arguments (1 to 3 of them) as a shape, the dimensions not written 1.
    pub fn shape(args: &[u32]) -> Option<[u32; 3]> {
        match args {
            [x] => Some([*x, 1, 1]),
            [x, y] => Some([*x, *y, 1]),
            [x, y, z] => Some([*x, *y, *z]),
            _ => None,
        }
    }

    /// What every launch of a kernel guarantees its special registers, one requirement each:
    /// - PTX ISA 10.1/10.2: each `%tid` component in `0 .. %ntid - 1`; `%ntid.x` and `.y` in
    ///   `1 .. 1024`, `.z` in `1 .. 64`, and at most 1024 threads in a CTA (every target since
    ///   sm_20);
    /// - 10.6/10.7: each `%ctaid` component below its `%nctaid`; `%nctaid.x` in
    ///   `1 .. 2^31 - 1`, `.y` and `.z` in `1 .. 65535`;
    /// - 10.3: `%laneid` is the thread's lane, which is its linear index in the CTA modulo 32
    ///   (the CUDA Programming Guide: "each warp contains threads of consecutive, increasing
    ///   thread IDs with the first warp containing thread 0");
    /// - the launch attributes: `%ntid` equal to `.reqntid`, each extent at most `.maxntid`'s.
    pub fn requirements(&self) -> Vec<Requirement> {
        let mut out = Vec::new();
        for (d, most) in [("x", 1024), ("y", 1024), ("z", 64)] {
            out.push(Requirement::Below(sreg("%tid", d), sreg("%ntid", d)));
            out.push(Requirement::Within(sreg("%ntid", d), 1, most));
        }
        out.push(Requirement::ThreadsAtMost(1024));
        for (d, most) in [("x", 0x7fff_ffff), ("y", 65535), ("z", 65535)] {
            out.push(Requirement::Below(sreg("%ctaid", d), sreg("%nctaid", d)));
            out.push(Requirement::Within(sreg("%nctaid", d), 1, most));
        }
        out.push(Requirement::Lane);
        for (k, d) in ["x", "y", "z"].into_iter().enumerate() {
            if let Some(r) = self.reqntid {
                out.push(Requirement::Within(sreg("%ntid", d), r[k], r[k]));
            }
            if let Some(m) = self.maxntid {
                out.push(Requirement::Within(sreg("%ntid", d), 1, m[k]));
            }
        }
        out
    }

    /// [`Launch::requirements`] as a spec-language expression (a rule's `pre:`) over the
    /// variables `var(register)` names.
    pub fn precondition(&self, var: impl Fn(&str) -> String) -> String {
        self.requirements()
            .iter()
            .map(|r| r.expression(&var))
            .collect::<Vec<_>>()
            .join(" && ")
    }

    /// The first requirement concrete values break (`value(register)`), said as a user reads
    /// it: `%tid.x = 0x80 is not below %ntid.x = 0x80`.
    pub fn violation(&self, value: impl Fn(&str) -> u64) -> Option<String> {
        self.requirements()
            .into_iter()
            .find(|r| !r.holds(&value))
            .map(|r| r.broken(&value))
    }
}

fn sreg(base: &str, d: &str) -> &'static str {
    SPECIAL_REGISTERS
        .into_iter()
        .find(|r| *r == format!("{base}.{d}"))
        .expect("a component register")
}

/// One guarantee a launch gives its threads' special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// The first register is below the second.
    Below(&'static str, &'static str),
    /// The register lies in `lo ..= hi`.
    Within(&'static str, u32, u32),
    /// `%ntid.x * %ntid.y * %ntid.z` is at most this.
    ThreadsAtMost(u32),
    /// `%laneid` is the linear thread index modulo 32.
    Lane,
}

impl Requirement {
    fn expression(&self, var: &impl Fn(&str) -> String) -> String {
        match *self {
            Requirement::Below(a, b) => format!("{} < {}", var(a), var(b)),
            Requirement::Within(r, lo, hi) if lo == hi => format!("{} == {lo}", var(r)),
            Requirement::Within(r, lo, hi) => {
                format!("{v} >= {lo} && {v} <= {hi}", v = var(r))
            }
            Requirement::ThreadsAtMost(n) => format!(
                "{} * {} * {} <= {n}",
                var("%ntid.x"),
                var("%ntid.y"),
                var("%ntid.z")
            ),
            // Modulo 32 only the low 5 bits of each term count: 5-bit arithmetic, which a
            // solver bit-blasts far smaller than 32-bit products.
            Requirement::Lane => format!(
                "{l} < 32 && {l}[4:0] == {tx}[4:0] + {nx}[4:0] * ({ty}[4:0] + {ny}[4:0] * {tz}[4:0])",
                l = var("%laneid"),
                tx = var("%tid.x"),
                nx = var("%ntid.x"),
                ty = var("%tid.y"),
                ny = var("%ntid.y"),
                tz = var("%tid.z")
            ),
        }
    }

    fn holds(&self, value: &impl Fn(&str) -> u64) -> bool {
        match *self {
            Requirement::Below(a, b) => value(a) < value(b),
            Requirement::Within(r, lo, hi) => (u64::from(lo)..=u64::from(hi)).contains(&value(r)),
            Requirement::ThreadsAtMost(n) => {
                let threads = [value("%ntid.x"), value("%ntid.y"), value("%ntid.z")]
                    .iter()
                    .try_fold(1u64, |acc, v| acc.checked_mul(*v));
                threads.is_some_and(|t| t <= u64::from(n))
            }
            Requirement::Lane => Some(value("%laneid")) == lane(value),
        }
    }

    fn broken(&self, value: &impl Fn(&str) -> u64) -> String {
        let shown = |r: &str| format!("{r} = {:#x}", value(r));
        match *self {
            Requirement::Below(a, b) => format!("{} is not below {}", shown(a), shown(b)),
            Requirement::Within(r, lo, hi) if lo == hi => {
                format!("{}, but the kernel's launch requires {lo}", shown(r))
            }
            Requirement::Within(r, lo, hi) => {
                format!("{} is outside {lo} ..= {hi}", shown(r))
            }
            Requirement::ThreadsAtMost(n) => format!(
                "{}, {} and {} make more than {n} threads",
                shown("%ntid.x"),
                shown("%ntid.y"),
                shown("%ntid.z")
            ),
            Requirement::Lane => format!(
                "{} is not the thread's lane{}",
                shown("%laneid"),
                lane(value).map_or(String::new(), |l| format!(" ({l:#x})"))
            ),
        }
    }
}

/// The lane of the thread the registers place: its linear index in the CTA modulo 32.
fn lane(value: &impl Fn(&str) -> u64) -> Option<u64> {
    let linear = value("%tid.z")
        .checked_mul(value("%ntid.y"))?
        .checked_add(value("%tid.y"))?
        .checked_mul(value("%ntid.x"))?
        .checked_add(value("%tid.x"))?;
    Some(linear % 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(tid_x: u64, laneid: u64) -> impl Fn(&str) -> u64 {
        move |r: &str| match r {
            "%tid.x" => tid_x,
            "%ntid.x" => 128,
            "%laneid" => laneid,
            "%nctaid.x" | "%nctaid.y" | "%nctaid.z" | "%ntid.y" | "%ntid.z" => 1,
            _ => 0,
        }
    }

    #[test]
    fn a_launch_bounds_its_registers() {
        let launch = Launch {
            reqntid: Some([128, 1, 1]),
            maxntid: None,
        };
        assert_eq!(launch.violation(thread(37, 5)), None);
        assert_eq!(
            launch.violation(thread(128, 0)).unwrap(),
            "%tid.x = 0x80 is not below %ntid.x = 0x80"
        );
        assert_eq!(
            launch.violation(thread(37, 4)).unwrap(),
            "%laneid = 0x4 is not the thread's lane (0x5)"
        );
        let smaller = Launch {
            reqntid: Some([64, 1, 1]),
            maxntid: None,
        };
        assert_eq!(
            smaller.violation(thread(3, 3)).unwrap(),
            "%ntid.x = 0x80, but the kernel's launch requires 64"
        );
        let text = launch.precondition(|r| r.trim_start_matches('%').replace('.', "_"));
        assert!(text.starts_with("tid_x < ntid_x && ntid_x >= 1 && ntid_x <= 1024"));
        assert!(text.ends_with("ntid_x == 128 && ntid_y == 1 && ntid_z == 1"));
    }
}
