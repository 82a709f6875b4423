; LLVM's memory intrinsics with a constant length (docs/llc-validation.md, "Memory"):
; `llvm.memcpy`, `llvm.memmove` and `llvm.memset` read byte by byte, each byte's poison
; carried. mem-intrinsics.ptx is llc 22's output at sm_80 with hand-broken twins,
; mem-intrinsics.rules the refinements.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) noalias nocapture writeonly, ptr addrspace(1) noalias nocapture readonly, i64, i1 immarg)
declare void @llvm.memmove.p1.p1.i64(ptr addrspace(1) nocapture writeonly, ptr addrspace(1) nocapture readonly, i64, i1 immarg)
declare void @llvm.memset.p1.i64(ptr addrspace(1) nocapture writeonly, i8, i64, i1 immarg)

define void @copy16(ptr addrspace(1) %d, ptr addrspace(1) %s) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 4 %d, ptr addrspace(1) align 4 %s, i64 16, i1 false)
  ret void
}

define void @copy5_unaligned(ptr addrspace(1) %d, ptr addrspace(1) %s) {
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %d, ptr addrspace(1) %s, i64 5, i1 false)
  ret void
}

define void @move8(ptr addrspace(1) %d, ptr addrspace(1) %s) {
  call void @llvm.memmove.p1.p1.i64(ptr addrspace(1) align 8 %d, ptr addrspace(1) align 8 %s, i64 8, i1 false)
  ret void
}

define void @fill12(ptr addrspace(1) %d, i8 %v) {
  call void @llvm.memset.p1.i64(ptr addrspace(1) align 4 %d, i8 %v, i64 12, i1 false)
  ret void
}

define void @fill_poison(ptr addrspace(1) %d) {
  call void @llvm.memset.p1.i64(ptr addrspace(1) align 4 %d, i8 poison, i64 4, i1 false)
  ret void
}
