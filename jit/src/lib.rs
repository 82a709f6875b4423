//! A variant's IR [`Program`] compiled to native code with Cranelift: the default evaluator.
//!
//! [`compile`] turns a program into two native loops over a batch of input rows: one writes,
//! for each destination part, which leaf of its outcome tree the row's selects reach and the
//! values that leaf reads (turned into an accept set by the interpreter's own [`Resolver`]),
//! the other tests a backend's destination bits against the accept sets and
//! flags the rows some part rejects, so a campaign resolves accept sets only for those.
//! Bit operations, selects, classification, comparisons and f32/f64 `.rn` arithmetic are
//! native instructions; add/sub/mul/fma and conversions of the narrow formats (f16, bf16,
//! tf32, fp8, and f32 under a directed rounding) are native f64 arithmetic where that is
//! provably exact, rounded once in inline integer code (`wide.rs`); division, square root,
//! f64 under a directed rounding and integer conversions call `semfuzz-fp`.
//!
//! The interpreter ([`semfuzz_spec::eval::Evaluator`]) stays the reference: a program with an
//! op this lowering does not know is [`Unsupported`] and [`Evaluator`] runs it interpreted.

mod guard;
mod lower;
mod shims;
mod wide;

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use semfuzz_spec::eval::Resolver;
use semfuzz_spec::ir::{Outcome, Part, Program};
use semfuzz_spec::outcome::Accept;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Why a program is not compiled (the interpreter runs it instead).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not compiled: {0}")]
pub struct Unsupported(pub String);

/// Which evaluator computes accept sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EvaluatorKind {
    /// The IR interpreter: the reference.
    Interp,
    /// Native code from Cranelift, where it supports the variant (the default).
    #[default]
    Jit,
}

impl EvaluatorKind {
    /// The name `--evaluator` takes and reports print.
    pub fn name(self) -> &'static str {
        match self {
            EvaluatorKind::Interp => "interp",
            EvaluatorKind::Jit => "jit",
        }
    }

    /// Parses `interp` or `jit`.
    pub fn parse(s: &str) -> Option<EvaluatorKind> {
        match s {
            "interp" => Some(EvaluatorKind::Interp),
            "jit" => Some(EvaluatorKind::Jit),
            _ => None,
        }
    }
}

/// `values(inputs, input stride in bytes, rows, out)`.
type ValuesFn = unsafe extern "C" fn(*const u64, u64, u64, *mut u64);
/// `rejects(inputs, input stride in bytes, rows, got, flags)`.
type RejectsFn = unsafe extern "C" fn(*const u64, u64, u64, *const u64, *mut u8);

/// Where one destination part's accept set lies in a row of the values `values` writes.
struct PartReader {
    /// The column of the index (in [`Outcome::leaves`] order) of the leaf the row's
    /// conditions select; `None` where the outcome is one leaf.
    leaf_column: Option<usize>,
    /// The first of the columns holding the values the selected leaf reads.
    slots: usize,
    /// The part's leaves.
    leaves: Vec<Leaf>,
}

/// One leaf of a part's outcome tree, as a row's accept set is made from it.
enum Leaf {
    /// Exactly the value in the part's first slot: the common case, made without a call.
    Exact,
    /// The same set in every row (`any_nan`, `any`), resolved once when compiling.
    Fixed(Accept),
    /// A set the resolver makes from the slots (`one_of`, bounded), the leaf reading slot `k`
    /// for its `k`-th value ([`lower::on_slots`]).
    Resolved(Outcome),
}

impl Leaf {
    fn of(leaf: &Outcome) -> Leaf {
        match leaf {
            Outcome::Exact(_) => Leaf::Exact,
            Outcome::AnyNan(_) | Outcome::Any(_) | Outcome::Poison(_) | Outcome::Ub(_) => {
                Leaf::Fixed(Resolver::new([leaf]).resolve(leaf, &[]))
            }
            _ => Leaf::Resolved(lower::on_slots(leaf)),
        }
    }
}

/// A program compiled to native code. Cheap to share: the code is immutable once built.
pub struct Compiled {
    module: Option<JITModule>,
    values: ValuesFn,
    rejects: Option<RejectsFn>,
    n_inputs: usize,
    /// Every part's accept set in a row of values: the compiled code has resolved the
    /// outcome trees' selects, so only the selected leaf is left to turn into a set.
    parts: Vec<PartReader>,
    /// Where every part's outcome is one exact value (PTX functions' results, most exact
    /// variants): the column of each, so a row's sets are copied out with no per-part lookup.
    exact: Option<Vec<usize>>,
    /// Values per row.
    n_values: usize,
    /// The column of a row's values that says whether it met an open intermediate choice
    /// ([`Op::Choose`](semfuzz_spec::ir::Op::Choose)); `None` for a program without choices.
    open_column: Option<usize>,
    /// The bounded outcomes the code calls back into MPFR for, at addresses it holds (so
    /// boxed: the addresses must not move).
    #[allow(clippy::vec_box)]
    _bounded: Vec<Box<Outcome>>,
}

// SAFETY: after `finalize_definitions` the module's code and data are never written again;
// the function pointers only read their arguments, and the module is touched again only by
// `free_memory` in `drop`, which has `&mut self`.
unsafe impl Send for Compiled {}
// SAFETY: as above; nothing behind `&Compiled` is mutated.
unsafe impl Sync for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the function pointers die with `self`; nothing can call them after this.
            unsafe { m.free_memory() }
        }
    }
}

fn unsupported(e: impl std::fmt::Display) -> Unsupported {
    Unsupported(e.to_string())
}

/// Builds one function of `module` with the pointer-sized parameters `n_params`.
fn define(
    module: &mut JITModule,
    name: &str,
    n_params: usize,
    body: impl FnOnce(
        &mut FunctionBuilder<'_>,
        &[cranelift_codegen::ir::Value],
    ) -> Result<(), Unsupported>,
) -> Result<FuncId, Unsupported> {
    let mut ctx = module.make_context();
    ctx.func.signature.params = vec![AbiParam::new(types::I64); n_params];
    ctx.func.name = UserFuncName::testcase(name);
    let target = module.target_config();
    let mut fctx = FunctionBuilderContext::new();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let params = b.block_params(entry).to_vec();
        body(&mut b, &params)?;
        b.finalize(target);
    }
    let id = module
        .declare_function(name, Linkage::Local, &ctx.func.signature)
        .map_err(unsupported)?;
    module.define_function(id, &mut ctx).map_err(unsupported)?;
    module.clear_context(&mut ctx);
    Ok(id)
}

/// Compiles `program`, or says why not.
pub fn compile(program: &Program) -> Result<Compiled, Unsupported> {
    if cfg!(target_pointer_width = "32") {
        return Err(Unsupported("a 32-bit host".into()));
    }
    let mut flags = settings::builder();
    for (k, v) in [
        ("opt_level", "speed"),
        // What cranelift-jit requires (see `JITBuilder::with_flags`).
        ("use_colocated_libcalls", "false"),
        ("is_pic", "false"),
    ] {
        flags.set(k, v).map_err(unsupported)?;
    }
    let isa = cranelift_native::builder()
        .map_err(unsupported)?
        .finish(settings::Flags::new(flags))
        .map_err(unsupported)?;
    let cc = isa.default_call_conv();
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));

    let parts: Vec<&Part> = program.dests.iter().flat_map(|d| &d.parts).collect();
    let mut read = Vec::new();
    for p in &parts {
        p.outcome.values(&mut read);
    }
    if let Some(&v) = read.iter().find(|&&v| v as usize >= program.ops.len()) {
        return Err(Unsupported(format!(
            "an outcome reads value {v}, which no op defines"
        )));
    }
    if let Some((i, a)) = program.ops.iter().enumerate().find_map(|(i, op)| {
        op.args()
            .into_iter()
            .find(|&a| a as usize >= i)
            .map(|a| (i, a))
    }) {
        return Err(Unsupported(format!(
            "op {i} reads value {a}, which is not defined before it"
        )));
    }
    // Both loops lower the same ops, so they branch around the same arms.
    let plan = guard::plan(program);

    // A row of values: for each part, the index of its selected leaf (where it has more than
    // one) and the values that leaf reads; then the open-choice flag where the program has
    // choices. Resolving the selects here, in native code, leaves the Rust side one leaf per
    // part to turn into a set, with no tree walk and no branch per select.
    let mut n_values = 0;
    let mut readers = Vec::with_capacity(parts.len());
    let mut arities = Vec::with_capacity(parts.len());
    for p in &parts {
        let mut leaves = Vec::new();
        p.outcome.leaves(&mut leaves);
        let arity = leaves
            .iter()
            .map(|l| {
                let mut vs = Vec::new();
                l.values(&mut vs);
                vs.len()
            })
            .max()
            .unwrap_or(0);
        let leaf_column = (leaves.len() > 1).then_some(n_values);
        n_values += usize::from(leaf_column.is_some());
        readers.push(PartReader {
            leaf_column,
            slots: n_values,
            leaves: leaves.into_iter().map(Leaf::of).collect(),
        });
        arities.push(arity);
        n_values += arity;
    }
    let open_column = (!program.choices.is_empty()).then_some(n_values);
    n_values += usize::from(open_column.is_some());
    let mut bounded = Vec::new();
    let values_id = define(&mut module, "values", 4, |b, p| {
        let shim_sig = b.import_signature(lower::shim_signature(cc));
        let out_stride = b.ins().iconst(types::I64, n_values as i64 * 8);
        lower::row_loop(b, p[2], &[(p[0], p[1]), (p[3], out_stride)], |b, at| {
            let mut l =
                lower::RowLowering::lower(b, shim_sig, program, &plan, at[0], &mut bounded)?;
            let mut stores = Vec::with_capacity(n_values);
            for ((part, reader), &arity) in parts.iter().zip(&readers).zip(&arities) {
                let (index, slots) = l.selected_leaf(&part.outcome, arity);
                if let Some(c) = reader.leaf_column {
                    stores.push((c, index));
                }
                stores.extend(
                    slots
                        .into_iter()
                        .enumerate()
                        .map(|(k, x)| (reader.slots + k, x)),
                );
            }
            if let Some(c) = open_column {
                let open = l.met_open_choice();
                stores.push((c, b.ins().uextend(types::I64, open)));
            }
            for (column, x) in stores {
                b.ins()
                    .store(MemFlagsData::trusted(), x, at[1], column as i32 * 8);
            }
            Ok(())
        })
    })?;
    // The accept-set test covers the first destination (the one backends return); a bounded
    // outcome there leaves it out (its set needs MPFR, so every row is resolved instead).
    let dest = program.dests.first();
    let testable = dest.is_some_and(|d| d.parts.iter().all(|p| !lower::has_bounded(&p.outcome)));
    let rejects_id = match dest {
        Some(d) if testable => Some(define(&mut module, "rejects", 5, |b, p| {
            let shim_sig = b.import_signature(lower::shim_signature(cc));
            let (eight, one) = (b.ins().iconst(types::I64, 8), b.ins().iconst(types::I64, 1));
            lower::row_loop(
                b,
                p[2],
                &[(p[0], p[1]), (p[3], eight), (p[4], one)],
                |b, at| {
                    let mut l = lower::RowLowering::lower(
                        b,
                        shim_sig,
                        program,
                        &plan,
                        at[0],
                        &mut bounded,
                    )?;
                    let got = l.load_u64(at[1]);
                    let bad = l
                        .rejects(&d.parts, got)
                        .ok_or_else(|| Unsupported("a bounded outcome".into()))?;
                    b.ins().store(MemFlagsData::trusted(), bad, at[2], 0);
                    Ok(())
                },
            )
        })?),
        _ => None,
    };
    module.finalize_definitions().map_err(unsupported)?;
    // SAFETY: the functions were defined with exactly these signatures (pointer-sized
    // integer parameters in the host's default calling convention, which `extern "C"` is).
    let values = unsafe {
        std::mem::transmute::<*const u8, ValuesFn>(module.get_finalized_function(values_id))
    };
    let rejects = rejects_id.map(|id| unsafe {
        std::mem::transmute::<*const u8, RejectsFn>(module.get_finalized_function(id))
    });
    Ok(Compiled {
        module: Some(module),
        values,
        rejects,
        n_inputs: program.input_widths.len(),
        exact: readers
            .iter()
            .map(|r| matches!(r.leaves[..], [Leaf::Exact]).then_some(r.slots))
            .collect(),
        parts: readers,
        n_values,
        open_column,
        _bounded: bounded,
    })
}

impl Compiled {
    /// Whether the compiled accept-set test exists (no bounded outcome in the first
    /// destination).
    pub fn can_screen(&self) -> bool {
        self.rejects.is_some()
    }
}

/// Compiled programs, each compiled once and shared by every thread that evaluates it.
#[derive(Default)]
pub struct Cache<'p> {
    map: Mutex<HashMap<*const Program, Option<Arc<Compiled>>>>,
    _programs: std::marker::PhantomData<&'p Program>,
}

// SAFETY: the raw pointers are only compared as keys, never dereferenced.
unsafe impl Send for Cache<'_> {}
// SAFETY: as above; the map is behind a mutex.
unsafe impl Sync for Cache<'_> {}

impl<'p> Cache<'p> {
    /// An empty cache.
    pub fn new() -> Cache<'p> {
        Cache::default()
    }

    /// The compiled `program`, compiling it on first use; `None` when it is unsupported.
    pub fn get(&self, program: &'p Program) -> Option<Arc<Compiled>> {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(program as *const Program)
            .or_insert_with(|| compile(program).ok().map(Arc::new))
            .clone()
    }

    /// Which evaluator [`Cache::evaluator`] gives for `program` and `kind`.
    pub fn runs(&self, program: &'p Program, kind: EvaluatorKind) -> EvaluatorKind {
        match kind {
            EvaluatorKind::Jit if self.get(program).is_some() => EvaluatorKind::Jit,
            _ => EvaluatorKind::Interp,
        }
    }

    /// An evaluator of `kind` for `program`: compiled (from this cache) where `kind` is
    /// [`EvaluatorKind::Jit`] and the program compiles, interpreted otherwise.
    pub fn evaluator(&self, program: &'p Program, kind: EvaluatorKind) -> Evaluator<'p> {
        match kind {
            EvaluatorKind::Jit => match self.get(program) {
                Some(code) => Evaluator::compiled(program, code),
                None => Evaluator::interpreted(program),
            },
            EvaluatorKind::Interp => Evaluator::interpreted(program),
        }
    }
}

/// Programs compiled by [`Evaluator::new`]: by a hash of the ops, then by equality of the
/// whole program. Cleared when it reaches [`SHARED_LIMIT`] programs, so it cannot grow
/// without bound in a long-lived process.
type Shared = HashMap<u64, Vec<(Program, Option<Arc<Compiled>>)>>;

/// The most programs [`Evaluator::new`]'s cache keeps.
const SHARED_LIMIT: usize = 8192;

fn shared(program: &Program) -> Option<Arc<Compiled>> {
    use std::hash::{Hash, Hasher};
    static SHARED: std::sync::OnceLock<Mutex<(Shared, usize)>> = std::sync::OnceLock::new();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    program.ops.hash(&mut h);
    program.input_widths.hash(&mut h);
    let key = h.finish();
    let cell = SHARED.get_or_init(Default::default);
    let mut guard = cell.lock().unwrap_or_else(|e| e.into_inner());
    let (map, count) = &mut *guard;
    if let Some((_, code)) = map
        .get(&key)
        .and_then(|v| v.iter().find(|(p, _)| p == program))
    {
        return code.clone();
    }
    if *count >= SHARED_LIMIT {
        map.clear();
        *count = 0;
    }
    let code = compile(program).ok().map(Arc::new);
    map.entry(key)
        .or_default()
        .push((program.clone(), code.clone()));
    *count += 1;
    code
}

enum Inner<'p> {
    Interp(semfuzz_spec::eval::Evaluator<'p>),
    Jit {
        code: Arc<Compiled>,
        /// One row of values per input row of the current batch.
        values: Vec<u64>,
        resolver: Resolver,
    },
}

/// Evaluates one program with either evaluator, behind one interface.
pub struct Evaluator<'p> {
    program: &'p Program,
    inner: Inner<'p>,
    /// For a program with intermediate choices, whether each row of the last batch met one
    /// with more than one member (see [`Evaluator::met_open_choice`]).
    open: Vec<bool>,
}

impl<'p> Evaluator<'p> {
    /// The default evaluator for `program`: compiled where the JIT supports it, else the
    /// interpreter. The code comes from a process-wide cache keyed by the program's value, so
    /// callers that make an evaluator per input (tests, `semfuzz check`) compile once.
    pub fn new(program: &'p Program) -> Evaluator<'p> {
        match shared(program) {
            Some(code) => Evaluator::compiled(program, code),
            None => Evaluator::interpreted(program),
        }
    }

    /// The evaluator `kind` for `program`, compiling it afresh (use a [`Cache`] to compile
    /// each program once); the interpreter where `kind` is `Interp` or the JIT does not
    /// support the program.
    pub fn of_kind(program: &'p Program, kind: EvaluatorKind) -> Evaluator<'p> {
        match kind {
            EvaluatorKind::Jit => match compile(program) {
                Ok(code) => Evaluator::compiled(program, Arc::new(code)),
                Err(_) => Evaluator::interpreted(program),
            },
            EvaluatorKind::Interp => Evaluator::interpreted(program),
        }
    }

    /// The interpreter.
    pub fn interpreted(program: &'p Program) -> Evaluator<'p> {
        Evaluator {
            program,
            inner: Inner::Interp(semfuzz_spec::eval::Evaluator::new(program)),
            open: Vec::new(),
        }
    }

    /// Native code compiled from `program` (by [`compile`]).
    pub fn compiled(program: &'p Program, code: Arc<Compiled>) -> Evaluator<'p> {
        let resolver =
            Resolver::new(
                code.parts
                    .iter()
                    .flat_map(|p| &p.leaves)
                    .filter_map(|l| match l {
                        Leaf::Resolved(o) => Some(o),
                        _ => None,
                    }),
            );
        Evaluator {
            program,
            inner: Inner::Jit {
                code,
                values: Vec::new(),
                resolver,
            },
            open: Vec::new(),
        }
    }

    /// A fresh evaluator of the same kind on the same program, sharing the compiled code:
    /// one per worker thread, with no second compilation.
    pub fn sibling(&self) -> Evaluator<'p> {
        match &self.inner {
            Inner::Interp(_) => Evaluator::interpreted(self.program),
            Inner::Jit { code, .. } => Evaluator::compiled(self.program, Arc::clone(code)),
        }
    }

    /// Which evaluator runs.
    pub fn kind(&self) -> EvaluatorKind {
        match self.inner {
            Inner::Interp(_) => EvaluatorKind::Interp,
            Inner::Jit { .. } => EvaluatorKind::Jit,
        }
    }

    /// Source operands each evaluation reads.
    pub fn n_inputs(&self) -> usize {
        self.program.input_widths.len()
    }

    /// Destination parts each evaluation writes (lanes of every destination, in order).
    pub fn n_parts(&self) -> usize {
        self.program.dests.iter().map(|d| d.parts.len()).sum()
    }

    /// Evaluates one input tuple; `out` receives one accept set per destination part.
    ///
    /// # Panics
    /// If `inputs` or `out` has the wrong length.
    pub fn eval(&mut self, inputs: &[u64], out: &mut [Accept]) {
        self.eval_batch(inputs, out);
    }

    /// Evaluates `inputs.len() / n_inputs()` tuples laid out row by row; `out` holds
    /// `n_parts()` accept sets per row.
    ///
    /// # Panics
    /// If `out` does not hold `n_parts()` sets for each row.
    pub fn eval_batch(&mut self, inputs: &[u64], out: &mut [Accept]) {
        let np = self.n_parts();
        let choices = !self.program.choices.is_empty();
        self.open.clear();
        match &mut self.inner {
            // Row by row where each row's open-choice flag is wanted.
            Inner::Interp(ev) if choices => {
                let ni = ev.n_inputs();
                let rows = inputs
                    .len()
                    .checked_div(ni)
                    .unwrap_or(out.len() / np.max(1));
                assert_eq!(
                    rows * np,
                    out.len(),
                    "output buffer does not match the batch"
                );
                for (r, res) in out.chunks_exact_mut(np.max(1)).enumerate() {
                    ev.eval(&inputs[r * ni..(r + 1) * ni], res);
                    self.open.push(ev.met_open_choice());
                }
            }
            Inner::Interp(ev) => {
                if inputs.len() == ev.n_inputs() {
                    ev.eval(inputs, out)
                } else {
                    ev.eval_batch(inputs, out)
                }
            }
            Inner::Jit {
                code,
                values,
                resolver,
            } => {
                let ni = code.n_inputs;
                let rows = inputs
                    .len()
                    .checked_div(ni)
                    .unwrap_or(out.len() / np.max(1));
                assert_eq!(
                    rows * np,
                    out.len(),
                    "output buffer does not match the batch"
                );
                assert!(rows * ni <= inputs.len(), "wrong number of inputs");
                // The compiled loop writes every value of every row: no need to clear them.
                values.resize(values.len().max(rows * code.n_values), 0);
                // SAFETY: `inputs` holds `rows` rows of `ni` values and `values` holds `rows`
                // rows of `n_values`, which is what the compiled loop reads and writes.
                unsafe {
                    (code.values)(
                        inputs.as_ptr(),
                        ni as u64 * 8,
                        rows as u64,
                        values.as_mut_ptr(),
                    )
                };
                let nv = code.n_values;
                match &code.exact {
                    Some(columns) => {
                        let rows = out
                            .chunks_exact_mut(np.max(1))
                            .zip(values.chunks(nv.max(1)));
                        for (res, row) in rows {
                            for (o, &c) in res.iter_mut().zip(columns) {
                                *o = Accept::Exact(row[c]);
                            }
                        }
                    }
                    None => {
                        for (r, res) in out.chunks_exact_mut(np.max(1)).enumerate() {
                            let row = values.get(r * nv..).unwrap_or(&[]);
                            for (o, part) in res.iter_mut().zip(&code.parts) {
                                let leaf = part.leaf_column.map_or(0, |c| row[c] as usize);
                                *o = match &part.leaves[leaf] {
                                    Leaf::Exact => Accept::Exact(row[part.slots]),
                                    Leaf::Fixed(set) => *set,
                                    Leaf::Resolved(o) => resolver.resolve(o, &row[part.slots..]),
                                };
                            }
                        }
                    }
                }
                if let Some(c) = code.open_column {
                    self.open
                        .extend((0..rows).map(|r| values[r * code.n_values + c] != 0));
                }
            }
        }
    }

    /// Whether the last row evaluated met an intermediate choice
    /// ([`Op::Choose`](semfuzz_spec::ir::Op::Choose)) with more than one member, as the
    /// interpreter's [`met_open_choice`](semfuzz_spec::eval::Evaluator::met_open_choice)
    /// says: its accept sets then follow the choice's representative, and other members may
    /// lead elsewhere. Always false for a program without choices.
    pub fn met_open_choice(&self) -> bool {
        self.open.last().copied().unwrap_or(false)
    }

    /// [`Evaluator::met_open_choice`] for each row of the last batch, in order (empty for a
    /// program without choices).
    pub fn open_choices(&self) -> &[bool] {
        &self.open
    }

    /// The rows of a batch whose first destination, `got` (one per row), some part's accept
    /// set may reject: `flags[r]` is set to 1 for them and 0 for rows every part accepts.
    /// `inputs` holds the rows `stride` values apart (0 repeats one row). Returns false, leaving `flags` alone,
    /// where no compiled test exists (the interpreter, or a bounded outcome): every row must
    /// then be resolved.
    ///
    /// # Panics
    /// If `got` and `flags` differ in length, or `inputs` holds fewer rows.
    pub fn screen(&self, inputs: &[u64], stride: usize, got: &[u64], flags: &mut [u8]) -> bool {
        let Inner::Jit { code, .. } = &self.inner else {
            return false;
        };
        let Some(rejects) = code.rejects else {
            return false;
        };
        let rows = got.len();
        assert_eq!(flags.len(), rows, "one flag per row");
        assert!(
            rows == 0 || (rows - 1) * stride + code.n_inputs <= inputs.len(),
            "fewer input rows than results"
        );
        // SAFETY: the asserts above: every row the loop reads lies inside `inputs`, and
        // `got`/`flags` hold one entry per row.
        unsafe {
            rejects(
                inputs.as_ptr(),
                stride as u64 * 8,
                rows as u64,
                got.as_ptr(),
                flags.as_mut_ptr(),
            )
        };
        true
    }
}

/// One line for `semfuzz backends`: which evaluator runs by default on this host.
pub fn describe_host() -> String {
    match cranelift_native::builder() {
        Ok(isa) => format!(
            "jit (Cranelift {} native code for {}; --evaluator interp runs the interpreter)",
            CRANELIFT_VERSION,
            isa.triple().architecture
        ),
        Err(why) => format!("interp (no native code generator for this host: {why})"),
    }
}

/// The Cranelift release the JIT is built with (the `cranelift-*` dependencies).
const CRANELIFT_VERSION: &str = "0.135";
