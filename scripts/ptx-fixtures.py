#!/usr/bin/env python3
"""Compiles a catalogue of LLVM IR floating-point functions to PTX with llvmlite's LLVM (the
NVPTX back end through its target machine, as `llc -O2` does) for every target semfuzz
validates, and collects every instruction form the output uses.

    PYTHONPATH=.deps/py python3 scripts/ptx-fixtures.py [--out ptx/fixtures]

Writes one module per target (`llvm22-sm_70.ptx`, ...) and `forms.txt`: each instruction form
(the opcode with its modifiers, then the operand shape: `r` register, `i` immediate, `m` memory,
`{n}` a vector of n) with the targets that use it and how often. The committed result is the
list the PTX reader and the specs must cover (ptx/tests/fixtures.rs checks that they do).
"""
import argparse
import collections
import pathlib
import re
import sys

import llvmlite
import llvmlite.binding as llvm

TARGETS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]

SCALARS = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64"}
VECTORS = {"<2 x half>": "v2f16", "<2 x bfloat>": "v2bf16", "<2 x float>": "v2f32"}
INTS = {"i16": "i16", "i32": "i32", "i64": "i64"}


def functions():
    """(name, IR text) for every function of the catalogue."""
    out = []

    def fn(name, ret, params, body):
        args = ", ".join(f"{t} %{n}" for n, t in params)
        out.append((name, f"define {ret} @{name}({args}) {{\n{body}\n}}\n"))

    types = dict(SCALARS)
    types.update(VECTORS)
    for ty, tag in types.items():
        for op in ["fadd", "fsub", "fmul", "fdiv"]:
            fn(f"{op}_{tag}", ty, [("a", ty), ("b", ty)], f"  %r = {op} {ty} %a, %b\n  ret {ty} %r")
        fn(f"fneg_{tag}", ty, [("a", ty)], f"  %r = fneg {ty} %a\n  ret {ty} %r")
        for intr, n in [("fma", 3), ("fmuladd", 3), ("fabs", 1), ("copysign", 2), ("minnum", 2),
                        ("maxnum", 2), ("minimum", 2), ("maximum", 2), ("sqrt", 1)]:
            mangled = f"llvm.{intr}.{llvm_suffix(ty)}"
            ps = [(c, ty) for c in "abc"[:n]]
            args = ", ".join(f"{ty} %{c}" for c in "abc"[:n])
            fn(f"{intr}_{tag}", ty, ps,
               f"  %r = call {ty} @{mangled}({args})\n  ret {ty} %r")
    for ty, tag in SCALARS.items():
        for pred in ["oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                     "ule", "une", "uno"]:
            fn(f"fcmp_{pred}_{tag}", ty, [("a", ty), ("b", ty)],
               f"  %c = fcmp {pred} {ty} %a, %b\n  %r = select i1 %c, {ty} %a, {ty} %b\n  ret {ty} %r")
        for intr in ["floor", "ceil", "trunc", "rint", "nearbyint", "roundeven"]:
            fn(f"{intr}_{tag}", ty, [("a", ty)],
               f"  %r = call {ty} @llvm.{intr}.{llvm_suffix(ty)}({ty} %a)\n  ret {ty} %r")
        for ity, itag in INTS.items():
            fn(f"fptosi_{tag}_{itag}", ity, [("a", ty)], f"  %r = fptosi {ty} %a to {ity}\n  ret {ity} %r")
            fn(f"fptoui_{tag}_{itag}", ity, [("a", ty)], f"  %r = fptoui {ty} %a to {ity}\n  ret {ity} %r")
            fn(f"sitofp_{itag}_{tag}", ty, [("a", ity)], f"  %r = sitofp {ity} %a to {ty}\n  ret {ty} %r")
            fn(f"uitofp_{itag}_{tag}", ty, [("a", ity)], f"  %r = uitofp {ity} %a to {ty}\n  ret {ty} %r")
        for oty, otag in SCALARS.items():
            if oty == ty:
                continue
            wider = list(SCALARS).index(oty) > list(SCALARS).index(ty) or (ty, oty) == ("bfloat", "half")
            if (ty, oty) in [("half", "bfloat"), ("bfloat", "half")]:
                continue  # neither fptrunc nor fpext: the formats do not nest
            cast = "fpext" if wider else "fptrunc"
            fn(f"{cast}_{tag}_{otag}", oty, [("a", ty)], f"  %r = {cast} {ty} %a to {oty}\n  ret {oty} %r")
    for ty, ity in [("half", "i16"), ("bfloat", "i16"), ("float", "i32"), ("double", "i64")]:
        tag = SCALARS[ty]
        fn(f"bitcast_{tag}", ity, [("a", ty)], f"  %r = bitcast {ty} %a to {ity}\n  ret {ity} %r")
        fn(f"bitcast_to_{tag}", ty, [("a", ity)], f"  %r = bitcast {ity} %a to {ty}\n  ret {ty} %r")
    return out


def llvm_suffix(ty):
    return {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64",
            "<2 x half>": "v2f16", "<2 x bfloat>": "v2bf16", "<2 x float>": "v2f32"}[ty]


def declarations(body):
    """The `declare`s for the intrinsics a module body calls."""
    decls = set()
    for m in re.finditer(r"call (\S+(?: x \S+>)?) @(llvm\.[\w.]+)\(([^)]*)\)", body):
        ret, name, args = m.groups()
        types = ", ".join(a.rsplit(" ", 1)[0] for a in args.split(", "))
        decls.add(f"declare {ret} @{name}({types})")
    return "\n".join(sorted(decls))


INSTR = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.:]*)\s*(.*?);\s*$")


def shape(operands):
    """`r`, `i`, `m` and `{n}` per operand."""
    parts = []
    depth, cur = 0, ""
    for ch in operands:
        if ch in "{[":
            depth += 1
        if ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    out = []
    for p in parts:
        if p.startswith("{"):
            out.append("{%d}" % len(p.split(",")))
        elif p.startswith("["):
            out.append("m")
        elif p.startswith("%") or p.startswith("!%") or "|" in p:
            out.append("r")
        else:
            out.append("i")
    return " ".join(out)


def forms(ptx):
    for line in ptx.splitlines():
        line = line.split("//")[0]
        if not line.strip() or line.strip().startswith(".") or line.strip().endswith(":"):
            continue
        m = INSTR.match(line)
        if m and m.group(2) not in ("ret",):
            guard = "@p " if m.group(1) else ""
            yield f"{guard}{m.group(2)} {shape(m.group(3))}".strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="ptx/fixtures", help="directory for the modules and forms.txt")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    version = llvm.llvm_version_info[0]
    fns = functions()
    seen = collections.defaultdict(lambda: collections.Counter())
    failed = []
    for sm in TARGETS:
        tm = target.create_target_machine(cpu=sm, opt=2)
        chunks = []
        for name, text in fns:
            src = 'target triple = "nvptx64-nvidia-cuda"\n' + text + declarations(text) + "\n"
            try:
                mod = llvm.parse_assembly(src)
                mod.verify()
                ptx = tm.emit_assembly(mod)
            except Exception as e:  # an IR the back end cannot select is recorded, not fatal
                failed.append(f"{sm} {name}: {str(e).splitlines()[0]}")
                continue
            body = ptx[ptx.index(".visible"):] if ".visible" in ptx else ptx
            header = ptx[: ptx.index(".visible")] if not chunks and ".visible" in ptx else ""
            chunks.append(header + body)
            for f in forms(body):
                seen[f][sm] += 1
        (out / f"llvm{version}-{sm}.ptx").write_text("".join(chunks))
        print(f"{sm}: {len(chunks)} functions", file=sys.stderr)
    lines = [f"# PTX instruction forms LLVM {version} (llvmlite {llvmlite.__version__}) writes for "
             f"scripts/ptx-fixtures.py's {len(fns)} functions; made by that script.",
             "# form (operand shape: r register, i immediate, m memory, {n} vector)  targets  count"]
    for f in sorted(seen):
        c = seen[f]
        lines.append(f"{f}\t{','.join(sm for sm in TARGETS if sm in c)}\t{sum(c.values())}")
    (out / "forms.txt").write_text("\n".join(lines) + "\n")
    if failed:
        (out / "not-compiled.txt").write_text("\n".join(failed) + "\n")
    print(f"{len(seen)} forms, {len(failed)} functions the back end refused", file=sys.stderr)


if __name__ == "__main__":
    main()
