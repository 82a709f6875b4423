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
