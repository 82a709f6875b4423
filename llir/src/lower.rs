//! An LLVM IR function as one [`Program`]: every instruction is a catalogue variant, inlined.
//!
//! Each instruction's variant text follows the naming contract (docs/llvm-ir-spec.md): the
//! opcode `ir_op` (an intrinsic `@llvm.a.b.f32` is `llvm_a_b`), the predicate, the flags the
//! opcode's row lists, the function's denormal mode (`out_ps`, `in_ps`, ...) where the row
//! takes it, and the types. The variant's program is inlined through the [`Builder`] as the
//! PTX reader inlines PTX instructions ([`Builder::inline`]): nothing here knows what an
//! instruction means. A vector instruction is its scalar variant once per lane. An
//! `@llvm.nvvm.*` call is the PTX variant NVPTX selects for it ([`crate::nvvm`]), inlined once
//! on the whole values (its packed `.f16x2` forms read a `<2 x half>` as one register). Anything
//! else (a load, an intrinsic or instruction without a spec) is a located error naming it.
//!
//! Control flow is one program too, with no branches: the blocks are run as the instances of
//! an acyclic graph ([`crate::cfg`]: each loop unrolled so that its header runs at most the
//! bound times per entry), each under its path condition, the OR over the edges into it of
//! the predecessor's path AND the branch's condition. Where edges join, a value is the select
//! of the edges' values on their conditions; `phi` the select of its incoming values; the
//! result the select of the `ret`s' values on their paths. Undefined behaviour counts only on
//! the path that reaches it (LangRef; Alive2's `State::addUB` under the path): a `br` or
//! `switch` on poison, a reached `unreachable`. A call of a function the module defines is
//! that function run on the arguments under the call's path. Executions that would run a
//! loop's header more often are cut; where one is, the program's second destination,
//! [`BOUNDED`], is false.
//!
//! Poison is LangRef's, as Alive2 reads it (`ir/state.cpp`: a `StateValue` is a value and its
//! non-poison bit): every value carries, lane by lane, where it is poison ([`StateValue`]). A
//! variant says where its own result is poison or undefined behaviour (its `poison(..)` and
//! `undefined(..)` leaves, [`semfuzz_spec::ir::Inlined`]); the reader adds the operands'
//! poison (an instruction reading poison returns poison), `select`'s (the condition's and the
//! chosen arm's only), `freeze`'s (none: a poisoned argument becomes one arbitrary value) and
//! a division's (a poisoned divisor is undefined behaviour). `undef` is a fresh arbitrary value
//! at each use. Where the returned lane is poison, or the function reaches undefined behaviour,
//! the function's result allows any value: a target refines it there whatever it returns.
//! Arguments are never poison: the PTX a function becomes reads its parameters' bits, and a
//! poisoned argument only allows the source more (LangRef's instructions are monotone in
//! poison), so inputs that are not poison decide every refinement.

use crate::cfg::Cfg;
use crate::licences::Licences;
use crate::syntax::{
    Attr, FloatTy, Function, Instr, Module, Operand, Shape, Statement, Type, Value,
};
use semfuzz_fp::{Format, Round};
use semfuzz_spec::diag::{Diagnostic, Span};
use semfuzz_spec::ir::{mask, Builder, Dest, Op, Outcome, PartKind, Program, Slot, ValueId};
use semfuzz_spec::launch::{self, Launch};
use semfuzz_spec::memory::{self, Memory};
use semfuzz_spec::{Spec, Variant};
use std::collections::HashMap;
use std::rc::Rc;

mod atomics;
mod inline_asm;
mod memory_ops;

/// A function read into one program.
#[derive(Clone, Debug)]
pub struct IrFunction {
    /// Its name, without `@`.
    pub name: String,
    /// Its parameters, in order (each one input).
    pub inputs: Vec<Slot>,
    /// Its one result (the `ret` value).
    pub results: Vec<Slot>,
    /// The program: one input per parameter, one destination.
    pub program: Program,
    /// Where each intermediate choice comes from: the instruction's location and variant.
    pub choice_sites: Vec<String>,
    /// The variant text of each instruction, in order (a vector instruction's once).
    pub variants: Vec<String>,
    /// The bound each loop was unrolled to, where the function (or one it calls) has a loop:
    /// then the program has a second destination, [`BOUNDED`], true where no loop ran its
    /// header more often.
    pub unrolled: Option<u32>,
    /// Whether a licence of the compiler's flags widened some operation's allowed set
    /// ([`Licences`]): then a verdict rests on the licence and says so.
    pub licensed: bool,
    /// Its launch attributes (`"nvvm.reqntid"`, `"nvvm.maxntid"`, or their
    /// `!nvvm.annotations`), which bound the special registers among its inputs.
    pub launch: Launch,
    /// How its pointer parameters' memory is laid out: each block
    /// [`memory::DEFAULT_BLOCK_BYTES`] long, or more where an access at a known offset reaches
    /// past that ([`memory::read_with_blocks`]); under `--may-alias` which of them may
    /// overlap. The PTX it is judged against is read with the same.
    pub layout: memory::Layout,
    /// The pointer parameters whose blocks are one region (`--may-alias` and two or more of
    /// them accessed; [`memory::Base::Region`]), ascending.
    pub overlapping: Vec<u16>,
    /// The function attributes read as fast-math flags on its operations
    /// ([`attribute_flags`]) that some operation took, as written (`"no-nans-fp-math"`): a
    /// verdict rests on that reading and says so.
    pub attributes_read: Vec<String>,
}

/// The largest module variable a function may write that semfuzz reads: every access at a
/// computed offset is a select over its bytes.
const MAX_GLOBAL_BYTES: u32 = 256;

/// The module variables `f` (or a function it calls) names that it may write: each `global`
/// that is not `constant`, in the generic or global address space, by name, with the bytes it
/// holds (docs/ambiguities.md 184). Their contents when the function starts are inputs, as
/// other code may have written them since the module was loaded; their final contents are
/// results.
fn mutable_globals(module: &Module, f: &Function) -> Result<Vec<(String, u32)>, Diagnostic> {
    let mut found = Vec::new();
    for g in crate::minimal(module, f).globals {
        if g.kind != "global" || !matches!(g.addrspace, 0 | 1) {
            continue;
        }
        let bytes = memory_ops::leading_type(&g.definition)
            .and_then(|(t, _)| memory_ops::store_bytes(&t))
            .filter(|n| (1..=MAX_GLOBAL_BYTES).contains(n))
            .ok_or_else(|| {
                unsupported(
                    &g.span,
                    format!("the global variable `@{}` ({})", g.name, g.definition),
                )
                .with_hint(format!(
                    "semfuzz reads a module variable of a sized type of at most {MAX_GLOBAL_BYTES} bytes"
                ))
            })?;
        found.push((g.name, bytes));
    }
    found.sort();
    Ok(found)
}

/// How many times each loop's header may run per entry into the loop (its back edge taken
/// one time fewer), unless the caller says otherwise (`--unroll`).
pub const DEFAULT_UNROLL: u32 = 8;

/// The function `name` of `module` (or its one function), loops unrolled to
/// [`DEFAULT_UNROLL`].
pub fn read_function(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
) -> Result<IrFunction, Diagnostic> {
    read_function_unrolled(spec, module, name, DEFAULT_UNROLL)
}

/// The function `name` of `module` (or its one function), each loop's header run at most
/// `unroll` times per entry into the loop.
pub fn read_function_unrolled(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
    unroll: u32,
) -> Result<IrFunction, Diagnostic> {
    read_function_licensed(spec, module, name, unroll, &Licences::default(), false)
}

/// [`read_function_unrolled`] with each operation a compiler flag licenses allowed the
/// licensed result too (`-nvptx-prec-divf32=0`: [`Licences`]); where `may_alias`, its
/// pointer parameters other than `noalias` ones may overlap ([`memory::Layout::aliasing`]).
pub fn read_function_licensed(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
    unroll: u32,
    licences: &Licences,
    may_alias: bool,
) -> Result<IrFunction, Diagnostic> {
    let f = match name {
        Some(n) => module
            .functions
            .iter()
            .find(|f| f.name == n)
            .ok_or_else(|| {
                let names = module.functions.iter().map(|f| f.name.as_str());
                let hint =
                    semfuzz_spec::pattern::did_you_mean(n, names.clone()).unwrap_or_else(|| {
                        format!(
                            "it defines {}",
                            names
                                .map(|n| format!("`{n}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    });
                Diagnostic::plain(format!("the module defines no function `{n}`")).with_hint(hint)
            })?,
        None => match module.functions.as_slice() {
            [one] => one,
            [] => return Err(Diagnostic::plain("the module defines no function")),
            many => {
                return Err(Diagnostic::plain(format!(
                    "the module defines {} functions",
                    many.len()
                ))
                .with_hint("name one"))
            }
        },
    };
    // A block per pointer parameter some access reaches: an access through a parameter
    // without one stops the read, which starts again with it (at most once per parameter).
    // `dereferenceable(N)` lets LLVM load there without the IR doing so (a load hoisted out
    // of a branch): the blocks hold that much from the start.
    let promised = f
        .params
        .iter()
        .filter_map(|p| p.dereferenceable)
        .max()
        .map_or(0, |n| n.next_multiple_of(8))
        .min(u64::from(memory::MAX_BLOCK_BYTES));
    let first = memory::DEFAULT_BLOCK_BYTES.max(u32::try_from(promised).unwrap_or(0));
    let globals = mutable_globals(module, f)?;
    // A `noalias` parameter's accesses touch no byte another parameter reaches (LangRef
    // 'Parameter Attributes'): its block stays its own under `--may-alias`.
    let aliasing: Vec<u16> = f
        .params
        .iter()
        .enumerate()
        .filter(|(_, p)| may_alias && matches!(p.ty, Type::Ptr(_)) && !p.noalias)
        .map(|(k, _)| k as u16)
        .collect();
    let (read, _) = semfuzz_spec::memory::read_with_blocks(first, true, |blocks, block_bytes| {
        let mut reader = Reader {
            spec,
            module,
            f,
            b: Builder::default(),
            state: State::default(),
            path: None,
            ub: None,
            cut: None,
            unroll,
            licences,
            licensed: false,
            attribute_flags: attribute_flags(module, f, licences),
            attributes_read: Vec::new(),
            first_call_input: 0,
            external_calls: HashMap::new(),
            call_inputs: Vec::new(),
            call_arguments: Vec::new(),
            looped: false,
            calls: Vec::new(),
            choices: Vec::new(),
            choice_sites: Vec::new(),
            variants: Vec::new(),
            memory: Memory::default(),
            globals_read: HashMap::new(),
            wanted: None,
            special_registers: HashMap::new(),
            layout: memory::Layout {
                block_bytes,
                aliasing: aliasing.clone(),
                globals: Some(globals.clone()),
            },
        };
        let read = reader.read(blocks);
        (read, reader.wanted, reader.memory.reach())
    });
    read
}

/// The fast-math flags a function's attributes give each of its operations: `nnan` for
/// `"no-nans-fp-math"="true"`, `ninf` for `"no-infs-fp-math"="true"`, `nsz` for
/// `"no-signed-zeros-fp-math"="true"`, each with the attribute's name. LangRef does not define
/// these attributes; the code generator reads them as options that let it assume what the flag
/// says of every operation (LLVM 22 forms `fma.rn.relu` from `fma`, `fcmp ogt`, `select` under
/// `"no-nans-fp-math"` alone), so the IR is read with them (docs/ambiguities.md 183), and the
/// verdict names the attribute it rested on.
///
/// Where the compiler reads `"unsafe-fp-math"="true"` ([`Licences::unsafe_fp_math_attribute`]),
/// that attribute gives `afn`, `arcp` and `nsz` here, and `contract` through
/// [`UNSAFE_FP_MATH`]'s check in the contraction (docs/ambiguities.md 185).
fn attribute_flags(
    module: &Module,
    f: &Function,
    licences: &Licences,
) -> Vec<(&'static str, &'static str)> {
    const READ: [(&str, &str); 6] = [
        ("no-nans-fp-math", "nnan"),
        ("no-infs-fp-math", "ninf"),
        ("no-signed-zeros-fp-math", "nsz"),
        (UNSAFE_FP_MATH, "afn"),
        (UNSAFE_FP_MATH, "arcp"),
        (UNSAFE_FP_MATH, "nsz"),
    ];
    let attrs = function_attrs(module, f);
    READ.into_iter()
        .filter(|(name, _)| *name != UNSAFE_FP_MATH || licences.unsafe_fp_math_attribute)
        .filter(|(name, _)| {
            attrs
                .iter()
                .any(|a| matches!(a, Attr::Pair(k, v) if k == name && v == "true"))
        })
        .collect()
}

/// The function attribute LLVM 14 to 21 read as leave for every unsafe transformation.
pub const UNSAFE_FP_MATH: &str = "unsafe-fp-math";

/// Whether `i` carries LangRef's `contract` (`fast` includes it).
fn flagged_contract(i: &Instr) -> bool {
    i.flags.iter().any(|f| f == "contract" || f == "fast")
}

/// A function's denormal modes, from `"denormal-fp-math"` and `"denormal-fp-math-f32"` (LLVM
/// 14-22) or from `denormal_fpenv(...)` (trunk, which no longer reads the strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Denormal {
    /// For every type but `float`: (output, input).
    pub other: (Mode, Mode),
    /// For `float`.
    pub f32: (Mode, Mode),
}

/// One denormal mode (LangRef, "denormal-fp-math").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `ieee`.
    Ieee,
    /// `preserve-sign`.
    PreserveSign,
    /// `positive-zero`.
    PositiveZero,
    /// `dynamic`.
    Dynamic,
}

impl Mode {
    /// The string attributes' word (`preserve-sign`).
    fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "ieee" => Mode::Ieee,
            "preserve-sign" => Mode::PreserveSign,
            "positive-zero" => Mode::PositiveZero,
            "dynamic" => Mode::Dynamic,
            _ => return None,
        })
    }

    /// `denormal_fpenv`'s word (`preservesign`): the string attributes' without the hyphen.
    fn parse_fpenv(s: &str) -> Option<Mode> {
        Some(match s {
            "ieee" => Mode::Ieee,
            "preservesign" => Mode::PreserveSign,
            "positivezero" => Mode::PositiveZero,
            "dynamic" => Mode::Dynamic,
            _ => return None,
        })
    }

    /// The string attributes' word for it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Ieee => "ieee",
            Mode::PreserveSign => "preserve-sign",
            Mode::PositiveZero => "positive-zero",
            Mode::Dynamic => "dynamic",
        }
    }

    /// The contract's suffix (`ps`, `pz`); `None` for `ieee`, and for `dynamic`, which the
    /// catalogue does not spell (the reader refuses it before asking).
    fn suffix(self) -> Option<&'static str> {
        match self {
            Mode::Ieee => None,
            Mode::PreserveSign => Some("ps"),
            Mode::PositiveZero => Some("pz"),
            Mode::Dynamic => None,
        }
    }
}

/// `f`'s attributes, those of the groups it names in their place.
fn function_attrs<'m>(module: &'m Module, f: &'m Function) -> Vec<&'m Attr> {
    let mut attrs: Vec<&Attr> = Vec::new();
    for a in &f.attrs {
        match a {
            // A group the module never defines sets nothing: trunk's parser accepts the
            // dangling reference (its NVPTX tests leave some), and so does this reader.
            Attr::Group(n) => {
                attrs.extend(
                    module
                        .groups
                        .iter()
                        .filter(|g| g.id == *n)
                        .flat_map(|g| &g.attrs),
                );
            }
            a => attrs.push(a),
        }
    }
    attrs
}

/// The denormal modes `f`'s attributes (and the groups they name) set, in either spelling; a
/// function that spells them both ways must say the same both ways (LLVM 22 reads only the
/// strings, trunk only `denormal_fpenv`).
pub fn denormal_modes(module: &Module, f: &Function) -> Result<Denormal, Diagnostic> {
    let ieee = Denormal {
        other: (Mode::Ieee, Mode::Ieee),
        f32: (Mode::Ieee, Mode::Ieee),
    };
    let mut d = ieee;
    let mut f32_set = None;
    let mut strings = false;
    let mut fpenv = None;
    for a in function_attrs(module, f) {
        let (k, v) = match a {
            Attr::Pair(k, v) => (k.as_str(), v.as_str()),
            Attr::Word(w) => {
                if let Some(body) = w
                    .strip_prefix("denormal_fpenv")
                    .and_then(|r| r.trim().strip_prefix('('))
                    .and_then(|r| r.strip_suffix(')'))
                {
                    fpenv = Some(parse_fpenv(body, ieee).ok_or_else(|| {
                        Diagnostic::at(&f.span, format!("`{w}` is not a denormal environment"))
                            .with_hint(
                            "LangRef: `denormal_fpenv(MODE)`, `denormal_fpenv(float: MODE)` or \
                                 `denormal_fpenv(MODE, float: MODE)`, each MODE `ieee`, \
                                 `preservesign`, `positivezero` or `dynamic`, optionally \
                                 `OUTPUT|INPUT`",
                        )
                    })?);
                }
                continue;
            }
            Attr::Group(_) => continue,
        };
        if k != "denormal-fp-math" && k != "denormal-fp-math-f32" {
            continue;
        }
        let (o, i) = v.split_once(',').unwrap_or((v, v));
        let (Some(o), Some(i)) = (Mode::parse(o.trim()), Mode::parse(i.trim())) else {
            return Err(Diagnostic::at(
                &f.span,
                format!("`\"{k}\"=\"{v}\"` is not a denormal mode"),
            )
            .with_hint("LangRef: `ieee`, `preserve-sign`, `positive-zero` or `dynamic`, optionally `OUTPUT,INPUT`"));
        };
        strings = true;
        if k == "denormal-fp-math" {
            d.other = (o, i);
        } else {
            f32_set = Some((o, i));
        }
    }
    // LangRef: "denormal-fp-math-f32" overrides "denormal-fp-math" for float, which applies
    // to every type without it.
    d.f32 = f32_set.unwrap_or(d.other);
    match fpenv {
        Some(e) if strings && e != d => Err(Diagnostic::at(
            &f.span,
            format!(
                "`@{}` spells its denormal modes twice, and differently: LLVM 22 would read \
                 the `\"denormal-fp-math\"` strings, trunk only `denormal_fpenv`",
                f.name
            ),
        )
        .with_hint("keep one spelling, or make the two say the same")),
        Some(e) => Ok(e),
        None => Ok(d),
    }
}

/// The modes of `denormal_fpenv(BODY)`: `[DEFAULT][[,] float: F32]`, each `MODE` or
/// `OUTPUT|INPUT`; DEFAULT applies to every type and to float unless `float:` overrides it
/// (what the two string attributes said, respelled).
fn parse_fpenv(body: &str, ieee: Denormal) -> Option<Denormal> {
    let pair = |s: &str| -> Option<(Mode, Mode)> {
        let s = s.trim();
        let (o, i) = s.split_once('|').unwrap_or((s, s));
        Some((Mode::parse_fpenv(o.trim())?, Mode::parse_fpenv(i.trim())?))
    };
    let (default, float) = match body.split_once("float") {
        Some((d, f)) => (
            d.trim().trim_end_matches(',').trim(),
            Some(f.trim().strip_prefix(':')?),
        ),
        None => (body.trim(), None),
    };
    let mut d = ieee;
    if !default.is_empty() {
        d.other = pair(default)?;
        d.f32 = d.other;
    }
    if let Some(f) = float {
        d.f32 = pair(f)?;
    }
    Some(d)
}

/// Whether `callee` is `llvm.convert.to.fp16.*` (`Some(true)`) or `llvm.convert.from.fp16.*`.
fn fp16_conversion(callee: &str) -> Option<bool> {
    if callee.starts_with("llvm.convert.to.fp16.") {
        Some(true)
    } else if callee.starts_with("llvm.convert.from.fp16.") {
        Some(false)
    } else {
        None
    }
}

/// A variable lane index read against a vector's lanes ([`Reader::lane_hits`]).
struct LaneHits {
    /// Per lane, whether the index names it.
    each: Vec<ValueId>,
    /// Where the result is poison.
    poison: Option<ValueId>,
}

struct Reader<'s> {
    spec: &'s Spec,
    module: &'s Module,
    f: &'s Function,
    b: Builder,
    /// The values defined so far on the paths into the current block instance.
    state: State,
    /// The condition under which the current block instance runs (`None`: always).
    path: Option<ValueId>,
    /// Where the function has reached immediate undefined behaviour so far (one bit).
    ub: Option<ValueId>,
    /// Where an execution would run a loop's header more than `unroll` times (one bit).
    cut: Option<ValueId>,
    /// How many times each loop's header may run per entry into the loop.
    unroll: u32,
    /// What the compiler's flags allow beyond the IR's meaning.
    licences: &'s Licences,
    /// Whether one of them widened an operation read so far.
    licensed: bool,
    /// The fast-math flags the function's attributes give every operation
    /// ([`attribute_flags`]), and which of them an operation read so far took.
    attribute_flags: Vec<(&'static str, &'static str)>,
    attributes_read: Vec<&'static str>,
    /// The first input number a call of a function the module only declares may take.
    first_call_input: usize,
    /// How many times each of those functions has been called so far.
    external_calls: HashMap<String, usize>,
    /// Those calls' results, in call order: inputs after every other.
    call_inputs: Vec<Slot>,
    /// Those calls' arguments, in call order: results after the memory's.
    call_arguments: Vec<(String, StateValue, Type, Span)>,
    /// Whether some function run (the one read, or one it calls) has a loop.
    looped: bool,
    /// The functions being run, the one read first (a call inlines its callee).
    calls: Vec<String>,
    choices: Vec<Outcome>,
    choice_sites: Vec<String>,
    variants: Vec<String>,
    /// The blocks pointer parameters point to (`lower/memory.rs`).
    memory: Memory,
    /// The globals whose blocks are declared (the `constant` ones read so far, every one the
    /// function may write): their addresses.
    globals_read: HashMap<String, ValueId>,
    /// The pointer parameter (its input) an access reached that has no block yet.
    wanted: Option<u16>,
    /// The special registers' inputs, where the function reads one.
    special_registers: HashMap<&'static str, ValueId>,
    /// How the pointer parameters' memory is laid out ([`IrFunction::layout`]).
    layout: memory::Layout,
}

/// The integers `!nvvm.annotations` gives `f` under `key`: the entries `!{ptr @f, !"key", i32
/// N}` (several per line, as LLVM writes `!"maxntidx", i32 128, !"maxntidy", i32 1`).
fn annotations(module: &Module, f: &Function, key: &str) -> Vec<u32> {
    let subject = format!("@{},", f.name);
    let tag = format!("!\"{key}\", i32 ");
    module
        .lines
        .iter()
        .filter(|l| l.contains(&subject))
        .filter_map(|l| {
            let rest = &l[l.find(&tag)? + tag.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// `f`'s launch attributes: `"nvvm.reqntid"="128,1,1"` and `"nvvm.maxntid"` (LLVM 20 and
/// later), else the `!nvvm.annotations` entries `reqntidx`/`y`/`z` and `maxntidx`/`y`/`z`.
pub fn launch_of(module: &Module, f: &Function) -> Launch {
    let attr = |key: &str| {
        function_attrs(module, f).into_iter().find_map(|a| match a {
            Attr::Pair(k, v) if k == key => {
                let args: Option<Vec<u32>> = v.split(',').map(|n| n.trim().parse().ok()).collect();
                args.and_then(|a| Launch::shape(&a))
            }
            _ => None,
        })
    };
    let annotated = |prefix: &str| {
        let dims: Vec<Option<u32>> = ["x", "y", "z"]
            .iter()
            .map(|d| {
                annotations(module, f, &format!("{prefix}{d}"))
                    .first()
                    .copied()
            })
            .collect();
        dims.iter().any(Option::is_some).then(|| {
            [
                dims[0].unwrap_or(1),
                dims[1].unwrap_or(1),
                dims[2].unwrap_or(1),
            ]
        })
    };
    Launch {
        reqntid: attr("nvvm.reqntid").or_else(|| annotated("reqntid")),
        maxntid: attr("nvvm.maxntid").or_else(|| annotated("maxntid")),
    }
}

/// Whether `f` calls a `@llvm.nvvm.read.ptx.sreg.*` intrinsic, or a function of the module
/// that does.
fn reads_special_registers(module: &Module, f: &Function) -> bool {
    fn walk<'m>(module: &'m Module, f: &'m Function, seen: &mut Vec<&'m str>) -> bool {
        if seen.contains(&f.name.as_str()) {
            return false;
        }
        seen.push(&f.name);
        f.body.iter().any(|s| match s {
            Statement::Instr(i) => i.callee.as_deref().is_some_and(|c| {
                c.starts_with(SREG_INTRINSIC)
                    || module
                        .functions
                        .iter()
                        .find(|g| g.name == c)
                        .is_some_and(|g| walk(module, g, seen))
            }),
            Statement::Label(..) => false,
        })
    }
    walk(module, f, &mut Vec::new())
}

/// The prefix of the intrinsics that read a special register (`...tid.x` is `%tid.x`).
const SREG_INTRINSIC: &str = "llvm.nvvm.read.ptx.sreg.";

/// The name of the destination a program with loops gets beside its result: where every loop
/// ran its header at most the bound times, so that the program's result is the
/// function's (a refinement query assumes it: `semfuzz_smt::sequence`).
pub const BOUNDED: &str = "bounded";

/// The values an execution has defined: each SSA name's value and type, and the struct
/// values (a `*.with.overflow` call's) field by field, read by `extractvalue`.
#[derive(Clone, Default)]
struct State {
    env: HashMap<String, (StateValue, Type)>,
    aggregates: HashMap<String, Vec<(StateValue, Type)>>,
}

/// An edge into a block instance: where it is taken, the block it leaves, and the state that
/// block left.
type Edge = (Option<ValueId>, usize, Rc<State>);

/// An IR value as the reader holds it: its bits and, lane by lane, where it is poison.
#[derive(Clone, Copy, Debug)]
struct StateValue {
    bits: ValueId,
    /// One bit per lane (bit `l` for lane `l`); `None`: no lane is ever poison.
    poison: Option<ValueId>,
}

impl StateValue {
    fn defined(bits: ValueId) -> StateValue {
        StateValue { bits, poison: None }
    }
}

fn at(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

/// An instruction or IR feature the reader does not model: the message starts with
/// `unsupported`, which `semfuzz validate-llc` reports as such.
fn unsupported(span: &Span, what: impl std::fmt::Display) -> Diagnostic {
    at(span, format!("unsupported {what}"))
}

/// That every execution of `name` runs some loop's header more than `unroll` times: a proof
/// over the executions within the bound would be over none.
fn vacuous(span: &Span, name: &str, unroll: u32) -> Diagnostic {
    unsupported(
        span,
        format!("loop bound: every execution of `@{name}` runs a loop more than {unroll} times"),
    )
    .with_hint("a proof would be vacuous; raise `--unroll` to the loop's trip count")
}

/// A row of the contract: the flags an opcode keeps and whether it takes the output and input
/// denormal modes.
struct Row {
    flags: &'static [&'static str],
    out: bool,
    inp: bool,
}

const FMF3: &[&str] = &["nnan", "ninf", "nsz"];

/// The contract's row for an opcode (`ir_fadd`, `llvm_fma`); `None`: not in the contract.
fn row(op: &str) -> Option<Row> {
    let r = |flags, out, inp| Some(Row { flags, out, inp });
    match op {
        "ir_fadd" | "ir_fsub" | "ir_fmul" | "ir_frem" | "ir_fptrunc" | "ir_fpext" => {
            r(FMF3, true, true)
        }
        "ir_fdiv" => r(&["nnan", "ninf", "nsz", "arcp"], true, true),
        "ir_fneg" | "ir_select" | "llvm_fabs" | "llvm_copysign" => r(FMF3, false, false),
        "ir_fcmp" => r(&["nnan", "ninf"], false, true),
        "ir_fptosi" | "ir_fptoui" => r(&[], false, true),
        "ir_sitofp" | "ir_uitofp" | "ir_bitcast" | "ir_and" | "ir_xor" | "ir_icmp" | "ir_sext"
        | "ir_freeze" | "llvm_smin" | "llvm_smax" | "llvm_umin" | "llvm_umax" | "llvm_abs"
        | "llvm_fshl" | "llvm_fshr" | "ir_urem" | "ir_srem" => r(&[], false, false),
        op if INT_INTRINSICS.contains(&op) => r(&[], false, false),
        "ir_or" => r(&["disjoint"], false, false),
        "ir_trunc" => r(&["nuw", "nsw"], false, false),
        "ir_zext" => r(&["nneg"], false, false),
        "llvm_fmuladd" | "llvm_minnum" | "llvm_maxnum" | "llvm_minimum" | "llvm_maximum"
        | "llvm_minimumnum" | "llvm_maximumnum" | "llvm_canonicalize" | "llvm_floor"
        | "llvm_ceil" | "llvm_trunc" | "llvm_rint" | "llvm_nearbyint" | "llvm_round"
        | "llvm_roundeven" | "llvm_ldexp" | "llvm_fptrunc_round" => r(FMF3, true, true),
        "llvm_fma" | "llvm_sqrt" => r(&["nnan", "ninf", "nsz", "afn"], true, true),
        "ir_add" | "ir_sub" | "ir_mul" | "ir_shl" => r(&["nuw", "nsw"], false, false),
        "ir_lshr" | "ir_ashr" | "ir_udiv" | "ir_sdiv" => r(&["exact"], false, false),
        _ => None,
    }
}

/// The largest `!fpmath` bound the `ir_fdiv` variants spell, in half ulps (`.fpmath8`: 4 ulp).
const FPMATH_MAX_HALF_ULPS: u8 = 8;

/// The integer intrinsics of spec/isa/llvm-int.sem beyond min/max/abs/fshl/fshr: no flags.
const INT_INTRINSICS: &[&str] = &[
    "llvm_ctpop",
    "llvm_ctlz",
    "llvm_cttz",
    "llvm_bitreverse",
    "llvm_bswap",
    "llvm_sadd_with_overflow",
    "llvm_uadd_with_overflow",
    "llvm_ssub_with_overflow",
    "llvm_usub_with_overflow",
    "llvm_smul_with_overflow",
    "llvm_umul_with_overflow",
    "llvm_sadd_sat",
    "llvm_uadd_sat",
    "llvm_ssub_sat",
    "llvm_usub_sat",
    "llvm_sshl_sat",
    "llvm_ushl_sat",
];

/// The contract's order of flags.
const FLAG_ORDER: &[&str] = &[
    "nnan", "ninf", "nsz", "arcp", "afn", "nuw", "nsw", "exact", "disjoint", "nneg",
];

/// The type's spelling in a variant text (`.f32`, `.i16`).
fn type_tag(t: &Type) -> Option<String> {
    match t {
        Type::Float(FloatTy::Half) => Some("f16".into()),
        Type::Float(FloatTy::BFloat) => Some("bf16".into()),
        Type::Float(FloatTy::Float) => Some("f32".into()),
        Type::Float(FloatTy::Double) => Some("f64".into()),
        Type::Int(n) => Some(format!("i{n}")),
        // A pointer's bits are an address, compared and selected as an integer (LangRef
        // 'icmp': "If the operands are pointer typed, the pointer values are compared as if
        // they were integers").
        Type::Ptr(0) => Some("i64".into()),
        _ => None,
    }
}

/// Whether a dotted component of an intrinsic's name is an overload suffix (`f32`, `v2f16`,
/// `i64`, `p0`).
fn is_overload(c: &str) -> bool {
    let c = c
        .strip_prefix('v')
        .map(|r| r.trim_start_matches(|ch: char| ch.is_ascii_digit()))
        .filter(|r| !r.is_empty())
        .unwrap_or(c);
    matches!(c, "f16" | "bf16" | "f32" | "f64" | "f80" | "f128")
        || (c.len() > 1
            && (c.starts_with('i') || c.starts_with('p'))
            && c[1..].parse::<u32>().is_ok())
}

/// The contract's opcode for a callee (`llvm.minimum.f32` → `llvm_minimum`); NVVM
/// intrinsics are read before (`Reader::nvvm_call`).
fn intrinsic_opcode(callee: &str) -> Option<String> {
    let rest = callee.strip_prefix("llvm.")?;
    let mut parts: Vec<&str> = rest.split('.').collect();
    while parts.len() > 1 && parts.last().is_some_and(|c| is_overload(c)) {
        parts.pop();
    }
    // LLVM finds an intrinsic by the longest known name its own is, a dot and a suffix, and
    // takes the overload from the call's types (remangling a suffix spelled otherwise, as in
    // `@llvm.fma.f16x2` on `<2 x half>`): so does the reader (docs/ambiguities.md 111).
    let name = |k: usize| format!("llvm_{}", parts[..k].join("_"));
    let known = (1..=parts.len()).rev().map(name).find(|o| row(o).is_some());
    Some(known.unwrap_or_else(|| name(parts.len())))
}

impl<'s> Reader<'s> {
    /// Reads the function with a block for each pointer parameter (input) in `blocks`.
    fn read(&mut self, blocks: &[u16]) -> Result<IrFunction, Diagnostic> {
        let f = self.f;
        let mut inputs = Vec::new();
        let mut widths = Vec::new();
        let mut args = Vec::new();
        let mut pointers = Vec::new();
        for (k, p) in f.params.iter().enumerate() {
            let width = self.width_of(&p.ty, &p.span)?;
            let id = self.b.emit(Op::Input(k as u16), width);
            widths.push(width);
            inputs.push(Slot {
                name: format!("%{}", p.name),
                width,
                kind: kind_of(&p.ty),
            });
            args.push(StateValue::defined(id));
            if matches!(p.ty, Type::Ptr(_)) {
                pointers.push(k as u16);
            }
        }
        self.memory = Memory::new(pointers);
        let slots = self.memory.declare_blocks(
            &mut self.b,
            blocks,
            |p| inputs[p as usize].name.clone(),
            inputs.len(),
            &self.layout,
        );
        for slot in slots {
            widths.push(slot.width);
            inputs.push(slot);
        }
        // The module variables it may write, after the parameters' memory, in the order
        // the PTX reader gives them (`memory::Layout::globals`).
        for (name, bytes) in self.layout.globals.clone().unwrap_or_default() {
            let base = self.own_address(&format!("the address of `@{name}`"), &f.span);
            let shown = format!("@{name}");
            for slot in self
                .memory
                .add_global(&mut self.b, &shown, base, bytes, inputs.len())
            {
                widths.push(slot.width);
                inputs.push(slot);
            }
            self.globals_read.insert(name, base);
        }
        // A function that reads where its thread is gets every special register as an input
        // after the memory, in the order the PTX reader gives them (semfuzz_spec::launch).
        if reads_special_registers(self.module, f) {
            for name in launch::SPECIAL_REGISTERS {
                let id = self.b.emit(Op::Input(inputs.len() as u16), 32);
                widths.push(32);
                inputs.push(Slot {
                    name: name.to_string(),
                    width: 32,
                    kind: PartKind::Bits,
                });
                self.special_registers.insert(name, id);
            }
        }
        self.first_call_input = inputs.len();
        let (returned, ty) = self.run(f, args, &f.span)?;
        for slot in std::mem::take(&mut self.call_inputs) {
            widths.push(slot.width);
            inputs.push(slot);
        }
        let mut results = Vec::new();
        let mut dests = Vec::new();
        if ty != Type::Void {
            let value = self.returned(returned, &ty, &f.span);
            let width = self.b.widths[value as usize];
            let kind = kind_of(&ty);
            let outcome = self.b.outcome_of(value, &self.choices);
            dests.push(Dest::whole("d".into(), width, kind, outcome));
            results.push(Slot {
                name: "ret".into(),
                width,
                kind,
            });
        }
        let (mut mem_dests, mut mem_results) = self.memory.results(&mut self.b, self.ub, None);
        dests.append(&mut mem_dests);
        results.append(&mut mem_results);
        for (name, v, t, span) in std::mem::take(&mut self.call_arguments) {
            let value = self.returned(v, &t, &span);
            let width = self.b.widths[value as usize];
            let kind = kind_of(&t);
            let outcome = self.b.outcome_of(value, &self.choices);
            dests.push(Dest::whole(name.clone(), width, kind, outcome));
            results.push(Slot { name, width, kind });
        }
        if dests.is_empty() {
            return Err(at(
                &f.span,
                format!("`@{}` returns nothing and stores nothing", f.name),
            )
            .with_hint("semfuzz compares what a function returns and the memory it writes"));
        }
        let unrolled = self.looped.then_some(self.unroll);
        if unrolled.is_some() {
            let cut = self.cut.unwrap_or_else(|| self.b.konst(0, 1));
            let bounded = self.b.emit(Op::Not(1, cut), 1);
            if self.b.known[bounded as usize] == Some(0) {
                return Err(vacuous(&f.span, &f.name, self.unroll));
            }
            dests.push(Dest::whole(
                BOUNDED.into(),
                1,
                PartKind::Pred,
                Outcome::Exact(bounded),
            ));
        }
        let choices = std::mem::take(&mut self.choices);
        let (program, kept) = std::mem::take(&mut self.b).finish(widths, dests, choices);
        Ok(IrFunction {
            name: f.name.clone(),
            inputs,
            results,
            program,
            choice_sites: kept.iter().map(|k| self.choice_sites[*k].clone()).collect(),
            variants: std::mem::take(&mut self.variants),
            unrolled,
            licensed: self.licensed,
            attributes_read: std::mem::take(&mut self.attributes_read)
                .into_iter()
                .map(String::from)
                .collect(),
            launch: launch_of(self.module, f),
            layout: self.layout.clone(),
            overlapping: self.memory.region().to_vec(),
        })
    }

    /// Runs function `f` on `args` under the current path: its blocks in an order where every
    /// block instance comes after those that branch to it, loops unrolled to the bound. The
    /// returned value is the select, over the `ret`s, of each one's path condition.
    fn run(
        &mut self,
        f: &'s Function,
        args: Vec<StateValue>,
        call: &Span,
    ) -> Result<(StateValue, Type), Diagnostic> {
        if self.calls.iter().any(|c| c == &f.name) {
            return Err(
                unsupported(call, format!("recursion: `@{}` calls itself", f.name)).with_hint(
                    "semfuzz inlines calls; a recursive function has no finite inlining",
                ),
            );
        }
        self.calls.push(f.name.clone());
        let modes = denormal_modes(self.module, f)?;
        let cfg = Cfg::of(f)?;
        let mut entry = State::default();
        for (p, a) in f.params.iter().zip(args) {
            entry.env.insert(p.name.clone(), (a, p.ty.clone()));
        }
        let caller = std::mem::take(&mut self.state);
        let caller_path = self.path;
        let order = cfg.instances(self.unroll)?;
        self.looped |= order.looped;
        // Per instance: the edges into it (condition, predecessor block, state it left).
        let mut incoming: Vec<Vec<Edge>> = vec![Vec::new(); order.blocks.len()];
        let mut rets: Vec<(Option<ValueId>, StateValue)> = Vec::new();
        let ret_ty = f.ret.clone();
        for (k, &block) in order.blocks.iter().enumerate() {
            let edges = std::mem::take(&mut incoming[k]);
            let b = &cfg.blocks[block];
            let path = if k == 0 {
                caller_path
            } else {
                let mut p = Some(self.b.konst(0, 1));
                for (c, _, _) in &edges {
                    p = self.or_path(p, *c);
                }
                p
            };
            // A block no path reaches computes nothing anyone reads.
            if path.is_some_and(|p| self.b.known[p as usize] == Some(0)) {
                continue;
            }
            self.path = path;
            self.state = if k == 0 {
                entry.clone()
            } else {
                self.merge(&edges)
            };
            for phi in &b.phis {
                self.phi(phi, &edges, &cfg)?;
            }
            for i in &b.instrs {
                self.instr(i, &modes)?;
            }
            let left = Rc::new(std::mem::take(&mut self.state));
            self.state = (*left).clone();
            let conds = self.terminator(b.term, &cfg, &ret_ty, &mut rets)?;
            for (succ, cond) in conds {
                match order.edges[k].iter().find(|(s, _)| *s == succ) {
                    Some((_, Some(to))) => incoming[*to].push((cond, block, left.clone())),
                    Some((_, None)) => self.cut = self.or_pred_opt(self.cut, cond),
                    None => unreachable!("the instance graph has every CFG edge"),
                }
            }
        }
        self.state = caller;
        self.path = caller_path;
        self.calls.pop();
        let Some((_, last)) = rets.pop() else {
            return Err(at(
                &f.span,
                format!(
                    "`@{}` never returns within {} iterations of each loop",
                    f.name, self.unroll
                ),
            )
            .with_hint("a larger --unroll reaches a `ret`"));
        };
        let mut value = last;
        let w = self.b.widths[value.bits as usize];
        for (cond, v) in rets.into_iter().rev() {
            let c = cond.unwrap_or_else(|| self.b.konst(1, 1));
            value = self.select_state(c, v, value, w, ret_ty.lanes());
        }
        Ok((value, ret_ty))
    }

    /// `a || b` over path conditions (`None`: always).
    fn or_path(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (None, _) | (_, None) => None,
            (Some(a), Some(b)) => Some(self.b.emit(Op::Or(1, a, b), 1)),
        }
    }

    /// `a || b` where `None` is never (UB, the cut), `b` a path condition (`None`: always).
    fn or_pred_opt(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        let b = b.unwrap_or_else(|| self.b.konst(1, 1));
        self.b.or_pred(a, Some(b))
    }

    /// `path && c` (`path` `None`: always).
    fn and_path(&mut self, c: ValueId) -> Option<ValueId> {
        Some(match self.path {
            None => c,
            Some(p) => self.b.emit(Op::And(1, p, c), 1),
        })
    }

    /// Undefined behaviour where `u` holds on the current path (LangRef: only an execution
    /// that reaches it is undefined).
    fn add_ub(&mut self, u: Option<ValueId>) {
        if let Some(u) = u {
            let here = self.and_path(u);
            self.ub = self.b.or_pred(self.ub, here);
        }
    }

    /// `c ? a : b` on values of `lanes` lanes, `w` bits: the bits and the poison.
    fn select_state(
        &mut self,
        c: ValueId,
        a: StateValue,
        b: StateValue,
        w: u32,
        lanes: u32,
    ) -> StateValue {
        let bits = self.b.emit(Op::Select(c, a.bits, b.bits), w);
        let poison = match (a.poison, b.poison) {
            (None, None) => None,
            (pa, pb) => {
                let zero = self.b.konst(0, lanes);
                let (pa, pb) = (pa.unwrap_or(zero), pb.unwrap_or(zero));
                Some(self.b.emit(Op::Select(c, pa, pb), lanes))
            }
        };
        StateValue { bits, poison }
    }

    /// The state where several edges join: each value as the edge it came by left it.
    fn merge(&mut self, edges: &[Edge]) -> State {
        let Some(((_, _, first), rest)) = edges.split_first() else {
            return State::default();
        };
        let mut state = (**first).clone();
        for (cond, _, s) in rest {
            let c = cond.unwrap_or_else(|| self.b.konst(1, 1));
            for (name, (v, t)) in &s.env {
                if let Some((old, _)) = state.env.get(name).cloned() {
                    if old.bits != v.bits || old.poison != v.poison {
                        let w = self.b.widths[v.bits as usize];
                        let merged = self.select_state(c, *v, old, w, t.lanes());
                        state.env.insert(name.clone(), (merged, t.clone()));
                    }
                }
            }
            for (name, fields) in &s.aggregates {
                if let Some(old) = state.aggregates.get(name).cloned() {
                    let merged = fields
                        .iter()
                        .zip(old)
                        .map(|((v, t), (o, _))| {
                            let w = self.b.widths[v.bits as usize];
                            (self.select_state(c, *v, o, w, t.lanes()), t.clone())
                        })
                        .collect();
                    state.aggregates.insert(name.clone(), merged);
                }
            }
        }
        state
    }

    /// `%r = phi T [v, %pred], ...`: the value of the edge taken (LangRef 'phi': "the value
    /// specified by the pair corresponding to the predecessor basic block that executed just
    /// prior to the current block"), read in the state that block left.
    fn phi(&mut self, i: &Instr, edges: &[Edge], cfg: &Cfg) -> Result<(), Diagnostic> {
        let t = i.ty.clone().expect("parsed");
        let w = self.width_of(&t, &i.span)?;
        let mut acc: Option<StateValue> = None;
        let here = std::mem::take(&mut self.state);
        for (cond, pred, left) in edges.iter().rev() {
            let pred_name = &cfg.blocks[*pred].name;
            let pair = i
                .operands
                .chunks(2)
                .find(|p| matches!(&p[1].value, Value::Local(n) if n == pred_name));
            let Some(pair) = pair else {
                self.state = here;
                return Err(at(
                    &i.span,
                    format!("this `phi` has no value for predecessor `%{pred_name}`"),
                ));
            };
            self.state = (**left).clone();
            let v = self.value(&pair[0].value, &t, &pair[0].span);
            let v = match v {
                Ok(v) => v,
                Err(e) => {
                    self.state = here;
                    return Err(e);
                }
            };
            acc = Some(match acc {
                None => v,
                Some(b) => {
                    let c = cond.unwrap_or_else(|| self.b.konst(1, 1));
                    self.select_state(c, v, b, w, t.lanes())
                }
            });
        }
        self.state = here;
        let Some(v) = acc else {
            return Err(at(&i.span, "a `phi` in a block nothing branches to"));
        };
        self.define(i, v, t)
    }

    /// A block's terminator: for each successor block, the condition of the edge to it (a
    /// `ret` records its value under the path instead; `unreachable` is undefined behaviour
    /// where reached).
    fn terminator(
        &mut self,
        i: &'s Instr,
        cfg: &Cfg<'s>,
        ret_ty: &Type,
        rets: &mut Vec<(Option<ValueId>, StateValue)>,
    ) -> Result<Vec<(usize, Option<ValueId>)>, Diagnostic> {
        let ops = &i.operands;
        let target = |o: &crate::syntax::Operand| cfg.target(o);
        match (i.opcode.as_str(), ops.len()) {
            ("ret", 0) if *ret_ty == Type::Void && self.calls.len() == 1 => {
                // What a function returning nothing does is the memory it leaves.
                let nothing = StateValue::defined(self.b.konst(0, 1));
                rets.push((self.path, nothing));
                Ok(Vec::new())
            }
            ("ret", _) => {
                let Some(o) = ops.first() else {
                    return Err(at(
                        &i.span,
                        format!(
                            "`@{}` returns nothing",
                            self.calls.last().map_or("", |s| s.as_str())
                        ),
                    )
                    .with_hint("semfuzz compares what a function returns"));
                };
                let t = i.ty.clone().unwrap_or(Type::Void);
                if &t != ret_ty {
                    return Err(at(
                        &i.span,
                        format!("`ret {t}` in a function returning {ret_ty}"),
                    ));
                }
                let v = self.value(&o.value, &t, &o.span)?;
                rets.push((self.path, v));
                Ok(Vec::new())
            }
            // LangRef 'unreachable': "The behavior of this instruction is undefined".
            ("unreachable", 0) => {
                let always = self.b.konst(1, 1);
                self.add_ub(Some(always));
                Ok(Vec::new())
            }
            ("br", 1) => Ok(vec![(target(&ops[0])?, self.path)]),
            ("br", 3) => {
                let c = self.value(&ops[0].value, &Type::Int(1), &ops[0].span)?;
                // LangRef 'br': "If 'cond' is poison or undef, this instruction has undefined
                // behavior" (Alive2's Branch likewise).
                self.add_ub(c.poison);
                let not = self.b.emit(Op::Not(1, c.bits), 1);
                let (yes, no) = (self.and_path(c.bits), self.and_path(not));
                Ok(vec![(target(&ops[1])?, yes), (target(&ops[2])?, no)])
            }
            ("switch", n) if n >= 2 && n % 2 == 0 => {
                let t = ops[0].ty.clone().expect("typed");
                let v = self.value(&ops[0].value, &t, &ops[0].span)?;
                // LangRef 'switch': a poison condition is undefined behaviour, as for `br`.
                self.add_ub(v.poison);
                let mut out = Vec::new();
                let mut none = None;
                for case in ops[2..].chunks(2) {
                    let c = self.value(&case[0].value, &t, &case[0].span)?;
                    let eq = self.b.emit(Op::BvEq(v.bits, c.bits), 1);
                    let ne = self.b.emit(Op::Not(1, eq), 1);
                    none = Some(match none {
                        None => ne,
                        Some(n) => self.b.emit(Op::And(1, n, ne), 1),
                    });
                    out.push((target(&case[1])?, self.and_path(eq)));
                }
                let default = match none {
                    None => self.path,
                    Some(n) => self.and_path(n),
                };
                out.insert(0, (target(&ops[1])?, default));
                Ok(out)
            }
            _ => Err(unsupported(
                &i.opcode_span,
                format!("`{}` with {} operands", i.opcode, ops.len()),
            )),
        }
    }

    /// A type's width, or why semfuzz cannot hold it.
    fn width_of(&self, t: &Type, span: &Span) -> Result<u32, Diagnostic> {
        match t.bits() {
            Some(w) if w <= 64 => Ok(w),
            Some(w) => Err(unsupported(span, format!("type `{t}`: {w} bits"))
                .with_hint("semfuzz values are at most 64 bits (`<2 x double>` is 128)")),
            None => Err(unsupported(span, format!("type `{t}`"))),
        }
    }

    /// The returned value's bits as the function's result: where a lane is poison or the
    /// function reached undefined behaviour, any bits (a choice of the source's), so that the
    /// result's outcome says the target may return anything there.
    fn returned(&mut self, v: StateValue, t: &Type, span: &Span) -> ValueId {
        if v.poison.is_none() && self.ub.is_none() {
            return v.bits;
        }
        let w = t
            .elem()
            .scalar_bits()
            .unwrap_or(self.b.widths[v.bits as usize]);
        let mut acc: Option<ValueId> = None;
        for l in 0..t.lanes() {
            let lane = self.lane(v.bits, t, l);
            let poison = self.lane_poison(v, t, l);
            let undefined = self.b.or_pred(poison, self.ub);
            let bits = match undefined {
                Some(q) => {
                    let anything = match (poison, self.ub) {
                        (_, None) => Outcome::Poison(w),
                        (None, Some(_)) => Outcome::Ub(w),
                        // Chosen only where one of them holds: undefined first.
                        (Some(_), Some(u)) => Outcome::Select(
                            u,
                            Box::new(Outcome::Ub(w)),
                            Box::new(Outcome::Poison(w)),
                        ),
                    };
                    let c = self.choose(anything, w, "the returned value", span);
                    self.b.emit(Op::Select(q, c, lane), w)
                }
                None => lane,
            };
            acc = Some(match acc {
                None => bits,
                Some(lo) => self.b.concat(bits, lo),
            });
        }
        acc.expect("a value has lanes")
    }

    /// A choice of `outcome`, `width` bits, recorded as coming from `what` at `span`.
    fn choose(&mut self, outcome: Outcome, width: u32, what: &str, span: &Span) -> ValueId {
        let k = self.choices.len();
        self.choices.push(outcome);
        let (line, col) = span.file.line_col(span.start);
        self.choice_sites
            .push(format!("{what} at {}:{line}:{col}", span.file.name));
        self.b.emit(Op::Choose(k as u16), width)
    }

    /// An operand as type `t`: its bits and where it is poison.
    fn value(&mut self, v: &Value, t: &Type, span: &Span) -> Result<StateValue, Diagnostic> {
        let width = self.width_of(t, span)?;
        match v {
            Value::Local(n) => {
                let (sv, have) = self
                    .state
                    .env
                    .get(n)
                    .cloned()
                    .ok_or_else(|| at(span, format!("`%{n}` is used before it is defined")))?;
                if &have != t {
                    return Err(at(span, format!("`%{n}` is {have}, used here as {t}")));
                }
                Ok(sv)
            }
            // LangRef "Poison Values": the constant `poison`, every lane of it.
            Value::Const(c) if c == "poison" => Ok(StateValue {
                bits: self.b.konst(0, width),
                poison: Some(self.b.konst(mask(t.lanes()), t.lanes())),
            }),
            // LangRef "Undefined Values": "the user of the undef value can assume that it is
            // any value of the type", at each use on its own; a lane at a time.
            Value::Const(c) if c == "undef" => {
                let w = t.elem().scalar_bits().unwrap_or(width);
                let mut acc: Option<ValueId> = None;
                for _ in 0..t.lanes() {
                    let any = self.any_bits(w);
                    let lane = self.choose(any, w, "`undef`", span);
                    acc = Some(match acc {
                        None => lane,
                        Some(lo) => self.b.concat(lane, lo),
                    });
                }
                Ok(StateValue::defined(acc.expect("a type has lanes")))
            }
            Value::Const(c) => {
                let bits = constant(c, t)
                    .map_err(|why| at(span, format!("the constant `{c}` as {t}: {why}")))?;
                Ok(StateValue::defined(self.b.konst(bits, width)))
            }
            Value::Global(g) => self.constant_global(g, span),
            Value::Splat(e) => {
                let Type::Vector(n, et) = t else {
                    return Err(at(span, format!("a `splat` where {t} is expected")));
                };
                if e.0 != **et {
                    return Err(at(span, format!("a `splat` of {} in {t}", e.0)));
                }
                let lane = self.value(&e.1, et, span)?;
                Ok(self.join(&vec![lane; *n as usize]))
            }
            Value::Vector(items) => {
                let Type::Vector(n, e) = t else {
                    return Err(at(span, format!("a vector constant where {t} is expected")));
                };
                if items.len() != *n as usize {
                    return Err(at(span, format!("{} elements for {t}", items.len())));
                }
                let mut lanes = Vec::new();
                for (et, ev) in items {
                    if et != &**e {
                        return Err(at(span, format!("an element of type {et} in {t}")));
                    }
                    lanes.push(self.value(ev, e, span)?);
                }
                Ok(self.join(&lanes))
            }
        }
    }

    /// The located `unsupported` for `name`, a global value an instruction uses that is not a
    /// `constant` semfuzz reads: a variable's memory is not modelled, nor a function's
    /// address.
    fn global_use(&self, name: &str, opcode: &str, span: &Span) -> Diagnostic {
        match self.module.globals.iter().find(|g| g.name == name) {
            Some(g) => unsupported(
                span,
                format!(
                    "use of the global variable `@{name}` (addrspace({})) by `{opcode}`",
                    g.addrspace
                ),
            )
            .with_hint("memory other than the parameters' values is not modelled yet"),
            None => unsupported(
                span,
                format!("use of the address of `@{name}` by `{opcode}`"),
            ),
        }
    }

    /// Any bits of width `w`, as a choice's outcome (`undef`).
    fn any_bits(&mut self, w: u32) -> Outcome {
        match semfuzz_spec::ir::any_bits_format(w) {
            Some(f) => Outcome::Any(f),
            None => Outcome::OneOf((0..1u64 << w).map(|v| self.b.konst(v, w)).collect()),
        }
    }

    /// Scalar lanes (lane 0 first) as one vector value.
    fn join(&mut self, lanes: &[StateValue]) -> StateValue {
        let mut bits: Option<ValueId> = None;
        for l in lanes {
            bits = Some(match bits {
                None => l.bits,
                Some(lo) => self.b.concat(l.bits, lo),
            });
        }
        let poison: Vec<Option<ValueId>> = lanes.iter().map(|l| l.poison).collect();
        StateValue {
            bits: bits.expect("a vector has lanes"),
            poison: self.join_poison(&poison),
        }
    }

    /// Lanes' poison bits (lane 0 first) as one value; `None` where no lane is ever poison.
    fn join_poison(&mut self, lanes: &[Option<ValueId>]) -> Option<ValueId> {
        if lanes.iter().all(Option::is_none) {
            return None;
        }
        let mut acc: Option<ValueId> = None;
        for p in lanes {
            let p = p.unwrap_or_else(|| self.b.konst(0, 1));
            acc = Some(match acc {
                None => p,
                Some(lo) => self.b.concat(p, lo),
            });
        }
        acc
    }

    /// Where lane `l` of `v` (of type `t`) is poison.
    fn lane_poison(&mut self, v: StateValue, t: &Type, l: u32) -> Option<ValueId> {
        let p = v.poison?;
        Some(match t {
            Type::Vector(..) => self.b.extract(p, l, 1),
            _ => p,
        })
    }

    /// The lane-by-lane poison of `v`'s bits read as type `to` (a `bitcast`): a lane of the
    /// result is poison where a lane of `from` it overlaps is (LangRef "Poison Values": a
    /// bitcast of a value with poison elements gives poison where their bits land).
    fn regroup_poison(&mut self, v: StateValue, from: &Type, to: &Type) -> Option<ValueId> {
        v.poison?;
        let (fw, tw) = (
            from.elem().scalar_bits().unwrap_or(1),
            to.elem().scalar_bits().unwrap_or(1),
        );
        let lanes: Vec<Option<ValueId>> = (0..to.lanes())
            .map(|l| {
                let (lo, hi) = (l * tw, (l + 1) * tw);
                (0..from.lanes())
                    .filter(|k| k * fw < hi && (k + 1) * fw > lo)
                    .fold(None, |acc, k| {
                        let p = self.lane_poison(v, from, k);
                        self.b.or_pred(acc, p)
                    })
            })
            .collect();
        self.join_poison(&lanes)
    }

    fn lane(&mut self, v: ValueId, t: &Type, l: u32) -> ValueId {
        match t {
            Type::Vector(_, e) => {
                let w = e.scalar_bits().expect("checked by width_of");
                self.b.extract(v, l * w, w)
            }
            _ => v,
        }
    }

    /// Whether this function's `"unsafe-fp-math"="true"` is read ([`attribute_flags`]).
    fn reads_unsafe_fp_math(&self) -> bool {
        self.attribute_flags
            .iter()
            .any(|(a, _)| *a == UNSAFE_FP_MATH)
    }

    /// Records that an operation's reading rested on function attribute `a`
    /// ([`IrFunction::attributes_read`]).
    fn took_attribute(&mut self, a: &'static str) {
        if !self.attributes_read.contains(&a) {
            self.attributes_read.push(a);
        }
    }

    fn instr(&mut self, i: &Instr, modes: &Denormal) -> Result<(), Diagnostic> {
        match self.contractible(i) {
            Some((k, product)) => {
                if !(flagged_contract(i) && flagged_contract(product)) {
                    self.took_attribute(UNSAFE_FP_MATH);
                }
                self.contract(i, k, product, modes)
            }
            None => self.plain_instr(i, modes),
        }
    }

    /// For an `fadd`/`fsub` that LangRef's `contract` lets LLVM fuse with the `fmul` defining
    /// its operand `k`: that operand and the `fmul`. LLVM's DAGCombiner fuses only where both
    /// carry the flag (`fast` includes it), and so does this reader; where only one does, the
    /// IR is read as written (docs/ambiguities.md 92).
    fn contractible(&self, i: &Instr) -> Option<(usize, &'s Instr)> {
        let everywhere = self.reads_unsafe_fp_math();
        let licensed = |i: &Instr| everywhere || flagged_contract(i);
        if !matches!(i.opcode.as_str(), "fadd" | "fsub") || !licensed(i) {
            return None;
        }
        i.operands.iter().enumerate().find_map(|(k, o)| {
            let Value::Local(name) = &o.value else {
                return None;
            };
            self.f.body.iter().find_map(|s| match s {
                Statement::Instr(d)
                    if d.result.as_deref() == Some(name.as_str())
                        && d.opcode == "fmul"
                        && d.ty == i.ty
                        && licensed(d) =>
                {
                    Some((k, &**d))
                }
                _ => None,
            })
        })
    }

    /// LangRef `contract`: "Allow floating-point contraction (e.g. fusing a multiply followed
    /// by an addition into a fused multiply-add)". The result is, lane by lane, either `i` as
    /// written or `llvm.fma` of the product's factors and the other operand (negated as the
    /// subtraction needs: `p - c` is `fma(a, b, -c)`, `c - p` is `fma(-a, b, c)`), read as the
    /// reader reads those instructions; it is poison where `i` is.
    fn contract(
        &mut self,
        i: &Instr,
        k: usize,
        product: &Instr,
        modes: &Denormal,
    ) -> Result<(), Diagnostic> {
        self.plain_instr(i, modes)?;
        let (Some(result), Some(t)) = (&i.result, &i.ty) else {
            return Ok(());
        };
        let mut fresh = 0;
        let mut local = |what: &str| {
            fresh += 1;
            format!("{result}.{what}{fresh}")
        };
        let synthetic = |result: String, opcode: &str, operands: Vec<Operand>| Instr {
            result: Some(result),
            opcode: opcode.into(),
            flags: i.flags.clone(),
            pred: None,
            ty: Some(t.clone()),
            callee: None,
            operands,
            to: None,
            metadata: Vec::new(),
            shape: Shape::Typed,
            raw: String::new(),
            globals: Vec::new(),
            span: i.span.clone(),
            opcode_span: i.opcode_span.clone(),
        };
        let typed = |value: Value| Operand {
            ty: Some(t.clone()),
            attrs: String::new(),
            value,
            span: i.span.clone(),
        };
        let mut negated = |me: &mut Self, o: &Operand| -> Result<Value, Diagnostic> {
            let name = local("neg");
            me.plain_instr(
                &synthetic(name.clone(), "fneg", vec![typed(o.value.clone())]),
                modes,
            )?;
            Ok(Value::Local(name))
        };
        let (a, b) = (&product.operands[0], &product.operands[1]);
        let other = &i.operands[1 - k];
        let (a, c) = match (i.opcode.as_str(), k) {
            ("fsub", 0) => (a.value.clone(), negated(self, other)?),
            ("fsub", _) => (negated(self, a)?, other.value.clone()),
            _ => (a.value.clone(), other.value.clone()),
        };
        let Some(tag) = type_tag(t.elem()) else {
            return Ok(());
        };
        let fused_name = local("fused");
        let mut fma = synthetic(
            fused_name.clone(),
            "call",
            vec![typed(a), typed(b.value.clone()), typed(c)],
        );
        fma.shape = Shape::Call;
        let vector = match t {
            Type::Vector(n, _) => format!("v{n}"),
            _ => String::new(),
        };
        fma.callee = Some(format!("llvm.fma.{vector}{tag}"));
        self.plain_instr(&fma, modes)?;
        let (unfused, _) = self.state.env[result];
        let (fused, _) = self.state.env[&fused_name];
        let w = self.width_of(t.elem(), &i.span)?;
        let mut lanes = Vec::new();
        for l in 0..t.lanes() {
            let as_written = self.lane(unfused.bits, t, l);
            let fused_lane = self.lane(fused.bits, t, l);
            // One free bit picks the lane's result, so each candidate stays the number its
            // instruction computes (with that instruction's NaN set), not one pick of it.
            let any = self.any_bits(1);
            let fuse = self.choose(any, 1, "`contract`'s fusion", &i.span);
            let either = self.b.emit(Op::Select(fuse, fused_lane, as_written), w);
            lanes.push(StateValue {
                bits: either,
                poison: self.lane_poison(unfused, t, l),
            });
        }
        let joined = self.join(&lanes);
        self.state.env.insert(result.clone(), (joined, t.clone()));
        Ok(())
    }

    /// The variant token of an `!fpmath` attachment (`fpmath5`), or `None` without one.
    /// spec/isa/llvm-fp.sem reads `fdiv float` with a bound of N ulps as within ⌊2N⌋
    /// encodings of the rounded quotient (docs/ambiguities.md 173); elsewhere the bound is
    /// refused by name.
    fn fpmath_token(&self, i: &Instr) -> Result<Option<String>, Diagnostic> {
        let Some(m) = i.metadata.iter().find(|m| m.name == "fpmath") else {
            return Ok(None);
        };
        let refuse = |why: String| {
            Err(unsupported(
                &i.opcode_span,
                format!("metadata `!fpmath {}` on `{}`", m.node, i.opcode),
            )
            .with_hint(why))
        };
        if i.opcode != "fdiv" || i.ty != Some(Type::Float(FloatTy::Float)) {
            return refuse("semfuzz reads `!fpmath` on a scalar `fdiv float` only (the bound LLVM's front ends write for OpenCL and HIP division)".into());
        }
        let Some(ulps) = self.module.fpmath_ulps(&m.node) else {
            return refuse("LangRef: the node is `!{float N}`, N a positive number; this one is not, or is not defined".into());
        };
        let half_ulps = (2.0 * ulps).floor();
        if !(1.0..=f64::from(FPMATH_MAX_HALF_ULPS)).contains(&half_ulps) {
            return refuse(format!(
                "the specs state bounds from 0.5 to {} ulp; this one is {ulps}",
                f64::from(FPMATH_MAX_HALF_ULPS) / 2.0
            ));
        }
        Ok(Some(format!("fpmath{half_ulps}")))
    }

    /// LangRef "Parameter Attributes", `noundef`: "If the value representation contains any
    /// undefined or poison bits, the behavior is undefined", so a call passing a poison
    /// argument where the call site says `noundef` is undefined behaviour there.
    fn noundef_arguments(
        &mut self,
        operands: &[&crate::syntax::Operand],
        ty: &[Type],
    ) -> Result<(), Diagnostic> {
        for (o, t) in operands.iter().zip(ty) {
            if o.attrs.split_whitespace().any(|w| w == "noundef") {
                let v = self.value(&o.value, t, &o.span)?;
                if let Some(p) = v.poison {
                    let any = self.any_lane(p, t);
                    self.add_ub(Some(any));
                }
            }
        }
        Ok(())
    }

    fn plain_instr(&mut self, i: &Instr, modes: &Denormal) -> Result<(), Diagnostic> {
        // Metadata is dropped but for `!fpmath`, which allows the result an error; `!range`,
        // `!noundef` and the like only add poison or undefined behaviour, so dropping them
        // leaves a function that allows less (docs/ambiguities.md).
        let fpmath = self.fpmath_token(i)?;
        // `@llvm.dbg.value` and its kin (before LLVM 19's debug records) describe variables
        // to a debugger; they compute nothing.
        if i.callee
            .as_deref()
            .is_some_and(|c| c.starts_with("llvm.dbg."))
        {
            return Ok(());
        }
        // A `constant` is read through its initializer where an operand names it, a variable
        // the function may write through its block (declared with the parameters').
        if let Some(g) = i.globals.iter().find(|g| {
            !self.globals_read.contains_key(*g)
                && self
                    .module
                    .globals
                    .iter()
                    .any(|m| &m.name == *g && m.kind != "constant")
        }) {
            return Err(self.global_use(g, &i.opcode, &i.opcode_span));
        }
        let (ty, operands, result_ty): (Vec<Type>, Vec<&crate::syntax::Operand>, Type) =
            match i.shape {
                Shape::Unknown if self.memory_instr(i, modes)? => return Ok(()),
                Shape::Unknown => {
                    // A call the parser kept as text has no `@callee`: inline assembly (the
                    // words before its string say `asm`) or a call through a pointer.
                    let head = i.raw.split('"').next().unwrap_or("");
                    if i.opcode == "call" && head.split_whitespace().any(|w| w == "asm") {
                        return self.inline_asm(i);
                    }
                    let what = match i.opcode.as_str() {
                        "call" => "call that names no `@function`".to_string(),
                        op => format!("instruction `{op}`"),
                    };
                    return Err(unsupported(&i.opcode_span, what));
                }
                Shape::Typed => {
                    let t = i.ty.clone().expect("parsed");
                    (
                        vec![t.clone(); i.operands.len()],
                        i.operands.iter().collect(),
                        t,
                    )
                }
                Shape::Compare => {
                    let t = i.ty.clone().expect("parsed");
                    let r = match &t {
                        Type::Vector(n, _) => Type::Vector(*n, Box::new(Type::Int(1))),
                        _ => Type::Int(1),
                    };
                    (vec![t.clone(), t], i.operands.iter().collect(), r)
                }
                Shape::Cast => {
                    let t = i.operands[0].ty.clone().expect("parsed");
                    (vec![t], vec![&i.operands[0]], i.to.clone().expect("parsed"))
                }
                Shape::EachTyped => {
                    let ts: Vec<Type> = i
                        .operands
                        .iter()
                        .map(|o| o.ty.clone().expect("typed"))
                        .collect();
                    let r = match i.opcode.as_str() {
                        "select" => ts.get(1).cloned().unwrap_or(Type::Void),
                        _ => return self.vector_op(i),
                    };
                    (ts, i.operands.iter().collect(), r)
                }
                Shape::Call => {
                    let ts: Vec<Type> = i
                        .operands
                        .iter()
                        .map(|o| o.ty.clone().expect("typed"))
                        .collect();
                    (
                        ts,
                        i.operands.iter().collect(),
                        i.ty.clone().expect("parsed"),
                    )
                }
                Shape::Extract => return self.extract_value(i),
                Shape::Ret | Shape::Branch | Shape::Phi => {
                    unreachable!("terminators and phis are read by `run`")
                }
            };
        if i.shape == Shape::Call {
            self.noundef_arguments(&operands, &ty)?;
        }
        let module = self.module;
        if let Some(callee) = module
            .functions
            .iter()
            .find(|f| i.shape == Shape::Call && Some(f.name.as_str()) == i.callee.as_deref())
        {
            return self.call(i, callee, &operands, &ty, result_ty);
        }
        if let Some(register) = i
            .callee
            .as_deref()
            .and_then(|c| c.strip_prefix(SREG_INTRINSIC))
        {
            return self.special_register(i, register);
        }
        if let Some(name) = i
            .callee
            .as_deref()
            .and_then(|c| c.strip_prefix("llvm.nvvm."))
        {
            return self.nvvm_call(i, name, &operands, &ty, result_ty);
        }
        if let Some(kind) = i.callee.as_deref().and_then(memory_ops::MemIntrinsic::of) {
            return self.mem_intrinsic(i, kind, &operands, &ty);
        }
        if let Some(to_half) = i.callee.as_deref().and_then(fp16_conversion) {
            return self.fp16_conversion(i, to_half, modes);
        }
        if let Some(callee) = i
            .callee
            .as_deref()
            .filter(|c| i.shape == Shape::Call && !c.starts_with("llvm."))
        {
            return self.external_call(i, callee, &operands, &ty, result_ty);
        }
        let opcode = match i.shape {
            Shape::Call => {
                let callee = i.callee.as_deref().unwrap_or("");
                intrinsic_opcode(callee).ok_or_else(|| {
                    unsupported(&i.opcode_span, format!("call of `@{callee}`")).with_hint(
                        "semfuzz reads calls of `@llvm.*` intrinsics; inline other functions",
                    )
                })?
            }
            _ => format!("ir_{}", i.opcode),
        };
        // LangRef `bitcast`: "no bits are changed"; between a vector and a value of another
        // lane count it is the bits as they are (lane 0 lowest), which the reader moves itself.
        // LangRef 'ptrtoint' and 'inttoptr': the value "as an integer", zero extended or
        // truncated to the other type's width; a pointer's block is read off the expression
        // that computes it, so `inttoptr (ptrtoint %p + 4)` points into `%p`'s block.
        if (opcode == "ir_ptrtoint" || opcode == "ir_inttoptr") && ty[0].lanes() == 1 {
            let o = operands[0];
            let v = self.value(&o.value, &ty[0], &o.span)?;
            let (from, to) = (
                self.b.widths[v.bits as usize],
                self.width_of(&result_ty, &i.span)?,
            );
            let bits = if to <= from {
                self.b.extract(v.bits, 0, to)
            } else {
                let zeros = self.b.konst(0, to - from);
                self.b.concat(zeros, v.bits)
            };
            return self.define(
                i,
                StateValue {
                    bits,
                    poison: v.poison,
                },
                result_ty,
            );
        }
        if opcode == "ir_bitcast" && ty[0].lanes() != result_ty.lanes() {
            let o = operands[0];
            let v = self.value(&o.value, &ty[0], &o.span)?;
            let w = self.width_of(&result_ty, &i.span)?;
            if self.b.widths[v.bits as usize] != w {
                return Err(at(
                    &i.span,
                    format!("`bitcast` from {} to {result_ty} changes the width", ty[0]),
                ));
            }
            let poison = self.regroup_poison(v, &ty[0], &result_ty);
            let moved = StateValue {
                bits: v.bits,
                poison,
            };
            return self.define(i, moved, result_ty);
        }
        let Some(row) = row(&opcode) else {
            let what = match i.shape {
                Shape::Call => format!("intrinsic `@{}`", i.callee.as_deref().unwrap_or("")),
                _ => format!("instruction `{}`", i.opcode),
            };
            return Err(unsupported(&i.opcode_span, what));
        };
        if let Some(f) = i.flags.iter().find(|f| f.as_str() == "samesign") {
            return Err(
                unsupported(&i.opcode_span, format!("flag `{f}` on `{}`", i.opcode))
                    .with_hint("docs/llvm-ir-spec.md: no `icmp` variant states samesign's poison"),
            );
        }
        // Values: the `i1` argument of `llvm.abs` (is_int_min_poison) and of `llvm.ctlz` and
        // `llvm.cttz` (is_zero_poison) is the `.poison` modifier, not an operand.
        let mut flags: Vec<&str> = Vec::new();
        let mut operands = operands;
        let mut ty = ty;
        if matches!(opcode.as_str(), "llvm_abs" | "llvm_ctlz" | "llvm_cttz") {
            match operands.get(1).map(|o| &o.value) {
                Some(Value::Const(c)) if c == "true" => flags.push("poison"),
                Some(Value::Const(c)) if c == "false" => {}
                _ => {
                    return Err(at(
                        &i.span,
                        format!(
                            "`@{}` takes a constant `i1` as its second argument",
                            i.callee.as_deref().unwrap_or("")
                        ),
                    )
                    .with_hint("LangRef: the second argument is a constant flag"))
                }
            }
            operands.truncate(1);
            ty.truncate(1);
        }
        // `llvm.fptrunc.round`'s metadata string is its rounding modifier (LangRef,
        // "Constrained Floating-Point Intrinsics": the IEEE modes of the same names).
        if opcode == "llvm_fptrunc_round" {
            let m = match operands.get(1).map(|o| &o.value) {
                Some(Value::Const(c)) => c.as_str(),
                _ => "",
            };
            let rnd = match m {
                "!\"round.tonearest\"" => "rn",
                "!\"round.downward\"" => "rm",
                "!\"round.upward\"" => "rp",
                "!\"round.towardzero\"" => "rz",
                "!\"round.tonearestaway\"" => "rna",
                _ => {
                    return Err(unsupported(
                        &i.opcode_span,
                        format!("rounding mode `{m}` of `llvm.fptrunc.round`"),
                    )
                    .with_hint("LangRef: \"round.dynamic\" is not supported for this intrinsic; the others are round.tonearest, round.downward, round.upward, round.towardzero, round.tonearestaway"))
                }
            };
            flags.push(rnd);
            operands.truncate(1);
            ty.truncate(1);
        }
        for f in &i.flags {
            let one = [f.as_str()];
            let set: &[&str] = if f == "fast" {
                &["nnan", "ninf", "nsz", "arcp", "afn"]
            } else {
                &one
            };
            for g in set {
                if row.flags.contains(g) && !flags.contains(g) {
                    flags.push(g);
                }
            }
        }
        for (attribute, g) in self.attribute_flags.clone() {
            if row.flags.contains(&g) && !flags.contains(&g) {
                flags.push(g);
                self.took_attribute(attribute);
            }
        }
        flags.sort_by_key(|f| FLAG_ORDER.iter().position(|g| g == f).unwrap_or(usize::MAX));
        let src_elem = ty.first().map(|t| t.elem().clone()).unwrap_or(Type::Void);
        // A struct result (`{i32, i1}` of `llvm.sadd.with.overflow`) is one destination per
        // field; its first field's type names the variant and its lanes.
        let fields = match &result_ty {
            Type::Struct(fields) if !fields.is_empty() => fields.clone(),
            t => vec![t.clone()],
        };
        let dst_elem = fields[0].elem().clone();
        let mode_of = |t: &Type| match t {
            Type::Float(FloatTy::Float) => Some(modes.f32),
            Type::Float(_) => Some(modes.other),
            _ => None,
        };
        // A conversion writes both types and takes its modes from both (`llvm.fptrunc.round`
        // is `fptrunc` with a rounding mode).
        let is_cast = i.shape == Shape::Cast || opcode == "llvm_fptrunc_round";
        // The type whose mode an operation takes: its operands' (a select's arms, a call's
        // result).
        let op_elem = match i.shape {
            Shape::EachTyped | Shape::Call => dst_elem.clone(),
            _ => src_elem.clone(),
        };
        let mut text = opcode.clone();
        if let Some(p) = &i.pred {
            text.push('.');
            text.push_str(p);
        }
        for f in &flags {
            text.push('.');
            text.push_str(f);
        }
        if let Some(token) = &fpmath {
            text.push('.');
            text.push_str(token);
        }
        // The modes that apply: the destination type's output mode and the source type's
        // input mode (one type's for an operation). The catalogue spells only equal pairs
        // (`.out_ps.in_ps`), IN alone where the row has no OUT, and no `dynamic`.
        let out_mode = row
            .out
            .then(|| mode_of(if is_cast { &dst_elem } else { &op_elem }).map(|m| m.0))
            .flatten();
        let in_mode = row
            .inp
            .then(|| mode_of(if is_cast { &src_elem } else { &op_elem }).map(|m| m.1))
            .flatten();
        let spelled = match (out_mode, in_mode) {
            (Some(Mode::Dynamic), _) | (_, Some(Mode::Dynamic)) => None,
            (Some(o), Some(i)) if o != i => None,
            (o, i) => Some((o.and_then(Mode::suffix), i.and_then(Mode::suffix))),
        };
        let Some((o, inp)) = spelled else {
            let name = |m: Option<Mode>| m.map_or("-", Mode::name);
            return Err(unsupported(
                &i.opcode_span,
                format!(
                    "denormal-fp-math \"{},{}\"",
                    name(out_mode),
                    name(in_mode)
                ),
            )
            .with_hint("docs/llvm-ir-spec.md: the catalogue spells ieee, preserve-sign and positive-zero, the same for output and input (docs/ambiguities.md 80)"));
        };
        if let Some(s) = o {
            text.push_str(&format!(".out_{s}"));
        }
        if let Some(s) = inp {
            text.push_str(&format!(".in_{s}"));
        }
        let tags: Vec<&Type> = if is_cast {
            vec![&dst_elem, &src_elem]
        } else {
            vec![&op_elem]
        };
        let with_types = tags.iter().try_fold(text.clone(), |mut acc, t| {
            type_tag(t).map(|tag| {
                acc.push('.');
                acc.push_str(&tag);
                acc
            })
        });
        let Some(with_types) = with_types else {
            return Err(unsupported(
                &i.span,
                format!("`{}` on type `{}`", i.opcode, op_elem),
            ));
        };
        let variant = self.find(&with_types, operands.len(), i)?;
        // Operand bits, then one inlined variant per lane.
        let mut vals = Vec::new();
        for (o, t) in operands.iter().zip(&ty) {
            vals.push((self.value(&o.value, t, &o.span)?, t.clone()));
        }
        let lanes = fields[0].lanes();
        if let Some((_, t)) = vals
            .iter()
            .find(|(_, t)| t.lanes() != lanes && t.lanes() != 1)
        {
            return Err(at(
                &i.span,
                format!("a {t} operand for a result of {lanes} lanes"),
            ));
        }
        if variant.dests.len() != fields.len() {
            return Err(at(
                &i.span,
                format!(
                    "`{}` writes {} values, the IR result {result_ty} has {}",
                    variant.text,
                    variant.dests.len(),
                    fields.len()
                ),
            ));
        }
        let divides = matches!(
            opcode.as_str(),
            "ir_udiv" | "ir_sdiv" | "ir_urem" | "ir_srem"
        );
        // Per field, its lanes (lane 0 first).
        let mut per_field: Vec<Vec<StateValue>> = vec![Vec::new(); fields.len()];
        for l in 0..lanes {
            let args: Vec<ValueId> = vals.iter().map(|(v, t)| self.lane(v.bits, t, l)).collect();
            let read: Vec<Option<ValueId>> = vals
                .iter()
                .map(|(v, t)| self.lane_poison(*v, t, l))
                .collect();
            let mut outs = self.inline(variant, &args, i)?;
            if let Some((licensed, by_attribute)) = self.licensed_instead(&opcode, &op_elem, modes)
            {
                let what = if by_attribute {
                    self.took_attribute(UNSAFE_FP_MATH);
                    "the approximate division \"unsafe-fp-math\" licenses"
                } else {
                    "a licence of llc's flags"
                };
                outs[0].value = self.or_licensed(i, outs[0].value, &[licensed], &args, what)?;
            }
            let from_operands = if opcode == "ir_select" {
                // LangRef 'select': "the presence of value which would otherwise result in
                // poison does not cause the result to be poison if the value is on the
                // non-selected arm"; a poison condition makes the result poison.
                let chosen = self.select_poison(args[0], read[1], read[2]);
                self.b.or_pred(read[0], chosen)
            } else {
                // "most instructions return 'poison' when one of their arguments is 'poison'".
                read.iter().fold(None, |acc, p| self.b.or_pred(acc, *p))
            };
            if divides {
                // A poisoned divisor may be zero: "Division by zero is undefined behavior"
                // (and a poisoned signed dividend INT_MIN over -1). Alive2 likewise.
                self.add_ub(from_operands);
            }
            for (field, out) in per_field.iter_mut().zip(outs) {
                self.add_ub(out.ub);
                let poison = self.b.or_pred(out.poison, from_operands);
                field.push(match (opcode.as_str(), poison) {
                    // LangRef 'freeze': "If the argument is undef or poison, 'freeze' returns
                    // an arbitrary, but fixed, value of type 'ty'".
                    ("ir_freeze", Some(p)) => {
                        let w = self.b.widths[out.value as usize];
                        let any = self.any_bits(w);
                        let fixed = self.choose(any, w, "`freeze` of poison", &i.span);
                        StateValue::defined(self.b.emit(Op::Select(p, fixed, out.value), w))
                    }
                    _ => StateValue {
                        bits: out.value,
                        poison,
                    },
                });
            }
        }
        let values: Vec<StateValue> = per_field.iter().map(|lanes| self.join(lanes)).collect();
        if let [value] = values[..] {
            return self.finish(i, variant, value, result_ty);
        }
        let mut parts = Vec::new();
        for (value, t) in values.into_iter().zip(fields) {
            self.check_width(i, variant, value.bits, &t)?;
            parts.push((value, t));
        }
        self.variants.push(variant.text.clone());
        if let Some(r) = &i.result {
            self.state.aggregates.insert(r.clone(), parts);
        }
        Ok(())
    }

    /// A call of a function the module defines: its body run on the arguments under the
    /// current path (inlined), its result the call's.
    fn call(
        &mut self,
        i: &Instr,
        callee: &'s Function,
        operands: &[&crate::syntax::Operand],
        ty: &[Type],
        result_ty: Type,
    ) -> Result<(), Diagnostic> {
        let params: Vec<&Type> = callee.params.iter().map(|p| &p.ty).collect();
        if params.len() != ty.len()
            || params.iter().zip(ty).any(|(p, t)| *p != t)
            || callee.ret != result_ty
        {
            return Err(at(
                &i.span,
                format!("this call does not match `@{}`'s type", callee.name),
            ));
        }
        if result_ty == Type::Void {
            return Err(unsupported(&i.opcode_span, format!("call of `@{}`, which returns nothing", callee.name))
                .with_hint("semfuzz compares returned values; a void function's effects are memory, not modelled"));
        }
        let mut args = Vec::new();
        for (o, t) in operands.iter().zip(ty) {
            args.push(self.value(&o.value, t, &o.span)?);
        }
        let (value, t) = self.run(callee, args, &i.opcode_span)?;
        self.define(i, value, t)
    }

    /// `extractvalue {T, U} %s, K`: field K of a struct a call defined.
    fn extract_value(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let (agg, index) = match &i.operands[..] {
            [agg, index] => (agg, index),
            _ => {
                return Err(unsupported(
                    &i.opcode_span,
                    format!("`extractvalue` with {} indices", i.operands.len() - 1),
                )
                .with_hint("semfuzz reads one index into a struct of scalars"))
            }
        };
        let Value::Local(name) = &agg.value else {
            return Err(unsupported(&agg.span, "`extractvalue` of a constant"));
        };
        let fields = self.state.aggregates.get(name).ok_or_else(|| {
            at(
                &agg.span,
                format!("`%{name}` is no struct defined before this `extractvalue`"),
            )
        })?;
        let have = Type::Struct(fields.iter().map(|f| f.1.clone()).collect());
        if agg.ty.as_ref() != Some(&have) {
            return Err(at(
                &agg.span,
                format!(
                    "`%{name}` is {have}, used here as {}",
                    agg.ty.as_ref().unwrap_or(&Type::Void)
                ),
            ));
        }
        let field = match &index.value {
            Value::Const(c) => c.parse::<usize>().ok().and_then(|k| fields.get(k)),
            _ => None,
        };
        let Some((value, t)) = field.cloned() else {
            return Err(at(
                &index.span,
                format!(
                    "`{}` is no field of a struct of {}",
                    index.value,
                    fields.len()
                ),
            ));
        };
        self.define(i, value, t)
    }

    /// `variant` inlined on `args` (checked against its sources' widths) for instruction `i`:
    /// its destinations in order. Each choice it brings is recorded with `i`'s location.
    fn inline(
        &mut self,
        variant: &Variant,
        args: &[ValueId],
        i: &Instr,
    ) -> Result<Vec<semfuzz_spec::ir::Inlined>, Diagnostic> {
        for (a, s) in args.iter().zip(&variant.sources) {
            if self.b.widths[*a as usize] != s.width {
                return Err(at(
                    &i.span,
                    format!(
                        "`{}` reads {} bits as {}, the IR gives {}",
                        variant.text, s.width, s.name, self.b.widths[*a as usize]
                    ),
                ));
            }
        }
        let before = self.choices.len();
        let out = self.b.inline(&variant.program, args, &mut self.choices);
        let (line, col) = i.span.file.line_col(i.span.start);
        for _ in before..self.choices.len() {
            self.choice_sites.push(format!(
                "`{}` at {}:{line}:{col}",
                variant.text, i.span.file.name
            ));
        }
        Ok(out)
    }

    /// Binds `i`'s result to `value`, the bits `variant` wrote, once they have the width of
    /// the IR result type.
    fn finish(
        &mut self,
        i: &Instr,
        variant: &Variant,
        value: StateValue,
        result_ty: Type,
    ) -> Result<(), Diagnostic> {
        self.check_width(i, variant, value.bits, &result_ty)?;
        self.variants.push(variant.text.clone());
        self.define(i, value, result_ty)
    }

    /// That `value`, which `variant` wrote, has the width of the IR type `t`.
    fn check_width(
        &self,
        i: &Instr,
        variant: &Variant,
        value: ValueId,
        t: &Type,
    ) -> Result<(), Diagnostic> {
        let want = self.width_of(t, &i.span)?;
        if self.b.widths[value as usize] != want {
            return Err(at(
                &i.span,
                format!(
                    "`{}` writes {} bits, the IR result {t} has {want}",
                    variant.text, self.b.widths[value as usize]
                ),
            ));
        }
        Ok(())
    }

    /// A call of `@llvm.nvvm.NAME`: the PTX variant NVPTX selects for it, on the operands'
    /// whole bits (docs/llvm-ir-spec.md, "NVVM intrinsics").
    /// `@llvm.nvvm.read.ptx.sreg.NAME()`: the input of the special register `%NAME`.
    fn special_register(&mut self, i: &Instr, register: &str) -> Result<(), Diagnostic> {
        let name = format!("%{register}");
        let Some(&id) = self.special_registers.get(name.as_str()) else {
            return Err(
                unsupported(&i.opcode_span, format!("special register `{name}`")).with_hint(
                    format!(
                    "a thread's inputs are the special registers that place it in its launch: {}",
                    launch::SPECIAL_REGISTERS.join(", ")
                ),
                ),
            );
        };
        if let Some(result) = &i.result {
            self.state
                .env
                .insert(result.clone(), (StateValue::defined(id), Type::Int(32)));
        }
        Ok(())
    }

    fn nvvm_call(
        &mut self,
        i: &Instr,
        name: &str,
        operands: &[&crate::syntax::Operand],
        ty: &[Type],
        result_ty: Type,
    ) -> Result<(), Diagnostic> {
        let callee = format!("@llvm.nvvm.{name}");
        // `tail`/`musttail`/`notail` are hints about the caller's frame, not fast-math flags.
        if let Some(f) = i
            .flags
            .iter()
            .find(|f| !matches!(f.as_str(), "tail" | "musttail" | "notail"))
        {
            return Err(unsupported(
                &i.opcode_span,
                format!("fast-math flag `{f}` on `{callee}`"),
            )
            .with_hint("the PTX instruction an NVVM intrinsic selects has no such licence (docs/ambiguities.md 84)"));
        }
        let text = crate::nvvm::ptx_text(name).map_err(|why| {
            unsupported(&i.opcode_span, format!("intrinsic `{callee}`")).with_note(why)
        })?;
        let variant = self.spec.lookup(&text, Some(operands.len())).map_err(|_| {
            unsupported(
                &i.opcode_span,
                format!("`{callee}`: NVPTX selects `{text}`, which the catalogue does not have"),
            )
            .with_hint("`semfuzz list 'PATTERN'` shows the PTX variants the specs build")
        })?;
        let mut args = Vec::new();
        let mut read = None;
        for (o, t) in operands.iter().zip(ty) {
            let v = self.value(&o.value, t, &o.span)?;
            args.push(v.bits);
            let any = v.poison.map(|p| self.any_lane(p, t));
            read = self.b.or_pred(read, any);
        }
        let out = self.inline(variant, &args, i)?[0];
        // The PTX instruction reads whole registers: a poisoned operand lane poisons every
        // lane of the result (more poison only allows the source more).
        let lanes = result_ty.lanes();
        let poison = read.map(|p| {
            let every: Vec<Option<ValueId>> = vec![Some(p); lanes as usize];
            self.join_poison(&every).expect("some lane")
        });
        let value = StateValue {
            bits: out.value,
            poison,
        };
        self.finish(i, variant, value, result_ty)
    }

    /// Whether any lane of the poison bits `p` of a `t` is set (one bit).
    fn any_lane(&mut self, p: ValueId, t: &Type) -> ValueId {
        if t.lanes() == 1 {
            return p;
        }
        let zero = self.b.konst(0, t.lanes());
        let none = self.b.emit(Op::BvEq(p, zero), 1);
        self.b.emit(Op::Not(1, none), 1)
    }

    fn define(&mut self, i: &Instr, value: StateValue, t: Type) -> Result<(), Diagnostic> {
        match &i.result {
            Some(r) => {
                self.state.env.insert(r.clone(), (value, t));
                Ok(())
            }
            None => Ok(()),
        }
    }

    /// The variant `text` of the contract, taking `n` operands.
    fn find(&self, text: &str, n: usize, i: &Instr) -> Result<&'s Variant, Diagnostic> {
        if let Ok(v) = self.spec.lookup(text, Some(n)) {
            return Ok(v);
        }
        Err(unsupported(&i.opcode_span, format!("`{text}`: no such variant in the catalogue"))
            .with_hint("docs/llvm-ir-spec.md names each IR instruction's variant; `semfuzz list 'ir_*'` shows those the specs build"))
    }

    /// The PTX variant a compiler flag licenses in place of IR operation `opcode` on `elem` in
    /// `modes` ([`Licences`]): `div.approx.ftz.f32` for `fdiv float` under
    /// `-nvptx-prec-divf32=0` in preserve-sign mode, or, where no flag says otherwise, in a
    /// function whose `"unsafe-fp-math"` the compiler reads (LLVM 14-21's NVPTX divides with
    /// `div.approx.f32` there: docs/ambiguities.md 185); with whether that attribute is what
    /// licenses it. `None` where nothing is licensed, or the mode is one the PTX instruction
    /// cannot follow (positive-zero, dynamic).
    fn licensed_instead(
        &self,
        opcode: &str,
        elem: &Type,
        modes: &Denormal,
    ) -> Option<(String, bool)> {
        if elem != &Type::Float(FloatTy::Float) {
            return None;
        }
        let unsafe_math = self.reads_unsafe_fp_math();
        let by_attribute = opcode == "ir_fdiv" && self.licences.f32_division.is_none();
        let base = match opcode {
            "ir_fdiv" => match self.licences.f32_division {
                Some(d) => d,
                None if unsafe_math => "div.approx",
                None => return None,
            },
            "llvm_sqrt" if self.licences.approximate_f32_sqrt => "sqrt.approx",
            _ => return None,
        };
        let ftz = match modes.f32 {
            (Mode::Ieee, Mode::Ieee) => "",
            (Mode::PreserveSign, Mode::PreserveSign) => ".ftz",
            _ => return None,
        };
        Some((format!("{base}{ftz}.f32"), by_attribute))
    }

    /// `own` or any result of the variants `others` on `args`: an operation whose allowed set a
    /// licence widens ([`Licences`]). A choice of the source's, so the target may compute any
    /// of them; `what` names it where a counterexample lists the choices.
    fn or_licensed(
        &mut self,
        i: &Instr,
        own: ValueId,
        others: &[String],
        args: &[ValueId],
        what: &str,
    ) -> Result<ValueId, Diagnostic> {
        let mut value = own;
        let w = self.b.widths[own as usize];
        for text in others {
            let v = self.find(text, args.len(), i)?;
            let out = self.inline(v, args, i)?;
            self.variants.push(v.text.clone());
            // One bit per alternative, which the prover splits into its two cases rather than
            // quantify over a value of the format (`sequence::Query`'s one-bit choices).
            let bit = [self.b.konst(0, 1), self.b.konst(1, 1)];
            let other = self.choose(Outcome::OneOf(bit.to_vec()), 1, what, &i.span);
            value = self.b.emit(Op::Select(other, out[0].value, value), w);
            self.licensed = true;
        }
        Ok(value)
    }

    /// `llvm.convert.to.fp16` (`to_half`) and `llvm.convert.from.fp16`, read as LangRef defines
    /// them: "a conversion from a conventional floating-point type to half precision", its
    /// result in an `i16`, which is `fptrunc` to `half` with the bits kept; and "a conversion
    /// from half precision floating-point format to single precision", `fpext` of the `i16`'s
    /// bits as a `half`.
    fn fp16_conversion(
        &mut self,
        i: &Instr,
        to_half: bool,
        modes: &Denormal,
    ) -> Result<(), Diagnostic> {
        let ([o], Some(result), Some(result_ty)) = (i.operands.as_slice(), &i.result, &i.ty) else {
            return Err(at(
                &i.span,
                format!(
                    "`@{}` takes one argument",
                    i.callee.as_deref().unwrap_or("")
                ),
            ));
        };
        let half = Type::Float(FloatTy::Half);
        let converted = format!("{result}.fp16");
        let (operand, from, to) = if to_half {
            (o.clone(), o.ty.clone().expect("typed"), half.clone())
        } else {
            // The `i16`'s bits, as a `half` value of their own.
            let bits = self.value(&o.value, &Type::Int(16), &o.span)?;
            let as_half = format!("{result}.bits");
            self.state.env.insert(as_half.clone(), (bits, half.clone()));
            let operand = Operand {
                ty: Some(half.clone()),
                attrs: String::new(),
                value: Value::Local(as_half),
                span: o.span.clone(),
            };
            (operand, half.clone(), result_ty.clone())
        };
        let cast = Instr {
            result: Some(converted.clone()),
            opcode: if to_half { "fptrunc" } else { "fpext" }.into(),
            flags: Vec::new(),
            pred: None,
            ty: Some(from),
            callee: None,
            operands: vec![operand],
            to: Some(to),
            metadata: Vec::new(),
            shape: Shape::Cast,
            raw: String::new(),
            globals: Vec::new(),
            span: i.span.clone(),
            opcode_span: i.opcode_span.clone(),
        };
        self.plain_instr(&cast, modes)?;
        let (value, _) = self.state.env[&converted].clone();
        self.define(i, value, result_ty.clone())
    }

    /// A call of a function the module only declares (`declare half @callee(half, half)`):
    /// nothing is known of what it computes, so, as Alive2 reads an unknown call, its result is
    /// whatever the callee returns (a fresh input, `@callee#N`, which the PTX reader gives the
    /// PTX's N-th call of it too) and its arguments are what the function passes it (results,
    /// `@callee#N(arg K)`, which the PTX must pass alike). So the target must call the same
    /// functions in the same order with the same arguments, and is then judged for every
    /// callee (docs/ambiguities.md 178). A call on a conditional path or with a pointer is
    /// not read.
    fn external_call(
        &mut self,
        i: &Instr,
        callee: &str,
        operands: &[&Operand],
        ty: &[Type],
        result_ty: Type,
    ) -> Result<(), Diagnostic> {
        let refused = |why: &str| {
            unsupported(&i.opcode_span, format!("call of `@{callee}` {why}")).with_hint(
                "semfuzz reads an unconditional call of a declared function with value arguments as a free function of them",
            )
        };
        if self.path.is_some() {
            return Err(refused("on a conditional path"));
        }
        let pointer = |t: &Type| matches!(t.elem(), Type::Ptr(_));
        if ty.iter().any(pointer) || pointer(&result_ty) {
            return Err(refused("with a pointer, whose memory effects are unknown"));
        }
        let n = self.external_calls.entry(callee.to_string()).or_default();
        let call = format!("@{callee}#{n}");
        *n += 1;
        for (k, (o, t)) in operands.iter().zip(ty).enumerate() {
            let v = self.value(&o.value, t, &o.span)?;
            self.call_arguments
                .push((format!("{call}(arg {k})"), v, t.clone(), o.span.clone()));
        }
        if result_ty == Type::Void {
            return Ok(());
        }
        let width = self.width_of(&result_ty, &i.span)?;
        let k = self.first_call_input + self.call_inputs.len();
        let id = self.b.emit(Op::Input(k as u16), width);
        self.call_inputs.push(Slot {
            name: call,
            width,
            kind: kind_of(&result_ty),
        });
        self.define(i, StateValue::defined(id), result_ty)
    }

    /// The poison of `c ? a : b`, given each arm's.
    fn select_poison(
        &mut self,
        c: ValueId,
        a: Option<ValueId>,
        b: Option<ValueId>,
    ) -> Option<ValueId> {
        if a.is_none() && b.is_none() {
            return None;
        }
        let no = self.b.konst(0, 1);
        let (a, b) = (a.unwrap_or(no), b.unwrap_or(no));
        Some(self.b.emit(Op::Select(c, a, b), 1))
    }

    /// For a variable lane index (operand `k` of `i`) into `n` lanes: whether it names each
    /// lane, and where the result is poison (the index is, or is `n` or more).
    fn lane_hits(&mut self, i: &Instr, k: usize, n: u32) -> Result<LaneHits, Diagnostic> {
        let o = &i.operands[k];
        let t = o.ty.clone().expect("typed");
        let idx = self.value(&o.value, &t, &o.span)?;
        let w = self.b.widths[idx.bits as usize];
        let each = (0..n)
            .map(|l| {
                let c = self.b.konst(u64::from(l), w);
                self.b.emit(Op::BvEq(idx.bits, c), 1)
            })
            .collect();
        let last = self.b.konst(u64::from(n - 1), w);
        let beyond = self.b.emit(Op::BvUlt(last, idx.bits), 1);
        Ok(LaneHits {
            each,
            poison: self.b.or_pred(idx.poison, Some(beyond)),
        })
    }

    /// `extractelement`, `insertelement` (with constant or variable lanes) and `shufflevector`
    /// with a constant mask: bits moved, and each lane's poison with them.
    fn vector_op(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let ops = &i.operands;
        let ty = |k: usize| ops[k].ty.clone().expect("typed");
        let index = |k: usize| -> Result<u32, Diagnostic> {
            match &ops[k].value {
                Value::Const(c) => c
                    .parse::<u32>()
                    .map_err(|_| unsupported(&ops[k].span, format!("lane index `{c}`"))),
                _ => Err(unsupported(
                    &ops[k].span,
                    format!("a variable lane index in `{}`", i.opcode),
                )),
            }
        };
        let lane_of = |s: &mut Self, k: usize, l: u32| -> Result<StateValue, Diagnostic> {
            let t = ty(k);
            if l >= t.lanes() {
                return Err(at(&ops[k].span, format!("lane {l} of a {t}")));
            }
            let v = s.value(&ops[k].value, &t, &ops[k].span)?;
            Ok(StateValue {
                bits: s.lane(v.bits, &t, l),
                poison: s.lane_poison(v, &t, l),
            })
        };
        let variable = |k: usize| !matches!(ops[k].value, Value::Const(_));
        let (value, rt) = match (i.opcode.as_str(), ops.len()) {
            ("extractelement", 2) if variable(1) => {
                let n = ty(0).lanes();
                let lanes = (0..n)
                    .map(|k| lane_of(self, 0, k))
                    .collect::<Result<Vec<_>, _>>()?;
                let hits = self.lane_hits(i, 1, n)?;
                // LangRef 'extractelement': "If idx exceeds the length of val for a
                // fixed-length vector, the result is a poison value".
                let mut value = lanes[0];
                for (l, hit) in lanes.iter().zip(&hits.each).skip(1) {
                    let w = self.b.widths[l.bits as usize];
                    let bits = self.b.emit(Op::Select(*hit, l.bits, value.bits), w);
                    let poison = self.select_poison(*hit, l.poison, value.poison);
                    value = StateValue { bits, poison };
                }
                value.poison = self.b.or_pred(value.poison, hits.poison);
                (value, ty(0).elem().clone())
            }
            ("insertelement", 3) if variable(2) => {
                let t = ty(0);
                let e = self.value(&ops[1].value, &ty(1), &ops[1].span)?;
                let hits = self.lane_hits(i, 2, t.lanes())?;
                // LangRef 'insertelement': "If idx exceeds the length of val for a
                // fixed-length vector, the result is a poison value" (every lane of it).
                let mut lanes = Vec::new();
                for (k, hit) in hits.each.iter().enumerate() {
                    let old = lane_of(self, 0, k as u32)?;
                    let w = self.b.widths[old.bits as usize];
                    let bits = self.b.emit(Op::Select(*hit, e.bits, old.bits), w);
                    let poison = self.select_poison(*hit, e.poison, old.poison);
                    let poison = self.b.or_pred(poison, hits.poison);
                    lanes.push(StateValue { bits, poison });
                }
                (self.join(&lanes), t)
            }
            ("extractelement", 2) => {
                let l = index(1)?;
                (lane_of(self, 0, l)?, ty(0).elem().clone())
            }
            ("insertelement", 3) => {
                let l = index(2)?;
                let t = ty(0);
                let e = self.value(&ops[1].value, &ty(1), &ops[1].span)?;
                let lanes = (0..t.lanes())
                    .map(|k| if k == l { Ok(e) } else { lane_of(self, 0, k) })
                    .collect::<Result<Vec<_>, _>>()?;
                (self.join(&lanes), t)
            }
            ("shufflevector", 3) => {
                let n = ty(0).lanes();
                // LangRef 'shufflevector': "If the shuffle mask is undef or poison, the result
                // vector is all poison"; likewise an element of it for its lane.
                let mask_lanes: Vec<Option<u32>> = match &ops[2].value {
                    Value::Const(c) if c == "zeroinitializer" => {
                        vec![Some(0); ty(2).lanes() as usize]
                    }
                    Value::Const(c) if c == "poison" || c == "undef" => {
                        vec![None; ty(2).lanes() as usize]
                    }
                    Value::Vector(items) => items
                        .iter()
                        .map(|(_, v)| match v {
                            Value::Const(c) if c == "poison" || c == "undef" => Ok(None),
                            Value::Const(c) => c.parse::<u32>().map(Some).map_err(|_| {
                                unsupported(&ops[2].span, format!("mask element `{c}`"))
                            }),
                            _ => Err(unsupported(&ops[2].span, "a variable mask")),
                        })
                        .collect::<Result<_, _>>()?,
                    _ => return Err(unsupported(&ops[2].span, "this shuffle mask")),
                };
                let elem = ty(0).elem().clone();
                let w = self.width_of(&elem, &ops[0].span)?;
                let mut lanes = Vec::new();
                for m in &mask_lanes {
                    lanes.push(match m {
                        Some(m) if *m < n => lane_of(self, 0, *m)?,
                        Some(m) => lane_of(self, 1, m - n)?,
                        None => StateValue {
                            bits: self.b.konst(0, w),
                            poison: Some(self.b.konst(1, 1)),
                        },
                    });
                }
                let rt = Type::Vector(mask_lanes.len() as u32, Box::new(elem));
                (self.join(&lanes), rt)
            }
            _ => {
                return Err(at(
                    &i.span,
                    format!("`{}` with {} operands", i.opcode, ops.len()),
                ))
            }
        };
        self.width_of(&rt, &i.span)?;
        self.define(i, value, rt)
    }
}

/// How a value of type `t` reads.
fn kind_of(t: &Type) -> PartKind {
    match t {
        Type::Float(f) => PartKind::Float(match f {
            FloatTy::Half => semfuzz_fp::Format::F16,
            FloatTy::BFloat => semfuzz_fp::Format::BF16,
            FloatTy::Float => semfuzz_fp::Format::F32,
            FloatTy::Double => semfuzz_fp::Format::F64,
        }),
        Type::Int(1) => PartKind::Pred,
        _ => PartKind::Bits,
    }
}

/// The bits of the double `d` in `to`, where that conversion loses nothing (LLVM's
/// `ConstantFP::isValueValidForType`): a number exactly representable, or a NaN whose payload
/// bits below `to`'s precision are zero (its payload's top bits kept, as APFloat's `convert`
/// keeps them).
fn narrow_exactly(d: u64, to: Format) -> Option<u64> {
    let f64f = Format::F64;
    if f64f.is_nan(d) {
        let drop = f64f.precision() - to.precision();
        let payload = d & mask(52);
        if payload & mask(drop) != 0 {
            return None;
        }
        let sign = (d >> 63) << (to.width() - 1);
        return Some(sign | to.inf(false) | (payload >> drop));
    }
    let r = semfuzz_fp::convert(f64f, to, d, Round::NearestEven);
    (semfuzz_fp::convert(to, f64f, r, Round::NearestEven) == d).then_some(r)
}

/// A scalar constant's bits (LangRef, "Simple Constants": hexadecimal floats are the bits of a
/// double, `0xH`/`0xR` those of a half/bfloat; a decimal float must be exact in its type;
/// LLVM 24 also writes `f0x` and the bits in the type's own format).
fn constant(c: &str, t: &Type) -> Result<u64, String> {
    if c == "zeroinitializer" {
        return Ok(0);
    }
    if c == "poison" || c == "undef" {
        return Err("poison and undef constants are not modelled".into());
    }
    if let Type::Ptr(_) = t {
        // LangRef "Simple Constants": "The identifier 'null' is recognized as a null pointer
        // constant"; NVPTX's generic null is address 0.
        return if c == "null" {
            Ok(0)
        } else {
            Err("the only pointer constant semfuzz reads is `null`".into())
        };
    }
    match t {
        Type::Int(n) => {
            let v: i128 = match c {
                "true" => 1,
                "false" => 0,
                _ => c.parse().map_err(|_| "not an integer".to_string())?,
            };
            let w = *n;
            let fits = if w >= 64 {
                v >= i128::from(i64::MIN) && v <= i128::from(u64::MAX)
            } else {
                v >= -(1i128 << (w - 1)) && v < (1i128 << w)
            };
            if !fits {
                return Err(format!("does not fit in {w} bits"));
            }
            Ok(v as u64 & mask(w))
        }
        Type::Float(f) => {
            let hex16 = |p: &str| {
                c.strip_prefix(p)
                    .filter(|h| h.len() == 4)
                    .and_then(|h| u64::from_str_radix(h, 16).ok())
            };
            match f {
                FloatTy::Half => {
                    if let Some(b) = hex16("0xH") {
                        return Ok(b);
                    }
                }
                FloatTy::BFloat => {
                    if let Some(b) = hex16("0xR") {
                        return Ok(b);
                    }
                }
                _ => {}
            }
            // LLVM 24's `f0x...`: the bits in the constant's own format.
            if let Some(h) = c.strip_prefix("f0x") {
                return u64::from_str_radix(h, 16)
                    .ok()
                    .filter(|b| h.len() <= f.bits() as usize / 4 && b & !mask(f.bits()) == 0)
                    .ok_or_else(|| format!("`{c}` is not {} hex bits", f.bits()));
            }
            if ["0xK", "0xL", "0xM"].iter().any(|p| c.starts_with(p)) {
                return Err(format!(
                    "`{}` spells an x86_fp80, fp128 or ppc_fp128 constant, which {} cannot hold",
                    &c[..3],
                    f.keyword()
                ));
            }
            // LLVM prints a double's bits without leading zeros (`0x730D67819E8D2`).
            let d = if let Some(h) = c.strip_prefix("0x").filter(|h| (1..=16).contains(&h.len())) {
                u64::from_str_radix(h, 16).map_err(|_| "bad hex".to_string())?
            } else {
                c.parse::<f64>()
                    .map_err(|_| "not a float constant".to_string())?
                    .to_bits()
            };
            let format = match f {
                FloatTy::Double => return Ok(d),
                FloatTy::Float => Format::F32,
                FloatTy::BFloat => Format::BF16,
                FloatTy::Half => Format::F16,
            };
            narrow_exactly(d, format).ok_or_else(|| {
                format!(
                    "not exact in {} (LLParser: \"floating point constant invalid for type\")",
                    f.keyword()
                )
            })
        }
        _ => Err("not a scalar".into()),
    }
}
