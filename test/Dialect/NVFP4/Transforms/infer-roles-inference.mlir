// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles{inference}))' | FileCheck %s --check-prefix=INFER
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles))' | FileCheck %s --check-prefix=TRAIN

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>

// Two layers sharing one weight (as ALBERT's do): in a training graph the
// second use depends on the first and reads as its dgrad; in an inference
// graph both are forward uses.
// INFER-LABEL: func.func @shared_weight
// INFER: linalg.matmul {{.*}}nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
// INFER: linalg.matmul {{.*}}nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
// TRAIN-LABEL: func.func @shared_weight
// TRAIN: linalg.matmul {{.*}}nvfp4.role = "fprop"
// TRAIN: linalg.matmul {{.*}}nvfp4.kind = ["gradient", "weight"]{{.*}}nvfp4.role = "dgrad"
func.func @shared_weight(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %h = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %w : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%h, %w : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// An argument whose name mentions a gradient is an ordinary input of a
// forward pass.
// INFER-LABEL: func.func @named_grad
// INFER: linalg.matmul {{.*}}nvfp4.kind = ["activation", "weight"]{{.*}}nvfp4.role = "fprop"
// TRAIN-LABEL: func.func @named_grad
// TRAIN: linalg.matmul {{.*}}nvfp4.kind = ["gradient", "weight"]{{.*}}nvfp4.role = "dgrad"
func.func @named_grad(%x: tensor<64x128xf32> loc("grad_scaled_input"), %w: tensor<256x128xf32>) -> tensor<64x256xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %w : tensor<64x128xf32>, tensor<256x128xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
