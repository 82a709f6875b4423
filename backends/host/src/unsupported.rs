//! Hosts other than x86-64: no [`Cpu`] can exist, so every public function
//! returns `None` before reaching an operation.

use crate::batch::{Arith, Columns, Precision};
use crate::Op2;

/// Uninhabited: this host has none of the instructions.
#[derive(Copy, Clone)]
pub(crate) enum Cpu {}

impl Cpu {
    /// Always `None`.
    pub(crate) fn detect() -> Option<Cpu> {
        None
    }

    pub(crate) fn f32_op2(self, _: Op2, _: u32, _: u32, _: u32) -> u32 {
        match self {}
    }

    pub(crate) fn f64_op2(self, _: Op2, _: u64, _: u64, _: u32) -> u64 {
        match self {}
    }

    pub(crate) fn f32_fma(self, _: u32, _: u32, _: u32, _: u32) -> u32 {
        match self {}
    }

    pub(crate) fn f64_fma(self, _: u64, _: u64, _: u64, _: u32) -> u64 {
        match self {}
    }

    pub(crate) fn f32_sqrt(self, _: u32, _: u32) -> u32 {
        match self {}
    }

    pub(crate) fn f64_sqrt(self, _: u64, _: u32) -> u64 {
        match self {}
    }

    pub(crate) fn f32_to_f16(self, _: u32, _: u32) -> u16 {
        match self {}
    }

    pub(crate) fn f16_to_f32(self, _: u16) -> u32 {
        match self {}
    }

    pub(crate) fn f64_to_f32(self, _: u64, _: u32) -> u32 {
        match self {}
    }

    pub(crate) fn arith(
        self,
        _: Precision,
        _: Arith,
        _: u32,
        _: Columns,
        _: &mut [u64],
    ) -> Option<()> {
        match self {}
    }

    pub(crate) fn sat(self, _: u32, _: &mut [u64]) {
        match self {}
    }

    pub(crate) fn relu(self, _: u32, _: &mut [u64]) {
        match self {}
    }

    pub(crate) fn widen_f16(self, _: u32, _: &mut [u64]) {
        match self {}
    }

    pub(crate) fn narrow_f16(self, _: u32, _: &mut [u64]) {
        match self {}
    }
}

/// Uninhabited, like [`Cpu`].
#[derive(Copy, Clone)]
pub(crate) enum Bf16Cpu {}

impl Bf16Cpu {
    /// Unreachable: no [`Cpu`] exists.
    pub(crate) fn detect(cpu: Cpu) -> Option<Bf16Cpu> {
        match cpu {}
    }

    pub(crate) fn narrow_bf16(self, _: u32, _: &mut [u64]) {
        match self {}
    }
}
