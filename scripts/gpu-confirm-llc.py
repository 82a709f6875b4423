#!/usr/bin/env python3
"""Runs each validate-llc reproducer's PTX on the GPU at its counterexample's inputs
(`semfuzz check-ptx --backend cuda`) and says whether the GPU computes what semfuzz's PTX
evaluator said the PTX computes (`ptx_bits`), the result the IR does not allow. Usage:
gpu-confirm-llc.py SEMFUZZ DIR... (each DIR holds f.ptx and counterexample.json, as
`validate-llc --repro` writes them). Prints one line per reproducer; exits 1 if the GPU
disagrees with any."""
import json
import subprocess
import sys


def main() -> int:
    semfuzz, dirs = sys.argv[1], sys.argv[2:]
    disagreements = 0
    for d in dirs:
        cx = json.load(open(f"{d}/counterexample.json"))
        args = " ".join(i["bits"] for i in cx["inputs"])
        run = subprocess.run(
            [semfuzz, "check-ptx", f"{d}/f.ptx", "--func", "f", "--backend", "cuda", "-"],
            input=args + "\n", capture_output=True, text=True)
        line = next((l for l in run.stdout.splitlines() if "# cuda" in l), run.stdout + run.stderr)
        gpu = line.split("#")[0].split()[len(cx["inputs"]):]
        said = [r["ptx_bits"] for r in cx["results"]]
        same = len(gpu) == len(said) and all(int(g, 16) == int(s, 16) for g, s in zip(gpu, said))
        disagreements += not same
        allows = "; ".join(r["ir_allows"] for r in cx["results"])
        print(f"{cx['function']} {cx['target']} ({cx['llc']}): inputs {args}: GPU {' '.join(gpu)}, "
              f"semfuzz said the PTX computes {' '.join(said)}: {'same' if same else 'DIFFERENT'}; "
              f"the IR allows {allows}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
