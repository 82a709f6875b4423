#!/usr/bin/env python3
"""Compiles the project's own Triton kernels to LLVM IR and PTX for sm_80 and sm_90 with no GPU
(Triton 3.9, which `cargo xtask setup` installs into the user's cache and links as
.deps/triton), and writes each as a fixture pair the readers are tested on:

    PYTHONPATH=.deps/triton:.deps/py python3 scripts/kernel-fixtures.py

writes llir/fixtures/triton-3.9-KERNEL-SM.ll and ptx/fixtures/triton-3.9-KERNEL-SM.ptx for the
kernels below: a vector add, an elementwise kernel (exp of a bf16 input, through f32), a row
softmax and a layer norm forward, each with BLOCK 128 and 4 warps. The first line of each file
says what it is and how it was made. Debian's clang (CUDA device-only mode) is not among the
machine's packages, so CUDA C kernels come from nvcc instead (tv/src/nvcc).
"""
import argparse
import os
import pathlib

# Triton 3.9 fuses multiplies and adds unless told otherwise, and warns that 3.10 will not:
# the fixtures keep 3.9's default, said out loud.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402 (after the environment it reads)
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

BLOCK = 128
TARGETS = [80, 90]


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


@triton.jit
def exp_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m).to(tl.float32)
    tl.store(out_ptr + offs, tl.exp(x).to(tl.bfloat16), mask=m)


@triton.jit
def softmax(x_ptr, out_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + row * stride + offs, mask=m, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    e = tl.exp(z)
    tl.store(out_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=m)


@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, out_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + row * stride + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / n
    d = tl.where(m, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
    w = tl.load(w_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + row * stride + offs, d * rstd * w + b, mask=m)


KERNELS = {
    "vector-add": (vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}),
    "exp-bf16": (exp_bf16, {"x_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32"}),
    "softmax": (softmax, {"x_ptr": "*fp32", "out_ptr": "*fp32", "stride": "i32", "n": "i32"}),
    "layer-norm": (
        layer_norm,
        {
            "x_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "out_ptr": "*fp32",
            "stride": "i32",
            "n": "i32",
            "eps": "fp32",
        },
    ),
}


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ll-out", default=root / "llir" / "fixtures", type=pathlib.Path)
    ap.add_argument("--ptx-out", default=root / "ptx" / "fixtures", type=pathlib.Path)
    args = ap.parse_args()
    for name, (fn, signature) in KERNELS.items():
        for sm in TARGETS:
            src = ASTSource(fn, signature, {"BLOCK": BLOCK})
            k = triton.compile(src, target=GPUTarget("cuda", sm, 32))
            made = f"Triton {triton.__version__}, sm_{sm}, BLOCK {BLOCK}, by scripts/kernel-fixtures.py"
            stem = f"triton-{triton.__version__.rsplit('.', 1)[0]}-{name}-sm_{sm}"
            (args.ll_out / f"{stem}.ll").write_text(f"; {made}: asm[\"llir\"] of `{fn.__name__}`.\n" + k.asm["llir"])
            (args.ptx_out / f"{stem}.ptx").write_text(f"// {made}: asm[\"ptx\"] of `{fn.__name__}`.\n" + k.asm["ptx"])
            print(stem)


if __name__ == "__main__":
    main()
