//! The backend proper: one GPU through the CUDA driver API (cudarc, libcuda loaded at run time).

use crate::kernel::{Kernel, Layout};
use cudarc::driver::sys;
use cudarc::driver::{result, CudaContext, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use semfuzz_backend::{Backend, BackendError, Identity, Support, Verdict};
use semfuzz_spec::ir::mask;
use semfuzz_spec::Variant;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::Arc;

/// Threads per block of every launch.
const BLOCK: u32 = 256;
/// At most this many blocks: the kernel's grid-stride loop covers the rest.
const MAX_BLOCKS: usize = 1 << 14;
/// Cases per batch: large enough that the copies and the launch dwarf the call overhead.
const BATCH: usize = 1 << 22;

/// Whether libcuda can be loaded at all; cudarc panics on first use when it cannot.
fn libcuda_present() -> bool {
    // SAFETY: only tries to open the library (dlopen); calls nothing in it.
    unsafe { sys::is_culib_present() }
}

/// A driver error in words.
fn driver(e: DriverError) -> String {
    e.to_string()
}

/// One variant's module on the device.
struct Loaded {
    module: sys::CUmodule,
    function: sys::CUfunction,
    layout: Layout,
}

/// A GPU as a backend.
pub struct Cuda {
    identity: Identity,
    // Dropped before the context (fields drop in order).
    kernels: RefCell<HashMap<String, Result<Loaded, String>>>,
    stream: Arc<CudaStream>,
    ctx: Arc<CudaContext>,
    sm: u32,
}

// SAFETY: the module and function handles belong to `ctx`, which is bound to the calling
// thread before every use; nothing else is shared.
unsafe impl Send for Cuda {}

/// The ordinal in `cuda:N`.
fn ordinal(arg: Option<&str>) -> Result<usize, String> {
    match arg {
        None => Ok(0),
        Some(a) => a.parse().map_err(|_| {
            format!("`cuda:{a}`: after `cuda:` write a device ordinal, e.g. `cuda:0`")
        }),
    }
}

impl Cuda {
    /// Opens device `cuda:N` (`arg` is `N`; none means 0).
    pub fn open(arg: Option<&str>) -> Result<Cuda, String> {
        let ordinal = ordinal(arg)?;
        if !libcuda_present() {
            return Err("no libcuda.so.1 (no NVIDIA driver on this machine)".to_string());
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| match CudaContext::device_count() {
            Ok(0) => "the NVIDIA driver sees no GPU on this machine".to_string(),
            Ok(n) if ordinal as i32 >= n => {
                format!(
                    "no CUDA device {ordinal}: this machine has {n} (cuda:0 to cuda:{})",
                    n - 1
                )
            }
            _ => format!("cannot open CUDA device {ordinal}: {e}"),
        })?;
        let (major, minor) = ctx.compute_capability().map_err(driver)?;
        let sm = (major * 10 + minor) as u32;
        let name = ctx.name().map_err(driver)?;
        let mut version = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(driver)?;
        let stream = ctx.default_stream();
        Ok(Cuda {
            identity: Identity {
                name: format!("cuda:{ordinal}"),
                version: format!("driver {}.{}, PTX JIT", version / 1000, version % 1000 / 10),
                device: format!("{name} (sm_{sm})"),
            },
            kernels: RefCell::new(HashMap::new()),
            stream,
            ctx,
            sm,
        })
    }

    /// The entry point and layout of `variant`'s kernel, JIT-loaded on first use (the
    /// outcome is cached either way).
    fn load(&self, variant: &Variant) -> Result<(sys::CUfunction, Layout), String> {
        self.ctx.bind_to_thread().map_err(driver)?;
        let mut kernels = self.kernels.borrow_mut();
        let loaded = kernels
            .entry(variant.signature())
            .or_insert_with(|| jit(self.sm, variant));
        match loaded {
            Ok(l) => Ok((l.function, l.layout.clone())),
            Err(why) => Err(why.clone()),
        }
    }
}

/// Builds `variant`'s kernel for `sm_<sm>` and loads it into the current context.
fn jit(sm: u32, variant: &Variant) -> Result<Loaded, String> {
    if let Some(need) = variant.requirement.sm.filter(|&need| need > sm) {
        return Err(format!(
            "{} needs sm_{need}; this GPU is sm_{sm}",
            variant.text
        ));
    }
    let kernel = Kernel::new(variant, sm)?;
    let module = load_module(&kernel.ptx, &format!("the kernel of {}", variant.text))?;
    let name = CString::new(kernel.entry).map_err(|e| e.to_string())?;
    // SAFETY: `module` was just loaded.
    let function = unsafe { result::module::get_function(module, name) }.map_err(driver)?;
    Ok(Loaded {
        module,
        function,
        layout: kernel.layout,
    })
}

/// Loads PTX text into the current context through the driver's JIT; `what` names it in the
/// JIT's complaint.
fn load_module(ptx: &str, what: &str) -> Result<sys::CUmodule, String> {
    let image = CString::new(ptx).map_err(|e| e.to_string())?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut module = std::ptr::null_mut();
    // SAFETY: `image` is a NUL-terminated PTX text; the two options point at `log`, which
    // outlives the call, and its size.
    let loaded = unsafe {
        sys::cuModuleLoadDataEx(
            &mut module,
            image.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    }
    .result();
    if let Err(e) = loaded {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        return Err(format!(
            "the driver's PTX JIT rejects {what} ({e}): {}",
            String::from_utf8_lossy(&log[..end]).trim()
        ));
    }
    Ok(module)
}

impl Drop for Cuda {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            for loaded in self.kernels.get_mut().values().flatten() {
                // SAFETY: loaded into this context, unloaded once; nothing runs on it now.
                // An error here has no one to go to: the context goes with the process.
                let _ = unsafe { result::module::unload(loaded.module) };
            }
        }
    }
}

/// Column `k` of `rows` (`width` values a row), each masked to `bits`, as little-endian
/// elements of `bytes` bytes.
fn column(rows: &[u64], width: usize, k: usize, bits: u32, bytes: usize) -> Vec<u8> {
    rows.chunks_exact(width)
        .flat_map(|row| (row[k] & mask(bits)).to_le_bytes().into_iter().take(bytes))
        .collect()
}

impl Cuda {
    /// Runs `out.len()` cases on the device.
    fn launch(&self, variant: &Variant, inputs: &[u64], out: &mut [Verdict]) -> Result<(), String> {
        let n = out.len();
        let width = variant.sources.len();
        if inputs.len() != n * width {
            return Err(format!(
                "{} inputs for {n} cases of {}, which reads {width} each",
                inputs.len(),
                variant.text
            ));
        }
        let (function, layout) = self.load(variant)?;
        if n == 0 {
            return Ok(());
        }
        let stream = &self.stream;
        let sources = layout
            .sources
            .iter()
            .enumerate()
            .map(|(k, op)| {
                let bits = variant.sources[k].width;
                stream.clone_htod(&column(inputs, width, k, bits, op.bytes))
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(driver)?;
        let dbytes = layout.dests[0].bytes;
        let mut dest = stream.alloc_zeros::<u8>(n * dbytes).map_err(driver)?;
        let count = n as u64;
        let mut pointers = Vec::with_capacity(1 + sources.len());
        {
            let (pd, _sync_d) = dest.device_ptr_mut(stream);
            pointers.push(pd);
            let mut syncs = Vec::new();
            for s in &sources {
                let (p, sync) = s.device_ptr(stream);
                pointers.push(p);
                syncs.push(sync);
            }
            let mut params: Vec<*mut c_void> = std::iter::once(&count as *const u64 as *mut c_void)
                .chain(
                    pointers
                        .iter()
                        .map(|p| p as *const sys::CUdeviceptr as *mut c_void),
                )
                .collect();
            let blocks = n.div_ceil(BLOCK as usize).clamp(1, MAX_BLOCKS) as u32;
            // SAFETY: the parameters match the entry's (`n`, the destination, one pointer per
            // source, all u64), every array holds `n` elements of its operand's size, and
            // they live until the copy back below has synchronised the stream.
            unsafe {
                result::launch_kernel(
                    function,
                    (blocks, 1, 1),
                    (BLOCK, 1, 1),
                    0,
                    stream.cu_stream(),
                    &mut params,
                )
            }
            .map_err(|e| format!("launching the kernel of {}: {e}", variant.text))?;
        }
        let bits = stream
            .clone_dtoh(&dest)
            .map_err(|e| format!("running the kernel of {}: {e}", variant.text))?;
        for (o, element) in out.iter_mut().zip(bits.chunks_exact(dbytes)) {
            let mut le = [0u8; 8];
            le[..dbytes].copy_from_slice(element);
            *o = Verdict::Bits(u64::from_le_bytes(le));
        }
        Ok(())
    }
}

impl Cuda {
    /// Runs `crate::call`'s kernel `ENTRY` of `ptx` on `n` cases of `inputs` (`ni` words a
    /// case) and returns `no` words a case.
    pub fn call(
        &self,
        ptx: &str,
        n: usize,
        ni: usize,
        no: usize,
        inputs: &[u64],
    ) -> Result<Vec<u64>, String> {
        self.ctx.bind_to_thread().map_err(driver)?;
        debug_assert_eq!(inputs.len(), n * ni);
        let module = load_module(ptx, "the function's module")?;
        let result = (|| {
            let name = CString::new(crate::call::ENTRY).map_err(|e| e.to_string())?;
            // SAFETY: `module` was just loaded.
            let function = unsafe { result::module::get_function(module, name) }.map_err(driver)?;
            let stream = &self.stream;
            let mut bytes: Vec<u8> = inputs.iter().flat_map(|w| w.to_le_bytes()).collect();
            bytes.resize(bytes.len().max(8), 0);
            let input = stream.clone_htod(&bytes).map_err(driver)?;
            let mut output = stream
                .alloc_zeros::<u8>((n * no).max(1) * 8)
                .map_err(driver)?;
            let count = n as u64;
            {
                let (pi, _si) = input.device_ptr(stream);
                let (po, _so) = output.device_ptr_mut(stream);
                let mut params: Vec<*mut c_void> = vec![
                    &count as *const u64 as *mut c_void,
                    &pi as *const sys::CUdeviceptr as *mut c_void,
                    &po as *const sys::CUdeviceptr as *mut c_void,
                ];
                let blocks = n.div_ceil(BLOCK as usize).max(1) as u32;
                // SAFETY: the parameters match the entry's (three u64: the count and two
                // arrays of `n` cases), which live until the copy back has synchronised.
                unsafe {
                    result::launch_kernel(
                        function,
                        (blocks, 1, 1),
                        (BLOCK, 1, 1),
                        0,
                        stream.cu_stream(),
                        &mut params,
                    )
                }
                .map_err(|e| format!("launching the function's kernel: {e}"))?;
            }
            let bytes = stream
                .clone_dtoh(&output)
                .map_err(|e| format!("running the function's kernel: {e}"))?;
            Ok(bytes[..n * no * 8]
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect())
        })();
        // SAFETY: loaded above into this context; nothing runs on it after the copy back.
        let _ = unsafe { result::module::unload(module) };
        result
    }
}

impl Backend for Cuda {
    fn identity(&self) -> &Identity {
        &self.identity
    }

    fn supports(&self, variant: &Variant) -> Support {
        match self.load(variant) {
            Ok(_) => Support::Yes,
            Err(why) => Support::No(why),
        }
    }

    fn batch_size(&self) -> usize {
        BATCH
    }

    fn run(
        &mut self,
        variant: &Variant,
        inputs: &[u64],
        out: &mut [Verdict],
    ) -> Result<(), BackendError> {
        self.launch(variant, inputs, out)
            .map_err(|m| BackendError::failed(&self.identity.name, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_little_endian_elements_of_the_operand_size() {
        let rows = [0x1122, 0xaabbccdd, 0x3344, 0x01];
        assert_eq!(column(&rows, 2, 0, 16, 2), vec![0x22, 0x11, 0x44, 0x33]);
        // A predicate: one byte, bit 0 only.
        assert_eq!(column(&rows, 2, 1, 1, 1), vec![0x01, 0x01]);
    }

    #[test]
    fn the_ordinal_is_a_number() {
        assert_eq!(ordinal(None), Ok(0));
        assert_eq!(ordinal(Some("3")), Ok(3));
        assert!(ordinal(Some("x")).unwrap_err().contains("cuda:0"));
    }
}
