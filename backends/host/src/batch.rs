//! What the batch kernels compute and where their operands are: shared by
//! the x86-64 kernels and the backend that plans them.

/// The arithmetic of a batch kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    /// `a * b + c`, one rounding.
    Fma,
    Sqrt,
    /// `1.0 / a`.
    Rcp,
    /// `minss`/`minsd a, b`.
    Min,
    /// `maxss`/`maxsd a, b`.
    Max,
    /// `min(min(a, b), c)`.
    Min3,
    /// `max(max(a, b), c)`.
    Max3,
}

impl Arith {
    /// Whether a kernel computes `self` at `precision`.
    pub(crate) fn exists(self, precision: Precision) -> bool {
        precision == Precision::F32 || !matches!(self, Arith::Min3 | Arith::Max3)
    }

    /// How many operands the kernel reads.
    pub(crate) fn arity(self) -> usize {
        match self {
            Arith::Sqrt | Arith::Rcp => 1,
            Arith::Add | Arith::Sub | Arith::Mul | Arith::Div | Arith::Min | Arith::Max => 2,
            Arith::Fma | Arith::Min3 | Arith::Max3 => 3,
        }
    }
}

/// The format a kernel computes in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Precision {
    /// Binary32, on both lanes of a value (packed `...ps` instructions).
    F32,
    /// Binary64 (scalar `...sd` instructions).
    F64,
}

/// A batch's operands: row `i`'s operand `k` is `values[i * stride + cols[k]]`.
#[derive(Copy, Clone)]
pub(crate) struct Columns<'a> {
    /// The rows, one after the other.
    pub(crate) values: &'a [u64],
    /// Values per row.
    pub(crate) stride: usize,
    /// Where each operand sits in a row (unused operands: any column).
    pub(crate) cols: [usize; 3],
}

impl Columns<'_> {
    /// Pointers to row 0's three operands, after checking that all `rows`
    /// rows lie inside `values`.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn operand_ptrs(&self, rows: usize) -> [*const u64; 3] {
        self.cols.map(|col| {
            assert!(
                rows == 0 || (rows - 1) * self.stride + col < self.values.len(),
                "batch operand column {col} runs past the inputs"
            );
            self.values.as_ptr().wrapping_add(col)
        })
    }
}
