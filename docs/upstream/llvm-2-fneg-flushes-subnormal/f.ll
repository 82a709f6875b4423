define float @f(float %a) #0 {
  %r = fneg float %a
  ret float %r
}

attributes #0 = { denormal_fpenv(preservesign) }
