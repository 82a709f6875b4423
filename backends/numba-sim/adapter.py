"""semfuzz external-backend adapter (protocol 1, docs/external-backend.md) for numba-cuda's
CUDA simulator: run with NUMBA_ENABLE_CUDASIM=1 and numba-cuda on PYTHONPATH (semfuzz's
`numba-sim` backend does both, with the numba-cuda of `cargo xtask setup`).

Each batch is one launch of a @cuda.jit kernel over arrays holding the whole batch, written as
one would write it for a GPU (a grid-stride loop over the rows). Under the simulator the kernel body is
plain Python on numpy scalars, so what is tested is how the simulator implements each numba
operation against what the same kernel compiles to on a GPU, which is the PTX variant it is
mapped to below:

  a + b, a - b, a * b on float32/float64  add/sub/mul.f32/.f64: numba lowers them to LLVM
      fadd/fsub/fmul, which NVVM emits without a rounding modifier (fusable when contracted);
  a / b on float32/float64  div.rn.f32/.f64: numba's default (fastmath=False) is IEEE division,
      "prec_div" (numba-cuda docs, "CUDA Fast Math");
  -a, abs(a) on float32/float64  neg/abs.f32/.f64 (LLVM fneg, llvm.fabs);
  cuda.fma(a, b, c)  fma.rn.f32/.f64: lowered to llvm.fma (numba-cuda cudaimpl.py `ptx_fma`;
      docs: "Perform the fused multiply-add operation");
  cuda.fp16.hadd/hsub/hmul  add/sub/mul.f16, cuda.fp16.hfma  fma.rn.f16, cuda.fp16.hneg/habs
      neg/abs.f16: numba-cuda lowers each to that one instruction as inline PTX (cudaimpl.py).

  cuda.fp16.hfloor/hceil/htrunc/hrint  cvt.rmi/rpi/rzi/rni.f16.f16: these numba takes from
      CUDA's cuda_fp16.hpp as external shims (`__numba_wrapper_hfloor`), so numba's own PTX
      holds a call, not the instruction; they are mapped by the CUDA Math API's documented
      semantics ("hfloor: calculate the largest integer less than or equal to h", "hceil:
      the smallest integer greater than or equal to", "htrunc: truncate to the nearest
      integer", "hrint: round to the nearest integer value in half-precision floating-point
      format, with halfway cases rounded to the nearest even integer value"), each exactly
      the PTX conversion to an integral value in the same format with that rounding
      (PTX ISA 9.7.9.21 `cvt` `.rmi .rpi .rzi .rni`).

`python adapter.py --compiled` prints the PTX each mapped operation compiles to (numba's real
compiler, libNVVM) for those numba compiles itself; the tests check it is exactly the variant, and the backend evaluates it to
say whether a disagreement is the simulator's alone. Not mapped: cuda.fp16.hmax/hmin, which numba compiles to
`setp.gt.f16` (`setp.lt.f16`) and `selp`, "a if a is greater than b, b otherwise" as its
docstring says, not max.f16/min.f16; hdiv and the fp16 math functions, which are sequences of
instructions.
"""

import os
import sys


def send(*lines):
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


try:
    import numpy as np
    import numba
    from importlib.metadata import version
    from numba import cuda

    IMPORT_ERROR = None
except ImportError as e:  # reported in the handshake
    IMPORT_ERROR = e

if IMPORT_ERROR is None:

    @cuda.jit(device=True)
    def add(a, b):
        return a + b

    @cuda.jit(device=True)
    def sub(a, b):
        return a - b

    @cuda.jit(device=True)
    def mul(a, b):
        return a * b

    @cuda.jit(device=True)
    def div(a, b):
        return a / b

    @cuda.jit(device=True)
    def neg(a):
        return -a

    @cuda.jit(device=True)
    def absolute(a):
        return abs(a)

    @cuda.jit(device=True)
    def fma(a, b, c):
        return cuda.fma(a, b, c)

    @cuda.jit(device=True)
    def hadd(a, b):
        return cuda.fp16.hadd(a, b)

    @cuda.jit(device=True)
    def hsub(a, b):
        return cuda.fp16.hsub(a, b)

    @cuda.jit(device=True)
    def hmul(a, b):
        return cuda.fp16.hmul(a, b)

    @cuda.jit(device=True)
    def hfma(a, b, c):
        return cuda.fp16.hfma(a, b, c)

    @cuda.jit(device=True)
    def hneg(a):
        return cuda.fp16.hneg(a)

    @cuda.jit(device=True)
    def habs(a):
        return cuda.fp16.habs(a)

    @cuda.jit(device=True)
    def hfloor(a):
        return cuda.fp16.hfloor(a)

    @cuda.jit(device=True)
    def hceil(a):
        return cuda.fp16.hceil(a)

    @cuda.jit(device=True)
    def htrunc(a):
        return cuda.fp16.htrunc(a)

    @cuda.jit(device=True)
    def hrint(a):
        return cuda.fp16.hrint(a)

    def kernel(op, arity):
        """The kernel applying device function `op` to every row of the operand arrays, in a
        grid-stride loop: the simulator runs each CUDA thread as a Python thread, so a few
        threads looping over the batch are many times faster than a thread per row."""
        if arity == 1:

            @cuda.jit
            def unary(out, a):
                for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                    out[i] = op(a[i])

            return unary
        if arity == 2:

            @cuda.jit
            def binary(out, a, b):
                for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                    out[i] = op(a[i], b[i])

            return binary

        @cuda.jit
        def ternary(out, a, b, c):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = op(a[i], b[i], c[i])

        return ternary

    FORMATS = {
        "f16": (np.float16, np.uint16),
        "f32": (np.float32, np.uint32),
        "f64": (np.float64, np.uint64),
    }
    # PTX variant (without its type) -> (device function, arity, types it is mapped for).
    OPS = {
        "add": (add, 2, ("f32", "f64")),
        "sub": (sub, 2, ("f32", "f64")),
        "mul": (mul, 2, ("f32", "f64")),
        "div.rn": (div, 2, ("f32", "f64")),
        "neg": (neg, 1, ("f32", "f64")),
        "abs": (absolute, 1, ("f32", "f64")),
        "fma.rn": (fma, 3, ("f32", "f64")),
    }
    OPS_F16 = {
        "add": (hadd, 2),
        "sub": (hsub, 2),
        "mul": (hmul, 2),
        "fma.rn": (hfma, 3),
        "neg": (hneg, 1),
        "abs": (habs, 1),
    }
    # PTX variant -> (kernel, arity, type, device function).
    VARIANTS = {}
    for name, (op, arity, types) in OPS.items():
        for ty in types:
            VARIANTS[f"{name}.{ty}"] = (kernel(op, arity), arity, ty, op)
    for name, (op, arity) in OPS_F16.items():
        VARIANTS[f"{name}.f16"] = (kernel(op, arity), arity, "f16", op)
    # Taken from cuda_fp16.hpp at link time: mapped by the documented semantics, and absent
    # from `--compiled` (numba's PTX holds a call to the header's shim).
    FROM_HEADERS = {
        "cvt.rmi.f16.f16": hfloor,
        "cvt.rpi.f16.f16": hceil,
        "cvt.rzi.f16.f16": htrunc,
        "cvt.rni.f16.f16": hrint,
    }
    for variant, op in FROM_HEADERS.items():
        VARIANTS[variant] = (kernel(op, 1), 1, "f16", op)


# Threads of the one block each batch runs on (the fastest count under the simulator).
THREADS = 256


def run_batch(variant, rows):
    """The result lines for `rows` (lists of operand bits) of `variant`."""
    launch, arity, ty, _ = VARIANTS[variant]
    float_t, bits_t = FORMATS[ty]
    n = len(rows)
    if n == 0:
        return []
    table = np.array(rows, dtype=np.uint64).reshape(n, arity)
    operands = [np.ascontiguousarray(table[:, k].astype(bits_t)).view(float_t) for k in range(arity)]
    out = np.zeros(n, dtype=float_t)
    launch[1, THREADS](out, *operands)
    digits = 2 + np.dtype(bits_t).itemsize * 2
    return [f"{int(v):#0{digits}x}" for v in out.view(bits_t)]


def print_compiled():
    """`--compiled`: per variant, the PTX module its device function compiles to for sm_80
    (numba's real compiler through libNVVM; no GPU and no simulator needed), with `abi="c"` so
    that the function takes its operands as parameters and returns its value as C would: what
    numba runs on a GPU where the simulator runs Python. One JSON object, variant -> module.
    The `numba-sim` backend evaluates these with the PTX specs to say whether a finding is the
    simulator's alone; the tests check each holds exactly its variant."""
    import json
    from numba.core import types

    scalar = {"f16": types.float16, "f32": types.float32, "f64": types.float64}
    modules = {}
    for variant, (_, arity, ty, op) in VARIANTS.items():
        if variant in FROM_HEADERS:
            continue
        t = scalar[ty]
        modules[variant], _ = cuda.compile_ptx(
            op.py_func, t(*[t] * arity), device=True, cc=(8, 0), abi="c"
        )
    json.dump(modules, sys.stdout)


def main():
    if sys.argv[1:] == ["--compiled"]:
        if IMPORT_ERROR is not None:
            raise IMPORT_ERROR
        print_compiled()
        return 0
    if sys.stdin.readline().split() != ["semfuzz-external", "1"]:
        send("semfuzz-external 1", "error this adapter speaks protocol version 1 only")
        return 1
    send("semfuzz-external 1")
    if IMPORT_ERROR is not None:
        send(f"error cannot import numba-cuda ({IMPORT_ERROR}): run `cargo xtask setup`")
        return 1
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        send("error NUMBA_ENABLE_CUDASIM=1 is not set: this adapter drives the simulator only")
        return 1
    np.seterr(all="ignore")  # IEEE results, no warnings about inf or NaN on stderr
    versions = f"numba {numba.__version__}, numpy {np.__version__}"
    send(
        "name numba-sim",
        f"version numba-cuda {version('numba-cuda')} ({versions})",
        "device CUDA simulator (numpy)",
        *(f"supports {v}" for v in VARIANTS),
        "batch-size 16384",
        "ready",
    )
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            return 0
        if len(words) != 3 or words[0] != "batch":
            send(f"error expected `batch VARIANT N` or `quit`, got `{line.strip()}`")
            return 1
        variant, n = words[1], int(words[2])
        rows = [[int(x, 16) for x in sys.stdin.readline().split()] for _ in range(n)]
        if variant not in VARIANTS:
            send(f"error {variant} is not among the variants this adapter supports")
            continue
        try:
            send(*run_batch(variant, rows), "done")
        except Exception as e:  # the simulator raised: this batch fails, semfuzz restarts us
            send(f"error the simulator raised {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
