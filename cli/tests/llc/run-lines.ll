; An NVPTX codegen test as LLVM writes them: `semfuzz validate-llc --run-lines` validates each
; function at each RUN line's configuration (the README's example).
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 | FileCheck %s
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 -denormal-fp-math-f32=preserve-sign | FileCheck %s
; RUN: %if ptxas %{ llc < %s -mtriple=nvptx64 -mcpu=sm_80 | %ptxas-verify -arch=sm_80 %}
; RUN: llc < %s -mtriple=nvptx -mcpu=sm_80 | FileCheck %s

define float @fneg(float %a) {
  %r = fneg float %a
  ret float %r
}

define float @fadd(float %a, float %b) {
  %r = fadd float %a, %b
  ret float %r
}
