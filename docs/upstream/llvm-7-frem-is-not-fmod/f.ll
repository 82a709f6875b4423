define float @f(float %a, float %b) {
  %r = frem float %a, %b
  ret float %r
}
