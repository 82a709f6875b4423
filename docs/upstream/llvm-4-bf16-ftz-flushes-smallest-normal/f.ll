define bfloat @f(bfloat %a, bfloat %b) #0 {
  %r = fmul bfloat %a, %b
  ret bfloat %r
}

attributes #0 = { denormal_fpenv(preservesign) }
