; A kernel whose lane index relies on its launch: `and 63` is the identity on %tid.x when
; the CTA has 64 threads ("nvvm.reqntid"), which lane.ptx (hand-written) relies on.
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @lane(ptr addrspace(1) %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %t, 63
  %f = uitofp i32 %lane to float
  store float %f, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { "nvvm.reqntid"="64" }
