//! The semfuzz campaign engine: input generators, the batch loop that runs a backend and
//! compares its results with the evaluator's accept sets, the classification and
//! deduplication of what the spec rejects, and the findings that come out.

#![warn(missing_docs)]

pub mod campaign;
pub mod finding;
pub mod generate;
pub mod registry;
pub mod spec_backend;

pub use campaign::{run, Config, Counters, Report};
pub use finding::{Class, Finding};
pub use generate::GeneratorKind;
