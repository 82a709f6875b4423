//! `load`, `store`, `getelementptr` and `addrspacecast` on the memory model both readers share
//! (`semfuzz_spec::memory`): pointer parameters point to blocks of their own; an access
//! outside its block or less aligned than the IR says is undefined behaviour (LangRef 'load':
//! "the behavior is undefined if the alignment is not set to a value which is at least the
//! size in bytes of the pointee" is the `align` operand's promise; Alive2 `ir/memory.cpp`).
//! The parser keeps these instructions as text ([`Shape::Unknown`]); they are read here.

use super::{unsupported, Denormal, Reader, StateValue};
use crate::syntax::{FloatTy, Instr, Type, Value};
use semfuzz_spec::diag::Diagnostic;
use semfuzz_spec::ir::{Op, ValueId};
use semfuzz_spec::memory::Refusal;

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

/// A value as written after its type: a local `%x` or a constant.
pub(super) fn value_of(s: &str) -> Value {
    let s = s.trim();
    match s.strip_prefix('%') {
        Some(n) => Value::Local(n.trim_matches('"').to_string()),
        None => Value::Const(s.to_string()),
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

/// A located error for an instruction whose text is not the shape `shape`.
pub(super) fn at_text(i: &Instr, shape: &str) -> Diagnostic {
    super::at(
        &i.span,
        format!("`{}` is not of the shape {shape}", i.opcode),
    )
}
