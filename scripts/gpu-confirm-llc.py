#!/usr/bin/env python3
"""Runs each validate-llc reproducer's PTX on the GPU at its counterexample's inputs
(`semfuzz check-ptx --backend cuda`) and says whether the GPU computes what semfuzz's PTX
evaluator said the PTX computes (`ptx_bits`), the result the IR does not allow. Usage:
gpu-confirm-llc.py SEMFUZZ DIR... (each DIR holds f.ptx and counterexample.json, as
`validate-llc --repro` writes them). Prints one line per reproducer; exits 1 if the GPU
disagrees with any."""
import json
import re
import subprocess
import sys
import tempfile

# The newest PTX ISA the lent GPU's driver (580, CUDA 13.0) JIT-compiles; libNVVM 13.5 writes
# `.version 9.5` for code that uses nothing newer, so its text is lowered to this (said in the
# output line).
DRIVER_PTX_ISA = (9, 0)


def ptx_for_driver(path: str) -> tuple[str, str]:
    text = open(path).read()
    m = re.search(r"^\.version (\d+)\.(\d+)", text, re.M)
    if m and (int(m[1]), int(m[2])) > DRIVER_PTX_ISA:
        lowered = "%d.%d" % DRIVER_PTX_ISA
        text = text[: m.start()] + f".version {lowered}" + text[m.end():]
        note = f" (.version {m[1]}.{m[2]} lowered to {lowered} for the driver)"
    else:
        note = ""
    out = tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False)
    out.write(text)
    out.close()
    return out.name, note


def main() -> int:
    semfuzz, dirs = sys.argv[1], sys.argv[2:]
    disagreements = 0
    for d in dirs:
        cx = json.load(open(f"{d}/counterexample.json"))
        args = " ".join(i["bits"] for i in cx["inputs"])
        ptx, note = ptx_for_driver(f"{d}/f.ptx")
        run = subprocess.run(
            [semfuzz, "check-ptx", ptx, "--func", "f", "--backend", "cuda", "-"],
            input=args + "\n", capture_output=True, text=True)
        line = next((l for l in run.stdout.splitlines() if "# cuda" in l), run.stdout + run.stderr)
        gpu = line.split("#")[0].split()[len(cx["inputs"]):]
        said = [r["ptx_bits"] for r in cx["results"]]
        same = len(gpu) == len(said) and all(int(g, 16) == int(s, 16) for g, s in zip(gpu, said))
        disagreements += not same
        allows = "; ".join(r["ir_allows"] for r in cx["results"])
        print(f"{cx['function']} {cx['target']} ({cx['llc']}){note}: inputs {args}: GPU {' '.join(gpu)}, "
              f"semfuzz said the PTX computes {' '.join(said)}: {'same' if same else 'DIFFERENT'}; "
              f"the IR allows {allows}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
