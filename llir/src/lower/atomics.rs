//! `atomicrmw` and `cmpxchg` for one thread: a read-modify-write of the block's bytes through
//! the memory model (`semfuzz_spec::memory`), the result the bytes before it. Orderings and
//! `syncscope` order the access against other threads' and change nothing one thread computes
//! (docs/ambiguities.md 103); `volatile` likewise. The new value is the IR instruction's own
//! variant (`atomicrmw add` is `ir_add`, `fadd` is `ir_fadd` in the function's denormal mode,
//! `fmax` is `llvm_maxnum`: LangRef 'atomicrmw'), so the catalogue gives its semantics.

use super::memory_ops::{at_text, leading_type, pieces, store_bytes, value_of};
use super::{type_tag, unsupported, Denormal, Reader, StateValue};
use crate::syntax::{FloatTy, Instr, Type};
use semfuzz_spec::diag::Diagnostic;
use semfuzz_spec::ir::{Op, ValueId};

/// The variant an `atomicrmw` operation computes its new value with, and whether it follows
/// the denormal mode (LangRef 'atomicrmw': "fadd: *ptr = *ptr + val", "fmax: *ptr =
/// maxnum(*ptr, val) (match the llvm.maxnum.* intrinsic)", "fmaximum: ... llvm.maximum.*").
fn rmw_variant(op: &str) -> Option<(&'static str, bool)> {
    Some(match op {
        "add" => ("ir_add", false),
        "sub" => ("ir_sub", false),
        "and" => ("ir_and", false),
        "or" => ("ir_or", false),
        "xor" => ("ir_xor", false),
        "max" => ("llvm_smax", false),
        "min" => ("llvm_smin", false),
        "umax" => ("llvm_umax", false),
        "umin" => ("llvm_umin", false),
        // "usub_sat: *ptr = usub.sat(*ptr, val)".
        "usub_sat" => ("llvm_usub_sat", false),
        "fadd" => ("ir_fadd", true),
        "fsub" => ("ir_fsub", true),
        "fmax" => ("llvm_maxnum", true),
        "fmin" => ("llvm_minnum", true),
        "fmaximum" => ("llvm_maximum", true),
        "fminimum" => ("llvm_minimum", true),
        _ => return None,
    })
}

/// The `.out_X.in_X` suffix of a float variant in `modes` for type `t` (empty for `ieee`);
/// `None` where the catalogue spells no variant (unequal or `dynamic` modes).
fn mode_suffix(modes: &Denormal, t: &Type) -> Option<String> {
    let (out, inp) = match t {
        Type::Float(FloatTy::Float) => modes.f32,
        _ => modes.other,
    };
    if out != inp || out == super::Mode::Dynamic {
        return None;
    }
    Some(
        out.suffix()
            .map(|s| format!(".out_{s}.in_{s}"))
            .unwrap_or_default(),
    )
}

/// The value operand's text `ty %v syncscope("x") ordering...`: its type and value.
fn typed_value(text: &str) -> Option<(Type, &str)> {
    let (t, rest) = leading_type(text)?;
    Some((t, rest.split_whitespace().next()?))
}

impl Reader<'_> {
    /// The old value at `ptr` (type `t`, `align`), and the address and byte count it came from.
    fn rmw_load(
        &mut self,
        i: &Instr,
        ptr: &str,
        t: &Type,
        align: Option<u32>,
    ) -> Result<(StateValue, ValueId, u32), Diagnostic> {
        let bytes = store_bytes(t)
            .filter(|_| t.lanes() == 1)
            .ok_or_else(|| unsupported(&i.opcode_span, format!("`{}` of `{t}`", i.opcode)))?;
        // LangRef: an atomic access's alignment is at least its size ("align ... must be ...
        // greater or equal to the size of the `<value>` type" when it is omitted).
        let align = align.unwrap_or(bytes);
        let (old, addr) = self.load_value(i, ptr, t, bytes, align)?;
        Ok((old, addr, align))
    }

    /// Stores `v` (type `t`) at `addr` where the path holds.
    fn rmw_store(
        &mut self,
        i: &Instr,
        addr: ValueId,
        v: StateValue,
        t: &Type,
        align: u32,
    ) -> Result<(), Diagnostic> {
        let bytes = store_bytes(t).unwrap_or(1);
        let no = self.b.konst(0, 1);
        let poison = vec![v.poison.unwrap_or(no); bytes as usize];
        let path = self.path;
        match self
            .memory
            .store(&mut self.b, addr, v.bits, &poison, align, path)
        {
            // The load before it checked the same bytes.
            Ok(_) => Ok(()),
            Err(r) => Err(self.refused(r, i)),
        }
    }

    /// `atomicrmw [volatile] op ptr %p, ty %v [syncscope("s")] ordering[, align N]`.
    pub(super) fn atomicrmw(&mut self, i: &Instr, modes: &Denormal) -> Result<(), Diagnostic> {
        let shape = "`atomicrmw op ptr %p, ty %v ordering`";
        let raw = i.raw.trim_start();
        let raw = raw.strip_prefix("volatile ").unwrap_or(raw).trim_start();
        let p = pieces(raw);
        let [head, val, rest @ ..] = p.as_slice() else {
            return Err(at_text(i, shape));
        };
        let (op, ptr) = head.split_once(' ').ok_or_else(|| at_text(i, shape))?;
        let (t, v) = typed_value(val).ok_or_else(|| at_text(i, shape))?;
        let align = rest
            .iter()
            .find_map(|q| q.strip_prefix("align "))
            .and_then(|a| a.trim().parse().ok());
        let v = self.value(&value_of(v), &t, &i.span)?;
        let (old, addr, align) = self.rmw_load(i, ptr, &t, align)?;
        let new = self.rmw_new(i, op, &t, old, v, modes)?;
        self.rmw_store(i, addr, new, &t, align)?;
        self.define(i, old, t)
    }

    /// The value `atomicrmw op` writes: `old op v`.
    fn rmw_new(
        &mut self,
        i: &Instr,
        op: &str,
        t: &Type,
        old: StateValue,
        v: StateValue,
        modes: &Denormal,
    ) -> Result<StateValue, Diagnostic> {
        let poison = self.b.or_pred(old.poison, v.poison);
        let w = self.b.widths[old.bits as usize];
        let bits = match op {
            // "xchg: *ptr = val".
            "xchg" => return Ok(v),
            // "usub_cond: *ptr = (*ptr u>= val) ? *ptr - val : *ptr".
            "usub_cond" if matches!(t, Type::Int(_)) => {
                let below = self.b.emit(Op::BvUlt(old.bits, v.bits), 1);
                let diff = self.b.emit(Op::BvSub(w, old.bits, v.bits), w);
                self.b.emit(Op::Select(below, old.bits, diff), w)
            }
            // "nand: *ptr = ~(*ptr & val)".
            "nand" if matches!(t, Type::Int(_)) => {
                let both = self.b.emit(Op::And(w, old.bits, v.bits), w);
                self.b.emit(Op::Not(w, both), w)
            }
            // "uinc_wrap: *ptr = (*ptr u>= val) ? 0 : (*ptr + 1)"; "udec_wrap: *ptr = ((*ptr
            // == 0) || (*ptr u> val)) ? val : (*ptr - 1)".
            "uinc_wrap" | "udec_wrap" if matches!(t, Type::Int(_)) => {
                let one = self.b.konst(1, w);
                let zero = self.b.konst(0, w);
                if op == "uinc_wrap" {
                    let below = self.b.emit(Op::BvUlt(old.bits, v.bits), 1);
                    let next = self.b.emit(Op::BvAdd(w, old.bits, one), w);
                    self.b.emit(Op::Select(below, next, zero), w)
                } else {
                    let is_zero = self.b.emit(Op::BvEq(old.bits, zero), 1);
                    let above = self.b.emit(Op::BvUlt(v.bits, old.bits), 1);
                    let wrap = self.b.emit(Op::Or(1, is_zero, above), 1);
                    let prev = self.b.emit(Op::BvSub(w, old.bits, one), w);
                    self.b.emit(Op::Select(wrap, v.bits, prev), w)
                }
            }
            _ => {
                let (name, fp) = rmw_variant(op)
                    .ok_or_else(|| unsupported(&i.opcode_span, format!("`atomicrmw {op}`")))?;
                let modes = if fp {
                    mode_suffix(modes, t).ok_or_else(|| {
                        unsupported(
                            &i.opcode_span,
                            format!("`atomicrmw {op}` in a mixed or dynamic denormal mode"),
                        )
                    })?
                } else {
                    String::new()
                };
                let tag = type_tag(t).ok_or_else(|| {
                    unsupported(&i.opcode_span, format!("`atomicrmw {op}` on `{t}`"))
                })?;
                let variant = self.find(&format!("{name}{modes}.{tag}"), 2, i)?;
                let out = self.inline(variant, &[old.bits, v.bits], i)?;
                self.variants.push(variant.text.clone());
                self.add_ub(out[0].ub);
                let poison = self.b.or_pred(out[0].poison, poison);
                let float = t == &Type::Float(FloatTy::Float);
                let mut bits = out[0].value;
                if op == "fadd" && self.licences.flushing_atomic_add_of(float) {
                    // The native `atom.add`'s sum, whichever way it treats subnormals: the
                    // IEEE one, or for `float` the one that flushes inputs and result, as
                    // `add.rn.ftz.f32` does (docs/ambiguities.md 105). Each is one number, so
                    // the prover splits the licence into its cases.
                    let mut others = Vec::new();
                    if !modes.is_empty() {
                        others.push(format!("{name}.{tag}"));
                    }
                    if float {
                        others.push("add.rn.ftz.f32".to_string());
                    }
                    bits = self.or_licensed(
                        i,
                        bits,
                        &others,
                        &[old.bits, v.bits],
                        "the native atom.add (-nvptx-ftz-atomics)",
                    )?;
                }
                return Ok(StateValue { bits, poison });
            }
        };
        Ok(StateValue { bits, poison })
    }

    /// `cmpxchg [volatile] ptr %p, ty %cmp, ty %new [syncscope("s")] success failure[,
    /// align N]`: `{old, old == cmp}`, `new` stored where equal (LangRef 'cmpxchg': "the
    /// value is compared ... If they are equal ... `new` is written"). `weak` may fail where
    /// equal, which the model does not say: unsupported.
    pub(super) fn cmpxchg(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let shape = "`cmpxchg ptr %p, ty %cmp, ty %new success failure`";
        let raw = i.raw.trim_start();
        if raw.starts_with("weak ") {
            return Err(unsupported(&i.opcode_span, "`cmpxchg weak`")
                .with_hint("a weak cmpxchg may fail spuriously; semfuzz models the strong one"));
        }
        let raw = raw.strip_prefix("volatile ").unwrap_or(raw).trim_start();
        let p = pieces(raw);
        let [ptr, cmp, new, rest @ ..] = p.as_slice() else {
            return Err(at_text(i, shape));
        };
        let (t, c) = typed_value(cmp).ok_or_else(|| at_text(i, shape))?;
        let (_, n) = typed_value(new).ok_or_else(|| at_text(i, shape))?;
        let align = rest
            .iter()
            .find_map(|q| q.strip_prefix("align "))
            .and_then(|a| a.trim().parse().ok());
        let c = self.value(&value_of(c), &t, &i.span)?;
        let n = self.value(&value_of(n), &t, &i.span)?;
        let (old, addr, align) = self.rmw_load(i, ptr, &t, align)?;
        let equal = self.b.emit(Op::BvEq(old.bits, c.bits), 1);
        let success = StateValue {
            bits: equal,
            poison: self.b.or_pred(old.poison, c.poison),
        };
        let w = self.b.widths[old.bits as usize];
        let stored = StateValue {
            bits: self.b.emit(Op::Select(equal, n.bits, old.bits), w),
            // A poison comparison makes which value is stored unknown: both may be.
            poison: {
                let chosen = match (n.poison, old.poison) {
                    (None, None) => None,
                    (a, b) => {
                        let zero = self.b.konst(0, 1);
                        let (a, b) = (a.unwrap_or(zero), b.unwrap_or(zero));
                        Some(self.b.emit(Op::Select(equal, a, b), 1))
                    }
                };
                self.b.or_pred(chosen, success.poison)
            },
        };
        self.rmw_store(i, addr, stored, &t, align)?;
        if let Some(r) = &i.result {
            self.state
                .aggregates
                .insert(r.clone(), vec![(old, t), (success, Type::Int(1))]);
        }
        Ok(())
    }
}
