; Functions that read and write memory through pointer parameters (docs/llc-validation.md,
; "Memory"); memory.ptx is llc 22's output at sm_80 with hand-broken twins, memory.rules the
; refinements.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @load_add_store(ptr addrspace(1) %a, ptr addrspace(1) %c, float %x) {
  %v = load float, ptr addrspace(1) %a, align 4
  %s = fadd float %v, %x
  store float %s, ptr addrspace(1) %c, align 4
  ret void
}

define i32 @computed_index(ptr %a, i32 %i) {
  %j = and i32 %i, 3
  %idx = sext i32 %j to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %idx
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

define <2 x float> @vector_load(ptr addrspace(1) %a) {
  %v = load <2 x float>, ptr addrspace(1) %a, align 8
  ret <2 x float> %v
}

define void @store_only(ptr %a, i32 %x) {
  %p = getelementptr inbounds i8, ptr %a, i64 4
  store i32 %x, ptr %p, align 4
  ret void
}

define void @store_if_positive(ptr addrspace(1) %a, i32 %x) {
  %c = icmp sgt i32 %x, 0
  br i1 %c, label %s, label %e
s:
  store i32 %x, ptr addrspace(1) %a, align 4
  br label %e
e:
  ret void
}

; LangRef "Poison Values", Alive2's byte model: a stored poison makes those bytes poison.
define void @store_poison(ptr %a) {
  store i32 poison, ptr %a, align 4
  ret void
}

; A load that reads a poison byte is poison.
define i32 @load_partly_poison(ptr %a) {
  store i8 poison, ptr %a, align 1
  %v = load i32, ptr %a, align 4
  ret i32 %v
}

; The same load beside the poison byte is not.
define i32 @load_beside_poison(ptr %a) {
  %p = getelementptr inbounds i8, ptr %a, i64 4
  store i8 poison, ptr %p, align 1
  %v = load i32, ptr %a, align 4
  ret i32 %v
}

; A load before the block's start is undefined behaviour (an access at a known offset past
; its end grows the block instead: `load_far` below).
define i32 @load_out_of_bounds(ptr %a) {
  %p = getelementptr inbounds i8, ptr %a, i64 -4
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; LangRef 'ptrtoint'/'inttoptr': a pointer as an integer and back; the block is the one the
; integer was computed from.
define i32 @load_past_an_integer_offset(ptr addrspace(1) %p) {
  %i = ptrtoint ptr addrspace(1) %p to i64
  %j = add i64 %i, 4
  %q = inttoptr i64 %j to ptr addrspace(1)
  %v = load i32, ptr addrspace(1) %q, align 4
  ret i32 %v
}

define i32 @low_address_bits(ptr %p) {
  %i = ptrtoint ptr %p to i32
  %m = and i32 %i, 15
  ret i32 %m
}

; An access at a known offset past the 16 bytes a pointer argument's block starts with: the
; block grows to hold it (48 bytes here), or the IR would be out of bounds at every input and a
; proof would say nothing.
define i32 @load_far(ptr %p) {
  %q = getelementptr inbounds i32, ptr %p, i64 10
  %v = load i32, ptr %q, align 4
  ret i32 %v
}

; `dereferenceable(32)`: LLVM may load anywhere in the first 32 bytes though the IR does not
; (a load hoisted out of a branch), so the blocks hold 32 bytes from the start.
define i32 @load_promised(ptr dereferenceable(32) %p) {
  %v = load i32, ptr %p, align 4
  ret i32 %v
}

; The same without the promise.
define i32 @load_unpromised(ptr %p) {
  %v = load i32, ptr %p, align 4
  ret i32 %v
}
