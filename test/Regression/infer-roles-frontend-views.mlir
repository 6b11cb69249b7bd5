// RUN: nvfp4-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles))' | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --nvfp4-recipe | FileCheck %s --check-prefix=RECIPE

// Training steps as JAX exports them and IREE's StableHLO input conversion
// lowers them (test/ThirdParty/jax-*.mlir): transposes are linalg.generic
// copies with a permuted input map, not linalg.transpose, and with a batch
// dimension the linear layers flatten [b, t, h] to [b*t, h] with
// tensor.collapse_shape, the weight gradients [b, t, h] -> [h, b, t] ->
// [h, b*t]. Before role inference looked through these views, x (the B
// operand of the wgrad dW^T = dY^T x behind a generic transpose) was taken
// for a weight ("both operands are weights" on the fprop, the wgrad became
// an fprop in FP4), and with a batch dimension every wgrad was "a
// contraction of two activations" kept in high precision.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func @generic_transposes
func.func @generic_transposes(%x: tensor<32x32xf32>, %w: tensor<32x64xf32>)
    -> (tensor<32x32xf32>, tensor<32x64xf32>) {
  %c2 = arith.constant 2.0 : f32
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
  %y = linalg.matmul ins(%x, %w : tensor<32x32xf32>, tensor<32x64xf32>)
                     outs(%f0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // d(sum y^2)/dy = 2y: the gradient, computed from the forward pass.
  %dy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x64xf32>) outs(%e0 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<32x64xf32>
  // dX = dY W^T, W^T a generic transpose.
  %e1 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<32x64xf32>) outs(%e1 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"
  %dx = linalg.matmul ins(%dy, %wt : tensor<32x64xf32>, tensor<64x32xf32>)
                      outs(%f2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // dW^T = dY^T X, then transposed back to W's layout.
  %dyt = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dy : tensor<32x64xf32>) outs(%e1 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"
  %dwt = linalg.matmul ins(%dyt, %x : tensor<64x32xf32>, tensor<32x32xf32>)
                       outs(%f1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %dw = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dwt : tensor<64x32xf32>) outs(%e0 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x64xf32>
  return %dx, %dw : tensor<32x32xf32>, tensor<32x64xf32>
}

// The recipe: W is quantized once (16x16) and its transpose reused exactly
// by the dgrad; the wgrad quantizes with RHT, the gradient with SR.
// RECIPE-LABEL: func @generic_transposes
// RECIPE: %[[W:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
// RECIPE: %[[WT:.*]] = nvfp4.transpose %[[W]]
// RECIPE: nvfp4.matmul {{.*}}, %[[WT]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// RECIPE: nvfp4.matmul {{.*}}, %[[W]] {nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"}
// RECIPE: nvfp4.quantize {{.*}} rounding rs offset {{[0-9]+}} hadamard
// RECIPE: nvfp4.matmul {{.*}} {nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"}
// RECIPE-NOT: linalg.matmul

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rot = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func @batched_views
func.func @batched_views(%x: tensor<2x16x32xf32>, %w: tensor<32x64xf32>)
    -> (tensor<32x32xf32>, tensor<64x32xf32>) {
  %c2 = arith.constant 2.0 : f32
  %z = arith.constant 0.0 : f32
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x32xf32> into tensor<32x32xf32>
  %e0 = tensor.empty() : tensor<32x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
  %y = linalg.matmul ins(%xc, %w : tensor<32x32xf32>, tensor<32x64xf32>)
                     outs(%f0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y3 = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 16, 64] : tensor<32x64xf32> into tensor<2x16x64xf32>
  %e3 = tensor.empty() : tensor<2x16x64xf32>
  %dy = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y3 : tensor<2x16x64xf32>) outs(%e3 : tensor<2x16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<2x16x64xf32>
  // dX = flatten(dY) W^T.
  %dyc = tensor.collapse_shape %dy [[0, 1], [2]] : tensor<2x16x64xf32> into tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<32x64xf32>) outs(%e1 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"
  %dx = linalg.matmul ins(%dyc, %wt : tensor<32x64xf32>, tensor<64x32xf32>)
                      outs(%f2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // dW^T = [h, b*t] x [b*t, h'], the lhs rotated and flattened.
  %er = tensor.empty() : tensor<64x2x16xf32>
  %dyr = linalg.generic {indexing_maps = [#rot, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%dy : tensor<2x16x64xf32>) outs(%er : tensor<64x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<64x2x16xf32>
  %dyrc = tensor.collapse_shape %dyr [[0], [1, 2]] : tensor<64x2x16xf32> into tensor<64x32xf32>
  %xc2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x32xf32> into tensor<32x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"
  %dwt = linalg.matmul ins(%dyrc, %xc2 : tensor<64x32xf32>, tensor<32x32xf32>)
                       outs(%f1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %dx, %dwt : tensor<32x32xf32>, tensor<64x32xf32>
}

// RECIPE-LABEL: func @batched_views
// RECIPE: nvfp4.matmul {{.*}} {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// RECIPE: nvfp4.matmul {{.*}} {nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"}
// RECIPE: nvfp4.quantize {{.*}} rounding rs offset {{[0-9]+}} hadamard
// RECIPE: nvfp4.matmul {{.*}} {nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"}
// RECIPE-NOT: linalg.matmul

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#rev = affine_map<(d0, d1, d2) -> (d2, d1, d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// Views that are not looked through: a flattened rank-3 argument used as
// the B operand is data, not a weight; a collapse after another permutation
// than the rotation is not the transpose of a flattened tensor; a generic
// that computes is not a transpose.
// CHECK-LABEL: func @not_views
// RECIPE-LABEL: func @not_views
func.func @not_views(%a: tensor<32x16xf32>, %d: tensor<2x8x16xf32>,
                     %e: tensor<16x2x8xf32>, %v: tensor<32x16xf32>,
                     %w: tensor<32x16xf32>)
    -> (tensor<32x16xf32>, tensor<8x16xf32>, tensor<32x32xf32>) {
  %z = arith.constant 0.0 : f32
  %dc = tensor.collapse_shape %d [[0, 1], [2]] : tensor<2x8x16xf32> into tensor<16x16xf32>
  %e0 = tensor.empty() : tensor<32x16xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<32x16xf32>) -> tensor<32x16xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "activation"]
  %r0 = linalg.matmul ins(%a, %dc : tensor<32x16xf32>, tensor<16x16xf32>)
                      outs(%f0 : tensor<32x16xf32>) -> tensor<32x16xf32>
  // [16, 2, 8] -> [8, 2, 16] -> [8, 32]: the lhs is not contracted over a
  // token dimension, so %v, its B operand, is a weight.
  %ep = tensor.empty() : tensor<8x2x16xf32>
  %p = linalg.generic {indexing_maps = [#rev, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e : tensor<16x2x8xf32>) outs(%ep : tensor<8x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x2x16xf32>
  %pc = tensor.collapse_shape %p [[0], [1, 2]] : tensor<8x2x16xf32> into tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"]
  %r1 = linalg.matmul ins(%pc, %v : tensor<8x32xf32>, tensor<32x16xf32>)
                      outs(%f1 : tensor<8x16xf32>) -> tensor<8x16xf32>
  // A negating generic is not a transpose: %w is not the B operand.
  %es = tensor.empty() : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<32x16xf32>) outs(%es : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "activation"]
  %r2 = linalg.matmul ins(%a, %s : tensor<32x16xf32>, tensor<16x32xf32>)
                      outs(%f2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r0, %r1, %r2 : tensor<32x16xf32>, tensor<8x16xf32>, tensor<32x32xf32>
}
