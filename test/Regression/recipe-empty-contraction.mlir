// RUN: nvfp4-opt %s --nvfp4-recipe="remarks" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: nvfp4-opt %t.mlir | FileCheck %s

// Contractions with a dimension of size 0 (M, K, batch) passed the recipe's
// rules (0 is a multiple of 16) and were rewritten to nvfp4.quantize with
// !nvfp4.tensor types of a zero dimension, which the type's verifier
// rejects: the recipe printed IR that did not parse back. They are now
// unsupported forms, kept in high precision with the reason.

// REMARK-COUNT-3: remark: nvfp4: role not determined: empty (a dimension of size 0)
// REMARK-COUNT-3: remark: nvfp4: high: unsupported: empty (a dimension of size 0)
// REMARK-NOT:     remark

// CHECK-LABEL: func @empty
// CHECK-NOT:   nvfp4.quantize
// CHECK-COUNT-3: nvfp4.precision = "high"
// CHECK-NOT:   nvfp4.quantize
func.func @empty(%x0: tensor<0x64xf32> {nvfp4.kind = "activation"},
                 %xk: tensor<32x0xf32> {nvfp4.kind = "activation"},
                 %b0: tensor<0x32x64xf32>, %b1: tensor<0x64x32xf32>,
                 %w: tensor<48x64xf32> {nvfp4.kind = "weight"},
                 %wk: tensor<48x0xf32> {nvfp4.kind = "weight"})
    -> (tensor<0x48xf32>, tensor<32x48xf32>, tensor<0x32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<0x48xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<0x48xf32>) -> tensor<0x48xf32>
  %m0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%x0, %w : tensor<0x64xf32>, tensor<48x64xf32>) outs(%i0 : tensor<0x48xf32>) -> tensor<0x48xf32>
  %e1 = tensor.empty() : tensor<32x48xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %k0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%xk, %wk : tensor<32x0xf32>, tensor<48x0xf32>) outs(%i1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %e2 = tensor.empty() : tensor<0x32x32xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<0x32x32xf32>) -> tensor<0x32x32xf32>
  %bm = linalg.batch_matmul ins(%b0, %b1 : tensor<0x32x64xf32>, tensor<0x64x32xf32>)
          outs(%i2 : tensor<0x32x32xf32>) -> tensor<0x32x32xf32>
  return %m0, %k0, %bm : tensor<0x48xf32>, tensor<32x48xf32>, tensor<0x32x32xf32>
}
