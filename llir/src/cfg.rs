//! A function's basic blocks, and the acyclic graph of block instances that
//! [`crate::lower`] walks: each loop unrolled so that its header runs at most the bound times
//! per entry into the loop (its back edge taken one time fewer).
//!
//! An instance is a block and, for every loop the block is in, how many times that loop's
//! back edge has been taken since the loop was entered. Taking a back edge counts one more;
//! leaving a loop forgets its count. A back edge that would reach the bound is *cut*: the
//! executions that take it are outside what the reader models, and the function says where
//! they are (`IrFunction::program`'s `bounded` destination). In a reducible graph every cycle
//! takes the back edge of the loop that contains it, whose count only grows along the cycle,
//! so the instances form an acyclic graph; an irreducible graph is refused.

use crate::syntax::{Function, Instr, Operand, Shape, Statement, Value};
use semfuzz_spec::diag::{Diagnostic, Span};
use std::collections::{HashMap, VecDeque};

/// The most block instances a function may unroll to before the reader gives up.
const MAX_INSTANCES: usize = 50_000;

/// One basic block.
pub(crate) struct Block<'f> {
    /// Its label (`""` for an unnamed entry block, which nothing may branch to).
    pub name: String,
    /// Its `phi`s, which lead it.
    pub phis: Vec<&'f Instr>,
    /// The instructions between the `phi`s and the terminator.
    pub instrs: Vec<&'f Instr>,
    /// `ret`, `br`, `switch` or `unreachable`.
    pub term: &'f Instr,
}

/// A function's blocks and edges.
pub(crate) struct Cfg<'f> {
    /// The blocks, the entry first.
    pub blocks: Vec<Block<'f>>,
    index: HashMap<String, usize>,
    succs: Vec<Vec<usize>>,
}

/// The instance graph in topological order.
pub(crate) struct Instances {
    /// Each instance's block; the entry's instance first.
    pub blocks: Vec<usize>,
    /// Per instance, per successor block: the successor instance, or `None` where the edge is
    /// a back edge past the bound.
    pub edges: Vec<Vec<(usize, Option<usize>)>>,
    /// Whether the function has a loop.
    pub looped: bool,
}

fn at(span: &Span, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::at(span, msg)
}

impl<'f> Cfg<'f> {
    /// The blocks of `f`'s body: a label starts one, a terminator ends it.
    pub fn of(f: &'f Function) -> Result<Cfg<'f>, Diagnostic> {
        let mut blocks = Vec::new();
        let mut name = Some(String::new());
        let (mut phis, mut instrs) = (Vec::new(), Vec::new());
        for s in &f.body {
            match s {
                Statement::Label(l, span) => {
                    if name.is_some() && (!phis.is_empty() || !instrs.is_empty()) {
                        return Err(at(span, format!("block `{l}` starts before the previous block ends"))
                            .with_hint("LangRef: every basic block ends with a terminator (`br`, `switch`, `ret`, `unreachable`)"));
                    }
                    name = Some(l.clone());
                }
                Statement::Instr(i) => {
                    let Some(n) = &name else {
                        return Err(at(
                            &i.span,
                            "an instruction after a terminator, outside any block",
                        )
                        .with_hint("a new basic block starts with a label"));
                    };
                    match i.shape {
                        Shape::Phi if instrs.is_empty() => phis.push(&**i),
                        Shape::Phi => {
                            return Err(at(&i.span, "a `phi` after other instructions")
                                .with_hint("LangRef: phis lead their basic block"))
                        }
                        Shape::Ret | Shape::Branch => {
                            blocks.push(Block {
                                name: n.clone(),
                                phis: std::mem::take(&mut phis),
                                instrs: std::mem::take(&mut instrs),
                                term: i,
                            });
                            name = None;
                        }
                        _ => instrs.push(&**i),
                    }
                }
            }
        }
        if name.is_some() {
            return Err(at(
                &f.span,
                format!("`@{}`'s last block has no terminator", f.name),
            ));
        }
        let index: HashMap<String, usize> = blocks
            .iter()
            .enumerate()
            .map(|(k, b)| (b.name.clone(), k))
            .collect();
        let mut cfg = Cfg {
            blocks,
            index,
            succs: Vec::new(),
        };
        for b in &cfg.blocks {
            let mut out: Vec<usize> = Vec::new();
            for o in b.term.operands.iter().filter(|o| is_label(o)) {
                let s = cfg.target(o)?;
                if s == 0 {
                    return Err(at(&o.span, "a branch to the entry block")
                        .with_hint("LangRef: the entry block has no predecessors"));
                }
                if !out.contains(&s) {
                    out.push(s);
                }
            }
            cfg.succs.push(out);
        }
        Ok(cfg)
    }

    /// The block a `label %name` operand names.
    pub fn target(&self, o: &Operand) -> Result<usize, Diagnostic> {
        match &o.value {
            Value::Local(n) => self
                .index
                .get(n)
                .copied()
                .filter(|k| *k != 0 || !self.blocks[0].name.is_empty())
                .ok_or_else(|| at(&o.span, format!("no block is labelled `{n}`"))),
            v => Err(at(&o.span, format!("`{v}` is no block"))),
        }
    }

    /// The blocks `k` dominates, per block (iterative data flow; functions are small).
    fn dominators(&self) -> Vec<Vec<bool>> {
        let n = self.blocks.len();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in self.succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        // dom[b][d]: d dominates b.
        let mut dom = vec![vec![true; n]; n];
        dom[0] = (0..n).map(|d| d == 0).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                let mut new: Vec<bool> = vec![true; n];
                for &p in &preds[b] {
                    for d in 0..n {
                        new[d] &= dom[p][d];
                    }
                }
                new[b] = true;
                if new != dom[b] {
                    dom[b] = new;
                    changed = true;
                }
            }
        }
        dom
    }

    /// The block instances reachable from the entry, loops unrolled so that each header runs
    /// at most `bound` times per entry into its loop, in topological order.
    pub fn instances(&self, bound: u32) -> Result<Instances, Diagnostic> {
        let n = self.blocks.len();
        // Back edges: to a block on the depth-first stack.
        let mut back: Vec<(usize, usize)> = Vec::new();
        let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some((b, k)) = stack.pop() {
            if let Some(&s) = self.succs[b].get(k) {
                stack.push((b, k + 1));
                match state[s] {
                    0 => {
                        state[s] = 1;
                        stack.push((s, 0));
                    }
                    1 => back.push((b, s)),
                    _ => {}
                }
            } else {
                state[b] = 2;
            }
        }
        let dom = self.dominators();
        if let Some(&(t, h)) = back.iter().find(|(t, h)| !dom[*t][*h]) {
            return Err(at(
                &self.blocks[t].term.span,
                format!(
                    "unsupported irreducible control flow: `{}` branches back to `{}`, which does not dominate it",
                    self.blocks[t].name, self.blocks[h].name
                ),
            )
            .with_hint("semfuzz unrolls natural loops (one entry block each)"));
        }
        // Each loop header's natural loop: the blocks that reach a latch without it.
        let mut headers: Vec<usize> = back.iter().map(|(_, h)| *h).collect();
        headers.sort_unstable();
        headers.dedup();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in self.succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        let body: Vec<Vec<bool>> = headers
            .iter()
            .map(|&h| {
                let mut inside = vec![false; n];
                inside[h] = true;
                let mut work: Vec<usize> = back
                    .iter()
                    .filter(|(_, x)| *x == h)
                    .map(|(t, _)| *t)
                    .collect();
                while let Some(b) = work.pop() {
                    if !std::mem::replace(&mut inside[b], true) {
                        work.extend(&preds[b]);
                    }
                }
                inside
            })
            .collect();
        let mut ids: HashMap<(usize, Vec<u32>), usize> = HashMap::new();
        let mut keys: Vec<(usize, Vec<u32>)> = vec![(0, vec![0; headers.len()])];
        ids.insert(keys[0].clone(), 0);
        let mut edges: Vec<Vec<(usize, Option<usize>)>> = Vec::new();
        let mut indegree = vec![0usize];
        let mut k = 0;
        while k < keys.len() {
            let (b, counts) = keys[k].clone();
            let mut out = Vec::new();
            for &s in &self.succs[b] {
                let mut c = counts.clone();
                let mut cut = false;
                for (l, &h) in headers.iter().enumerate() {
                    if body[l][b] && !body[l][s] {
                        c[l] = 0;
                    }
                    if h == s && body[l][b] {
                        c[l] += 1;
                        cut = c[l] >= bound;
                    }
                }
                if cut {
                    out.push((s, None));
                    continue;
                }
                let key = (s, c);
                let id = match ids.get(&key) {
                    Some(id) => *id,
                    None => {
                        if keys.len() >= MAX_INSTANCES {
                            return Err(at(
                                &self.blocks[s].term.span,
                                format!("unsupported: unrolling the loops {bound} times gives more than {MAX_INSTANCES} blocks"),
                            )
                            .with_hint("a lower `--unroll` bound"));
                        }
                        keys.push(key.clone());
                        indegree.push(0);
                        ids.insert(key, keys.len() - 1);
                        keys.len() - 1
                    }
                };
                indegree[id] += 1;
                out.push((s, Some(id)));
            }
            edges.push(out);
            k += 1;
        }
        // Kahn's order; the entry has no predecessor, so it comes first.
        let mut order = Vec::with_capacity(keys.len());
        let mut ready: VecDeque<usize> = VecDeque::from([0]);
        while let Some(x) = ready.pop_front() {
            order.push(x);
            for (_, to) in &edges[x] {
                if let Some(to) = to {
                    indegree[*to] -= 1;
                    if indegree[*to] == 0 {
                        ready.push_back(*to);
                    }
                }
            }
        }
        debug_assert_eq!(order.len(), keys.len(), "the instance graph is acyclic");
        let mut position = vec![0; keys.len()];
        for (p, &x) in order.iter().enumerate() {
            position[x] = p;
        }
        Ok(Instances {
            blocks: order.iter().map(|&x| keys[x].0).collect(),
            edges: order
                .iter()
                .map(|&x| {
                    edges[x]
                        .iter()
                        .map(|(s, to)| (*s, to.map(|t| position[t])))
                        .collect()
                })
                .collect(),
            looped: !headers.is_empty(),
        })
    }
}

/// Whether a terminator's operand is a block (`label %x`).
fn is_label(o: &Operand) -> bool {
    matches!(&o.ty, Some(crate::syntax::Type::Other(t)) if t == "label")
}
