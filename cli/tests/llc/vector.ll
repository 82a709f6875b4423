; Two-lane LLVM IR vectors for `semfuzz validate-llc`'s tests: each lane's NaN is a choice of
; its own, so the refinement is posed lane by lane.
define <2 x float> @fadd_v2f32(<2 x float> %a, <2 x float> %b) {
  %r = fadd <2 x float> %a, %b
  ret <2 x float> %r
}

define <2 x bfloat> @fadd_v2bf16(<2 x bfloat> %a, <2 x bfloat> %b) {
  %r = fadd <2 x bfloat> %a, %b
  ret <2 x bfloat> %r
}
