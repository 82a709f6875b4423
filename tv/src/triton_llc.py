"""semfuzz validate-llc's driver for the LLVM Triton bundles (trunk): the same protocol as
llc.py. Reads {"jobs": [[sm, name, text], ...]} as JSON on stdin, prints the LLVM version and
commit as a JSON line, then compiles each job's module for its target with Triton's
`llvm.translate_to_asm` and prints one JSON line per job, {"ptx": ...} or {"error": ...}. An LLVM
fatal error ("LLVM ERROR: Cannot select", and a module trunk cannot parse) ends the process; the
caller knows which job it was and starts again after it.

translate_to_asm builds its target machine at CodeGenOptLevel::Aggressive (what `llc -O3` asks
for; there is no argument for another level) with TargetOptions that llc's defaults differ from
in two places (docs/llc-validation.md, and every Triton bug report): NoNaNsFPMath set, and
TrapUnreachable set. Its arguments here: the triple of a `-mtriple=` flag (a 32-bit
`nvptx-nvidia-cuda`), else nvptx64's; the feature string of the job's `-mattr=` flag (a RUN
line's `+ptx78`), else none, so the PTX ISA version is trunk's default for the target, as
`llc -mcpu=sm_XX` without -mattr picks; llc's other flags have no argument here and are not
applied (`-O0` among them: the level is always -O3); no library flags; enable_fp_fusion
False, which leaves AllowFPOpFusion at Standard, llc's default -fp-contract=on (only `contract`
and fmuladd fuse); assembly, not an object; no GEP canonicalisation."""
import json
import mmap
import re
import sys

from triton._C.libtriton import llvm


def version():
    """LLVM's version and commit, as the library says them in its `--version` text."""
    import triton._C.libtriton as lib

    with open(lib.__file__, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        found = re.search(rb"LLVM version ([0-9][0-9A-Za-z.]*) \(([0-9a-f]{40})\)", m)
        # The match reads the map: take its groups before the map is closed.
        if not found:
            return {"version": "?", "commit": ""}
        return {"version": found.group(1).decode(), "commit": found.group(2).decode()}


llvm.init_targets()
req = json.load(sys.stdin)
print(json.dumps(version()), flush=True)
features, triple = "", "nvptx64-nvidia-cuda"
for flag in req.get("flags", []):
    if flag.lstrip("-").startswith("mattr="):
        features = flag.split("=", 1)[1]
    elif flag.lstrip("-").startswith("mtriple="):
        triple = flag.split("=", 1)[1]
for sm, name, text, *_ in req["jobs"]:
    cpu = "" if sm == req.get("default_cpu") else sm
    try:
        res = {"ptx": llvm.translate_to_asm(text, triple, cpu, features, [], False, False, False)}
    except Exception as e:  # a module the back end refuses is that module's verdict
        res = {"error": str(e).strip().splitlines()[0] if str(e).strip() else repr(e)}
    print(json.dumps(res), flush=True)
