//! Fold against codegen (issue 19, item 3): an IR function folded by LLVM's `instcombine` at
//! constant arguments, the folded constant judged against what the IR allows (LangRef, through
//! the catalogue's `ir_*`/`llvm_*` variants) and what the PTX that llc emits for the same
//! function can compute.
//!
//! Both the optimiser and the back end are LLVM; a program whose arguments become constants
//! after inlining is folded, one whose arguments arrive at run time runs the PTX. The three
//! answers ([`FoldKind`]):
//! - the folded constant is outside what the IR allows: a constant-folding bug in LLVM;
//! - it is allowed by the IR but the PTX cannot compute it: legal, yet the program's result
//!   changes with the optimisation level (a NaN's payload, a denormal flushed or not);
//! - it is allowed by both: consistent.
//!
//! The fold reuses the `llvm` backend's machinery: case `i` is function `@c<i>`, the IR
//! function's body with every parameter replaced by its constant (bit-exact, through integer
//! bitcasts) and the returned value bitcast to an integer, under the function's own attributes
//! (the denormal modes change what `instcombine` may fold), in an NVPTX module so that NVPTX's
//! combines run; one folder process for all the inputs.

use crate::module::{self, TRIPLE};
use crate::Folder;
use semfuzz_fp::vectors::{BoundaryGen, SplitMix64};
use semfuzz_fp::Format;
use semfuzz_llir::syntax::{
    FloatTy, Function, Instr, Module, Operand, Shape, Statement, Type, Value,
};
use semfuzz_spec::diag::SourceFile;
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::{mask, Program};
use semfuzz_spec::outcome::{describe_accept, Accept};
use semfuzz_spec::Spec;
use std::fmt;

/// How long Z3 may search a program's intermediate choices for the folded constant (only a
/// program of several instructions whose intermediate NaNs a later one reads needs it).
const REACH_MS: u32 = 10_000;

/// What the folder left of a function at one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Folded {
    /// A constant: the returned value's bits.
    Bits(u64),
    /// `poison` (or `undef`, which is no more defined).
    Poison,
    /// Anything but a constant: no verdict.
    Unfolded,
}

/// The three-way verdict of a folded constant, and the two ways of having none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    /// Outside what the IR allows: a constant-folding bug.
    FoldingBug,
    /// Allowed by the IR, outside what the PTX can compute: the program's result changes with
    /// the optimisation level.
    OptLevel,
    /// Allowed by the IR and computable by the PTX.
    Consistent,
    /// `instcombine` left the function unfolded at this input.
    NotFolded,
    /// Z3 did not decide within its time whether a program can produce the constant.
    Undecided,
}

impl FoldKind {
    /// The verdict's stable name: `folding-bug`, `opt-level`, `consistent`, `not-folded`,
    /// `undecided`.
    pub fn name(self) -> &'static str {
        match self {
            FoldKind::FoldingBug => "folding-bug",
            FoldKind::OptLevel => "opt-level",
            FoldKind::Consistent => "consistent",
            FoldKind::NotFolded => "not-folded",
            FoldKind::Undecided => "undecided",
        }
    }
}

/// The verdict at one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldVerdict {
    /// The arguments, one per parameter (bits).
    pub inputs: Vec<u64>,
    /// What the folder left.
    pub folded: Folded,
    /// The verdict.
    pub kind: FoldKind,
    /// What the IR allows at these inputs, in words (under the evaluator's representative
    /// intermediate choices).
    pub ir_allows: String,
    /// What the PTX computes at these inputs, in words (likewise).
    pub ptx_computes: String,
}

impl fmt::Display for FoldVerdict {
    /// `0x400000, 0x40000000, 0x0: folded 0x800000: folding-bug (the IR allows 0x00000000 (0);
    /// the PTX computes 0x00000000 (0))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(|v| format!("{v:#x}")).collect();
        let folded = match self.folded {
            Folded::Bits(b) => format!("{b:#x}"),
            Folded::Poison => "poison".to_string(),
            Folded::Unfolded => "nothing".to_string(),
        };
        write!(
            f,
            "{}: folded {folded}: {} (the IR allows {}; the PTX computes {})",
            inputs.join(", "),
            self.kind.name(),
            self.ir_allows,
            self.ptx_computes
        )
    }
}

/// Judges `folded`, what the folder made of the IR function `ir` at `inputs`, against `ir` and
/// against `ptx`, the program of the PTX llc emitted for it (the same inputs, one result).
///
/// # Panics
/// If `inputs` does not hold one value per input of each program ([`fold_check`] checks).
pub fn classify(ir: &Program, ptx: &Program, inputs: &[u64], folded: Folded) -> FoldVerdict {
    let kind = match folded {
        Folded::Unfolded => FoldKind::NotFolded,
        // A poison result lets the optimised program produce anything, which is fine exactly
        // where the IR itself is poison (every value allowed) at these inputs.
        Folded::Poison => match poison_allowed(ir, inputs) {
            Some(true) => FoldKind::Consistent,
            Some(false) => FoldKind::FoldingBug,
            None => FoldKind::Undecided,
        },
        Folded::Bits(bits) => match semfuzz_smt::reach::allows(ir, inputs, bits, Some(REACH_MS)) {
            Some(false) => FoldKind::FoldingBug,
            None => FoldKind::Undecided,
            Some(true) => match semfuzz_smt::reach::allows(ptx, inputs, bits, Some(REACH_MS)) {
                Some(true) => FoldKind::Consistent,
                Some(false) => FoldKind::OptLevel,
                None => FoldKind::Undecided,
            },
        },
    };
    FoldVerdict {
        inputs: inputs.to_vec(),
        folded,
        kind,
        ir_allows: described(ir, inputs),
        ptx_computes: described(ptx, inputs),
    }
}

/// Whether every value is allowed at `inputs` (`None`: the representative choices do not
/// allow every value, but other choices might).
fn poison_allowed(program: &Program, inputs: &[u64]) -> Option<bool> {
    let mut ev = Evaluator::new(program);
    let mut acc = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut acc);
    if acc
        .iter()
        .all(|a| matches!(a, Accept::Any(_) | Accept::Poison(_) | Accept::Ub(_)))
    {
        Some(true)
    } else if ev.met_open_choice() {
        None
    } else {
        Some(false)
    }
}

/// What `program` allows at `inputs`, part by part, in words.
fn described(program: &Program, inputs: &[u64]) -> String {
    let mut ev = Evaluator::new(program);
    let mut acc = vec![Accept::default(); ev.n_parts()];
    ev.eval(inputs, &mut acc);
    let parts = program.dests.iter().flat_map(|d| d.parts.iter());
    let words: Vec<String> = parts
        .zip(&acc)
        .map(|(p, a)| describe_accept(p.kind, a))
        .collect();
    if ev.met_open_choice() {
        // Another choice of an intermediate NaN may lead elsewhere.
        format!("{} (at representative choices)", words.join(", "))
    } else {
        words.join(", ")
    }
}

/// Folds function `func` of the `.ll` module `ir_text` at each row of `inputs` (one value per
/// parameter) with `folder`, and judges each folded constant against the IR and against `ptx`,
/// the program of the PTX llc emitted for the function ([`classify`]). An error where the
/// function cannot be read or folded (a feature the IR reader does not model, a folder that
/// fails), or the rows do not fit its parameters.
pub fn fold_check(
    spec: &Spec,
    ir_text: &str,
    func: &str,
    ptx: &Program,
    inputs: &[Vec<u64>],
    folder: &Folder,
) -> Result<Vec<FoldVerdict>, String> {
    let module = parse(ir_text, func)?;
    let ir = semfuzz_llir::read_function(spec, &module, Some(func)).map_err(|d| d.to_string())?;
    let arity = ir.inputs.len();
    if ptx.input_widths.len() != arity {
        return Err(format!(
            "the PTX takes {} inputs, `{func}` {arity}",
            ptx.input_widths.len()
        ));
    }
    if let Some(row) = inputs.iter().find(|r| r.len() != arity) {
        return Err(format!(
            "an input row of {} values for the {arity} parameters of `{func}`",
            row.len()
        ));
    }
    let folded = fold(folder, &module, function(&module, func)?, inputs)?;
    Ok(inputs
        .iter()
        .zip(folded)
        .map(|(row, folded)| classify(&ir.program, ptx, row, folded))
        .collect())
}

/// The module `ir_text`, named `func.ll` in messages.
fn parse(ir_text: &str, func: &str) -> Result<Module, String> {
    semfuzz_llir::parse(&SourceFile::new(format!("{func}.ll"), ir_text)).map_err(|d| d.to_string())
}

/// Function `func` of `module`.
fn function<'m>(module: &'m Module, func: &str) -> Result<&'m Function, String> {
    module
        .functions
        .iter()
        .find(|f| f.name == func)
        .ok_or_else(|| format!("the module defines no function `{func}`"))
}

/// What `folder` makes of `f` (a function of `module`) at each row of `inputs`.
fn fold(
    folder: &Folder,
    module: &Module,
    f: &Function,
    inputs: &[Vec<u64>],
) -> Result<Vec<Folded>, String> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let bits = f.ret.bits().filter(|b| *b <= 64).ok_or_else(|| {
        format!(
            "`{}` returns {}, which semfuzz does not hold",
            f.name, f.ret
        )
    })?;
    let cases = inputs
        .iter()
        .enumerate()
        .map(|(i, row)| case(f, i, row, bits))
        .collect::<Result<Vec<_>, _>>()?;
    // The module's declarations and attribute groups as written, for NVPTX whatever triple it
    // names: the PTX is NVPTX's, so the folding must be too.
    let mut lines = vec![format!("target triple = \"{TRIPLE}\"")];
    lines.extend(
        module
            .lines
            .iter()
            .filter(|l| !l.trim_start().starts_with("target triple"))
            .cloned(),
    );
    let text = Module {
        lines,
        globals: module.globals.clone(),
        groups: module.groups.clone(),
        functions: cases,
    }
    .to_string();
    let folded = folder.fold(&text)?;
    let returned = module::returns(&folded, bits, inputs.len())?;
    Ok(returned
        .into_iter()
        .map(|r| match r {
            Some("poison" | "undef") => Folded::Poison,
            Some(v) => module::integer(v, bits).map_or(Folded::Unfolded, Folded::Bits),
            None => Folded::Unfolded,
        })
        .collect())
}

/// Case `i`: `f` as `@c<i>()`, its parameters replaced by `row`'s constants, returning the
/// result's bits as an `i<bits>` (a float or vector result through a bitcast, which folds).
fn case(f: &Function, i: usize, row: &[u64], bits: u32) -> Result<Function, String> {
    let constants = f
        .params
        .iter()
        .zip(row)
        .map(|(p, &v)| Ok((p.name.as_str(), constant(&p.ty, v)?)))
        .collect::<Result<Vec<_>, String>>()?;
    let substitute = |o: &mut Operand| {
        if let Value::Local(name) = &o.value {
            o.value = match constants.iter().find(|(p, _)| p == name) {
                Some((_, c)) => Value::Const(c.clone()),
                None => Value::Local(named(name)),
            };
        }
    };
    let mut body = Vec::with_capacity(f.body.len() + 1);
    for s in &f.body {
        let instr = match s {
            Statement::Instr(instr) => instr,
            Statement::Label(l, span) => {
                body.push(Statement::Label(named(l), span.clone()));
                continue;
            }
        };
        let mut instr = instr.clone();
        instr.result = instr.result.as_deref().map(named);
        instr.operands.iter_mut().for_each(substitute);
        let returned = instr.ty.clone().unwrap_or(Type::Void);
        if instr.shape != Shape::Ret || matches!(returned, Type::Int(_)) {
            body.push(Statement::Instr(instr));
            continue;
        }
        // `ret T v` becomes `%semfuzz.bits = bitcast T v to iN` and `ret iN %semfuzz.bits`.
        let mut cast = instr.clone();
        cast.result = Some("semfuzz.bits".into());
        cast.opcode = "bitcast".into();
        cast.shape = Shape::Cast;
        cast.ty = None;
        cast.to = Some(Type::Int(bits));
        cast.metadata.clear();
        for o in &mut cast.operands {
            o.ty = Some(returned.clone());
        }
        instr.ty = Some(Type::Int(bits));
        for o in &mut instr.operands {
            o.value = Value::Local("semfuzz.bits".into());
        }
        body.push(Statement::Instr(cast));
        body.push(Statement::Instr(instr));
    }
    Ok(Function {
        name: format!("c{i}"),
        ret: match f.ret {
            Type::Int(_) => f.ret.clone(),
            _ => Type::Int(bits),
        },
        params: Vec::new(),
        attrs: f.attrs.clone(),
        kernel: false,
        body,
        span: f.span.clone(),
    })
}

/// A local name the case can keep: a numbered one (`%3`, as clang writes them) gets a name,
/// since LLVM requires numbered values in order from `%0` and the case has no parameters to
/// take the first numbers.
fn named(name: &str) -> String {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        format!("semfuzz.v{name}")
    } else {
        name.to_string()
    }
}

/// The IR constant of type `ty` with bits `v`: integers in decimal (`i1` as `true`/`false`),
/// every other type as an integer bitcast, exact for every NaN payload.
fn constant(ty: &Type, v: u64) -> Result<String, String> {
    let bits = ty
        .bits()
        .filter(|b| *b <= 64)
        .ok_or_else(|| format!("a parameter of type {ty}, which semfuzz does not hold"))?;
    let v = v & mask(bits);
    Ok(match ty {
        Type::Int(1) => (if v == 1 { "true" } else { "false" }).to_string(),
        Type::Int(_) => module::signed(v, bits).to_string(),
        _ => format!("bitcast (i{bits} {} to {ty})", module::signed(v, bits)),
    })
}

/// `count` argument tuples for function `func` of the `.ll` module `ir_text`, boundary-heavy
/// per parameter type and deterministic in `seed`: floating-point values (each lane of a
/// vector) from [`BoundaryGen`] (zeros, subnormals, the smallest normal, overflow thresholds,
/// NaNs with several payloads, ...); integers the values where integer operations change
/// behaviour (0, 1, -1, both extremes) half the time, random bits otherwise.
pub fn boundary_inputs(
    ir_text: &str,
    func: &str,
    count: usize,
    seed: u64,
) -> Result<Vec<Vec<u64>>, String> {
    let module = parse(ir_text, func)?;
    let mut gens = function(&module, func)?
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| ParamGen::new(&p.ty, seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..count)
        .map(|_| gens.iter_mut().map(ParamGen::next).collect())
        .collect())
}

/// Witness argument tuples for function `func` of the `.ll` module `ir_text`: where its body is
/// one instruction on its scalar parameters in order, returned (the catalogue's shape:
/// `%r = fadd float %a, %b` and `ret float %r`), Z3's witnesses of that instruction's IR
/// variant (`semfuzz_smt::witness`: each branch of LangRef's rules both ways, exact ties, the
/// overflow and subnormal thresholds), which boundary-heavy samples rarely hit; none for any
/// other function. Each Z3 query gets about `timeout_ms`.
pub fn witness_inputs(
    spec: &Spec,
    ir_text: &str,
    func: &str,
    timeout_ms: u32,
) -> Result<Vec<Vec<u64>>, String> {
    let module = parse(ir_text, func)?;
    let f = function(&module, func)?;
    let ir = semfuzz_llir::read_function(spec, &module, Some(func)).map_err(|d| d.to_string())?;
    let instrs: Vec<&Instr> = f
        .body
        .iter()
        .filter_map(|s| match s {
            Statement::Instr(i) => Some(i.as_ref()),
            Statement::Label(..) => None,
        })
        .collect();
    let [op, ret] = instrs.as_slice() else {
        return Ok(Vec::new());
    };
    let of_params = op.operands.len() == f.params.len()
        && op
            .operands
            .iter()
            .zip(&f.params)
            .all(|(o, p)| o.value == Value::Local(p.name.clone()) && p.ty.lanes() == 1);
    let returned = match (&op.result, ret.operands.as_slice()) {
        (Some(r), [o]) => o.value == Value::Local(r.clone()),
        _ => false,
    };
    let [text] = ir.variants.as_slice() else {
        return Ok(Vec::new());
    };
    if !of_params || !returned {
        return Ok(Vec::new());
    }
    let variant = spec
        .lookup(text, Some(f.params.len()))
        .map_err(|d| d.to_string())?;
    Ok(semfuzz_smt::witness::witnesses(spec, variant, timeout_ms)
        .witnesses
        .into_iter()
        .map(|w| w.inputs)
        .filter(|row| row.len() == f.params.len())
        .collect())
}

/// The values of one parameter.
enum ParamGen {
    /// A float or a vector of floats: one generator per lane.
    Floats { lanes: Vec<BoundaryGen>, width: u32 },
    /// An integer or a vector of integers.
    Ints {
        rng: SplitMix64,
        lanes: u32,
        width: u32,
    },
}

impl ParamGen {
    fn new(ty: &Type, seed: u64) -> Result<ParamGen, String> {
        let lanes = ty.lanes();
        Ok(match ty.elem() {
            Type::Float(f) => {
                let format = match f {
                    FloatTy::Half => Format::F16,
                    FloatTy::BFloat => Format::BF16,
                    FloatTy::Float => Format::F32,
                    FloatTy::Double => Format::F64,
                };
                ParamGen::Floats {
                    lanes: (0..lanes)
                        .map(|l| BoundaryGen::new(format, seed ^ (u64::from(l) << 32)))
                        .collect(),
                    width: f.bits(),
                }
            }
            Type::Int(w) if *w * lanes <= 64 => ParamGen::Ints {
                rng: SplitMix64::new(seed),
                lanes,
                width: *w,
            },
            _ => {
                return Err(format!(
                    "a parameter of type {ty}, which semfuzz does not hold"
                ))
            }
        })
    }

    fn next(&mut self) -> u64 {
        match self {
            ParamGen::Floats { lanes, width } => {
                lanes.iter_mut().enumerate().fold(0, |acc, (l, g)| {
                    acc | (g.next().unwrap_or(0) << (l as u32 * *width))
                })
            }
            ParamGen::Ints { rng, lanes, width } => (0..*lanes).fold(0, |acc, l| {
                let r = rng.next_u64();
                let m = mask(*width);
                let min = 1u64 << (*width - 1);
                let v = if r & 1 == 0 {
                    r >> 1
                } else {
                    [0, 1, m, min, min - 1][(r >> 1) as usize % 5]
                };
                acc | ((v & m) << (l * *width))
            }),
        }
    }
}
