"""Turns `semfuzz validate-llc --json FILE` output into the Markdown tables of
docs/llc-validation.md (counts) and docs/llc-tables.md (matrices): per LLVM, the verdict counts per target, then the function × target
matrix (P proved, C counterexample, ? unknown, U unsupported, · the PTX of a stricter spelling
already validated at that target).

    python3 scripts/llc-table.py verdicts.json [more.json ...] > tables.md

With `--ranges OUT` (the standard output of a `--llc all` run), it prints the run's regression
ranges instead, the targets of a function with the same history merged into one line.

    python3 scripts/llc-table.py --ranges all.out > ranges.txt
"""
import collections
import json
import sys

MARK = {"proved": "P", "counterexample": "C", "unknown": "?", "unsupported": "U"}


def main(paths):
    rows = [r for p in paths for r in json.load(open(p))]
    by_llc = collections.defaultdict(list)
    for r in rows:
        by_llc[r["llc"]].append(r)
    for llc, rs in sorted(by_llc.items(), key=lambda kv: major(kv[0])):
        targets = sorted({r["target"] for r in rs}, key=lambda t: int("".join(c for c in t if c.isdigit())))
        print(f"### {llc}\n")
        print("| verdict | " + " | ".join(targets) + " |")
        print("| --- |" + " --- |" * len(targets))
        for kind in MARK:
            counts = collections.Counter(r["target"] for r in rs if r["verdict"] == kind)
            print(f"| {kind} | " + " | ".join(str(counts.get(t, 0)) for t in targets) + " |")
        cells = {(r["function"], r["target"]): MARK[r["verdict"]] for r in rs}
        functions = list(dict.fromkeys(r["function"] for r in rs))
        print(f"\n<details><summary>{len(functions)} functions × {len(targets)} targets</summary>\n")
        print("| function | " + " | ".join(t.removeprefix("sm_") for t in targets) + " |")
        print("| --- |" + " :-: |" * len(targets))
        for f in functions:
            print(f"| `{f}` | " + " | ".join(cells.get((f, t), "·") for t in targets) + " |")
        print("\n</details>\n")


def major(label):
    digits = label.split("LLVM ")[-1].split(".")[0]
    return int(digits) if digits.isdigit() else 0


def ranges(path):
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("regression ranges"))
    merged = {}
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        head, history = line.strip().split(": ", 1)
        function, target = head.rsplit(" ", 1)
        merged.setdefault((function, history), []).append(target)
    print(lines[start])
    for (function, history), targets in merged.items():
        print(f"  {function} {','.join(targets)}: {history}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ranges"]:
        ranges(sys.argv[2])
    else:
        main(sys.argv[1:])
