//! A real NVIDIA GPU as a semfuzz backend (`cuda`, `cuda:N`), and standalone repros of
//! findings.
//!
//! [`kernel`] writes, for a PTX variant, a PTX module whose one entry runs the instruction on
//! `n` cases read from global arrays; it needs no CUDA and the tests assemble every variant's
//! kernel with `ptxas`. The backend ([`open`]) JIT-loads that text through the CUDA driver API
//! (libcuda, loaded at run time: the crate builds and its tests pass on machines without a
//! GPU), copies a batch in, launches, and copies the destinations' bits out. [`repro`] turns
//! one finding into a PTX file and a CUDA driver-API host program that rerun just that case.

#![warn(missing_docs)]

pub mod call;
mod device;
pub mod kernel;
pub mod repro;

use semfuzz_backend::{Backend, BackendError, Identity};

/// Whether `cuda:N` can run here, and who it is: `Err` says why not (`no libcuda.so.1 (no
/// NVIDIA driver on this machine)`, `no CUDA device 2: ...`). `arg` is `N`; none means 0.
pub fn probe(arg: Option<&str>) -> Result<Identity, String> {
    device::Cuda::open(arg).map(|c| c.identity().clone())
}

/// Runs the PTX function `func` of `module` on `cuda:N` once per case: `rows` holds each
/// case's arguments (one word each, in parameter order); returns the device's identity and each
/// case's results. `Err` says why it cannot run (no GPU, a function the harness cannot call,
/// the JIT's complaint).
pub fn call_function(
    arg: Option<&str>,
    module: &str,
    func: &str,
    rows: &[Vec<u64>],
) -> Result<(Identity, Vec<Vec<u64>>), String> {
    let (ptx, ni, no) = call::harness(module, func)?;
    if let Some(bad) = rows.iter().find(|r| r.len() != ni) {
        return Err(format!(
            "`{func}` takes {ni} arguments; a case has {}",
            bad.len()
        ));
    }
    let gpu = device::Cuda::open(arg)?;
    let flat: Vec<u64> = rows.iter().flatten().copied().collect();
    let out = gpu.call(&ptx, rows.len(), ni, no, &flat)?;
    let results = if no == 0 {
        vec![Vec::new(); rows.len()]
    } else {
        out.chunks_exact(no).map(<[u64]>::to_vec).collect()
    };
    Ok((gpu.identity().clone(), results))
}

/// Opens `cuda:N` (`arg` is `N`; none means 0).
pub fn open(arg: Option<&str>) -> Result<Box<dyn Backend>, BackendError> {
    device::Cuda::open(arg)
        .map(|c| Box::new(c) as Box<dyn Backend>)
        .map_err(|reason| BackendError::Unavailable {
            backend: arg.map_or_else(|| "cuda".to_string(), |a| format!("cuda:{a}")),
            reason,
        })
}
