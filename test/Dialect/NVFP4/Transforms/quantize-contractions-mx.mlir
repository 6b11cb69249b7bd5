// RUN: nvfp4-opt %s --nvfp4-quantize-contractions | FileCheck %s

// Contractions selected for an MX format (nvfp4.precision = "mxfp4",
// "mxfp8_e4m3", "mxfp8_e5m2") become MX quantizes and one MX matmul: 1x32
// blocks along K for every operand (no 16x16 weights), round-to-nearest
// and no Hadamard transform for gradients and wgrad operands (stochastic
// rounding and the transform are NVFP4's), operands stored [K, N]
// transposed in high precision, K zero-padded to a multiple of 32.

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @mx
// CHECK-SAME: (%[[X:[^:]*]]: tensor<32x64xbf16>, %[[W:[^:]*]]: tensor<48x64xbf16>, %[[WKN:[^:]*]]: tensor<48x40xf32>, %[[X48:[^:]*]]: tensor<32x48xf32>, %[[G:[^:]*]]: tensor<40x32xf32>, %[[C:[^:]*]]: tensor<32x48xf32>)
// An MXFP8 fprop: the weight as stored [N, K], the init as accumulator.
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<32x64xbf16> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
// CHECK: %[[QW:.*]] = nvfp4.quantize %[[W]] {nvfp4.kind = "weight"} : tensor<48x64xbf16> -> !nvfp4.tensor<48x64, 1x32, mxfp8_e4m3>
// CHECK: %[[Y0:.*]] = nvfp4.matmul %[[QX]], %[[QW]] acc(%[[C]] : tensor<32x48xf32>) {nvfp4.role = "fprop"} : !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, !nvfp4.tensor<48x64, 1x32, mxfp8_e4m3> -> tensor<32x48xf32>
// An MXFP4 fprop with K = 48 (padded to 64) and the weight stored [K, N]:
// transposed in high precision, then padded and quantized.
// CHECK: %[[PX:.*]] = tensor.pad %[[X48]] low[0, 0] high[0, 16]
// CHECK: %[[QX4:.*]] = nvfp4.quantize %[[PX]] {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x32, mxfp4>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WKN]] : tensor<48x40xf32>) outs(%{{.*}} : tensor<40x48xf32>) permutation = [1, 0]
// CHECK: %[[PW:.*]] = tensor.pad %[[WT]] low[0, 0] high[0, 16]
// CHECK: %[[QW4:.*]] = nvfp4.quantize %[[PW]] {nvfp4.kind = "weight"} : tensor<40x64xf32> -> !nvfp4.tensor<40x64, 1x32, mxfp4>
// CHECK: %[[Y1:.*]] = nvfp4.matmul %[[QX4]], %[[QW4]] {nvfp4.role = "fprop"} : !nvfp4.tensor<32x64, 1x32, mxfp4>, !nvfp4.tensor<40x64, 1x32, mxfp4> -> tensor<32x40xf32>
// An MXFP8 (E5M2) wgrad: round-to-nearest gradient, no transform.
// CHECK: %[[QG:.*]] = nvfp4.quantize %[[G]] {nvfp4.kind = "gradient"} : tensor<40x32xf32> -> !nvfp4.tensor<40x32, 1x32, mxfp8_e5m2>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X48]] : tensor<32x48xf32>)
// CHECK: %[[QXT:.*]] = nvfp4.quantize %[[XT]] {nvfp4.kind = "activation"} : tensor<48x32xf32> -> !nvfp4.tensor<48x32, 1x32, mxfp8_e5m2>
// CHECK: %[[Y2:.*]] = nvfp4.matmul %[[QG]], %[[QXT]] {nvfp4.role = "wgrad"} : !nvfp4.tensor<40x32, 1x32, mxfp8_e5m2>, !nvfp4.tensor<48x32, 1x32, mxfp8_e5m2> -> tensor<40x48xf32>
// CHECK-NOT: rounding
// CHECK-NOT: hadamard
// CHECK: return %[[Y0]], %[[Y1]], %[[Y2]]
func.func @mx(%x: tensor<32x64xbf16>, %w: tensor<48x64xbf16>, %wkn: tensor<48x40xf32>, %x48: tensor<32x48xf32>, %g: tensor<40x32xf32>, %c: tensor<32x48xf32>) -> (tensor<32x48xf32>, tensor<32x40xf32>, tensor<40x48xf32>) {
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<48x64xbf16>)
         outs(%c : tensor<32x48xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.precision = "mxfp8_e4m3"} -> tensor<32x48xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x40xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x40xf32>) -> tensor<32x40xf32>
  %1 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%x48, %wkn : tensor<32x48xf32>, tensor<48x40xf32>)
         outs(%f1 : tensor<32x40xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.precision = "mxfp4"} -> tensor<32x40xf32>
  %e2 = tensor.empty() : tensor<40x48xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<40x48xf32>) -> tensor<40x48xf32>
  %2 = linalg.matmul indexing_maps = [#mk, #kn, #mn] ins(%g, %x48 : tensor<40x32xf32>, tensor<32x48xf32>)
         outs(%f2 : tensor<40x48xf32>) {nvfp4.role = "wgrad", nvfp4.kind = ["gradient", "activation"], nvfp4.precision = "mxfp8_e5m2"} -> tensor<40x48xf32>
  return %0, %1, %2 : tensor<32x48xf32>, tensor<32x40xf32>, tensor<40x48xf32>
}

// A dequantized MX weight is taken as it is by an MX GEMM of any MX format
// (mxf8f6f4 mixes element types); an NVFP4 one is quantized again.
// CHECK-LABEL: func.func @prequantized
// CHECK-SAME: (%[[X:[^:]*]]: tensor<32x64xf32>, %[[M:[^:]*]]: !nvfp4.tensor<48x64, 1x32, mxfp4>, %[[N:[^:]*]]: !nvfp4.tensor<48x64, 1x16>)
// CHECK-NOT: nvfp4.dequantize %[[M]]
// CHECK: %[[ND:.*]] = nvfp4.dequantize %[[N]]
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
// CHECK: nvfp4.matmul %[[QX]], %[[M]] {nvfp4.role = "fprop"} : !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, !nvfp4.tensor<48x64, 1x32, mxfp4>
// CHECK: %[[QX2:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
// CHECK: %[[QN:.*]] = nvfp4.quantize %[[ND]] {nvfp4.kind = "weight"} : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 1x32, mxfp8_e4m3>
// CHECK: nvfp4.matmul %[[QX2]], %[[QN]]
func.func @prequantized(%x: tensor<32x64xf32>, %m: !nvfp4.tensor<48x64, 1x32, mxfp4>, %n: !nvfp4.tensor<48x64, 1x16>) -> (tensor<32x48xf32>, tensor<32x48xf32>) {
  %md = nvfp4.dequantize %m : !nvfp4.tensor<48x64, 1x32, mxfp4> -> tensor<48x64xf32>
  %nd = nvfp4.dequantize %n : !nvfp4.tensor<48x64, 1x16> -> tensor<48x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %md : tensor<32x64xf32>, tensor<48x64xf32>)
         outs(%f : tensor<32x48xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.precision = "mxfp8_e4m3"} -> tensor<32x48xf32>
  %1 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %nd : tensor<32x64xf32>, tensor<48x64xf32>)
         outs(%f : tensor<32x48xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.precision = "mxfp8_e4m3"} -> tensor<32x48xf32>
  return %0, %1 : tensor<32x48xf32>, tensor<32x48xf32>
}



// An unknown precision value is left alone.
// CHECK-LABEL: func.func @unknown_precision
// CHECK-NOT: nvfp4.
// CHECK: linalg.matmul
func.func @unknown_precision(%x: tensor<32x64xf32>, %w: tensor<48x64xf32>, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xf32>, tensor<48x64xf32>)
         outs(%c : tensor<32x48xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.precision = "fp8"} -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}
