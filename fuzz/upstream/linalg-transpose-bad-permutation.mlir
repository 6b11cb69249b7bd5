func.func @f(%a: tensor<32x128xbf16>, %b: tensor<128x32xbf16>) -> tensor<128x32xbf16> {
  %t = linalg.transpose ins(%a : tensor<32x128xbf16>) outs(%b : tensor<128x32xbf16>) permutation = [x, 0]
  return %t : tensor<128x32xbf16>
}
