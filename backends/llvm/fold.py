"""The `llvm` backend's driver: LLVM's constant folder through llvmlite, used like `opt`.

    python3 fold.py            reads an LLVM IR module on stdin, runs the new pass manager's
                               `instcombine` over it with the module's target (NVPTX, so NVPTX's
                               own combines of NVVM intrinsics run too), prints the module on stdout
    python3 fold.py --version  prints llvmlite's LLVM version, e.g. `22.1.0`

semfuzz-llvm embeds this file and runs it with PYTHONPATH pointing at `.deps/py`
(`cargo xtask setup` installs llvmlite there). Errors go to stderr with exit status 1.
"""

import sys

try:
    import llvmlite.binding as llvm
except ImportError as error:
    sys.exit(f"cannot import llvmlite ({error}): run `cargo xtask setup`")


def main():
    if sys.argv[1:] == ["--version"]:
        print(".".join(str(part) for part in llvm.llvm_version_info))
        return
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    try:
        module = llvm.parse_assembly(sys.stdin.read())
        module.verify()
    except RuntimeError as error:
        sys.exit(str(error))
    target = llvm.Target.from_triple(module.triple)
    machine = target.create_target_machine()
    builder = llvm.create_pass_builder(machine, llvm.PipelineTuningOptions())
    passes = llvm.create_new_module_pass_manager()
    passes.add_instruction_combine_pass()
    passes.run(module, builder)
    sys.stdout.write(str(module))


main()
