# Summarizes the IR the recipe pipeline produces with a precision ladder,
# one fact a line, for FileCheck: the matmuls of each format, and where the
# NVFP4-only techniques (stochastic rounding of gradients, the Hadamard
# transform of wgrad operands) appear.
function formatOf(line) {
  if (line ~ /1x32, mxfp4>/) return "mxfp4"
  if (line ~ /1x32, mxfp8_e4m3>/) return "mxfp8_e4m3"
  if (line ~ /1x32, mxfp8_e5m2>/) return "mxfp8_e5m2"
  return "nvfp4"
}
/nvfp4\.quantize/ {
  f = formatOf($0)
  format[$1] = f
  if ($0 ~ /hadamard/) hadamard[$1] = 1
  isGrad = ($0 ~ /nvfp4\.kind = "gradient"/)
  isRS = ($0 ~ /rounding rs/)
  if (f != "nvfp4" && (isRS || $0 ~ /hadamard/)) mxTransformed++
  if (f == "nvfp4" && isGrad && !isRS) nvfp4GradientNotRS++
}
/nvfp4\.transpose/ { format[$1] = "nvfp4" }
/nvfp4\.matmul/ {
  lhs = $4; sub(",", "", lhs); rhs = $5
  matmuls[format[lhs]]++
  if (format[lhs] != format[rhs]) mixed++
  if (format[lhs] == "nvfp4" && $0 ~ /nvfp4\.role = "wgrad"/ &&
      !((lhs in hadamard) && (rhs in hadamard)))
    nvfp4WgradWithoutHadamard++
}
END {
  print "matmuls nvfp4", matmuls["nvfp4"] + 0, "mxfp4", matmuls["mxfp4"] + 0,
        "mxfp8_e4m3", matmuls["mxfp8_e4m3"] + 0,
        "mxfp8_e5m2", matmuls["mxfp8_e5m2"] + 0
  print "mixed-format-matmuls", mixed + 0
  print "mx-rs-or-hadamard", mxTransformed + 0
  print "nvfp4-gradient-not-rs", nvfp4GradientNotRS + 0
  print "nvfp4-wgrad-without-hadamard", nvfp4WgradWithoutHadamard + 0
}
