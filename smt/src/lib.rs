//! SMT side of semfuzz: PTX specs compiled to Z3 formulas.
//!
//! libz3 comes from the `z3-solver` PyPI wheel installed by `cargo xtask setup`
//! (see `.cargo/config.toml`).

pub mod consistency;
pub mod encode;
pub mod fpbits;
pub mod lanes;
pub mod lemma;
pub mod portfolio;
pub mod prove;
pub mod reach;
pub mod rules;
pub mod sequence;
pub mod shared_work;
pub mod solve;
pub mod witness;

pub use z3;

/// Version of the libz3 actually loaded at run time, e.g. `"5.4.0.0"`
/// (major.minor.build.revision).
pub fn z3_version() -> String {
    let (mut major, mut minor, mut build, mut rev) = (0, 0, 0, 0);
    // SAFETY: Z3_get_version only writes the four out-parameters.
    unsafe { z3_sys::Z3_get_version(&mut major, &mut minor, &mut build, &mut rev) };
    format!("{major}.{minor}.{build}.{rev}")
}
