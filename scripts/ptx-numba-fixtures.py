#!/usr/bin/env python3
"""Compiles a few Python device functions with numba-cuda's `cuda.compile_ptx` (its real
compiler, libNVVM from the CUDA wheels `cargo xtask setup` installs; no GPU needed) into
ptx/fixtures/numba-sm_80.ptx, the module the README's `semfuzz eval-ptx`/`check-ptx`
examples read.

Run from the repository root:
    PYTHONPATH=.deps/py python3 scripts/ptx-numba-fixtures.py
"""

import math
import os
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = ROOT / ".deps" / "py"


def cuda_home() -> pathlib.Path:
    """A CUDA_HOME whose nvvm/ holds links into the nvidia wheel with libNVVM, as numba-cuda
    looks for it (backends/numba-sim/tests/simulator.rs does the same)."""
    wheels = [p for p in (PY / "nvidia").iterdir() if (p / "nvvm" / "libdevice").is_dir()]
    if not wheels:
        sys.exit("no nvidia CUDA wheel with nvvm/libdevice under .deps/py: run `cargo xtask setup`")
    cu = wheels[0]
    home = pathlib.Path(tempfile.mkdtemp(prefix="semfuzz-numba-"))
    lib64 = home / "nvvm" / "lib64"
    lib64.mkdir(parents=True)
    for lib in ("libnvvm.so", "libcudart.so"):
        found = sorted(p for p in (cu / "lib").iterdir() if p.name.startswith(lib))
        if not found:
            sys.exit(f"no {lib}* in {cu / 'lib'}")
        (lib64 / lib).symlink_to(found[0].resolve())
    (home / "nvvm" / "libdevice").symlink_to((cu / "nvvm" / "libdevice").resolve())
    return home


def main() -> None:
    # libNVVM is dlopen'ed by name: the loader must see its directory when the process
    # starts, so the script runs itself once more with LD_LIBRARY_PATH set.
    if "CUDA_HOME" not in os.environ or "SEMFUZZ_NUMBA_REEXEC" not in os.environ:
        home = cuda_home()
        os.environ["CUDA_HOME"] = str(home)
        os.environ["LD_LIBRARY_PATH"] = str(home / "nvvm" / "lib64")
        os.environ["SEMFUZZ_NUMBA_REEXEC"] = "1"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    from numba import cuda, float32, float64

    def axpy_clamped(a, x, y):
        r = a * x + y
        if r < 0:
            r = -r
        return r

    def lerp(a, b, t):
        return a + t * (b - a)

    def norm2(x, y):
        return math.sqrt(x * x + y * y)

    functions = [
        (axpy_clamped, (float32, float32, float32)),
        (lerp, (float32, float32, float32)),
        (norm2, (float64, float64)),
    ]
    out = []
    for i, (f, sig) in enumerate(functions):
        # abi="c": the function's own name and its value in func_retval0, as C would call it.
        ptx, _ = cuda.compile_ptx(f, sig, device=True, cc=(8, 0), abi="c")
        lines = ptx.splitlines()
        if i > 0:
            lines = [l for l in lines if not l.startswith((".version", ".target", ".address_size"))]
        out.append("\n".join(lines))
    header = (
        "// numba-cuda's cuda.compile_ptx (libNVVM) for sm_80, abi=\"c\": made by "
        "scripts/ptx-numba-fixtures.py\n"
    )
    target = ROOT / "ptx" / "fixtures" / "numba-sm_80.ptx"
    target.write_text(header + "\n".join(out) + "\n")
    print(f"wrote {target.relative_to(ROOT)} ({len(functions)} functions)")


if __name__ == "__main__":
    main()
