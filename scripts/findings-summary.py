#!/usr/bin/env python3
"""Summarises `semfuzz fuzz --json` files: per backend and class, the variants, the cases,
the signatures and the smallest example (as a `semfuzz check` line).

Usage: python3 scripts/findings-summary.py FINDINGS.jsonl... > summary.md
"""
import collections
import json
import sys


def size(f):
    """Significant hex digits of the example's inputs (what `fuzz` calls smallest)."""
    return sum(len(i[2:].lstrip("0").rstrip("0")) for i in f["inputs"])


def main(paths):
    groups = collections.defaultdict(list)
    for path in paths:
        with open(path) as fh:
            for line in fh:
                if line.strip():
                    f = json.loads(line)
                    groups[(f["backend"], f["backend_version"], f["class"])].append(f)
    backend = None
    for (name, version, cls), fs in sorted(groups.items(), key=lambda kv: (kv[0][0], -sum(f["count"] for f in kv[1]))):
        if name != backend:
            backend = name
            print(f"\n### {name} ({version})\n")
            print("| class | variants | cases | signatures | smallest example (`semfuzz check` line) |")
            print("| --- | --- | --- | --- | --- |")
        variants = sorted({f["variant"] for f in fs})
        shown = ", ".join(f"`{v}`" for v in variants[:6]) + (f" and {len(variants) - 6} more" if len(variants) > 6 else "")
        ex = min(fs, key=lambda f: (size(f), f["variant"]))
        line = " ".join([ex["variant"], *ex["inputs"], ex["actual"]])
        print(f"| {cls} | {shown} | {sum(f['count'] for f in fs):,} | {len(fs)} | `{line}` |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
