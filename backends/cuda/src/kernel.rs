//! PTX kernel text for a variant: usable without CUDA (the tests assemble it with `ptxas`).
//!
//! One `.entry` per variant. Its parameters are the case count `n`, a pointer to the
//! destination array, then one pointer per source operand (in [`Variant::sources`] order).
//! Each array holds one element per case, of the operand's register size ([`Operand::bytes`]):
//! 2, 4 or 8 bytes, and 1 byte (0 or 1) for a predicate. A grid-stride loop runs case `i` of
//! `0..n`: it loads every source, runs the instruction exactly as the variant's text writes it
//! (`add.rn.ftz.f32 %d0, %s0, %s1;`), and stores the first destination's bits.
//!
//! `{!}c` operands are written plain (`c`, never `!c`): the inputs the backend gets are the
//! values `sem` reads, after any negation the text would write.

use semfuzz_spec::catalog::{OperandRole, OperandSig, Requirement};
use semfuzz_spec::sass::looks_like_sass;
use semfuzz_spec::Variant;
use std::fmt::Write;

/// The lowest target `ptxas` 13 still assembles for: repros target it (or the variant's
/// requirement when that is higher), so the driver JIT-compiles them for any GPU since.
pub const PTXAS_MIN_SM: u32 = 75;

/// A kernel's header: `.version` and `.target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Target {
    /// `.target sm_XX`.
    pub sm: u32,
    /// `.version MAJOR.MINOR`.
    pub ptx: (u32, u32),
}

/// The PTX ISA version that introduced target `sm_XX` (PTX ISA "Release notes" table), or,
/// for a target newer than this table, `None`.
pub fn isa_for_sm(sm: u32) -> Option<(u32, u32)> {
    Some(match sm {
        0..=13 => (1, 0),
        14..=20 => (2, 0),
        21..=30 => (3, 0),
        31..=35 => (3, 1),
        36..=50 => (4, 0),
        51..=52 => (4, 1),
        53 => (4, 2),
        54..=62 => (5, 0),
        63..=70 => (6, 0),
        71..=72 => (6, 1),
        73..=75 => (6, 3),
        76..=80 => (7, 0),
        81..=86 => (7, 1),
        87 => (7, 4),
        88..=90 => (7, 8),
        91..=100 => (8, 6),
        101 => (8, 6),
        102..=103 => (8, 8),
        104..=110 => (9, 0),
        111..=120 => (8, 7),
        121 => (8, 8),
        _ => return None,
    })
}

impl Target {
    /// The lowest header that holds every requirement in `reqs` and targets at least
    /// `sm_floor`: the highest `sm` asked for, and the newest PTX ISA version among the
    /// requirements and the one that introduced that target.
    pub fn for_requirements(
        reqs: impl IntoIterator<Item = Requirement>,
        sm_floor: u32,
    ) -> Result<Target, String> {
        let req = reqs
            .into_iter()
            .fold(Requirement::default(), Requirement::max);
        let sm = req.sm.unwrap_or(0).max(sm_floor);
        let intro = isa_for_sm(sm).ok_or_else(|| {
            format!("sm_{sm} is newer than the targets semfuzz knows the PTX ISA version of")
        })?;
        Ok(Target {
            sm,
            ptx: req.ptx.unwrap_or((1, 0)).max(intro),
        })
    }

    /// The `.version`/`.target`/`.address_size` lines.
    pub fn header(&self) -> String {
        format!(
            ".version {}.{}\n.target sm_{}\n.address_size 64\n",
            self.ptx.0, self.ptx.1, self.sm
        )
    }
}

/// How a kernel holds one operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The PTX register type (`f32`, `b16` for `f16`/`bf16`, `b32` for `f16x2`, `pred`).
    pub reg: &'static str,
    /// Bytes per element of its array: 1 for a predicate (0 or 1), else the register's size.
    pub bytes: usize,
}

impl Operand {
    /// The register for an operand of spec type `sig.ty`, or why a kernel cannot hold it.
    fn of(sig: &OperandSig) -> Result<Operand, String> {
        let reg = match sig.ty.as_str() {
            "pred" => "pred",
            "f16" | "bf16" => "b16",
            "f16x2" | "bf16x2" => "b32",
            "f32x2" => "b64",
            "f32" => "f32",
            "f64" => "f64",
            // `.b8` registers hold the elements of 9.7.9.4's packing `mov` (ptxas 13.5
            // accepts them, and `ld.global.b8` fills them).
            "b8" => "b8",
            // 9.7.9.21 cvt's `.u8`/`.s8` operands: a bit-size register of the same size
            // (ptxas checks the size, and the instruction type says how the bits are read).
            "u8" | "s8" => "b8",
            "b16" => "b16",
            "b32" => "b32",
            "b64" => "b64",
            "u16" => "u16",
            "u32" => "u32",
            "u64" => "u64",
            "s16" => "s16",
            "s32" => "s32",
            "s64" => "s64",
            other => {
                return Err(format!(
                "operand {} has type {other}, which the kernel generator has no PTX register for",
                sig.name
            ))
            }
        };
        let bytes = if reg == "pred" {
            1
        } else {
            sig.width.div_ceil(8) as usize
        };
        Ok(Operand { reg, bytes })
    }
}

/// The registers and arrays of a variant's kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Every destination (all are written by the instruction; only the first is stored).
    pub dests: Vec<Operand>,
    /// The sources, in [`Variant::sources`] order: one input array each.
    pub sources: Vec<Operand>,
}

impl Layout {
    /// The layout of `variant`'s kernel, or why no kernel can run it (a SASS instruction, an
    /// operand that is an instruction field, a type without a PTX register).
    pub fn of(variant: &Variant) -> Result<Layout, String> {
        if looks_like_sass(&variant.text) {
            return Err(format!(
                "{} is SASS: PTX cannot name a SASS instruction (ptxas chooses them)",
                variant.text
            ));
        }
        if variant.is_llvm_ir() {
            return Err(format!(
                "{} is LLVM IR: a PTX kernel cannot name it (llc chooses the PTX)",
                variant.text
            ));
        }
        if variant.is_warp_view() {
            return Err(format!(
                "{} is a warp collective: a kernel of one thread per case cannot run it \
                 (backends/cuda/probes/warp_collectives.cu runs whole warps)",
                variant.text
            ));
        }
        if let Some(s) = variant
            .sources
            .iter()
            .find(|s| s.role != OperandRole::Value)
        {
            return Err(format!(
                "operand {} of {} is an instruction field, not a register a kernel loads",
                s.name, variant.text
            ));
        }
        if variant.dests.is_empty() {
            return Err(format!("{} writes no destination", variant.text));
        }
        if has_memory_operand(variant) {
            return Err(format!(
                "{} has a memory operand: the kernel passes values in registers, not addresses",
                variant.text
            ));
        }
        Ok(Layout {
            dests: variant
                .dests
                .iter()
                .map(Operand::of)
                .collect::<Result<_, _>>()?,
            sources: variant
                .sources
                .iter()
                .map(Operand::of)
                .collect::<Result<_, _>>()?,
        })
    }
}

/// One variant's kernel: a complete module with one entry.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The entry's name.
    pub entry: String,
    /// Its arrays.
    pub layout: Layout,
    /// Its header.
    pub target: Target,
    /// The module text.
    pub ptx: String,
}

/// The name every single-variant module gives its entry.
pub const ENTRY: &str = "semfuzz_kernel";

impl Kernel {
    /// The kernel of `variant` for a target of at least `sm_floor` (the device's own `sm` on
    /// a GPU), or why there is none.
    pub fn new(variant: &Variant, sm_floor: u32) -> Result<Kernel, String> {
        let layout = Layout::of(variant)?;
        let target = Target::for_requirements([variant.requirement], sm_floor)?;
        let mut ptx = target.header();
        ptx.push('\n');
        ptx.push_str(&entry(variant, &layout, ENTRY));
        Ok(Kernel {
            entry: ENTRY.to_string(),
            layout,
            target,
            ptx,
        })
    }
}

/// The instruction as the variant's text writes it, on the kernel's registers, with the
/// operands laid out as its form writes them: `add.rn.f32 %d0, %s0, %s1;`, the vectors of
/// `mov.b32 %d0, {%s0, %s1};` and the two destinations of `setp.lt.s32 %d0|%d1, %s0, %s1;`.
pub fn instruction(variant: &Variant) -> String {
    let names: Vec<(&str, String)> = variant
        .dests
        .iter()
        .enumerate()
        .map(|(k, o)| (o.name.as_str(), format!("%d{k}")))
        .chain(
            variant
                .sources
                .iter()
                .enumerate()
                .map(|(k, o)| (o.name.as_str(), format!("%s{k}"))),
        )
        .collect();
    let form = variant.syntax.split(';').next().unwrap_or("");
    let operands = form
        .split_once(char::is_whitespace)
        .map_or("", |(_, o)| o.trim())
        .replace("[|", "|")
        .replace("{!}", "");
    let mut out = String::new();
    let mut word = String::new();
    // Each operand name becomes its register; `p[|q]`'s closing bracket goes with `[|`.
    for c in operands.chars().chain([' ']) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            match names.iter().find(|(n, _)| *n == word) {
                Some((_, reg)) => out.push_str(reg),
                None => out.push_str(&word),
            }
            word.clear();
        }
        if c == ']' && out.contains('|') && !out.contains('[') {
            continue;
        }
        out.push(c);
    }
    format!("{} {};", variant.text, out.trim_end())
}

/// Whether the form reads or writes memory (`[a]`): the kernel passes every operand in a
/// register, and an address is not the value at it.
fn has_memory_operand(variant: &Variant) -> bool {
    let form = variant.syntax.split(';').next().unwrap_or("");
    form.match_indices('[')
        .any(|(i, _)| form[i + 1..].starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// The `.entry` named `name` that runs `variant` (whose layout is `layout`) on `n` cases.
pub fn entry(variant: &Variant, layout: &Layout, name: &str) -> String {
    let mut t = String::new();
    let mut line = |s: &str| {
        t.push_str(s);
        t.push('\n');
    };
    line(&format!("// {}", variant.signature()));
    line(&format!(".visible .entry {name}("));
    let mut params = vec![
        format!("\t.param .u64 {name}_n"),
        format!("\t.param .u64 {name}_d"),
    ];
    params.extend((0..layout.sources.len()).map(|k| format!("\t.param .u64 {name}_s{k}")));
    line(&params.join(",\n"));
    line(")\n{");
    line("\t.reg .pred %done;");
    line("\t.reg .u32 %bx, %bdim, %tx, %gdim;");
    let pointers: Vec<String> = (0..layout.sources.len())
        .map(|k| format!("%ps{k}"))
        .collect();
    line(&format!(
        "\t.reg .u64 %i, %n, %stride, %addr, %tx64, %pd{};",
        pointers
            .iter()
            .map(|p| format!(", {p}"))
            .collect::<String>()
    ));
    let any_pred = layout
        .dests
        .iter()
        .chain(&layout.sources)
        .any(|o| o.reg == "pred");
    if any_pred {
        line("\t.reg .u16 %bit;");
    }
    for (k, d) in layout.dests.iter().enumerate() {
        line(&format!("\t.reg .{} %d{k};", d.reg));
    }
    for (k, s) in layout.sources.iter().enumerate() {
        line(&format!("\t.reg .{} %s{k};", s.reg));
    }
    line(&format!("\tld.param.u64 %n, [{name}_n];"));
    line(&format!("\tld.param.u64 %pd, [{name}_d];"));
    line("\tcvta.to.global.u64 %pd, %pd;");
    for k in 0..layout.sources.len() {
        line(&format!("\tld.param.u64 %ps{k}, [{name}_s{k}];"));
        line(&format!("\tcvta.to.global.u64 %ps{k}, %ps{k};"));
    }
    line("\tmov.u32 %bx, %ctaid.x;");
    line("\tmov.u32 %bdim, %ntid.x;");
    line("\tmov.u32 %tx, %tid.x;");
    line("\tmov.u32 %gdim, %nctaid.x;");
    line("\tcvt.u64.u32 %tx64, %tx;");
    line("\tmad.wide.u32 %i, %bx, %bdim, %tx64;");
    line("\tmul.wide.u32 %stride, %bdim, %gdim;");
    line("$Lloop:");
    line("\tsetp.ge.u64 %done, %i, %n;");
    line("\t@%done bra $Ldone;");
    for (k, s) in layout.sources.iter().enumerate() {
        line(&format!("\tmad.lo.u64 %addr, %i, {}, %ps{k};", s.bytes));
        if s.reg == "pred" {
            line("\tld.global.u8 %bit, [%addr];");
            line(&format!("\tsetp.ne.u16 %s{k}, %bit, 0;"));
        } else {
            line(&format!("\tld.global.{} %s{k}, [%addr];", s.reg));
        }
    }
    line(&format!("\t{}", instruction(variant)));
    let d = &layout.dests[0];
    line(&format!("\tmad.lo.u64 %addr, %i, {}, %pd;", d.bytes));
    if d.reg == "pred" {
        line("\tselp.u16 %bit, 1, 0, %d0;");
        line("\tst.global.u8 [%addr], %bit;");
    } else {
        line(&format!("\tst.global.{} [%addr], %d0;", d.reg));
    }
    line("\tadd.u64 %i, %i, %stride;");
    line("\tbra.uni $Lloop;");
    line("$Ldone:");
    line("\tret;");
    line("}");
    t
}

/// Many variants' entries in one module (the tests assemble the catalogue in a few of
/// these): `entries` are `(variant, layout)` pairs; entry `k` is named `k{k}`.
pub fn module<'v>(
    target: Target,
    entries: impl IntoIterator<Item = (&'v Variant, &'v Layout)>,
) -> String {
    let mut ptx = target.header();
    for (k, (variant, layout)) in entries.into_iter().enumerate() {
        // Writing to a String cannot fail.
        let _ = write!(ptx, "\n{}", entry(variant, layout, &format!("k{k}")));
    }
    ptx
}

#[cfg(test)]
mod tests {
    use super::*;
    use semfuzz_spec::Spec;

    #[test]
    fn the_header_is_the_lowest_that_holds_the_variant_and_the_floor() {
        let spec = Spec::embedded().unwrap();
        let target = |text: &str, floor| {
            let v = spec.lookup(text, None).unwrap();
            Target::for_requirements([v.requirement], floor).unwrap()
        };
        // f32x2 needs PTX ISA 8.6 and sm_100, whatever the floor.
        assert_eq!(
            target("add.rn.f32x2", 75),
            Target {
                sm: 100,
                ptx: (8, 6)
            }
        );
        // bf16 add needs 7.8/sm_90; sm_90 itself needs 7.8.
        assert_eq!(
            target("add.rn.bf16", 75),
            Target {
                sm: 90,
                ptx: (7, 8)
            }
        );
        // add.rn.f32 needs nothing: the floor's target and the version that introduced it.
        assert_eq!(
            target("add.rn.f32", 75),
            Target {
                sm: 75,
                ptx: (6, 3)
            }
        );
        assert_eq!(
            target("add.rn.f32", 120),
            Target {
                sm: 120,
                ptx: (8, 7)
            }
        );
        assert!(Target::for_requirements([], 999).is_err());
    }

    #[test]
    fn operands_get_registers_of_their_type_and_predicates_a_byte() {
        let spec = Spec::embedded().unwrap();
        let v = spec.lookup("set.lt.and.u32.bf16x2", Some(3)).unwrap();
        let l = Layout::of(v).unwrap();
        let regs: Vec<(&str, usize)> = l.sources.iter().map(|o| (o.reg, o.bytes)).collect();
        assert_eq!(regs, [("b32", 4), ("b32", 4), ("pred", 1)]);
        assert_eq!((l.dests[0].reg, l.dests[0].bytes), ("u32", 4));
        assert_eq!(instruction(v), "set.lt.and.u32.bf16x2 %d0, %s0, %s1, %s2;");
        let p = Layout::of(spec.lookup("testp.normal.f32", None).unwrap()).unwrap();
        assert_eq!((p.dests[0].reg, p.dests[0].bytes), ("pred", 1));
        let sass = spec
            .variants
            .iter()
            .find(|v| v.text.starts_with("HMUL2"))
            .unwrap();
        assert!(Layout::of(sass).unwrap_err().contains("is SASS"));
        let ir = spec.lookup("ir_fadd.nnan.f32", None).unwrap();
        assert!(Layout::of(ir).unwrap_err().contains("is LLVM IR"));
    }
}
