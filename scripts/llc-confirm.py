"""Recomputes the LLVM-bug counterexamples of docs/llc-validation.md by hand, independently of
semfuzz: exact rational arithmetic (fractions) with an explicit round-to-nearest-even to f32
and bf16 (and half), and libm's fmod. Each line prints what the IR's one rounding gives and what the PTX's
sequence gives; they must differ as the page says.

    PYTHONPATH=.deps/py python3 scripts/llc-confirm.py
"""
import math
import struct
from fractions import Fraction as F


def f32(bits):
    return F(struct.unpack("<f", struct.pack("<I", bits))[0])


def bf16(bits):
    return f32(bits << 16)


def rne(x, precision):
    """x rounded to the nearest value with `precision` significant bits, ties to even (normal
    range; every case here is normal in the format it is rounded to)."""
    ulp = F(2) ** (math.floor(math.log2(abs(x))) - (precision - 1))
    n = x / ulp
    low = math.floor(n)
    rest = n - low
    up = rest > F(1, 2) or (rest == F(1, 2) and low % 2 == 1)
    return (low + 1 if up else low) * ulp


def f16(bits):
    return F(struct.unpack("<e", struct.pack("<H", bits))[0])


def hex_f16(x):
    return hex(struct.unpack("<H", struct.pack("<e", float(x)))[0])


def hex16(x):
    return hex(struct.unpack("<I", struct.pack("<f", float(x)))[0] >> 16)


def hex32(x):
    return hex(struct.unpack("<I", struct.pack("<f", float(x)))[0])


a, b, c = bf16(0x9808), bf16(0xF788), bf16(0x2080)
exact = a * b + c
print("fma_bf16 sm_70: once", hex16(rne(exact, 8)), "| f32 fma", hex32(rne(exact, 24)), "then bf16", hex16(rne(rne(exact, 24), 8)))

n = F(0x0BF7FFF8)
print("sitofp_bf16_i32 sm_70: once", hex16(rne(n, 8)), "| f32", float(rne(n, 24)), "then bf16", hex16(rne(rne(n, 24), 8)))

p = bf16(0x0C85) * bf16(0x3376)
print("fmul_bf16_ftz sm_70: product", float(p), "below 2^-126:", p < F(2) ** -126, "| bf16 once", hex16(rne(p, 8)), "| mul.rn.ftz.f32 flushes it to 0x0")

x, y = f32(0x7F7FFFFF), f32(0xC53CA3BC)
q = rne(x / y, 24)
t = F(math.trunc(q))
print("frem_f32: fmod", hex32(math.fmod(float(x), float(y))), "| div.rn, cvt.rzi, fma.rn", hex32(rne(-t * y + x, 24)))
print("frem_f16 -3204, -1: fmod sign", math.copysign(1, math.fmod(-3204.0, -1.0)), "| fma(-3204, -1, -3204) =", F(-3204) * F(-1) + F(-3204), "(+0 in round-to-nearest)")
a, b, c = f16(0xF59C), f16(0x4109), f16(0x43C1)
exact = a * b + c
print("fma_f16 sm_50 (LLVM 14): once", hex_f16(rne(exact, 11)), "| f32 fma", float(rne(exact, 24)), "then f16", hex_f16(rne(rne(exact, 24), 11)))
