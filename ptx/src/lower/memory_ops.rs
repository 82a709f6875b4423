//! `ld`/`st` through a register's address on the memory model both readers share
//! (`semfuzz_spec::memory`): global, shared, local and generic addresses alike (one thread's
//! view), at any computed address. An access outside its block or not aligned to its size
//! (PTX ISA 5.4.4: "all addresses ... must be naturally aligned to a multiple of the access
//! size") is a fault, which the function's `in_bounds` result reports, so the target writing
//! or reading where the source does not is a disagreement.

use super::{at, Reader};
use semfuzz_spec::diag::{Diagnostic, Span};
use semfuzz_spec::ir::{Op, ValueId};
use semfuzz_spec::memory::Refusal;

impl Reader<'_> {
    /// The address `[base+offset]`, `base` a register.
    fn heap_address(
        &mut self,
        base: &str,
        offset: i64,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        let v = self.read_reg(base, span)?;
        if self.b.widths[v.id as usize] != 64 {
            return Err(at(span, format!("`{base}` is not a 64-bit address"))
                .with_hint("semfuzz models 64-bit addresses (`.address_size 64`)"));
        }
        let off = self.b.konst(offset as u64, 64);
        Ok(self.b.emit(Op::BvAdd(64, v.id, off), 64))
    }

    /// Why the shared model refused an address, as the reader says it; a new block asks the
    /// caller to read the function again with it.
    fn heap_refused(&mut self, r: Refusal, base: &str, span: &Span) -> Diagnostic {
        match r {
            Refusal::NewBlock(n) => {
                self.wanted = Some(n);
                at(span, "unsupported memory: a block is being declared")
            }
            Refusal::NoPointer => at(
                span,
                format!("unsupported address `{base}`: no pointer parameter gives it"),
            )
            .with_hint("semfuzz models the memory that pointer parameters point to"),
            Refusal::Several(_) => at(
                span,
                format!("unsupported address `{base}`: computed from several pointer parameters"),
            ),
        }
    }

    /// Where the current instruction runs and `guard` holds, some access was not `ok`.
    fn heap_fault(&mut self, ok: ValueId, guard: Option<ValueId>) {
        let not_ok = self.b.emit(Op::Not(1, ok), 1);
        let here = self.and(self.path, guard);
        let here = self.and(here, Some(not_ok));
        self.fault = self.b.or_pred(self.fault, here);
    }

    /// `width` bits loaded from `[base+offset]`.
    pub(super) fn heap_load(
        &mut self,
        base: &str,
        offset: i64,
        width: u32,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        let addr = self.heap_address(base, offset, span)?;
        let bytes = width.div_ceil(8);
        let loaded = match self.heap.load(&mut self.b, addr, bytes, bytes) {
            Ok(l) => l,
            Err(r) => return Err(self.heap_refused(r, base, span)),
        };
        // A guarded load (`@%p ld.global`, Triton's masked loads) touches memory only where
        // its guard holds.
        let guard = self.guard_now;
        self.heap_fault(loaded.ok, guard);
        Ok(self.b.extract(loaded.value, 0, width))
    }

    /// `value` stored at `[base+offset]` where the path and `guard` hold.
    pub(super) fn heap_store(
        &mut self,
        base: &str,
        offset: i64,
        value: ValueId,
        guard: Option<ValueId>,
        span: &Span,
    ) -> Result<(), Diagnostic> {
        let addr = self.heap_address(base, offset, span)?;
        let bytes = self.b.widths[value as usize].div_ceil(8);
        let no = self.b.konst(0, 1);
        let cond = self.and(self.path, guard);
        let ok = match self.heap.store(
            &mut self.b,
            addr,
            value,
            &vec![no; bytes as usize],
            bytes,
            cond,
        ) {
            Ok(ok) => ok,
            Err(r) => return Err(self.heap_refused(r, base, span)),
        };
        self.heap_fault(ok, guard);
        Ok(())
    }
}
