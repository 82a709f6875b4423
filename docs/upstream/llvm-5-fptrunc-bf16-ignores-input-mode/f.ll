define bfloat @f(float %a) #0 {
  %r = fptrunc float %a to bfloat
  ret bfloat %r
}

attributes #0 = { denormal_fpenv(preservesign) }
