# Summarizes the NVFP4 IR produced by the recipe pipeline, one fact a line,
# for FileCheck: how many NVFP4 matmuls, whether every weight is quantized
# once, and where Hadamard transforms and stochastic rounding appear.
/nvfp4\.quantize/ {
  if ($0 ~ /16x16>$/) { weights++; inputs[$4] = 1 }
  if ($0 ~ /hadamard/) hadamard[$1] = 1
  isGrad = ($0 ~ /nvfp4\.kind = "gradient"/)
  isRS = ($0 ~ /rounding rs/)
  if (isRS && !isGrad) rsNotGradient++
  if (isGrad && !isRS) gradientNotRS++
}
/nvfp4\.matmul/ {
  matmuls++
  lhs = $4; sub(",", "", lhs); rhs = $5
  wgrad = ($0 ~ /nvfp4\.role = "wgrad"/)
  if (!wgrad && ((lhs in hadamard) || (rhs in hadamard))) hadamardOutsideWgrad++
  if (wgrad && !((lhs in hadamard) && (rhs in hadamard))) wgradWithoutHadamard++
}
END {
  n = 0; for (i in inputs) n++
  print "nvfp4-matmuls", matmuls + 0
  print "weight-quantizes", weights + 0, "distinct-inputs", n
  print "hadamard-outside-wgrad", hadamardOutsideWgrad + 0
  print "wgrad-without-hadamard", wgradWithoutHadamard + 0
  print "rs-not-gradient", rsNotGradient + 0
  print "gradient-not-rs", gradientNotRS + 0
}
