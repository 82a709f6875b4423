#!/usr/bin/env python3
"""Prints criterion results as a table of ops/s and semfuzz/native ratios.

Reads target/criterion/<group>/<function>/new/estimates.json for every group that has a
`semfuzz` and a `native` function (measured in the same `cargo bench` run) and for the other
groups prints the time per iteration. Usage: python3 scripts/bench-table.py [PREFIX]
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
prefix = sys.argv[1] if len(sys.argv) > 1 else ""


def estimate(path):
    """Median time per iteration in ns, and elements per iteration if declared."""
    est = json.loads((path / "new" / "estimates.json").read_text())["median"]["point_estimate"]
    bench = json.loads((path / "new" / "benchmark.json").read_text())
    elements = (bench.get("throughput") or {}).get("Elements")
    return est, elements


rows = []
for group in sorted(p for p in root.rglob("benchmark.json") if p.parent.name == "new"):
    fn_dir = group.parent.parent
    name = json.loads(group.read_text())["group_id"]
    if name.startswith(prefix) and fn_dir.name == "semfuzz":
        native = fn_dir.parent / "native"
        ns, n = estimate(fn_dir)
        nns, _ = estimate(native)
        rows.append((name, n * 1e9 / ns, n * 1e9 / nns, nns / ns))
print(f"| {'benchmark':32} | semfuzz evals/s | native ops/s | semfuzz/native |")
print(f"| {'-' * 32} | --------------- | ------------ | -------------- |")
for name, s, nat, ratio in rows:
    print(f"| {name:32} | {s / 1e6:11.1f} M | {nat / 1e6:8.1f} M | {ratio:14.3f} |")
