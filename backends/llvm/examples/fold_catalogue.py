"""Writes the survey of docs/llc-fold.md: `cat.ll` (fadd fsub fmul fdiv fneg llvm.fma llvm.fabs
llvm.sqrt llvm.minnum llvm.maxnum llvm.minimum llvm.maximum on half, bfloat, float and double,
each without and with the preserve-sign denormal attributes) and `cat-sm_90.ptx`, the module
compiled by llvmlite's LLVM for sm_90 at -O2, for `examples/fold_codegen.rs`.

    PYTHONPATH=.deps/py python3 backends/llvm/examples/fold_catalogue.py DIR
"""
import os
import sys

import llvmlite.binding as llvm

TYPES = [("half", "f16"), ("bfloat", "bf16"), ("float", "f32"), ("double", "f64")]
OPS = [
    ("fadd", 2, "fadd T %a, %b"),
    ("fsub", 2, "fsub T %a, %b"),
    ("fmul", 2, "fmul T %a, %b"),
    ("fdiv", 2, "fdiv T %a, %b"),
    ("fneg", 1, "fneg T %a"),
    ("fma", 3, "call T @llvm.fma.S(T %a, T %b, T %c)"),
    ("fabs", 1, "call T @llvm.fabs.S(T %a)"),
    ("sqrt", 1, "call T @llvm.sqrt.S(T %a)"),
    ("minnum", 2, "call T @llvm.minnum.S(T %a, T %b)"),
    ("maxnum", 2, "call T @llvm.maxnum.S(T %a, T %b)"),
    ("minimum", 2, "call T @llvm.minimum.S(T %a, T %b)"),
    ("maximum", 2, "call T @llvm.maximum.S(T %a, T %b)"),
]
FTZ = ('attributes #0 = { "denormal-fp-math"="preserve-sign,preserve-sign" '
       '"denormal-fp-math-f32"="preserve-sign,preserve-sign" }\n')


def module():
    declarations, functions = set(), []
    for op, arity, body in OPS:
        for ty, tag in TYPES:
            for suffix, attrs in [("", ""), ("_ftz", " #0")]:
                params = ", ".join(f"{ty} %{p}" for p in "abc"[:arity])
                instr = body.replace(".S(", f".{tag}(").replace("T", ty)
                if "@" in instr:
                    callee = instr[instr.index("@"):instr.index("(")]
                    declarations.add(f"declare {ty} {callee}({', '.join([ty] * arity)})")
                functions.append(f"define {ty} @{op}_{tag}{suffix}({params}){attrs} {{\n"
                                 f"  %r = {instr}\n  ret {ty} %r\n}}\n")
    return ('target triple = "nvptx64-nvidia-cuda"\n\n' + "\n".join(sorted(declarations))
            + "\n\n" + "\n".join(functions) + "\n" + FTZ)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    text = module()
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu="sm_90", opt=2)
    parsed = llvm.parse_assembly(text)
    parsed.verify()
    with open(os.path.join(out, "cat.ll"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "cat-sm_90.ptx"), "w") as f:
        f.write(machine.emit_assembly(parsed))


main()
