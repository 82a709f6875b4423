; Control flow (issue 28, item 3): branches, phi, switch, loops, calls of the module's own
; functions. Each function is compiled by llc and its PTX validated against it.
target triple = "nvptx64-nvidia-cuda"

; x < 0 ? -x : x * 2, written with branches and a phi.
define float @diamond(float %x) {
entry:
  %neg = fcmp olt float %x, 0.000000e+00
  br i1 %neg, label %negative, label %positive

negative:
  %n = fneg float %x
  br label %join

positive:
  %d = fmul float %x, 2.000000e+00
  br label %join

join:
  %r = phi float [ %n, %negative ], [ %d, %positive ]
  ret float %r
}

; A switch over an integer picking one of four float operations.
define float @pick(i32 %k, float %a, float %b) {
entry:
  switch i32 %k, label %other [
    i32 0, label %add
    i32 1, label %sub
    i32 7, label %mul
  ]

add:
  %s = fadd float %a, %b
  br label %done

sub:
  %t = fsub float %a, %b
  br label %done

mul:
  %m = fmul float %a, %b
  br label %done

other:
  br label %done

done:
  %r = phi float [ %s, %add ], [ %t, %sub ], [ %m, %mul ], [ %b, %other ]
  ret float %r
}

; x added to itself n times (0 when n <= 0): a loop whose trip count is an argument.
define float @sum_n(float %x, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %exit

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi float [ 0.000000e+00, %entry ], [ %s.next, %loop ]
  %s.next = fadd float %s, %x
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %exit

exit:
  %r = phi float [ 0.000000e+00, %entry ], [ %s.next, %loop ]
  ret float %r
}

; Horner's rule four times over: a counted loop of 4.
define float @horner4(float %x, float %c) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 1.000000e+00, %entry ], [ %acc.next, %loop ]
  %p = fmul float %acc, %x
  %acc.next = fadd float %p, %c
  %i.next = add nuw nsw i32 %i, 1
  %more = icmp ult i32 %i.next, 4
  br i1 %more, label %loop, label %exit

exit:
  ret float %acc.next
}

; A function of the module, called: inlined by the reader.
define internal float @square_plus(float %x, float %c) noinline {
  %sq = fmul float %x, %x
  %r = fadd float %sq, %c
  ret float %r
}

define float @call_internal(float %a) {
  %r = call float @square_plus(float %a, float 1.000000e+00)
  %s = fmul float %r, 3.000000e+00
  ret float %s
}
