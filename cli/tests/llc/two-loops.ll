; A function of about 200 PTX instructions with two loops (issue 28's benchmark):
; each body mixes 48 integer operations (xor, mul, lshr, add); n and m are the trip counts.
define i32 @two_loops(i32 %x, i32 %n, i32 %m) {
entry:
  br label %l1
l1:
  %i = phi i32 [ 0, %entry ], [ %i.next, %l1 ]
  %h = phi i32 [ %x, %entry ], [ %pd, %l1 ]
  %p0a = xor i32 %h, %i
  %p0b = mul i32 %p0a, 506952114
  %p0c = lshr i32 %p0b, 7
  %p0d = add i32 %p0c, %p0a
  %p1a = xor i32 %p0d, %i
  %p1b = mul i32 %p1a, 506952116
  %p1c = lshr i32 %p1b, 8
  %p1d = add i32 %p1c, %p1a
  %p2a = xor i32 %p1d, %i
  %p2b = mul i32 %p2a, 506952118
  %p2c = lshr i32 %p2b, 9
  %p2d = add i32 %p2c, %p2a
  %p3a = xor i32 %p2d, %i
  %p3b = mul i32 %p3a, 506952120
  %p3c = lshr i32 %p3b, 10
  %p3d = add i32 %p3c, %p3a
  %p4a = xor i32 %p3d, %i
  %p4b = mul i32 %p4a, 506952122
  %p4c = lshr i32 %p4b, 11
  %p4d = add i32 %p4c, %p4a
  %p5a = xor i32 %p4d, %i
  %p5b = mul i32 %p5a, 506952124
  %p5c = lshr i32 %p5b, 7
  %p5d = add i32 %p5c, %p5a
  %p6a = xor i32 %p5d, %i
  %p6b = mul i32 %p6a, 506952126
  %p6c = lshr i32 %p6b, 8
  %p6d = add i32 %p6c, %p6a
  %p7a = xor i32 %p6d, %i
  %p7b = mul i32 %p7a, 506952128
  %p7c = lshr i32 %p7b, 9
  %p7d = add i32 %p7c, %p7a
  %p8a = xor i32 %p7d, %i
  %p8b = mul i32 %p8a, 506952130
  %p8c = lshr i32 %p8b, 10
  %p8d = add i32 %p8c, %p8a
  %p9a = xor i32 %p8d, %i
  %p9b = mul i32 %p9a, 506952132
  %p9c = lshr i32 %p9b, 11
  %p9d = add i32 %p9c, %p9a
  %p10a = xor i32 %p9d, %i
  %p10b = mul i32 %p10a, 506952134
  %p10c = lshr i32 %p10b, 7
  %p10d = add i32 %p10c, %p10a
  %p11a = xor i32 %p10d, %i
  %p11b = mul i32 %p11a, 506952136
  %p11c = lshr i32 %p11b, 8
  %p11d = add i32 %p11c, %p11a
  %pd = add i32 %p11d, 0
  %i.next = add i32 %i, 1
  %c1 = icmp slt i32 %i.next, %n
  br i1 %c1, label %l1, label %mid
mid:
  br label %l2
l2:
  %j = phi i32 [ 0, %mid ], [ %j.next, %l2 ]
  %g = phi i32 [ %pd, %mid ], [ %qd, %l2 ]
  %q0a = xor i32 %g, %j
  %q0b = mul i32 %q0a, 506952114
  %q0c = lshr i32 %q0b, 7
  %q0d = add i32 %q0c, %q0a
  %q1a = xor i32 %q0d, %j
  %q1b = mul i32 %q1a, 506952116
  %q1c = lshr i32 %q1b, 8
  %q1d = add i32 %q1c, %q1a
  %q2a = xor i32 %q1d, %j
  %q2b = mul i32 %q2a, 506952118
  %q2c = lshr i32 %q2b, 9
  %q2d = add i32 %q2c, %q2a
  %q3a = xor i32 %q2d, %j
  %q3b = mul i32 %q3a, 506952120
  %q3c = lshr i32 %q3b, 10
  %q3d = add i32 %q3c, %q3a
  %q4a = xor i32 %q3d, %j
  %q4b = mul i32 %q4a, 506952122
  %q4c = lshr i32 %q4b, 11
  %q4d = add i32 %q4c, %q4a
  %q5a = xor i32 %q4d, %j
  %q5b = mul i32 %q5a, 506952124
  %q5c = lshr i32 %q5b, 7
  %q5d = add i32 %q5c, %q5a
  %q6a = xor i32 %q5d, %j
  %q6b = mul i32 %q6a, 506952126
  %q6c = lshr i32 %q6b, 8
  %q6d = add i32 %q6c, %q6a
  %q7a = xor i32 %q6d, %j
  %q7b = mul i32 %q7a, 506952128
  %q7c = lshr i32 %q7b, 9
  %q7d = add i32 %q7c, %q7a
  %q8a = xor i32 %q7d, %j
  %q8b = mul i32 %q8a, 506952130
  %q8c = lshr i32 %q8b, 10
  %q8d = add i32 %q8c, %q8a
  %q9a = xor i32 %q8d, %j
  %q9b = mul i32 %q9a, 506952132
  %q9c = lshr i32 %q9b, 11
  %q9d = add i32 %q9c, %q9a
  %q10a = xor i32 %q9d, %j
  %q10b = mul i32 %q10a, 506952134
  %q10c = lshr i32 %q10b, 7
  %q10d = add i32 %q10c, %q10a
  %q11a = xor i32 %q10d, %j
  %q11b = mul i32 %q11a, 506952136
  %q11c = lshr i32 %q11b, 8
  %q11d = add i32 %q11c, %q11a
  %qd = add i32 %q11d, 0
  %j.next = add i32 %j, 1
  %c2 = icmp slt i32 %j.next, %m
  br i1 %c2, label %l2, label %done
done:
  ret i32 %qd
}
