//! The backends a campaign can name: `--backend NAME[:ARG]` on the command line.

use semfuzz_backend::{Backend, BackendError, Identity};

/// Opens an instance of a backend from the argument after its `name:`.
pub type OpenFn = fn(Option<&str>) -> Result<Box<dyn Backend>, BackendError>;

/// One kind of backend.
pub struct Entry {
    /// The name before any `:`.
    pub name: &'static str,
    /// How it is written, with its argument (`cuda[:N]`).
    pub usage: &'static str,
    /// What it is, in a few words.
    pub about: &'static str,
    /// The arguments `semfuzz backends` probes it with (`None`: the bare name); none for a
    /// backend that only exists with the user's argument (`external:CMD`).
    pub listed: &'static [Option<&'static str>],
    /// Whether it can run here: its identity, or why not.
    pub probe: fn(Option<&str>) -> Result<Identity, String>,
    /// A new instance.
    pub open: OpenFn,
}

/// Every backend, in the order `semfuzz backends` lists them.
pub const BACKENDS: &[Entry] = &[
    Entry {
        name: "host",
        usage: "host",
        about: "the host CPU's SSE/AVX instructions, as a CPU fallback without fix-ups runs them",
        listed: &[None],
        probe: semfuzz_host::probe,
        open: semfuzz_host::open,
    },
    Entry {
        name: "z3",
        usage: "z3",
        about: "the spec's Z3 formulas evaluated on the inputs (a self-test)",
        listed: &[None],
        probe: semfuzz_z3_backend::probe,
        open: semfuzz_z3_backend::open,
    },
    Entry {
        name: "cuda",
        usage: "cuda[:N]",
        about: "NVIDIA GPU N (default 0): generated PTX JIT-loaded through the CUDA driver",
        listed: &[None],
        probe: semfuzz_cuda::probe,
        open: semfuzz_cuda::open,
    },
    Entry {
        name: "llvm",
        usage: "llvm[:OPT]",
        about: "LLVM's constant folder: llvmlite's LLVM, or an opt binary (llvm:opt-16); \
                llvm+SPELLING[:OPT] writes the cases in one IR spelling (+nvvm, +nvvm+daz, +ir, \
                +ir+daz)",
        listed: &[None, Some("opt-16")],
        probe: semfuzz_llvm::probe,
        open: semfuzz_llvm::open,
    },
    Entry {
        name: "numba-sim",
        usage: "numba-sim",
        about: "numba-cuda's CUDA simulator, through the external protocol",
        listed: &[None],
        probe: semfuzz_numba_sim::probe,
        open: semfuzz_numba_sim::open,
    },
    Entry {
        name: "external",
        usage: "external:CMD",
        about: "any process speaking docs/external-backend.md (an emulator, a simulator)",
        listed: &[],
        probe: semfuzz_external::probe,
        open: semfuzz_external::open,
    },
    Entry {
        name: "spec",
        usage: "spec",
        about: "the spec's own evaluator (the control: never a finding)",
        listed: &[None],
        probe: crate::spec_backend::probe,
        open: crate::spec_backend::open,
    },
];

/// Splits `name:arg` at the first `:`. A name with `+` (`llvm+ir+daz:opt-16`, one spelling of
/// a backend) is the entry before it, whose argument is then everything after the entry's name
/// (`+ir+daz:opt-16`) for the backend to read; a backend that takes no argument refuses it.
fn split(text: &str) -> (&str, Option<&str>) {
    match text.find([':', '+']) {
        None => (text, None),
        Some(i) if text[i..].starts_with(':') => (&text[..i], Some(&text[i + 1..])),
        Some(i) => (&text[..i], Some(&text[i..])),
    }
}

/// The entry `text` names.
pub fn entry(text: &str) -> Result<&'static Entry, BackendError> {
    let (name, _) = split(text);
    BACKENDS.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = BACKENDS.iter().map(|e| e.usage).collect();
        BackendError::Unavailable {
            backend: text.to_string(),
            reason: format!(
                "there is no backend `{name}`; the backends are {} (`semfuzz backends` says \
                 which are available here)",
                names.join(", ")
            ),
        }
    })
}

/// Opens the backend `text` names (`host`, `llvm:opt-16`, `external:./sim --fast`).
pub fn open(text: &str) -> Result<Box<dyn Backend>, BackendError> {
    let (_, arg) = split(text);
    (entry(text)?.open)(arg)
}

/// Probes the backend `text` names.
pub fn probe(text: &str) -> Result<Identity, String> {
    let (_, arg) = split(text);
    (entry(text).map_err(|e| e.to_string())?.probe)(arg)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn names_split_at_the_first_colon_or_spelling() {
        assert_eq!(split("host"), ("host", None));
        assert_eq!(split("llvm:opt-16"), ("llvm", Some("opt-16")));
        assert_eq!(split("llvm+ir+daz"), ("llvm", Some("+ir+daz")));
        assert_eq!(split("llvm+nvvm:opt-16"), ("llvm", Some("+nvvm:opt-16")));
        // A `+` after the colon belongs to the argument.
        assert_eq!(split("external:sim +fast"), ("external", Some("sim +fast")));
    }
}
