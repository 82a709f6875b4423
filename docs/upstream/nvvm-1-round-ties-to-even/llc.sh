#!/bin/sh
# libNVVM 13.5 (CUDA 13.5.37) through semfuzz's driver nvvm.py (beside this script), with the CUDA wheel's libNVVM and cuda-bindings on PYTHONPATH
python3 nvvm.py -arch=compute_75 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 f.ll -o f.ptx
