"""semfuzz validate-llc's driver for llvmlite's LLVM: reads {"jobs": [[sm, name, text, _], ...],
"flags": [...], "default_cpu": "default"} as JSON on stdin (`_`: options of libNVVM's only), prints the LLVM version as a JSON
line, then compiles each job's module for its target through the NVPTX target machine at -O2
(what `llc -O2 -mcpu=SM` does) and prints one JSON line per job, {"ptx": ...} or {"error": ...},
as soon as it is done: a module the back end aborts on ("LLVM ERROR: Cannot select") ends the
process, and the caller knows which one it was and starts again after it.

The flags are llc's, as a test's RUN line writes them: `-mtriple=` picks the target (a
32-bit `nvptx-nvidia-cuda`; nvptx64's by default), `-mattr=` becomes the target machine's
features, `-O<n>` its optimisation level, and every other flag a command-line option of the
library (`-nvptx-no-f16-math`); llc's own options that only shape the text (`-asm-verbose`,
`-verify-machineinstrs`, ...) exist only in llc and are dropped: they change no instruction."""
import json
import sys

import llvmlite.binding as llvm

llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()
req = json.load(sys.stdin)
print(json.dumps({"version": ".".join(map(str, llvm.llvm_version_info))}), flush=True)
LLC_ONLY = ("-asm-verbose", "-verify-machineinstrs", "-disable-post-ra", "-frame-pointer")
features, opt, triple = "", 2, "nvptx64-nvidia-cuda"
for flag in req.get("flags", []):
    name = "-" + flag.lstrip("-")
    if name.startswith("-mattr="):
        features = name[len("-mattr="):]
    elif name.startswith("-mtriple="):
        triple = name[len("-mtriple="):]
    elif len(name) == 3 and name.startswith("-O") and name[2].isdigit():
        opt = int(name[2])
    elif not name.startswith(LLC_ONLY):
        llvm.set_option("llc", name)
target = llvm.Target.from_triple(triple)
machines = {}
for sm, name, text, *_ in req["jobs"]:
    if sm not in machines:
        cpu = "" if sm == req.get("default_cpu") else sm
        machines[sm] = target.create_target_machine(cpu=cpu, features=features, opt=opt)
    try:
        mod = llvm.parse_assembly(text)
        mod.triple = triple
        mod.verify()
        res = {"ptx": machines[sm].emit_assembly(mod)}
    except Exception as e:  # a module the back end refuses is that module's verdict
        # "LLVM IR parsing error" alone says nothing: keep the line that says what.
        lines = str(e).strip().splitlines()
        said = [l for l in lines if "error:" in l] or lines or [repr(e)]
        res = {"error": said[0].replace("<string>:", "line ")}
    print(json.dumps(res), flush=True)
