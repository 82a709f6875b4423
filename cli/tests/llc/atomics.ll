; Atomics, one thread at a time (issue 28 item 6): llc's output for each is validated by
; cli/tests/llc.rs (atomics), and the twins in atomics.rules must be caught.
target triple = "nvptx64-nvidia-cuda"

define i32 @add_i32(ptr addrspace(1) %p, i32 %v) {
  %old = atomicrmw add ptr addrspace(1) %p, i32 %v monotonic, align 4
  ret i32 %old
}

define i32 @cas_i32(ptr addrspace(1) %p, i32 %cmp, i32 %new) {
  %r = cmpxchg ptr addrspace(1) %p, i32 %cmp, i32 %new seq_cst seq_cst, align 4
  %old = extractvalue { i32, i1 } %r, 0
  ret i32 %old
}

; FuzzX NVPTX #033: IEEE mode, so 0x1 + 0x1 must store 0x2; atom.global.add.f32 flushes.
define float @fadd_global(ptr addrspace(1) %p, float %v) {
  %old = atomicrmw fadd ptr addrspace(1) %p, float %v monotonic, align 4
  ret float %old
}

define float @fadd_shared(ptr addrspace(3) %p, float %v) {
  %old = atomicrmw fadd ptr addrspace(3) %p, float %v monotonic, align 4
  ret float %old
}

; A 16-bit exchange: LLVM writes a 32-bit CAS loop on the word holding it, whose address it
; rounds down (`and.b64 %rd1, %rd2, -4`).
define half @xchg_half(ptr addrspace(3) %p, half %v) {
  %old = atomicrmw xchg ptr addrspace(3) %p, half %v seq_cst, align 2
  ret half %old
}

define void @add_unused(ptr addrspace(1) %p, i32 %v) {
  %old = atomicrmw add ptr addrspace(1) %p, i32 %v monotonic, align 4
  ret void
}
