//! `ld`/`st` through a register's address on the memory model both readers share
//! (`semfuzz_spec::memory`): global, shared, local and generic addresses alike (one thread's
//! view), at any computed address. An access outside its block or not aligned to its size
//! (PTX ISA 5.4.4: "all addresses ... must be naturally aligned to a multiple of the access
//! size") is a fault, which the function's `in_bounds` result reports, so the target writing
//! or reading where the source does not is a disagreement.

use super::{at, PhaseAccess, Reader};
use semfuzz_spec::diag::{Diagnostic, Span};
use semfuzz_spec::ir::{Op, ValueId};
use semfuzz_spec::memory::Refusal;

impl Reader<'_> {
    /// The address `[base+offset]`, `base` a register (or, in the `.shared` space, a
    /// `.shared` variable or a 32-bit register: shared-window addresses are zero-extended).
    fn heap_address(
        &mut self,
        base: &str,
        offset: i64,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        if let (true, Some(&address)) = (self.shared_now, self.shared_vars.get(base)) {
            return Ok(self.b.konst(address.wrapping_add(offset as u64), 64));
        }
        // `ld.global.nc.b32 %r1, [table+4]`, `ld.local.b32 %r1, [__local_depot0+4]`.
        let own = if self.module_variable(base) {
            Some(self.variable_base(base)?)
        } else if self.local_vars.contains_key(base) {
            Some(self.local_base(base))
        } else {
            None
        };
        if let Some(start) = own {
            let off = self.b.konst(offset as u64, 64);
            return Ok(self.b.emit(Op::BvAdd(64, start, off), 64));
        }
        let mut v = self.read_reg(base, span)?;
        if self.shared_now && self.b.widths[v.id as usize] == 32 {
            let zero = self.b.konst(0, 32);
            v.id = self.b.concat(zero, v.id);
        }
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
            Refusal::NoPointer if self.shared_now => at(
                span,
                format!("unsupported `.shared` address `{base}`: it may fall in more than one `.shared` variable"),
            )
            .with_hint("semfuzz places a shared access in one variable: the one its known address falls in, or the kernel's only one"),
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

    /// In a CTA, records the access of `bytes` bytes at `addr` for the phase's race check;
    /// `stored` is what a write writes.
    fn note_access(
        &mut self,
        addr: ValueId,
        bytes: u32,
        guard: Option<ValueId>,
        stored: Option<ValueId>,
    ) {
        if self.cta.is_none() {
            return;
        }
        let memory = if self.shared_now {
            &self.shared
        } else {
            &self.heap
        };
        let Ok((block, offset)) = memory.place(&mut self.b, addr, bytes, bytes) else {
            return;
        };
        let when = self
            .and(self.path, guard)
            .unwrap_or_else(|| self.b.konst(1, 1));
        self.phase.push(PhaseAccess {
            thread: self.current,
            step: self.step,
            shared: self.shared_now,
            block,
            offset,
            bytes,
            when,
            stored,
            atomic: self.atomic_now,
        });
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
        let memory = if self.shared_now {
            &self.shared
        } else {
            &self.heap
        };
        let loaded = match memory.load(&mut self.b, addr, bytes, bytes) {
            Ok(l) => l,
            Err(r) => return Err(self.heap_refused(r, base, span)),
        };
        // A guarded load (`@%p ld.global`, Triton's masked loads) touches memory only where
        // its guard holds.
        let guard = self.guard_now;
        self.heap_fault(loaded.ok, guard);
        self.note_access(addr, bytes, guard, None);
        let mut value = loaded.value;
        // Outside a block of the function's own (a `.local` or constant variable) is memory
        // semfuzz does not model: any bits, so that a function whose only memory is its own,
        // and so has no `in_bounds` result, cannot pass off a stray load as byte 0.
        if loaded.local && self.b.known[loaded.ok as usize] != Some(1) {
            let w = self.b.widths[value as usize];
            let any = self.any_value(w, format!("bytes read outside `{base}`'s variable"));
            value = self.b.emit(Op::Select(loaded.ok, value, any), w);
        }
        Ok(self.b.extract(value, 0, width))
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
        let memory = if self.shared_now {
            &mut self.shared
        } else {
            &mut self.heap
        };
        let ok = match memory.store(
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
        let stored = self
            .b
            .extract(value, 0, self.b.widths[value as usize].min(8 * bytes));
        self.note_access(addr, bytes, guard, Some(stored));
        Ok(())
    }
}
