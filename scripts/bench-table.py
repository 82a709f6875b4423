#!/usr/bin/env python3
"""Prints criterion results as a table of ops/s and semfuzz/native ratios.

Reads target/criterion/<group>/<function>/new/estimates.json for every group that has a
`semfuzz` and a `native` function (measured in the same `cargo bench` run); groups without a
native baseline (the exhaustive sweeps) get their time per iteration and no ratio. Usage: python3 scripts/bench-table.py [PREFIX]
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
        if (native / "new" / "estimates.json").exists():
            nns, _ = estimate(native)
            rows.append((name, ns, n * 1e9 / ns, f"{n / nns * 1e3:8.1f} M", f"{nns / ns:14.3f}"))
        else:
            rows.append((name, ns, n * 1e9 / ns, f"{'-':>10}", f"{'-':>14}"))
print(f"| {'benchmark':32} | time/iteration | semfuzz evals/s | native ops/s | semfuzz/native |")
print(f"| {'-' * 32} | -------------- | --------------- | ------------ | -------------- |")
for name, ns, s, nat, ratio in rows:
    print(f"| {name:32} | {ns / 1e6:11.3f} ms | {s / 1e6:13.1f} M | {nat} | {ratio} |")
