; IR whose results are poison or undefined on some inputs (LangRef "Poison Values", "Undefined
; Values", 'freeze', 'select', 'udiv'); poison.ptx holds PTX for each, right and wrong, and
; poison.rules the verdict each pair must get.

; NVPTX widens through the no-wrap flag on purpose: where `shl nsw` overflows the IR is poison.
define i64 @shl_nsw_sext(i32 %a) {
  %s = shl nsw i32 %a, 3
  %e = sext i32 %s to i64
  ret i64 %e
}

define i64 @mul_nsw_sext(i32 %a) {
  %s = mul nsw i32 %a, 12
  %e = sext i32 %s to i64
  ret i64 %e
}

; Without the flag the wrapped product is defined, and widening it is wrong.
define i64 @mul_sext(i32 %a) {
  %s = mul i32 %a, 12
  %e = sext i32 %s to i64
  ret i64 %e
}

; FuzzX NVPTX #002: poison for every x but 0 and 0xffff.
define i32 @shl15_nsw_sext(i16 %x) {
  %s = shl nsw i16 %x, 15
  %e = sext i16 %s to i32
  ret i32 %e
}

; A NaN sum under nnan is poison, always here; select takes poison from the chosen arm only.
define float @select_poison_arm(i1 %c, float %a, float %b) {
  %p = fadd nnan float %a, 0x7FF8000000000000
  %r = select i1 %c, float %p, float %b
  ret float %r
}

; freeze makes the poison one arbitrary value: x ^ x is 0.
define i32 @freeze_xor(i32 %a) {
  %p = shl i32 %a, 32
  %f = freeze i32 %p
  %r = xor i32 %f, %f
  ret i32 %r
}

; Division by zero is undefined behaviour, even where the quotient is not used.
define i32 @udiv_unused(i32 %a, i32 %b, i32 %c) {
  %q = udiv i32 %a, %b
  ret i32 %c
}

; FuzzX NVPTX #003: a shift by 64 or more is poison, but the select never returns it. LLVM 22
; drops the select and shifts by the amount's low 32 bits (`ld.param.b32`, `shl.b64`), which
; is wrong for amounts of 2^32 and more whose low bits are below 64.
define i64 @guarded_shl_i64(i64 %x, i64 %s) {
  %c = icmp ult i64 %s, 64
  %sh = shl i64 %x, %s
  %r = select i1 %c, i64 %sh, i64 0
  ret i64 %r
}

; The same on i32 is right: PTX's shl by 32 or more gives 0.
define i32 @guarded_shl_i32(i32 %x, i32 %s) {
  %c = icmp ult i32 %s, 32
  %sh = shl i32 %x, %s
  %r = select i1 %c, i32 %sh, i32 0
  ret i32 %r
}

; LangRef "Parameter Attributes", `noundef`: passing poison where the call site says noundef is
; undefined behaviour, though `@seven` never reads its argument.
define i32 @seven(i32 %x) {
  ret i32 7
}

define i32 @noundef_argument(i32 %a) {
  %s = shl nsw i32 %a, 3
  %r = call i32 @seven(i32 noundef %s)
  ret i32 %r
}

define i32 @unused_argument(i32 %a) {
  %s = shl nsw i32 %a, 3
  %r = call i32 @seven(i32 %s)
  ret i32 %r
}
