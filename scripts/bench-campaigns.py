#!/usr/bin/env python3
"""End-to-end campaign throughput per backend, against the evaluator alone in the same run.

For each (backend, variant) row, runs `semfuzz fuzz --backend B --instr V --cases N --threads T`
and reads the closing line's case count and time: generate + run + compare, the whole loop.
The baseline is the `spec` backend (the evaluator computing the results it then compares,
so twice the evaluator's work) on the same variant, cases and threads, measured in the same
run. Backends `semfuzz backends` calls unavailable are listed as such.

Usage: python3 scripts/bench-campaigns.py [--threads T] [--quick]
Prints a markdown table for docs/BENCHMARKS.md.
"""
import argparse
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(__file__).resolve().parent.parent
exe = root / "target" / "release" / "semfuzz"

ROWS = [
    # backend, variant pattern, cases (per variant)
    ("host", "{add.rn.f32}", 20_000_000),
    ("host", "{fma.rn.f64}", 5_000_000),
    ("host", "{mul.rn.f16x2}", 5_000_000),
    ("llvm", "{add.rn.f32}", 262_144),
    ("llvm:opt-16", "{add.rn.f32}", 262_144),
    # numba's `a + b` is PTX `add.f32` (no rounding modifier), not `add.rn.f32`.
    ("numba-sim", "{add.f32}", 131_072),
    ("z3", "{add.rn.f32}", 2_000),
    ("cuda", "{add.rn.f32}", 100_000_000),
]

LINE = re.compile(r"(\d+) cases in ([0-9.]+) s")


def campaign(backend, instr, cases, threads):
    """(cases, seconds) of one campaign, or None with the error text."""
    cmd = [str(exe), "fuzz", "--backend", backend, "--instr", instr,
           "--cases", str(cases), "--threads", str(threads)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = LINE.search(out.stdout)
    if not m:
        return None, (out.stderr or out.stdout).strip().splitlines()[-1:]
    return (int(m.group(1)), float(m.group(2))), None


def human(rate):
    """`12.3 M`, `45.6 k`."""
    if rate >= 1e6:
        return f"{rate / 1e6:.2f} M"
    if rate >= 1e3:
        return f"{rate / 1e3:.1f} k"
    return f"{rate:.0f}"


def available():
    out = subprocess.run([str(exe), "backends"], capture_output=True, text=True).stdout
    names = {}
    for line in out.splitlines():
        name = line.split()[0]
        names[name.split("[")[0]] = "unavailable" not in line
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="a tenth of the cases")
    args = ap.parse_args()
    if not exe.exists():
        sys.exit("build first: cargo build --release -p semfuzz")
    avail = available()
    print(f"| backend | variant | threads | cases | cases/s | evaluator alone (spec) cases/s | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for backend, instr, cases in ROWS:
        if args.quick:
            cases = max(cases // 10, 1024)
        base = backend.split(":")[0]
        if not avail.get(base, False):
            print(f"| {backend} | {instr.strip('{}')} | {args.threads} | - | unavailable here | - | - |")
            continue
        got, err = campaign(backend, instr, cases, args.threads)
        ref, _ = campaign("spec", instr, cases, args.threads)
        if got is None or ref is None:
            print(f"| {backend} | {instr.strip('{}')} | {args.threads} | - | failed: {err} | - | - |")
            continue
        rate, ref_rate = got[0] / max(got[1], 1e-3), ref[0] / max(ref[1], 1e-3)
        print(f"| {backend} | {instr.strip('{}')} | {args.threads} | {got[0]:,} | {human(rate)} "
              f"| {human(ref_rate)} | {rate/ref_rate:.3g} |")


if __name__ == "__main__":
    main()
