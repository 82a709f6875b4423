//! A [`Program`] as Cranelift IR: the ops of one input row, and the two loops over a batch
//! (values out; accept-set test against a backend's bits).
//!
//! Every IR value is an `i64` holding the same bits the interpreter's slot would hold:
//! [`Op::exec`] is the meaning, and each lowering below reproduces it bit for bit (the
//! equivalence tests compare the two on every variant).

use crate::guard;
use crate::shims::{self, FpOp, Shim};
use crate::wide;
use crate::Unsupported;
use cranelift_codegen::entity::packed_option::ReservedValue;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Variable};
use semfuzz_fp::{Format, Round};
use semfuzz_spec::ir::{mask, Class, Cmp, Op, Outcome, Part, Program, Shift, ValueId};

const I64: types::Type = types::I64;

/// The signature every shim has (see [`shims::Shim`]).
pub fn shim_signature(cc: CallConv) -> Signature {
    let mut sig = Signature::new(cc);
    sig.params.extend([AbiParam::new(I64); 5]);
    sig.returns.push(AbiParam::new(I64));
    sig
}

/// Lowers the ops of one row into the current block.
pub struct RowLowering<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    shim_sig: SigRef,
    /// The Cranelift value of each IR value.
    vals: Vec<Value>,
    /// Whether an [`Op::Choose`] of this row met a set of more than one member (an `i8`).
    open: Value,
    /// The bounded outcomes choices call back into MPFR for (see [`shims::within_rep`]): the
    /// compiled code holds their addresses, so they live as long as it does (boxed: the
    /// addresses must not move when the vector grows).
    #[allow(clippy::vec_box)]
    bounded: &'a mut Vec<Box<Outcome>>,
}

fn magnitude_mask(f: Format) -> i64 {
    mask(f.width() - 1) as i64
}

fn inf_magnitude(f: Format) -> i64 {
    f.inf(false) as i64
}

fn quiet_bit(f: Format) -> i64 {
    (f.default_nan() ^ f.inf(false)) as i64
}

/// How many ops [`never_subnormal`] looks back through: a flush and the sign operations
/// before it (the SASS operand modifiers) are a few.
const NEVER_SUBNORMAL_DEPTH: u32 = 8;

/// Whether value `v`, an encoding of `f`, is never a subnormal, by its ops: a flush (the
/// spec's `flush` lowers to `Select(Class(f, Subnormal, x), ±0, x)`), a signed zero (the sign
/// bit over zeros), a constant, and negations, absolute values and selects of such values.
/// A widening of such a value needs no subnormal path (`.FTZ` operands of the SASS half
/// instructions are flushed before every product).
fn never_subnormal(program: &Program, f: Format, v: ValueId, depth: u32) -> bool {
    let op = |v: ValueId| &program.ops[v as usize];
    let sign = 1u64 << (f.width() - 1);
    let constant = |v: ValueId| match *op(v) {
        Op::Const(c) => Some(c),
        _ => None,
    };
    if depth == 0 {
        return false;
    }
    let below = |v| never_subnormal(program, f, v, depth - 1);
    match *op(v) {
        Op::Const(c) => !f.is_subnormal(c),
        Op::Select(c, a, b) => {
            let flushes_b = matches!(*op(c), Op::Class(g, Class::Subnormal, x) if g == f && x == b);
            below(a) && (flushes_b || below(b))
        }
        Op::Concat { hi, lo, lo_width } => {
            lo_width == f.width() - 1 && program.widths[hi as usize] == 1 && constant(lo) == Some(0)
        }
        Op::And(_, x, y) if constant(x) == Some(sign) || constant(y) == Some(sign) => true,
        Op::And(_, x, m) | Op::And(_, m, x) if constant(m) == Some(sign - 1) => below(x),
        Op::Xor(_, x, m) | Op::Xor(_, m, x) if constant(m) == Some(sign) => below(x),
        _ => false,
    }
}

/// The native float type whose `.rn` arithmetic is exactly `f`'s.
fn native(f: Format, r: Round) -> Option<types::Type> {
    match (f, r) {
        (Format::F32, Round::NearestEven) => Some(types::F32),
        (Format::F64, Round::NearestEven) => Some(types::F64),
        _ => None,
    }
}

impl<'a, 'b> RowLowering<'a, 'b> {
    /// Lowers every op of `program` (each reading only values defined before it), its guarded
    /// arms as `plan` groups them, reading source operand `k` at `inputs + 8k`; the bounded
    /// outcomes of its choices are kept in `bounded`, which must outlive the code.
    #[allow(clippy::vec_box)] // the boxes' addresses are compiled into the code
    pub fn lower(
        b: &'a mut FunctionBuilder<'b>,
        shim_sig: SigRef,
        program: &Program,
        plan: &guard::Plan,
        inputs: Value,
        bounded: &'a mut Vec<Box<Outcome>>,
    ) -> Result<RowLowering<'a, 'b>, Unsupported> {
        let open = b.ins().iconst(types::I8, 0);
        let n = program.ops.len();
        let mut l = RowLowering {
            b,
            shim_sig,
            vals: vec![Value::reserved_value(); n],
            open,
            bounded,
        };
        for (i, op) in program.ops.iter().enumerate() {
            for &g in &plan.at[i] {
                l.guarded(program, &plan.groups[g], inputs)?;
            }
            if plan.group_of[i].is_none() {
                l.vals[i] = l.op(program, op, inputs)?;
            }
        }
        Ok(l)
    }

    /// `c ? a : b`. Where `c` is one bit and `a` is `b` under a constant mask (the SASS `-` and
    /// `|..|` operand modifiers: `neg ? x ^ sign : x`, `abs ? x & !sign : x`), the flag goes
    /// into the mask instead: no select, and no copy of `b` kept beside the masked one.
    fn select(&mut self, program: &Program, c: ValueId, a: ValueId, b: ValueId) -> Value {
        let (flag, x) = (self.v(c), self.v(b));
        // The constant `k` when `p` is `b` and `q` is `Const(k)`, in either order.
        let mask = |p: ValueId, q: ValueId| {
            let of_b = |y: ValueId, k: ValueId| match program.ops[k as usize] {
                Op::Const(k) if y == b => Some(k as i64),
                _ => None,
            };
            of_b(p, q).or_else(|| of_b(q, p))
        };
        if program.widths[c as usize] == 1 {
            match program.ops[a as usize] {
                Op::Xor(_, p, q) => {
                    if let Some(k) = mask(p, q) {
                        let on = self.b.ins().ineg(flag);
                        let m = self.b.ins().band_imm_s(on, k);
                        return self.b.ins().bxor(x, m);
                    }
                }
                Op::And(_, p, q) => {
                    if let Some(k) = mask(p, q) {
                        let off = self.b.ins().iadd_imm_s(flag, -1);
                        let m = self.b.ins().bor_imm_s(off, k);
                        return self.b.ins().band(x, m);
                    }
                }
                _ => {}
            }
        }
        let y = self.v(a);
        self.b.ins().select(flag, y, x)
    }

    /// Emits `group`'s ops in a block entered only when its condition selects them; its
    /// exported values leave through the join block's parameters (zero on the other path,
    /// where only the select's other arm is read).
    fn guarded(
        &mut self,
        program: &Program,
        group: &guard::Group,
        inputs: Value,
    ) -> Result<(), Unsupported> {
        let (then, join) = (self.b.create_block(), self.b.create_block());
        for _ in &group.exported {
            self.b.append_block_param(join, I64);
        }
        let zero = self.b.ins().iconst(I64, 0);
        let skipped: Vec<BlockArg> = group.exported.iter().map(|_| zero.into()).collect();
        let cond = self.v(group.cond);
        if group.side {
            self.b.ins().brif(cond, then, &[], join, &skipped);
        } else {
            self.b.ins().brif(cond, join, &skipped, then, &[]);
        }
        self.b.switch_to_block(then);
        for &m in &group.members {
            self.vals[m as usize] = self.op(program, &program.ops[m as usize], inputs)?;
        }
        let out: Vec<BlockArg> = group.exported.iter().map(|&m| self.v(m).into()).collect();
        self.b.ins().jump(join, &out);
        self.b.switch_to_block(join);
        for (k, &m) in group.exported.iter().enumerate() {
            self.vals[m as usize] = self.b.block_params(join)[k];
        }
        Ok(())
    }

    fn v(&self, id: ValueId) -> Value {
        self.vals[id as usize]
    }

    fn mask(&mut self, x: Value, width: u32) -> Value {
        if width >= 64 {
            x
        } else {
            self.b.ins().band_imm_s(x, mask(width) as i64)
        }
    }

    /// A predicate (`i8`) as the 0/1 value the interpreter stores.
    fn widen(&mut self, p: Value) -> Value {
        self.b.ins().uextend(I64, p)
    }

    fn is_nan(&mut self, f: Format, x: Value) -> Value {
        let m = self.b.ins().band_imm_s(x, magnitude_mask(f));
        self.b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThan, m, inf_magnitude(f))
    }

    /// A native result with `semfuzz-fp`'s NaN: the first NaN operand quieted, else the
    /// default NaN (hardware picks other NaN bits: x86's default NaN is negative, and ARM
    /// prefers a signaling operand to an earlier quiet one). `y` is the native float result,
    /// whose NaN-ness decides (`r`, its bits in `f`, may be anything when it is a NaN).
    fn fix_nan(&mut self, f: Format, y: Value, r: Value, operands: &[Value]) -> Value {
        let mut nan = self.b.ins().iconst(I64, f.default_nan() as i64);
        for &x in operands.iter().rev() {
            let is = self.is_nan(f, x);
            // `x` holds no bits above its width (module docs), so no mask before the quiet bit.
            let q = self.b.ins().bor_imm_s(x, quiet_bit(f));
            nan = self.b.ins().select(is, q, nan);
        }
        let y_is_nan = self.b.ins().fcmp(FloatCC::Unordered, y, y);
        self.b.ins().select(y_is_nan, nan, r)
    }

    fn as_float(&mut self, x: Value, ty: types::Type) -> Value {
        if ty == types::F32 {
            let t = self.b.ins().ireduce(types::I32, x);
            self.b.ins().bitcast(types::F32, MemFlagsData::new(), t)
        } else {
            self.b.ins().bitcast(types::F64, MemFlagsData::new(), x)
        }
    }

    fn as_bits(&mut self, x: Value, ty: types::Type) -> Value {
        if ty == types::F32 {
            let t = self.b.ins().bitcast(types::I32, MemFlagsData::new(), x);
            self.b.ins().uextend(I64, t)
        } else {
            self.b.ins().bitcast(I64, MemFlagsData::new(), x)
        }
    }

    fn call(&mut self, shim: Shim, args: [Value; 3], format: u64, mode: u64) -> Value {
        let callee = self.b.ins().iconst(I64, shim as usize as i64);
        let f = self.b.ins().iconst(I64, format as i64);
        let m = self.b.ins().iconst(I64, mode as i64);
        let call =
            self.b
                .ins()
                .call_indirect(self.shim_sig, callee, &[args[0], args[1], args[2], f, m]);
        self.b.inst_results(call)[0]
    }

    /// An arithmetic op: native where exact, else the soft-float shim.
    fn arith(
        &mut self,
        program: &Program,
        op: FpOp,
        f: Format,
        r: Round,
        args: &[ValueId],
    ) -> Value {
        let xs: Vec<Value> = args.iter().map(|&a| self.v(a)).collect();
        if let Some(ty) = native(f, r) {
            let fs: Vec<Value> = xs.iter().map(|&x| self.as_float(x, ty)).collect();
            let ins = self.b.ins();
            let y = match op {
                FpOp::Add => ins.fadd(fs[0], fs[1]),
                FpOp::Sub => ins.fsub(fs[0], fs[1]),
                FpOp::Mul => ins.fmul(fs[0], fs[1]),
                FpOp::Div => ins.fdiv(fs[0], fs[1]),
                FpOp::Fma => ins.fma(fs[0], fs[1], fs[2]),
                FpOp::Sqrt => ins.sqrt(fs[0]),
            };
            let bits = self.as_bits(y, ty);
            return self.fix_nan(f, y, bits, &xs);
        }
        if wide::fits(f) && !matches!(op, FpOp::Div | FpOp::Sqrt) {
            let ws: Vec<Value> = args
                .iter()
                .zip(&xs)
                .map(|(&a, &x)| {
                    let subnormals = !never_subnormal(program, f, a, NEVER_SUBNORMAL_DEPTH);
                    wide::widen(self.b, f, x, subnormals)
                })
                .collect();
            let y = match op {
                FpOp::Add => wide::sum(self.b, f, r, ws[0], ws[1]),
                FpOp::Sub => {
                    let minus = self.b.ins().fneg(ws[1]);
                    wide::sum(self.b, f, r, ws[0], minus)
                }
                FpOp::Mul => wide::product(self.b, ws[0], ws[1]),
                // The product is exact, so the sum with `c` is `fma`'s one rounding.
                FpOp::Fma => {
                    let p = wide::product(self.b, ws[0], ws[1]);
                    wide::sum(self.b, f, r, p, ws[2])
                }
                FpOp::Div | FpOp::Sqrt => unreachable!("not widened"),
            };
            let bits = wide::narrow(self.b, f, r, y);
            return self.fix_nan(f, y, bits, &xs);
        }
        let zero = self.b.ins().iconst(I64, 0);
        let mut a = [zero; 3];
        a[..xs.len()].copy_from_slice(&xs);
        self.call(shims::shim(op, f), a, shims::pack(f), shims::round_code(r))
    }

    fn compare(&mut self, f: Format, c: Cmp, a: ValueId, b: ValueId) -> Value {
        let (x, y) = (self.v(a), self.v(b));
        if let Some(ty) = native(f, Round::NearestEven) {
            let (fx, fy) = (self.as_float(x, ty), self.as_float(y, ty));
            let cc = match c {
                Cmp::Eq => FloatCC::Equal,
                Cmp::Lt => FloatCC::LessThan,
                Cmp::Le => FloatCC::LessThanOrEqual,
            };
            let p = self.b.ins().fcmp(cc, fx, fy);
            return self.widen(p);
        }
        // Ordered keys: a magnitude, negated for a negative value (so -0 and +0 are both 0),
        // compared as signed integers; a NaN operand makes every comparison false.
        let key = |l: &mut Self, x: Value| {
            let m = l.b.ins().band_imm_s(x, magnitude_mask(f));
            let neg = l.b.ins().ushr_imm_s(x, i64::from(f.width() - 1));
            let neg = l.b.ins().band_imm_s(neg, 1);
            let minus = l.b.ins().ineg(m);
            l.b.ins().select(neg, minus, m)
        };
        let (kx, ky) = (key(self, x), key(self, y));
        let cc = match c {
            Cmp::Eq => IntCC::Equal,
            Cmp::Lt => IntCC::SignedLessThan,
            Cmp::Le => IntCC::SignedLessThanOrEqual,
        };
        let p = self.b.ins().icmp(cc, kx, ky);
        let (nx, ny) = (self.is_nan(f, x), self.is_nan(f, y));
        let unordered = self.b.ins().bor(nx, ny);
        let ordered = self.b.ins().icmp_imm_s(IntCC::Equal, unordered, 0);
        let p = self.b.ins().band(p, ordered);
        self.widen(p)
    }

    /// A conversion between formats that [`wide::fits`]: exact into f64, one rounding out;
    /// a NaN as `semfuzz_fp::convert` makes it (its payload's high bits kept, quieted).
    fn convert_widened(&mut self, from: Format, to: Format, r: Round, x: Value) -> Value {
        let y = wide::widen(self.b, from, x, true);
        let rounded = wide::narrow(self.b, to, r, y);
        let payload = self
            .b
            .ins()
            .band_imm_s(x, mask(from.precision() - 1) as i64);
        let payload = if to.precision() >= from.precision() {
            let by = to.precision() - from.precision();
            self.b.ins().ishl_imm_s(payload, i64::from(by))
        } else {
            let by = from.precision() - to.precision();
            self.b.ins().ushr_imm_s(payload, i64::from(by))
        };
        let payload = self
            .b
            .ins()
            .bor_imm_s(payload, to.default_nan() as i64 & magnitude_mask(to));
        let sign = self.b.ins().ushr_imm_s(x, i64::from(from.width() - 1));
        let sign = self.b.ins().band_imm_s(sign, 1);
        let sign = self.b.ins().ishl_imm_s(sign, i64::from(to.width() - 1));
        let nan = self.b.ins().bor(payload, sign);
        let is_nan = self.is_nan(from, x);
        self.b.ins().select(is_nan, nan, rounded)
    }

    fn class(&mut self, f: Format, c: Class, a: ValueId) -> Value {
        let x = self.v(a);
        let m = self.b.ins().band_imm_s(x, magnitude_mask(f));
        let inf = inf_magnitude(f);
        let min_normal = f.min_normal(false) as i64;
        let ins = self.b.ins();
        let p = match c {
            Class::Nan => ins.icmp_imm_s(IntCC::UnsignedGreaterThan, m, inf),
            Class::SignalingNan => {
                let nan = ins.icmp_imm_s(IntCC::UnsignedGreaterThan, m, inf);
                let q = self.b.ins().band_imm_s(x, quiet_bit(f));
                let quiet_clear = self.b.ins().icmp_imm_s(IntCC::Equal, q, 0);
                self.b.ins().band(nan, quiet_clear)
            }
            Class::Inf => ins.icmp_imm_s(IntCC::Equal, m, inf),
            Class::Zero => ins.icmp_imm_s(IntCC::Equal, m, 0),
            // 0 < m < min_normal, as one unsigned comparison (m - 1 wraps for m = 0).
            Class::Subnormal => {
                let d = ins.iadd_imm_s(m, -1);
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThan, d, min_normal - 1)
            }
            // min_normal <= m < inf, likewise.
            Class::Normal => {
                let d = ins.iadd_imm_s(m, -min_normal);
                self.b
                    .ins()
                    .icmp_imm_s(IntCC::UnsignedLessThan, d, inf - min_normal)
            }
            Class::Finite => ins.icmp_imm_s(IntCC::UnsignedLessThan, m, inf),
        };
        self.widen(p)
    }

    fn op(&mut self, program: &Program, op: &Op, inputs: Value) -> Result<Value, Unsupported> {
        Ok(match *op {
            Op::Input(k) => {
                let Some(&w) = program.input_widths.get(k as usize) else {
                    return Err(Unsupported(format!("input {k} is not a source operand")));
                };
                let x = self
                    .b
                    .ins()
                    .load(I64, MemFlagsData::trusted(), inputs, i32::from(k) * 8);
                self.mask(x, w)
            }
            Op::Const(c) => self.b.ins().iconst(I64, c as i64),
            Op::Add(f, r, a, b) => self.arith(program, FpOp::Add, f, r, &[a, b]),
            Op::Sub(f, r, a, b) => self.arith(program, FpOp::Sub, f, r, &[a, b]),
            Op::Mul(f, r, a, b) => self.arith(program, FpOp::Mul, f, r, &[a, b]),
            Op::Div(f, r, a, b) => self.arith(program, FpOp::Div, f, r, &[a, b]),
            Op::Fma(f, r, a, b, c) => self.arith(program, FpOp::Fma, f, r, &[a, b, c]),
            Op::Sqrt(f, r, a) => self.arith(program, FpOp::Sqrt, f, r, &[a]),
            Op::Cvt(from, to, r, a) if wide::fits(from) && wide::fits(to) => {
                self.convert_widened(from, to, r, self.v(a))
            }
            Op::Cvt(from, to, r, a) => {
                let (x, zero) = (self.vals[a as usize], self.b.ins().iconst(I64, 0));
                let to_packed = self.b.ins().iconst(I64, shims::pack(to) as i64);
                self.call(
                    shims::convert_shim(from, to),
                    [x, to_packed, zero],
                    shims::pack(from),
                    shims::round_code(r),
                )
            }
            Op::RoundInt(f, r, a) => {
                let (x, zero) = (self.v(a), self.b.ins().iconst(I64, 0));
                let call = [x, zero, zero];
                self.call(shims::round_int, call, shims::pack(f), shims::round_code(r))
            }
            Op::FloatToInt {
                from,
                round,
                width,
                signed,
                value,
            } => {
                let x = self.v(value);
                let w = self.b.ins().iconst(I64, i64::from(width));
                let s = self.b.ins().iconst(I64, i64::from(signed));
                let (f, r) = (shims::pack(from), shims::round_code(round));
                self.call(shims::to_int, [x, w, s], f, r)
            }
            Op::IntToFloat {
                width,
                signed,
                to,
                round,
                value,
            } => {
                let x = self.v(value);
                let w = self.b.ins().iconst(I64, i64::from(width));
                let s = self.b.ins().iconst(I64, i64::from(signed));
                let (f, r) = (shims::pack(to), shims::round_code(round));
                self.call(shims::from_int, [x, w, s], f, r)
            }
            Op::Class(f, c, a) => self.class(f, c, a),
            Op::FCmp(f, c, a, b) => self.compare(f, c, a, b),
            Op::And(_, a, b) => self
                .b
                .ins()
                .band(self.vals[a as usize], self.vals[b as usize]),
            Op::Or(_, a, b) => self
                .b
                .ins()
                .bor(self.vals[a as usize], self.vals[b as usize]),
            Op::Xor(_, a, b) => self
                .b
                .ins()
                .bxor(self.vals[a as usize], self.vals[b as usize]),
            Op::Not(w, a) => {
                let n = self.b.ins().bnot(self.vals[a as usize]);
                self.mask(n, w)
            }
            Op::BvAdd(w, a, b) => {
                let s = self
                    .b
                    .ins()
                    .iadd(self.vals[a as usize], self.vals[b as usize]);
                self.mask(s, w)
            }
            Op::BvSub(w, a, b) => {
                let s = self
                    .b
                    .ins()
                    .isub(self.vals[a as usize], self.vals[b as usize]);
                self.mask(s, w)
            }
            Op::BvEq(a, b) => {
                let p =
                    self.b
                        .ins()
                        .icmp(IntCC::Equal, self.vals[a as usize], self.vals[b as usize]);
                self.widen(p)
            }
            Op::BvUlt(a, b) => {
                let p = self.b.ins().icmp(
                    IntCC::UnsignedLessThan,
                    self.vals[a as usize],
                    self.vals[b as usize],
                );
                self.widen(p)
            }
            Op::Extract { value, lo, width } => {
                if lo >= 64 {
                    return Err(Unsupported(format!("an extract from bit {lo}")));
                }
                let s = self
                    .b
                    .ins()
                    .ushr_imm_s(self.vals[value as usize], i64::from(lo));
                self.mask(s, width)
            }
            Op::Concat { hi, lo, lo_width } => {
                if lo_width >= 64 {
                    return Err(Unsupported(format!(
                        "a concatenation over {lo_width} low bits"
                    )));
                }
                // A field put back in its place over zeros (the sign of a flushed value):
                // one mask instead of the extract's shift and mask and this shift.
                if let (
                    Op::Const(0),
                    &Op::Extract {
                        value,
                        lo: at,
                        width,
                    },
                ) = (&program.ops[lo as usize], &program.ops[hi as usize])
                {
                    if at == lo_width && at + width <= 64 {
                        let field = (mask(width) << at) as i64;
                        return Ok(self.b.ins().band_imm_s(self.vals[value as usize], field));
                    }
                }
                let s = self
                    .b
                    .ins()
                    .ishl_imm_s(self.vals[hi as usize], i64::from(lo_width));
                self.b.ins().bor(s, self.vals[lo as usize])
            }
            Op::Shl(w, a, n) => {
                if n >= 64 {
                    self.b.ins().iconst(I64, 0)
                } else {
                    let s = self.b.ins().ishl_imm_s(self.vals[a as usize], i64::from(n));
                    self.mask(s, w)
                }
            }
            Op::Shr(_, a, n) => {
                if n >= 64 {
                    self.b.ins().iconst(I64, 0)
                } else {
                    self.b.ins().ushr_imm_s(self.vals[a as usize], i64::from(n))
                }
            }
            Op::Select(c, a, b) => self.select(program, c, a, b),
            Op::BvSlt(w, a, b) => {
                let (x, y) = (self.sext(self.v(a), w)?, self.sext(self.v(b), w)?);
                let p = self.b.ins().icmp(IntCC::SignedLessThan, x, y);
                self.widen(p)
            }
            Op::BvMul(w, a, b) => {
                let (x, y) = (self.v(a), self.v(b));
                let p = self.b.ins().imul(x, y);
                self.mask(p, w)
            }
            Op::MulHi {
                width,
                signed,
                a,
                b,
            } => self.mul_hi(width, signed, a, b)?,
            Op::ShiftBy {
                kind,
                width,
                value,
                amount,
            } => self.shift_by(kind, width, value, amount)?,
            Op::Choose(k) => {
                let Some(choice) = program.choices.get(k as usize) else {
                    return Err(Unsupported(format!("choice {k} is not in the program")));
                };
                let mut read = Vec::new();
                choice.values(&mut read);
                if let Some(v) = read.iter().find(|&&v| v as usize >= self.vals.len()) {
                    return Err(Unsupported(format!(
                        "choice {k} reads value {v}, which is not defined before it"
                    )));
                }
                let (rep, open) = self.representative(choice);
                self.open = self.b.ins().bor(self.open, open);
                rep
            }
            // Other branches add ops to the IR in parallel: an op this lowering does not know
            // makes the variant the interpreter's, never a wrong or panicking compile.
            #[allow(unreachable_patterns)]
            ref other => return Err(Unsupported(format!("no lowering for {other:?}"))),
        })
    }

    /// `x`'s low `width` bits, sign-extended; widths outside 1..=64 are not IR values.
    fn sext(&mut self, x: Value, width: u32) -> Result<Value, Unsupported> {
        if !(1..=64).contains(&width) {
            return Err(Unsupported(format!("a {width}-bit signed value")));
        }
        let up = self.b.ins().ishl_imm_s(x, i64::from(64 - width));
        Ok(self.b.ins().sshr_imm_s(up, i64::from(64 - width)))
    }

    /// The high `width` bits of the `2*width`-bit product ([`Op::MulHi`]): the operands are
    /// sign-extended (or taken whole, unsigned) and the 128-bit product's bits
    /// `width..2*width` read from its two native halves.
    fn mul_hi(
        &mut self,
        width: u32,
        signed: bool,
        a: ValueId,
        b: ValueId,
    ) -> Result<Value, Unsupported> {
        let (x, y) = if signed {
            (self.sext(self.v(a), width)?, self.sext(self.v(b), width)?)
        } else if (1..=64).contains(&width) {
            (self.v(a), self.v(b))
        } else {
            return Err(Unsupported(format!("a {width}-bit product")));
        };
        let hi = if signed {
            self.b.ins().smulhi(x, y)
        } else {
            self.b.ins().umulhi(x, y)
        };
        if width == 64 {
            return Ok(hi);
        }
        let lo = self.b.ins().imul(x, y);
        let low_part = self.b.ins().ushr_imm_s(lo, i64::from(width));
        let high_part = self.b.ins().ishl_imm_s(hi, i64::from(64 - width));
        let r = self.b.ins().bor(low_part, high_part);
        Ok(self.mask(r, width))
    }

    /// A shift by a run-time amount ([`Op::ShiftBy`]): native shifts take the amount modulo
    /// 64, so an amount of `width` or more is selected apart (zero, or the sign for an
    /// arithmetic shift, which shifts by `width - 1` instead).
    fn shift_by(
        &mut self,
        kind: Shift,
        width: u32,
        value: ValueId,
        amount: ValueId,
    ) -> Result<Value, Unsupported> {
        if !(1..=64).contains(&width) {
            return Err(Unsupported(format!("a shift of a {width}-bit value")));
        }
        let (x, n) = (self.v(value), self.v(amount));
        let out = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, n, i64::from(width));
        Ok(match kind {
            Shift::Left | Shift::Logical => {
                let s = if kind == Shift::Left {
                    let s = self.b.ins().ishl(x, n);
                    self.mask(s, width)
                } else {
                    self.b.ins().ushr(x, n)
                };
                let zero = self.b.ins().iconst(I64, 0);
                self.b.ins().select(out, zero, s)
            }
            Shift::Arithmetic => {
                let last = self.b.ins().iconst(I64, i64::from(width - 1));
                let n = self.b.ins().select(out, last, n);
                let sx = self.sext(x, width)?;
                let s = self.b.ins().sshr(sx, n);
                self.mask(s, width)
            }
        })
    }

    /// The representative of `choice`'s accept set (what the interpreter's `Evaluator` takes
    /// with no pick) and whether the set has more than one member (an `i8`), as
    /// `Resolver::resolve` and `Accept::representative` would compute them.
    fn representative(&mut self, choice: &Outcome) -> (Value, Value) {
        let konst = |l: &mut Self, bits: u64, open: bool| {
            let v = l.b.ins().iconst(I64, bits as i64);
            let o = l.b.ins().iconst(types::I8, open as i64);
            (v, o)
        };
        match choice {
            Outcome::Exact(v) => (self.v(*v), self.b.ins().iconst(types::I8, 0)),
            Outcome::AnyNan(f) => konst(self, f.default_nan(), true),
            Outcome::Any(f) => konst(self, f.zero(false), true),
            Outcome::Poison(_) | Outcome::Ub(_) => konst(self, 0, true),
            // The first value; more than one member when another differs from it.
            Outcome::OneOf(vs) => match vs.split_first() {
                None => konst(self, 0, true),
                Some((first, rest)) => {
                    let x = self.v(*first);
                    let mut open = self.b.ins().iconst(types::I8, 0);
                    for v in rest {
                        let y = self.v(*v);
                        let ne = self.b.ins().icmp(IntCC::NotEqual, y, x);
                        open = self.b.ins().bor(open, ne);
                    }
                    (x, open)
                }
            },
            Outcome::Select(c, a, b) if !has_bounded(choice) => {
                let (ra, oa) = self.representative(a);
                let (rb, ob) = self.representative(b);
                let c = self.v(*c);
                let r = self.b.ins().select(c, ra, rb);
                (r, self.b.ins().select(c, oa, ob))
            }
            // A bounded leaf costs an MPFR call: only the branch taken is evaluated.
            Outcome::Select(c, a, b) => {
                let (then, other, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.append_block_param(join, I64);
                self.b.append_block_param(join, types::I8);
                let c = self.v(*c);
                self.b.ins().brif(c, then, &[], other, &[]);
                for (block, side) in [(then, a), (other, b)] {
                    self.b.switch_to_block(block);
                    let (r, o) = self.representative(side);
                    self.b.ins().jump(join, &[r.into(), o.into()]);
                }
                self.b.switch_to_block(join);
                let params = self.b.block_params(join);
                (params[0], params[1])
            }
            Outcome::Within { args, .. } => {
                // The shim reads the arguments as values 0 and 1 of its own.
                let leaf = Box::new(on_slots(choice));
                let at = &*leaf as *const Outcome as usize as i64;
                self.bounded.push(leaf);
                let zero = self.b.ins().iconst(I64, 0);
                let mut xs = [zero; 2];
                for (x, a) in xs.iter_mut().zip(args) {
                    *x = self.v(*a);
                }
                let leaf_at = self.b.ins().iconst(I64, at);
                let r = self.call(shims::within_rep, [xs[0], xs[1], leaf_at], 0, 0);
                let open = self.b.ins().iconst(types::I8, 1);
                (r, open)
            }
        }
    }

    /// Whether an [`Op::Choose`] of the row met a set of more than one member (an `i8`).
    pub fn met_open_choice(&self) -> Value {
        self.open
    }

    /// The `u64` at `at`.
    pub fn load_u64(&mut self, at: Value) -> Value {
        self.b.ins().load(I64, MemFlagsData::trusted(), at, 0)
    }

    /// Whether `bits` is in the accept set of `outcome` (an `i8` predicate), or `None` for a
    /// bounded (`approx`) leaf, whose set needs MPFR.
    fn accepts(&mut self, outcome: &Outcome, bits: Value) -> Option<Value> {
        Some(match outcome {
            Outcome::Exact(v) => {
                let x = self.v(*v);
                self.b.ins().icmp(IntCC::Equal, bits, x)
            }
            Outcome::AnyNan(f) => self.is_nan(*f, bits),
            Outcome::OneOf(vs) => {
                let mut any = self.b.ins().iconst(types::I8, 0);
                for v in vs {
                    let x = self.v(*v);
                    let eq = self.b.ins().icmp(IntCC::Equal, bits, x);
                    any = self.b.ins().bor(any, eq);
                }
                any
            }
            Outcome::Select(c, a, b) => {
                let (ya, yb) = (self.accepts(a, bits)?, self.accepts(b, bits)?);
                let c = self.v(*c);
                self.b.ins().select(c, ya, yb)
            }
            Outcome::Any(_) | Outcome::Poison(_) | Outcome::Ub(_) => {
                self.b.ins().iconst(types::I8, 1)
            }
            Outcome::Within { .. } => return None,
        })
    }

    /// The leaf of `outcome` this row's conditions select, as its index in
    /// [`Outcome::leaves`] order (an `i64`), and the values that leaf reads, in
    /// [`Outcome::values`] order, in `arity` slots: what [`on_slots`] of the leaf resolves
    /// from. A slot the selected leaf does not read holds another leaf's value or 0.
    pub fn selected_leaf(&mut self, outcome: &Outcome, arity: usize) -> (Value, Vec<Value>) {
        let mut next_leaf = 0;
        let (index, slots) = self.select_leaf(outcome, arity, &mut next_leaf);
        let slots = slots
            .into_iter()
            .map(|x| x.unwrap_or_else(|| self.b.ins().iconst(I64, 0)))
            .collect();
        (index, slots)
    }

    fn select_leaf(
        &mut self,
        outcome: &Outcome,
        arity: usize,
        next_leaf: &mut i64,
    ) -> (Value, Vec<Option<Value>>) {
        if let Outcome::Select(c, a, b) = outcome {
            let (index_a, slots_a) = self.select_leaf(a, arity, next_leaf);
            let (index_b, slots_b) = self.select_leaf(b, arity, next_leaf);
            let c = self.v(*c);
            let index = self.b.ins().select(c, index_a, index_b);
            // Where only one side reads a slot, it holds that side's value whichever way
            // `c` goes: the other side's leaf does not look at it.
            let slots = slots_a
                .into_iter()
                .zip(slots_b)
                .map(|slot| match slot {
                    (Some(x), Some(y)) if x != y => Some(self.b.ins().select(c, x, y)),
                    (Some(x), _) | (None, Some(x)) => Some(x),
                    (None, None) => None,
                })
                .collect();
            return (index, slots);
        }
        let index = self.b.ins().iconst(I64, *next_leaf);
        *next_leaf += 1;
        let mut read = Vec::new();
        outcome.values(&mut read);
        let mut slots: Vec<Option<Value>> = read.iter().map(|&v| Some(self.v(v))).collect();
        slots.resize(arity, None);
        (index, slots)
    }

    /// 1 (`i8`) when some part rejects its bits of `got`, else 0; `None` when a part's set
    /// needs MPFR.
    pub fn rejects(&mut self, parts: &[Part], got: Value) -> Option<Value> {
        let mut rejected = self.b.ins().iconst(types::I8, 0);
        for part in parts {
            let shifted = self.b.ins().ushr_imm_s(got, i64::from(part.lo.min(63)));
            let bits = self.mask(shifted, part.width);
            let ok = self.accepts(&part.outcome, bits)?;
            let bad = self.b.ins().icmp_imm_s(IntCC::Equal, ok, 0);
            rejected = self.b.ins().bor(rejected, bad);
        }
        Some(rejected)
    }
}

/// The leaf `leaf` reading slot `k` for the `k`-th value it reads (in [`Outcome::values`]
/// order) instead of the program's values: how a leaf is resolved from the values compiled
/// code selected for it ([`RowLowering::selected_leaf`]).
pub fn on_slots(leaf: &Outcome) -> Outcome {
    let slots = |n: usize| (0..n as ValueId).collect::<Vec<_>>();
    match leaf {
        Outcome::Exact(_) => Outcome::Exact(0),
        Outcome::OneOf(vs) => Outcome::OneOf(slots(vs.len())),
        Outcome::Within {
            func,
            args,
            format,
            bound,
            ftz,
        } => Outcome::Within {
            func: *func,
            args: slots(args.len()),
            format: *format,
            bound: *bound,
            ftz: *ftz,
        },
        // No values to renumber (a `Select` is not a leaf, and is left as it is).
        Outcome::AnyNan(_)
        | Outcome::Any(_)
        | Outcome::Poison(_)
        | Outcome::Ub(_)
        | Outcome::Select(..) => leaf.clone(),
    }
}

/// Whether `o` has a bounded (`approx`) leaf.
pub fn has_bounded(o: &Outcome) -> bool {
    let mut leaves = Vec::new();
    o.leaves(&mut leaves);
    leaves.iter().any(|l| matches!(l, Outcome::Within { .. }))
}

/// The loop `for each of n rows { body(row pointers) ; advance }` around `body`: `ptrs` are
/// (start, stride in bytes) pairs, advanced together after each row.
pub fn row_loop(
    b: &mut FunctionBuilder<'_>,
    n: Value,
    ptrs: &[(Value, Value)],
    body: impl FnOnce(&mut FunctionBuilder<'_>, &[Value]) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let vars: Vec<Variable> = ptrs
        .iter()
        .map(|&(start, _)| {
            let v = b.declare_var(I64);
            b.def_var(v, start);
            v
        })
        .collect();
    let left = b.declare_var(I64);
    b.def_var(left, n);
    let (header, row, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.ins().jump(header, &[]);
    b.switch_to_block(header);
    let l = b.use_var(left);
    b.ins().brif(l, row, &[], exit, &[]);
    b.switch_to_block(row);
    let at: Vec<Value> = vars.iter().map(|&v| b.use_var(v)).collect();
    body(b, &at)?;
    for ((&v, &(_, stride)), &p) in vars.iter().zip(ptrs).zip(&at) {
        let next = b.ins().iadd(p, stride);
        b.def_var(v, next);
    }
    let l = b.use_var(left);
    let l = b.ins().iadd_imm_s(l, -1);
    b.def_var(left, l);
    b.ins().jump(header, &[]);
    b.switch_to_block(exit);
    b.ins().return_(&[]);
    b.seal_all_blocks();
    Ok(())
}
