"""Recomputes the libNVVM counterexamples of docs/nvvm.md by hand, independently of semfuzz:
exact rational arithmetic (fractions) with an explicit round-to-nearest-even, the host's libm
(`fmod`, `round`, through Python's math and ctypes), and IEEE special-value rules written out.
Each line prints what the IR's operation gives (LangRef: `frem` is libm's `fmod`, `llvm.round`
is libm's `round`) and what libNVVM's PTX sequence gives at the witness; they must differ.

    python3 scripts/nvvm-confirm.py
"""
import ctypes
import ctypes.util
import math
import struct
from fractions import Fraction as F

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
LIBM.round.restype = ctypes.c_double
LIBM.round.argtypes = [ctypes.c_double]


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def f64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def f16(bits):
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def hex32(x):
    return hex(struct.unpack("<I", struct.pack("<f", float(x)))[0])


def rne(x, precision, emax):
    """x rounded to `precision` significant bits, ties to even; inf past the format's largest
    finite value (emax: the exponent of its top binade). Normal range only (every case here)."""
    if x == 0:
        return x
    # The binade: 2^e <= |x| < 2^(e+1), found exactly (|x| may be past any float).
    x = F(x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if F(2) ** e > abs(x):
        e -= 1
    elif F(2) ** (e + 1) <= abs(x):
        e += 1
    ulp = F(2) ** (e - (precision - 1))
    n = x / ulp
    low = math.floor(n)
    rest = n - low
    up = rest > F(1, 2) or (rest == F(1, 2) and low % 2 == 1)
    r = (low + 1 if up else low) * ulp
    largest = (2 - F(2) ** (1 - precision)) * F(2) ** emax
    # Round to nearest: past the largest finite value by half an ulp of it or more is inf.
    if abs(r) > largest:
        return math.inf if x > 0 else -math.inf
    return r


def fmod_exact(a, b):
    """C's fmod on exact values: a - trunc(a/b)*b, exactly (it is representable)."""
    a, b = F(a), F(b)
    q = a / b
    n = math.floor(q) if q >= 0 else math.ceil(q)
    return a - n * b


def nvvm_frem(a, b, precision, emax):
    """libNVVM's frem: abs, abs, div.rn, cvt.rmi, mul, sub, neg if a < 0 (the `mul`/`sub` have
    no rounding modifier: ptxas may fuse them, so both the separate and the fused result)."""
    x, y = abs(F(a)), abs(F(b))
    q = rne(x / y, precision, emax)
    if isinstance(q, float):  # overflowed to inf
        return ("inf quotient: floor inf = inf; inf*|b| = inf; |a| - inf = -inf; negated if a < 0",)
    fl = F(math.floor(q))
    separate = rne(x - rne(fl * y, precision, emax), precision, emax)
    fused = rne(x - fl * y, precision, emax)
    sign = -1 if a < 0 else 1
    return (sign * separate, sign * fused)


def main():
    # frem float 0x7f7fffff, 0xc53ca3bc (sm_75, sm_90, sm_100).
    a, b = f32(0x7F7FFFFF), f32(0xC53CA3BC)
    ir = fmod_exact(a, b)
    sep, fused = nvvm_frem(a, b, 24, 127)
    print(
        f"frem_f32: IR fmod {float(ir)!r} ({hex32(ir)}); libm fmod {math.fmod(a, b)!r}; "
        f"PTX separate {float(sep)!r} ({hex32(sep)}), fused {float(fused)!r} ({hex32(fused)})"
    )
    # frem double 0x7fefffffffffffff, 0x3eb705c3c53ca3bc.
    a, b = f64(0x7FEFFFFFFFFFFFFF), f64(0x3EB705C3C53CA3BC)
    ir = fmod_exact(a, b)
    q = F(a) / F(b)
    print(
        f"frem_f64: IR fmod {float(ir)!r}; libm fmod {math.fmod(a, b)!r}; "
        f"|a|/|b| ~ 2^{q.numerator.bit_length() - q.denominator.bit_length()} >= 2^1024: "
        f"{q >= F(2) ** 1024}; "
        f"PTX: {nvvm_frem(a, b, 53, 1023)[0]}"
    )
    # frem half 0x0000, 0xfc00 (+0 rem -inf), computed in f32.
    a, b = f16(0x0000), f16(0xFC00)
    prod = "NaN (IEEE 754 7.2: 0 * inf is invalid)" if math.floor(0 / math.inf) == 0 else "?"
    print(
        f"frem_f16: IR fmod {math.fmod(a, b)!r}; PTX: |a|/|b| = {0 / math.inf}, floor 0, "
        f"0 * |b| = {prod}, so NaN"
    )
    # llvm.round: halfway cases away from zero (libm round); cvt.rni is to nearest even.
    for name, x in [
        ("round_f32", f32(0xBF000000)),
        ("round_f32_ftz", f32(0x47100C80)),
        ("round_f16", f16(0xDFE2)),
        ("round_f64", f64(0xC1A2FCE531000000)),
        ("round_f64_ftz", f64(0xBFE0000000000000)),
    ]:
        even = round(F(x))  # Fraction rounds halfway to even
        even = math.copysign(float(even), x) if even == 0 else float(even)
        print(f"{name}: x = {x!r}: IR round {LIBM.round(x)!r}; PTX cvt.rni {even!r}")

    # llvm.canonicalize.f32 at sm_100, IEEE mode: `mul.ftz.f32 x, 1.0`. PTX 9.7.3: ".ftz
    # flushes subnormal inputs and results to sign-preserving zero".
    x = f32(0x80000001)
    flushed = math.copysign(0.0, x) if 0 < abs(x) < 2.0**-126 else x * 1.0
    print(f"canonicalize_f32: x = {x!r}: IR (IEEE mode keeps it) {x!r}; PTX mul.ftz by 1.0 {flushed!r}")

main()
