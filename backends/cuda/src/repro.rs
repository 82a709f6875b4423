//! Standalone reproductions of one finding: the PTX kernel of its variant and a CUDA driver-API
//! host program (C++) that runs exactly that example on GPU 0, prints the destination's bits as
//! a `semfuzz check` line, and says whether the GPU still returns what the finding recorded.
//!
//! The kernel is the backend's own ([`crate::kernel`]), so the repro runs the same code that
//! found the case; it targets the lowest `sm` that both the variant and `ptxas` 13 accept, so
//! the driver JIT-compiles it for whichever GPU runs it.

use crate::kernel::{Kernel, PTXAS_MIN_SM};
use semfuzz_spec::Variant;
use std::fmt::Write;

/// The files of one repro.
#[derive(Clone, Debug)]
pub struct Repro {
    /// The PTX module (also embedded in [`Repro::host`]).
    pub ptx: String,
    /// The C++ host program (CUDA driver API; build line in its first comment).
    pub host: String,
    /// The `semfuzz eval` line that prints what the spec allows for the example.
    pub eval_line: String,
}

/// The file names a repro is written under.
pub const PTX_FILE: &str = "kernel.ptx";
/// See [`PTX_FILE`].
pub const HOST_FILE: &str = "repro.cpp";

/// The C++ type of an element of `bytes` bytes.
fn c_type(bytes: usize) -> &'static str {
    match bytes {
        1 => "uint8_t",
        2 => "uint16_t",
        4 => "uint32_t",
        _ => "uint64_t",
    }
}

/// `0x` and `width` bits of hex digits, as findings and `semfuzz check` write values.
fn hex(bits: u64, width: u32) -> String {
    format!("0x{:0w$x}", bits, w = (width as usize).div_ceil(4))
}

/// A C++ string literal of `text` (quotes, backslashes and control characters escaped).
fn c_string(text: &str) -> String {
    let mut s = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            // `??x` would be a trigraph under -std=c++11.
            '?' => s.push_str("\\?"),
            c if c.is_ascii_graphic() || c == ' ' => s.push(c),
            // Octal: a `\x` escape would swallow the hex digits that follow.
            c => {
                for b in c.to_string().bytes() {
                    // Writing to a String cannot fail.
                    let _ = write!(s, "\\{b:03o}");
                }
            }
        }
    }
    s.push('"');
    s
}

/// The repro of `variant` on `inputs` (one value per source, as `semfuzz check` reads them),
/// where a backend returned `actual` and the spec allows `expected` (its text, as the finding
/// writes it).
pub fn repro(
    variant: &Variant,
    inputs: &[u64],
    actual: u64,
    expected: &str,
) -> Result<Repro, String> {
    if inputs.len() != variant.sources.len() {
        return Err(format!(
            "{} reads {} operands; the finding gives {}",
            variant.text,
            variant.sources.len(),
            inputs.len()
        ));
    }
    let kernel = Kernel::new(variant, PTXAS_MIN_SM)?;
    let dest = &variant.dests[0];
    let inputs_hex: Vec<String> = inputs
        .iter()
        .zip(&variant.sources)
        .map(|(&v, s)| hex(v, s.width))
        .collect();
    let check_prefix = format!("{} {}", variant.text, inputs_hex.join(" "));
    let eval_line = format!("semfuzz eval {check_prefix}");
    let dtype = c_type(kernel.layout.dests[0].bytes);

    let mut h = String::new();
    let mut line = |s: &str| {
        h.push_str(s);
        h.push('\n');
    };
    line(&format!(
        "// semfuzz repro: {} on {}",
        variant.signature(),
        inputs_hex.join(", ")
    ));
    // A newline or a line-ending backslash would end or extend the comment.
    line(&format!(
        "// The spec allows: {}",
        expected.replace(['\n', '\\'], " ")
    ));
    line(&format!(
        "// The finding's backend returned: {}",
        hex(actual, dest.width)
    ));
    line("//");
    line("// Build (CUDA headers from a toolkit or the nvidia-cuda-nvcc wheel; libcuda from the driver):");
    line(&format!(
        "//   g++ -std=c++11 -O2 {HOST_FILE} -o repro -I\"$CUDA_HOME/include\" -l:libcuda.so.1"
    ));
    line("// Run on GPU 0; it prints a `semfuzz check` line of what the GPU returned, and exits 0 when");
    line("// that is the finding's result again (1 when the GPU now returns something else):");
    line("//   ./repro | semfuzz check");
    line(&format!("// What the spec says: {eval_line}"));
    line("#include <cuda.h>");
    line("#include <cstdint>");
    line("#include <cstdio>");
    line("");
    line(&format!(
        "// {PTX_FILE}, loaded through the driver's PTX JIT."
    ));
    line(&format!(
        "static const char ptx[] = {};",
        c_string(&kernel.ptx)
    ));
    line("");
    line("#define CHECK(call)                                                    \\");
    line("    do {                                                               \\");
    line("        CUresult r_ = (call);                                          \\");
    line("        if (r_ != CUDA_SUCCESS) {                                      \\");
    line("            const char *s_ = \"unknown error\";                          \\");
    line("            cuGetErrorString(r_, &s_);                                 \\");
    line("            std::fprintf(stderr, \"%s failed: %s\\n\", #call, s_);          \\");
    line("            return 2;                                                  \\");
    line("        }                                                              \\");
    line("    } while (0)");
    line("");
    line("int main() {");
    for (k, (op, &v)) in kernel.layout.sources.iter().zip(inputs).enumerate() {
        line(&format!(
            "    const {} s{k} = {}; // {} ({})",
            c_type(op.bytes),
            hex(v, variant.sources[k].width),
            variant.sources[k].name,
            variant.sources[k].ty
        ));
    }
    line(&format!(
        "    const {dtype} want = {};",
        hex(actual, dest.width)
    ));
    line("    CHECK(cuInit(0));");
    line("    CUdevice dev;");
    line("    CHECK(cuDeviceGet(&dev, 0));");
    line("    CUcontext ctx;");
    line("    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));");
    line("    CHECK(cuCtxSetCurrent(ctx));");
    line("    char log[8192] = {0};");
    line(
        "    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};",
    );
    line("    void *vals[] = {log, (void *)(uintptr_t)sizeof log};");
    line("    CUmodule mod;");
    line("    if (cuModuleLoadDataEx(&mod, ptx, 2, opts, vals) != CUDA_SUCCESS) {");
    line("        std::fprintf(stderr, \"the driver's PTX JIT rejects the kernel: %s\\n\", log);");
    line("        return 2;");
    line("    }");
    line("    CUfunction f;");
    line(&format!(
        "    CHECK(cuModuleGetFunction(&f, mod, \"{}\"));",
        kernel.entry
    ));
    line("    unsigned long long n = 1;");
    line("    CUdeviceptr d;");
    line(&format!("    CHECK(cuMemAlloc(&d, sizeof({dtype})));"));
    let mut args = vec!["&n".to_string(), "&d".to_string()];
    for k in 0..inputs.len() {
        line(&format!("    CUdeviceptr p{k};"));
        line(&format!("    CHECK(cuMemAlloc(&p{k}, sizeof s{k}));"));
        line(&format!(
            "    CHECK(cuMemcpyHtoD(p{k}, &s{k}, sizeof s{k}));"
        ));
        args.push(format!("&p{k}"));
    }
    line(&format!("    void *args[] = {{{}}};", args.join(", ")));
    line("    CHECK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, 0));");
    line("    CHECK(cuCtxSynchronize());");
    line(&format!("    {dtype} got = 0;"));
    line("    CHECK(cuMemcpyDtoH(&got, d, sizeof got));");
    line(&format!(
        "    std::printf(\"%s 0x%0{}llx\\n\", {}, (unsigned long long)got);",
        (dest.width as usize).div_ceil(4),
        c_string(&check_prefix)
    ));
    line(&format!(
        "    std::fprintf(stderr, \"the spec allows: %s\\n\", {});",
        c_string(expected)
    ));
    line("    if (got == want) {");
    line("        std::fprintf(stderr, \"reproduced: the GPU returns the finding's result again\\n\");");
    line("        return 0;");
    line("    }");
    line(&format!(
        "    std::fprintf(stderr, \"not reproduced: the finding's backend returned {}\\n\");",
        hex(actual, dest.width)
    ));
    line("    return 1;");
    line("}");
    Ok(Repro {
        ptx: kernel.ptx,
        host: h,
        eval_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_strings_escape_what_cpp_would_misread() {
        assert_eq!(
            c_string("a\"b\\c\nd\te\u{1}f?"),
            "\"a\\\"b\\\\c\\nd\\te\\001f\\?\""
        );
    }
}
