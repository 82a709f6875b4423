//! `load`, `store`, `getelementptr` and `addrspacecast` on the memory model both readers share
//! (`semfuzz_spec::memory`): pointer parameters point to blocks of their own; an access
//! outside its block or less aligned than the IR says is undefined behaviour (LangRef 'load':
//! "the behavior is undefined if the alignment is not set to a value which is at least the
//! size in bytes of the pointee" is the `align` operand's promise; Alive2 `ir/memory.cpp`).
//! The parser keeps these instructions as text ([`Shape::Unknown`]); they are read here.

use super::{unsupported, Denormal, Reader, StateValue};
use crate::syntax::{FloatTy, Instr, Type, Value};
use semfuzz_spec::diag::{Diagnostic, Span};
use semfuzz_spec::ir::{Op, ValueId};
use semfuzz_spec::memory::{self, Refusal};

/// A type written at the start of `s` and the text after it: the scalar and vector types
/// values have, pointers, and arrays (`[4 x float]`, for `getelementptr`'s element type only,
/// as the vector of its elements).
pub(super) fn leading_type(s: &str) -> Option<(Type, &str)> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('<').or_else(|| s.strip_prefix('[')) {
        let (n, rest) = rest.split_once(" x ")?;
        let (e, rest) = leading_type(rest)?;
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('>').or_else(|| rest.strip_prefix(']'))?;
        return Some((Type::Vector(n.trim().parse().ok()?, Box::new(e)), rest));
    }
    let end = s
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(s.len());
    let (word, rest) = s.split_at(end);
    let t = match word {
        "half" => Type::Float(FloatTy::Half),
        "bfloat" => Type::Float(FloatTy::BFloat),
        "float" => Type::Float(FloatTy::Float),
        "double" => Type::Float(FloatTy::Double),
        "ptr" => {
            let r = rest.trim_start();
            return match r.strip_prefix("addrspace(") {
                Some(r) => {
                    let (n, r) = r.split_once(')')?;
                    Some((Type::Ptr(n.trim().parse().ok()?), r))
                }
                None => Some((Type::Ptr(0), rest)),
            };
        }
        w => Type::Int(w.strip_prefix('i')?.parse().ok()?),
    };
    Some((t, rest))
}

/// The operands of an instruction's text, split at the commas outside brackets, metadata
/// attachments (`!tbaa !3`) dropped.
pub(super) fn pieces(raw: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (k, c) in raw.char_indices() {
        match c {
            '(' | '<' | '[' | '{' => depth += 1,
            ')' | '>' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(raw[from..k].trim());
                from = k + 1;
            }
            _ => {}
        }
    }
    out.push(raw[from..].trim());
    out.retain(|p| !p.starts_with('!') && !p.is_empty());
    out
}

/// A value as written after its type: a local `%x`, a global `@g` or a constant.
pub(super) fn value_of(s: &str) -> Value {
    let s = s.trim();
    if let Some(n) = s.strip_prefix('%') {
        return Value::Local(n.trim_matches('"').to_string());
    }
    match s.strip_prefix('@') {
        Some(n) => Value::Global(n.trim_matches('"').to_string()),
        None => Value::Const(s.to_string()),
    }
}

/// The largest constant global read: every access is a select over its bytes.
const MAX_CONSTANT_BYTES: usize = 256;

/// The bytes a `constant` global's definition (`[4 x float] [float 1.0, ...], align 4`, what
/// follows `constant`) initialises it to, lowest address first.
pub(super) fn constant_bytes(definition: &str) -> Result<Vec<u8>, String> {
    let (t, rest) = leading_type(definition).ok_or("a type semfuzz does not read")?;
    let init = pieces(rest)
        .first()
        .copied()
        .unwrap_or_default()
        .to_string();
    let size = store_bytes(&t).ok_or_else(|| format!("its type {t}"))? as usize;
    if size > MAX_CONSTANT_BYTES {
        return Err(format!(
            "{size} bytes, more than the {MAX_CONSTANT_BYTES} semfuzz reads"
        ));
    }
    if init == "zeroinitializer" {
        return Ok(vec![0; size]);
    }
    let scalar = |t: &Type, v: &str| -> Result<Vec<u8>, String> {
        let bits = super::constant(v.trim(), t)?;
        let n = store_bytes(t).ok_or_else(|| format!("an element of type {t}"))?;
        Ok(bits.to_le_bytes()[..n as usize].to_vec())
    };
    match &t {
        Type::Vector(n, e) => {
            let inner = init
                .strip_prefix('[')
                .and_then(|x| x.strip_suffix(']'))
                .or_else(|| init.strip_prefix('<').and_then(|x| x.strip_suffix('>')))
                .ok_or_else(|| format!("the initializer `{init}`"))?;
            let items = pieces(inner);
            if items.len() != *n as usize {
                return Err(format!("{} elements for {t}", items.len()));
            }
            let mut bytes = Vec::new();
            for item in items {
                let (et, v) = leading_type(item).ok_or_else(|| format!("the element `{item}`"))?;
                if et != **e {
                    return Err(format!("an element of type {et} in {t}"));
                }
                bytes.extend(scalar(&et, v)?);
            }
            Ok(bytes)
        }
        _ => scalar(&t, &init),
    }
}

/// The bytes a value of type `t` occupies in memory (LangRef: a type's store size).
pub(super) fn store_bytes(t: &Type) -> Option<u32> {
    let e = t.elem().scalar_bits().or(match t.elem() {
        Type::Ptr(_) => Some(64),
        _ => None,
    })?;
    match t {
        Type::Vector(n, _) if e % 8 == 0 => Some(n * e / 8),
        Type::Vector(..) => None,
        _ => Some(e.div_ceil(8)),
    }
}

impl Reader<'_> {
    /// Reads `load`, `store`, `getelementptr`, `addrspacecast`, `atomicrmw` and `cmpxchg`
    /// (`modes`: the function's denormal modes, which `atomicrmw fadd` follows); `Ok(false)`
    /// for any other instruction the parser kept as text.
    pub(super) fn memory_instr(&mut self, i: &Instr, modes: &Denormal) -> Result<bool, Diagnostic> {
        let raw = i.raw.as_str();
        let words = |s: &str| s.split_whitespace().next().map(str::to_string);
        match i.opcode.as_str() {
            "load" | "store" => {
                if let Some(w) = words(raw).filter(|w| w == "atomic") {
                    return Err(unsupported(&i.opcode_span, format!("`{} {w}`", i.opcode)));
                }
                // `volatile`: one thread's accesses happen in program order either way.
                let raw = raw.trim_start().strip_prefix("volatile ").unwrap_or(raw);
                let p = pieces(raw);
                let align = p
                    .iter()
                    .find_map(|q| q.strip_prefix("align "))
                    .and_then(|a| a.trim().parse().ok())
                    .unwrap_or(1);
                if i.opcode == "load" {
                    self.load(i, &p, align)?;
                } else {
                    self.store(i, &p, align)?;
                }
                Ok(true)
            }
            "atomicrmw" => {
                self.atomicrmw(i, modes)?;
                Ok(true)
            }
            "cmpxchg" => {
                self.cmpxchg(i)?;
                Ok(true)
            }
            "getelementptr" => {
                self.gep(i)?;
                Ok(true)
            }
            "alloca" => {
                self.alloca(i)?;
                Ok(true)
            }
            "addrspacecast" => {
                let bad = || at_text(i, "`addrspacecast <ptr> to <ptr>`");
                let (from, rest) = leading_type(raw).ok_or_else(bad)?;
                let (v, to) = rest.split_once(" to ").ok_or_else(bad)?;
                let (to, _) = leading_type(to).ok_or_else(bad)?;
                let v = self.value(&value_of(v), &from, &i.span)?;
                // Generic, global and shared name the same blocks for one thread.
                self.define(i, v, to)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The opaque address of a block of the function's own (`memory::local_address`), a
    /// choice of the source's named `what`.
    pub(super) fn own_address(&mut self, what: &str, span: &Span) -> ValueId {
        let any = self.any_bits(memory::LOCAL_ADDRESS_BITS);
        let free = self.choose(any, memory::LOCAL_ADDRESS_BITS, what, span);
        memory::local_address(&mut self.b, free)
    }

    /// The address of `constant` global `@name`, its block declared where first used, holding
    /// its initializer (read-only: a store to it is undefined behaviour); a located
    /// `unsupported` for any other global or an initializer semfuzz does not read.
    pub(super) fn constant_global(
        &mut self,
        name: &str,
        span: &Span,
    ) -> Result<StateValue, Diagnostic> {
        if let Some(&base) = self.globals_read.get(name) {
            return Ok(StateValue::defined(base));
        }
        let Some(g) = self
            .module
            .globals
            .iter()
            .find(|g| g.name == name && g.kind == "constant")
        else {
            return Err(self.global_use(name, "an operand", span));
        };
        let bytes = constant_bytes(&g.definition)
            .map_err(|why| unsupported(span, format!("the constant `@{name}`: {why}")))?;
        let base = self.own_address(&format!("the address of `@{name}`"), span);
        self.memory.add_constant_block(&mut self.b, base, &bytes);
        self.globals_read.insert(name.to_string(), base);
        Ok(StateValue::defined(base))
    }

    /// A pointer operand (`ptr addrspace(1) %a`): its bits and where it is poison.
    pub(super) fn pointer(&mut self, i: &Instr, text: &str) -> Result<StateValue, Diagnostic> {
        match leading_type(text) {
            Some((t @ Type::Ptr(_), v)) => self.value(&value_of(v), &t, &i.span),
            _ => Err(at_text(i, "a pointer operand `ptr %p`")),
        }
    }

    /// Turns a refusal of the memory model into the reader's answer: a new block asks the
    /// caller to read the function again with it.
    pub(super) fn refused(&mut self, r: Refusal, i: &Instr) -> Diagnostic {
        match r {
            Refusal::NewBlock(n) => {
                self.wanted = Some(n);
                unsupported(&i.opcode_span, "memory: a block is being declared")
            }
            Refusal::NoPointer => unsupported(
                &i.opcode_span,
                format!("`{}` through a pointer no parameter gives", i.opcode),
            )
            .with_hint("semfuzz models the memory that pointer parameters point to"),
            Refusal::Several(_) => unsupported(
                &i.opcode_span,
                format!(
                    "`{}` through a pointer computed from several parameters",
                    i.opcode
                ),
            ),
        }
    }

    /// `alloca <ty>[, <int ty> <n>][, align <a>][, addrspace(<k>)]`: a block of its own
    /// (`semfuzz_spec::memory::Base::Local`), at an address the function alone knows, its
    /// bytes uninitialised: poison, as Alive2 reads uninitialised memory (docs/ambiguities.md
    /// 179). Run again (a loop unrolled), it allocates again.
    fn alloca(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        /// Larger objects make every access a select chain over too many bytes.
        const MAX_ALLOCA_BYTES: u32 = 256;
        let raw = i.raw.trim_start();
        let raw = raw.strip_prefix("inalloca ").unwrap_or(raw);
        let p = pieces(raw);
        let bad = || at_text(i, "`alloca <ty>[, i32 <n>][, align <a>]`");
        let (t, _) = leading_type(p.first().ok_or_else(bad)?)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`alloca` of `{}`", p[0])))?;
        let element = store_bytes(&t)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`alloca` of `{t}`")))?;
        let count = match p.get(1) {
            Some(n) if !n.starts_with("align") && !n.starts_with("addrspace") => {
                let (_, n) = leading_type(n).ok_or_else(bad)?;
                n.trim().parse::<u32>().map_err(|_| {
                    unsupported(
                        &i.opcode_span,
                        format!("`alloca` of `{}` elements", n.trim()),
                    )
                    .with_hint("semfuzz allocates a constant number of elements")
                })?
            }
            _ => 1,
        };
        let bytes = element.saturating_mul(count);
        if bytes > MAX_ALLOCA_BYTES {
            return Err(
                unsupported(&i.opcode_span, format!("`alloca` of {bytes} bytes")).with_hint(
                    format!("semfuzz models an `alloca` of at most {MAX_ALLOCA_BYTES} bytes"),
                ),
            );
        }
        let base = self.own_address("the address of `alloca`", &i.opcode_span);
        let (zero, poison) = (self.b.konst(0, 8), self.b.konst(1, 1));
        self.memory
            .add_local_block(base, vec![(zero, poison); bytes as usize]);
        let space = p
            .iter()
            .find_map(|q| q.strip_prefix("addrspace("))
            .and_then(|n| n.trim_end_matches(')').trim().parse().ok())
            .unwrap_or(0);
        self.define(i, StateValue::defined(base), Type::Ptr(space))
    }

    fn load(&mut self, i: &Instr, p: &[&str], align: u32) -> Result<(), Diagnostic> {
        let [ty, ptr, ..] = p else {
            return Err(at_text(i, "`load <ty>, ptr %p`"));
        };
        let (t, _) = leading_type(ty)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`load` of `{ty}`")))?;
        let bytes = store_bytes(&t)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`load` of `{t}`")))?;
        let (v, _) = self.load_value(i, ptr, &t, bytes, align)?;
        self.define(i, v, t)
    }

    /// `t` (`bytes` bytes, aligned to `align`) loaded through the pointer operand `ptr` of
    /// `i`, and the address: undefined behaviour where the pointer is poison or the access
    /// out of bounds or misaligned; a lane with a poison byte is poison (LangRef `load`,
    /// Alive2). `load` and the atomics' read both read so.
    pub(super) fn load_value(
        &mut self,
        i: &Instr,
        ptr: &str,
        t: &Type,
        bytes: u32,
        align: u32,
    ) -> Result<(StateValue, ValueId), Diagnostic> {
        let width = self.width_of(t, &i.span)?;
        let ptr = self.pointer(i, ptr)?;
        self.add_ub(ptr.poison);
        let loaded = match self.memory.load(&mut self.b, ptr.bits, bytes, align) {
            Ok(l) => l,
            Err(r) => return Err(self.refused(r, i)),
        };
        let not_ok = self.b.emit(Op::Not(1, loaded.ok), 1);
        self.add_ub(Some(not_ok));
        let bits = self.b.extract(loaded.value, 0, width);
        let lane_bytes = (bytes / t.lanes()).max(1) as usize;
        let mut lanes: Vec<Option<ValueId>> = Vec::new();
        for c in loaded.poison.chunks(lane_bytes) {
            let mut lane = None;
            for &p in c {
                if self.b.known[p as usize] != Some(0) {
                    lane = self.b.or_pred(lane, Some(p));
                }
            }
            lanes.push(lane);
        }
        let poison = self.join_poison(&lanes);
        Ok((StateValue { bits, poison }, ptr.bits))
    }

    fn store(&mut self, i: &Instr, p: &[&str], align: u32) -> Result<(), Diagnostic> {
        let [val, ptr, ..] = p else {
            return Err(at_text(i, "`store <ty> %v, ptr %p`"));
        };
        let (t, v) = leading_type(val)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`store` of `{val}`")))?;
        let bytes = store_bytes(&t)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`store` of `{t}`")))?;
        let v = self.value(&value_of(v), &t, &i.span)?;
        let ptr = self.pointer(i, ptr)?;
        self.add_ub(ptr.poison);
        let lane_bytes = (bytes / t.lanes()).max(1);
        let no = self.b.konst(0, 1);
        let poison: Vec<ValueId> = (0..bytes)
            .map(|k| self.lane_poison(v, &t, k / lane_bytes).unwrap_or(no))
            .collect();
        let path = self.path;
        let ok = match self
            .memory
            .store(&mut self.b, ptr.bits, v.bits, &poison, align, path)
        {
            Ok(ok) => ok,
            Err(r) => return Err(self.refused(r, i)),
        };
        let not_ok = self.b.emit(Op::Not(1, ok), 1);
        self.add_ub(Some(not_ok));
        Ok(())
    }

    /// `getelementptr [inbounds] [nuw] T, ptr %p, iN %i, ...`: `p + i * sizeof(T)`, then for
    /// each further index into an array `[N x E]`, `+ j * sizeof(E)`. Indices narrower than
    /// 64 bits are sign-extended (LangRef). `inbounds` adds no poison here: a pointer outside
    /// its block is caught where it is accessed, which is where the source's behaviour
    /// becomes undefined (docs/ambiguities.md 100).
    fn gep(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let mut raw = i.raw.trim_start();
        for flag in ["inbounds ", "nuw ", "nusw "] {
            raw = raw.strip_prefix(flag).unwrap_or(raw).trim_start();
        }
        let p = pieces(raw);
        let [elem, ptr, indices @ ..] = p.as_slice() else {
            return Err(at_text(i, "`getelementptr T, ptr %p, i64 %i`"));
        };
        let (mut t, _) = leading_type(elem)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`getelementptr` over `{elem}`")))?;
        let ptr_ty = match leading_type(ptr) {
            Some((t @ Type::Ptr(_), _)) => t,
            _ => return Err(at_text(i, "a pointer operand `ptr %p`")),
        };
        let base = self.pointer(i, ptr)?;
        let mut addr = base.bits;
        let mut poison = base.poison;
        for (k, idx) in indices.iter().enumerate() {
            if k > 0 {
                t = match t {
                    Type::Vector(_, e) if matches!(elem.trim_start().chars().next(), Some('[')) => {
                        *e
                    }
                    _ => {
                        return Err(unsupported(
                            &i.opcode_span,
                            format!("`getelementptr` index into `{t}`"),
                        ))
                    }
                };
            }
            let size = store_bytes(&t).ok_or_else(|| {
                unsupported(&i.opcode_span, format!("`getelementptr` over `{t}`"))
            })?;
            let (it, v) = leading_type(idx)
                .filter(|(t, _)| matches!(t, Type::Int(_)))
                .ok_or_else(|| at_text(i, "an index `i64 %i`"))?;
            let w = self.width_of(&it, &i.span)?;
            let iv = self.value(&value_of(v), &it, &i.span)?;
            poison = self.b.or_pred(poison, iv.poison);
            let wide = if w < 64 {
                let sign = self.b.extract(iv.bits, w - 1, 1);
                let ones = self.b.konst(u64::MAX, 64 - w);
                let zeros = self.b.konst(0, 64 - w);
                let fill = self.b.emit(Op::Select(sign, ones, zeros), 64 - w);
                self.b.concat(fill, iv.bits)
            } else {
                iv.bits
            };
            let scale = self.b.konst(u64::from(size), 64);
            let off = self.b.emit(Op::BvMul(64, wide, scale), 64);
            addr = self.b.emit(Op::BvAdd(64, addr, off), 64);
        }
        self.define(i, StateValue { bits: addr, poison }, ptr_ty)
    }
}

/// LLVM's memory-block intrinsics (LangRef "Standard C/C++ Library Intrinsics").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MemIntrinsic {
    /// `llvm.memcpy` and `llvm.memcpy.inline`: the blocks "must either be equal or
    /// non-overlapping".
    Copy,
    /// `llvm.memmove`: the blocks may overlap; the bytes are copied "as if" through a buffer.
    Move,
    /// `llvm.memset` and `llvm.memset.inline`: every byte set to the `i8` value.
    Set,
}

impl MemIntrinsic {
    /// The intrinsic `callee` names (`llvm.memcpy.p1.p1.i64`), if it is one of them.
    pub(super) fn of(callee: &str) -> Option<MemIntrinsic> {
        let mut parts = callee.strip_prefix("llvm.")?.split('.');
        let kind = match parts.next()? {
            "memcpy" => MemIntrinsic::Copy,
            "memmove" => MemIntrinsic::Move,
            "memset" => MemIntrinsic::Set,
            _ => return None,
        };
        // `.inline` or the overload's first pointer type (`p0`, `p1`): not the element-wise
        // atomic forms (`llvm.memcpy.element.unordered.atomic`) or `llvm.memset.pattern`.
        let next = parts.next()?;
        let pointer = next
            .strip_prefix('p')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
        (next == "inline" || pointer).then_some(kind)
    }
}

/// The most bytes a memory intrinsic with a constant length is read for: each byte is a load
/// and a store in the program.
pub(super) const MEM_INTRINSIC_MAX_BYTES: u64 = 256;

impl Reader<'_> {
    /// `call void @llvm.memcpy...(ptr %d, ptr %s, i64 LEN, i1 volatile)`, its `memmove` and
    /// `memset(ptr %d, i8 %v, i64 LEN, i1 volatile)` kin, LEN a constant: byte by byte on the
    /// memory model, each byte's poison carried (Alive2 `ir/memory.cpp` copies bytes with their
    /// poison). Every byte is read before any is written, which is `memmove`'s meaning and
    /// `memcpy`'s where it is defined; `memcpy` of blocks that overlap without being equal is
    /// undefined behaviour. A length of 0 touches nothing; `volatile` changes nothing for one
    /// thread.
    pub(super) fn mem_intrinsic(
        &mut self,
        i: &Instr,
        kind: MemIntrinsic,
        operands: &[&crate::syntax::Operand],
        ty: &[Type],
    ) -> Result<(), Diagnostic> {
        let callee = i.callee.as_deref().unwrap_or("");
        let [dst_operand, src_operand, len, _volatile] = operands else {
            return Err(at_text(
                i,
                "`call void @llvm.memcpy(ptr %d, ptr %s, i64 N, i1 false)`",
            ));
        };
        let len_text = match &len.value {
            Value::Const(t) => t.as_str(),
            _ => "",
        };
        let n: u64 = len_text
            .parse()
            .ok()
            .filter(|n| *n <= MEM_INTRINSIC_MAX_BYTES)
            .ok_or_else(|| {
                unsupported(
                    &len.span,
                    format!("`@{callee}` of a length that is not a constant of at most {MEM_INTRINSIC_MAX_BYTES} bytes"),
                )
            })?;
        if n == 0 {
            return Ok(());
        }
        let d = self.value(&dst_operand.value, &ty[0], &dst_operand.span)?;
        self.add_ub(d.poison);
        self.add_misaligned_ub(d.bits, dst_operand);
        let src = self.value(&src_operand.value, &ty[1], &src_operand.span)?;
        if kind != MemIntrinsic::Set {
            self.add_misaligned_ub(src.bits, src_operand);
        }
        let mut bytes = Vec::new();
        for k in 0..n {
            let (value, poison) = match kind {
                MemIntrinsic::Set => {
                    let p = src.poison.unwrap_or_else(|| self.b.konst(0, 1));
                    (src.bits, p)
                }
                MemIntrinsic::Copy | MemIntrinsic::Move => {
                    let at = self.byte_address(src.bits, k);
                    let loaded = match self.memory.load(&mut self.b, at, 1, 1) {
                        Ok(l) => l,
                        Err(r) => return Err(self.refused(r, i)),
                    };
                    let not_ok = self.b.emit(Op::Not(1, loaded.ok), 1);
                    self.add_ub(Some(not_ok));
                    (loaded.value, loaded.poison[0])
                }
            };
            bytes.push((value, poison));
        }
        if kind != MemIntrinsic::Set {
            self.add_ub(src.poison);
        }
        if kind == MemIntrinsic::Copy {
            let overlap = self.overlapping(d.bits, src.bits, n);
            self.add_ub(Some(overlap));
        }
        let path = self.path;
        for (k, (value, poison)) in bytes.into_iter().enumerate() {
            let at = self.byte_address(d.bits, k as u64);
            let ok = match self
                .memory
                .store(&mut self.b, at, value, &[poison], 1, path)
            {
                Ok(ok) => ok,
                Err(r) => return Err(self.refused(r, i)),
            };
            let not_ok = self.b.emit(Op::Not(1, ok), 1);
            self.add_ub(Some(not_ok));
        }
        Ok(())
    }

    /// A pointer argument with `align N` that is not so aligned is poison (LangRef "Parameter
    /// Attributes": `align`), and a memory intrinsic's access through it undefined behaviour.
    fn add_misaligned_ub(&mut self, p: ValueId, o: &crate::syntax::Operand) {
        let words: Vec<&str> = o.attrs.split_whitespace().collect();
        let align = words
            .windows(2)
            .find(|w| w[0] == "align")
            .and_then(|w| w[1].parse::<u64>().ok())
            .filter(|n| n.is_power_of_two() && *n > 1);
        if let Some(align) = align {
            let low = self.b.extract(p, 0, align.trailing_zeros());
            let zero = self.b.konst(0, align.trailing_zeros());
            let aligned = self.b.emit(Op::BvEq(low, zero), 1);
            let misaligned = self.b.emit(Op::Not(1, aligned), 1);
            self.add_ub(Some(misaligned));
        }
    }

    /// `p + k` on 64-bit addresses.
    fn byte_address(&mut self, p: ValueId, k: u64) -> ValueId {
        let k = self.b.konst(k, 64);
        self.b.emit(Op::BvAdd(64, p, k), 64)
    }

    /// Whether `n` bytes at `a` and at `b` overlap without being the same bytes.
    fn overlapping(&mut self, a: ValueId, b: ValueId, n: u64) -> ValueId {
        let n = self.b.konst(n, 64);
        let a_minus_b = self.b.emit(Op::BvSub(64, a, b), 64);
        let b_minus_a = self.b.emit(Op::BvSub(64, b, a), 64);
        let a_in_b = self.b.emit(Op::BvUlt(a_minus_b, n), 1);
        let b_in_a = self.b.emit(Op::BvUlt(b_minus_a, n), 1);
        let meet = self.b.emit(Op::Or(1, a_in_b, b_in_a), 1);
        let same = self.b.emit(Op::BvEq(a, b), 1);
        let different = self.b.emit(Op::Not(1, same), 1);
        self.b.emit(Op::And(1, meet, different), 1)
    }
}

/// A located error for an instruction whose text is not the shape `shape`.
pub(super) fn at_text(i: &Instr, shape: &str) -> Diagnostic {
    super::at(
        &i.span,
        format!("`{}` is not of the shape {shape}", i.opcode),
    )
}
