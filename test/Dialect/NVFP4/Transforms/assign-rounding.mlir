// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-assign-rounding))' | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-assign-rounding{base-offset=1000}))' | FileCheck %s --check-prefix=BASE

// Gradients (annotated on the quantize or on the argument, through a
// transpose) get stochastic rounding; weights and activations keep
// round-to-nearest. Every stochastic quantize, in IR order, gets a disjoint
// range of N/16 counters, and the seed argument.

// CHECK-LABEL: func @gradients
// CHECK-SAME: %[[SEED:[^:]*]]: i64 {nvfp4.seed}
// CHECK: nvfp4.quantize %{{.*}} rounding rs seed %[[SEED]] offset 0 {nvfp4.kind = "gradient"} : tensor<32x64xf32>
// CHECK: nvfp4.quantize %{{.*}} {nvfp4.kind = "activation"} : tensor<32x64xf32>
// CHECK: nvfp4.quantize %{{.*}} : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16>
// CHECK: nvfp4.quantize %{{.*}} rounding rs seed %[[SEED]] offset 128 : tensor<64x32xf32>
// CHECK: nvfp4.quantize %{{.*}} rounding rs seed %[[SEED]] offset 256 hadamard
// CHECK: nvfp4.rescale %{{.*}} rounding rs seed %[[SEED]] offset 384 :
// BASE-LABEL: func @gradients
// BASE: offset 1000
// BASE: offset 1128
// BASE: offset 1256
// BASE: offset 1384
func.func @gradients(%dy: tensor<32x64xf32>, %x: tensor<32x64xf32>, %w: tensor<64x64xf32>,
                     %seed: i64 {nvfp4.seed}, %g: tensor<32x64xf32> {nvfp4.kind = "gradient"},
                     %q: !nvfp4.tensor<16x64, 1x16>) {
  %0 = nvfp4.quantize %dy {nvfp4.kind = "gradient"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %1 = nvfp4.quantize %x {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %2 = nvfp4.quantize %w : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16>
  %e = tensor.empty() : tensor<64x32xf32>
  %gt = linalg.transpose ins(%g : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  %3 = nvfp4.quantize %gt : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 1x16>
  // Already stochastic: renumbered.
  %4 = nvfp4.quantize %x rounding rs offset 7 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %5 = nvfp4.rescale %q rounding rs offset 3 : !nvfp4.tensor<16x64, 1x16> -> !nvfp4.tensor<16x64, 1x16>
  return
}

// -----

// No seed argument: no seed operand (seed 0). A counter range is rounded up
// to whole counters.

// CHECK-LABEL: func @no_seed
// CHECK: nvfp4.quantize %{{.*}} rounding rs offset 0 : tensor<16xf32>
// CHECK: nvfp4.quantize %{{.*}} rounding rs offset 1 : tensor<16xf32>
func.func @no_seed(%g: tensor<16xf32> {nvfp4.kind = "gradient"}) {
  %0 = nvfp4.quantize %g : tensor<16xf32> -> !nvfp4.tensor<16, 1x16>
  %1 = nvfp4.quantize %g rounding rs offset 0 : tensor<16xf32> -> !nvfp4.tensor<16, 1x16>
  return
}

// -----

// A seed argument of the wrong type is an error.

// expected-error @+1 {{nvfp4: the argument annotated 'nvfp4.seed' must be an i64, got 'i32'}}
func.func @bad_seed(%seed: i32 {nvfp4.seed}) {
  return
}
