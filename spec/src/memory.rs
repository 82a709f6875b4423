//! One thread's memory, as both function readers (`semfuzz-llir`, `semfuzz-ptx`) build it into
//! their one [`Program`](crate::ir::Program): the same model on both sides of a translation
//! validation, written once.
//!
//! After Alive2's (`ir/memory.cpp`): memory is blocks of bytes, each byte an 8-bit value and a
//! 1-bit poison flag. A block is what one pointer parameter points to, of a bounded size
//! ([`DEFAULT_BLOCK_BYTES`]); blocks never overlap (distinct pointer arguments). A pointer is
//! a 64-bit value whose provenance is the one pointer parameter its expression derives from
//! (Alive2's pointers carry their block id; here the block is read off the expression, since
//! both readers build addresses as arithmetic on the parameter: `getelementptr`, `add.s64`,
//! `mad.wide`, `cvta`), and whose offset is the address minus that parameter. An access at a
//! symbolic offset is a select chain over the block's bytes, so the program stays bit-vectors
//! of at most 64 bits and no evaluator or encoder knows about memory.
//!
//! Under `--may-alias` ([`Layout::aliasing`]) the pointer parameters that may overlap share one
//! block, a region around the lowest of them, each pointing into it at an offset the function's
//! inputs decide: the same bytes may then be reached through two of them.
//!
//! A block the function allocates itself (an IR `alloca`, a PTX `.local` variable) is at an
//! address only the function knows: its pointer derives from an opaque value (a choice),
//! and it is no result, since it dies when the function returns.
//!
//! Every access says where it is within its block and aligned (`ok`): the IR reader makes its
//! negation undefined behaviour, the PTX reader a fault that its `in_bounds` result reports,
//! so a target touching bytes outside every block where the source is defined disagrees with
//! the source.

use crate::ir::{Builder, Dest, Op, Outcome, Part, PartKind, Slot, ValueId};

/// How many bytes each pointer parameter's block holds (docs/llc-validation.md, "Memory").
pub const DEFAULT_BLOCK_BYTES: u32 = 16;

/// The alignment the model assumes of every block's first byte: an access is aligned when its
/// offset in the block is (the largest alignment an access of either reader asks, `ld.v4.b32`).
pub const BLOCK_ALIGN: u32 = 16;

/// How many bits of a local block's address are free: it starts [`BLOCK_ALIGN`]-aligned, as
/// every block does (llc relies on it, adding an offset into a depot with `or.b64`).
pub const LOCAL_ADDRESS_BITS: u32 = 64 - BLOCK_ALIGN.trailing_zeros();

/// A local block's address from `free`, the [`LOCAL_ADDRESS_BITS`]-bit choice of the reader
/// that declares it: `free` followed by zeros.
pub fn local_address(b: &mut Builder, free: ValueId) -> ValueId {
    let zeros = b.konst(0, BLOCK_ALIGN.trailing_zeros());
    b.concat(free, zeros)
}

/// The name of the one-bit result a function with memory gets: where every access of the
/// function touched bytes inside its block, aligned.
pub const IN_BOUNDS: &str = "in_bounds";

/// Why an address names no block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It derives from pointer input `n`, which has no block yet: the reader declares one and
    /// reads the function again.
    NewBlock(u16),
    /// It derives from no pointer input.
    NoPointer,
    /// It derives from several pointer inputs (`p + (q - p)`).
    Several(Vec<u16>),
}

/// How the memory the pointer parameters point to is laid out: what the LLVM IR reader decides
/// and the PTX judged against it is read with, so that the two sides' memories line up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// How many bytes each pointer parameter's block holds.
    pub block_bytes: u32,
    /// The pointer inputs that may overlap one another (`--may-alias`; docs/ambiguities.md
    /// 100), ascending. Those an access reaches, where there are two or more, share one block
    /// ([`Base::Region`]); the others (none, or the IR's `noalias` parameters) have blocks of
    /// their own.
    pub aliasing: Vec<u16>,
    /// The module variables the function may write and the bytes each holds, by the IR's
    /// name (without `@`), ascending ([`Base::Global`]); `None` where no IR decided them (a
    /// PTX function read alone takes the `.global` variables without an initializer it
    /// names).
    pub globals: Option<Vec<(String, u32)>>,
}

impl Default for Layout {
    fn default() -> Layout {
        Layout {
            globals: None,
            block_bytes: DEFAULT_BLOCK_BYTES,
            aliasing: Vec::new(),
        }
    }
}

/// Where a block starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// At the address pointer input `n` holds.
    Input(u16),
    /// `before` bytes below the address pointer input `n` holds: the region the pointer inputs
    /// that may overlap share ([`Layout::aliasing`]), `n` the lowest of them. Each of them
    /// points into it at any byte within `before` of `n`'s address; an access outside the
    /// region is outside every block.
    Region(u16, u64),
    /// At a fixed address: a PTX `.shared` variable, which the reader places in the CTA's
    /// shared window (docs/ambiguities.md 175).
    Fixed(u64),
    /// At the opaque address value `ValueId`: memory the function allocated itself (an IR
    /// `alloca`, a PTX `.local` variable; docs/ambiguities.md 179).
    Local(ValueId),
    /// At the opaque address value `ValueId`: a module variable the function may write (an
    /// IR `global` that is not `constant`, a PTX `.global` variable; docs/ambiguities.md
    /// 184), which outlives the function.
    Global(ValueId),
}

/// What an address is computed from: a pointer input or a block at an opaque address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Root {
    Input(u16),
    /// The local block or module variable with this index, at this address value.
    Local(usize, ValueId),
}

/// One block: what one pointer input points to, or a variable at a fixed address.
#[derive(Clone, Debug)]
pub struct Block {
    /// Where it starts.
    pub base: Base,
    /// What its results are named after (`%p`, `%p-16` for a region starting 16 bytes below
    /// `%p`); empty for a block that is no result.
    pub name: String,
    /// Its bytes, lowest first: (8-bit value, 1-bit poison).
    pub bytes: Vec<(ValueId, ValueId)>,
    /// A constant: a store to it writes nothing and is not `ok`.
    pub read_only: bool,
}

/// Where an access lands.
#[derive(Clone, Copy, Debug)]
struct Access {
    block: usize,
    /// Address minus the block's base (64 bits).
    offset: ValueId,
    /// Whether the access lies inside the block and is aligned (one bit).
    ok: ValueId,
}

/// A load's result.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The bytes read, little-endian, as one value (`8 * bytes` bits).
    pub value: ValueId,
    /// Each byte's poison flag, lowest first.
    pub poison: Vec<ValueId>,
    /// Whether the access was inside its block and aligned (one bit).
    pub ok: ValueId,
    /// Whether the block is one the function itself holds (`Base::Local`), whose faults no
    /// `in_bounds` result reports where the function has no other memory.
    pub local: bool,
}

/// The memory of one function read.
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// The inputs that may be pointers (a reader's pointer parameters).
    candidates: Vec<u16>,
    /// The pointer inputs whose blocks are one region ([`Base::Region`]).
    region: Vec<u16>,
    /// The blocks, in the order the reader declared them.
    pub blocks: Vec<Block>,
    /// How far into a pointer input's block an access at a known offset reached (its last
    /// byte's offset plus one): what [`read_with_blocks`] grows the blocks to.
    reach: std::cell::Cell<u64>,
}

impl Memory {
    /// A memory in which `candidates` (input numbers) may hold pointers; no block yet.
    pub fn new(candidates: Vec<u16>) -> Memory {
        Memory {
            candidates,
            region: Vec::new(),
            blocks: Vec::new(),
            reach: std::cell::Cell::new(0),
        }
    }

    /// The pointer inputs whose blocks are one region ([`Base::Region`]), ascending.
    pub fn region(&self) -> &[u16] {
        &self.region
    }

    /// How far into a pointer input's block an access at a known offset reached (the end of
    /// the farthest such access), 0 where none did.
    pub fn reach(&self) -> u64 {
        self.reach.get()
    }

    /// Declares the blocks of the pointer inputs `pointers` (ascending), each named as `name`
    /// gives, laid out as `layout` says: the members of [`Layout::aliasing`] among them, where
    /// there are two or more, one region, the others a block each of [`Layout::block_bytes`].
    /// Their initial bytes are inputs numbered from `first`, none of them poison; returns those
    /// inputs' slots, in order.
    pub fn declare_blocks(
        &mut self,
        b: &mut Builder,
        pointers: &[u16],
        name: impl Fn(u16) -> String,
        first: usize,
        layout: &Layout,
    ) -> Vec<Slot> {
        let shared: Vec<u16> = pointers
            .iter()
            .copied()
            .filter(|p| layout.aliasing.contains(p))
            .collect();
        self.region = if shared.len() > 1 { shared } else { Vec::new() };
        let bytes = layout.block_bytes;
        let mut slots = Vec::new();
        if let Some(&lowest) = self.region.first() {
            // Room for each member on either side of the lowest: any overlap of their blocks,
            // and blocks side by side, happen at some input.
            let before = u64::from(bytes) * (self.region.len() as u64 - 1);
            let size = bytes * (2 * self.region.len() as u32 - 1);
            let base = Base::Region(lowest, before);
            let shown = format!("{}-{before}", name(lowest));
            slots.extend(self.add_input_block(b, base, shown, size, first));
        }
        let region = self.region.clone();
        for &p in pointers.iter().filter(|p| !region.contains(p)) {
            let at = first + slots.len();
            slots.extend(self.add_input_block(b, Base::Input(p), name(p), bytes, at));
        }
        slots
    }

    /// Declares a lasting block at `base` named `name`, `bytes` bytes whose initial values are
    /// inputs numbered from `first` ([`block_inputs`]), none of them poison; returns those
    /// inputs' slots.
    fn add_input_block(
        &mut self,
        b: &mut Builder,
        base: Base,
        name: String,
        bytes: u32,
        first: usize,
    ) -> Vec<Slot> {
        let no = b.konst(0, 1);
        let mut slots = Vec::new();
        let mut contents = Vec::new();
        for (slot, word) in block_inputs(b, first, &name, bytes) {
            for k in 0..slot.width / 8 {
                contents.push((b.extract(word, k * 8, 8), no));
            }
            slots.push(slot);
        }
        self.blocks.push(Block {
            base,
            name,
            bytes: contents,
            read_only: false,
        });
        slots
    }

    /// Declares the block of module variable `name` (shown as written), `bytes` bytes at the
    /// opaque 64-bit address `base`: its initial bytes inputs numbered from `first`, none of
    /// them poison, its final bytes results. Returns those inputs' slots.
    pub fn add_global(
        &mut self,
        b: &mut Builder,
        name: &str,
        base: ValueId,
        bytes: u32,
        first: usize,
    ) -> Vec<Slot> {
        self.add_input_block(b, Base::Global(base), name.to_string(), bytes, first)
    }

    /// Declares a block at the fixed `address`, its initial bytes `bytes` (value, poison).
    pub fn add_fixed_block(&mut self, address: u64, bytes: Vec<(ValueId, ValueId)>) {
        self.blocks.push(Block {
            base: Base::Fixed(address),
            name: format!("{address:#x}"),
            bytes,
            read_only: false,
        });
    }

    /// Declares a block the function allocated, at the opaque 64-bit address `base` (a value
    /// nothing else is computed from), its initial bytes `bytes` (value, poison). Its final
    /// contents are no result of the function.
    pub fn add_local_block(&mut self, base: ValueId, bytes: Vec<(ValueId, ValueId)>) {
        self.blocks.push(Block {
            base: Base::Local(base),
            name: String::new(),
            bytes,
            read_only: false,
        });
    }

    /// Declares a constant the function reads (an IR `constant` global, a PTX module
    /// variable with an initializer) as a local block at the opaque address `base`, holding
    /// `bytes`: the same on both sides, so no result, and read-only.
    pub fn add_constant_block(&mut self, b: &mut Builder, base: ValueId, bytes: &[u8]) {
        let no = b.konst(0, 1);
        let bytes = bytes
            .iter()
            .map(|&v| (b.konst(u64::from(v), 8), no))
            .collect();
        self.blocks.push(Block {
            base: Base::Local(base),
            name: String::new(),
            bytes,
            read_only: true,
        });
    }

    /// The blocks that outlive the function, whose final contents are its results.
    pub fn lasting_blocks(&self) -> impl Iterator<Item = &Block> {
        self.blocks
            .iter()
            .filter(|k| !matches!(k.base, Base::Local(_)))
    }

    /// The fixed block `addr` (derived from no pointer input) is in: where the address is
    /// known, the last block starting at or below it (the first if none does), so that an
    /// address past a variable is an access outside it, a fault on the paths that reach it;
    /// where not, the only fixed block.
    fn fixed_block(&self, b: &Builder, addr: ValueId) -> Option<(usize, u64)> {
        let fixed: Vec<(usize, u64)> = self
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(k, block)| match block.base {
                Base::Fixed(a) => Some((k, a)),
                Base::Input(_) | Base::Region(..) | Base::Local(_) | Base::Global(_) => None,
            })
            .collect();
        match (b.known[addr as usize], fixed.as_slice()) {
            (_, [only]) => Some(*only),
            (Some(x), _) => fixed
                .iter()
                .filter(|(_, a)| *a <= x)
                .max_by_key(|(_, a)| *a)
                .or(fixed.first())
                .copied(),
            (None, _) => None,
        }
    }

    /// The blocks at opaque addresses (local blocks and module variables), by the value of
    /// their address.
    fn locals(&self) -> std::collections::HashMap<ValueId, usize> {
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(k, block)| match block.base {
                Base::Local(v) | Base::Global(v) => Some((v, k)),
                _ => None,
            })
            .collect()
    }

    /// The pointer inputs and local blocks `v` is computed from.
    fn roots(&self, b: &Builder, v: ValueId) -> Vec<Root> {
        let locals = self.locals();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![v];
        let mut found = Vec::new();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let root = match (b.op(x), locals.get(&x)) {
                (_, Some(&k)) => Root::Local(k, x),
                (&Op::Input(n), _) if self.candidates.contains(&n) => Root::Input(n),
                (op, _) => {
                    stack.extend(op.args());
                    continue;
                }
            };
            if !found.contains(&root) {
                found.push(root);
            }
        }
        found.sort_unstable();
        found
    }

    /// The roots `v` adds unscaled: through sums (and `or`s) and the left side of
    /// differences.
    fn direct(&self, b: &Builder, v: ValueId) -> Vec<Root> {
        if let Some(&k) = self.locals().get(&v) {
            return vec![Root::Local(k, v)];
        }
        match *b.op(v) {
            Op::Input(n) if self.candidates.contains(&n) => vec![Root::Input(n)],
            // An `or` into an aligned block's address is how llc adds a small offset to it
            // (`or.b64 %rd5, %rd4, %rd3` into a depot).
            Op::BvAdd(64, x, y) | Op::Or(64, x, y) => {
                let mut d = self.direct(b, x);
                d.extend(self.direct(b, y));
                d
            }
            Op::BvSub(64, x, _) => self.direct(b, x),
            _ => Vec::new(),
        }
    }

    /// `v - base` where `v` is `base` plus and minus other values: those values, so that a
    /// constant offset stays a constant (the builder folds it) and the select chains fold.
    fn offset(&self, b: &mut Builder, v: ValueId, base: ValueId) -> ValueId {
        if v == base {
            return b.konst(0, 64);
        }
        let has = |b: &Builder, x: ValueId| {
            let mut stack = vec![x];
            let mut seen = std::collections::HashSet::new();
            while let Some(y) = stack.pop() {
                if y == base {
                    return true;
                }
                if seen.insert(y) {
                    stack.extend(b.op(y).args());
                }
            }
            false
        };
        match *b.op(v) {
            Op::BvAdd(64, x, y) if has(b, x) && !has(b, y) => {
                let o = self.offset(b, x, base);
                b.emit(Op::BvAdd(64, o, y), 64)
            }
            Op::BvAdd(64, y, x) if has(b, x) && !has(b, y) => {
                let o = self.offset(b, x, base);
                b.emit(Op::BvAdd(64, o, y), 64)
            }
            Op::BvSub(64, x, y) if has(b, x) && !has(b, y) => {
                let o = self.offset(b, x, base);
                b.emit(Op::BvSub(64, o, y), 64)
            }
            _ => b.emit(Op::BvSub(64, v, base), 64),
        }
    }

    /// Finds the block `addr` points into and checks `bytes` bytes there at alignment `align`.
    fn access(
        &self,
        b: &mut Builder,
        addr: ValueId,
        bytes: u32,
        align: u32,
    ) -> Result<Access, Refusal> {
        let roots = self.roots(b, addr);
        let root = match roots.as_slice() {
            [] => {
                let (block, address) = self.fixed_block(b, addr).ok_or(Refusal::NoPointer)?;
                let base_value = b.konst(address, 64);
                let offset = b.emit(Op::BvSub(64, addr, base_value), 64);
                return Ok(self.checked(b, block, offset, bytes, align));
            }
            [one] => *one,
            // A PTX function's 64-bit index is a candidate too (its parameters are untyped):
            // the pointer is the one added as it is, not scaled (`p + (i << 2)`).
            _ => match self.direct(b, addr).as_slice() {
                [one] => *one,
                _ => {
                    let inputs = roots
                        .iter()
                        .filter_map(|r| match r {
                            Root::Input(n) => Some(*n),
                            Root::Local(..) => None,
                        })
                        .collect();
                    return Err(Refusal::Several(inputs));
                }
            },
        };
        let (block, base_value, region) = match root {
            Root::Local(block, base) => (block, base, None),
            Root::Input(base) => {
                let found =
                    self.blocks
                        .iter()
                        .enumerate()
                        .find_map(|(k, block)| match block.base {
                            Base::Input(n) if n == base => Some((k, None)),
                            Base::Region(lowest, before) if self.region.contains(&base) => {
                                Some((k, Some((lowest, before))))
                            }
                            _ => None,
                        });
                let Some((block, region)) = found else {
                    return Err(Refusal::NewBlock(base));
                };
                (block, b.emit(Op::Input(base), 64), region)
            }
        };
        let offset = self.offset(b, addr, base_value);
        if let (Root::Input(_), Some(at)) = (root, b.known[offset as usize]) {
            self.reach
                .set(self.reach.get().max(at.saturating_add(u64::from(bytes))));
        }
        // In a region, the offset from the pointer plus where the pointer is in it: `before`
        // bytes past the lowest member's address, plus this pointer's distance from it.
        let offset = match region {
            None => offset,
            Some((lowest, before)) => {
                let mut shift = b.konst(before, 64);
                if base_value != b.emit(Op::Input(lowest), 64) {
                    let lowest = b.emit(Op::Input(lowest), 64);
                    let distance = b.emit(Op::BvSub(64, base_value, lowest), 64);
                    shift = b.emit(Op::BvAdd(64, distance, shift), 64);
                }
                b.emit(Op::BvAdd(64, offset, shift), 64)
            }
        };
        Ok(self.checked(b, block, offset, bytes, align))
    }

    /// The access of `bytes` bytes at `offset` in `block`, with whether it lies inside the
    /// block and is aligned to `align`.
    fn checked(
        &self,
        b: &mut Builder,
        block: usize,
        offset: ValueId,
        bytes: u32,
        align: u32,
    ) -> Access {
        let size = self.blocks[block].bytes.len() as u32;
        // Inside: offset + bytes <= size, as `offset < size - bytes + 1` (unsigned, so a
        // negative offset is outside).
        let inside = if bytes <= size {
            let limit = b.konst(u64::from(size - bytes + 1), 64);
            b.emit(Op::BvUlt(offset, limit), 1)
        } else {
            b.konst(0, 1)
        };
        let align = align.clamp(1, BLOCK_ALIGN);
        let ok = if align > 1 {
            let low = b.extract(offset, 0, align.trailing_zeros());
            let zero = b.konst(0, align.trailing_zeros());
            let aligned = b.emit(Op::BvEq(low, zero), 1);
            b.emit(Op::And(1, inside, aligned), 1)
        } else {
            inside
        };
        Access { block, offset, ok }
    }

    /// The block `addr` points into and the offset there (64 bits), for `bytes` bytes at
    /// alignment `align`: what a CTA's race check compares between threads.
    pub fn place(
        &self,
        b: &mut Builder,
        addr: ValueId,
        bytes: u32,
        align: u32,
    ) -> Result<(usize, ValueId), Refusal> {
        let a = self.access(b, addr, bytes, align)?;
        Ok((a.block, a.offset))
    }

    /// Loads `bytes` (1 to 8) bytes at `addr`, which the IR or the instruction says is aligned
    /// to `align` bytes. Bytes outside the block read as byte 0 of it: such an access is not
    /// `ok`, which each reader makes undefined behaviour or a fault.
    pub fn load(
        &self,
        b: &mut Builder,
        addr: ValueId,
        bytes: u32,
        align: u32,
    ) -> Result<Loaded, Refusal> {
        let a = self.access(b, addr, bytes, align)?;
        let block = &self.blocks[a.block].bytes;
        let mut value: Option<ValueId> = None;
        let mut poison = Vec::new();
        for j in 0..bytes {
            let (mut v, mut p) = block[0];
            for (i, &(bv, bp)) in block.iter().enumerate().skip(1) {
                let Some(at) = (i as u64).checked_sub(u64::from(j)) else {
                    continue;
                };
                let here = b.konst(at, 64);
                let hit = b.emit(Op::BvEq(a.offset, here), 1);
                v = b.emit(Op::Select(hit, bv, v), 8);
                p = b.emit(Op::Select(hit, bp, p), 1);
            }
            poison.push(p);
            value = Some(match value {
                None => v,
                Some(lo) => b.concat(v, lo),
            });
        }
        Ok(Loaded {
            value: value.expect("a load reads a byte"),
            poison,
            ok: a.ok,
            local: matches!(self.blocks[a.block].base, Base::Local(_)),
        })
    }

    /// Stores the `bytes` low bytes of `value` at `addr` (aligned to `align`), byte `k` poison
    /// where `poison[k]`, where `cond` holds (`None`: always). Returns where the access was
    /// inside its block and aligned; bytes outside it are not written.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        b: &mut Builder,
        addr: ValueId,
        value: ValueId,
        poison: &[ValueId],
        align: u32,
        cond: Option<ValueId>,
    ) -> Result<ValueId, Refusal> {
        let bytes = poison.len() as u32;
        let a = self.access(b, addr, bytes, align)?;
        if self.blocks[a.block].read_only {
            return Ok(b.konst(0, 1));
        }
        let width = b.widths[value as usize];
        let pieces: Vec<ValueId> = (0..bytes)
            .map(|j| {
                if width < 8 * (j + 1) {
                    let z = b.konst(0, 8 * (j + 1) - width);
                    let v = b.extract(value, 8 * j, width - 8 * j);
                    b.concat(z, v)
                } else {
                    b.extract(value, 8 * j, 8)
                }
            })
            .collect();
        let block = &mut self.blocks[a.block].bytes;
        // At a known offset only the bytes there can be hit: the rest are skipped rather than
        // visited to fold each select away (a CTA stores into one block from every thread).
        let reach = match b.known[a.offset as usize] {
            Some(at) => {
                let at = usize::try_from(at).unwrap_or(usize::MAX).min(block.len());
                at..(at.saturating_add(bytes as usize)).min(block.len())
            }
            None => 0..block.len(),
        };
        for (i, byte) in block
            .iter_mut()
            .enumerate()
            .take(reach.end)
            .skip(reach.start)
        {
            for j in 0..bytes as usize {
                let Some(at) = i.checked_sub(j) else {
                    continue;
                };
                let here = b.konst(at as u64, 64);
                let mut hit = b.emit(Op::BvEq(a.offset, here), 1);
                if let Some(c) = cond {
                    hit = b.emit(Op::And(1, c, hit), 1);
                }
                byte.0 = b.emit(Op::Select(hit, pieces[j], byte.0), 8);
                byte.1 = b.emit(Op::Select(hit, poison[j], byte.1), 1);
            }
        }
        Ok(a.ok)
    }
}

/// How many bytes a pointer parameter's block may grow to ([`read_with_blocks`]).
pub const MAX_BLOCK_BYTES: u32 = 256;

/// What one read of a function gives [`read_with_blocks`]: its result, the parameter it met
/// without a block (if any), and [`Memory::reach`].
pub type BlockRead<T> = (T, Option<u16>, u64);

/// Reads a function with a block for each pointer parameter an access reaches: `read` runs
/// with the blocks known so far (parameter indices, ascending) and their size in bytes, and
/// returns a [`BlockRead`]; the read starts again with a parameter it met without a block
/// added, at most once per parameter, so both readers give their blocks the same input order.
/// Where `grow` is set and an access at a known offset reached past the blocks' `bytes`, the
/// read starts again with blocks that hold it (whole 8-byte words, at most
/// [`MAX_BLOCK_BYTES`]): otherwise the access would be out of bounds at every input, and a
/// refinement proof of a source undefined everywhere says nothing. Returns the result and the
/// block size it was read with.
pub fn read_with_blocks<T>(
    bytes: u32,
    grow: bool,
    mut read: impl FnMut(&[u16], u32) -> BlockRead<T>,
) -> (T, u32) {
    let mut blocks: Vec<u16> = Vec::new();
    let mut bytes = bytes;
    loop {
        match read(&blocks, bytes) {
            (_, Some(n), _) if !blocks.contains(&n) => {
                blocks.push(n);
                blocks.sort_unstable();
            }
            (_, None, reach)
                if grow && reach > u64::from(bytes) && reach <= u64::from(MAX_BLOCK_BYTES) =>
            {
                bytes = u32::try_from(reach.next_multiple_of(8)).unwrap_or(MAX_BLOCK_BYTES);
            }
            (result, ..) => return (result, bytes),
        }
    }
}

/// The inputs holding a block's initial `bytes` bytes, 8 each (the last fewer where `bytes`
/// is no multiple of 8), numbered from `first` on: each with its slot (`[p+0..8]` for
/// pointer `p`) and its value.
pub fn block_inputs(
    b: &mut Builder,
    first: usize,
    pointer: &str,
    bytes: u32,
) -> Vec<(Slot, ValueId)> {
    (0..bytes.div_ceil(8))
        .map(|k| {
            let (lo, hi) = (8 * k, (8 * k + 8).min(bytes));
            let width = 8 * (hi - lo);
            let slot = Slot {
                name: format!("[{pointer}+{lo}..{hi}]"),
                width,
                kind: PartKind::Bits,
            };
            (slot, b.emit(Op::Input((first + k as usize) as u16), width))
        })
        .collect()
}

impl Memory {
    /// The final contents of every lasting block as results, 8 bytes each (named as
    /// [`block_inputs`] names the initial ones, after [`Block::name`]), then
    /// [`IN_BOUNDS`]. Where `ub` holds the function may do anything (the source's undefined
    /// behaviour); a poison byte allows any byte; `fault` is where some access left its block
    /// or was misaligned (the target's; the source's is in its `ub`).
    pub fn results(
        &self,
        b: &mut Builder,
        ub: Option<ValueId>,
        fault: Option<ValueId>,
    ) -> (Vec<Dest>, Vec<Slot>) {
        let (mut dests, mut slots) = (Vec::new(), Vec::new());
        if self.lasting_blocks().next().is_none() {
            return (dests, slots);
        }
        let undefined = |b: &Builder, o: Outcome, w: u32| match ub {
            Some(u) if b.known[u as usize] != Some(0) => {
                Outcome::Select(u, Box::new(Outcome::Ub(w)), Box::new(o))
            }
            _ => o,
        };
        for block in self.lasting_blocks() {
            for (k, chunk) in block.bytes.chunks(8).enumerate() {
                let lo = 8 * k as u32;
                let name = format!("[{}+{lo}..{}]", block.name, lo + chunk.len() as u32);
                let width = 8 * chunk.len() as u32;
                let exact = ub.is_none_or(|u| b.known[u as usize] == Some(0))
                    && chunk.iter().all(|(_, p)| b.known[*p as usize] == Some(0));
                let dest = if exact {
                    let mut v = chunk[0].0;
                    for (byte, _) in &chunk[1..] {
                        v = b.concat(*byte, v);
                    }
                    Dest::whole(name.clone(), width, PartKind::Bits, Outcome::Exact(v))
                } else {
                    // Byte by byte: a poison byte allows any byte (Alive2's refinement of
                    // memory is byte-wise), independently of the others.
                    let parts = chunk
                        .iter()
                        .enumerate()
                        .map(|(j, &(v, p))| {
                            let o = if b.known[p as usize] == Some(0) {
                                Outcome::Exact(v)
                            } else {
                                Outcome::Select(
                                    p,
                                    Box::new(Outcome::Poison(8)),
                                    Box::new(Outcome::Exact(v)),
                                )
                            };
                            Part {
                                lo: 8 * j as u32,
                                width: 8,
                                kind: PartKind::Bits,
                                outcome: undefined(b, o, 8),
                            }
                        })
                        .collect();
                    Dest {
                        name: name.clone(),
                        width,
                        parts,
                        by_range: false,
                    }
                };
                dests.push(dest);
                slots.push(Slot {
                    name,
                    width,
                    kind: PartKind::Bits,
                });
            }
        }
        let inside = match fault {
            Some(f) => b.emit(Op::Not(1, f), 1),
            None => b.konst(1, 1),
        };
        let o = undefined(b, Outcome::Exact(inside), 1);
        dests.push(Dest::whole(IN_BOUNDS.into(), 1, PartKind::Pred, o));
        slots.push(Slot {
            name: IN_BOUNDS.into(),
            width: 1,
            kind: PartKind::Pred,
        });
        (dests, slots)
    }
}
