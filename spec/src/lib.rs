//! The semfuzz spec language and what it compiles to.
//!
//! `*.sem` sources are parsed ([`parser`]), checked ([`check`]), and every instruction variant
//! they describe is lowered ([`lower`]) to the variant IR ([`ir`]). The [`catalog::Spec`] holds
//! the result and finds variants from instruction text (PTX modifiers, or whole SASS
//! instructions through [`sass`]); [`eval`] runs them and returns the ISA's accept set
//! ([`outcome`]).

pub mod ast;
pub mod catalog;
pub mod check;
pub mod coverage;
pub mod diag;
pub mod eval;
pub mod form;
pub mod ir;
pub mod launch;
pub mod lexer;
pub mod lower;
pub mod memory;
pub mod outcome;
pub mod parser;
pub mod pattern;
pub mod printer;
pub mod resolved;
pub mod samples;
pub mod sass;
pub mod sass_print;
pub mod text_rule;

pub use catalog::{Spec, Variant};
pub use diag::{Diagnostic, Diagnostics};
