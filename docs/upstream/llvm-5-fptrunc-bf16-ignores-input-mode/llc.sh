#!/bin/sh
# the llc of llvm-project at b010a18d2b648cab83c83967ff26b8fde11acdc6 (LLVM 24.0.0git); semfuzz compiled with triton (LLVM 24.0.0git (b010a18)), which bundles it; LLC=path/to/llc ./llc.sh names it
# or, with the wheel semfuzz ran:
# python3 -c "from triton._C.libtriton import llvm; llvm.init_targets(); print(llvm.translate_to_asm(open('f.ll').read(), 'nvptx64-nvidia-cuda', 'sm_70', '', [], False, False, False))" > f.ptx
${LLC:-llc} -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_70 f.ll -o f.ptx
