; Results and intrinsics as the PTX ABI passes them (issue 28, the shape gaps): a narrow
; result in a wider return parameter, compared on its low bits (docs/ambiguities.md 110), and
; a vector intrinsic whose name spells its overload another way, read per lane
; (docs/ambiguities.md 111). Each function is compiled by llc and its PTX validated against it.
target triple = "nvptx64-nvidia-cuda"

; An `i1` result: llc returns it in a `.b32`.
define i1 @less(half %a, half %b) {
  %c = fcmp olt half %a, %b
  ret i1 %c
}

; An `i8` result: llc returns it in a `.b32`, the upper bits anything.
define i8 @to_i8(float %x) {
  %r = fptosi float %x to i8
  ret i8 %r
}

; An `<2 x i1>` result: llc writes lane k to byte k of a one-byte `func_retval0`
; (docs/ambiguities.md 112).
define <2 x i1> @both_less(<2 x half> %a, <2 x half> %b) {
  %c = fcmp olt <2 x half> %a, %b
  ret <2 x i1> %c
}

; `@llvm.fma.f16x2` is `@llvm.fma.v2f16` to LLVM: the overload comes from the types.
define <2 x half> @fma_pair(<2 x half> %a, <2 x half> %b, <2 x half> %c) {
  %r = call <2 x half> @llvm.fma.f16x2(<2 x half> %a, <2 x half> %b, <2 x half> %c)
  ret <2 x half> %r
}

declare <2 x half> @llvm.fma.f16x2(<2 x half>, <2 x half>, <2 x half>)

; A select between two vector arguments: llc moves the parameters' addresses into registers,
; selects one and loads through it (docs/ambiguities.md 113).
define <2 x half> @pick(<2 x half> %a, <2 x half> %b, i1 %c) {
  %r = select i1 %c, <2 x half> %a, <2 x half> %b
  ret <2 x half> %r
}
