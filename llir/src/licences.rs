//! What a compiler's flags allow beyond the IR's own meaning. Some llc options license results
//! the IR forbids: `-nvptx-ftz-atomics=fast` lets `atomicrmw fadd` flush subnormals where the
//! function's denormal mode keeps them, `-nvptx-prec-divf32=0` lets `fdiv float` be
//! `div.approx.f32`. Judging such a compile against the IR alone calls the licensed result a
//! miscompile; refusing it leaves the configuration unjudged. So the reader widens each
//! licensed operation's allowed set to the IR's result or the licensed instruction's, and the
//! verdict says which licence it read ([`Licences::describe`], docs/ambiguities.md 105, 177).

/// Which `atomicrmw fadd` types a flush licence covers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FlushingAtomicAdd {
    /// None: the denormal mode decides (`-nvptx-ftz-atomics=strict`, the IR alone).
    #[default]
    Never,
    /// `float` only: `-nvptx-ftz-atomics=legacy-f32-add` ("keep the pre-PTX 9.4 flushing
    /// atom.add.f32 for f32") and LLVM <= 22's `-nvptx-allow-ftz-atomics`.
    Float,
    /// Every float type: `-nvptx-ftz-atomics=fast` ("conform when a conforming atom.add
    /// exists, else use the non-conforming native instruction").
    Every,
}

/// The licences a compile configuration grants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Licences {
    /// Where `atomicrmw fadd` may be the native `atom.add` whatever the denormal mode: the
    /// sum of the mode, or of IEEE, or (for `float`) `add.rn.ftz.f32`'s, with subnormal inputs
    /// and result flushed to sign-preserving zero.
    pub flushing_atomic_add: FlushingAtomicAdd,
    /// The PTX division `fdiv float` may be (`div.approx` from `-nvptx-prec-divf32=0`,
    /// `div.full` from `=1`), beside the IR's correctly rounded quotient.
    pub f32_division: Option<&'static str>,
    /// `-nvptx-prec-sqrtf32=0`: `llvm.sqrt.f32` may be `sqrt.approx.f32`.
    pub approximate_f32_sqrt: bool,
    /// The compiler reads a function's `"unsafe-fp-math"="true"` as leave to contract, to
    /// use approximate functions and reciprocals and to ignore the sign of zero in every
    /// operation (LLVM 14 to 21's `TargetOptions::UnsafeFPMath`; LLVM 22 no longer reads it):
    /// such a function's operations are read with `contract`, `afn`, `arcp` and `nsz`, and the
    /// verdict says so (docs/ambiguities.md 185). Set from the compiler, not from a flag.
    pub unsafe_fp_math_attribute: bool,
    /// The flags read, as written, for [`Licences::describe`].
    flags: Vec<String>,
}

impl Licences {
    /// The licences llc's options grant (`-nvptx-ftz-atomics=fast`); other options grant none.
    /// A later option overrides an earlier one of the same name, as in llc.
    pub fn from_llc_flags(flags: &[String]) -> Licences {
        let mut l = Licences::default();
        for flag in flags {
            let key = key_of(flag);
            let value = flag.split_once('=').map_or("", |(_, v)| v);
            let read = match key {
                "nvptx-ftz-atomics" => {
                    l.flushing_atomic_add = match value {
                        "legacy-f32-add" => FlushingAtomicAdd::Float,
                        "fast" => FlushingAtomicAdd::Every,
                        _ => FlushingAtomicAdd::Never,
                    };
                    true
                }
                "nvptx-allow-ftz-atomics" => {
                    l.flushing_atomic_add = if matches!(value, "" | "true" | "1") {
                        FlushingAtomicAdd::Float
                    } else {
                        FlushingAtomicAdd::Never
                    };
                    true
                }
                "nvptx-prec-divf32" => {
                    l.f32_division = match value {
                        "0" => Some("div.approx"),
                        "1" => Some("div.full"),
                        _ => None,
                    };
                    true
                }
                "nvptx-prec-sqrtf32" => {
                    l.approximate_f32_sqrt = matches!(value, "0" | "false");
                    true
                }
                _ => false,
            };
            if read {
                l.flags.retain(|f| key_of(f) != key);
                l.flags.push(flag.clone());
            }
        }
        if !l.grants_any() {
            l.flags.clear();
        }
        l
    }

    /// Whether any operation's allowed set is wider than the IR's own.
    pub fn grants_any(&self) -> bool {
        self.flushing_atomic_add != FlushingAtomicAdd::Never
            || self.f32_division.is_some()
            || self.approximate_f32_sqrt
    }

    /// Whether `atomicrmw fadd` on a `float` (`float`) or another float type may flush.
    pub fn flushing_atomic_add_of(&self, float: bool) -> bool {
        match self.flushing_atomic_add {
            FlushingAtomicAdd::Never => false,
            FlushingAtomicAdd::Float => float,
            FlushingAtomicAdd::Every => true,
        }
    }

    /// What a verdict assumes, e.g. `reading -nvptx-prec-divf32=0 as licensing div.approx.f32
    /// for fdiv float`; `None` when nothing is licensed.
    pub fn describe(&self) -> Option<String> {
        if !self.grants_any() {
            return None;
        }
        let mut what = Vec::new();
        match self.flushing_atomic_add {
            FlushingAtomicAdd::Never => {}
            FlushingAtomicAdd::Float => {
                what.push("atomicrmw fadd float flushing or not".to_string())
            }
            FlushingAtomicAdd::Every => what.push("atomicrmw fadd flushing or not".to_string()),
        }
        if let Some(d) = self.f32_division {
            what.push(format!("{d}.f32 for fdiv float"));
        }
        if self.approximate_f32_sqrt {
            what.push("sqrt.approx.f32 for llvm.sqrt.f32".to_string());
        }
        Some(format!(
            "reading {} as licensing {}",
            self.flags.join(" "),
            what.join(", ")
        ))
    }
}

/// An option's name without its dashes and value: `nvptx-ftz-atomics`.
fn key_of(flag: &str) -> &str {
    let name = flag.trim_start_matches('-');
    name.split_once('=').map_or(name, |(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(flags: &[&str]) -> Licences {
        Licences::from_llc_flags(&flags.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn each_flag_grants_its_licence_and_the_last_one_wins() {
        assert_eq!(of(&["-mattr=+ptx94", "-O3"]), Licences::default());
        assert_eq!(of(&["-mattr=+ptx94"]).describe(), None);
        assert_eq!(
            of(&["-nvptx-ftz-atomics=fast"]).flushing_atomic_add,
            FlushingAtomicAdd::Every
        );
        assert_eq!(
            of(&["-nvptx-ftz-atomics=legacy-f32-add"]).flushing_atomic_add,
            FlushingAtomicAdd::Float
        );
        assert_eq!(
            of(&["-nvptx-allow-ftz-atomics"]).flushing_atomic_add,
            FlushingAtomicAdd::Float
        );
        // The strict modes grant nothing, and say nothing.
        let strict = of(&[
            "-nvptx-ftz-atomics=strict",
            "-nvptx-allow-ftz-atomics=false",
        ]);
        assert_eq!(strict, Licences::default());
        assert_eq!(strict.describe(), None);
        let last = of(&["-nvptx-ftz-atomics=fast", "-nvptx-ftz-atomics=strict"]);
        assert_eq!(last.flushing_atomic_add, FlushingAtomicAdd::Never);
        let both = of(&["-nvptx-prec-divf32=0", "-nvptx-prec-sqrtf32=0"]);
        assert_eq!(both.f32_division, Some("div.approx"));
        assert!(both.approximate_f32_sqrt);
        assert_eq!(
            both.describe().as_deref(),
            Some("reading -nvptx-prec-divf32=0 -nvptx-prec-sqrtf32=0 as licensing div.approx.f32 for fdiv float, sqrt.approx.f32 for llvm.sqrt.f32")
        );
        assert_eq!(of(&["-nvptx-prec-divf32=1"]).f32_division, Some("div.full"));
        assert_eq!(of(&["-nvptx-prec-divf32=2"]).f32_division, None);
    }
}
