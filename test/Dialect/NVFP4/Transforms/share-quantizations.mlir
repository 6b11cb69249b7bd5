// RUN: nvfp4-opt %s --split-input-file --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-share-quantizations))' | FileCheck %s

// A weight used as W (fprop) and as its transpose (dgrad) is quantized once
// with 16x16 blocks; the transposed use goes through the exact
// nvfp4.transpose. Identical quantizations are shared.

// CHECK-LABEL: func @weight_reuse
// CHECK-SAME: (%[[W:[^:]*]]: tensor<48x64xf32>
// CHECK: %[[Q:.*]] = nvfp4.quantize %[[W]] : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
// CHECK-NOT: nvfp4.quantize %[[W]]
// CHECK: %[[T:.*]] = nvfp4.transpose %[[Q]] : !nvfp4.tensor<48x64, 16x16> -> !nvfp4.tensor<64x48, 16x16>
// CHECK: nvfp4.matmul %{{.*}}, %[[Q]]
// CHECK: nvfp4.matmul %{{.*}}, %[[T]]
// CHECK: nvfp4.matmul %{{.*}}, %[[Q]]
func.func @weight_reuse(%w: tensor<48x64xf32>, %x: !nvfp4.tensor<32x64, 1x16>, %dy: !nvfp4.tensor<32x48, 1x16>)
    -> (tensor<32x48xf32>, tensor<32x64xf32>, tensor<32x48xf32>) {
  %qw = nvfp4.quantize %w : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %e = tensor.empty() : tensor<64x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x64xf32>) outs(%e : tensor<64x48xf32>) permutation = [1, 0]
  %qwt = nvfp4.quantize %wt : tensor<64x48xf32> -> !nvfp4.tensor<64x48, 16x16>
  %qw2 = nvfp4.quantize %w : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %0 = nvfp4.matmul %x, %qw : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xf32>
  %1 = nvfp4.matmul %dy, %qwt : !nvfp4.tensor<32x48, 1x16>, !nvfp4.tensor<64x48, 16x16> -> tensor<32x64xf32>
  %2 = nvfp4.matmul %x, %qw2 : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xf32>
  return %0, %1, %2 : tensor<32x48xf32>, tensor<32x64xf32>, tensor<32x48xf32>
}

// -----

// Not shared: stochastic quantizes with different offsets, different block
// layouts, different Hadamard. Not rewritten to nvfp4.transpose: 1x16
// blocks, stochastic rounding, Hadamard.

// CHECK-LABEL: func @distinct
// CHECK-COUNT-2: nvfp4.quantize %arg0 rounding rs offset
// CHECK: nvfp4.quantize %arg0 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
// CHECK: nvfp4.quantize %arg0 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
// CHECK: nvfp4.quantize %arg0 hadamard
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: nvfp4.quantize %[[T]] : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 1x16>
// CHECK: nvfp4.quantize %[[T]] rounding rs offset 0 : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
// CHECK: nvfp4.quantize %[[T]] hadamard {{.*}} -> !nvfp4.tensor<64x32, 16x16>
// CHECK-NOT: nvfp4.transpose
func.func @distinct(%x: tensor<32x64xf32>) {
  %0 = nvfp4.quantize %x rounding rs offset 0 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %1 = nvfp4.quantize %x rounding rs offset 128 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %2 = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %3 = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %4 = nvfp4.quantize %x hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %e = tensor.empty() : tensor<64x32xf32>
  %t = linalg.transpose ins(%x : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  %5 = nvfp4.quantize %t : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 1x16>
  %6 = nvfp4.quantize %t rounding rs offset 0 : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
  %7 = nvfp4.quantize %t hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
  "test.use"(%0, %1, %2, %3, %4, %5, %6, %7) : (!nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<32x64, 16x16>, !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x32, 1x16>, !nvfp4.tensor<64x32, 16x16>, !nvfp4.tensor<64x32, 16x16>) -> ()
  return
}

// -----

// A quantize in a nested region is shared with a dominating one, never the
// other way round.

// CHECK-LABEL: func @dominance
// CHECK: %[[Q:.*]] = nvfp4.quantize
// CHECK: scf.if
// CHECK-NOT: nvfp4.quantize
// CHECK: "test.use"(%[[Q]])
func.func @dominance(%x: tensor<32x64xf32>, %c: i1) {
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  scf.if %c {
    %r = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
    "test.use"(%r) : (!nvfp4.tensor<32x64, 1x16>) -> ()
  }
  "test.use"(%q) : (!nvfp4.tensor<32x64, 1x16>) -> ()
  return
}
