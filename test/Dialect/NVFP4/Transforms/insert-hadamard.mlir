// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-insert-hadamard))' | FileCheck %s

// Both operands of a wgrad matmul get the transform; fprop/dgrad operands
// do not.

// CHECK-LABEL: func @wgrad_only
// CHECK: %[[G:.*]] = nvfp4.quantize %{{.*}} rounding rs offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x32xf32>
// CHECK: %[[A:.*]] = nvfp4.quantize %{{.*}} hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<48x32xf32>
// CHECK: nvfp4.matmul %[[G]], %[[A]] {nvfp4.role = "wgrad"}
// CHECK: %[[X:.*]] = nvfp4.quantize %{{.*}} : tensor<16x64xf32> -> !nvfp4.tensor<16x64, 1x16>
// CHECK: %[[W:.*]] = nvfp4.quantize %{{.*}} : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
// CHECK: nvfp4.matmul %[[X]], %[[W]] {nvfp4.role = "fprop"}
func.func @wgrad_only(%dy: tensor<64x32xf32>, %x: tensor<48x32xf32>, %a: tensor<16x64xf32>, %w: tensor<48x64xf32>)
    -> (tensor<64x48xf32>, tensor<16x48xf32>) {
  %g = nvfp4.quantize %dy rounding rs offset 0 : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 1x16>
  %q = nvfp4.quantize %x : tensor<48x32xf32> -> !nvfp4.tensor<48x32, 1x16>
  %0 = nvfp4.matmul %g, %q {nvfp4.role = "wgrad"} : !nvfp4.tensor<64x32, 1x16>, !nvfp4.tensor<48x32, 1x16> -> tensor<64x48xf32>
  %qa = nvfp4.quantize %a : tensor<16x64xf32> -> !nvfp4.tensor<16x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %1 = nvfp4.matmul %qa, %qw {nvfp4.role = "fprop"} : !nvfp4.tensor<16x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<16x48xf32>
  return %0, %1 : tensor<64x48xf32>, tensor<16x48xf32>
}

// -----

// A quantize shared with a non-wgrad matmul is duplicated: the other user
// keeps the untransformed operand.

// CHECK-LABEL: func @shared
// CHECK: %[[H:.*]] = nvfp4.quantize %[[IN:.*]] hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf32>
// CHECK: %[[P:.*]] = nvfp4.quantize %[[IN]] : tensor<32x64xf32>
// CHECK: nvfp4.matmul %[[H]], %{{.*}} {nvfp4.role = "wgrad"}
// CHECK: nvfp4.matmul %[[P]], %{{.*}} {nvfp4.role = "dgrad"}
func.func @shared(%x: tensor<32x64xf32>, %y: tensor<16x64xf32>) -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %r = nvfp4.quantize %y hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<16x64xf32> -> !nvfp4.tensor<16x64, 1x16>
  %0 = nvfp4.matmul %q, %r {nvfp4.role = "wgrad"} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<16x64, 1x16> -> tensor<32x16xf32>
  %1 = nvfp4.matmul %q, %r {nvfp4.role = "dgrad"} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<16x64, 1x16> -> tensor<32x16xf32>
  return %0, %1 : tensor<32x16xf32>, tensor<32x16xf32>
}

// -----

// Left alone: a transform already present (attribute or nvfp4.hadamard op),
// operands not produced by a quantize, matmuls without the wgrad role. A
// wgrad operand the pass cannot transform is a fallback: a remark says so.

// CHECK-LABEL: func @leave_alone
// CHECK: %[[T:.*]] = nvfp4.hadamard
// CHECK: nvfp4.quantize %[[T]] : tensor<32x64xf32>
// CHECK-NOT: hadamard [
// CHECK: nvfp4.matmul
// CHECK: nvfp4.quantize %{{.*}} : tensor<16x64xf32>
// CHECK: nvfp4.matmul
// CHECK: return
func.func @leave_alone(%x: tensor<32x64xf32>, %b: !nvfp4.tensor<16x64, 1x16>, %y: tensor<16x64xf32>)
    -> (tensor<32x16xf32>, tensor<32x16xf32>) {
  %t = nvfp4.hadamard %x : tensor<32x64xf32>
  %q = nvfp4.quantize %t : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  // expected-remark @below {{nvfp4: fallback: wgrad operand #1 does not get the Hadamard transform: it is not produced by nvfp4.quantize (transform its input before quantizing)}}
  %0 = nvfp4.matmul %q, %b {nvfp4.role = "wgrad"} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<16x64, 1x16> -> tensor<32x16xf32>
  %r = nvfp4.quantize %y : tensor<16x64xf32> -> !nvfp4.tensor<16x64, 1x16>
  %1 = nvfp4.matmul %q, %r : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<16x64, 1x16> -> tensor<32x16xf32>
  return %0, %1 : tensor<32x16xf32>, tensor<32x16xf32>
}
