// nvfp4-infer-roles on an inference graph as importers emit it: the weights
// are constants — an arith.constant converted to bf16 used as B in [K, N]
// layout, an elided dense_resource in [N, K] layout, a constant broadcast
// over the batch of a batched contraction (a linear layer, not attention) —
// and an argument named as a weight, contracted as the A operand. By
// default all four are weights and fprop (and the recipe puts them in FP4);
// with constant-weights=false nothing marks them, every contraction is
// activation by activation and the recipe keeps them in high precision.
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles))' \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles{constant-weights=false}))' \
// RUN: | FileCheck %s --check-prefix=OFF
// RUN: nvfp4-opt %s --nvfp4-recipe | FileCheck %s --check-prefix=RECIPE
// RUN: nvfp4-opt %s --nvfp4-recipe="constant-weights=false" \
// RUN: | FileCheck %s --check-prefix=RECIPE-OFF

// CHECK-LABEL: func @constant_weights
// CHECK:       linalg.matmul {nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} ins(
// CHECK:       linalg.matmul indexing_maps = {{.*}} {nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK:       linalg.batch_matmul {nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK:       linalg.matmul {nvfp4.kind = ["weight", "activation"], nvfp4.layer = 2 : i64, nvfp4.role = "fprop"}

// OFF-LABEL:   func @constant_weights
// OFF-COUNT-2: nvfp4.kind = ["activation", "activation"], nvfp4.role = "fprop"
// OFF:         linalg.batch_matmul {nvfp4.kind = ["activation", "activation"], nvfp4.role = "fprop"}
// OFF:         nvfp4.kind = ["activation", "activation"], nvfp4.role = "fprop"
// OFF-NOT:     "weight"

// RECIPE-LABEL:   func @constant_weights
// RECIPE-COUNT-4: nvfp4.matmul
// RECIPE-NOT:     linalg.{{(batch_)?}}matmul

// RECIPE-OFF-LABEL: func @constant_weights
// RECIPE-OFF-NOT:   nvfp4.matmul

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @constant_weights(%x: tensor<32x64xbf16>, %xb: tensor<2x32x64xbf16>,
                            %w4: tensor<48x32xbf16> loc("layer0.proj.weight"))
    -> (tensor<32x128xf32>, tensor<32x128xf32>, tensor<2x32x128xf32>, tensor<48x128xf32>) {
  %zf = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x128xf32>
  %f = linalg.fill ins(%zf : f32) outs(%e : tensor<32x128xf32>) -> tensor<32x128xf32>
  %w1 = arith.constant dense<0.5> : tensor<64x128xf32>
  %w1b = arith.truncf %w1 : tensor<64x128xf32> to tensor<64x128xbf16>
  %y1 = linalg.matmul ins(%x, %w1b : tensor<32x64xbf16>, tensor<64x128xbf16>)
          outs(%f : tensor<32x128xf32>) -> tensor<32x128xf32>
  %w2 = arith.constant dense_resource<__elided__> : tensor<128x64xbf16>
  %y2 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
          ins(%x, %w2 : tensor<32x64xbf16>, tensor<128x64xbf16>)
          outs(%f : tensor<32x128xf32>) -> tensor<32x128xf32>
  %w3 = arith.constant dense<1.0> : tensor<64x128xbf16>
  %eb = tensor.empty() : tensor<2x64x128xbf16>
  %w3b = linalg.broadcast ins(%w3 : tensor<64x128xbf16>) outs(%eb : tensor<2x64x128xbf16>) dimensions = [0]
  %e3 = tensor.empty() : tensor<2x32x128xf32>
  %f3 = linalg.fill ins(%zf : f32) outs(%e3 : tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  %y3 = linalg.batch_matmul ins(%xb, %w3b : tensor<2x32x64xbf16>, tensor<2x64x128xbf16>)
          outs(%f3 : tensor<2x32x128xf32>) -> tensor<2x32x128xf32>
  %h = arith.truncf %y2 : tensor<32x128xf32> to tensor<32x128xbf16>
  %e4 = tensor.empty() : tensor<48x128xf32>
  %f4 = linalg.fill ins(%zf : f32) outs(%e4 : tensor<48x128xf32>) -> tensor<48x128xf32>
  %y4 = linalg.matmul ins(%w4, %h : tensor<48x32xbf16>, tensor<32x128xbf16>)
          outs(%f4 : tensor<48x128xf32>) -> tensor<48x128xf32>
  return %y1, %y2, %y3, %y4 : tensor<32x128xf32>, tensor<32x128xf32>, tensor<2x32x128xf32>, tensor<48x128xf32>
}
