//! LLVM IR functions as compilers write them (clang, numba-cuda, llvmlite), read into one
//! [`semfuzz_spec::ir::Program`] over the catalogue's IR variants (`spec/isa/llvm-*.sem`,
//! named by docs/llvm-ir-spec.md).
//!
//! [`syntax`] turns `.ll` text into a tree and back; [`lower`] reads one function of it (its
//! branches and loops, unrolled, as selects on path conditions) into a program whose inputs are the parameters and whose destination is the returned
//! value. The evaluator, the Z3 encoder and the prover take that program as they take a PTX
//! function, so "this PTX refines this IR" is an ordinary refinement query. [`nvvm`] names the
//! PTX variant NVPTX selects for an `@llvm.nvvm.*` intrinsic, which [`lower`] inlines. [`minimal`] cuts a
//! module down to one function and what it uses, as a bug report carries it.

mod cfg;
pub mod licences;
pub mod lower;
pub mod minimal;
pub mod nvvm;
pub mod syntax;

pub use licences::Licences;
pub use lower::{
    read_function, read_function_licensed, read_function_unrolled, IrFunction, BOUNDED,
    DEFAULT_UNROLL, UNSAFE_FP_MATH,
};
pub use minimal::minimal;
pub use syntax::{parse, Module};

use semfuzz_spec::diag::{Diagnostic, SourceFile};
use semfuzz_spec::Spec;

/// Parses `text` (named `name` in messages) and reads function `func` (or the module's one
/// function) into a program.
pub fn load(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
) -> Result<IrFunction, Diagnostic> {
    load_unrolled(spec, name, text, func, DEFAULT_UNROLL)
}

/// [`load`] with each loop's header run at most `unroll` times per entry into the loop.
pub fn load_unrolled(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
    unroll: u32,
) -> Result<IrFunction, Diagnostic> {
    load_licensed(spec, name, text, func, unroll, &Licences::default(), false)
}

/// [`load_unrolled`] with the licences a compile configuration grants
/// ([`Licences::from_llc_flags`]), its pointer parameters other than `noalias` ones
/// overlapping where `may_alias` (`--may-alias`, [`IrFunction::layout`]).
pub fn load_licensed(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
    unroll: u32,
    licences: &Licences,
    may_alias: bool,
) -> Result<IrFunction, Diagnostic> {
    let file = SourceFile::new(name, text);
    let module = parse(&file)?;
    read_function_licensed(spec, &module, func, unroll, licences, may_alias)
}
