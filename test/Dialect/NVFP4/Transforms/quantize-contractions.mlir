// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-quantize-contractions))' | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-quantize-contractions{disable-rht disable-stochastic-rounding disable-2d-quantization}))' \
// RUN:   | FileCheck %s --check-prefix=TE

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// fprop: the weight is K-major ([N, K]) and quantized with 16x16 blocks, the
// activation with 1x16 blocks, both round-to-nearest; a zero-filled init
// means no accumulator; the bf16 result type is kept.

// CHECK-LABEL: func @fprop
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xbf16>, %[[W:.*]]: tensor<48x64xbf16>)
// CHECK-DAG: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<32x64xbf16> -> !nvfp4.tensor<32x64, 1x16>
// CHECK-DAG: %[[QW:.*]] = nvfp4.quantize %[[W]] {nvfp4.kind = "weight"} : tensor<48x64xbf16> -> !nvfp4.tensor<48x64, 16x16>
// CHECK: %[[R:.*]] = nvfp4.matmul %[[QX]], %[[QW]] {nvfp4.layer = 3 : i64, nvfp4.role = "fprop"}
// CHECK-SAME: !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xbf16>
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R]]
// TE-LABEL: func @fprop
// TE: nvfp4.quantize %{{.*}} {nvfp4.kind = "weight"} : tensor<48x64xbf16> -> !nvfp4.tensor<48x64, 1x16>
func.func @fprop(%x: tensor<32x64xbf16>, %w: tensor<48x64xbf16>) -> tensor<32x48xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<32x48xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<32x48xbf16>) -> tensor<32x48xbf16>
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<48x64xbf16>)
         outs(%z : tensor<32x48xbf16>)
         {nvfp4.precision = "fp4", nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 3 : i64}
         -> tensor<32x48xbf16>
  return %0 : tensor<32x48xbf16>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// dgrad: the weight is stored [K, N]: it is quantized as stored (16x16) and
// transposed exactly; the gradient gets stochastic rounding; a non-zero
// init is the accumulator.

// CHECK-LABEL: func @dgrad
// CHECK-SAME: (%[[DY:.*]]: tensor<32x48xbf16>, %[[W:.*]]: tensor<48x64xbf16>, %[[C:.*]]: tensor<32x64xf32>)
// CHECK-DAG: %[[QG:.*]] = nvfp4.quantize %[[DY]] rounding rs offset 0 {nvfp4.kind = "gradient"} : tensor<32x48xbf16> -> !nvfp4.tensor<32x48, 1x16>
// CHECK-DAG: %[[QW:.*]] = nvfp4.quantize %[[W]] {nvfp4.kind = "weight"} : tensor<48x64xbf16> -> !nvfp4.tensor<48x64, 16x16>
// CHECK-DAG: %[[WT:.*]] = nvfp4.transpose %[[QW]] : !nvfp4.tensor<48x64, 16x16> -> !nvfp4.tensor<64x48, 16x16>
// CHECK: nvfp4.matmul %[[QG]], %[[WT]] acc(%[[C]] : tensor<32x64xf32>)
// CHECK-SAME: -> tensor<32x64xf32>
// The options mirror Transformer Engine's switches: no stochastic rounding,
// 1x16 weights transposed in high precision.
// TE-LABEL: func @dgrad
// TE: nvfp4.quantize %{{.*}} {nvfp4.kind = "gradient"} : tensor<32x48xbf16> -> !nvfp4.tensor<32x48, 1x16>
// TE: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<48x64xbf16>) outs(%{{.*}} : tensor<64x48xbf16>) permutation = [1, 0]
// TE: nvfp4.quantize %[[T]] {nvfp4.kind = "weight"} : tensor<64x48xbf16> -> !nvfp4.tensor<64x48, 1x16>
// TE-NOT: nvfp4.transpose
func.func @dgrad(%dy: tensor<32x48xbf16>, %w: tensor<48x64xbf16>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %0 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%dy, %w : tensor<32x48xbf16>, tensor<48x64xbf16>)
         outs(%c : tensor<32x64xf32>)
         {nvfp4.precision = "fp4", nvfp4.role = "dgrad", nvfp4.kind = ["gradient", "weight"]}
         -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// wgrad dW = dY^T X contracts over the tokens: both operands are transposed
// to K-major in high precision, both get the Hadamard transform, the
// gradient stochastic rounding; stochastic quantizes get disjoint counter
// ranges (32x48 elements = 96 counters).

// CHECK-LABEL: func @wgrad
// CHECK-SAME: (%[[DY:.*]]: tensor<64x48xbf16>, %[[X:.*]]: tensor<64x32xbf16>)
// CHECK: %[[DYT:.*]] = linalg.transpose ins(%[[DY]] : tensor<64x48xbf16>) outs(%{{.*}} : tensor<48x64xbf16>) permutation = [1, 0]
// CHECK: %[[QG:.*]] = nvfp4.quantize %[[DYT]] rounding rs offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] {nvfp4.kind = "gradient"}
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<64x32xbf16>) outs(%{{.*}} : tensor<32x64xbf16>) permutation = [1, 0]
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[XT]] hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] {nvfp4.kind = "activation"}
// CHECK: nvfp4.matmul %[[QG]], %[[QX]] {nvfp4.role = "wgrad"} : !nvfp4.tensor<48x64, 1x16>, !nvfp4.tensor<32x64, 1x16> -> tensor<48x32xf32>
// CHECK: nvfp4.quantize %{{.*}} rounding rs offset 192 hadamard
// CHECK: nvfp4.quantize %{{.*}} rounding rs offset 384 hadamard
// TE-LABEL: func @wgrad
// TE-NOT: hadamard
// TE-NOT: rounding rs
// TE: return
func.func @wgrad(%dy: tensor<64x48xbf16>, %x: tensor<64x32xbf16>) -> (tensor<48x32xf32>, tensor<48x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %0 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%dy, %x : tensor<64x48xbf16>, tensor<64x32xbf16>)
         outs(%z : tensor<48x32xf32>)
         {nvfp4.precision = "fp4", nvfp4.role = "wgrad", nvfp4.kind = ["gradient", "activation"]}
         -> tensor<48x32xf32>
  %1 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%dy, %x : tensor<64x48xbf16>, tensor<64x32xbf16>)
         outs(%z : tensor<48x32xf32>)
         {nvfp4.precision = "fp4", nvfp4.role = "wgrad", nvfp4.kind = ["gradient", "gradient"]}
         -> tensor<48x32xf32>
  return %0, %1 : tensor<48x32xf32>, tensor<48x32xf32>
}

// -----

#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Batched contractions keep their batch dimension; the rhs [B, K, N] is
// transposed over its two inner dimensions.

// CHECK-LABEL: func @batched
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x64x32xf32>) outs(%{{.*}} : tensor<2x32x64xf32>) permutation = [0, 2, 1]
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}} : !nvfp4.tensor<2x16x64, 1x16>, !nvfp4.tensor<2x32x64, 1x16> -> tensor<2x16x32xf32>
func.func @batched(%a: tensor<2x16x64xf32>, %b: tensor<2x64x32xf32>, %c: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %0 = linalg.batch_matmul indexing_maps = [#bmk, #bkn, #bmn] ins(%a, %b : tensor<2x16x64xf32>, tensor<2x64x32xf32>)
         outs(%c : tensor<2x16x32xf32>)
         {nvfp4.precision = "fp4", nvfp4.role = "fprop", nvfp4.kind = ["activation", "activation"]}
         -> tensor<2x16x32xf32>
  return %0 : tensor<2x16x32xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// Left alone: contractions not selected (or kept high), non-contractions,
// already-quantized IR. (A selected contraction the rewrite cannot express
// gets a warning saying why and is kept in high precision:
// quantize-contractions-fallback.mlir.)

// CHECK-LABEL: func @leave_alone
// CHECK: linalg.matmul {{.*}}nvfp4.precision = "high"
// CHECK: linalg.matmul
// CHECK-NOT: nvfp4.precision
// CHECK-SAME: outs
// CHECK: linalg.add
// CHECK: nvfp4.matmul %{{.*}}, %{{.*}} : !nvfp4.tensor<32x64, 1x16>
// CHECK-NOT: nvfp4.quantize
// CHECK: return
func.func @leave_alone(%x: tensor<32x64xbf16>, %w: tensor<48x64xbf16>, %c: tensor<32x48xf32>,
                       %qa: !nvfp4.tensor<32x64, 1x16>, %qb: !nvfp4.tensor<48x64, 16x16>)
    -> (tensor<32x48xf32>, tensor<32x48xf32>, tensor<32x64xbf16>, tensor<32x48xf32>) {
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<48x64xbf16>)
         outs(%c : tensor<32x48xf32>) {nvfp4.precision = "high", nvfp4.role = "fprop"} -> tensor<32x48xf32>
  %1 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<48x64xbf16>)
         outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  %e = tensor.empty() : tensor<32x64xbf16>
  %2 = linalg.add ins(%x, %x : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%e : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  %3 = nvfp4.matmul %qa, %qb : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xf32>
  return %0, %1, %2, %3 : tensor<32x48xf32>, tensor<32x48xf32>, tensor<32x64xbf16>, tensor<32x48xf32>
}

// -----

// K = 24 is not a multiple of the 16-wide blocks: both operands are
// zero-padded along K to 32 (tensor.pad) and quantized padded; the matmul
// contracts over 32 (the padded codes are zeros, so every product keeps its
// value). The 16x16 weight stored [K, N] pads its rows before the exact
// transpose.
// CHECK-LABEL: func.func @k_padded
// CHECK-SAME: (%[[X:.*]]: tensor<32x24xbf16>, %[[W:.*]]: tensor<48x24xbf16>, %[[WT:.*]]: tensor<24x48xbf16>)
// CHECK: %[[XP:.*]] = tensor.pad %[[X]] low[0, 0] high[0, 8]
// CHECK: tensor.yield %{{.*}} : bf16
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[XP]] {nvfp4.kind = "activation"} : tensor<32x32xbf16> -> !nvfp4.tensor<32x32, 1x16>
// CHECK: %[[WP:.*]] = tensor.pad %[[W]] low[0, 0] high[0, 8]
// CHECK: %[[QW:.*]] = nvfp4.quantize %[[WP]] {nvfp4.kind = "weight"} : tensor<48x32xbf16> -> !nvfp4.tensor<48x32, 16x16>
// CHECK: nvfp4.matmul %[[QX]], %[[QW]] {nvfp4.role = "fprop"} : !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<48x32, 16x16> -> tensor<32x48xf32>
// CHECK: %[[WTP:.*]] = tensor.pad %[[WT]] low[0, 0] high[8, 0]
// CHECK: %[[QWT:.*]] = nvfp4.quantize %[[WTP]] {nvfp4.kind = "weight"} : tensor<32x48xbf16> -> !nvfp4.tensor<32x48, 16x16>
// CHECK: %[[T:.*]] = nvfp4.transpose %[[QWT]] : !nvfp4.tensor<32x48, 16x16> -> !nvfp4.tensor<48x32, 16x16>
// CHECK: nvfp4.matmul %{{.*}}, %[[T]]
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @k_padded(%x: tensor<32x24xbf16>, %w: tensor<48x24xbf16>, %wt: tensor<24x48xbf16>)
    -> (tensor<32x48xf32>, tensor<32x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x24xbf16>, tensor<48x24xbf16>)
         outs(%c : tensor<32x48xf32>) {nvfp4.precision = "fp4", nvfp4.role = "fprop"} -> tensor<32x48xf32>
  %1 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%x, %wt : tensor<32x24xbf16>, tensor<24x48xbf16>)
         outs(%c : tensor<32x48xf32>) {nvfp4.precision = "fp4", nvfp4.role = "fprop"} -> tensor<32x48xf32>
  return %0, %1 : tensor<32x48xf32>, tensor<32x48xf32>
}
