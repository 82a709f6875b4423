; Triton's masked load as inline PTX asm (asm_load), the same load written as IR (ir_load), and
; the asm with its guard dropped by hand (unguarded_load).
define i32 @asm_load(ptr addrspace(1) %p, i1 %m) {
  %v = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.global.b32 { $0 }, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %p, i1 %m)
  ret i32 %v
}

define i32 @unguarded_load(ptr addrspace(1) %p, i1 %m) {
  %v = tail call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09ld.global.b32 { $0 }, [ $1 + 0 ];", "=r,l,b"(ptr addrspace(1) %p, i1 %m)
  ret i32 %v
}

define i32 @ir_load(ptr addrspace(1) %p, i1 %m) {
  br i1 %m, label %l, label %z
l:
  %v = load i32, ptr addrspace(1) %p, align 4
  ret i32 %v
z:
  ret i32 0
}

; A tied input (`0`: the input is in output 0's register) and an immediate (`n`).
define i32 @tied_increment(i32 %x) {
  %v = call i32 asm "add.s32 $0, $1, $2;", "=r,0,n"(i32 %x, i32 1)
  ret i32 %v
}

define i32 @ir_increment(i32 %x) {
  %v = add i32 %x, 1
  ret i32 %v
}
