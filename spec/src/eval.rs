//! The evaluator: a lowered variant run over inputs, returning accept sets.
//!
//! An [`Evaluator`] owns one slot per IR value and reuses it for every evaluation, so batches
//! run without allocating.

use crate::ir::{mask, Op, Outcome, Part, Program};
use crate::outcome::{Accept, MAX_ONE_OF};

/// Runs one program; reusable across inputs.
pub struct Evaluator<'p> {
    program: &'p Program,
    slots: Vec<u64>,
    parts: Vec<&'p Part>,
}

impl<'p> Evaluator<'p> {
    /// Prepares the slot array for `program`.
    pub fn new(program: &'p Program) -> Evaluator<'p> {
        let parts = program.dests.iter().flat_map(|d| d.parts.iter()).collect();
        Evaluator {
            program,
            slots: vec![0; program.ops.len()],
            parts,
        }
    }

    /// Source operands each evaluation reads.
    pub fn n_inputs(&self) -> usize {
        self.program.input_widths.len()
    }

    /// Destination parts each evaluation writes (lanes of every destination, in order).
    pub fn n_parts(&self) -> usize {
        self.parts.len()
    }

    /// Evaluates one input tuple; `out` receives one accept set per destination part.
    ///
    /// Operand bits above each operand's width are ignored.
    #[inline]
    pub fn eval(&mut self, inputs: &[u64], out: &mut [Accept]) {
        assert_eq!(inputs.len(), self.n_inputs(), "wrong number of inputs");
        assert_eq!(out.len(), self.parts.len(), "wrong number of outputs");
        for (i, op) in self.program.ops.iter().enumerate() {
            let v = match op {
                Op::Input(k) => inputs[*k as usize] & mask(self.program.input_widths[*k as usize]),
                op => op.exec(&self.slots),
            };
            self.slots[i] = v;
        }
        for (o, part) in out.iter_mut().zip(&self.parts) {
            *o = resolve(&part.outcome, &self.slots);
        }
    }

    /// Evaluates `inputs.len() / n_inputs()` tuples laid out row by row; `out` holds
    /// `n_parts()` accept sets per row.
    pub fn eval_batch(&mut self, inputs: &[u64], out: &mut [Accept]) {
        let (ni, np) = (self.n_inputs().max(1), self.n_parts());
        assert_eq!(
            inputs.len() / ni * np,
            out.len(),
            "output buffer does not match the batch"
        );
        for (row, res) in inputs.chunks_exact(ni).zip(out.chunks_exact_mut(np)) {
            self.eval(row, res);
        }
    }
}

fn resolve(o: &Outcome, slots: &[u64]) -> Accept {
    match o {
        Outcome::Exact(v) => Accept::Exact(slots[*v as usize]),
        Outcome::AnyNan(f) => Accept::AnyNan(*f),
        Outcome::OneOf(vs) => {
            let mut values = [0; MAX_ONE_OF];
            let mut len = 0;
            for v in vs.iter().map(|v| slots[*v as usize]) {
                if !values[..len].contains(&v) {
                    values[len] = v;
                    len += 1;
                }
            }
            if len == 1 {
                Accept::Exact(values[0])
            } else {
                Accept::OneOf {
                    len: len as u8,
                    values,
                }
            }
        }
        Outcome::Select(c, a, b) => resolve(if slots[*c as usize] != 0 { a } else { b }, slots),
    }
}
