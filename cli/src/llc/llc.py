"""semfuzz validate-llc's driver for llvmlite's LLVM: reads {"sms": [...], "modules": [[name,
text], ...]} as JSON on stdin, compiles each module for each target through the NVPTX target
machine at -O2 (what `llc -O2 -mcpu=SM` does), and writes {"SM": {"NAME": {"ptx": ...} or
{"error": ...}}} and the LLVM version as JSON on stdout."""
import json
import sys

import llvmlite.binding as llvm

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
req = json.load(sys.stdin)
target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
out = {"version": ".".join(map(str, llvm.llvm_version_info)), "ptx": {}}
for sm in req["sms"]:
    tm = target.create_target_machine(cpu=sm, opt=2)
    res = out["ptx"].setdefault(sm, {})
    for name, text in req["modules"]:
        try:
            mod = llvm.parse_assembly(text)
            mod.triple = "nvptx64-nvidia-cuda"
            mod.verify()
            res[name] = {"ptx": tm.emit_assembly(mod)}
        except Exception as e:  # a module the back end refuses is that module's verdict
            res[name] = {"error": str(e).strip().splitlines()[0] if str(e).strip() else repr(e)}
json.dump(out, sys.stdout)
