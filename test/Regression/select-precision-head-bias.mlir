// RUN: nvfp4-opt %s --split-input-file --nvfp4-recipe="summary" -o /dev/null 2>&1 | FileCheck %s

// The LM-head rule (docs/recipe.md, rule 7) keeps the projection whose
// forward result feeds a reduction (softmax, cross-entropy) in high
// precision. Imported classifiers put a bias add between the two: ONNX
// `Gemm` with a bias (AlexNet's fc8, test/ThirdParty/onnx-zoo-alexnet.mlir)
// adds a rank-1 tensor, JAX/IREE materialize the broadcast first
// (a linalg.generic broadcast, then a full-rank add). Before the rule looked
// through such bias adds, both heads were taken for ordinary layers (FP4).
// A residual add (a full-rank second operand) still stops the search, so a
// projection followed by a residual and a LayerNorm is not a head.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>

// CHECK: nvfp4 recipe: 1 of 2 contractions in FP4
// CHECK: onnx_bias 0 fprop 0 1x32x64x32 fp4 fprop of layer 0
// CHECK: onnx_bias 1 fprop 1 1x32x64x64 high LM head (forward result feeds a reduction)
func.func @onnx_bias(%x: tensor<32x32xf32>, %w1: tensor<32x64xf32>,
                     %w2: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x32xf32>, tensor<32x64xf32>)
                     outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %l = linalg.matmul ins(%h, %w2 : tensor<32x64xf32>, tensor<64x64xf32>)
                     outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %lb = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%l, %b : tensor<32x64xf32>, tensor<64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %er = tensor.empty() : tensor<32xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%lb : tensor<32x64xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %m : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#red = affine_map<(d0, d1) -> (d0)>

// CHECK: nvfp4 recipe: 1 of 2 contractions in FP4
// CHECK: jax_bias 0 fprop 0 1x32x64x32 fp4 fprop of layer 0
// CHECK: jax_bias 1 fprop 1 1x32x64x64 high LM head (forward result feeds a reduction)
func.func @jax_bias(%x: tensor<32x32xf32>, %w1: tensor<32x64xf32>,
                    %w2: tensor<64x64xf32>, %b: tensor<64xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x32xf32>, tensor<32x64xf32>)
                     outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %l = linalg.matmul ins(%h, %w2 : tensor<32x64xf32>, tensor<64x64xf32>)
                     outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %bb = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x64xf32>
  %lb = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%l, %bb : tensor<32x64xf32>, tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %er = tensor.empty() : tensor<32xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%lb : tensor<32x64xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %m : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

// A residual add, then a reduction (a norm): not a head.
// CHECK: nvfp4 recipe: 2 of 2 contractions in FP4
// CHECK: residual 0 fprop 0 1x32x32x32 fp4 fprop of layer 0
// CHECK: residual 1 fprop 0 1x32x32x32 fp4 fprop of layer 0
func.func @residual(%x: tensor<32x32xf32>, %w1: tensor<32x32xf32>,
                    %w2: tensor<32x32xf32>) -> tensor<32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<32x32xf32>, tensor<32x32xf32>)
                     outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %g = linalg.matmul ins(%x, %w2 : tensor<32x32xf32>, tensor<32x32xf32>)
                     outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %g : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  %er = tensor.empty() : tensor<32xf32>
  %fr = linalg.fill ins(%z : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %m = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%r : tensor<32x32xf32>) outs(%fr : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %m : tensor<32xf32>
}
