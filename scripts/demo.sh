#!/usr/bin/env bash
# The main job for now: what the specs say, checked three ways. Run by `cargo xtask demo`,
# which builds target/release/semfuzz first (SEMFUZZ=path runs another binary).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
semfuzz=${SEMFUZZ:-target/release/semfuzz}
# Bold headings only on a terminal, and never when NO_COLOR is set (https://no-color.org).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    bold=$'\033[1m' plain=$'\033[0m'
else
    bold='' plain=''
fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }

step "The catalogue: every variant the specs expand to, with its requirements"
$semfuzz list fma.rn
echo "# patterns: a glob over the whole name, or (without * ? [ {) any name containing it"
$semfuzz list 'div.r[nz].f{32,64}'
$semfuzz list --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)), "variants in all")'

step "Evaluate: the spec's accept set per destination (exact bits, any NaN, one of several)"
echo "# 1 + 2^-24 is a tie; .rn picks the even neighbour, .rp rounds up"
$semfuzz eval add.rn.f32 0x3f800000 0x33800000
echo "# (operands may be decimals exact in their format: 1 and 2^-24 again)"
$semfuzz eval add.rp.f32 1 5.9604644775390625e-8
echo "# fma rounds once: (1+2^-23)^2 - (1+2^-22) = 2^-46 survives"
$semfuzz eval fma.rn.f32 0x3f800001 0x3f800001 0xbf800002
echo "# .NaN gives the canonical NaN; .xorsign.abs takes the sign from both inputs"
$semfuzz eval min.NaN.f32 0x7fc00000 0x3f800000
$semfuzz eval min.xorsign.abs.f32 0xc0000000 0x40400000
echo "# f32 NaNs are unspecified; f64 keeps an input's payload (either, when both are NaN)"
$semfuzz eval add.f32 0x7fc00001 0x3f800000
$semfuzz eval add.f64 0x7ff0000000000001 0xfff8000000000002
echo "# packed lanes"
$semfuzz eval add.rn.ftz.f32x2 0x0000000140000000 0x3f8000003f800000

echo "# set (9.7.7.1): per-half results, 0xffff/0 in an integer destination; {!}c negated"
$semfuzz eval set.lt.and.u32.f16x2 0x3c004000 0x40003c00 !0x0
echo "# approximations: corner cases exactly, otherwise an interval around MPFR's value"
$semfuzz eval ex2.approx.f32 0x3fc00000
$semfuzz eval rcp.approx.ftz.f64 0x4008000012345678
$semfuzz eval sin.approx.f32 0x4a000000
echo "# SASS, in the manual's syntax: FMZ makes -0 x -Inf a +0; MRG_H1 keeps the old low half"
$semfuzz eval 'HMUL2.F16_V2.FMZ.SAT R1, -|R4|.F32, -|RZ|.H0_H0;' 0x7f800000
$semfuzz eval 'HMUL2.MRG_H1 R7, R3, R4;' 0x3c003c00 0x40004000 0x12345678

step "Every syntax line of the ISA excerpt, and the variants that cover it (first lines)"
$semfuzz list --coverage | head -12

step "Instruction text is checked against the manual's syntax"
$semfuzz eval fma.f32 0x0 0x0 0x0 || true
$semfuzz eval min.xorsign.abs.f32 0x0 0x0 0x0 || true
$semfuzz eval mad.f32 0x0 0x0 0x0 || true
$semfuzz eval add.rn.f32 1.5 0.1 || true
$semfuzz eval 'HMUL2.INVALID R0, R1, R2;' 0x0 0x0 || true

step "Check results gathered elsewhere (examples/check-sample.txt); exit status 1 = mismatches found"
$semfuzz check examples/check-sample.txt
echo "(exit status $?)"

step "Campaigns: the backends this machine can run, and what a CPU fallback gets wrong"
$semfuzz backends
$semfuzz fuzz --backend host --instr '{min,max}.f32' --instr fma.rn.f16 --cases 20000 --threads 2
echo "# LLVM 22's constant folder keeps the input NaN of min.NaN.f16; PTX gives 0x7fff"
$semfuzz fuzz --backend llvm --instr '{min.NaN.f16}' --cases 4096

step "Self-check: the evaluator and the Z3 formulas admit exactly the same results"
$semfuzz selfcheck --cases 64
