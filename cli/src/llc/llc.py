"""semfuzz validate-llc's driver for llvmlite's LLVM: reads {"jobs": [[sm, name, text], ...]} as
JSON on stdin, prints the LLVM version as a JSON line, then compiles each job's module for its
target through the NVPTX target machine at -O2 (what `llc -O2 -mcpu=SM` does) and prints one
JSON line per job, {"ptx": ...} or {"error": ...}, as soon as it is done: a module the back end
aborts on ("LLVM ERROR: Cannot select") ends the process, and the caller knows which one it was
and starts again after it."""
import json
import sys

import llvmlite.binding as llvm

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
req = json.load(sys.stdin)
target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
print(json.dumps({"version": ".".join(map(str, llvm.llvm_version_info))}), flush=True)
machines = {}
for sm, name, text in req["jobs"]:
    if sm not in machines:
        machines[sm] = target.create_target_machine(cpu=sm, opt=2)
    try:
        mod = llvm.parse_assembly(text)
        mod.triple = "nvptx64-nvidia-cuda"
        mod.verify()
        res = {"ptx": machines[sm].emit_assembly(mod)}
    except Exception as e:  # a module the back end refuses is that module's verdict
        res = {"error": str(e).strip().splitlines()[0] if str(e).strip() else repr(e)}
    print(json.dumps(res), flush=True)
