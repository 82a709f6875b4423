//! PTX functions as compilers write them (LLVM's NVPTX back end, `nvcc -ptx`, numba-cuda's
//! `compile_ptx`), read into one [`semfuzz_spec::ir::Program`] over the catalogue's variants.
//!
//! [`syntax`] turns module text into a tree and back; [`lower`] reads one function of it into
//! a program whose inputs are the function's parameters (and the memory its pointer
//! parameters name) and whose destinations are its results. The evaluator, the Z3 encoder and
//! the prover take that program as they take any instruction variant.

pub mod lower;
pub mod syntax;

pub use lower::{
    parse_shape, read_cta, read_function, read_function_unrolled, read_function_with_blocks,
    shape_text, Cta, PtxFunction, Slot, BOUNDED, DEFAULT_UNROLL, MAX_THREADS, RACE_FREE,
    WARP_STORES_AGREE,
};
pub use syntax::{parse, Module};

use semfuzz_spec::diag::{Diagnostic, SourceFile};
use semfuzz_spec::Spec;
use std::sync::Arc;

/// Parses `text` (named `name` in messages) and reads function `func` (or the module's one
/// function) into a program.
pub fn load(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
) -> Result<PtxFunction, Diagnostic> {
    load_unrolled(spec, name, text, func, DEFAULT_UNROLL)
}

/// [`load`] with each loop's body run at most `unroll` times per entry into the loop.
pub fn load_unrolled(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
    unroll: u32,
) -> Result<PtxFunction, Diagnostic> {
    load_with_blocks(
        spec,
        name,
        text,
        func,
        unroll,
        &semfuzz_spec::memory::Layout::default(),
    )
}

/// [`load_unrolled`] with the pointer parameters' memory laid out as `layout` says
/// ([`read_function_with_blocks`]).
pub fn load_with_blocks(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
    unroll: u32,
    layout: &semfuzz_spec::memory::Layout,
) -> Result<PtxFunction, Diagnostic> {
    read_text(name, text, |module| {
        read_function_with_blocks(spec, module, func, unroll, layout)
    })
}

/// Parses `text` and reads function `func` (or the module's one function) as the CTA `cta`
/// ([`read_cta`]), loops unrolled to `unroll`.
pub fn load_cta(
    spec: &Spec,
    name: &str,
    text: &str,
    func: Option<&str>,
    unroll: u32,
    cta: Cta,
) -> Result<PtxFunction, Diagnostic> {
    read_text(name, text, |module| {
        read_cta(spec, module, func, unroll, cta)
    })
}

fn read_text(
    name: &str,
    text: &str,
    read: impl FnOnce(&Module) -> Result<PtxFunction, Diagnostic>,
) -> Result<PtxFunction, Diagnostic> {
    read(&parse(&SourceFile::new(name, text))?)
}

/// [`SourceFile`] re-exported for callers that keep the text for messages.
pub type Source = Arc<SourceFile>;
