; Calls of functions the module only declares: each call's result is whatever the callee
; returns (an input, `@callee#N`) and its arguments are results (`@callee#N(arg K)`), so the
; PTX must make the same calls with the same arguments (docs/ambiguities.md 178).
; RUN: llc < %s -mtriple=nvptx64 -mcpu=sm_80 | FileCheck %s
declare half @test_callee(half %a, half %b)
declare float @g(float)

define half @test_call_flipped(half %a, half %b) {
  %r = call half @test_callee(half %b, half %a)
  ret half %r
}

define float @twice(float %a) {
  %x = call float @g(float %a)
  %s = fadd float %x, 1.0
  %y = call float @g(float %s)
  ret float %y
}
