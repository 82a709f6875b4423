//! PTX written inside LLVM IR (`call i32 asm "ld.global.b32 $0, [$1];", "=r,l"(ptr %p)`), read
//! with this reader into the IR reader's own program: the same builder, the same memory model
//! (so a load through an IR pointer reaches the IR's blocks), under the IR's path. The IR
//! reader binds the operands (`semfuzz_llir`'s `lower/inline_asm.rs`); here the statements
//! run with `%asmN` standing for operand N.

use super::{at, float_kind, Reader, Scope, Value};
use crate::syntax::{type_bits, FunctionKind};
use semfuzz_spec::diag::{Diagnostic, SourceFile, Span};
use semfuzz_spec::ir::{Builder, Outcome, PartKind, ValueId};
use semfuzz_spec::memory::Memory;
use semfuzz_spec::Spec;

/// One operand register of an inline `asm` statement, `%asmN` in its text.
#[derive(Clone, Copy, Debug)]
pub struct AsmRegister {
    /// Its PTX type (`b16`, `b32`, `b64`, `f32`, `f64`, `pred`), from its constraint letter.
    pub ty: &'static str,
    /// What it holds on entry: an input's value (an output tied to an input holds that);
    /// `None` for an output, which the statements must write.
    pub value: Option<ValueId>,
}

/// The caller's program state the statements extend: moved in, and back out whatever happens.
pub struct AsmContext<'a> {
    /// The caller's builder.
    pub b: &'a mut Builder,
    /// The caller's memory.
    pub heap: &'a mut Memory,
    /// The caller's intermediate choices and where each comes from.
    pub choices: &'a mut Vec<Outcome>,
    /// Their sites.
    pub choice_sites: &'a mut Vec<String>,
    /// Where the statement runs (`None`: always).
    pub path: Option<ValueId>,
}

/// What the statements left: each register's value (in order), where an access faulted, and
/// the pointer input whose block an access reached without one (the caller reads again).
#[derive(Debug)]
pub struct AsmOutcome {
    /// Each register's value at the end; `None` if never written.
    pub registers: Vec<Option<ValueId>>,
    /// Where an access left its block or was misaligned (one bit).
    pub fault: Option<ValueId>,
    /// The pointer input an access reached that has no block yet.
    pub wanted: Option<u16>,
}

/// The newest PTX ISA and target the catalogue specifies: the statements are checked against
/// what they name, not against a target the IR does not state.
const VERSION: &str = "8.8";
const TARGET: &str = "sm_120";

/// Reads `statements` (PTX, `%asmN` for operand N) into `cx`'s program, located at `span` (the
/// IR's `asm` call) when they do not read.
pub fn read_inline_asm(
    spec: &Spec,
    statements: &str,
    registers: &[AsmRegister],
    cx: AsmContext<'_>,
    span: &Span,
) -> Result<AsmOutcome, Diagnostic> {
    let text = format!(
        ".version {VERSION}\n.target {TARGET}\n.address_size 64\n.func semfuzz_asm()\n{{\n{statements}\n}}\n"
    );
    let file = SourceFile::new(format!("{} (inline asm)", span.file.name), text);
    let relocate = |d: Diagnostic| {
        let what = d.message.strip_prefix("unsupported ").unwrap_or(&d.message);
        at(span, format!("unsupported inline `asm`: {what}")).with_hint(format!(
            "semfuzz reads the statements as PTX:\n{}",
            statements.trim()
        ))
    };
    let module = crate::syntax::parse(&file).map_err(relocate)?;
    let f = module
        .functions
        .iter()
        .find(|f| f.kind == FunctionKind::Func && f.body.is_some())
        .expect("the wrapper defines one function");
    let mut r = Reader::new(spec, &module, f, super::DEFAULT_UNROLL);
    r.b = std::mem::take(cx.b);
    r.heap = std::mem::take(cx.heap);
    r.choices = std::mem::take(cx.choices);
    r.choice_sites = std::mem::take(cx.choice_sites);
    r.path = cx.path;
    let mut scope = Scope::default();
    let mut ids = Vec::new();
    for (k, reg) in registers.iter().enumerate() {
        let width = if reg.ty == "pred" {
            1
        } else {
            type_bits(reg.ty).expect("a register type")
        };
        r.next_reg += 1;
        scope.names.insert(format!("%asm{k}"), (r.next_reg, width));
        ids.push(r.next_reg);
        if let Some(v) = reg.value {
            let kind = if width == 1 {
                PartKind::Pred
            } else {
                float_kind(reg.ty, width).unwrap_or(PartKind::Bits)
            };
            r.regs.insert(r.next_reg, Value { id: v, kind });
        }
    }
    r.scopes.push(scope);
    let read = r.block(f.body.as_deref().expect("a body"));
    *cx.b = std::mem::take(&mut r.b);
    *cx.heap = std::mem::take(&mut r.heap);
    *cx.choices = std::mem::take(&mut r.choices);
    *cx.choice_sites = std::mem::take(&mut r.choice_sites);
    let wanted = r.wanted;
    if let Err(d) = read {
        // An access that asks for a block is no error of the statements: the caller reads
        // again with it.
        return match wanted {
            Some(_) => Ok(AsmOutcome {
                registers: Vec::new(),
                fault: None,
                wanted,
            }),
            None => Err(relocate(d)),
        };
    }
    if let Some((label, _)) = r.pending.iter().next() {
        return Err(relocate(Diagnostic::plain(format!(
            "a branch to `{label}`, which the statements never define"
        ))));
    }
    Ok(AsmOutcome {
        registers: ids.iter().map(|id| r.regs.get(id).map(|v| v.id)).collect(),
        fault: r.fault,
        wanted,
    })
}
