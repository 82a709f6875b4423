; extractelement and insertelement at a variable lane (LangRef: an index past the vector is
; poison). LLVM 22 reads @pick's lane through the parameter's address at a variable offset.
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 | FileCheck %s
define half @pick(<2 x half> %a, i64 %idx) {
  %e = extractelement <2 x half> %a, i64 %idx
  ret half %e
}

define <4 x i8> @put8(<4 x i8> %a, i8 %x, i32 %idx) {
  %e = insertelement <4 x i8> %a, i8 %x, i32 %idx
  ret <4 x i8> %e
}
