; Integer functions for `semfuzz validate-llc`: select, the bit-manipulation, overflow and
; saturation intrinsics, and pointers read as 64-bit addresses (docs/llvm-ir-spec.md).

define i32 @select_i32(i32 %x, i32 %a, i32 %b) {
  %c = icmp ugt i32 %x, %a
  %s = xor i32 %b, 5
  %r = select i1 %c, i32 %a, i32 %s
  ret i32 %r
}

define i64 @select_i64(i32 %x, i64 %a, i64 %b) {
  %c = icmp slt i32 %x, 7
  %u = add i64 %a, 1
  %r = select i1 %c, i64 %u, i64 %b
  ret i64 %r
}

; Both arms parameters: LLVM 22 selects the parameters' addresses and loads through the
; chosen one (`mov.b64 %rd1, p_param_2; selp.b64 ...; ld.param.b32 ... [%rd3]`).
define i32 @select_params_i32(i1 %c, i32 %a, i32 %b) {
  %r = select i1 %c, i32 %a, i32 %b
  ret i32 %r
}

define ptr @select_ptr(ptr %p, ptr %q) {
  %c = icmp ult ptr %p, %q
  %r = select i1 %c, ptr %p, ptr %q
  ret ptr %r
}

define i32 @ctpop_i32(i32 %a) {
  %r = call i32 @llvm.ctpop.i32(i32 %a)
  ret i32 %r
}

define i32 @bswap_i32(i32 %a) {
  %r = call i32 @llvm.bswap.i32(i32 %a)
  ret i32 %r
}

define i64 @bswap_i64(i64 %a) {
  %r = call i64 @llvm.bswap.i64(i64 %a)
  ret i64 %r
}

; The carry added back: both fields of the struct are read.
define i32 @uaddo_i32(i32 %a, i32 %b) {
  %s = call {i32, i1} @llvm.uadd.with.overflow.i32(i32 %a, i32 %b)
  %v = extractvalue {i32, i1} %s, 0
  %o = extractvalue {i32, i1} %s, 1
  %z = zext i1 %o to i32
  %r = add i32 %v, %z
  ret i32 %r
}

define i32 @smulo_i32(i32 %a, i32 %b) {
  %s = call {i32, i1} @llvm.smul.with.overflow.i32(i32 %a, i32 %b)
  %v = extractvalue {i32, i1} %s, 0
  %o = extractvalue {i32, i1} %s, 1
  %r = select i1 %o, i32 0, i32 %v
  ret i32 %r
}

define i32 @sadd_sat_i32(i32 %a, i32 %b) {
  %r = call i32 @llvm.sadd.sat.i32(i32 %a, i32 %b)
  ret i32 %r
}

define i32 @uadd_sat_i32(i32 %a, i32 %b) {
  %r = call i32 @llvm.uadd.sat.i32(i32 %a, i32 %b)
  ret i32 %r
}

define i32 @usub_sat_i32(i32 %a, i32 %b) {
  %r = call i32 @llvm.usub.sat.i32(i32 %a, i32 %b)
  ret i32 %r
}

define i32 @sshl_sat_i32(i32 %a, i32 %b) {
  %r = call i32 @llvm.sshl.sat.i32(i32 %a, i32 %b)
  ret i32 %r
}

define i32 @cttz_i32(i32 %a) {
  %r = call i32 @llvm.cttz.i32(i32 %a, i1 true)
  ret i32 %r
}

declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bswap.i32(i32)
declare i64 @llvm.bswap.i64(i64)
declare {i32, i1} @llvm.uadd.with.overflow.i32(i32, i32)
declare {i32, i1} @llvm.smul.with.overflow.i32(i32, i32)
declare i32 @llvm.sadd.sat.i32(i32, i32)
declare i32 @llvm.uadd.sat.i32(i32, i32)
declare i32 @llvm.usub.sat.i32(i32, i32)
declare i32 @llvm.sshl.sat.i32(i32, i32)
declare i32 @llvm.cttz.i32(i32, i1)
