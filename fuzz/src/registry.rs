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
    /// Whether it can run here: its identity, or why not.
    pub probe: fn(Option<&str>) -> Result<Identity, String>,
    /// A new instance.
    pub open: OpenFn,
}

/// Every backend, in the order `semfuzz backends` lists them.
pub const BACKENDS: &[Entry] = &[
    Entry {
        name: "z3",
        usage: "z3",
        about: "the spec's Z3 formulas evaluated on the inputs (a self-test)",
        probe: semfuzz_z3_backend::probe,
        open: semfuzz_z3_backend::open,
    },
    Entry {
        name: "spec",
        usage: "spec",
        about: "the spec's own evaluator (the control: never a finding)",
        probe: crate::spec_backend::probe,
        open: crate::spec_backend::open,
    },
];

/// Splits `name:arg` at the first `:`.
fn split(text: &str) -> (&str, Option<&str>) {
    match text.split_once(':') {
        Some((n, a)) => (n, Some(a)),
        None => (text, None),
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
