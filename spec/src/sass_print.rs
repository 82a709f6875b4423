//! A parsed SASS instruction printed back as text in the manual's syntax, in one canonical
//! spelling: [`sass::parse`](crate::sass::parse) of the printed text gives the same variant,
//! the same field and immediate values and the same register/constant list (the `instr_text`
//! fuzz target checks this on arbitrary text).
//!
//! Canonical means: every operand-member field written out (`R2.H0_H0` even where it is the
//! default), immediates as plain fp16 hex with the sign and `|..|` already folded in
//! (`0xbc00`, never `{-0x3c00}`), scheduling suffixes (`&req_6`, `?sched`) left out.

use crate::catalog::{ModifierKind, OperandRole};
use crate::sass::{Input, SassInstr};
use std::fmt;

impl fmt::Display for SassInstr<'_> {
    /// `@P0 HMUL2.SAT R3, |R8|.H1_H1, -|c[6][60672]|;`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "{g} ")?;
        }
        write!(f, "{} {}", self.variant.text, self.dest)?;
        let sources = &self.variant.sources;
        let field = |i: usize| match self.input_sources()[i] {
            Input::Fixed(v) => v,
            Input::Value(_) => 0,
        };
        // Sources come first among a variant's inputs, in the form's operand order.
        for (i, src) in sources.iter().enumerate() {
            let written = match (self.input_sources()[i], &src.role) {
                (Input::Value(k), OperandRole::Value | OperandRole::Immediate) => {
                    self.values[k].clone()
                }
                // A field narrower than 16 bits holds the immediate's top bits.
                (Input::Fixed(v), OperandRole::Immediate) => {
                    format!("0x{:x}", v << 16u32.saturating_sub(src.width))
                }
                // A fixed predicate is `PT` or `!PT`; any other fixed source is a zero register.
                (Input::Fixed(v), OperandRole::Value) if src.ty == "pred" => {
                    if v != 0 { "PT" } else { "!PT" }.to_string()
                }
                (Input::Fixed(_), OperandRole::Value) => "RZ".to_string(),
                _ => continue,
            };
            let (mut neg, mut abs, mut member) = (false, false, None);
            for (j, m) in sources.iter().enumerate() {
                if let OperandRole::Modifier { operand, kind } = &m.role {
                    if *operand == src.name {
                        match kind {
                            ModifierKind::Neg => neg = field(j) != 0,
                            ModifierKind::Abs => abs = field(j) != 0,
                            ModifierKind::Member { members, .. } => {
                                member = members.get(field(j) as usize);
                            }
                        }
                    }
                }
            }
            let bar = if abs { "|" } else { "" };
            write!(f, ", {}{bar}{written}{bar}", if neg { "-" } else { "" })?;
            if let Some(m) = member {
                write!(f, ".{m}")?;
            }
        }
        write!(f, ";")
    }
}
