//! Sequences of PTX and SASS instructions, and the refinement query of a rule.
//!
//! A rule's two sides are resolved against the specs ([`resolve`]): each instruction becomes
//! a variant with its inputs bound to the rule's variables or to constants. Inputs are the
//! variables read before any write (on either side); temporaries are written first; the output
//! is the variable both last instructions write.
//!
//! **Semantics** ([`Query::build`]): the target refines the source when, for every input that
//! satisfies `pre`, every value the target can leave in the output is one the source allows,
//! part by part (Alive2's refinement). Nondeterminism stays nondeterminism on both sides:
//! - the target's choices (a NaN an operation leaves unspecified, `one_of`, the value of an
//!   approximation within its bound) are free variables of the query, so a proof covers every
//!   choice: target NaNs are encoded with [`NanBits::Free`], never pinned;
//! - the source's choices are existentially quantified inside the negated query: a target
//!   value is fine when *some* choice of the source produces it. Choices of the source's last
//!   instruction are its outcome formula over the output itself; an intermediate choice is a
//!   variable under `exists` (first pinned to a witness, then to NaN bits learned from
//!   candidates the source allows: [`Posed::answer`]). The source's own operation NaNs are
//!   pinned (`NanBits::Pinned`),
//!   which only removes source behaviours: a proof stays sound, and specs that pass the
//!   consistency check never expose those bits anyway;
//! - the licence to fuse: a `mul` and an `add` without rounding modifier (`Variant::fusable`,
//!   and the spec's `fuse` items, which name the instructions)
//!   where the product is a temporary read only by that `add`, with the same type and `.ftz`,
//!   and no `.sat` on the `mul`, may also be one `fma.rn` (PTX ISA 9.7.3.3/9.7.4.1: "mul/add
//!   sequences with no rounding modifiers may be optimized to use fused-multiply-add"). Each
//!   such pair doubles the side's alternatives; the side allows the union.
//!
//! A counterexample is re-run concretely by the evaluator ([`Query::confirm`]).

use crate::encode::{encode_vals, payload_blind_inputs, Choice, Ctx, NanBits, ToBits, Val};
use crate::rules::{InstrLine, Rule};
use crate::solve::Answer;
use semfuzz_spec::catalog::{OperandRole, Spec, Variant};
use semfuzz_spec::diag::{Diagnostic, SourceFile, Span};
use semfuzz_spec::eval::Evaluator;
use semfuzz_spec::ir::{mask, PartKind, Program, Slot};
use semfuzz_spec::outcome::Accept;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use z3::ast::{exists_const, Ast, Bool, Dynamic, BV};

/// What an input of a variant is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A rule variable (index into [`Query::vars`]).
    Var(usize),
    /// Bits fixed by the text: a hex constant, a SASS immediate or modifier field.
    Const(u64),
    /// A register of `width` bits whose low bits hold a narrower variable (a 16-bit PTX
    /// value in a 32-bit SASS register); its upper bits are an arbitrary input `in_NAME_hi`.
    Low(usize, u32),
}

/// What a step runs.
#[derive(Clone, Debug)]
pub enum Code<'s> {
    /// An instruction variant of the catalogue.
    Variant(&'s Variant),
    /// A whole function: PTX (`@file.ptx:func`, read by `semfuzz-ptx`) or LLVM IR
    /// (`@file.ll:func`, read by `semfuzz-llir`), as its program.
    Function(Arc<Program>),
}

impl<'s> Code<'s> {
    /// The program the step runs.
    pub fn program(&self) -> &Program {
        match self {
            Code::Variant(v) => &v.program,
            Code::Function(f) => f,
        }
    }

    /// The variant, for a step that is one instruction.
    pub fn variant(&self) -> Option<&'s Variant> {
        match self {
            Code::Variant(v) => Some(v),
            Code::Function(_) => None,
        }
    }
}

/// One instruction (or PTX function) of a side, resolved.
#[derive(Clone, Debug)]
pub struct Step<'s> {
    /// What it runs.
    pub code: Code<'s>,
    /// One binding per variant input.
    pub args: Vec<Arg>,
    /// The variable it writes.
    pub dest: usize,
    /// The instruction text as it reads in the rule (or `fma.rn...` for a fused pair).
    pub text: String,
}

/// A rule variable.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name in the rule.
    pub name: String,
    /// Its width in bits.
    pub width: u32,
    /// Its type as the first instruction reading or writing it names it (`f32`, `f16x2`).
    pub ty: String,
    /// Whether it is an input (read before any write on some side).
    pub input: bool,
}

/// A rule resolved against the specs, ready to be posed.
pub struct Query<'s> {
    /// The rule's variables.
    pub vars: Vec<Var>,
    /// The output variable.
    pub output: usize,
    /// The source's alternatives (more than one when `mul`+`add` may be fused).
    pub source: Vec<Vec<Step<'s>>>,
    /// The target's alternatives.
    pub target: Vec<Vec<Step<'s>>>,
    /// The precondition as a program over the inputs (in [`Query::inputs`] order) whose one
    /// predicate destination must be true.
    pub pre: Option<Program>,
}

fn at(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

/// Resolves both sides of `rule` against `spec`, a function side's loops unrolled to the
/// readers' default bound.
pub fn resolve<'s>(spec: &'s Spec, rule: &Rule) -> Result<Query<'s>, Diagnostic> {
    resolve_unrolled(
        spec,
        rule,
        semfuzz_llir::DEFAULT_UNROLL,
        &semfuzz_llir::Licences::default(),
        false,
    )
}

/// [`resolve`] with each loop of a function side unrolled to `unroll` (`--unroll`): run at
/// most that many times per entry into it; an LLVM IR source side read with the `licences`
/// of the compile it is judged against ([`semfuzz_llir::Licences`]), its pointer parameters
/// overlapping where `may_alias` (`--may-alias`).
pub fn resolve_unrolled<'s>(
    spec: &'s Spec,
    rule: &Rule,
    unroll: u32,
    licences: &semfuzz_llir::Licences,
    may_alias: bool,
) -> Result<Query<'s>, Diagnostic> {
    let mut vars: Vec<Var> = Vec::new();
    // A kernel's launch bounds its special registers: the source's, the contract the target
    // is held to (semfuzz_spec::launch).
    let mut launch = Vec::new();
    let layout = std::cell::RefCell::new(semfuzz_spec::memory::Layout::default());
    let source = resolve_side(
        spec,
        &rule.source,
        &mut vars,
        Reading {
            unroll,
            licences,
            may_alias,
            layout: &layout,
        },
        &mut launch,
    )?;
    // A licence widens what the source allows; a target is what it computes.
    let none = semfuzz_llir::Licences::default();
    let target = resolve_side(
        spec,
        &rule.target,
        &mut vars,
        Reading {
            unroll,
            licences: &none,
            may_alias,
            layout: &layout,
        },
        &mut Vec::new(),
    )?;
    let (s_last, t_last) = (
        source.last().expect("non-empty"),
        target.last().expect("non-empty"),
    );
    if s_last.dest != t_last.dest {
        let line = rule.target.last().expect("non-empty");
        return Err(at(
            line.operands.first().map_or(&line.span, |o| &o.1),
            format!(
                "the target's last instruction writes `{}`, the source's `{}`",
                vars[t_last.dest].name, vars[s_last.dest].name
            ),
        )
        .with_hint("both sides' last instructions must write the same output variable"));
    }
    let output = s_last.dest;
    let pre = match (&rule.pre, launch.as_slice()) {
        (Some((text, span)), []) => Some(precondition(&vars, text, span)?),
        (Some((text, span)), launch) => Some(precondition(
            &vars,
            &format!("({text}) && {}", launch.join(" && ")),
            span,
        )?),
        (None, []) => None,
        (None, launch) => {
            let line = rule.source.first().expect("non-empty");
            Some(precondition(&vars, &launch.join(" && "), &line.span)?)
        }
    };
    let source = alternatives(spec, &source, output, &mut vars);
    let target = alternatives(spec, &target, output, &mut vars);
    Ok(Query {
        source,
        target,
        vars,
        output,
        pre,
    })
}

/// The variable `name`, created on first use with the operand's width and type; its width
/// must agree on every later use.
fn var(
    vars: &mut Vec<Var>,
    name: &str,
    width: u32,
    ty: &str,
    read: bool,
    written: &[bool],
    span: &Span,
) -> Result<usize, Diagnostic> {
    if let Some(i) = vars.iter().position(|v| v.name == name) {
        if vars[i].width != width {
            return Err(at(
                span,
                format!(
                    "`{name}` is {} bits ({}) elsewhere, but this operand is {width} bits ({ty})",
                    vars[i].width, vars[i].ty
                ),
            )
            .with_hint("use a separate variable for a value of another width"));
        }
        if read && !written.get(i).copied().unwrap_or(false) {
            vars[i].input = true;
        }
        return Ok(i);
    }
    if name.is_empty() {
        return Err(at(span, "an operand is missing")
            .with_hint("operands are separated by single commas: `add.rn.f32 d, a, b`"));
    }
    if !read && name.starts_with("0x") {
        return Err(at(span, format!("the destination `{name}` is a constant"))
            .with_hint("an instruction writes a variable: `add.rn.f32 d, a, 0x3f800000`"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(at(span, format!("`{name}` is not a variable or a constant"))
            .with_hint("operands are variables (`a`, `t1`) or hex bits of the operand's width (`0x3f800000`)"));
    }
    vars.push(Var {
        name: name.to_string(),
        width,
        ty: ty.to_string(),
        input: read,
    });
    Ok(vars.len() - 1)
}

/// How a function side is read: its loops' bound, and for an LLVM IR source the licences of
/// the compile it is judged against.
#[derive(Clone, Copy)]
struct Reading<'a> {
    unroll: u32,
    licences: &'a semfuzz_llir::Licences,
    /// Whether an LLVM IR side's pointer parameters may overlap (`--may-alias`).
    may_alias: bool,
    /// The memory layout of the last LLVM IR side read ([`semfuzz_llir::IrFunction::layout`]),
    /// which a PTX side read after it gets, so that their memories line up.
    layout: &'a std::cell::RefCell<semfuzz_spec::memory::Layout>,
}

fn resolve_side<'s>(
    spec: &'s Spec,
    lines: &[InstrLine],
    vars: &mut Vec<Var>,
    reading: Reading,
    launch: &mut Vec<String>,
) -> Result<Vec<Step<'s>>, Diagnostic> {
    let mut written = vec![false; vars.len()];
    let mut steps = Vec::new();
    for line in lines {
        let step = if let Some(reference) = line.opcode.strip_prefix('@') {
            if lines.len() > 1 {
                return Err(
                    at(&line.span, "a PTX function is a whole side of a rule").with_hint(
                        "write the function alone between `name:` (or `=>`) and the other side",
                    ),
                );
            }
            resolve_function(spec, line, reference, vars, &written, reading, launch)?
        } else if semfuzz_spec::sass::looks_like_sass(&line.text) {
            resolve_sass(spec, line, vars, &written)?
        } else {
            resolve_ptx(spec, line, vars, &written)?
        };
        written.resize(vars.len(), false);
        written[step.dest] = true;
        steps.push(step);
    }
    Ok(steps)
}

fn resolve_ptx<'s>(
    spec: &'s Spec,
    line: &InstrLine,
    vars: &mut Vec<Var>,
    written: &[bool],
) -> Result<Step<'s>, Diagnostic> {
    let opcode_span = Span::new(
        &line.span.file,
        line.span.start,
        line.span.start + line.opcode.len().max(1),
    );
    let Some(((dest_text, dest_span), operands)) = line.operands.split_first() else {
        return Err(at(&line.span, format!("`{}` has no operands", line.opcode))
            .with_hint("write the destination then the sources: `add.rn.f32 d, a, b`"));
    };
    let variant = spec
        .lookup(&line.opcode, Some(operands.len()))
        .map_err(|d| relocate(d, &opcode_span))?;
    if variant.dests.len() != 1 {
        return Err(at(
            &opcode_span,
            format!(
                "`{}` writes {} destinations; rules take instructions with one",
                variant.text,
                variant.dests.len()
            ),
        ));
    }
    let mut args = Vec::new();
    let mut given = operands.iter();
    let d = &variant.dests[0];
    for src in &variant.sources {
        match src.role {
            OperandRole::Value => {
                let (text, span) = given.next().expect("lookup checked the operand count");
                args.push(operand(vars, text, src.width, &src.ty, written, span)?);
            }
            OperandRole::OldDest => args.push(Arg::Var(var(
                vars, dest_text, d.width, &d.ty, true, written, dest_span,
            )?)),
            _ => {
                return Err(at(
                    &opcode_span,
                    format!(
                        "`{}` takes fields written on its operands, which PTX text cannot give",
                        variant.text
                    ),
                ));
            }
        }
    }
    let dest = var(vars, dest_text, d.width, &d.ty, false, written, dest_span)?;
    Ok(Step {
        code: Code::Variant(variant),
        args,
        dest,
        text: line.text.clone(),
    })
}

/// `kernel[N]` or `kernel[N,B]`: the kernel read as a CTA of N threads (`32`, `32x4`,
/// `8x4x2` along x, y, z; docs/cta.md), its pointer parameters' blocks B bytes each (default 8
/// per thread); a plain name is one thread.
fn cta_suffix(func: &str) -> Result<(&str, Option<semfuzz_ptx::Cta>), String> {
    let Some((name, shape)) = func.strip_suffix(']').and_then(|f| f.split_once('[')) else {
        return Ok((func, None));
    };
    let mut parts = shape.split(',');
    let mut cta = semfuzz_ptx::Cta::shaped(semfuzz_ptx::parse_shape(parts.next().unwrap_or(""))?);
    if let Some(bytes) = parts.next() {
        cta.block_bytes = bytes
            .trim()
            .parse()
            .map_err(|_| format!("`{}` in `[{shape}]` is not a number of bytes", bytes.trim()))?;
    }
    if parts.next().is_some() {
        return Err(format!(
            "`[{shape}]` has more than a thread count and a block size"
        ));
    }
    Ok((name, Some(cta)))
}

/// A function side, `@path/to/file.ptx:func d, a, b` (PTX) or `@path/to/file.ll:func d, a, b`
/// (LLVM IR): the path is relative to the rule file's directory; `d` is the function's one
/// result and `a, b` its inputs in order (parameters, then the memory a PTX function's pointer
/// parameters name, as `semfuzz eval-ptx` lists them).
fn resolve_function<'s>(
    spec: &'s Spec,
    line: &InstrLine,
    reference: &str,
    vars: &mut Vec<Var>,
    written: &[bool],
    reading: Reading,
    launch: &mut Vec<String>,
) -> Result<Step<'s>, Diagnostic> {
    let Reading {
        unroll, licences, ..
    } = reading;
    let head = Span::new(
        &line.span.file,
        line.span.start,
        line.span.start + line.opcode.len(),
    );
    let Some((path, func)) = reference.rsplit_once(':') else {
        return Err(
            at(&head, format!("`@{reference}` names no function")).with_hint(
                "write `@path/to/file.ptx:function` or `@path/to/file.ll:function` (the path relative to this rule file)",
            ),
        );
    };
    // `func/k` names result `k` of a function with several (its return value, then the final
    // memory of each block and `in_bounds`), compared alone: `validate-llc` poses one rule
    // per result (docs/llc-validation.md, "Memory").
    let (func, which) = match func.rsplit_once('/') {
        Some((f, k)) => match k.parse::<usize>() {
            Ok(k) => (f, Some(k)),
            Err(_) => {
                return Err(at(&head, format!("`/{k}` is not a result number"))
                    .with_hint("write `@file.ll:func/1` for its result 1 (from 0)"))
            }
        },
        None => (func, None),
    };
    let (func, cta) = cta_suffix(func).map_err(|e| {
        at(&head, e).with_hint(
            "write `@file.ptx:kernel[N]` for a CTA of N threads, `[N, B]` for blocks of B bytes",
        )
    })?;
    let dir = std::path::Path::new(&line.span.file.name)
        .parent()
        .unwrap_or(std::path::Path::new(""));
    let file = dir.join(path);
    let text = std::fs::read_to_string(&file).map_err(|e| {
        at(&head, format!("cannot read `{}`: {e}", file.display()))
            .with_hint("the path is relative to the directory of the rule file")
    })?;
    let name = file.display().to_string();
    // An `.ll` file is LLVM IR, anything else PTX: both read into a program over the
    // catalogue's variants, with the same slots.
    // The type an `<N x i1>` result's variable gets from the IR side, by which the PTX side
    // knows to read it a lane per byte.
    let bools = |n: u32| format!("v{n}i1");
    let mut result_ty = None;
    let (inputs, results, program, bounds) = if path.ends_with(".ll") {
        if cta.is_some() {
            return Err(at(&head, "an LLVM IR function is read as one thread")
                .with_hint("a CTA (`[N]`) is a PTX kernel's; drop the `[..]` here"));
        }
        let f = semfuzz_llir::load_licensed(
            spec,
            &name,
            &text,
            Some(func),
            unroll,
            licences,
            reading.may_alias,
        )
        .map_err(|d| relocate(d, &head))?;
        let bounds = f.launch;
        reading.layout.replace(f.layout.clone());
        // A vector of floats is read as its lanes, each with its own outcome, so that the
        // refinement can be posed lane by lane ([`Query::lanes`]).
        let program = float_lanes(&name, &text, func)
            .filter(|_| which.unwrap_or(0) == 0)
            .and_then(|(n, kind)| crate::lanes::split(&f.program, n, kind))
            .unwrap_or(f.program);
        result_ty = bool_lanes(&name, &text, func).map(bools);
        (f.inputs, f.results, program, bounds)
    } else {
        let f = match cta {
            Some(cta) => semfuzz_ptx::load_cta(spec, &name, &text, Some(func), unroll, cta),
            None => semfuzz_ptx::load_with_blocks(
                spec,
                &name,
                &text,
                Some(func),
                unroll,
                &reading.layout.borrow(),
            ),
        }
        .map_err(|d| relocate(d, &head))?;
        let bounds = f.launch;
        // The other side's `<N x i1>` as LLVM returns it: lane k in byte k.
        let lanes = line.operands.first().and_then(|(d, _)| {
            let v = vars.iter().find(|v| v.name == *d)?;
            (v.ty == bools(v.width)).then_some(v.width)
        });
        match lanes.and_then(|n| crate::lanes::bool_bytes(&f.program, n).map(|p| (n, p))) {
            Some((n, program)) => {
                let mut results = f.results;
                results[0].width = n;
                (f.inputs, results, program, bounds)
            }
            None => (f.inputs, f.results, f.program, bounds),
        }
    };
    let (results, program) = match which {
        None => (results, program),
        Some(k) if k < results.len() => {
            let mut program = program;
            program.dests.swap(0, k);
            (vec![results[k].clone()], program)
        }
        Some(k) => {
            return Err(at(
                &head,
                format!("`{func}` has {} results, not a result {k}", results.len()),
            ))
        }
    };
    let slot_list = |slots: &[Slot]| {
        slots
            .iter()
            .map(|s| format!("{} ({} bits)", s.name, s.width))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let [result] = results.as_slice() else {
        return Err(at(
            &head,
            format!(
                "`{func}` has {} results ({}); a rule's side writes one",
                results.len(),
                slot_list(&results)
            ),
        )
        .with_hint("prove a function with one return value or one stored output"));
    };
    let Some(((dest_text, dest_span), operands)) = line.operands.split_first() else {
        return Err(
            at(&head, format!("`{func}` has no operands")).with_hint(format!(
                "write its result then its inputs: {}",
                slot_list(&inputs)
            )),
        );
    };
    if operands.len() != inputs.len() {
        return Err(at(
            &line.span,
            format!(
                "`{func}` reads {} inputs, the rule gives {}",
                inputs.len(),
                operands.len()
            ),
        )
        .with_hint(format!("its inputs, in order: {}", slot_list(&inputs))));
    }
    // The type a variable shows (and draws special inputs from, [`special_inputs`]).
    let ty = |s: &Slot| {
        let named = [
            (semfuzz_fp::Format::F16, "f16"),
            (semfuzz_fp::Format::BF16, "bf16"),
            (semfuzz_fp::Format::F32, "f32"),
            (semfuzz_fp::Format::F64, "f64"),
        ];
        match s.kind {
            PartKind::Float(f) => named
                .iter()
                .find(|(g, _)| *g == f)
                .map_or(format!("b{}", s.width), |(_, n)| n.to_string()),
            _ => format!("b{}", s.width),
        }
    };
    let mut args = Vec::new();
    for (slot, (text, span)) in inputs.iter().zip(operands) {
        // A parameter wider than its variable holds it in its low bits, the rest arbitrary: a
        // subword scalar promoted to a 32-bit `.param` (PTX ISA 7.1; LLVM 14 to 16's `half`).
        let narrower = vars.iter().any(|v| v.name == *text && v.width < slot.width);
        args.push(if narrower {
            let v = register(vars, text, slot.width, &ty(slot), true, written, span)?;
            Arg::Low(v, slot.width)
        } else {
            operand(vars, text, slot.width, &ty(slot), written, span)?
        });
    }
    let special: Vec<(&str, &str)> = inputs
        .iter()
        .zip(operands)
        .filter_map(|(slot, (text, _))| {
            semfuzz_spec::launch::SPECIAL_REGISTERS
                .into_iter()
                .find(|r| *r == slot.name)
                .map(|r| (r, text.as_str()))
        })
        .collect();
    if special.len() == semfuzz_spec::launch::SPECIAL_REGISTERS.len() {
        launch.push(bounds.precondition(|r| {
            special
                .iter()
                .find(|(s, _)| *s == r)
                .map_or_else(|| r.to_string(), |(_, v)| v.to_string())
        }));
    }
    // A return parameter wider than the variable the other side defined holds it in its low
    // bits, the rest unspecified: an `i1`, `i8` or `half` result in a `.b32` `func_retval0`
    // (docs/ambiguities.md 110); only the low bits are compared.
    let dest = register(
        vars,
        dest_text,
        result.width,
        &result_ty.unwrap_or_else(|| ty(result)),
        false,
        written,
        dest_span,
    )?;
    Ok(Step {
        code: Code::Function(Arc::new(program)),
        args,
        dest,
        text: line.text.clone(),
    })
}

/// How many lanes the IR function `func` of `text` returns and how each reads, where its
/// result is a vector of floating-point values.
fn float_lanes(name: &str, text: &str, func: &str) -> Option<(u32, PartKind)> {
    use semfuzz_fp::Format;
    use semfuzz_llir::syntax::{FloatTy, Type};
    let module = semfuzz_llir::parse(&SourceFile::new(name, text)).ok()?;
    let f = module.functions.iter().find(|f| f.name == func)?;
    let Type::Vector(n, elem) = &f.ret else {
        return None;
    };
    let Type::Float(t) = **elem else {
        return None;
    };
    let format = match t {
        FloatTy::Half => Format::F16,
        FloatTy::BFloat => Format::BF16,
        FloatTy::Float => Format::F32,
        FloatTy::Double => Format::F64,
    };
    Some((*n, PartKind::Float(format)))
}

/// How many lanes the IR function `func` of `text` returns, where its result is an `<N x i1>`.
fn bool_lanes(name: &str, text: &str, func: &str) -> Option<u32> {
    use semfuzz_llir::syntax::Type;
    let module = semfuzz_llir::parse(&SourceFile::new(name, text)).ok()?;
    let f = module.functions.iter().find(|f| f.name == func)?;
    match &f.ret {
        Type::Vector(n, elem) if **elem == Type::Int(1) => Some(*n),
        _ => None,
    }
}

/// A PTX operand: a hex constant of the operand's width, or a variable.
fn operand(
    vars: &mut Vec<Var>,
    text: &str,
    width: u32,
    ty: &str,
    written: &[bool],
    span: &Span,
) -> Result<Arg, Diagnostic> {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let v = u64::from_str_radix(hex, 16)
            .map_err(|_| at(span, format!("`{text}` is not a hex constant")))?;
        if hex.len() as u32 != width.div_ceil(4) {
            return Err(at(span, format!("`{text}` has {} hex digits; this {ty} operand takes {} ({width} bits)", hex.len(), width.div_ceil(4)))
                .with_hint("constants are the operand's bits, every digit written: 0x3f800000 for 1.0f32, 0x3c003c00 for a pair of f16 ones"));
        }
        return Ok(Arg::Const(v & mask(width)));
    }
    if text.starts_with('!') {
        return Err(
            at(span, "negated operands (`!c`) are not supported in rules")
                .with_hint("negate the predicate with a separate variable"),
        );
    }
    Ok(Arg::Var(var(vars, text, width, ty, true, written, span)?))
}

/// A SASS line: the rule's variables become registers `R0`, `R1`, ... for the SASS parser
/// (modifiers, `RZ`, constant banks and immediates stay as written).
fn resolve_sass<'s>(
    spec: &'s Spec,
    line: &InstrLine,
    vars: &mut Vec<Var>,
    written: &[bool],
) -> Result<Step<'s>, Diagnostic> {
    let mut names: Vec<(String, Span)> = Vec::new();
    let mut renamed = Vec::new();
    for (text, span) in &line.operands {
        let mut out = String::new();
        let bytes: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let prev = if i > 0 { bytes[i - 1] } else { ' ' };
            if c == '.' {
                // A modifier (`.H0_H0`, `.F32`) is copied whole.
                let start = i;
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == '_') {
                    i += 1;
                }
                out.extend(&bytes[start..i]);
                continue;
            }
            if (c.is_ascii_alphabetic() || c == '_') && !prev.is_ascii_alphanumeric() {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == '_') {
                    i += 1;
                }
                let word: String = bytes[start..i].iter().collect();
                let is_bank = word == "c" && bytes.get(i) == Some(&'[');
                // `RZ` and the true predicate `PT` (`!PT`) are constants of the text, not variables.
                if word == "RZ" || word == "PT" || is_bank {
                    out.push_str(&word);
                } else {
                    let k = match names.iter().position(|(n, _)| *n == word) {
                        Some(k) => k,
                        None => {
                            let s = Span::new(&span.file, span.start + start, span.start + i);
                            names.push((word, s));
                            names.len() - 1
                        }
                    };
                    out.push_str(&format!("R{k}"));
                }
                continue;
            }
            out.push(c);
            i += 1;
        }
        renamed.push(out);
    }
    let head_end = line
        .text
        .find(&line.opcode)
        .map_or(0, |i| i + line.opcode.len());
    let text = format!("{} {};", &line.text[..head_end], renamed.join(", "));
    let sass = semfuzz_spec::sass::parse(spec, &text).map_err(|d| {
        let mut e = at(&line.span, d.message)
            .with_note(format!("as SASS with the variables as registers: `{text}`"));
        e.hint = d.hint;
        e
    })?;
    if let Some(g) = &sass.guard {
        return Err(at(
            &line.span,
            format!("guard `{g}`: a rule's instructions always execute"),
        )
        .with_hint("leave the guard out"));
    }
    let variant = sass.variant;
    let d = &variant.dests[0];
    let Some((dest_name, dest_span)) = names
        .first()
        .cloned()
        .filter(|_| renamed.first().is_some_and(|r| r == "R0"))
    else {
        return Err(at(&line.span, "the destination must be a variable")
            .with_hint("e.g. `HMUL2 d, a.H0_H0, b`"));
    };
    // Each value the instruction reads, as a variable.
    let mut value_vars = Vec::new();
    for (k, name) in sass.values.iter().enumerate() {
        let ty = sass.value_type(k).to_string();
        let reg = name.trim_end_matches(" (old)");
        let idx = reg.strip_prefix('R').and_then(|n| n.parse::<usize>().ok());
        let (vname, vspan) = match idx.and_then(|i| names.get(i)) {
            Some((n, s)) => (n.clone(), s.clone()),
            // A constant-bank value (`c[6][60672]`) is an input named after it (`c_6_60672`).
            None => (
                name.replace(['[', ']'], "_")
                    .trim_end_matches('_')
                    .replace("__", "_"),
                line.span.clone(),
            ),
        };
        value_vars.push(register(vars, &vname, 32, &ty, true, written, &vspan)?);
    }
    let mut args = Vec::new();
    for (src, input) in variant.sources.iter().zip(sass.input_sources()) {
        args.push(match *input {
            semfuzz_spec::sass::Input::Fixed(v) => Arg::Const(v),
            semfuzz_spec::sass::Input::Value(k) => {
                if src.width != 32 {
                    return Err(at(&line.span, format!("operand {} of `{}` is {} bits; rule variables in SASS are 32-bit registers", src.name, variant.text, src.width)));
                }
                let v = value_vars[k];
                if vars[v].width < 32 {
                    Arg::Low(v, 32)
                } else {
                    Arg::Var(v)
                }
            }
        });
    }
    let dest = register(vars, &dest_name, 32, &d.ty, false, written, &dest_span)?;
    Ok(Step {
        code: Code::Variant(variant),
        args,
        dest,
        text: line.text.clone(),
    })
}

/// A variable used as a register of `width` bits (a 32-bit SASS register, a function's
/// `.b32` parameter): one that exists with fewer bits (a 16-bit PTX value, a `half`) lives in
/// the register's low bits.
fn register(
    vars: &mut Vec<Var>,
    name: &str,
    width: u32,
    ty: &str,
    read: bool,
    written: &[bool],
    span: &Span,
) -> Result<usize, Diagnostic> {
    match vars.iter().position(|v| v.name == name) {
        Some(i) if vars[i].width < width => {
            if read && !written.get(i).copied().unwrap_or(false) {
                vars[i].input = true;
            }
            Ok(i)
        }
        _ => var(vars, name, width, ty, read, written, span),
    }
}

/// Moves a diagnostic without a location to `span`.
fn relocate(d: Diagnostic, span: &Span) -> Diagnostic {
    if d.span.is_some() {
        return d;
    }
    let mut e = at(span, d.message);
    e.hint = d.hint;
    e.notes = d.notes;
    e
}

/// The side's alternatives: as written, and with every subset of its fusable `mul`+`add`
/// and `mul`+`sub` pairs fused (at most 4 pairs are considered: 16 alternatives).
fn alternatives<'s>(
    spec: &'s Spec,
    steps: &[Step<'s>],
    output: usize,
    vars: &mut Vec<Var>,
) -> Vec<Vec<Step<'s>>> {
    let mut pairs: Vec<(usize, usize, Vec<Step<'s>>)> = Vec::new();
    for i in 0..steps.len() {
        if let Some(pair) = (i + 1..steps.len())
            .find_map(|j| fuse(spec, steps, i, j, output, vars).map(|f| (i, j, f)))
        {
            pairs.push(pair);
        }
        if pairs.len() == 4 {
            break;
        }
    }
    (0..1usize << pairs.len())
        .map(|subset| {
            let fused: Vec<&(usize, usize, Vec<Step<'s>>)> = pairs
                .iter()
                .enumerate()
                .filter(|(k, _)| subset >> k & 1 == 1)
                .map(|(_, p)| p)
                .collect();
            steps
                .iter()
                .enumerate()
                .filter(|(k, _)| !fused.iter().any(|p| p.0 == *k))
                .flat_map(|(k, s)| {
                    fused
                        .iter()
                        .find(|p| p.1 == k)
                        .map_or_else(|| vec![s.clone()], |p| p.2.clone())
                })
                .collect()
        })
        .collect()
}

/// The fused form of product step `i` and sum step `j`, when a `fuse` item of the spec
/// licenses it (`fuse mul, add into "fma.rn";`, see `semfuzz_spec::ast::FuseDecl`): both
/// written without the modifier of a `fusable` group, the product with the sum's modifiers
/// less `.sat`, the product a temporary read only by that sum, and the product's operands
/// unchanged in between. A subtracting sum (`negating "neg"`) fuses with the spec's negation
/// of one operand (a new temporary in `vars`): `t - c` becomes `fused(a, b, neg(c))`, `c - t`
/// becomes `fused(neg(a), b, c)`, one rounding of the exact `±a·b ± c` (docs/rules.md).
fn fuse<'s>(
    spec: &'s Spec,
    steps: &[Step<'s>],
    i: usize,
    j: usize,
    output: usize,
    vars: &mut Vec<Var>,
) -> Option<Vec<Step<'s>>> {
    let (m, a) = (&steps[i], &steps[j]);
    let (mv, av) = (m.code.variant()?, a.code.variant()?);
    let fusion = spec
        .resolved
        .families
        .iter()
        .flat_map(|f| &f.fusions)
        .find(|f| f.product == mv.family && f.sum == av.family)?;
    let t = m.dest;
    let reads = |s: &Step| s.args.iter().filter(|x| **x == Arg::Var(t)).count();
    let ok = mv.fusable
        && av.fusable
        && t != output
        && reads(a) == 1
        && steps.iter().map(reads).sum::<usize>() == 1
        && steps.iter().filter(|s| s.dest == t).count() == 1
        && steps[i + 1..j]
            .iter()
            .all(|s| !m.args.contains(&Arg::Var(s.dest)));
    if !ok {
        return None;
    }
    let suffix = av.text.strip_prefix(av.family.as_str())?;
    if mv.text.strip_prefix(mv.family.as_str())? != suffix.replace(".sat", "") {
        return None;
    }
    let fused = spec
        .lookup(&format!("{}{suffix}", fusion.fused.text), Some(3))
        .ok()?;
    let text = format!("{} (fused: {}; {})", fused.text, m.text, a.text);
    let other = a.args.iter().find(|x| **x != Arg::Var(t))?.clone();
    let Some(negate) = &fusion.negate else {
        return Some(vec![Step {
            code: Code::Variant(fused),
            args: vec![m.args[0].clone(), m.args[1].clone(), other],
            dest: a.dest,
            text,
        }]);
    };
    // The type alone: a negation has no rounding, `.sat` or `.ftz` to carry (the fused form
    // flushes its inputs).
    let ty = suffix.rsplit('.').next()?;
    let neg = spec
        .lookup(&format!("{}.{ty}", negate.text), Some(1))
        .ok()?;
    let product_first = a.args.first() == Some(&Arg::Var(t));
    let negated = if product_first {
        other.clone()
    } else {
        m.args[0].clone()
    };
    vars.push(Var {
        name: format!("{}_negated", vars[t].name),
        width: vars[t].width,
        ty: vars[t].ty.clone(),
        input: false,
    });
    let n = vars.len() - 1;
    let args = if product_first {
        vec![m.args[0].clone(), m.args[1].clone(), Arg::Var(n)]
    } else {
        vec![Arg::Var(n), m.args[1].clone(), other]
    };
    Some(vec![
        Step {
            code: Code::Variant(neg),
            args: vec![negated],
            dest: n,
            text: format!("{} (fused)", neg.text),
        },
        Step {
            code: Code::Variant(fused),
            args,
            dest: a.dest,
            text,
        },
    ])
}

/// The precondition as a one-instruction spec over the inputs, lowered by the spec language
/// itself (so `pre:` reads exactly like a `sem` expression); errors point into the rule file.
fn precondition(vars: &[Var], expr: &str, span: &Span) -> Result<Program, Diagnostic> {
    let inputs: Vec<&Var> = vars.iter().filter(|v| v.input).collect();
    // The destination's name is one no rule variable takes (a pointer parameter is often `p`).
    let mut text = String::from("instr rule_pre {\n  form \"rule_pre pre_holds");
    for v in &inputs {
        text.push_str(&format!(", {}", v.name));
    }
    text.push_str("\";\n  operand pre_holds: pred;\n");
    for v in &inputs {
        text.push_str(&format!("  operand {}: {};\n", v.name, v.ty));
    }
    text.push_str("  sem {\n    pre_holds = ");
    let offset = text.len();
    text.push_str(expr);
    text.push_str(";\n  }\n}\n");
    let prelude = semfuzz_spec::catalog::EMBEDDED
        .iter()
        .find(|(n, _)| *n == "prelude.sem")
        .map_or("", |(_, t)| *t);
    let files = vec![
        SourceFile::new("<prelude>", prelude),
        SourceFile::new("<pre>", text.clone()),
    ];
    let remap = |d: Diagnostic| match &d.span {
        Some(s) if s.file.name == "<pre>" && s.start >= offset && s.start < offset + expr.len() => {
            let start = span.start + s.start - offset;
            let end = (span.start + s.end.saturating_sub(offset))
                .min(span.end)
                .max(start + 1);
            let mut e = at(&Span::new(&span.file, start, end), d.message);
            e.hint = d.hint;
            e.notes = d.notes;
            e
        }
        _ => relocate(Diagnostic { span: None, ..d }, span),
    };
    let spec = Spec::from_files(files).map_err(|ds| {
        remap(
            ds.0.into_iter()
                .next()
                .unwrap_or_else(|| Diagnostic::plain("bad precondition")),
        )
    })?;
    let v = spec.lookup("rule_pre", Some(inputs.len())).map_err(remap)?;
    Ok(v.program.clone())
}

/// One formula of a side: its assertions, the choice variables to quantify (source), and
/// the named values a counterexample reports.
struct SideTerm {
    /// Everything that must hold for this alternative to produce `out`, but `definitions`.
    holds: Bool,
    /// The source's definitions of its fresh variables (the bits of `ToBits::Fresh`); a
    /// target's are in `holds`.
    definitions: Vec<Bool>,
    /// The bit-vectors `ToBits::Fresh` made: functions of the inputs and `choices`.
    fresh_bits: Vec<BV>,
    /// Variables the alternative chooses (intermediate nondeterminism).
    choices: Vec<crate::encode::Choice>,
    /// Each intermediate part's value, named `{prefix}s{step}_{part}`.
    parts: Vec<(String, BV)>,
    /// Where each function with loops ran within its unrolling bound (empty: no loops).
    bounded: Vec<Bool>,
}

/// The negated refinement over the source's alternatives `sides`: its intermediate choices
/// under `exists` (`pin` is `None`), or (`Some(learned)`) every choice that has a witness
/// pinned to it, and each NaN choice in `learned` to its witness or one of the values
/// learned for it, case by case. Pinning only removes source behaviours (a pinned value is
/// still checked against what the choice allows, which stays in `holds`), so the pinned query
/// unsatisfiable is a proof.
fn negated(common: &[Bool], sides: &[SideTerm], pin: Option<&[(BV, BV)]>) -> Vec<Bool> {
    let mut query = common.to_vec();
    let mut alternatives = Vec::new();
    for s in sides {
        let (negated, outside) = quantified(s, pin);
        alternatives.push(negated);
        query.extend(outside);
    }
    query.push(Bool::or(&alternatives).not());
    query
}

/// A source alternative for [`negated`]: (the formula, definitions stated outside).
fn quantified(s: &SideTerm, pin: Option<&[(BV, BV)]>) -> (Bool, Vec<Bool>) {
    // A choice of one bit (the reader's "fused or as written" of `contract`) is its
    // two cases, `φ(0) ∨ φ(1)`, never pinned to one nor left to a quantifier the
    // solvers instantiate slowly; only where no definition reads it, as definitions
    // are stated once, outside. Likewise a learned NaN's cases.
    let read_by_no_definition = |c: &crate::encode::Choice| {
        let other = c.var.bvnot();
        s.definitions
            .iter()
            .all(|d| d.substitute(&[(&c.var, &other)]) == *d)
    };
    let (zero, one) = (BV::from_u64(0, 1), BV::from_u64(1, 1));
    let (expanded, rest): (Vec<_>, Vec<_>) = s
        .choices
        .iter()
        .partition(|c| c.var.get_size() == 1 && read_by_no_definition(c));
    let learned_for = |c: &crate::encode::Choice| -> Vec<BV> {
        pin.unwrap_or_default()
            .iter()
            .filter(|(var, _)| *var == c.var)
            .map(|(_, value)| value.clone())
            .collect()
    };
    let (learned, rest): (Vec<_>, Vec<_>) = rest.into_iter().partition(|c| {
        c.nan && c.witness.is_some() && !learned_for(c).is_empty() && read_by_no_definition(c)
    });
    let (pinned, free): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|c| pin.is_some() && c.witness.is_some());
    let subst: Vec<(BV, BV)> = pinned
        .iter()
        .map(|c| (c.var.clone(), c.witness.clone().expect("partitioned")))
        .collect();
    let pairs: Vec<(&BV, &BV)> = subst.iter().map(|(a, b)| (a, b)).collect();
    let mut holds = s.holds.substitute(&pairs);
    let definitions: Vec<Bool> = s.definitions.iter().map(|d| d.substitute(&pairs)).collect();
    for c in expanded {
        holds = for_some_value(&holds, &c.var, [zero.clone(), one.clone()]);
    }
    for c in learned {
        holds = for_some_value(
            &holds,
            &c.var,
            c.witness.iter().cloned().chain(learned_for(c)),
        );
    }
    if free.is_empty() {
        (holds, definitions)
    } else {
        let mut body = definitions;
        body.push(holds);
        let bound: Vec<&dyn Ast> = free
            .iter()
            .map(|c| &c.var as &dyn Ast)
            .chain(s.fresh_bits.iter().map(|b| b as &dyn Ast))
            .collect();
        (exists_const(&bound, &[], &Bool::and(&body)), Vec::new())
    }
}

/// `holds` for some value of `var` among `values`: the disjunction of its cases, each
/// simplified with the value in place.
fn for_some_value(holds: &Bool, var: &BV, values: impl IntoIterator<Item = BV>) -> Bool {
    let cases: Vec<Bool> = values
        .into_iter()
        .map(|value| holds.substitute(&[(var, &value)]).simplify())
        .collect();
    Bool::or(&cases)
}

impl<'s> Query<'s> {
    /// The rule as one query per part of its output, when that is the same question: the
    /// source is one function (one alternative, one step) whose output parts depend on no
    /// common intermediate choice ([`crate::lanes::independent`]: an LLVM IR vector's lanes).
    ///
    /// Why it is sound: the source allows an output when some choice `c` makes every part's
    /// formula hold, `∃c. S₀(out₀, c) ∧ S₁(out₁, c)`. With the choices split into disjoint
    /// `c₀` (all that part 0 reads) and `c₁`, that is `(∃c₀. S₀) ∧ (∃c₁. S₁)`, so "every
    /// target output is allowed" is the conjunction over the parts of "every target output's
    /// part j is allowed by part j". Query j keeps the whole target (its other parts are then
    /// unconstrained bits of `out`) and the source's part j alone, with only its choices under
    /// `exists`: proved when every part is; a counterexample of one part is one of the whole
    /// (no choice allows that part, so none allows the output), which [`Query::confirm`] on
    /// the whole rule re-runs. `None` when the split does not apply.
    pub fn lanes(&self) -> Option<Vec<Query<'s>>> {
        let [steps] = self.source.as_slice() else {
            return None;
        };
        let [step] = steps.as_slice() else {
            return None;
        };
        let Code::Function(f) = &step.code else {
            return None;
        };
        if !crate::lanes::independent(f) {
            return None;
        }
        Some(
            (0..f.dests[0].parts.len())
                .map(|j| Query {
                    vars: self.vars.clone(),
                    output: self.output,
                    source: vec![vec![Step {
                        code: Code::Function(Arc::new(crate::lanes::project(f, j))),
                        ..step.clone()
                    }]],
                    target: self.target.clone(),
                    pre: self.pre.clone(),
                })
                .collect(),
        )
    }

    /// The input variables in order.
    pub fn inputs(&self) -> Vec<usize> {
        (0..self.vars.len())
            .filter(|&i| self.vars[i].input)
            .collect()
    }

    /// A counterexample's inputs as shown, `(name, type, bits)`: each input variable, then the
    /// upper bits of each register holding a narrower one (`a.hi`): what a caller left above
    /// a `half` in a `.b32` parameter or a 16-bit value in a SASS register.
    pub fn shown_inputs(&self, values: &HashMap<String, u64>) -> Vec<(String, String, u64)> {
        let value = |name: String| values.get(&name).copied().unwrap_or(0);
        let vars = self.inputs().into_iter().map(|i| {
            let v = &self.vars[i];
            (
                v.name.clone(),
                v.ty.clone(),
                value(format!("in_{}", v.name)),
            )
        });
        let highs = self.widened().into_iter().map(|(i, width)| {
            let v = &self.vars[i];
            (
                format!("{}.hi", v.name),
                format!("b{}", width - v.width),
                value(format!("in_{}_hi", v.name)),
            )
        });
        vars.chain(highs).collect()
    }

    /// The Z3 constant of variable `i` (inputs and the output).
    fn var_const(&self, i: usize) -> BV {
        BV::new_const(format!("in_{}", self.vars[i].name), self.vars[i].width)
    }

    /// The upper bits of a register of `width` bits holding narrower variable `v`.
    fn high_const(&self, v: usize, width: u32) -> BV {
        BV::new_const(
            format!("in_{}_hi", self.vars[v].name),
            width - self.vars[v].width,
        )
    }

    /// Every `(variable, register width)` some SASS instruction reads a narrower variable as.
    fn widened(&self) -> Vec<(usize, u32)> {
        let mut all: Vec<(usize, u32)> = self
            .source
            .iter()
            .chain(&self.target)
            .flatten()
            .flat_map(|s| &s.args)
            .filter_map(|a| match a {
                Arg::Low(v, w) => Some((*v, *w)),
                _ => None,
            })
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The output's constant.
    pub fn output_const(&self) -> BV {
        BV::new_const("out", self.vars[self.output].width)
    }

    /// One alternative of a side as a formula over the inputs and `out`. Its instructions
    /// share one encoding context, so values pass between them with their FP terms.
    fn side(
        &self,
        steps: &[Step<'s>],
        prefix: &str,
        (nan, to_bits): (NanBits, ToBits),
        out: &BV,
    ) -> SideTerm {
        let ctx = Ctx::new(prefix, nan, to_bits);
        let mut env: HashMap<usize, Val> = self
            .inputs()
            .into_iter()
            .map(|i| (i, Val::bits_term(self.var_const(i))))
            .collect();
        let mut holds = Vec::new();
        let mut choices = Vec::new();
        let mut named = Vec::new();
        // Where every function with loops ran within its unrolling bound.
        let mut bounded = Vec::new();
        for (k, step) in steps.iter().enumerate() {
            let last = k + 1 == steps.len();
            let blind = payload_blind(steps, k);
            let inputs: Vec<Val> = step
                .args
                .iter()
                .zip(&step.code.program().input_widths)
                .map(|(a, w)| match a {
                    Arg::Var(v) => env[v].clone(),
                    Arg::Const(c) => Val::konst(*c, *w),
                    Arg::Low(v, w) => {
                        Val::concat(&Val::bits_term(self.high_const(*v, *w)), &env[v])
                    }
                })
                .collect();
            let e = encode_vals(step.code.program(), &format!("{prefix}s{k}_"), &ctx, inputs);
            // A function read with loops unrolled says where its result is the function's: its
            // last destination, `bounded` (semfuzz_llir::BOUNDED, semfuzz_ptx::BOUNDED).
            let dests = &step.code.program().dests;
            if let (Code::Function(_), [_, .., last], Some(p)) =
                (&step.code, dests.as_slice(), e.parts.last())
            {
                if last.name == semfuzz_llir::BOUNDED {
                    bounded.push(p.term.bits(&ctx).eq(BV::from_u64(1, 1)));
                }
            }
            // A function's own intermediate choices: free in the target, chosen by the source.
            for c in &e.choices {
                holds.push(c.allowed.clone());
                choices.push(c.clone());
            }
            let d = &step.code.program().dests[0];
            let mut pieces: Vec<Val> = Vec::new();
            for (j, (p, part)) in e.parts.iter().zip(&d.parts).enumerate() {
                if last {
                    // A 16-bit output written by a 32-bit register: only its low bits count.
                    // A part past the output is not compared; one that straddles its end is
                    // compared on the bits inside, its bits beyond being a choice of the side
                    // (any bits the part's outcome allows with those low bits).
                    let width = out.get_size();
                    if part.lo >= width {
                        continue;
                    }
                    let bits = if part.lo + part.width > width {
                        let beyond = BV::new_const(
                            format!("{prefix}s{k}_{j}_beyond"),
                            part.lo + part.width - width,
                        );
                        choices.push(Choice {
                            var: beyond.clone(),
                            allowed: Bool::from_bool(true),
                            witness: None,
                            nan: false,
                        });
                        beyond.concat(out.extract(width - 1, part.lo))
                    } else {
                        out.extract(part.lo + part.width - 1, part.lo)
                    };
                    holds.push(p.allowed.substitute(&[(&p.result, &bits)]));
                } else {
                    // A NaN whose payload no later instruction can see is any fixed NaN.
                    let mut term = p.term.clone();
                    for c in &p.choices {
                        match (&c.witness, blind && c.nan) {
                            (Some(w), true) => term = term.pin(&c.var, w),
                            _ => {
                                holds.push(c.allowed.clone());
                                choices.push(c.clone());
                            }
                        }
                    }
                    // The bits of an intermediate part are for reports of Z3's model only:
                    // made for `Native` (free there), never for the portable text.
                    if to_bits == ToBits::Native {
                        named.push((format!("{prefix}s{k}_{j}"), term.bits(&ctx)));
                    }
                    pieces.push(term);
                }
            }
            if !last {
                let value = pieces
                    .into_iter()
                    .reduce(|lo, hi| Val::concat(&hi, &lo))
                    .expect("a destination has parts");
                let w = self.vars[step.dest].width;
                env.insert(
                    step.dest,
                    if value.width() > w {
                        value.extract(0, w, &ctx)
                    } else {
                        value
                    },
                );
            }
        }
        // The target's definitions hold where its formula does (a positive context); the
        // source's are kept apart, to be stated outside its negation or quantified.
        let mut definitions = ctx.definitions();
        if nan == NanBits::Free {
            holds.append(&mut definitions);
        }
        // Inputs on which a side's loops run past the bound are outside the query on both
        // sides: the target (the side whose NaNs are free) produces nothing there, the source
        // allows everything (docs/llc-validation.md, "Loops").
        let within = bounded.clone();
        let holds = if bounded.is_empty() {
            Bool::and(&holds)
        } else if nan == NanBits::Free {
            holds.extend(bounded);
            Bool::and(&holds)
        } else {
            Bool::or(&[Bool::and(&bounded).not(), Bool::and(&holds)])
        };
        SideTerm {
            holds,
            definitions,
            fresh_bits: ctx.fresh(),
            choices,
            parts: named,
            bounded: within,
        }
    }

    /// Poses the rule. The negated refinement is satisfiable exactly when some input
    /// (satisfying `pre`) lets the target produce an output no choice of the source produces.
    /// `to_bits` says how floating-point results become bits: `Native` for Z3 in process,
    /// `Fresh` for the SMT-LIB2 text other solvers read. A fresh bit-vector of the source is a
    /// function of the inputs and the source's choices: quantified with those choices where
    /// the source has any, else defined outside the negation (where its definition is the
    /// same statement, and the query stays quantifier-free).
    pub fn build(&self, to_bits: ToBits) -> Posed {
        let out = self.output_const();
        let mut common = Vec::new();
        let mut shown: Vec<(String, BV)> = self
            .inputs()
            .into_iter()
            .map(|i| (format!("in_{}", self.vars[i].name), self.var_const(i)))
            .collect();
        shown.push(("out".into(), out.clone()));
        for (v, w) in self.widened() {
            shown.push((
                format!("in_{}_hi", self.vars[v].name),
                self.high_const(v, w),
            ));
        }
        if let Some(pre) = &self.pre {
            let ins = self
                .inputs()
                .into_iter()
                .map(|i| Val::bits_term(self.var_const(i)))
                .collect();
            let ctx = Ctx::new("pre_", NanBits::Pinned, to_bits);
            let e = encode_vals(pre, "pre_", &ctx, ins);
            let p = &e.parts[0];
            common.push(p.allowed.substitute(&[(&p.result, &BV::from_u64(1, 1))]));
            common.extend(ctx.definitions());
        }
        // What every model of the query satisfies: each side ran within its loops' bound (the
        // target's where it is the only alternative, the source's where it chooses nothing, so
        // that the terms mention only what is free in the query).
        let mut within = Vec::new();
        let mut target_nans = Vec::new();
        let target: Vec<Bool> = self
            .target
            .iter()
            .enumerate()
            .map(|(a, steps)| {
                let t = self.side(steps, &format!("tgt{a}_"), (NanBits::Free, to_bits), &out);
                target_nans.extend(
                    t.choices
                        .iter()
                        .filter(|c| c.nan)
                        .map(|c| (c.var.to_string(), c.var.clone())),
                );
                shown.extend(t.parts);
                if self.target.len() == 1 {
                    within.extend(t.bounded);
                }
                t.holds
            })
            .collect();
        common.push(Bool::or(&target));
        let sides: Vec<SideTerm> = self
            .source
            .iter()
            .enumerate()
            .map(|(a, steps)| {
                self.side(steps, &format!("src{a}_"), (NanBits::Pinned, to_bits), &out)
            })
            .collect();
        let has_choices = sides.iter().any(|s| !s.choices.is_empty());
        let full = negated(&common, &sides, None);
        let pinned = has_choices.then(|| negated(&common, &sides, Some(&[])));
        let source: Vec<Bool> = sides
            .iter()
            .flat_map(|s| s.definitions.iter().chain([&s.holds]).cloned())
            .collect();
        within.extend(
            sides
                .iter()
                .filter(|s| s.choices.is_empty())
                .flat_map(|s| s.bounded.iter().cloned()),
        );
        let nan_choices = sides
            .iter()
            .flat_map(|s| &s.choices)
            .filter(|c| c.nan && c.witness.is_some())
            .map(|c| (c.var.to_string(), c.var.clone()))
            .collect();
        Posed {
            full,
            pinned,
            nan_choices,
            target_nans,
            common,
            sides: (to_bits == ToBits::Native).then_some(crate::shared_work::Sides {
                target,
                source,
                within,
            }),
            source_allows: Bool::or(
                &sides
                    .iter()
                    .map(|s| {
                        let mut terms = s.definitions.clone();
                        terms.push(s.holds.clone());
                        Bool::and(&terms)
                    })
                    .collect::<Vec<_>>(),
            ),
            shown,
            alternatives: sides,
        }
    }

    /// Whether a source function computes an approximation whose bound the formulas leave
    /// free ([`crate::reach::leaves_a_bound_free`]).
    pub fn source_leaves_a_bound_free(&self) -> bool {
        self.source.iter().flatten().any(|step| match &step.code {
            Code::Function(f) => crate::reach::leaves_a_bound_free(f),
            _ => false,
        })
    }

    /// Re-runs a counterexample concretely with the evaluator: the target must be able to
    /// produce `out` (following the solver's choices where it made them), and no choice of
    /// the source may. `values` maps constant names to bits.
    pub fn confirm(&self, values: &HashMap<String, u64>) -> Confirmation {
        self.confirm_within(values, usize::MAX, Some(FUNCTION_REACH_MS))
            .expect("an unlimited run completes")
    }

    /// [`Query::confirm`] enumerating at most `limit` states of a side's intermediate
    /// choices at a step; `None` past it (a NaN choice per step doubles them). A function
    /// side's choices the evaluator leaves open are searched by Z3 for `reach_ms`, or with
    /// `None` left undecided (the sample search: Z3 bit-blasting a 64-bit division does not
    /// stop at its timeout, measured: minutes past a 10 s one on fast-math.ll's f64 `sqrt`).
    fn confirm_within(
        &self,
        values: &HashMap<String, u64>,
        limit: usize,
        reach_ms: Option<u32>,
    ) -> Option<Confirmation> {
        let inputs: HashMap<usize, u64> = self
            .inputs()
            .into_iter()
            .map(|i| {
                (
                    i,
                    values
                        .get(&format!("in_{}", self.vars[i].name))
                        .copied()
                        .unwrap_or(0),
                )
            })
            .collect();
        let out = values.get("out").copied().unwrap_or(0);
        let high: HashMap<usize, u64> = self
            .widened()
            .into_iter()
            .map(|(v, _)| {
                (
                    v,
                    values
                        .get(&format!("in_{}_hi", self.vars[v].name))
                        .copied()
                        .unwrap_or(0),
                )
            })
            .collect();
        let inputs = Concrete {
            values: inputs,
            high,
            widths: self.vars.iter().map(|v| v.width).collect(),
        };
        let width = self.vars[self.output].width;
        let mut target_ok = false;
        let mut target_undecided = false;
        for (a, steps) in self.target.iter().enumerate() {
            if let [step] = steps.as_slice() {
                if let Code::Function(f) = &step.code {
                    // Past its loops' bound the target is outside the query: it produces
                    // nothing there.
                    if !out_of_bound(step, &inputs) {
                        match function_allows(step, f, &inputs, out, width, reach_ms) {
                            Some(produces) => target_ok |= produces,
                            None => target_undecided = true,
                        }
                    }
                    continue;
                }
            }
            let pick = |k, j| values.get(&format!("tgt{a}_s{k}_{j}")).copied();
            target_ok |= run_concrete(steps, &inputs, &pick, limit)?
                .iter()
                .any(|finals| accepts_all(steps, finals, out, width));
        }
        let mut source_parts = Vec::new();
        let mut source_allows = false;
        for steps in &self.source {
            for finals in run_concrete(steps, &inputs, &|_, _| None, limit)? {
                if source_parts.is_empty() {
                    source_parts = finals.clone();
                }
                source_allows |= match steps.as_slice() {
                    // Undecided counts as allowed: a counterexample stays unconfirmed.
                    [step @ Step {
                        code: Code::Function(f),
                        ..
                    }] => function_allows(step, f, &inputs, out, width, reach_ms) != Some(false),
                    _ => accepts_all(steps, &finals, out, width),
                };
            }
        }
        let last = self.source[0].last().expect("non-empty");
        // A function's intermediate choices (a NaN, a value within a bound) are evaluated at
        // one pick each: what it allows then is one of the sets its picks lead to.
        let picks = |steps: &[Step]| match steps {
            [step @ Step {
                code: Code::Function(f),
                ..
            }] => {
                let ins: Vec<u64> = step
                    .args
                    .iter()
                    .map(|a| inputs.arg(&inputs.values, a))
                    .collect();
                let mut ev = Evaluator::new(f);
                let mut acc = vec![Accept::default(); ev.n_parts()];
                ev.eval(&ins, &mut acc);
                ev.met_open_choice()
            }
            _ => false,
        };
        let source_picked = picks(&self.source[0]);
        // Likewise the target: a result that follows a pick (an unspecified NaN, rcp.approx's
        // value) read by a later instruction is one the ISA allows, not one a GPU must compute.
        let target_picked = self.target.iter().any(|steps| picks(steps));
        let d = &last.code.program().dests[0];
        let parts = d
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| PartReport {
                name: d.part_name(i),
                kind: p.kind,
                source: source_parts.get(i).copied().unwrap_or_default(),
                target: (out >> p.lo) & mask(p.width),
            })
            .collect();
        Some(Confirmation {
            target_produces: target_ok,
            source_allows,
            source_picked,
            target_picked,
            target_undecided: target_undecided && !target_ok,
            parts,
        })
    }
}

/// How many input tuples [`Query::falsify`] runs before the solver is asked.
pub const FALSIFY_TRIES: usize = 512;

/// The most states of intermediate choices [`Query::falsify`] enumerates at a step; an input
/// tuple needing more (NaNs through many sign operations) is left to the solver.
const FALSIFY_STATES: usize = 256;

/// Special encodings of the format a rule variable's type names (both halves of a packed
/// pair alike), to mix with random bits; none for other types.
fn special_inputs(ty: &str, width: u32) -> Vec<u64> {
    use semfuzz_fp::Format;
    let f = if ty.contains("bf16") {
        Format::BF16
    } else if ty.contains("f16") {
        Format::F16
    } else if ty.contains("f32") {
        Format::F32
    } else if ty.contains("f64") {
        Format::F64
    } else {
        return Vec::new();
    };
    let mut one = Vec::new();
    for neg in [false, true] {
        one.extend([
            f.zero(neg),
            f.one(neg),
            f.inf(neg),
            f.max_finite(neg),
            f.min_normal(neg),
            f.min_subnormal(neg),
        ]);
    }
    one.push(f.default_nan());
    one.iter()
        .map(|&v| {
            let mut bits = 0;
            let mut lo = 0;
            while lo < width {
                bits |= v << lo;
                lo += f.width();
            }
            bits & mask(width)
        })
        .collect()
}

impl Query<'_> {
    /// Looks for a counterexample without a solver: both sides run by the evaluator on
    /// inputs built for a double rounding, then special values and seeded random bits
    /// (`tries` tuples, deterministic), the target's
    /// representative output checked with [`Query::confirm`]. A wrong rewrite of a long
    /// program usually differs on most inputs, where a solver must search through every
    /// circuit of both sides. The values are named as a solver's model names them.
    pub fn falsify(&self, tries: usize) -> Option<HashMap<String, u64>> {
        let inputs = self.inputs();
        let widened = self.widened();
        let width = self.vars[self.output].width;
        let specials: Vec<Vec<u64>> = inputs
            .iter()
            .map(|&i| special_inputs(&self.vars[i].ty, self.vars[i].width))
            .collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            // xorshift64*: a fixed sequence, so the same rule gives the same counterexample.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        let last = |steps: &[Step]| {
            steps.last().expect("non-empty").code.program().dests[0]
                .parts
                .clone()
        };
        // Inputs built for a double rounding come first (`witness::midpoint_inputs` of each
        // function a target runs, its inputs mapped to the rule's variables; the others 0),
        // then the samples.
        let built: Vec<HashMap<usize, u64>> = self
            .target
            .iter()
            .flatten()
            .filter_map(|step| match &step.code {
                Code::Function(p) => Some((step, p)),
                Code::Variant(_) => None,
            })
            .flat_map(|(step, p)| {
                crate::witness::midpoint_inputs(p)
                    .into_iter()
                    .filter_map(move |tuple| {
                        tuple
                            .iter()
                            .map(|&(n, v)| match step.args.get(usize::from(n)) {
                                Some(Arg::Var(i)) => Some((*i, v)),
                                _ => None,
                            })
                            .collect()
                    })
            })
            .collect();
        for t in 0..built.len() + tries {
            let mut values: HashMap<String, u64> = HashMap::new();
            let mut concrete = Concrete {
                values: HashMap::new(),
                high: HashMap::new(),
                widths: self.vars.iter().map(|v| v.width).collect(),
            };
            for (k, &i) in inputs.iter().enumerate() {
                let v = match built.get(t) {
                    Some(tuple) => tuple.get(&i).copied().unwrap_or(0),
                    None => {
                        let r = next();
                        if !specials[k].is_empty() && r & 1 == 0 {
                            specials[k][(r >> 1) as usize % specials[k].len()]
                        } else {
                            (r >> 1) & mask(self.vars[i].width)
                        }
                    }
                };
                concrete.values.insert(i, v);
                values.insert(format!("in_{}", self.vars[i].name), v);
            }
            for &(v, w) in &widened {
                let h = if t < built.len() {
                    0
                } else {
                    next() & mask(w - self.vars[v].width)
                };
                concrete.high.insert(v, h);
                values.insert(format!("in_{}_hi", self.vars[v].name), h);
            }
            if let Some(pre) = &self.pre {
                let ins: Vec<u64> = inputs.iter().map(|i| concrete.values[i]).collect();
                let mut ev = Evaluator::new(pre);
                let mut acc = vec![Accept::default(); ev.n_parts()];
                ev.eval(&ins, &mut acc);
                if !acc[0].accepts(1) {
                    continue;
                }
            }
            for steps in &self.target {
                let Some(runs) = run_concrete(steps, &concrete, &|_, _| None, FALSIFY_STATES)
                else {
                    continue;
                };
                for mut finals in runs {
                    let parts = last(steps);
                    finals.truncate(parts.len());
                    let place = |out: u64, k: usize, v: u64| {
                        let p = &parts[k];
                        if p.lo < width {
                            out & !(mask(p.width) << p.lo) | (v & mask(p.width)) << p.lo
                        } else {
                            out
                        }
                    };
                    let base = finals
                        .iter()
                        .enumerate()
                        .fold(0, |out, (k, a)| place(out, k, a.representative()));
                    // The representatives first, then each part's other probes with the rest
                    // kept: a target whose set is wider than the source's (an approximation
                    // against an exact result) may have its representative inside.
                    let outs = std::iter::once(base).chain(finals.iter().enumerate().flat_map(
                        |(k, a)| {
                            a.probes()
                                .into_iter()
                                .skip(1)
                                .map(move |v| place(base, k, v))
                        },
                    ));
                    for out in outs {
                        let mut candidate = values.clone();
                        candidate.insert("out".into(), out & mask(width));
                        let confirmed = self.confirm_within(&candidate, FALSIFY_STATES, None);
                        if confirmed.is_some_and(|c| c.confirmed()) {
                            return Some(candidate);
                        }
                    }
                }
            }
        }
        None
    }
}

/// Whether every instruction after step `k` that reads its destination (until it is written
/// again) reads it only as floating-point numbers ([`payload_blind_inputs`]).
fn payload_blind(steps: &[Step], k: usize) -> bool {
    let dest = steps[k].dest;
    for s in &steps[k + 1..] {
        let blind = payload_blind_inputs(s.code.program());
        for (i, a) in s.args.iter().enumerate() {
            match a {
                Arg::Var(v) if *v == dest && !blind[i] => return false,
                Arg::Low(v, _) if *v == dest => return false,
                _ => {}
            }
        }
        if s.dest == dest {
            break;
        }
    }
    true
}

/// How long [`function_allows`] lets Z3 search a function's intermediate choices.
const FUNCTION_REACH_MS: u32 = 10_000;

/// Whether a side that is one PTX function can leave `out` on the inputs
/// ([`crate::reach::allows`], with Z3 for `reach_ms` or not at all; `None`: undecided).
fn function_allows(
    step: &Step,
    f: &Program,
    c: &Concrete,
    out: u64,
    width: u32,
    reach_ms: Option<u32>,
) -> Option<bool> {
    let ins: Vec<u64> = step.args.iter().map(|a| c.arg(&c.values, a)).collect();
    if f.dests[0].width <= width {
        return crate::reach::allows(f, &ins, out, reach_ms);
    }
    // A result returned in a wider return parameter (an `i1` in a `.b32`) is compared on its
    // low `width` bits: those decide, and an open choice that they do not is left undecided.
    let mut ev = Evaluator::new(f);
    let mut acc = vec![Accept::default(); ev.n_parts()];
    ev.eval(&ins, &mut acc);
    if accepts_all(std::slice::from_ref(step), &acc, out, width) {
        Some(true)
    } else if ev.met_open_choice() {
        None
    } else {
        Some(false)
    }
}

/// Whether the last step's accept sets take `out` part by part.
fn accepts_all(steps: &[Step], finals: &[Accept], out: u64, width: u32) -> bool {
    let d = &steps.last().expect("non-empty").code.program().dests[0];
    d.parts.iter().zip(finals).all(|(p, a)| {
        if p.lo >= width {
            true
        } else if p.lo + p.width > width {
            a.accepts_low(out >> p.lo, width - p.lo)
        } else {
            a.accepts((out >> p.lo) & mask(p.width))
        }
    })
}

/// Concrete values of a counterexample.
struct Concrete {
    /// Each input variable's bits.
    values: HashMap<usize, u64>,
    /// The upper bits of registers holding narrower variables.
    high: HashMap<usize, u64>,
    /// Every variable's width.
    widths: Vec<u32>,
}

impl Concrete {
    /// The bits `arg` gives an instruction in state `env`.
    fn arg(&self, env: &HashMap<usize, u64>, a: &Arg) -> u64 {
        match a {
            Arg::Var(v) => env.get(v).copied().unwrap_or(0),
            Arg::Const(c) => *c,
            Arg::Low(v, _) => {
                let low = env.get(v).copied().unwrap_or(0) & mask(self.widths[*v]);
                self.high.get(v).copied().unwrap_or(0) << self.widths[*v] | low
            }
        }
    }
}

/// Every final accept-set vector a side can reach: intermediate parts with a choice try the
/// value `pick(step, part)` if given and accepted, else a few members of the set (every
/// listed value, the interval's ends and representative, two NaNs); `None` when a step would
/// leave more than `limit` states.
fn run_concrete(
    steps: &[Step],
    inputs: &Concrete,
    pick: &dyn Fn(usize, usize) -> Option<u64>,
    limit: usize,
) -> Option<Vec<Vec<Accept>>> {
    let mut states: Vec<HashMap<usize, u64>> = vec![inputs.values.clone()];
    let last = steps.len() - 1;
    for (k, step) in steps[..last].iter().enumerate() {
        let parts = &step.code.program().dests[0].parts;
        let mut next = Vec::new();
        for (env, acc) in states.iter().zip(accepts(step, &states, inputs)) {
            let mut values: Vec<u64> = vec![0];
            for (j, (p, a)) in parts.iter().zip(&acc).enumerate() {
                let mut cands: Vec<u64> = match pick(k, j).filter(|v| a.accepts(*v)) {
                    Some(v) => vec![v],
                    None => members(a),
                };
                cands.dedup();
                values = values
                    .iter()
                    .flat_map(|v| cands.iter().map(move |c| v | (c << p.lo)))
                    .collect();
            }
            for v in values.into_iter().take(64) {
                let mut e = env.clone();
                e.insert(step.dest, v & mask(inputs.widths[step.dest]));
                next.push(e);
            }
        }
        if next.len() > limit {
            return None;
        }
        states = next;
    }
    Some(accepts(&steps[last], &states, inputs))
}

/// A step's accept sets in every state: its first destination's parts. Where a function with
/// loops ran past its bound, anything (the source allows everything there; a target's
/// run is refused before, by [`out_of_bound`]).
fn accepts(step: &Step, states: &[HashMap<usize, u64>], c: &Concrete) -> Vec<Vec<Accept>> {
    let program = step.code.program();
    let mut ev = Evaluator::new(program);
    let parts = &program.dests[0].parts;
    states
        .iter()
        .map(|env| {
            let ins: Vec<u64> = step.args.iter().map(|a| c.arg(env, a)).collect();
            let mut acc = vec![Accept::default(); ev.n_parts()];
            ev.eval(&ins, &mut acc);
            let cut = bounded_part(step).is_some_and(|k| acc[k] == Accept::Exact(0));
            acc.truncate(parts.len());
            if cut {
                acc = parts.iter().map(|p| Accept::Ub(p.width)).collect();
            }
            acc
        })
        .collect()
}

/// The index among all its parts of a function step's `bounded` part, where it has one (a
/// function read with loops unrolled).
fn bounded_part(step: &Step) -> Option<usize> {
    let Code::Function(f) = &step.code else {
        return None;
    };
    match f.dests.as_slice() {
        [_, .., last] if last.name == semfuzz_llir::BOUNDED => {
            Some(f.dests.iter().map(|d| d.parts.len()).sum::<usize>() - 1)
        }
        _ => None,
    }
}

/// Whether a function step ran one of its loops past the bound on the inputs `c` gives it.
fn out_of_bound(step: &Step, c: &Concrete) -> bool {
    let Some(k) = bounded_part(step) else {
        return false;
    };
    let mut ev = Evaluator::new(step.code.program());
    let ins: Vec<u64> = step.args.iter().map(|a| c.arg(&c.values, a)).collect();
    let mut acc = vec![Accept::default(); ev.n_parts()];
    ev.eval(&ins, &mut acc);
    acc[k] == Accept::Exact(0)
}

/// A few members of an accept set, for enumerating the source's intermediate choices.
fn members(a: &Accept) -> Vec<u64> {
    match *a {
        Accept::Exact(_) | Accept::OneOf { .. } => a.values().to_vec(),
        Accept::AnyNan(f) => vec![f.default_nan(), f.default_nan() | (1 << (f.width() - 1))],
        Accept::Within { lo, hi, rep, .. } => vec![lo, rep, hi],
        Accept::Any(_) | Accept::Poison(_) | Accept::Ub(_) => vec![a.representative()],
    }
}

/// What the evaluator says of a counterexample.
#[derive(Clone, Debug)]
pub struct Confirmation {
    /// The target can produce the output.
    pub target_produces: bool,
    /// Some enumerated choice of the source allows it (then the counterexample is wrong).
    pub source_allows: bool,
    /// The source is a function that made intermediate choices with more than one member on
    /// these inputs: `parts` describe what it allows at one pick of each, and other picks
    /// allow other sets (none of which, by the solver and `source_allows`, holds the output).
    pub source_picked: bool,
    /// The target is a function whose result on these inputs follows a choice the ISA leaves
    /// open (an approximation's value within its bound) that a later instruction reads: the
    /// output is one the ISA allows the target, and a GPU may compute another.
    pub target_picked: bool,
    /// Whether the target can produce the output is undecided: it follows an approximation
    /// whose bound the formulas leave free (`rsqrt.approx`), and the solver's pick may lie
    /// outside the ISA's bound (`target_produces` is then false).
    pub target_undecided: bool,
    /// Per part of the output: what the source allows (its first alternative, representative
    /// intermediate choices) and what the target produced.
    pub parts: Vec<PartReport>,
}

impl Confirmation {
    /// Both runs agree with the solver.
    pub fn confirmed(&self) -> bool {
        self.target_produces && !self.source_allows
    }
}

/// One output part of a counterexample.
#[derive(Clone, Debug)]
pub struct PartReport {
    /// `d`, `d[1]`.
    pub name: String,
    /// How to read it.
    pub kind: PartKind,
    /// The source's accept set.
    pub source: Accept,
    /// The target's bits.
    pub target: u64,
}

/// A rule as queries.
pub struct Posed {
    /// The negated refinement, the source's intermediate choices under `exists`.
    pub full: Vec<Bool>,
    /// The same with every source choice that has a witness pinned to it (no quantifier):
    /// unsatisfiable means proved, since pinning only removes source behaviours. `None` when
    /// the source makes no intermediate choice (then `full` has no quantifier either).
    pub pinned: Option<Vec<Bool>>,
    /// The source's NaN choices that have a default, by name: the pinned query may learn
    /// other values for them ([`Posed::answer`]).
    nan_choices: Vec<(String, BV)>,
    /// The target's NaN choices, by name: a source NaN may follow one.
    target_nans: Vec<(String, BV)>,
    /// What the query says besides the source's alternatives, and those alternatives: to pin
    /// again with learned NaNs.
    common: Vec<Bool>,
    alternatives: Vec<SideTerm>,
    /// "Some choice of the source produces `out`", its choices free: with the inputs and
    /// `out` fixed to a candidate, unsatisfiable confirms the candidate.
    pub source_allows: Bool,
    /// The named values a counterexample reports (inputs `in_x`, `out`, the target's
    /// intermediate parts).
    pub shown: Vec<(String, BV)>,
    /// What the two sides state, for [`crate::shared_work`] to find the work they share;
    /// `None` for the portable text.
    pub sides: Option<crate::shared_work::Sides>,
}

impl Posed {
    /// The names in `shown` that are declared constants (inputs, their upper register bits,
    /// `out`): what another solver's model can give; the target's intermediate parts are terms.
    pub fn declared_names(&self) -> Vec<String> {
        self.shown
            .iter()
            .map(|(n, _)| n.clone())
            .filter(|n| n == "out" || n.starts_with("in_"))
            .collect()
    }

    /// A counterexample with every `shown` value: `values` (inputs and `out`, e.g. from
    /// another solver) with the target's intermediate parts found by Z3 with those fixed
    /// (quick: the formulas fold on constants); `values` as they are if Z3 finds none.
    pub fn complete(&self, values: &HashMap<String, u64>, timeout_ms: u32) -> HashMap<String, u64> {
        if self.shown.iter().all(|(n, _)| values.contains_key(n)) {
            return values.clone();
        }
        let mut fixed = self.full.clone();
        for (name, c) in &self.shown {
            if let Some(v) = values.get(name) {
                fixed.push(c.eq(BV::from_u64(*v, c.get_size())));
            }
        }
        match crate::solve::z3(&fixed, &self.shown, timeout_ms) {
            Answer::Counterexample(all) => all,
            _ => values.clone(),
        }
    }

    /// Whether the query is proved by structure within a quarter of `timeout_ms` (at most
    /// [`STRUCTURAL_MS`]): case by case over its one-bit inputs with all work abstracted
    /// ([`Posed::proved_case_by_case`]), else with the work both sides share abstracted
    /// ([`crate::shared_work::abstract_shared`]).
    fn proved_by_structure(&self, timeout_ms: u32) -> bool {
        let Some(sides) = &self.sides else {
            return false;
        };
        let budget = Duration::from_millis(u64::from((timeout_ms / 4).min(STRUCTURAL_MS)));
        let start = Instant::now();
        let query = self.pinned.as_ref().unwrap_or(&self.full);
        if self.proved_case_by_case(query, budget / 2) {
            return true;
        }
        let left = budget.saturating_sub(start.elapsed());
        let Some(abstracted) = crate::shared_work::abstract_shared(sides, query, left * 2 / 3)
        else {
            return false;
        };
        let left = budget.saturating_sub(start.elapsed()).as_millis();
        left > 0
            && crate::solve::z3(&abstracted, &[], u32::try_from(left).unwrap_or(u32::MAX))
                == Answer::Proved
    }

    /// Whether `query` is unsatisfiable for each value of its one-bit inputs (an `i1`
    /// argument, at most [`SPLIT_INPUTS`] of them), each case simplified with the value in
    /// place and every expensive term abstracted ([`crate::shared_work::abstract_all_work`]),
    /// within `budget`. Fixing a flag settles a `select` that LLVM moved from the values to
    /// their addresses (`fast-math.ll`'s `repeated_div_fast_sel` divides once, the IR twice),
    /// and what is left is the same work on both sides. Sound: the cases cover every input.
    fn proved_case_by_case(&self, query: &[Bool], budget: Duration) -> bool {
        let flags: Vec<Dynamic> = self
            .shown
            .iter()
            .filter(|(n, c)| n.starts_with("in_") && c.get_size() == 1)
            .map(|(_, c)| Dynamic::from_ast(c))
            .collect();
        if flags.len() > SPLIT_INPUTS {
            return false;
        }
        let deadline = Instant::now() + budget;
        let cases = 1u64 << flags.len();
        (0..cases).all(|case| {
            let values: Vec<Dynamic> = (0..flags.len())
                .map(|k| Dynamic::from_ast(&BV::from_u64(case >> k & 1, 1)))
                .collect();
            let pairs: Vec<(&Dynamic, &Dynamic)> = flags.iter().zip(&values).collect();
            let fixed: Vec<Bool> = query
                .iter()
                .map(|f| f.substitute(&pairs).simplify())
                .collect();
            let Some(abstracted) = crate::shared_work::abstract_all_work(&fixed, deadline) else {
                return false;
            };
            let left = deadline
                .saturating_duration_since(Instant::now())
                .as_millis();
            let share = left / u128::from(cases - case);
            share > 0
                && crate::solve::z3(&abstracted, &[], u32::try_from(share).unwrap_or(u32::MAX))
                    == Answer::Proved
        })
    }

    /// Solves: the pinned query first when there is one (proved, or a candidate checked with
    /// the inputs fixed), else or then the full query. A candidate the source allows with
    /// other NaN bits than the pinned ones teaches the pinned query those bits (or the
    /// target's NaN choice that had them), for at most [`LEARNING_ROUNDS`] more tries: a
    /// source rounding to bf16 stores the NaN the target stores, which byte-compared memory
    /// otherwise leaves to a quantifier the solvers time out on (Triton's `exp` of bf16).
    /// An `unknown` says which sub-query gave up and why (`timeout after N ms`, or the
    /// solver's own reason).
    pub fn answer(&self, timeout_ms: u32) -> Answer {
        let solve_within =
            |what: &str, query: &[Bool], shown: &[(String, BV)], ms: u32| match crate::solve::z3(
                query, shown, ms,
            ) {
                Answer::Unknown(why) => Answer::Unknown(format!(
                    "{what}: {}",
                    if why == "timeout" || why == "canceled" {
                        format!("timeout after {timeout_ms} ms")
                    } else {
                        format!("the solver gave up ({why})")
                    }
                )),
                other => other,
            };
        let solve = |what: &str, query: &[Bool], shown: &[(String, BV)]| {
            solve_within(what, query, shown, timeout_ms)
        };
        if self.proved_by_structure(timeout_ms) {
            return Answer::Proved;
        }
        let Some(pinned) = &self.pinned else {
            return solve("the query", &self.full, &self.shown);
        };
        let mut pinned = pinned.clone();
        let mut learned: Vec<(BV, BV)> = Vec::new();
        let mut watched = self.shown.clone();
        watched.extend(self.target_nans.iter().cloned());
        // The pinned query's rounds share one timeout, as the single pinned query had it.
        let deadline = Instant::now() + Duration::from_millis(u64::from(timeout_ms));
        let left = || {
            u32::try_from(
                deadline
                    .saturating_duration_since(Instant::now())
                    .as_millis(),
            )
            .unwrap_or(u32::MAX)
        };
        for _ in 0..=LEARNING_ROUNDS {
            if left() == 0 {
                break;
            }
            let mut values = match solve_within(
                "the query with the source's choices pinned",
                &pinned,
                &watched,
                left(),
            ) {
                Answer::Counterexample(values) => values,
                other => return other,
            };
            let mut fixed = vec![self.source_allows.clone()];
            for (name, c) in &self.shown {
                if name == "out" || name.starts_with("in_") {
                    fixed.push(c.eq(BV::from_u64(values[name], c.get_size())));
                }
            }
            let target_picked: Vec<(&BV, u64)> = self
                .target_nans
                .iter()
                .map(|(name, var)| (var, values[name]))
                .collect();
            values.retain(|name, _| self.shown.iter().any(|(n, _)| n == name));
            match crate::solve::z3(&fixed, &self.nan_choices, timeout_ms) {
                Answer::Proved => return Answer::Counterexample(values),
                // The source allows the candidate with the NaNs it picked there. The bits one
                // of the target's NaN choices took, it may follow that choice everywhere
                // (the source's choice is made after the target's, for all of them); other
                // bits it may pick at every input. The pinned query tries those as well
                // before it gives the question to `exists`.
                Answer::Counterexample(picked) => {
                    let before = learned.len();
                    for (name, var) in &self.nan_choices {
                        let bits = picked[name];
                        let value = target_picked
                            .iter()
                            .find(|(t, b)| t.get_size() == var.get_size() && *b == bits)
                            .map_or_else(
                                || BV::from_u64(bits, var.get_size()),
                                |(t, _)| (*t).clone(),
                            );
                        if !learned.iter().any(|(v, b)| v == var && *b == value) {
                            learned.push((var.clone(), value));
                        }
                    }
                    if learned.len() == before {
                        break;
                    }
                    pinned = negated(&self.common, &self.alternatives, Some(&learned));
                }
                Answer::Unknown(_) => break,
            }
        }
        solve(
            "the query with the source's choices under exists",
            &self.full,
            &self.shown,
        )
    }
}

/// The most time finding the work both sides share and asking the query with it abstracted
/// get before the whole query is asked.
const STRUCTURAL_MS: u32 = 15_000;
/// How many times [`Posed::answer`] pins the source's NaNs again to bits the source picked
/// at a candidate it allowed.
const LEARNING_ROUNDS: usize = 3;
/// How many one-bit inputs [`Posed::proved_case_by_case`] splits on (2^N cases).
const SPLIT_INPUTS: usize = 3;

/// A rule's result: the answer, and for a counterexample the evaluator's re-run.
pub struct Proof<'s> {
    /// The resolved rule.
    pub query: Query<'s>,
    /// The solver's answer.
    pub solved: crate::solve::Solved,
    /// The evaluator's verdict on a counterexample.
    pub confirmation: Option<Confirmation>,
    /// The in-process query's size, when [`crate::solve::Options::explain`] asks.
    pub size: Option<crate::solve::QuerySize>,
}

/// Resolves, poses and (for a counterexample) confirms one rule: lane by lane where
/// [`Query::lanes`] splits it.
pub fn prove<'s>(
    spec: &'s Spec,
    rule: &Rule,
    opts: &crate::solve::Options,
) -> Result<Proof<'s>, Diagnostic> {
    let unroll = opts.unroll.unwrap_or(semfuzz_llir::DEFAULT_UNROLL);
    let query = resolve_unrolled(spec, rule, unroll, &opts.licences, opts.may_alias)?;
    let solved = match query.lanes() {
        Some(lanes) => by_lane(&query, &lanes, &rule.name, opts),
        None => pose(&query, &rule.name, opts),
    };
    let (mut solved, size) = solved.map_err(|e| {
        at(
            &rule.span,
            format!("cannot write the cache or the SMT-LIB2 file: {e}"),
        )
    })?;
    let mut confirmation = match &solved.answer {
        Answer::Counterexample(values) => Some(query.confirm(values)),
        _ => None,
    };
    // A model through the source's free function (an approximation whose bound the formulas
    // do not state) picked the source's value itself, where the source may be any function
    // within the bound: the evaluator finding the output allowed shows it is no witness.
    if confirmation
        .as_ref()
        .is_some_and(|c| c.source_allows && query.source_leaves_a_bound_free())
    {
        solved.answer = Answer::Unknown(
            "the solver's model picks the value of an approximation of the source (rsqrt.approx, \
             ex2.approx) that the formulas leave free, and the source allows the output it \
             found: no witness"
                .into(),
        );
        confirmation = None;
    }
    Ok(Proof {
        query,
        solved,
        confirmation,
        size,
    })
}

/// One query of a rule (the whole rule, or one lane of it) posed on the route `opts` names:
/// the cache first, then the evaluator's sample inputs (the default route), then the solvers.
fn pose(
    query: &Query,
    name: &str,
    opts: &crate::solve::Options,
) -> std::io::Result<(crate::solve::Solved, Option<crate::solve::QuerySize>)> {
    // Each rule gets a fresh Z3 context (the `z3` crate keeps one per thread): solving in a
    // context full of earlier rules' terms changes Z3's internal order and, measured, turned
    // 1 s counterexamples into 60 s timeouts.
    // The exported text is built in a context of its own too: its terms in the solving
    // context slowed Z3 down as much (measured: a 0.1 s counterexample took 17-31 s).
    let exported = std::thread::scope(|s| {
        s.spawn(|| {
            let portable = query.build(ToBits::Fresh);
            (
                crate::solve::smt2_text(&portable.full),
                portable.declared_names(),
            )
        })
        .join()
    });
    std::thread::scope(|s| {
        s.spawn(|| {
            let (text, names) = exported
                .map_err(|_| std::io::Error::other("building the SMT-LIB2 text panicked"))?;
            // A cached answer needs neither the evaluator's samples nor the solver's terms:
            // what makes a cached catalogue run take seconds.
            if let Some(hit) = crate::solve::cached(&text, opts) {
                crate::solve::export(name, &text, opts)?;
                let size = opts
                    .explain
                    .then(|| crate::solve::QuerySize::of(&query.build(ToBits::Native).full));
                return Ok((hit, size));
            }
            let posed = query.build(ToBits::Native);
            let start = std::time::Instant::now();
            // Sample inputs are the default route's first step; `--solver` asks for solvers.
            let sampled = if opts.portfolio.is_empty() {
                query.falsify(FALSIFY_TRIES)
            } else {
                None
            };
            let mut solved = match sampled {
                Some(values) => {
                    crate::solve::export(name, &text, opts)?;
                    crate::solve::Solved {
                        answer: Answer::Counterexample(values),
                        seconds: start.elapsed().as_secs_f64(),
                        cached: false,
                        solver: Some(crate::solve::EVALUATOR.into()),
                    }
                }
                None => crate::solve::solve(name, &text, &names, opts, || {
                    posed.answer(opts.timeout_ms)
                })?,
            };
            if let (Answer::Counterexample(values), false) = (&solved.answer, solved.cached) {
                solved.answer = Answer::Counterexample(posed.complete(values, opts.timeout_ms));
            }
            let size = opts
                .explain
                .then(|| crate::solve::QuerySize::of(&posed.full));
            Ok::<_, std::io::Error>((solved, size))
        })
        .join()
        .unwrap_or_else(|_| {
            Ok((
                crate::solve::Solved {
                    answer: Answer::Unknown("the solver thread panicked".into()),
                    seconds: 0.0,
                    cached: false,
                    solver: None,
                },
                None,
            ))
        })
    })
}

/// The queries of [`Query::lanes`] posed one after the other, and their one verdict: the
/// first counterexample (the later lanes are not posed), else unknown where a lane is (each
/// such lane's reason, named by its part), else proved; the time is the lanes' sum.
fn by_lane(
    query: &Query,
    lanes: &[Query],
    name: &str,
    opts: &crate::solve::Options,
) -> std::io::Result<(crate::solve::Solved, Option<crate::solve::QuerySize>)> {
    let d = &query.source[0][0].code.program().dests[0];
    let (mut seconds, mut cached) = (0.0, true);
    let (mut unknown, mut solvers, mut size) =
        (Vec::new(), Vec::new(), None::<crate::solve::QuerySize>);
    for (j, lane) in lanes.iter().enumerate() {
        let (solved, lane_size) = pose(lane, &format!("{name}.lane{j}"), opts)?;
        seconds += solved.seconds;
        cached &= solved.cached;
        // `--explain` shows the largest lane's query.
        size = match (size, lane_size) {
            (Some(a), Some(b)) => Some(if b.terms > a.terms { b } else { a }),
            (a, b) => a.or(b),
        };
        match solved.answer {
            Answer::Counterexample(_) => {
                return Ok((
                    crate::solve::Solved {
                        seconds,
                        cached,
                        ..solved
                    },
                    size,
                ))
            }
            Answer::Unknown(why) => unknown.push(format!("{}: {why}", d.part_name(j))),
            Answer::Proved => solvers.extend(solved.solver),
        }
    }
    solvers.sort();
    solvers.dedup();
    let (answer, solver) = if unknown.is_empty() {
        (Answer::Proved, Some(solvers.join("+")))
    } else {
        (Answer::Unknown(unknown.join("; ")), None)
    };
    Ok((
        crate::solve::Solved {
            answer,
            seconds,
            cached,
            solver,
        },
        size,
    ))
}
