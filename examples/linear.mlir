// A linear layer Y = X W^T in linalg, the weight marked as such: the
// smallest input of the recipe (README, docs/python.md).
//
//   PYTHONPATH=build/python_packages python3 -c '
//   import nvfp4, numpy as np
//   f = nvfp4.compile("examples/linear.mlir", recipe=True)
//   print(f(np.ones((64, 64)), np.ones((64, 64)))[0, :4])'

func.func @main(%x: tensor<64x64xf32>,
                %w: tensor<64x64xf32> {nvfp4.kind = "weight"})
    -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>)
      -> tensor<64x64xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>)
      outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
