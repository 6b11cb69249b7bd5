func.func @f(%a: tensor<4xf32>, %i: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.broadcast ins(%a : tensor<4xf32>) outs(%i : tensor<4x8xf32>) dimensions = [x]
  return %r : tensor<4x8xf32>
}
