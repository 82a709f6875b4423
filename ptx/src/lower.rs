//! A PTX function as one [`Program`]: every instruction is a variant of the catalogue, inlined.
//!
//! The reader walks the body once, keeping a symbolic register file and memory:
//! - **Instructions** are looked up by their opcode text and operand shape
//!   ([`Spec::variants_named`]) and their programs inlined through the [`Builder`], so constants
//!   fold and identical operations are shared across instructions. Nothing here knows what an
//!   instruction means: the spec files do.
//! - **Registers** follow PTX ISA 9.4.1 (quoted in `spec/isa-docs/ptx-9.4.1-operand-size.md`):
//!   a source register wider than the instruction's operand is chopped to its low bits; a
//!   destination register wider than the result is sign-extended for a signed integer type and
//!   zero-extended otherwise.
//! - **Parameters and memory** are bytes. A `.func`'s parameters are the program's inputs, its
//!   return parameters its results, each as many bytes as the body writes from the first (a
//!   `half` returned in a `.b32`, as 7.1 promotes a subword scalar, is 16 bits); a parameter
//!   loaded whole as 64 bits may be a pointer: used
//!   as an address (directly, through `cvta`, or plus a constant), it names memory whose bytes
//!   are inputs where first read and results where stored (`[name+off]`), as numba-cuda's device
//!   functions return their value and kernels read and write arrays.
//! - **Control flow**: guarded instructions (`@%p`, `@!%p`) and forward branches (`bra`, `ret`)
//!   are if-converted: each instruction runs under the disjunction of the paths that reach
//!   it, and what it writes is a select between the new and the old value. A backward branch
//!   (a loop) runs the statements from its label again under the paths that take it, up to
//!   the bound ([`DEFAULT_UNROLL`] runs of the body per entry); the paths that would run it
//!   once more are cut, and the program's last destination, [`BOUNDED`], is false where one
//!   was. A call or an instruction semfuzz does not specify is a located error.
//! - **Choices**: an intermediate result the ISA leaves open (a NaN whose payload is
//!   unspecified) that a later instruction reads becomes an [`Op::Choose`]; one that flows only
//!   into results stays an outcome, as in a single instruction.

use crate::syntax::{
    type_bits, Function, FunctionKind, Imm, Instr, Module, Operand, OperandKind, Statement,
    Variable,
};
use semfuzz_spec::diag::{Diagnostic, Span};
pub use semfuzz_spec::ir::Slot;
use semfuzz_spec::ir::{mask, Builder, Dest, Op, Outcome, PartKind, Program, ValueId};
use semfuzz_spec::launch::{self, Launch};
use semfuzz_spec::memory::{self, Memory};
use semfuzz_spec::resolved::Requirement;
use semfuzz_spec::{Spec, Variant};
use std::collections::HashMap;

mod inline_asm;
mod memory_ops;

pub use inline_asm::{read_inline_asm, AsmContext, AsmOutcome, AsmRegister};

/// A function read into one program.
#[derive(Clone, Debug)]
pub struct PtxFunction {
    /// The function's name.
    pub name: String,
    /// `.func` or `.entry`.
    pub kind: FunctionKind,
    /// The program's inputs, in order (parameters first, then memory as first read).
    pub inputs: Vec<Slot>,
    /// The results, one destination of the program each.
    pub results: Vec<Slot>,
    /// The program: inputs as above, one destination per result.
    pub program: Program,
    /// Where each intermediate choice of the program comes from: the instruction's location
    /// and text.
    pub choice_sites: Vec<String>,
    /// How many instructions the body has (labels and declarations not counted).
    pub instructions: usize,
    /// The bound each loop was unrolled to, where the body has a loop: then the program has
    /// one more destination after the results, [`BOUNDED`].
    pub unrolled: Option<u32>,
    /// Its launch attributes (`.reqntid`, `.maxntid`), which bound the special registers
    /// among its inputs.
    pub launch: Launch,
    /// The CTA it was read as, where it was read as one ([`read_cta`]): then its results are
    /// the memory the threads leave, [`memory::IN_BOUNDS`], [`RACE_FREE`] and
    /// [`WARP_STORES_AGREE`], and its special-register inputs are `%ctaid` (unless fixed) and
    /// `%nctaid` only.
    pub cta: Option<Cta>,
}

/// A CTA read whole (issue 31): `shape` threads along x, y and z (`%tid` from 0, `%ntid` =
/// `shape`, the threads numbered x fastest and `%laneid` that number mod 32, as the CUDA
/// Programming Guide forms warps), run together, each pointer parameter's block `block_bytes`
/// bytes long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cta {
    /// The CTA's extent along x, y and z (`%ntid`); at most 1024 threads in all.
    pub shape: [u32; 3],
    /// How many bytes each pointer parameter's block holds (a multiple of 8).
    pub block_bytes: u32,
    /// How many bytes an `.extern .shared` array (`global_smem[]`, sized at launch) holds.
    pub extern_shared_bytes: u32,
    /// The CTA's place in the grid along x (`%ctaid` = (x, 0, 0)), where fixed; else `%ctaid`
    /// is an input. Fixed at 0, a row offset `%ctaid.x * stride` folds to 0, so each access
    /// of the row is one byte range instead of a select over the block.
    pub ctaid: Option<u32>,
}

impl Cta {
    /// `threads` threads along x, with blocks of 8 bytes per thread: room for each thread's
    /// element of a row of `f64`s, or two of `f32`s.
    pub fn of(threads: u32) -> Cta {
        Cta::shaped([threads, 1, 1])
    }

    /// A CTA of `shape` threads along x, y and z, with blocks of 8 bytes per thread.
    pub fn shaped(shape: [u32; 3]) -> Cta {
        let mut cta = Cta {
            shape,
            block_bytes: 0,
            extern_shared_bytes: 0,
            ctaid: None,
        };
        let bytes = cta.threads().saturating_mul(8);
        cta.block_bytes = bytes.max(memory::DEFAULT_BLOCK_BYTES);
        cta.extern_shared_bytes = bytes;
        cta
    }

    /// How many threads the CTA has.
    pub fn threads(&self) -> u32 {
        self.shape.iter().fold(1u32, |n, d| n.saturating_mul(*d))
    }

    /// Special register `name` (`%tid.x`, `%ntid.y`, `%laneid`, ...) in thread `k` of the
    /// CTA (x fastest), where the CTA fixes it; `None` for what stays an input (`%ctaid`
    /// where no place is fixed, `%nctaid`).
    pub fn special_register(&self, name: &str, k: usize) -> Option<u64> {
        let [x, y, _] = self.shape.map(|d| u64::from(d.max(1)));
        let n = k as u64;
        let tid = [n % x, n / x % y, n / (x * y)];
        let axis = |r: &str| match r {
            "x" => Some(0),
            "y" => Some(1),
            "z" => Some(2),
            _ => None,
        };
        let (register, along) = name.split_once('.').unwrap_or((name, ""));
        match (register, self.ctaid) {
            ("%tid", _) => axis(along).map(|a| tid[a]),
            ("%ntid", _) => axis(along).map(|a| u64::from(self.shape[a])),
            ("%laneid", _) => Some(n % 32),
            ("%ctaid", Some(cx)) => axis(along).map(|a| if a == 0 { u64::from(cx) } else { 0 }),
            _ => None,
        }
    }
}

/// The name of a CTA's one-bit result: no data race (two threads touching a byte between two
/// barriers, at least one writing, not both atomically), where a race makes the kernel's
/// memory undefined (PTX ISA 8, "Memory Consistency Model": a data race has no defined
/// outcome for plain accesses).
pub const RACE_FREE: &str = "race_free";

/// The name of a CTA's one-bit result after [`RACE_FREE`]: every set of lanes of one warp
/// that stored to one location in one instruction stored the same bits. Where not, which
/// lane's write lands is undefined (CUDA Programming Guide 5.3.2) and the memory results are
/// the highest lane's (docs/ambiguities.md 175).
pub const WARP_STORES_AGREE: &str = "warp_stores_agree";

/// The most threads a CTA has (PTX ISA 10.4: `%ntid.x * %ntid.y * %ntid.z <= 1024`).
pub const MAX_THREADS: u32 = 1024;

/// The function `name` of `module` (or its one function with a body), read into a program,
/// loops unrolled to [`DEFAULT_UNROLL`].
pub fn read_function(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
) -> Result<PtxFunction, Diagnostic> {
    read_function_unrolled(spec, module, name, DEFAULT_UNROLL)
}

/// How many times a loop's body may run per entry into the loop (its backward branch taken
/// one time fewer), unless the caller says otherwise (`--unroll`); the `.ll` reader's bound
/// is the same.
pub const DEFAULT_UNROLL: u32 = 8;

/// The name of the destination a program with loops gets after its results: true where no
/// loop ran its body more often than the bound (a refinement query assumes it).
pub const BOUNDED: &str = "bounded";

/// [`read_function`] with each loop's body run at most `unroll` times per entry into the
/// loop.
pub fn read_function_unrolled(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
    unroll: u32,
) -> Result<PtxFunction, Diagnostic> {
    read_function_with_blocks(spec, module, name, unroll, &memory::Layout::default())
}

/// [`read_function_unrolled`] with its pointer parameters' memory laid out as `layout` says
/// (blocks a multiple of 8 bytes long): the layout the IR function it is judged against was
/// read with (`semfuzz_llir::IrFunction::layout`).
pub fn read_function_with_blocks(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
    unroll: u32,
    layout: &memory::Layout,
) -> Result<PtxFunction, Diagnostic> {
    let f = pick_function(module, name, false)?;
    read_shaped(spec, module, f, unroll, None, layout)
}

/// `name` read as one CTA of `cta.shape` threads (loops unrolled to `unroll`): every thread
/// runs the body, a warp collective reads the 32 lanes' operands (its warp-view variant,
/// docs/spec-language.md "Warp collectives"), a `bar.sync` ends a phase, and two threads that
/// touch a byte of memory within one phase, one of them writing, are a race ([`RACE_FREE`]).
pub fn read_cta(
    spec: &Spec,
    module: &Module,
    name: Option<&str>,
    unroll: u32,
    cta: Cta,
) -> Result<PtxFunction, Diagnostic> {
    let f = pick_function(module, name, true)?;
    if !(1..=MAX_THREADS).contains(&cta.threads()) || cta.shape.contains(&0) {
        return Err(Diagnostic::plain(format!(
            "a CTA has 1 to {MAX_THREADS} threads, not {}",
            shape_text(cta.shape)
        )));
    }
    if cta.block_bytes == 0 || !cta.block_bytes.is_multiple_of(8) {
        return Err(Diagnostic::plain(format!(
            "a block of {} bytes: blocks are whole 8-byte words",
            cta.block_bytes
        ))
        .with_hint("give --block-bytes a multiple of 8"));
    }
    if let Some(shape) = f.directive("reqntid").and_then(Launch::shape) {
        if shape != cta.shape {
            return Err(Diagnostic::plain(format!(
                "`{}` requires `.reqntid {}, {}, {}`, but the CTA is {} threads",
                f.name,
                shape[0],
                shape[1],
                shape[2],
                shape_text(cta.shape)
            ))
            .with_hint(format!("run it with --threads {}", shape_text(shape))));
        }
    }
    if !f.returns.is_empty() {
        return Err(at(
            &f.span,
            format!(
                "unsupported: `{}` returns a value per thread; a CTA's results are the memory it leaves",
                f.name
            ),
        )
        .with_hint("read a kernel (`.entry`) or a function without return parameters"));
    }
    let layout = memory::Layout {
        block_bytes: cta.block_bytes,
        ..memory::Layout::default()
    };
    read_shaped(spec, module, f, unroll, Some(cta), &layout)
}

/// `name` of `module`, or its one function with a body.
/// A CTA's shape as `--threads` takes it: `128`, `32x4`, `8x4x2`.
pub fn shape_text(shape: [u32; 3]) -> String {
    let used = match shape {
        [x, 1, 1] => vec![x],
        [x, y, 1] => vec![x, y],
        [x, y, z] => vec![x, y, z],
    };
    used.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

/// Reads a CTA's shape as [`shape_text`] writes it (`128`, `32x4`, `8x4x2`).
pub fn parse_shape(text: &str) -> Result<[u32; 3], String> {
    let dims: Vec<&str> = text.split('x').collect();
    if dims.len() > 3 {
        return Err(format!("`{text}` has more than three extents (x, y, z)"));
    }
    let mut shape = [1u32; 3];
    for (d, t) in shape.iter_mut().zip(&dims) {
        *d = t
            .trim()
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("`{t}` in `{text}` is not a positive thread count"))?;
    }
    Ok(shape)
}

/// Function `name`, or the module's one function; a CTA (`kernel`) runs a kernel, so there
/// the module's one `.entry` beside the `.func`s it calls.
fn pick_function<'m>(
    module: &'m Module,
    name: Option<&str>,
    kernel: bool,
) -> Result<&'m Function, Diagnostic> {
    let defined: Vec<&Function> = module
        .functions
        .iter()
        .filter(|f| f.body.is_some())
        .collect();
    let entries: Vec<&Function> = defined
        .iter()
        .copied()
        .filter(|f| f.kind == FunctionKind::Entry)
        .collect();
    Ok(match name {
        Some(n) => *defined.iter().find(|f| f.name == n).ok_or_else(|| {
            let names = defined.iter().map(|f| f.name.as_str());
            let hint = match semfuzz_spec::pattern::did_you_mean(n, names.clone()) {
                Some(near) => near,
                None => format!("it defines {}", list_names(names)),
            };
            Diagnostic::plain(format!("the module defines no function `{n}`")).with_hint(hint)
        })?,
        None => match defined.as_slice() {
            [one] => *one,
            _ if kernel && entries.len() == 1 => entries[0],
            [] => {
                return Err(Diagnostic::plain(
                    "the module defines no function (no `.func` or `.entry` with a body)",
                ))
            }
            many => {
                return Err(Diagnostic::plain(format!(
                    "the module defines {} functions",
                    many.len()
                ))
                .with_hint(format!(
                    "choose one with --func: {}",
                    list_names(many.iter().map(|f| f.name.as_str()))
                )))
            }
        },
    })
}

/// `f` read as one thread (`cta` none) or as a CTA, its pointer parameters' memory laid out as
/// `layout` says.
fn read_shaped(
    spec: &Spec,
    module: &Module,
    f: &Function,
    unroll: u32,
    cta: Option<Cta>,
    layout: &memory::Layout,
) -> Result<PtxFunction, Diagnostic> {
    let mutable = mutable_variables(module, f, layout)?;
    refuse_module_variables(module, f, cta.is_some(), &mutable)?;
    // A block per pointer parameter some access reaches: an access through a parameter
    // without one stops the read, which starts again with it (at most once per parameter).
    // The blocks keep their size: a PTX access past the IR's reach is the PTX's fault.
    let (read, _) =
        semfuzz_spec::memory::read_with_blocks(layout.block_bytes, false, |blocks, _| {
            let mut reader = Reader::new(spec, module, f, unroll);
            reader.cta = cta;
            reader.layout = layout.clone();
            reader.mutable.clone_from(&mutable);
            let read = reader.read(blocks);
            (read, reader.wanted, 0)
        });
    read
}

/// The error for an instruction whose operands fit none of its variants' signatures.
fn no_signature_fits(i: &Instr, opcode: &str, named: &[&Variant]) -> Diagnostic {
    let signatures: Vec<String> = named.iter().map(|v| v.signature()).collect();
    at(
        &i.span,
        format!("`{opcode}` takes {}", signatures.join(" or ")),
    )
}

/// The module variables `f`'s operands name (`ld.global.f32 %f1, [x];`, `mov.u64 %rd1, x;`),
/// each with the instruction's opcode and the operand that names it, unless a parameter hides
/// it.
fn named_variables<'m>(
    module: &'m Module,
    f: &'m Function,
) -> Vec<(&'m Variable, &'m str, &'m Operand)> {
    fn names(o: &Operand) -> Vec<&str> {
        match &o.kind {
            OperandKind::Name(n) | OperandKind::Address { base: n, .. } => vec![n.as_str()],
            OperandKind::Vector(items) => items.iter().flat_map(names).collect(),
            _ => Vec::new(),
        }
    }
    fn walk<'m>(
        module: &'m Module,
        f: &'m Function,
        body: &'m [Statement],
        found: &mut Vec<(&'m Variable, &'m str, &'m Operand)>,
    ) {
        for s in body {
            match s {
                Statement::Instr(i) => {
                    for o in &i.operands {
                        let shadowed = |n: &str| f.params.iter().any(|p| p.name == n);
                        found.extend(names(o).into_iter().filter_map(|n| {
                            let v = module
                                .variables
                                .iter()
                                .find(|v| v.name == n && !shadowed(n))?;
                            Some((v, i.opcode.as_str(), o))
                        }));
                    }
                }
                Statement::Block(b, _) => walk(module, f, b, found),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    walk(module, f, f.body.as_deref().unwrap_or_default(), &mut found);
    found
}

/// The PTX name LLVM gives IR global `@name`: each `.` written `_$_` (NVPTX's
/// `NVPTXAssignValidGlobalNames`).
fn ptx_global_name(name: &str) -> String {
    name.replace('.', "_$_")
}

/// The module variables `f` may write, each with its PTX name and its bytes (docs/ambiguities.md 184): those `layout` names (the IR's globals that are not
/// `constant`, whatever their PTX initializer says), or, with no IR, the `.global` variables
/// without an initializer that `f` names, by name.
fn mutable_variables(
    module: &Module,
    f: &Function,
    layout: &memory::Layout,
) -> Result<Vec<(String, u32)>, Diagnostic> {
    if let Some(globals) = &layout.globals {
        return Ok(globals
            .iter()
            .map(|(name, bytes)| (ptx_global_name(name), *bytes))
            .collect());
    }
    let mut found: Vec<(String, u32)> = Vec::new();
    for (v, ..) in named_variables(module, f) {
        if !v.text.starts_with(".global") || is_constant(v) {
            continue;
        }
        if found.iter().all(|(n, ..)| *n != v.name) {
            let (_, bytes) = variable_layout(v, 0)?;
            found.push((v.name.clone(), bytes));
        }
    }
    found.sort();
    Ok(found)
}

/// A located `unsupported` where `f` names a module variable semfuzz does not model: a
/// `.shared` one outside a CTA, a `.const` one without an initializer, one of another state
/// space; those in `mutable` and initialised constants are read.
fn refuse_module_variables(
    module: &Module,
    f: &Function,
    in_cta: bool,
    mutable: &[(String, u32)],
) -> Result<(), Diagnostic> {
    for (v, opcode, o) in named_variables(module, f) {
        let shared = v.text.starts_with(".shared");
        if (shared && in_cta) || is_constant(v) || mutable.iter().any(|(n, ..)| *n == v.name) {
            continue;
        }
        return Err(at(
            &o.span,
            format!(
                "unsupported: `{opcode}` names the module variable `{}`",
                v.name
            ),
        )
        .with_hint(if shared {
            "a `.shared` variable is the CTA's: read the kernel as a CTA (`--threads N`)"
        } else {
            "semfuzz models the memory pointer parameters point to, a CTA's `.shared` \
             variables and `.global` variables, and initialised `.const` variables read as \
             constants"
        }));
    }
    Ok(())
}

/// Whether module variable `v` is one a function reads as a constant: a `.global` or
/// `.const` variable with an initializer (what LLVM writes for a `constant` global).
fn is_constant(v: &Variable) -> bool {
    (v.text.starts_with(".global") || v.text.starts_with(".const")) && v.text.contains('=')
}

/// The bytes an initialised `.global`/`.const` variable holds (`.global .align 4 .b8
/// table[16] = {0, 0, 128, 63, ...}`, `.const .f32 c[2] = {0f3F800000, 1.5}`), lowest address
/// first: each element in the declared type, little-endian, the rest zero (PTX ISA 5.4.4).
fn constant_bytes(v: &Variable) -> Result<Vec<u8>, Diagnostic> {
    /// The largest constant read: every access is a select over its bytes.
    const MAX_CONSTANT: u32 = 256;
    let bad = |why: String| {
        at(
            &v.span,
            format!("unsupported module variable `{}`: {why}", v.name),
        )
    };
    let (decl, init) = v.text.split_once('=').unwrap_or((&v.text, ""));
    let declared = Variable {
        text: decl.trim().to_string(),
        ..v.clone()
    };
    let (_, size) = variable_layout(&declared, 0)?;
    if size > MAX_CONSTANT {
        return Err(bad(format!(
            "{size} bytes, more than the {MAX_CONSTANT} semfuzz reads"
        )));
    }
    let ty = decl
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('.'))
        .find(|w| type_bits(w).is_some())
        .ok_or_else(|| bad("no element type".into()))?;
    let width = type_bits(ty).unwrap_or(8);
    let element = width.div_ceil(8) as usize;
    let mut bytes = Vec::new();
    for item in init
        .split([',', '{', '}'])
        .map(str::trim)
        .filter(|x| !x.is_empty())
    {
        let bits = element_bits(item, ty, width)
            .ok_or_else(|| bad(format!("the initializer element `{item}`")))?;
        bytes.extend_from_slice(&bits.to_le_bytes()[..element]);
    }
    if bytes.len() > size as usize {
        return Err(bad("more initializer elements than it holds".into()));
    }
    bytes.resize(size as usize, 0);
    Ok(bytes)
}

/// An initializer element's bits as type `ty` of `width` bits: an integer (decimal, `0x` hex,
/// negative), a hex float (`0f3F800000`, `0d3FF0000000000000`), or a decimal float for a float
/// type.
fn element_bits(item: &str, ty: &str, width: u32) -> Option<u64> {
    let hex = |h: &str| u64::from_str_radix(h, 16).ok();
    let bits = if let Some(h) = item.strip_prefix("0f").or(item.strip_prefix("0F")) {
        hex(h)?
    } else if let Some(h) = item.strip_prefix("0d").or(item.strip_prefix("0D")) {
        hex(h)?
    } else if let Some(h) = item.strip_prefix("0x").or(item.strip_prefix("0X")) {
        hex(h)?
    } else if let Ok(n) = item.parse::<i64>() {
        n as u64
    } else if ty.starts_with('f') {
        match width {
            32 => u64::from(item.parse::<f32>().ok()?.to_bits()),
            64 => item.parse::<f64>().ok()?.to_bits(),
            _ => return None,
        }
    } else {
        return None;
    };
    Some(bits & semfuzz_spec::ir::mask(width))
}

/// The name a body's state-space declaration declares (`partial` of `.shared .f32
/// partial[32]`).
fn declared_name(text: &str) -> String {
    text.split_whitespace()
        .last()
        .unwrap_or_default()
        .split('[')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// A `.shared` or `.local` variable's alignment and size in bytes (`.shared .align 16 .b8
/// global_smem[]`, `.shared .f32 partial[32]`, `.local .align 4 .b8 __local_depot0[16]`); an
/// `.extern` array without a size holds `extern_bytes`.
fn variable_layout(v: &Variable, extern_bytes: u32) -> Result<(u32, u32), Diagnostic> {
    let space = v.text.split_whitespace().next().unwrap_or_default();
    let bad = |why: &str| {
        at(
            &v.span,
            format!("unsupported `{space}` variable `{}`: {why}", v.name),
        )
    };
    if v.text.contains('=') {
        return Err(bad(
            "it has an initializer, which its state space does not take",
        ));
    }
    let words: Vec<&str> = v.text.split_whitespace().collect();
    let element = words
        .iter()
        .filter_map(|w| w.strip_prefix('.'))
        .find_map(type_bits)
        .ok_or_else(|| bad("no element type"))?
        .div_ceil(8);
    let align = match words.iter().position(|w| *w == ".align") {
        Some(k) => words
            .get(k + 1)
            .and_then(|n| n.parse::<u32>().ok())
            .ok_or_else(|| bad("`.align` takes a number"))?,
        None => element,
    };
    let declarator = words.last().copied().unwrap_or_default();
    let mut size = element;
    for dim in declarator.split('[').skip(1) {
        let dim = dim.trim_end_matches(']');
        size = if dim.is_empty() {
            extern_bytes
        } else {
            let n: u32 = dim
                .parse()
                .map_err(|_| bad("an array bound semfuzz cannot read"))?;
            size.checked_mul(n).ok_or_else(|| bad("too large"))?
        };
    }
    /// The most shared memory one CTA has (sm_90: 227 KiB).
    const MAX_SHARED: u32 = 227 * 1024;
    /// The largest `.local` variable read: every access is a select over its bytes.
    const MAX_LOCAL: u32 = 256;
    if space == ".shared" && size > MAX_SHARED {
        return Err(bad("larger than a CTA's shared memory"));
    }
    if space == ".local" && size > MAX_LOCAL {
        return Err(bad(&format!(
            "larger than the {MAX_LOCAL} bytes semfuzz models of one thread's local memory"
        )));
    }
    Ok((align, size))
}

/// Whether the statements, or a function of `module` they call, name one of the special
/// registers a thread reads as inputs.
fn names_special_registers(module: &Module, body: &[Statement]) -> bool {
    fn walk<'m>(module: &'m Module, body: &'m [Statement], seen: &mut Vec<&'m str>) -> bool {
        fn names<'m>(module: &'m Module, o: &'m Operand, seen: &mut Vec<&'m str>) -> bool {
            match &o.kind {
                OperandKind::Name(n) if launch::SPECIAL_REGISTERS.contains(&n.as_str()) => true,
                OperandKind::Name(n) => match module
                    .functions
                    .iter()
                    .find(|f| f.name == *n && !seen.contains(&n.as_str()))
                {
                    Some(callee) => {
                        seen.push(&callee.name);
                        walk(module, callee.body.as_deref().unwrap_or_default(), seen)
                    }
                    None => false,
                },
                OperandKind::Vector(items) => items.iter().any(|i| names(module, i, seen)),
                _ => false,
            }
        }
        body.iter().any(|s| match s {
            Statement::Instr(i) => i.operands.iter().any(|o| names(module, o, seen)),
            Statement::Block(b, _) => walk(module, b, seen),
            _ => false,
        })
    }
    walk(module, body, &mut Vec::new())
}

/// How many function names a message lists before it stops.
const MAX_LISTED: usize = 8;

fn list_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    match names.len() {
        0 => "none".into(),
        n if n > MAX_LISTED => format!(
            "{} (and {} more)",
            names[..MAX_LISTED].join(", "),
            n - MAX_LISTED
        ),
        _ => names.join(", "),
    }
}

/// A register's current contents.
#[derive(Clone, Copy, Debug)]
struct Value {
    id: ValueId,
    kind: PartKind,
}

/// A memory byte's contents.
#[derive(Clone, Copy, Debug)]
enum Byte {
    /// Never written on any path (a return parameter before its `st.param`).
    Undefined,
    Known(ValueId),
}

/// Where `.param` memory lives: a parameter's own bytes, a return parameter's, or a call's
/// (what pointer parameters point to is the shared model's, `heap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Space {
    Param(usize),
    Return(usize),
    /// A `.param` a call passes or returns through, by its declaration's number.
    Call(usize),
}

/// What each thread of a CTA has of its own, kept here while another thread's is the reader's
/// (`Reader::switch_to`).
#[derive(Default)]
struct Thread {
    regs: HashMap<usize, Value>,
    memory: HashMap<(Space, i64), Byte>,
    path: Option<ValueId>,
    pending: HashMap<String, Option<ValueId>>,
    guard_now: Option<ValueId>,
    cut: Option<ValueId>,
}

/// One access to a block within the current phase of a CTA, for the race check.
struct PhaseAccess {
    thread: usize,
    /// The instruction all threads ran (`Reader::step`).
    step: usize,
    /// Whether the block is a `.shared` variable's (else a pointer parameter's).
    shared: bool,
    block: usize,
    /// Its offset in the block (64 bits) and length.
    offset: ValueId,
    bytes: u32,
    /// Where it happens (one bit: the thread's path and the instruction's guard).
    when: ValueId,
    /// What a write writes (`None`: a read).
    stored: Option<ValueId>,
    atomic: bool,
}

struct Reader<'s> {
    spec: &'s Spec,
    module: &'s Module,
    f: &'s Function,
    /// How the pointer parameters' memory is laid out.
    layout: memory::Layout,
    /// The functions being read, callers first (a call inlines its callee).
    calls: Vec<String>,
    /// The call parameters declared so far: name → number (a later declaration shadows).
    call_params: HashMap<String, usize>,
    /// The module's `.version` and `.target`, which every instruction must be valid for.
    declared: Requirement,
    b: Builder,
    inputs: Vec<Slot>,
    input_widths: Vec<u32>,
    /// The parameter each input holds whole, where it is 64 bits (a possible pointer).
    whole_param: HashMap<u16, usize>,
    /// Scopes of declared registers: name → (unique id, width); ranges `%r<12>` as prefix →
    /// (count, width) per scope.
    scopes: Vec<Scope>,
    next_reg: usize,
    regs: HashMap<usize, Value>,
    memory: HashMap<(Space, i64), Byte>,
    /// The blocks pointer parameters point to (`semfuzz_spec::memory`, `lower/memory_ops.rs`).
    heap: Memory,
    /// Where some access left its block or was misaligned (one bit; `None`: nowhere).
    fault: Option<ValueId>,
    /// The pointer parameter (its input) an access reached that has no block yet.
    wanted: Option<u16>,
    /// The guard of the instruction being read (`None`: none).
    guard_now: Option<ValueId>,
    /// The kind of each return parameter's value, from its stores.
    return_kinds: HashMap<usize, PartKind>,
    choices: Vec<Outcome>,
    choice_sites: Vec<String>,
    /// The products of `mul`s written without a rounding modifier: result → (the variant,
    /// its operands), which a later `add`/`sub` without one may be fused with.
    products: HashMap<ValueId, (&'s Variant, Vec<ValueId>)>,
    /// The condition under which the current instruction runs (`None`: always).
    path: Option<ValueId>,
    /// How many times each function the module only declares has been called so far.
    external_calls: HashMap<String, usize>,
    /// Those calls' arguments, in call order: results after the memory's.
    call_arguments: Vec<(String, ValueId)>,
    /// Conditions under which each label not yet reached is jumped to.
    pending: HashMap<String, Option<ValueId>>,
    labels_seen: HashMap<String, Span>,
    instructions: usize,
    /// How many times a loop's body may run per entry into the loop.
    unroll: u32,
    /// Whether the body has a loop.
    looped: bool,
    /// Where an execution would run some loop's body more often (`None`: nowhere).
    cut: Option<ValueId>,
    /// The CTA being read (`None`: one thread).
    cta: Option<Cta>,
    /// Every thread's own state but the current one's, which is the fields above (`regs`,
    /// `memory`, `path`, `pending`, `guard_now`, `cut`); empty for one thread.
    threads: Vec<Thread>,
    current: usize,
    /// The accesses to blocks since the last barrier.
    phase: Vec<PhaseAccess>,
    /// Whether the instruction being read is atomic (`atom`, `red`).
    atomic_now: bool,
    /// Where some phase had a race (`None`: nowhere).
    race: Option<ValueId>,
    /// Where lanes of one warp stored different bits to one location in one instruction.
    warp_stores_differ: Option<ValueId>,
    /// A CTA's `.shared` variables: one fixed block each, at the address `shared_vars` names.
    shared: Memory,
    shared_vars: HashMap<String, u64>,
    /// The module variables whose blocks are declared (the initialised `.global`/`.const`
    /// ones read so far, every one the function may write): their addresses.
    variables_read: HashMap<String, ValueId>,
    /// The module variables the function may write (`mutable_variables`): each one's name
    /// and its bytes.
    mutable: Vec<(String, u32)>,
    /// The body's `.local` variables (llc's `__local_depot0`): their sizes in bytes.
    local_vars: HashMap<String, u32>,
    /// Each thread's block of each `.local` variable, by (thread, name): the opaque address
    /// its bytes are at (`semfuzz_spec::memory::Base::Local`), made where the thread first
    /// names the variable.
    local_bases: HashMap<(usize, String), ValueId>,
    /// Whether the instruction being read accesses the `.shared` state space.
    shared_now: bool,
    /// How many instructions all threads have run together: the current one's number, which
    /// tells one warp's writes of one instruction from a race.
    step: usize,
}

#[derive(Clone, Default)]
struct Scope {
    names: HashMap<String, (usize, u32)>,
    ranges: Vec<(String, u32, usize, u32)>,
}

/// Whether an opcode component is a type (`f32`, `bf16x2`, `pred`, `e4m3x2`), which keeps
/// its place when modifiers are reordered.
fn is_type(component: &str) -> bool {
    let scalar = match component.rsplit_once('x') {
        Some((scalar, lanes)) if lanes.parse::<u32>().is_ok() => scalar,
        _ => component,
    };
    type_bits(scalar).is_some()
        || matches!(
            scalar,
            "bf16" | "tf32" | "e4m3" | "e5m2" | "e2m1" | "e2m3" | "e3m2" | "ue8m0"
        )
}

/// Calls `visit` with every order of `items[from..]`, swapping in place.
fn permutations<'a>(items: &mut [&'a str], from: usize, visit: &mut impl FnMut(&[&'a str])) {
    if from == items.len() {
        visit(items);
        return;
    }
    for k in from..items.len() {
        items.swap(from, k);
        permutations(items, from + 1, visit);
        items.swap(from, k);
    }
}

/// A module's declared target as its directives spell it (`.version 6.0, .target sm_50`).
fn declared_text(declared: Requirement) -> String {
    let version = declared.ptx.map(|(a, b)| format!(".version {a}.{b}"));
    let target = declared.sm.map(|sm| format!(".target sm_{sm}"));
    [version, target]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

fn at(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

impl<'s> Reader<'s> {
    fn new(spec: &'s Spec, module: &'s Module, f: &'s Function, unroll: u32) -> Reader<'s> {
        Reader {
            spec,
            module,
            f,
            layout: memory::Layout::default(),
            calls: Vec::new(),
            call_params: HashMap::new(),
            declared: module.declared(),
            b: Builder::default(),
            inputs: Vec::new(),
            input_widths: Vec::new(),
            whole_param: HashMap::new(),
            scopes: Vec::new(),
            next_reg: 0,
            regs: HashMap::new(),
            memory: HashMap::new(),
            heap: Memory::default(),
            fault: None,
            wanted: None,
            guard_now: None,
            return_kinds: HashMap::new(),
            choices: Vec::new(),
            choice_sites: Vec::new(),
            products: HashMap::new(),
            path: None,
            external_calls: HashMap::new(),
            call_arguments: Vec::new(),
            pending: HashMap::new(),
            labels_seen: HashMap::new(),
            instructions: 0,
            unroll,
            looped: false,
            cut: None,
            cta: None,
            threads: Vec::new(),
            current: 0,
            phase: Vec::new(),
            atomic_now: false,
            race: None,
            warp_stores_differ: None,
            shared: Memory::default(),
            shared_vars: HashMap::new(),
            variables_read: HashMap::new(),
            mutable: Vec::new(),
            local_vars: HashMap::new(),
            local_bases: HashMap::new(),
            shared_now: false,
            step: 0,
        }
    }

    /// Places the module's `.shared` variables, then those the kernel's body declares (as
    /// nvcc writes a `__shared__` array), in the CTA's shared window, in declaration order,
    /// each at its alignment, from address 0 (docs/ambiguities.md 175); their bytes start as
    /// any value (PTX ISA 5.1.4: shared memory is not initialised).
    fn declare_shared(&mut self, cta: Cta) -> Result<(), Diagnostic> {
        let in_body = self.f.body.iter().flatten().filter_map(|s| match s {
            Statement::Other(text, span) if text.starts_with(".shared") => Some(Variable {
                linkage: Vec::new(),
                name: declared_name(text),
                text: text.clone(),
                span: span.clone(),
            }),
            _ => None,
        });
        let declared: Vec<Variable> = self
            .module
            .variables
            .iter()
            .filter(|v| v.text.starts_with(".shared"))
            .cloned()
            .chain(in_body)
            .collect();
        let mut next: u64 = 0;
        for v in &declared {
            let (align, size) = variable_layout(v, cta.extern_shared_bytes)?;
            let address = next.next_multiple_of(u64::from(align.max(1)));
            next = address + u64::from(size);
            let bytes = self.unwritten_bytes(size, &format!("`.shared` `{}`", v.name));
            self.shared.add_fixed_block(address, bytes);
            self.shared_vars.insert(v.name.clone(), address);
        }
        Ok(())
    }

    /// Any value of `width` bits the target may hold, a choice of its own named by `site`
    /// (where it comes from, for reports).
    pub(super) fn any_value(&mut self, width: u32, site: String) -> ValueId {
        let any = semfuzz_spec::ir::any_bits_format(width).map_or_else(
            || Outcome::OneOf(vec![self.b.konst(0, width)]),
            Outcome::Any,
        );
        let choice = self.choices.len();
        self.choices.push(any);
        self.choice_sites.push(site);
        self.b.emit(Op::Choose(choice as u16), width)
    }

    /// `size` bytes of `what` that start as any value (memory never written), none poison.
    fn unwritten_bytes(&mut self, size: u32, what: &str) -> Vec<(ValueId, ValueId)> {
        let no = self.b.konst(0, 1);
        (0..size)
            .map(|k| {
                (
                    self.any_value(8, format!("byte {k} of {what}, never written")),
                    no,
                )
            })
            .collect()
    }

    /// The opaque address of a block of the function's own (`memory::local_address`).
    fn own_address(&mut self, site: String) -> ValueId {
        let free = self.any_value(memory::LOCAL_ADDRESS_BITS, site);
        memory::local_address(&mut self.b, free)
    }

    /// The current thread's block of `.local` variable `name` (local memory is private to
    /// the thread, PTX ISA 5.1.5): its address, opaque, and its bytes any value until written
    /// (docs/ambiguities.md 179), declared the first time the thread names it.
    fn local_base(&mut self, name: &str) -> ValueId {
        let key = (self.current, name.to_string());
        if let Some(&base) = self.local_bases.get(&key) {
            return base;
        }
        let size = self.local_vars[name];
        let bytes = self.unwritten_bytes(size, &format!("`.local` `{name}`"));
        let base = self.own_address(format!("the address of `.local` `{name}`"));
        self.heap.add_local_block(base, bytes);
        self.local_bases.insert(key, base);
        base
    }

    /// The initialised `.global`/`.const` module variable `name`, unless a parameter or a
    /// `.local` variable of the function hides it.
    fn constant_variable(&self, name: &str) -> Option<&Variable> {
        if self.f.params.iter().any(|p| p.name == name) || self.local_vars.contains_key(name) {
            return None;
        }
        self.module
            .variables
            .iter()
            .find(|v| v.name == name && is_constant(v))
    }

    /// Whether `name` is a module variable the function reads through its address (one it may
    /// write, or an initialised constant), unless a parameter or a `.local` variable of the
    /// function hides it.
    fn module_variable(&self, name: &str) -> bool {
        self.constant_variable(name).is_some()
            || (self.variables_read.contains_key(name)
                && !self.f.params.iter().any(|p| p.name == name)
                && !self.local_vars.contains_key(name))
    }

    /// The address of module variable `name`: a block the function may write, declared with
    /// its parameters' (`Reader::read`), or an initialised one's, declared where first named
    /// (one for every thread): its initializer's bytes, read-only, at an opaque address.
    fn variable_base(&mut self, name: &str) -> Result<ValueId, Diagnostic> {
        if let Some(&base) = self.variables_read.get(name) {
            return Ok(base);
        }
        let v = self
            .constant_variable(name)
            .expect("a constant variable")
            .clone();
        let bytes = constant_bytes(&v)?;
        let base = self.own_address(format!("the address of `{name}`"));
        self.heap.add_constant_block(&mut self.b, base, &bytes);
        self.variables_read.insert(name.to_string(), base);
        Ok(base)
    }

    /// How many threads are being read.
    fn thread_count(&self) -> usize {
        self.threads.len().max(1)
    }

    /// Makes thread `k`'s state the reader's own.
    fn switch_to(&mut self, k: usize) {
        if k == self.current || self.threads.is_empty() {
            return;
        }
        let current = self.current;
        self.exchange(current);
        self.exchange(k);
        self.current = k;
    }

    /// Swaps the reader's thread state with the one kept for thread `k`.
    fn exchange(&mut self, k: usize) {
        let t = &mut self.threads[k];
        std::mem::swap(&mut self.regs, &mut t.regs);
        std::mem::swap(&mut self.memory, &mut t.memory);
        std::mem::swap(&mut self.path, &mut t.path);
        std::mem::swap(&mut self.pending, &mut t.pending);
        std::mem::swap(&mut self.guard_now, &mut t.guard_now);
        std::mem::swap(&mut self.cut, &mut t.cut);
    }

    /// Runs `step` as each thread in turn (with its number), in order.
    fn each_thread(
        &mut self,
        mut step: impl FnMut(&mut Self, usize) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        for k in 0..self.thread_count() {
            self.switch_to(k);
            step(self, k)?;
        }
        Ok(())
    }

    fn input(&mut self, name: String, width: u32, kind: PartKind) -> ValueId {
        let id = self
            .b
            .emit(Op::Input(self.input_widths.len() as u16), width);
        self.input_widths.push(width);
        self.inputs.push(Slot { name, width, kind });
        id
    }

    /// Reads the function with a block for each pointer parameter (input) in `blocks`.
    fn read(&mut self, blocks: &[u16]) -> Result<PtxFunction, Diagnostic> {
        let f = self.f;
        // Every parameter is an input, in order, in chunks of at most 64 bits; its bytes are
        // the chunks' bytes (little-endian, as PTX lays out memory).
        for (i, p) in f.params.iter().enumerate() {
            let size = p.size().ok_or_else(|| {
                at(
                    &p.span,
                    format!("parameter `{}` has a type semfuzz cannot size", p.name),
                )
            })?;
            let chunks = size.div_ceil(8);
            for c in 0..chunks {
                let bytes = (size - c * 8).min(8);
                let name = if chunks == 1 {
                    p.name.clone()
                } else {
                    format!("{}[{}..{}]", p.name, c * 8, c * 8 + bytes)
                };
                let kind = float_kind(&p.ty, bytes * 8).unwrap_or(PartKind::Bits);
                if size == 8 {
                    self.whole_param.insert(self.input_widths.len() as u16, i);
                }
                let id = self.input(name, bytes * 8, kind);
                for k in 0..bytes {
                    let byte = self.extract(id, k * 8, 8);
                    self.memory
                        .insert((Space::Param(i), i64::from(c * 8 + k)), Byte::Known(byte));
                }
            }
        }
        for (i, p) in f.returns.iter().enumerate() {
            let size = p.size().ok_or_else(|| {
                at(
                    &p.span,
                    format!(
                        "return parameter `{}` has a type semfuzz cannot size",
                        p.name
                    ),
                )
            })?;
            for k in 0..size {
                self.memory
                    .insert((Space::Return(i), i64::from(k)), Byte::Undefined);
            }
        }
        let mut pointers: Vec<u16> = self.whole_param.keys().copied().collect();
        pointers.sort_unstable();
        self.heap = Memory::new(pointers);
        let names: Vec<String> = self.inputs.iter().map(|s| s.name.clone()).collect();
        let first = self.inputs.len();
        let slots = self.heap.declare_blocks(
            &mut self.b,
            blocks,
            |p| names[p as usize].clone(),
            first,
            &self.layout,
        );
        for slot in slots {
            self.input_widths.push(slot.width);
            self.inputs.push(slot);
        }
        // The module variables it may write, after the parameters' memory, in the order the
        // IR reader gives them.
        for (name, bytes) in self.mutable.clone() {
            let base = self.own_address(format!("the address of `{name}`"));
            let first = self.inputs.len();
            for slot in self.heap.add_global(&mut self.b, &name, base, bytes, first) {
                self.input_widths.push(slot.width);
                self.inputs.push(slot);
            }
            self.variables_read.insert(name, base);
        }
        let body = f
            .body
            .as_ref()
            .expect("read_function picks defined functions");
        // Every thread of a CTA starts with the same parameters.
        if let Some(cta) = self.cta {
            self.declare_shared(cta)?;
            self.threads = (0..cta.threads())
                .map(|_| Thread {
                    memory: self.memory.clone(),
                    ..Thread::default()
                })
                .collect();
        }
        // A function that reads where its thread is gets every special register as an input
        // after the memory (semfuzz_spec::launch): a register of the outermost scope that
        // holds it from the start. In a CTA, a thread's place in it is a constant, and only
        // the CTA's place in the grid is an input.
        let mut outermost = Scope::default();
        if names_special_registers(self.module, body) {
            for name in launch::SPECIAL_REGISTERS {
                self.next_reg += 1;
                let reg = self.next_reg;
                outermost.names.insert(name.to_string(), (reg, 32));
                let per_thread = |k: usize, cta: Cta| cta.special_register(name, k);
                let shared = match self.cta {
                    Some(cta) if per_thread(0, cta).is_some() => None,
                    _ => Some(self.input(name.to_string(), 32, PartKind::Bits)),
                };
                let cta = self.cta;
                self.each_thread(|r, k| {
                    let id = match (shared, cta) {
                        (Some(input), _) => input,
                        (None, Some(cta)) => r.b.konst(per_thread(k, cta).unwrap_or(0), 32),
                        (None, None) => unreachable!("one thread's registers are inputs"),
                    };
                    r.regs.insert(
                        reg,
                        Value {
                            id,
                            kind: PartKind::Bits,
                        },
                    );
                    Ok(())
                })?;
            }
        }
        self.scopes.push(outermost);
        self.block(body)?;
        if let Some((label, _)) = self.pending.iter().next() {
            return Err(at(
                &f.span,
                format!("`{}` branches to `{label}`, which it never defines", f.name),
            ));
        }
        self.finish()
    }

    fn block(&mut self, body: &[Statement]) -> Result<(), Diagnostic> {
        self.scopes.push(Scope::default());
        self.statements(body, false)?;
        self.scopes.pop();
        Ok(())
    }

    /// The statements of one scope, in order; `again` when they are a loop's body run once
    /// more, whose registers are declared already.
    fn statements(&mut self, body: &[Statement], again: bool) -> Result<(), Diagnostic> {
        for (k, s) in body.iter().enumerate() {
            match s {
                Statement::Reg(_) if again => {}
                Statement::Reg(decl) => {
                    let width = type_bits(&decl.ty).filter(|w| *w <= 64).ok_or_else(|| {
                        at(
                            &decl.span,
                            format!("registers of type .{} are not modelled", decl.ty),
                        )
                    })?;
                    let scope = self.scopes.last_mut().expect("pushed above");
                    for (name, count) in &decl.names {
                        self.next_reg += 1;
                        match count {
                            Some(n) => {
                                scope.ranges.push((name.clone(), *n, self.next_reg, width));
                                self.next_reg += *n as usize;
                            }
                            None => {
                                scope.names.insert(name.clone(), (self.next_reg, width));
                            }
                        }
                    }
                }
                Statement::Label(name, span) => {
                    self.labels_seen.insert(name.clone(), span.clone());
                    self.each_thread(|r, _| {
                        if let Some(cond) = r.pending.remove(name) {
                            r.path = r.or(r.path, cond);
                        }
                        Ok(())
                    })?;
                }
                Statement::Instr(i) => {
                    if !again {
                        self.instructions += 1;
                    }
                    match self.loop_head(i, &body[..k])? {
                        Some(head) => self.unroll_loop(&body[head..k], i)?,
                        None => self.instr_all(i)?,
                    }
                }
                Statement::Block(inner, _) => self.block(inner)?,
                Statement::Other(text, span) if text.starts_with(".param") => {
                    let (k, bytes) = self.declare_call_param(text, span)?;
                    self.each_thread(|r, _| {
                        for b in 0..bytes {
                            r.memory
                                .insert((Space::Call(k), i64::from(b)), Byte::Undefined);
                        }
                        Ok(())
                    })?;
                }
                // Declared with the CTA (`Reader::declare_shared`).
                Statement::Other(text, _)
                    if text.starts_with(".shared") && !self.threads.is_empty() => {}
                Statement::Other(text, span) if text.starts_with(".local") => {
                    let v = Variable {
                        linkage: Vec::new(),
                        name: declared_name(text),
                        text: text.clone(),
                        span: span.clone(),
                    };
                    let (_, size) = variable_layout(&v, 0)?;
                    self.local_vars.insert(v.name, size);
                }
                Statement::Other(text, span) => {
                    return Err(
                        at(span, format!("semfuzz does not model `{text}`")).with_hint(
                            "a function reads registers, its parameters and `.local` variables: a \
                     `.shared` declaration is the CTA's (`--threads N`)",
                        ),
                    )
                }
            }
        }
        Ok(())
    }

    /// Where `i`, a backward `bra`, branches to in `before` (the statements of its scope
    /// before it); `None` for any other instruction.
    fn loop_head(&self, i: &Instr, before: &[Statement]) -> Result<Option<usize>, Diagnostic> {
        if i.opcode.split('.').next() != Some("bra") {
            return Ok(None);
        }
        let [Operand {
            kind: OperandKind::Name(label),
            span,
        }] = i.operands.as_slice()
        else {
            return Err(at(&i.span, "`bra` takes one label"));
        };
        if !self.labels_seen.contains_key(label) {
            return Ok(None);
        }
        match before
            .iter()
            .rposition(|s| matches!(s, Statement::Label(l, _) if l == label))
        {
            Some(head) => Ok(Some(head)),
            None => Err(at(span, format!("unsupported backward branch to `{label}` from outside its loop's scope"))
                .with_hint("semfuzz unrolls a loop whose label and backward `bra` are in one scope, the `bra` its one back edge")),
        }
    }

    /// A backward `bra` (guarded or not) closing the loop `body` (its label first): the body
    /// runs again under the paths that take the branch, at most `unroll` times in all; the
    /// paths that would take it once more are cut (`cut`), and what follows runs on the paths
    /// that fell through.
    /// In a CTA every thread takes the loop together: the body runs again while some
    /// thread's branch may be taken, under each thread's own path.
    fn unroll_loop(&mut self, body: &[Statement], bra: &Instr) -> Result<(), Diagnostic> {
        self.looped = true;
        let n = self.thread_count();
        let mut entry = vec![None; n];
        let mut exit = vec![None; n];
        self.each_thread(|r, k| {
            entry[k] = r.path;
            exit[k] = Some(r.b.konst(0, 1));
            Ok(())
        })?;
        let mut taken = vec![None; n];
        for count in 0.. {
            let mut again = false;
            self.each_thread(|r, k| {
                let guard = r.guard(bra)?;
                taken[k] = r.and(r.path, guard);
                let stays = r.not(guard);
                let falls = r.and(r.path, Some(stays));
                exit[k] = r.or(exit[k], falls);
                again |= taken[k].is_none_or(|t| r.b.known[t as usize] != Some(0));
                Ok(())
            })?;
            if !again {
                break;
            }
            if count + 1 >= self.unroll {
                self.each_thread(|r, k| {
                    let taken = taken[k].unwrap_or_else(|| r.b.konst(1, 1));
                    r.cut = r.b.or_pred(r.cut, Some(taken));
                    Ok(())
                })?;
                break;
            }
            self.each_thread(|r, k| {
                r.path = taken[k];
                Ok(())
            })?;
            self.statements(body, true)?;
        }
        // Where the body leaves the loop only by falling through its `bra`, the executions
        // that fell through and those cut are all that entered: they go on together (the cut
        // ones are excluded by `bounded` whatever they compute), so that what follows runs
        // under the entry's path, unguarded where that was.
        let only_at_end = only_exit_at_end(body);
        self.each_thread(|r, k| {
            r.path = if only_at_end { entry[k] } else { exit[k] };
            Ok(())
        })
    }

    /// `a || b` over optional predicates (`None` is true).
    fn or(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (None, _) | (_, None) => None,
            (Some(a), Some(b)) => {
                let v = self.b.emit(Op::Or(1, a, b), 1);
                if self.b.known[v as usize] == Some(1) || self.always_true(v) {
                    None
                } else {
                    Some(v)
                }
            }
        }
    }

    /// Whether predicate `v`, a formula of `and`, `or` and `not` over a few other predicates
    /// (branch conditions), holds whatever they are: the paths of an if/else joined again
    /// (`p || !p`), so that what follows the join runs unguarded.
    fn always_true(&self, v: ValueId) -> bool {
        /// Beyond this many conditions the join stays a formula (correct, only less simple).
        const MAX_ATOMS: usize = 10;
        let mut atoms = Vec::new();
        let mut stack = vec![v];
        let mut seen = std::collections::HashSet::new();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            match *self.b.op(x) {
                Op::And(1, a, b) | Op::Or(1, a, b) => stack.extend([a, b]),
                Op::Not(1, a) => stack.push(a),
                // A constant (a path never taken) is no condition.
                Op::Const(_) => {}
                _ => atoms.push(x),
            }
            if atoms.len() > MAX_ATOMS {
                return false;
            }
        }
        (0u32..1 << atoms.len()).all(|assignment| {
            fn value(r: &Reader, x: ValueId, atoms: &[ValueId], assignment: u32) -> bool {
                match *r.b.op(x) {
                    Op::And(1, a, b) => {
                        value(r, a, atoms, assignment) && value(r, b, atoms, assignment)
                    }
                    Op::Or(1, a, b) => {
                        value(r, a, atoms, assignment) || value(r, b, atoms, assignment)
                    }
                    Op::Not(1, a) => !value(r, a, atoms, assignment),
                    Op::Const(c) => c != 0,
                    _ => {
                        let k = atoms.iter().position(|&y| y == x).expect("an atom");
                        assignment >> k & 1 == 1
                    }
                }
            }
            value(self, v, &atoms, assignment)
        })
    }

    /// `a && b` over optional predicates.
    fn and(&mut self, a: Option<ValueId>, b: Option<ValueId>) -> Option<ValueId> {
        match (a, b) {
            (None, x) | (x, None) => x,
            (Some(a), Some(b)) => Some(self.b.emit(Op::And(1, a, b), 1)),
        }
    }

    fn not(&mut self, a: Option<ValueId>) -> ValueId {
        match a {
            None => self.b.konst(0, 1),
            Some(a) => self.b.emit(Op::Not(1, a), 1),
        }
    }

    fn extract(&mut self, v: ValueId, lo: u32, width: u32) -> ValueId {
        self.b.extract(v, lo, width)
    }

    fn concat(&mut self, hi: ValueId, lo: ValueId) -> ValueId {
        self.b.concat(hi, lo)
    }

    /// The register `name` declares: its unique id and width.
    fn register(&self, name: &str, span: &Span) -> Result<(usize, u32), Diagnostic> {
        for scope in self.scopes.iter().rev() {
            if let Some(r) = scope.names.get(name) {
                return Ok(*r);
            }
            for (prefix, count, first, width) in &scope.ranges {
                if let Some(n) = name.strip_prefix(prefix.as_str()) {
                    if let Ok(k) = n.parse::<u32>() {
                        if k < *count && (n == "0" || !n.starts_with('0')) {
                            return Ok((first + k as usize, *width));
                        }
                    }
                }
            }
        }
        if launch::is_special_register(name) {
            return Err(
                at(span, format!("unsupported special register `{name}`")).with_hint(format!(
                    "a thread's inputs are the special registers that place it in its launch: {}",
                    launch::SPECIAL_REGISTERS.join(", ")
                )),
            );
        }
        Err(at(span, format!("`{name}` is not a declared register"))
            .with_hint("declare it with `.reg` (e.g. `.reg .b32 %r<4>;`)"))
    }

    fn read_reg(&mut self, name: &str, span: &Span) -> Result<Value, Diagnostic> {
        let (id, _) = self.register(name, span)?;
        let v = self.regs.get(&id).copied().ok_or_else(|| {
            at(
                span,
                format!("`{name}` is read before any instruction writes it"),
            )
            .with_hint("a function's inputs are its parameters, read with `ld.param`")
        })?;
        Ok(Value {
            id: self.on_path(v.id),
            kind: v.kind,
        })
    }

    /// `v` as the current path sees it: a select (a register written on some paths) whose
    /// condition the path decides is its arm. Without this, an instruction on one arm of a
    /// branch would read the other arm's writes as a select the solver must see through.
    fn on_path(&mut self, mut v: ValueId) -> ValueId {
        let Some(p) = self.path else {
            return v;
        };
        while let Op::Select(c, a, b) = *self.b.op(v) {
            let with = self.b.emit(Op::And(1, p, c), 1);
            let never_with = self.b.emit(Op::Not(1, with), 1);
            if self.always_true(never_with) {
                v = b;
                continue;
            }
            let not_c = self.b.emit(Op::Not(1, c), 1);
            let without = self.b.emit(Op::And(1, p, not_c), 1);
            let never_without = self.b.emit(Op::Not(1, without), 1);
            if self.always_true(never_without) {
                v = a;
                continue;
            }
            break;
        }
        v
    }

    /// Writes `v` to register `name` under the current path.
    fn write_reg(
        &mut self,
        name: &str,
        span: &Span,
        v: Value,
        guard: Option<ValueId>,
    ) -> Result<(), Diagnostic> {
        let (id, width) = self.register(name, span)?;
        let cond = self.and(self.path, guard);
        let new = match (cond, self.regs.get(&id)) {
            (None, _) => v,
            (Some(c), Some(old)) if self.b.widths[old.id as usize] == width => Value {
                id: self.b.emit(Op::Select(c, v.id, old.id), width),
                kind: if old.kind == v.kind {
                    v.kind
                } else {
                    PartKind::Bits
                },
            },
            // A register no path has written yet keeps the value it gets here: where the path
            // is false its contents are undefined, and the ISA's result there is not modelled.
            (Some(_), _) => v,
        };
        self.regs.insert(id, new);
        Ok(())
    }

    /// `.param .b32 param0;`, `.param .align 4 .b8 param0[8];` in a call's scope: bytes a call
    /// passes or returns through; returns its number and size, whose bytes each thread then
    /// holds unwritten.
    fn declare_call_param(&mut self, text: &str, span: &Span) -> Result<(usize, u32), Diagnostic> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let bad = || at(span, format!("cannot read the declaration `{text}`"));
        let (name, count) = match words.last().ok_or_else(bad)?.split_once('[') {
            Some((n, rest)) => (
                n,
                rest.trim_end_matches(']')
                    .parse::<u32>()
                    .map_err(|_| bad())?,
            ),
            None => (*words.last().ok_or_else(bad)?, 1),
        };
        let bits = words
            .iter()
            .filter_map(|w| w.strip_prefix('.'))
            .find_map(type_bits)
            .ok_or_else(bad)?;
        let k = self.call_params.len();
        self.call_params.insert(name.to_string(), k);
        Ok((k, bits.div_ceil(8) * count))
    }

    /// `call (ret), f, (a, b);` of a function the module defines: its body read inline, its
    /// parameters the bytes of the caller's `.param` arguments, its return parameters those
    /// the caller reads back. The callee runs on every path (it has no effect but its
    /// results); its loops' cut counts on the call's path only.
    fn call(&mut self, i: &Instr, guard: Option<ValueId>) -> Result<(), Diagnostic> {
        if guard.is_some() {
            return Err(at(&i.opcode_span, "unsupported guarded `call`"));
        }
        let names = |o: &Operand| -> Result<Vec<String>, Diagnostic> {
            match &o.kind {
                OperandKind::List(items) => items
                    .iter()
                    .map(|x| match &x.kind {
                        OperandKind::Name(n) => Ok(n.clone()),
                        _ => Err(at(&x.span, "a call passes `.param`s by name")),
                    })
                    .collect(),
                _ => Err(at(&o.span, "expected `(param, ...)`")),
            }
        };
        let (rets, callee, args) = match i.operands.as_slice() {
            [r, f, a] => (names(r)?, f, names(a)?),
            [f, a] if matches!(a.kind, OperandKind::List(_)) => (Vec::new(), f, names(a)?),
            [f] => (Vec::new(), f, Vec::new()),
            _ => return Err(at(&i.span, "unsupported form of `call`")),
        };
        let OperandKind::Name(callee_name) = &callee.kind else {
            return Err(at(&callee.span, "unsupported indirect `call`"));
        };
        let named = |body: bool| {
            let mut all = self.module.functions.iter();
            all.find(|g| &g.name == callee_name && g.body.is_some() == body)
        };
        // A prototype (`.func f(...);`) may come before the definition: only a function the
        // module never defines is external.
        if let (None, Some(g)) = (named(true), named(false)) {
            return self.external_call(i, g, &args, &rets);
        }
        let Some(g) = named(true) else {
            return Err(at(
                &callee.span,
                format!("unsupported call of `{callee_name}`, which the module does not define"),
            )
            .with_hint("semfuzz inlines the functions a module defines"));
        };
        if callee_name == &self.f.name || self.calls.contains(callee_name) {
            return Err(at(
                &callee.span,
                format!("unsupported recursion: `{callee_name}` calls itself"),
            ));
        }
        if args.len() != g.params.len() || rets.len() != g.returns.len() {
            return Err(at(
                &i.span,
                format!("this call does not match `{callee_name}`'s parameters"),
            ));
        }
        let mut inner = Reader::new(self.spec, self.module, g, self.unroll);
        inner.calls = self.calls.clone();
        inner.calls.push(self.f.name.clone());
        inner.b = std::mem::take(&mut self.b);
        inner.choices = std::mem::take(&mut self.choices);
        inner.choice_sites = std::mem::take(&mut self.choice_sites);
        // The callee reaches the caller's blocks through the pointers passed to it.
        inner.heap = std::mem::take(&mut self.heap);
        inner.fault = self.fault.take();
        // In a CTA the callee's accesses belong to the caller's thread and phase.
        inner.cta = self.cta;
        inner.current = self.current;
        inner.phase = std::mem::take(&mut self.phase);
        let result = self.run_callee(&mut inner, g, &args, &rets, &callee.span);
        self.phase = std::mem::take(&mut inner.phase);
        self.b = std::mem::take(&mut inner.b);
        self.choices = std::mem::take(&mut inner.choices);
        self.choice_sites = std::mem::take(&mut inner.choice_sites);
        self.heap = std::mem::take(&mut inner.heap);
        self.fault = inner.fault.take();
        self.wanted = self.wanted.or(inner.wanted);
        self.looped |= inner.looped;
        if let Some(c) = inner.cut {
            let here = self.and(self.path, Some(c));
            self.cut = self.b.or_pred(self.cut, here);
        }
        result
    }

    /// `call (ret), f, (a, b);` of a function the module only declares (`.extern .func`): its
    /// return parameter is a fresh input `@f#N` and its arguments results `@f#N(arg K)`, as the
    /// IR reader reads the IR's N-th call of `@f` (semfuzz_llir's `external_call`), so the
    /// PTX must call it as the IR does (docs/ambiguities.md 178).
    fn external_call(
        &mut self,
        i: &Instr,
        g: &'s Function,
        args: &[String],
        rets: &[String],
    ) -> Result<(), Diagnostic> {
        let refused = |why: &str| {
            at(&i.opcode_span, format!("unsupported call of `{}` {why}", g.name)).with_hint(
                "semfuzz reads an unconditional call of a declared function with arguments of at most 64 bits as a free function of them",
            )
        };
        if self.path.is_some() || !self.calls.is_empty() || self.cta.is_some() {
            return Err(refused(
                "on a conditional path, in an inlined function or in a CTA",
            ));
        }
        if args.len() != g.params.len() || rets.len() != g.returns.len() {
            return Err(at(
                &i.span,
                format!("this call does not match `{}`'s parameters", g.name),
            ));
        }
        let declared = |s: &Self, n: &str| {
            s.call_params.get(n).copied().ok_or_else(|| {
                at(
                    &i.span,
                    format!("`{n}` is no `.param` declared for this call"),
                )
            })
        };
        let n = self.external_calls.entry(g.name.clone()).or_default();
        let call = format!("@{}#{n}", g.name);
        *n += 1;
        for (k, (a, p)) in args.iter().zip(&g.params).enumerate() {
            let from = declared(self, a)?;
            let size = p.size().filter(|s| (1..=8).contains(s));
            let size = size.ok_or_else(|| refused("with an argument wider than 64 bits"))?;
            let mut value: Option<ValueId> = None;
            for b in (0..i64::from(size)).rev() {
                let Some(Byte::Known(v)) = self.memory.get(&(Space::Call(from), b)).copied() else {
                    return Err(at(
                        &i.span,
                        format!("byte {b} of argument `{a}` is never written"),
                    ));
                };
                value = Some(match value {
                    None => v,
                    Some(hi) => self.concat(hi, v),
                });
            }
            let value = value.expect("a sized argument has bytes");
            self.call_arguments
                .push((format!("{call}(arg {k})"), value));
        }
        for (r, name) in rets.iter().enumerate() {
            let to = declared(self, name)?;
            let size = g.returns[r].size().filter(|s| (1..=8).contains(s));
            let size = size.ok_or_else(|| refused("returning more than 64 bits"))?;
            let kind = float_kind(&g.returns[r].ty, size * 8).unwrap_or(PartKind::Bits);
            let id = self.input(call.clone(), size * 8, kind);
            for b in 0..size {
                let byte = self.extract(id, b * 8, 8);
                self.memory
                    .insert((Space::Call(to), i64::from(b)), Byte::Known(byte));
            }
        }
        Ok(())
    }

    /// Moves the arguments' bytes into `inner`, reads `g`'s body, and moves its results' bytes
    /// into the caller's return `.param`s.
    fn run_callee(
        &mut self,
        inner: &mut Reader<'s>,
        g: &'s Function,
        args: &[String],
        rets: &[String],
        span: &Span,
    ) -> Result<(), Diagnostic> {
        let declared = |s: &Self, n: &str| {
            s.call_params
                .get(n)
                .copied()
                .ok_or_else(|| at(span, format!("`{n}` is no `.param` declared for this call")))
        };
        for (k, (a, p)) in args.iter().zip(&g.params).enumerate() {
            let from = declared(self, a)?;
            for b in 0..i64::from(p.size().unwrap_or(0)) {
                let Some(Byte::Known(v)) = self.memory.get(&(Space::Call(from), b)).copied() else {
                    return Err(at(
                        span,
                        format!("byte {b} of argument `{a}` is never written"),
                    ));
                };
                inner.memory.insert((Space::Param(k), b), Byte::Known(v));
            }
        }
        for (r, p) in g.returns.iter().enumerate() {
            for b in 0..i64::from(p.size().unwrap_or(0)) {
                inner.memory.insert((Space::Return(r), b), Byte::Undefined);
            }
        }
        // The callee is the same thread: it reads the caller's special registers, kept in the
        // outermost scope (numbered past the caller's registers, so the ids stay apart).
        if let Some(outermost) = self.scopes.first() {
            inner.next_reg = self.next_reg;
            for (id, _) in outermost.names.values() {
                if let Some(v) = self.regs.get(id) {
                    inner.regs.insert(*id, *v);
                }
            }
            inner.scopes.push(outermost.clone());
        }
        inner.block(g.body.as_ref().expect("a defined function"))?;
        if let Some((label, _)) = inner.pending.iter().next() {
            return Err(at(
                &g.span,
                format!("`{}` branches to `{label}`, which it never defines", g.name),
            ));
        }
        for (r, name) in rets.iter().enumerate() {
            let to = declared(self, name)?;
            for b in 0..i64::from(g.returns[r].size().unwrap_or(0)) {
                if let Some(Byte::Known(v)) = inner.memory.get(&(Space::Return(r), b)).copied() {
                    self.memory.insert((Space::Call(to), b), Byte::Known(v));
                }
            }
        }
        Ok(())
    }

    /// Where `i`'s guard (`@%p`, `@!%p`) lets it run (`None`: unguarded).
    fn guard(&mut self, i: &Instr) -> Result<Option<ValueId>, Diagnostic> {
        let Some(g) = &i.guard else {
            return Ok(None);
        };
        let p = self.read_reg(&g.reg, &i.span)?;
        if self.b.widths[p.id as usize] != 1 {
            return Err(at(
                &i.span,
                format!("the guard `{}` is not a predicate", g.reg),
            ));
        }
        Ok(Some(if g.negated {
            self.b.emit(Op::Not(1, p.id), 1)
        } else {
            p.id
        }))
    }

    /// `i` as every thread runs it: a barrier ends the phase, a warp collective gathers its
    /// lanes, anything else runs thread by thread.
    fn instr_all(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        self.step += 1;
        let base = i.opcode.split('.').next().unwrap_or("");
        if matches!(base, "bar" | "barrier") {
            return self.barrier(i);
        }
        if !self.threads.is_empty() {
            let named = self.spec.variants_named(&i.opcode);
            if !named.is_empty() && named.iter().all(|v| v.is_warp_view()) {
                return self.collective(i, &named);
            }
        }
        self.each_thread(|r, _| r.instr(i))
    }

    /// PTX ISA 9.7.13.1 `bar{.cta}.sync a{, b}` and `barrier{.cta}.sync{.aligned} a{, b}`:
    /// "causes executing thread to wait until all threads in the CTA ... arrive", so a phase
    /// of the CTA ends there and the next one sees every write before it. Modelled where every
    /// thread arrives together (the same path) and `b`, if given, is the whole CTA; barrier
    /// numbers are not told apart (each barrier waits for all threads).
    fn barrier(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let (Some(cta), false) = (self.cta, self.threads.is_empty()) else {
            return Err(self.needs_the_cta(
                i,
                format!("`{}` waits for the CTA's other threads", i.opcode),
            ));
        };
        let mods: Vec<&str> = i.opcode.split('.').skip(1).collect();
        if !mods.contains(&"sync")
            || !mods
                .iter()
                .all(|m| matches!(*m, "sync" | "cta" | "aligned"))
        {
            return Err(at(
                &i.opcode_span,
                format!("unsupported barrier `{}`", i.opcode),
            )
            .with_hint("semfuzz models `bar.sync` and `barrier.sync` (every thread waits for all); `bar.arrive` and `bar.red` are not modelled"));
        }
        if i.guard.is_some() {
            return Err(at(&i.span, "unsupported guarded barrier")
                .with_hint("a barrier only some threads reach is barrier divergence, which semfuzz does not model"));
        }
        match i.operands.as_slice() {
            [_] => {}
            [_, Operand {
                kind: OperandKind::Imm(Imm::Int(n)),
                ..
            }] if *n == i64::from(cta.threads()) => {}
            [_, b] => {
                return Err(at(
                    &b.span,
                    format!(
                        "unsupported barrier thread count: semfuzz models barriers of the whole CTA ({} threads)",
                        cta.threads()
                    ),
                ))
            }
            _ => return Err(at(&i.span, "a barrier takes `a` or `a, b`")),
        }
        let mut paths = Vec::new();
        self.each_thread(|r, _| {
            paths.push(r.path.filter(|p| !r.always_true(*p)));
            Ok(())
        })?;
        if paths.iter().any(|p| *p != paths[0]) {
            return Err(at(
                &i.opcode_span,
                format!(
                    "unsupported: `{}` on a path that may differ between threads",
                    i.opcode
                ),
            )
            .with_hint("semfuzz models barriers that every thread of the CTA reaches together; barrier divergence is not modelled"));
        }
        self.close_phase();
        Ok(())
    }

    /// Ends a phase: two of its accesses by different threads that overlap, one of them a
    /// write and not both atomic, where both happen, are a race, except lanes of one warp
    /// storing in one instruction: the CUDA Programming Guide (5.3.2: "If a non-atomic
    /// instruction executed by a warp writes to the same location ... for more than one of
    /// the threads of the warp ... which thread performs the final write is undefined") makes
    /// that one of their writes, which is no choice at all where they store the same bits
    /// (Triton's and CUB's per-warp partial sums) and is reported where they may not
    /// ([`WARP_STORES_AGREE`], docs/ambiguities.md 175). Accesses at known
    /// offsets are paired only where their byte ranges meet (sorted by offset), so a large
    /// CTA's many disjoint accesses cost no pairs; one at a symbolic offset meets every other.
    fn close_phase(&mut self) {
        let mut accesses = std::mem::take(&mut self.phase);
        let known = |b: &Builder, x: &PhaseAccess| b.known[x.offset as usize];
        accesses.sort_by_key(|x| {
            (
                x.shared,
                x.block,
                known(&self.b, x).is_some(),
                known(&self.b, x),
            )
        });
        for group in accesses.chunk_by(|x, y| x.shared == y.shared && x.block == y.block) {
            let symbolic = group.partition_point(|x| known(&self.b, x).is_none());
            let (symbolic, fixed) = group.split_at(symbolic);
            for (n, x) in symbolic.iter().enumerate() {
                for y in &group[n + 1..] {
                    self.phase_pair(x, y);
                }
            }
            let starts: Vec<u64> = fixed
                .iter()
                .map(|x| known(&self.b, x).unwrap_or(0))
                .collect();
            let together = self.warp_stores_together(fixed, &starts);
            for (n, x) in fixed.iter().enumerate() {
                let end = starts[n].saturating_add(u64::from(x.bytes));
                let meeting = starts[n + 1..].iter().take_while(|at| **at < end).count();
                for (m, y) in fixed.iter().enumerate().skip(n + 1).take(meeting) {
                    if together[n].is_none() || together[n] != together[m] {
                        self.phase_pair(x, y);
                    }
                }
            }
        }
    }

    /// One warp's lanes storing at one known place in one instruction (Triton's and CUB's
    /// per-warp partial sums: all 32 lanes write their warp's slot): whether their bits may
    /// differ is asked lane by lane against the last active lane before, linear in the lanes
    /// where every pair would be quadratic (equal to each active predecessor is equal to
    /// all). Returns, per access of `fixed` (at `starts`), the set it was asked in, if any,
    /// so that [`Self::close_phase`] does not pair them again.
    fn warp_stores_together(
        &mut self,
        fixed: &[PhaseAccess],
        starts: &[u64],
    ) -> Vec<Option<usize>> {
        // (offset, bytes, step, warp, stored width) → the accesses and the values they store.
        type Place = (u64, u32, usize, usize, u32);
        let mut sets: HashMap<Place, Vec<(usize, ValueId)>> = HashMap::new();
        for (n, x) in fixed.iter().enumerate() {
            if let (Some(v), false) = (x.stored, x.atomic) {
                let key = (
                    starts[n],
                    x.bytes,
                    x.step,
                    x.thread / 32,
                    self.b.widths[v as usize],
                );
                sets.entry(key).or_default().push((n, v));
            }
        }
        let mut together = vec![None; fixed.len()];
        let mut sets: Vec<Vec<(usize, ValueId)>> =
            sets.into_values().filter(|s| s.len() > 1).collect();
        sets.sort_unstable();
        for (id, lanes) in sets.iter().enumerate() {
            let (mut last, mut seen) = (lanes[0].1, fixed[lanes[0].0].when);
            for &(n, v) in &lanes[1..] {
                let x = &fixed[n];
                let same = self.b.emit(Op::BvEq(v, last), 1);
                let differ = self.b.emit(Op::Not(1, same), 1);
                let after = self.b.emit(Op::And(1, x.when, seen), 1);
                let here = self.b.emit(Op::And(1, after, differ), 1);
                if self.b.known[here as usize] != Some(0) {
                    self.warp_stores_differ = self.b.or_pred(self.warp_stores_differ, Some(here));
                }
                last = self
                    .b
                    .emit(Op::Select(x.when, v, last), self.b.widths[v as usize]);
                seen = self.b.emit(Op::Or(1, x.when, seen), 1);
            }
            for &(n, _) in lanes {
                together[n] = Some(id);
            }
        }
        together
    }

    /// One pair of a closing phase's accesses to one block ([`Self::close_phase`]).
    fn phase_pair(&mut self, x: &PhaseAccess, y: &PhaseAccess) {
        if x.thread == y.thread
            || (x.stored.is_none() && y.stored.is_none())
            || (x.atomic && y.atomic)
        {
            return;
        }
        let overlap = self.overlap((x.offset, x.bytes), (y.offset, y.bytes));
        if self.b.known[overlap as usize] == Some(0) {
            return;
        }
        let both = self.b.emit(Op::And(1, x.when, y.when), 1);
        let one_warp = x.step == y.step && x.thread / 32 == y.thread / 32;
        match (x.stored, y.stored) {
            (Some(a), Some(b)) if one_warp => {
                let same_bits = if x.bytes == y.bytes
                    && self.b.widths[a as usize] == self.b.widths[b as usize]
                {
                    let place = self.b.emit(Op::BvEq(x.offset, y.offset), 1);
                    let bits = self.b.emit(Op::BvEq(a, b), 1);
                    self.b.emit(Op::And(1, place, bits), 1)
                } else {
                    self.b.konst(0, 1)
                };
                let differ = self.b.emit(Op::Not(1, same_bits), 1);
                let differ = self.b.emit(Op::And(1, overlap, differ), 1);
                let here = self.b.emit(Op::And(1, both, differ), 1);
                if self.b.known[here as usize] != Some(0) {
                    self.warp_stores_differ = self.b.or_pred(self.warp_stores_differ, Some(here));
                }
            }
            _ => {
                let race = self.b.emit(Op::And(1, both, overlap), 1);
                self.race = self.b.or_pred(self.race, Some(race));
            }
        }
    }

    /// Whether `[x, x + m)` and `[y, y + n)` share a byte (offsets of 64 bits, in one block).
    fn overlap(&mut self, (x, m): (ValueId, u32), (y, n): (ValueId, u32)) -> ValueId {
        let known = |r: &Self, v: ValueId| r.b.known[v as usize];
        if let (Some(x), Some(y)) = (known(self, x), known(self, y)) {
            let shared = x < y.wrapping_add(u64::from(n)) && y < x.wrapping_add(u64::from(m));
            return self.b.konst(u64::from(shared), 1);
        }
        let y_end = self.b.konst(u64::from(n), 64);
        let y_end = self.b.emit(Op::BvAdd(64, y, y_end), 64);
        let x_end = self.b.konst(u64::from(m), 64);
        let x_end = self.b.emit(Op::BvAdd(64, x, x_end), 64);
        let before = self.b.emit(Op::BvUlt(x, y_end), 1);
        let after = self.b.emit(Op::BvUlt(y, x_end), 1);
        self.b.emit(Op::And(1, before, after), 1)
    }

    /// A warp collective (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`,
    /// `activemask`) in a CTA: each thread's operands are read, then each lane runs the
    /// collective's warp-view variant on its own operands, the 32 lanes' values of the
    /// exchanged one, its `laneid` and the warp's `active` lanes (those whose path and guard
    /// hold; the lanes past the CTA's last thread are inactive, their values zero).
    fn collective(&mut self, i: &Instr, named: &[&'s Variant]) -> Result<(), Diagnostic> {
        let (first, rest) = i
            .operands
            .split_first()
            .ok_or_else(|| at(&i.span, format!("`{}` has no operands", i.opcode)))?;
        let variant = named
            .iter()
            .find(|v| v.sources.len() == rest.len() + 33)
            .copied()
            .ok_or_else(|| {
                no_signature_fits(i, &i.opcode, named).with_hint(
                    "in the warp view the exchanged operand stands for the 32 lanes' values, \
                     and `laneid`, `active` are the warp's",
                )
            })?;
        self.require(i, &i.opcode, variant)?;
        // The exchanged operand: the first of 32 sources named `x0 .. x31`.
        let exchanged = variant
            .sources
            .iter()
            .position(|s| {
                s.name
                    .strip_suffix('0')
                    .is_some_and(|stem| !stem.is_empty() && !stem.ends_with(char::is_numeric))
            })
            .filter(|&x| {
                variant
                    .sources
                    .get(x + 31)
                    .is_some_and(|s| s.name.ends_with("31"))
            })
            .unwrap_or(0);
        let sig_of = |j: usize| {
            if j <= exchanged {
                &variant.sources[j]
            } else {
                &variant.sources[j + 31]
            }
        };
        let n = self.thread_count();
        let mut operands: Vec<Vec<ValueId>> = Vec::with_capacity(n);
        let mut guards = Vec::with_capacity(n);
        let mut active = Vec::with_capacity(n);
        self.each_thread(|r, _| {
            let guard = r.guard(i)?;
            let runs = r.and(r.path, guard).unwrap_or_else(|| r.b.konst(1, 1));
            let values = rest
                .iter()
                .enumerate()
                .map(|(j, o)| {
                    let sig = sig_of(j);
                    r.source(o, sig.width, sig.negatable, &sig.ty, &variant.text)
                })
                .collect::<Result<Vec<_>, _>>()?;
            operands.push(values);
            guards.push(guard);
            active.push(runs);
            Ok(())
        })?;
        let lane_width = variant.sources[variant.sources.len() - 2].width;
        let exchanged_width = variant.sources[exchanged].width;
        let signed = variant_is_signed(variant);
        for warp in 0..n.div_ceil(32) {
            let lanes: Vec<usize> = (32 * warp..(32 * warp + 32).min(n)).collect();
            let mut values = Vec::with_capacity(32);
            let mut mask: Option<ValueId> = None;
            for lane in 0..32 {
                let (value, on) = match lanes.get(lane) {
                    Some(&k) => (operands[k][exchanged], active[k]),
                    None => (self.b.konst(0, exchanged_width), self.b.konst(0, 1)),
                };
                values.push(value);
                mask = Some(match mask {
                    None => on,
                    Some(low) => self.b.concat(on, low),
                });
            }
            let mask = mask.expect("a warp has 32 lanes");
            for (lane, &k) in lanes.iter().enumerate() {
                self.switch_to(k);
                let own = &operands[k];
                let mut args: Vec<ValueId> = own[..exchanged].to_vec();
                args.extend(&values);
                args.extend(&own[exchanged + 1..]);
                args.push(self.b.konst(lane as u64, lane_width));
                args.push(mask);
                self.guard_now = guards[k];
                // A lane that never runs the instruction (its thread branched around it)
                // writes nothing that any path reads: zeros, not the variant's choices.
                let results = if self.b.known[active[k] as usize] == Some(0) {
                    variant
                        .dests
                        .iter()
                        .map(|d| (self.b.konst(0, d.width), PartKind::Bits))
                        .collect()
                } else {
                    self.inline(variant, &args, i)?
                };
                let dests: Vec<(&str, &Span)> = match &first.kind {
                    OperandKind::Name(d) => vec![(d.as_str(), &first.span)],
                    OperandKind::Pair(p, q) => {
                        vec![(p.as_str(), &first.span), (q.as_str(), &first.span)]
                    }
                    OperandKind::Sink => Vec::new(),
                    _ => {
                        return Err(at(
                            &first.span,
                            format!("`{}` cannot be a destination", first.kind),
                        ))
                    }
                };
                for ((name, span), r) in dests.into_iter().zip(results) {
                    self.write_result(name, span, r, signed, guards[k])?;
                }
            }
        }
        Ok(())
    }

    fn instr(&mut self, i: &Instr) -> Result<(), Diagnostic> {
        let guard = self.guard(i)?;
        self.guard_now = guard;
        let base = i.opcode.split('.').next().unwrap_or("");
        self.atomic_now = matches!(base, "atom" | "red");
        // One thread's `.shared` access goes through a pointer parameter to its block, as
        // any address does; a CTA's goes to its `.shared` variables, where it declares any.
        self.shared_now = !self.shared.blocks.is_empty()
            && i.opcode
                .split('.')
                .any(|m| m.split("::").next() == Some("shared"));
        match base {
            "ret" | "exit" | "bra" => {
                let taken = self.and(self.path, guard);
                if base == "bra" {
                    let [Operand {
                        kind: OperandKind::Name(label),
                        ..
                    }] = i.operands.as_slice()
                    else {
                        return Err(at(&i.span, "`bra` takes one label"));
                    };
                    let before = self
                        .pending
                        .remove(label)
                        .unwrap_or(Some(self.b.konst(0, 1)));
                    let joined = self.or(before, taken);
                    self.pending.insert(label.clone(), joined);
                }
                // What follows runs where this did not jump.
                let not_taken = self.not(taken);
                self.path = self.and(self.path, Some(not_taken));
                Ok(())
            }
            "call" => self.call(i, guard),
            "cvta" => self.cvta(i, guard),
            "red" => self.red(i, guard),
            "ldu" => self.ldu(i, guard),
            // 9.7.13.4 membar/fence: "enforce an ordering of memory accesses" between threads;
            // one thread's accesses happen in program order already (docs/ambiguities.md 103).
            "fence" | "membar" => Ok(()),
            _ => self.catalogued(i, guard),
        }
    }

    /// `cvta.to.global.u64 d, a` and the like: an address keeps naming what it did.
    fn cvta(&mut self, i: &Instr, guard: Option<ValueId>) -> Result<(), Diagnostic> {
        let [Operand {
            kind: OperandKind::Name(d),
            span: ds,
        }, Operand {
            kind: OperandKind::Name(a),
            span: as_,
        }] = i.operands.as_slice()
        else {
            return Err(at(
                &i.span,
                "`cvta` takes a destination and a source register",
            ));
        };
        // Generic, global and shared addresses name the same blocks for one thread.
        let v = self.read_reg(a, as_)?;
        self.write_reg(d, ds, v, guard)
    }

    /// `ldu{.global}{.vec}.type d, [a]` (PTX ISA 9.7.9.10: a load of read-only global data
    /// whose address is the same in every thread of the warp) is, for one thread, the load
    /// of read-only global data `ld.global.nc` (9.7.9.9) with the same operands, which
    /// ptx-9.7.9-data-movement.sem specifies; a generic `ldu` is `ld` (docs/ambiguities.md
    /// 181).
    fn ldu(&mut self, i: &Instr, guard: Option<ValueId>) -> Result<(), Diagnostic> {
        let mut ld = i.clone();
        ld.opcode = match i.opcode.strip_prefix("ldu.global") {
            Some(rest) => format!("ld.global.nc{rest}"),
            None => format!("ld{}", &i.opcode["ldu".len()..]),
        };
        self.catalogued(&ld, guard)
    }

    /// `red.op.type [a], b` is `atom.op.type _, [a], b` (9.7.13.6: atom's operation, with no
    /// old value returned), so ptx-9.7.13.5-atom.sem specifies both.
    fn red(&mut self, i: &Instr, guard: Option<ValueId>) -> Result<(), Diagnostic> {
        let mut atom = i.clone();
        atom.opcode = format!("atom{}", &i.opcode["red".len()..]);
        atom.operands.insert(
            0,
            Operand {
                kind: OperandKind::Sink,
                span: i.opcode_span.clone(),
            },
        );
        self.catalogued(&atom, guard)
    }

    /// The state space an `ld`/`st` opcode names, and the opcode as the catalogue spells it
    /// (`.param::func` is `.param`).
    /// `ld`/`st`'s memory-consistency qualifiers (9.7.9.8: `.weak`, `.volatile`, `.relaxed`,
    /// `.acquire`, `.release`, `.mmio` and a `.scope`) are dropped: they order the access
    /// against other threads', and one thread's accesses happen in program order
    /// (docs/ambiguities.md 103). `atom` keeps its `.sem` and `.scope`, which its spec names.
    fn memory_opcode(opcode: &str) -> String {
        let is_atom = opcode.starts_with("atom.");
        opcode
            .split('.')
            .map(|m| m.split("::").next().unwrap_or(m))
            .filter(|m| {
                is_atom
                    || !matches!(
                        *m,
                        "weak"
                            | "volatile"
                            | "relaxed"
                            | "acquire"
                            | "release"
                            | "mmio"
                            | "cta"
                            | "cluster"
                            | "gpu"
                            | "sys"
                    )
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    fn catalogued(&mut self, i: &Instr, guard: Option<ValueId>) -> Result<(), Diagnostic> {
        let base = i.opcode.split('.').next().unwrap_or("");
        let is_memory = matches!(base, "ld" | "st" | "atom");
        let opcode = if is_memory {
            Self::memory_opcode(&i.opcode)
        } else {
            i.opcode.clone()
        };
        // `.v2`/`.v4` move several elements at consecutive addresses: one scalar access each.
        let (opcode, lanes) = match opcode
            .split('.')
            .position(|m| m == "v2" || m == "v4" || m == "v8")
        {
            Some(pos) if is_memory => {
                let mods: Vec<&str> = opcode.split('.').collect();
                let n: usize = mods[pos][1..].parse().expect("v2, v4 or v8");
                let scalar: Vec<&str> = mods
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != pos)
                    .map(|(_, m)| *m)
                    .collect();
                (scalar.join("."), n)
            }
            _ => (opcode, 1),
        };
        if lanes > 1 {
            return self.vector_memory(i, &opcode, lanes, guard);
        }
        let (first, rest) = i
            .operands
            .split_first()
            .ok_or_else(|| at(&i.span, format!("`{}` has no operands", i.opcode)))?;
        let dests: Vec<&Operand> = match &first.kind {
            OperandKind::Vector(items) => items.iter().collect(),
            _ => vec![first],
        };
        let n_dests = match &first.kind {
            OperandKind::Pair(..) => 2,
            _ => dests.len(),
        };
        let mut sources: Vec<&Operand> = Vec::new();
        for o in rest {
            match &o.kind {
                OperandKind::Vector(items) => sources.extend(items.iter()),
                _ => sources.push(o),
            }
        }
        let variant = self.find_variant(i, &opcode, n_dests, sources.len())?;
        let mut args = Vec::new();
        let mut kinds = HashMap::new();
        for (o, sig) in sources.iter().zip(&variant.sources) {
            match &o.kind {
                OperandKind::Name(n)
                    if self.f.params.iter().any(|p| p.name == *n)
                        || self.shared_vars.contains_key(n)
                        || self.local_vars.contains_key(n)
                        || self.module_variable(n) => {}
                OperandKind::Name(n) => {
                    let v = self.read_reg(n, &o.span)?;
                    kinds.insert(v.id, v.kind);
                }
                _ => {}
            }
            args.push(self.source(o, sig.width, sig.negatable, &sig.ty, &variant.text)?);
        }
        let mut results = self.inline(variant, &args, i)?;
        if variant.fusable {
            if let [(r, _)] = results[..] {
                if let Some(fused) = self.fused(variant, &args, r, i)? {
                    results[0].0 = fused;
                } else if self.fusions(variant, false).next().is_some() {
                    self.products.insert(r, (variant, args.clone()));
                }
            }
        }
        // A result that is a source's value unchanged (a move, a load, a store) keeps how that
        // value reads: `st.param.b16` of a bf16 sum is a bf16.
        for (id, kind) in &mut results {
            if let (PartKind::Bits, Some(k)) = (*kind, kinds.get(id)) {
                *kind = *k;
            }
        }
        let signed = variant_is_signed(variant);
        match &first.kind {
            OperandKind::Pair(p, q) => {
                for (name, r) in [p, q].into_iter().zip(&results) {
                    self.write_result(name, &first.span, *r, signed, guard)?;
                }
            }
            OperandKind::Address { .. } => {
                let (value, kind) = results[0];
                self.store(first, value, kind, guard)?;
            }
            // `atom d, [a], b`: its variant's second destination `m` is what it writes back
            // to `[a]` (ptx-9.7.13.5-atom.sem).
            _ if base == "atom" => {
                if let (Some(address), Some(&(m, kind))) = (sources.first(), results.get(1)) {
                    self.store(address, m, kind, guard)?;
                }
                match &first.kind {
                    OperandKind::Name(n) => {
                        self.write_result(n, &first.span, results[0], signed, guard)?
                    }
                    OperandKind::Sink => {}
                    _ => return Err(at(&first.span, "`atom` writes its old value to a register")),
                }
            }
            _ => {
                for (o, r) in dests.iter().zip(&results) {
                    match &o.kind {
                        OperandKind::Name(n) => self.write_result(n, &o.span, *r, signed, guard)?,
                        OperandKind::Sink => {}
                        _ => {
                            return Err(at(
                                &o.span,
                                format!("`{}` cannot be a destination", o.kind),
                            )
                            .with_hint(
                                "a destination is a register, `_`, or `{...}` of registers",
                            ))
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The spec's `fuse` items (`fuse mul, add into "fma.rn"`) in which `v`'s family is the
    /// sum (`as_sum`) or the product.
    fn fusions(
        &self,
        v: &'s Variant,
        as_sum: bool,
    ) -> impl Iterator<Item = &'s semfuzz_spec::resolved::Fusion> + 's {
        let family = v.family.clone();
        self.spec
            .resolved
            .families
            .iter()
            .flat_map(|f| &f.fusions)
            .filter(move |f| {
                if as_sum {
                    f.sum == family
                } else {
                    f.product == family
                }
            })
    }

    /// PTX ISA 9.7.3.1/2/3 (and 9.7.4's half forms): "`mul`/`add` sequences with no rounding
    /// modifiers may be optimized to use fused-multiply-add instructions on the target device"
    /// (likewise `mul`/`sub`). For a sum written without a rounding modifier that reads such a
    /// product, the sum's result `as_written` or the spec's fused form (the `fuse` items, as
    /// `semfuzz prove` applies them to rules), picked by one free bit: ptxas fuses such pairs
    /// (an H200 ran libNVVM's `frem` fused: docs/gpu.md). `None` where nothing fuses.
    fn fused(
        &mut self,
        sum: &'s Variant,
        args: &[ValueId],
        as_written: ValueId,
        i: &Instr,
    ) -> Result<Option<ValueId>, Diagnostic> {
        let Some(fusion) = self.fusions(sum, true).next() else {
            return Ok(None);
        };
        let Some(suffix) = sum.text.strip_prefix(sum.family.as_str()) else {
            return Ok(None);
        };
        let found = args.iter().enumerate().find_map(|(k, a)| {
            let (product, factors) = self.products.get(a)?;
            let same = product.family == fusion.product
                && product.text.strip_prefix(product.family.as_str())
                    == Some(suffix.replace(".sat", "").as_str());
            same.then(|| (k, factors.clone()))
        });
        let (Some((k, factors)), [_, _]) = (found, args) else {
            return Ok(None);
        };
        let Ok(fma) = self
            .spec
            .lookup(&format!("{}{suffix}", fusion.fused.text), Some(3))
        else {
            return Ok(None);
        };
        let other = args[1 - k];
        let (a, c) = match &fusion.negate {
            None => (factors[0], other),
            Some(negate) => {
                let ty = suffix.rsplit('.').next().unwrap_or("");
                let Ok(neg) = self.spec.lookup(&format!("{}.{ty}", negate.text), Some(1)) else {
                    return Ok(None);
                };
                // `t - c` is `fma(a, b, -c)`; `c - t` is `fma(-a, b, c)`.
                if k == 0 {
                    let negated = self.inline(neg, &[other], i)?[0].0;
                    (factors[0], negated)
                } else {
                    (self.inline(neg, &[factors[0]], i)?[0].0, other)
                }
            }
        };
        let fused = self.inline(fma, &[a, factors[1], c], i)?[0].0;
        let width = sum.program.dests[0].width;
        let k = self.choices.len();
        self.choices
            .push(Outcome::OneOf(vec![self.b.konst(0, 1), self.b.konst(1, 1)]));
        let (line, col) = i.span.file.line_col(i.span.start);
        self.choice_sites.push(format!(
            "whether `{}` is fused with the `{}` it reads (no rounding modifier) at {}:{line}:{col}",
            sum.text, fusion.product, i.span.file.name
        ));
        let fuse = self.b.emit(Op::Choose(k as u16), 1);
        Ok(Some(
            self.b.emit(Op::Select(fuse, fused, as_written), width),
        ))
    }

    /// `ld.param.v2.b32 {%r1, %r2}, [p]` as two scalar loads, `st.param.v2.b32 [p], {%r1,
    /// %r2}` as two stores, each element at the next address.
    fn vector_memory(
        &mut self,
        i: &Instr,
        scalar: &str,
        lanes: usize,
        guard: Option<ValueId>,
    ) -> Result<(), Diagnostic> {
        let [a, b] = i.operands.as_slice() else {
            return Err(at(&i.span, format!("`{}` takes two operands", i.opcode)));
        };
        let (vector, address, load) = match (&a.kind, &b.kind) {
            (OperandKind::Vector(v), OperandKind::Address { .. }) => (v, b, true),
            (OperandKind::Address { .. }, OperandKind::Vector(v)) => (v, a, false),
            _ => {
                return Err(at(
                    &i.span,
                    format!(
                        "`{}` moves a vector `{{...}}` to or from an address `[...]`",
                        i.opcode
                    ),
                ))
            }
        };
        if vector.len() != lanes {
            return Err(at(
                &i.span,
                format!(
                    "`{}` moves {lanes} elements, the vector has {}",
                    i.opcode,
                    vector.len()
                ),
            ));
        }
        let variant = self.find_variant(i, scalar, 1, 1)?;
        let bytes = i64::from(variant.sources[0].width.max(8) / 8);
        let OperandKind::Address { base, offset } = &address.kind else {
            unreachable!()
        };
        for (k, elem) in vector.iter().enumerate() {
            let at_k = Operand {
                kind: OperandKind::Address {
                    base: base.clone(),
                    offset: offset + bytes * k as i64,
                },
                span: address.span.clone(),
            };
            let signed = variant_is_signed(variant);
            if load {
                let arg = self.source(
                    &at_k,
                    variant.sources[0].width,
                    false,
                    &variant.sources[0].ty,
                    &variant.text,
                )?;
                let r = self.inline(variant, &[arg], i)?;
                match &elem.kind {
                    OperandKind::Name(n) => {
                        self.write_result(n, &elem.span, r[0], signed, guard)?
                    }
                    OperandKind::Sink => {}
                    _ => return Err(at(&elem.span, "a loaded element goes to a register or `_`")),
                }
            } else {
                let arg = self.source(
                    elem,
                    variant.sources[0].width,
                    false,
                    &variant.sources[0].ty,
                    &variant.text,
                )?;
                let r = self.inline(variant, &[arg], i)?;
                self.store(&at_k, r[0].0, r[0].1, guard)?;
            }
        }
        Ok(())
    }

    fn find_variant(
        &self,
        i: &Instr,
        opcode: &str,
        n_dests: usize,
        n_sources: usize,
    ) -> Result<&'s Variant, Diagnostic> {
        let mut named = self.spec.variants_named(opcode);
        if named.is_empty() {
            named = self.reordered(opcode);
        }
        if named.is_empty() {
            let why = self
                .spec
                .lookup(opcode, None)
                .err()
                .map(|d| d.message)
                .unwrap_or_default();
            return Err(at(
                &i.opcode_span,
                format!("unspecified instruction `{opcode}`"),
            )
            .with_note(why)
            .with_hint("`semfuzz list` shows every instruction semfuzz specifies"));
        }
        // A warp collective's spec reads all 32 lanes (docs/spec-language.md, "Warp
        // collectives"); this reader runs one thread.
        if named.iter().all(|v| v.is_warp_view()) {
            return Err(self.needs_the_cta(
                i,
                format!(
                    "`{opcode}` is a warp collective: its result depends on the warp's other \
                     lanes"
                ),
            ));
        }
        let variant = named
            .iter()
            .find(|v| v.sources.len() == n_sources && v.dests.len() == n_dests)
            // `setp.lt.f32 p, a, b` writes the first of the variant's `p|q`.
            .or_else(|| {
                named
                    .iter()
                    .find(|v| v.sources.len() == n_sources && n_dests < v.dests.len())
            })
            .copied()
            .ok_or_else(|| {
                no_signature_fits(i, opcode, &named).with_hint(format!(
                    "this instruction has {n_dests} destination(s) and {n_sources} source(s)"
                ))
            })?;
        self.require(i, opcode, variant)?;
        Ok(variant)
    }

    /// The located `unsupported` for what only a CTA has (`why`), read by one thread: the
    /// kernel read as one thread, or a function a CTA's thread calls (run as that thread
    /// alone, so a barrier or collective in it has no other threads to meet).
    fn needs_the_cta(&self, i: &Instr, why: String) -> Diagnostic {
        let error = at(&i.opcode_span, format!("unsupported: {why}"));
        if self.cta.is_some() {
            error
                .with_note(format!(
                    "`{}` is called, and a called function runs one thread at a time",
                    self.f.name
                ))
                .with_hint("semfuzz reads a barrier or warp collective in the kernel's own body, not in a function it calls")
        } else {
            error.with_hint(
                "read the kernel as a CTA (`--threads N`), whose threads meet at barriers and whose lanes a collective gathers",
            )
        }
    }

    /// ptxas refuses an instruction its module's target or PTX version lacks, so the reader
    /// does too: a program no GPU runs has no semantics to prove.
    fn require(&self, i: &Instr, opcode: &str, variant: &Variant) -> Result<(), Diagnostic> {
        if variant.requirement.met_by(self.declared) {
            return Ok(());
        }
        Err(at(
            &i.opcode_span,
            format!(
                "`{opcode}` requires {}, but the module declares {}",
                variant.requirement,
                declared_text(self.declared)
            ),
        )
        .with_hint("raise the module's `.version` or `.target`, as ptxas would ask"))
    }

    /// The variants of `opcode` with its modifiers in another order, where exactly one order
    /// names an instruction: ptxas takes modifiers in any order and place (`max.NaN.ftz.f32`,
    /// as LLVM 14-19 write it, is the manual's `max.ftz.NaN.f32`; `cvt.f16.rn.f32` is
    /// `cvt.rn.f16.f32`), while the types keep their order (`cvt.f32.f16` is not
    /// `cvt.f16.f32`) and come last, as the specs spell them.
    fn reordered(&self, opcode: &str) -> Vec<&'s Variant> {
        let mut parts = opcode.split('.');
        let name = parts.next().unwrap_or_default();
        let (types, mut modifiers): (Vec<&str>, Vec<&str>) = parts.partition(|p| is_type(p));
        // Opcodes carry a handful of modifiers; more than this is not an instruction.
        const MAX_PERMUTED: usize = 6;
        if modifiers.len() > MAX_PERMUTED {
            return Vec::new();
        }
        let mut found: Vec<String> = Vec::new();
        permutations(&mut modifiers, 0, &mut |order| {
            let text = [&[name], order, &types].concat().join(".");
            if !found.contains(&text) && !self.spec.variants_named(&text).is_empty() {
                found.push(text);
            }
        });
        match found.as_slice() {
            [one] => self.spec.variants_named(one),
            _ => Vec::new(),
        }
    }

    /// The bits operand `o` gives an input of `width` bits.
    fn source(
        &mut self,
        o: &Operand,
        width: u32,
        negatable: bool,
        ty: &str,
        instr: &str,
    ) -> Result<ValueId, Diagnostic> {
        match &o.kind {
            OperandKind::Name(n) if self.f.params.iter().any(|p| p.name == *n) => {
                self.param_address(n, width, &o.span, instr)
            }
            // `mov.u32 %r1, global_smem`: the variable's address in the shared window.
            OperandKind::Name(n) if self.shared_vars.contains_key(n) => {
                Ok(self.b.konst(self.shared_vars[n], width))
            }
            // `mov.b64 %SPL, __local_depot0`.
            OperandKind::Name(n) if self.local_vars.contains_key(n) => {
                let base = self.local_base(n);
                self.fit(base, width, &o.span, n, instr)
            }
            // `mov.b64 %rd4, table`: a `.global` or `.const` variable.
            OperandKind::Name(n) if self.module_variable(n) => {
                let base = self.variable_base(n)?;
                self.fit(base, width, &o.span, n, instr)
            }
            OperandKind::Name(n) => {
                let v = self.read_reg(n, &o.span)?;
                self.fit(v.id, width, &o.span, n, instr)
            }
            OperandKind::Not(n) => {
                if !negatable {
                    return Err(at(
                        &o.span,
                        format!("`{instr}` takes no `!` on this operand"),
                    ));
                }
                let v = self.read_reg(n, &o.span)?;
                let v = self.fit(v.id, width, &o.span, n, instr)?;
                Ok(self.b.emit(Op::Not(width, v), width))
            }
            OperandKind::Imm(imm) => self.immediate(*imm, width, ty, &o.span),
            OperandKind::Address { base, offset } => self.load(base, *offset, width, &o.span),
            OperandKind::Sink
            | OperandKind::Pair(..)
            | OperandKind::Vector(_)
            | OperandKind::List(_) => Err(at(
                &o.span,
                format!("`{}` cannot be a source operand here", o.kind),
            )),
        }
    }

    /// A register's bits as an operand of `width` bits (PTX ISA 9.4.1: wider sources are
    /// chopped to their low bits).
    fn fit(
        &mut self,
        v: ValueId,
        width: u32,
        span: &Span,
        name: &str,
        instr: &str,
    ) -> Result<ValueId, Diagnostic> {
        let have = self.b.widths[v as usize];
        if have < width {
            return Err(at(
                span,
                format!("`{name}` holds {have} bits, but `{instr}` reads {width} here"),
            )
            .with_hint(
                "PTX ISA 9.4.1: a source register must be at least as wide as the instruction type",
            ));
        }
        Ok(self.extract(v, 0, width))
    }

    fn immediate(
        &mut self,
        imm: Imm,
        width: u32,
        ty: &str,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        let bits = match imm {
            Imm::Int(v) => {
                let fits = width >= 64
                    || (v >= 0 && (v as u64) <= mask(width))
                    || (v < 0 && v >= -(1i64 << (width - 1)));
                if !fits {
                    return Err(at(span, format!("{v} does not fit in {width} bits")));
                }
                v as u64 & mask(width)
            }
            Imm::F32(b) if width == 32 => u64::from(b),
            Imm::F64(b) if width == 64 => b,
            Imm::F32(_) | Imm::F64(_) => {
                return Err(at(
                    span,
                    format!(
                    "a {}-bit floating-point literal where the operand (.{ty}) has {width} bits",
                    if matches!(imm, Imm::F32(_)) { 32 } else { 64 }
                ),
                ))
            }
        };
        Ok(self.b.konst(bits, width))
    }

    /// Resolves an address: a parameter (its own bytes, or its return slot) or a register
    /// holding what a pointer parameter points to.
    fn address(
        &mut self,
        base: &str,
        offset: i64,
        span: &Span,
    ) -> Result<(Space, i64), Diagnostic> {
        if let Some(i) = self.f.params.iter().position(|p| p.name == base) {
            return Ok((Space::Param(i), offset));
        }
        if let Some(i) = self.f.returns.iter().position(|p| p.name == base) {
            return Ok((Space::Return(i), offset));
        }
        if let Some(k) = self.call_params.get(base) {
            return Ok((Space::Call(*k), offset));
        }
        Err(at(span, format!("`{base}` is not a parameter")))
    }

    /// Whether an address `[base+offset]` is a register's value (memory the shared model
    /// holds) rather than a `.param` named by its parameter.
    fn is_register_address(&self, base: &str) -> bool {
        !self.f.params.iter().any(|p| p.name == base)
            && !self.f.returns.iter().any(|p| p.name == base)
            && !self.call_params.contains_key(base)
    }

    fn load(
        &mut self,
        base: &str,
        offset: i64,
        width: u32,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        if let Some(v) = self.load_through_param_address(base, offset, width, span)? {
            return Ok(v);
        }
        if self.is_register_address(base) {
            return self.heap_load(base, offset, width, span);
        }
        let (space, offset) = self.address(base, offset, span)?;
        self.load_space(space, offset, width, base, span)
    }

    /// `mov.b64 %rd, f_param_1`: the address of an input parameter (PTX ISA 5.1.6.1: "The
    /// address of a kernel parameter may be moved into a register using the `mov`
    /// instruction. The resulting address is in the `.param` state space and is accessed
    /// using `ld.param` instructions"; LLVM does so for device functions too, selecting
    /// between two parameters' addresses: docs/ambiguities.md 113). It is a constant of
    /// [`PARAM_ADDRESS`]'s range, parameter k at `PARAM_ADDRESS + k << 32`, that only
    /// [`Reader::load_through_param_address`] reads; a result it reaches is refused.
    fn param_address(
        &mut self,
        name: &str,
        width: u32,
        span: &Span,
        instr: &str,
    ) -> Result<ValueId, Diagnostic> {
        if !instr.starts_with("mov") || width != 64 {
            return Err(at(
                span,
                format!("unsupported use of parameter `{name}`'s address in `{instr}`"),
            )
            .with_hint("semfuzz reads a parameter's address moved into a 64-bit register (`mov.b64 %rd1, f_param_0`) and loaded through with `ld.param`"));
        }
        let k = self.f.params.iter().position(|p| p.name == name);
        let k = k.expect("a parameter of the function") as u64;
        Ok(self.b.konst(PARAM_ADDRESS + (k << 32), 64))
    }

    /// A load through a register holding parameter addresses ([`Reader::param_address`]), one
    /// or a `selp` between several: the parameters' bytes, selected the same way. `None` when
    /// `base` holds no such address.
    fn load_through_param_address(
        &mut self,
        base: &str,
        offset: i64,
        width: u32,
        span: &Span,
    ) -> Result<Option<ValueId>, Diagnostic> {
        if self.register(base, span).is_err() {
            return Ok(None);
        }
        let v = self.read_reg(base, span)?;
        self.param_address_load(v.id, offset, width, base, span)
    }

    fn param_address_load(
        &mut self,
        v: ValueId,
        offset: i64,
        width: u32,
        base: &str,
        span: &Span,
    ) -> Result<Option<ValueId>, Diagnostic> {
        if let Some((k, at_k)) = self.b.known[v as usize].and_then(param_of_address) {
            return self
                .load_space(Space::Param(k), at_k + offset, width, base, span)
                .map(Some);
        }
        match *self.b.op(v) {
            Op::Select(c, a, b) => {
                let (Some(a), Some(b)) = (
                    self.param_address_load(a, offset, width, base, span)?,
                    self.param_address_load(b, offset, width, base, span)?,
                ) else {
                    return Ok(None);
                };
                Ok(Some(self.b.emit(Op::Select(c, a, b), width)))
            }
            Op::BvAdd(64, a, b) => {
                let address = |x: ValueId| self.b.known[x as usize].and_then(param_of_address);
                let (k, at_k, by) = match (address(a), address(b)) {
                    (Some((k, at)), None) => (k, at, b),
                    (None, Some((k, at))) => (k, at, a),
                    _ => return Ok(None),
                };
                self.load_at_variable_offset(k, at_k + offset, by, width, base, span)
                    .map(Some)
            }
            _ => Ok(None),
        }
    }

    /// `width` bits of parameter `k` at `at + by`, `by` a register: LLVM's `extractelement`
    /// at a variable lane of a vector parameter (`mov.b64 %rd4, f_param_0; add.s64 %rd5, %rd4,
    /// %rd3; ld.param.b16 %rs1, [%rd5]`). Each offset inside the parameter gives its bytes; an
    /// offset outside it reads what the ISA does not say, any bits.
    fn load_at_variable_offset(
        &mut self,
        k: usize,
        at: i64,
        by: ValueId,
        width: u32,
        base: &str,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        let size = i64::from(self.f.params[k].size().unwrap_or(0));
        let bytes = i64::from(width.div_ceil(8));
        let (line, col) = span.file.line_col(span.start);
        let site = format!(
            "a load through `{base}` outside parameter `{}` at {}:{line}:{col}",
            self.f.params[k].name, span.file.name
        );
        let mut value = self.any_value(width, site);
        let w = self.b.widths[by as usize];
        for o in (0..=size - bytes - at).rev().filter(|o| *o >= 0) {
            let loaded = self.load_space(Space::Param(k), at + o, width, base, span)?;
            let c = self.b.konst(o as u64, w);
            let here = self.b.emit(Op::BvEq(by, c), 1);
            value = self.b.emit(Op::Select(here, loaded, value), width);
        }
        Ok(value)
    }

    /// Whether result `v` reads a parameter's address as a value, which semfuzz does not
    /// know (only loads through it).
    fn reads_param_address(&self, v: ValueId) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if !seen.insert(v) {
                continue;
            }
            if self.b.known[v as usize]
                .and_then(param_of_address)
                .is_some()
            {
                return true;
            }
            stack.extend(self.b.op(v).args());
        }
        false
    }

    /// `width` bits at `offset` of `space` (little-endian).
    fn load_space(
        &mut self,
        space: Space,
        offset: i64,
        width: u32,
        base: &str,
        span: &Span,
    ) -> Result<ValueId, Diagnostic> {
        let bytes = width.div_ceil(8);
        let mut pieces = Vec::new();
        for k in 0..i64::from(bytes) {
            match self.memory.get(&(space, offset + k)).copied() {
                Some(Byte::Known(b)) => pieces.push(b),
                Some(Byte::Undefined) => {
                    return Err(at(span, format!("`{base}` is read before it is written")))
                }
                None => {
                    return Err(at(
                        span,
                        format!("byte {} of `{base}` is outside it", offset + k),
                    ))
                }
            }
        }
        let v = self.join_bytes(&pieces);
        Ok(self.extract(v, 0, width))
    }

    /// Bytes (lowest first) as one value; bytes that are consecutive slices of one value are
    /// that slice, so a value stored and loaded again is the same value.
    fn join_bytes(&mut self, pieces: &[ValueId]) -> ValueId {
        let slices: Option<Vec<(ValueId, u32)>> = pieces
            .iter()
            .map(|b| match *self.b.op(*b) {
                Op::Extract {
                    value,
                    lo,
                    width: 8,
                } => Some((value, lo)),
                _ => None,
            })
            .collect();
        if let Some(sl) = slices {
            let (v, lo) = sl[0];
            if sl
                .iter()
                .enumerate()
                .all(|(k, (w, l))| *w == v && *l == lo + 8 * k as u32)
            {
                return self.extract(v, lo, 8 * pieces.len() as u32);
            }
        }
        let mut value = pieces[0];
        for b in &pieces[1..] {
            value = self.concat(*b, value);
        }
        value
    }

    fn store(
        &mut self,
        o: &Operand,
        value: ValueId,
        kind: PartKind,
        guard: Option<ValueId>,
    ) -> Result<(), Diagnostic> {
        let OperandKind::Address { base, offset } = &o.kind else {
            return Err(at(&o.span, "a store's destination is an address `[...]`"));
        };
        if self.is_register_address(base) {
            return self.heap_store(base, *offset, value, guard, &o.span);
        }
        let (space, offset) = self.address(base, *offset, &o.span)?;
        let cond = self.and(self.path, guard);
        let width = self.b.widths[value as usize];
        let bytes = width.div_ceil(8);
        for k in 0..bytes {
            let piece = if width < 8 {
                let z = self.b.konst(0, 8 - width);
                self.concat(z, value)
            } else {
                self.extract(value, k * 8, 8)
            };
            let key = (space, offset + i64::from(k));
            let old = match (self.memory.get(&key).copied(), space) {
                (Some(b), _) => b,
                // LLVM declares an `<N x i1>` return by its store size (`.b8 func_retval0[1]`
                // for two lanes) and writes lane k to byte k, past that size; its call sites
                // read it back there (docs/ambiguities.md 112).
                (None, Space::Return(_)) if key.1 >= 0 => Byte::Undefined,
                (None, _) => {
                    return Err(at(
                        &o.span,
                        format!("byte {} of `{base}` is outside it", key.1),
                    ))
                }
            };
            let new = match (cond, old) {
                (None, _) => Byte::Known(piece),
                (Some(c), Byte::Known(old)) => {
                    Byte::Known(self.b.emit(Op::Select(c, piece, old), 8))
                }
                // A call's parameter is written for the call, which runs on the same path.
                (Some(_), Byte::Undefined) if matches!(space, Space::Call(_)) => Byte::Known(piece),
                (Some(_), Byte::Undefined) => {
                    return Err(
                        at(&o.span, format!("`{base}` is written only on some paths")).with_hint(
                            "semfuzz needs every result written on every path that returns",
                        ),
                    )
                }
            };
            self.memory.insert(key, new);
        }
        match space {
            Space::Return(r) => {
                let size = self.f.returns[r].size().unwrap_or(0);
                if bytes == size {
                    self.return_kinds.insert(r, kind);
                }
            }
            Space::Param(_) | Space::Call(_) => {}
        }
        Ok(())
    }

    /// Writes an instruction's result to register `name` (9.4.1: a wider register gets the
    /// value sign-extended for a signed integer type, zero-extended otherwise).
    fn write_result(
        &mut self,
        name: &str,
        span: &Span,
        (value, kind): (ValueId, PartKind),
        signed: bool,
        guard: Option<ValueId>,
    ) -> Result<(), Diagnostic> {
        let (_, width) = self.register(name, span)?;
        let have = self.b.widths[value as usize];
        let id = if have == width {
            value
        } else if have < width {
            let fill = if signed {
                let sign = self.extract(value, have - 1, 1);
                let ones = self.b.konst(u64::MAX, width - have);
                let zeros = self.b.konst(0, width - have);
                self.b.emit(Op::Select(sign, ones, zeros), width - have)
            } else {
                self.b.konst(0, width - have)
            };
            self.concat(fill, value)
        } else {
            return Err(at(span, format!("`{name}` holds {width} bits, the result has {have}"))
                .with_hint("PTX ISA 9.4.1: a destination register must be at least as wide as the instruction type"));
        };
        let kind = if have == width { kind } else { PartKind::Bits };
        self.write_reg(name, span, Value { id, kind }, guard)
    }

    /// Inlines `variant` over `args`; one (value, kind) per destination, lanes concatenated.
    /// Each choice it leaves is recorded with the instruction's location.
    fn inline(
        &mut self,
        variant: &Variant,
        args: &[ValueId],
        i: &Instr,
    ) -> Result<Vec<(ValueId, PartKind)>, Diagnostic> {
        let before = self.choices.len();
        let out = self.b.inline(&variant.program, args, &mut self.choices);
        let (line, col) = i.span.file.line_col(i.span.start);
        for _ in before..self.choices.len() {
            self.choice_sites.push(format!(
                "`{}` at {}:{line}:{col}",
                i.opcode, i.span.file.name
            ));
        }
        // PTX has no poison: its variants' outcomes never reach a poison leaf.
        Ok(out.into_iter().map(|o| (o.value, o.kind)).collect())
    }

    fn finish(&mut self) -> Result<PtxFunction, Diagnostic> {
        // A CTA's last phase ends with the kernel, and it was cut wherever a thread was.
        if self.cta.is_some() {
            self.close_phase();
            let mut cut = None;
            self.each_thread(|r, _| {
                cut = r.b.or_pred(cut, r.cut);
                Ok(())
            })?;
            self.cut = cut;
        }
        let mut results = Vec::new();
        let mut dests = Vec::new();
        let f = self.f;
        for (r, p) in f.returns.iter().enumerate() {
            let size = self.bytes_written(r, self.return_extent(r, p.size().unwrap_or(0)));
            let value = self.result_bytes(Space::Return(r), 0, size, &p.name)?;
            let kind = self.return_kinds.get(&r).copied().unwrap_or(PartKind::Bits);
            results.push((p.name.clone(), value, kind));
        }
        if results.is_empty() && self.heap.lasting_blocks().next().is_none() {
            return Err(
                at(&f.span, format!("`{}` has no results", f.name)).with_hint(
                    "semfuzz reads what a function returns (`st.param` to a return parameter) or \
                 stores through a pointer parameter",
                ),
            );
        }
        let mut slots = Vec::new();
        for (name, value, kind) in results {
            if self.reads_param_address(value) {
                return Err(at(&f.span, format!("unsupported result `{name}`: it depends on a parameter's address, which semfuzz does not know"))
                    .with_hint("semfuzz reads a parameter's address only to load through it"));
            }
            let width = self.b.widths[value as usize];
            let kind = match kind {
                PartKind::Float(fmt) if fmt.width() == width => kind,
                _ => PartKind::Bits,
            };
            let outcome = self.b.outcome_of(value, &self.choices);
            dests.push(Dest::whole(name.clone(), width, kind, outcome));
            slots.push(Slot { name, width, kind });
        }
        let (mut heap_dests, mut heap_slots) = self.heap.results(&mut self.b, None, self.fault);
        dests.append(&mut heap_dests);
        slots.append(&mut heap_slots);
        for (name, value) in std::mem::take(&mut self.call_arguments) {
            let width = self.b.widths[value as usize];
            let outcome = self.b.outcome_of(value, &self.choices);
            dests.push(Dest::whole(name.clone(), width, PartKind::Bits, outcome));
            slots.push(Slot {
                name,
                width,
                kind: PartKind::Bits,
            });
        }
        if self.cta.is_some() {
            for (name, bad) in [
                (RACE_FREE, self.race),
                (WARP_STORES_AGREE, self.warp_stores_differ),
            ] {
                let good = match bad {
                    Some(r) => self.b.emit(Op::Not(1, r), 1),
                    None => self.b.konst(1, 1),
                };
                dests.push(Dest::whole(
                    name.into(),
                    1,
                    PartKind::Pred,
                    Outcome::Exact(good),
                ));
                slots.push(Slot {
                    name: name.into(),
                    width: 1,
                    kind: PartKind::Pred,
                });
            }
        }
        let unrolled = self.looped.then_some(self.unroll);
        if unrolled.is_some() {
            let cut = self.cut.unwrap_or_else(|| self.b.konst(0, 1));
            let bounded = self.b.emit(Op::Not(1, cut), 1);
            if self.b.known[bounded as usize] == Some(0) {
                return Err(at(&f.span, format!("unsupported loop bound: every execution of `{}` runs a loop more than {} times", f.name, self.unroll))
                    .with_hint("a proof would be vacuous; raise `--unroll` to the loop's trip count"));
            }
            dests.push(Dest::whole(
                BOUNDED.into(),
                1,
                PartKind::Pred,
                Outcome::Exact(bounded),
            ));
        }
        let choices = std::mem::take(&mut self.choices);
        let (program, kept) =
            std::mem::take(&mut self.b).finish(self.input_widths.clone(), dests, choices);
        let choice_sites = kept.iter().map(|k| self.choice_sites[*k].clone()).collect();
        Ok(PtxFunction {
            name: f.name.clone(),
            kind: f.kind,
            inputs: std::mem::take(&mut self.inputs),
            results: slots,
            program,
            choice_sites,
            instructions: self.instructions,
            unrolled,
            launch: Launch {
                reqntid: f.directive("reqntid").and_then(Launch::shape),
                maxntid: f.directive("maxntid").and_then(Launch::shape),
            },
            cta: self.cta,
        })
    }

    /// How many bytes return parameter `r` holds: its declared `size`, or up to the last byte
    /// a store wrote past it (an `<N x i1>`'s lanes, one byte each).
    fn return_extent(&self, r: usize, size: u32) -> u32 {
        let last = self
            .memory
            .keys()
            .filter_map(|&(space, k)| (space == Space::Return(r)).then_some(k + 1))
            .max()
            .unwrap_or(0);
        size.max(u32::try_from(last).unwrap_or(size))
    }

    /// The bytes of return parameter `r` its result is: those written from the first, when no
    /// byte after them is ever written (LLVM 14 to 16 return a `half` in a `.b32` and store its
    /// low 16 bits: a subword scalar promoted to 32 bits, 7.1), else all `size`, so that a gap
    /// is reported.
    fn bytes_written(&self, r: usize, size: u32) -> u32 {
        let written = |k: u32| {
            matches!(
                self.memory.get(&(Space::Return(r), i64::from(k))),
                Some(Byte::Known(_))
            )
        };
        match (0..size).find(|&k| !written(k)) {
            Some(first) if first > 0 && (first..size).all(|k| !written(k)) => first,
            _ => size,
        }
    }

    fn result_bytes(
        &mut self,
        space: Space,
        offset: i64,
        bytes: u32,
        name: &str,
    ) -> Result<ValueId, Diagnostic> {
        let mut value: Option<ValueId> = None;
        for k in (0..i64::from(bytes)).rev() {
            let byte = match self.memory.get(&(space, offset + k)) {
                Some(Byte::Known(b)) => *b,
                _ => {
                    return Err(at(
                        &self.f.span,
                        format!(
                            "`{}` never writes byte {} of `{name}`",
                            self.f.name,
                            offset + k
                        ),
                    )
                    .with_hint("semfuzz needs every result written on every path that returns"))
                }
            };
            value = Some(match value {
                None => byte,
                Some(hi) => self.concat(hi, byte),
            });
        }
        Ok(value.expect("a result has bytes"))
    }
}

/// Where [`Reader::param_address`] puts parameter addresses: far from any constant a
/// program computes with (`"par"` in ASCII, then the parameter in bits 32 to 39).
const PARAM_ADDRESS: u64 = 0x7061_7200_0000_0000;

/// The parameter and offset a [`PARAM_ADDRESS`] constant is, if it is one.
fn param_of_address(bits: u64) -> Option<(usize, i64)> {
    let k = bits.checked_sub(PARAM_ADDRESS)? >> 32;
    let offset = bits & 0xffff_ffff;
    (k < 256 && offset < 0x1_0000).then_some((k as usize, offset as i64))
}

/// Whether a loop's body (its label first, its backward `bra` not included) has no `ret`, no
/// `exit` and no `bra` to a label outside it.
fn only_exit_at_end(body: &[Statement]) -> bool {
    let inside = |l: &str| {
        body.iter()
            .any(|s| matches!(s, Statement::Label(m, _) if m == l))
    };
    body.iter().all(|s| match s {
        Statement::Instr(i) => match i.opcode.split('.').next() {
            Some("ret" | "exit") => false,
            Some("bra") => matches!(i.operands.as_slice(),
                [Operand { kind: OperandKind::Name(l), .. }] if inside(l)),
            _ => true,
        },
        Statement::Block(inner, _) => only_exit_at_end(inner),
        _ => true,
    })
}

/// A float kind for a declared type (`f32` → f32), if it is one.
fn float_kind(ty: &str, width: u32) -> Option<PartKind> {
    let f = match ty {
        "f16" => semfuzz_fp::Format::F16,
        "f32" => semfuzz_fp::Format::F32,
        "f64" => semfuzz_fp::Format::F64,
        _ => return None,
    };
    (f.width() == width).then_some(PartKind::Float(f))
}

/// Whether a variant's instruction type is a signed integer (`.s32`): its results are
/// sign-extended into wider registers (9.4.1).
fn variant_is_signed(v: &Variant) -> bool {
    v.text
        .rsplit('.')
        .next()
        .is_some_and(|t| t.starts_with('s') && t[1..].parse::<u32>().is_ok())
}
