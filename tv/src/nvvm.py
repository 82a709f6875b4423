"""semfuzz validate-llc's driver for NVIDIA's libNVVM (the CUDA wheel's libnvvm.so.4, through
cuda.bindings.nvvm, which finds the library only once it is loaded with RTLD_GLOBAL).

As semfuzz runs it (no arguments): reads {"jobs": [[sm, name, text, options], ...], "datalayout": ...} as
JSON on stdin, prints {"release", "version", "targets", "llvm"} as a JSON line (the CUDA release and build
libNVVM's PTX banner names, every target the library knows and the LLVM IR version each reads),
then compiles each job's module with `-arch=compute_XX` and the job's options and prints one JSON
line per job, {"ptx": ...} or {"error": ...}. A crash of the library ends the process; the
caller knows which job it was and starts again after it.

As a person runs it: `python3 nvvm.py -arch=compute_75 -ftz=1 f.ll -o f.ptx` (options as
nvvmCompileProgram takes them; `-o -` or no `-o`: standard output)."""
import ctypes
import glob
import json
import os
import re
import sys


def library():
    """The wheel's libnvvm.so.4 on sys.path (nvidia/cu13/lib), loaded for cuda.bindings."""
    for entry in sys.path:
        found = sorted(glob.glob(os.path.join(entry or ".", "nvidia", "cu*", "lib", "libnvvm.so.*")))
        if found:
            ctypes.CDLL(found[-1], mode=ctypes.RTLD_GLOBAL)
            return found[-1]
    sys.exit("no nvidia/cu*/lib/libnvvm.so.* on the Python path: `cargo xtask setup` installs the CUDA wheel")


PATH = library()
from cuda.bindings import nvvm  # noqa: E402 (the library must be loaded first)


def log(program):
    """libNVVM's message for a failed compile, on one line."""
    size = nvvm.get_program_log_size(program)
    buf = bytearray(size)
    nvvm.get_program_log(program, buf)
    text = buf.decode(errors="replace").rstrip("\0").strip()
    return " ".join(l.strip() for l in text.splitlines() if l.strip()) or "no message"


# What libNVVM's frontends write where its LLVM 7 parser meets a newer construct.
NEWER = {
    "bfloat": "LLVM 11 added the type; below sm_100 libNVVM knows no LLVM bf16 intrinsic either "
    "(llvm.nvvm.fma.rn.bf16, f2bf16.rn, ff2bf16x2.rn compile to calls of external functions): "
    "CUDA's cuda_bf16.hpp writes bf16 arithmetic as inline PTX asm, which semfuzz's IR reader "
    "does not read yet",
    "fneg": "LLVM 8 added the instruction",
}


def unparsed(text, message):
    """A parse error as a located `unsupported` naming the word libNVVM stopped at
    (`f.ll (4, 7): parse expected type` -> `unsupported bfloat at f.ll:4:7: ...`), or None."""
    found = re.search(r"\((\d+), (\d+)\): (parse .*)", message)
    if not found:
        return None
    # libNVVM counts lines from 1 and columns from 0.
    line, col = int(found.group(1)), int(found.group(2))
    lines = text.splitlines()
    row = lines[line - 1] if 0 < line <= len(lines) else ""
    word = re.match(r"[@%]?[\w.]*", row[col:]).group(0) or row[col : col + 1]
    why = NEWER.get(word, "libNVVM reads LLVM 7 IR at this target")
    return f"unsupported {word} at f.ll:{line}:{col + 1}: libNVVM: {found.group(3).strip()} ({why})"


def compile_ir(text, options):
    """The PTX of `text` under `options`, or raises with libNVVM's message."""
    program = nvvm.create_program()
    try:
        data = text.encode()
        nvvm.add_module_to_program(program, data, len(data), "f.ll")
        try:
            nvvm.compile_program(program, len(options), [o.encode() for o in options])
        except nvvm.nvvmError as e:
            raise RuntimeError(unparsed(text, log(program)) or f"{e}: {log(program)}") from None
        size = nvvm.get_compiled_result_size(program)
        buf = bytearray(size)
        nvvm.get_compiled_result(program, buf)
        ptx = buf.decode().rstrip("\0")
    finally:
        nvvm.destroy_program(program)
    # An intrinsic the library's LLVM does not know is compiled as a call of an external
    # function of that name: no PTX instruction computes it.
    unknown = re.findall(r"\.extern \.func[^;]*?\b(llvm\.[\w.]+)", ptx)
    if unknown:
        raise RuntimeError(
            f"libNVVM does not know the intrinsic {unknown[0]}: it emitted a call of an external function of that name"
        )
    return ptx


def head(datalayout):
    """The release and build the PTX banner of an empty module names, and the targets the
    library knows: the `compute_*` names in it whose LLVM version nvvmLLVMVersion answers."""
    banner = compile_ir(
        f'target datalayout = "{datalayout}"\ntarget triple = "nvptx64-nvidia-cuda"\n'
        "!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0}\n",
        [],
    )
    release = re.search(r"release ([0-9.]+), V([0-9.]+)", banner)
    with open(PATH, "rb") as f:
        names = sorted(set(re.findall(rb"compute_[0-9]+[af]?(?![0-9A-Za-z_])", f.read())))
    llvm = {}
    for name in names:
        arch = name.decode()
        try:
            llvm["sm_" + arch[len("compute_"):]] = nvvm.llvm_version(arch)
        except nvvm.nvvmError:
            pass
    order = lambda sm: (int(re.match(r"sm_([0-9]+)", sm).group(1)), sm)
    return {
        "release": release.group(1) if release else "?",
        "version": release.group(2) if release else "?",
        "targets": sorted(llvm, key=order),
        "llvm": llvm,
    }


def main():
    if len(sys.argv) > 1:
        args, out = sys.argv[1:], "-"
        if "-o" in args:
            i = args.index("-o")
            out = args[i + 1]
            del args[i : i + 2]
        files = [a for a in args if not a.startswith("-")]
        options = [a for a in args if a.startswith("-")]
        if len(files) != 1:
            sys.exit("usage: nvvm.py [-arch=compute_XX -ftz=0|1 ...] FILE.ll [-o FILE.ptx]")
        with open(files[0]) as f:
            ptx = compile_ir(f.read(), options)
        if out == "-":
            sys.stdout.write(ptx)
        else:
            with open(out, "w") as f:
                f.write(ptx)
        return
    req = json.load(sys.stdin)
    info = head(req["datalayout"])
    print(json.dumps(info), flush=True)
    for sm, name, text, options in req["jobs"]:
        if sm not in info["llvm"]:
            res = {"error": f"libNVVM {info['release']} does not know {sm} (it knows {', '.join(info['targets'])})"}
        else:
            try:
                res = {"ptx": compile_ir(text, ["-arch=compute_" + sm[len("sm_"):]] + options)}
            except Exception as e:  # a module libNVVM refuses is that module's verdict
                res = {"error": str(e).strip() or repr(e)}
        print(json.dumps(res), flush=True)


main()
