// RUN: nvfp4-opt %s --nvfp4-recipe="mode=inference" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-recipe="mode=inference constant-weights=false" --split-input-file | FileCheck %s

// A checkpoint's weight (codes, block scales and the decode scale, as
// constants) dequantized for the high-precision graph: it is a weight (even
// without constant-weights), and the GEMM takes the NVFP4 tensor itself,
// not a re-quantization of its dequantized values.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf32>)
// CHECK: %[[W:.*]] = nvfp4.assemble %{{.*}}, %{{.*}}, %{{.*}} : tensor<48x64xf4E2M1FN>, tensor<48x4xf8E4M3FN> -> !nvfp4.tensor<48x64, 1x16, decode>
// CHECK-NOT: nvfp4.dequantize
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
// CHECK-NOT: nvfp4.quantize
// CHECK: %[[Y:.*]] = nvfp4.matmul %[[QX]], %[[W]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 1x16, decode> -> tensor<32x48xf32>
// CHECK: return %[[Y]]
func.func @linear(%x: tensor<32x64xf32>) -> tensor<32x48xf32> {
  %codes = arith.constant dense<1.5> : tensor<48x64xf4E2M1FN>
  %scales = arith.constant dense<2.0> : tensor<48x4xf8E4M3FN>
  %ws2 = arith.constant 1.0e-3 : f32
  %w = nvfp4.assemble %codes, %scales, %ws2 : tensor<48x64xf4E2M1FN>, tensor<48x4xf8E4M3FN> -> !nvfp4.tensor<48x64, 1x16, decode>
  %wd = nvfp4.dequantize %w : !nvfp4.tensor<48x64, 1x16, decode> -> tensor<48x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wd : tensor<32x64xf32>, tensor<48x64xf32>) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}

// -----

// Stored [K, N] with 16x16 blocks: the exact transpose of the tensor.
// CHECK-LABEL: func.func @stored_k_major_2d
// CHECK: %[[W:.*]] = nvfp4.assemble {{.*}} -> !nvfp4.tensor<64x48, 16x16, decode>
// CHECK: %[[QX:.*]] = nvfp4.quantize
// CHECK: %[[WT:.*]] = nvfp4.transpose %[[W]] : !nvfp4.tensor<64x48, 16x16, decode> -> !nvfp4.tensor<48x64, 16x16, decode>
// CHECK: nvfp4.matmul %[[QX]], %[[WT]]
// CHECK-NOT: nvfp4.quantize
func.func @stored_k_major_2d(%x: tensor<32x64xbf16>, %codes: tensor<64x48xf4E2M1FN>, %scales: tensor<4x3xf8E4M3FN>, %ws2: f32) -> tensor<32x48xf32> {
  %w = nvfp4.assemble %codes, %scales, %ws2 : tensor<64x48xf4E2M1FN>, tensor<4x3xf8E4M3FN> -> !nvfp4.tensor<64x48, 16x16, decode>
  %wd = nvfp4.dequantize %w : !nvfp4.tensor<64x48, 16x16, decode> -> tensor<64x48xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}

// -----

// Stored [K, N] with 1x16 blocks, which run along N: no exact K-major form
// exists, so the dequantized weight is quantized again as the recipe
// quantizes weights (16x16 as stored, then transposed exactly).
// CHECK-LABEL: func.func @stored_k_major_1d
// CHECK: %[[W:.*]] = nvfp4.assemble
// CHECK: %[[WD:.*]] = nvfp4.dequantize %[[W]]
// CHECK: %[[QW:.*]] = nvfp4.quantize %[[WD]] {nvfp4.kind = "weight"} : tensor<64x48xf32> -> !nvfp4.tensor<64x48, 16x16>
// CHECK: %[[QWT:.*]] = nvfp4.transpose %[[QW]]
// CHECK: nvfp4.matmul %{{.*}}, %[[QWT]]
func.func @stored_k_major_1d(%x: tensor<32x64xf32>, %codes: tensor<64x48xf4E2M1FN>, %scales: tensor<64x3xf8E4M3FN>, %ws2: f32) -> tensor<32x48xf32> {
  %w = nvfp4.assemble %codes, %scales, %ws2 : tensor<64x48xf4E2M1FN>, tensor<64x3xf8E4M3FN> -> !nvfp4.tensor<64x48, 1x16, decode>
  %wd = nvfp4.dequantize %w : !nvfp4.tensor<64x48, 1x16, decode> -> tensor<64x48xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %y = linalg.matmul ins(%x, %wd : tensor<32x64xf32>, tensor<64x48xf32>) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}

// -----

// An MX checkpoint weight (E8M0 scales): the NVFP4 GEMM cannot take it, so
// its dequantized values are quantized again as an NVFP4 weight.
// CHECK-LABEL: func.func @mx_weight
// CHECK: %[[W:.*]] = nvfp4.assemble %{{.*}}, %{{.*}} : tensor<48x64xf4E2M1FN>, tensor<48x2xf8E8M0FNU> -> !nvfp4.tensor<48x64, 1x32, mxfp4>
// CHECK: %[[WD:.*]] = nvfp4.dequantize %[[W]]
// CHECK-DAG: %[[QX:.*]] = nvfp4.quantize %{{.*}} {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
// CHECK-DAG: %[[QW:.*]] = nvfp4.quantize %[[WD]] {nvfp4.kind = "weight"} : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
// CHECK: nvfp4.matmul %[[QX]], %[[QW]] {{.*}} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xf32>
func.func @mx_weight(%x: tensor<32x64xf32>, %codes: tensor<48x64xf4E2M1FN>, %scales: tensor<48x2xf8E8M0FNU>) -> tensor<32x48xf32> {
  %w = nvfp4.assemble %codes, %scales : tensor<48x64xf4E2M1FN>, tensor<48x2xf8E8M0FNU> -> !nvfp4.tensor<48x64, 1x32, mxfp4>
  %wd = nvfp4.dequantize %w : !nvfp4.tensor<48x64, 1x32, mxfp4> -> tensor<48x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %wd : tensor<32x64xf32>, tensor<48x64xf32>) outs(%init : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}
