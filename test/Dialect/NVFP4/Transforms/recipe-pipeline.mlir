// RUN: nvfp4-opt %s --nvfp4-recipe | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-recipe="disable-rht disable-stochastic-rounding disable-2d-quantization" \
// RUN:   | FileCheck %s --check-prefix=TE
// RUN: nvfp4-opt %s --nvfp4-recipe="base-offset=4096 high-layers=0" | FileCheck %s --check-prefix=OPTS
// RUN: nvfp4-opt %s --nvfp4-recipe="remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// One linear layer, forward and backward, unannotated: the pipeline infers
// the roles, quantizes the weight once (16x16, nvfp4.transpose for dgrad),
// applies the Hadamard transform to the wgrad operands only, stochastic
// rounding to the gradients only, with the seed argument and disjoint
// offsets.

// CHECK-LABEL: func @linear
// CHECK-SAME: (%[[X:[^:]*]]: tensor<64x128xbf16>, %[[W:[^:]*]]: tensor<256x128xbf16>, %[[DY:[^:]*]]: tensor<64x256xbf16> {nvfp4.kind = "gradient"}, %[[SEED:[^:]*]]: i64 {nvfp4.seed})
// CHECK-DAG: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<64x128xbf16> -> !nvfp4.tensor<64x128, 1x16>
// CHECK-DAG: %[[QW:.*]] = nvfp4.quantize %[[W]] {nvfp4.kind = "weight"} : tensor<256x128xbf16> -> !nvfp4.tensor<256x128, 16x16>
// CHECK: nvfp4.matmul %[[QX]], %[[QW]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: %[[QG:.*]] = nvfp4.quantize %[[DY]] rounding rs seed %[[SEED]] offset 0 {nvfp4.kind = "gradient"}
// CHECK: %[[WT:.*]] = nvfp4.transpose %[[QW]]
// CHECK: nvfp4.matmul %[[QG]], %[[WT]] {nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"}
// CHECK: nvfp4.quantize %{{.*}} rounding rs seed %[[SEED]] offset 1024 hadamard {{.*}} {nvfp4.kind = "gradient"} : tensor<256x64xbf16>
// CHECK: nvfp4.quantize %{{.*}} hadamard {{.*}} {nvfp4.kind = "activation"} : tensor<128x64xbf16>
// CHECK: nvfp4.matmul {{.*}} {nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"}
// CHECK-NOT: nvfp4.quantize %[[W]]
// CHECK-NOT: linalg.matmul
// CHECK: return

// TE-LABEL: func @linear
// TE-NOT: hadamard
// TE-NOT: rounding rs
// TE-NOT: 16x16
// TE: return

// OPTS-LABEL: func @linear
// OPTS-COUNT-3: linalg.matmul
// OPTS-NOT: nvfp4.matmul

// REMARK: remark: nvfp4: fp4: fprop of layer 0
// REMARK: remark: nvfp4: fp4: dgrad of layer 0
// REMARK: remark: nvfp4: fp4: wgrad of layer 0
func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>,
                  %dy: tensor<64x256xbf16> {nvfp4.kind = "gradient"},
                  %seed: i64 {nvfp4.seed})
    -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
  %zb = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x256xbf16>
  %f0 = linalg.fill ins(%zb : bf16) outs(%e0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
         outs(%f0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %e1 = tensor.empty() : tensor<64x128xbf16>
  %f1 = linalg.fill ins(%zb : bf16) outs(%e1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %dx = linalg.matmul indexing_maps = [#mk, #kn, #mn]
         ins(%dy, %w : tensor<64x256xbf16>, tensor<256x128xbf16>)
         outs(%f1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %f2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %dw = linalg.matmul indexing_maps = [#km, #kn, #mn]
         ins(%dy, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
         outs(%f2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
}
