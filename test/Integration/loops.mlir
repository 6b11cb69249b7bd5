// Tensors and NVFP4 values carried through scf.for / scf.while iter_args
// lower through nvfp4-to-cpu and run: one-shot-bufferize may yield new
// buffers from loops, and the reference lowering converts the NVFP4 iter
// args to their three components.
//
// Both CPU lowerings run and are checked: the default calls of the
// precompiled kernels (libnvfp4_cpu_runtime) and kernels=inline.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

// Plain linalg in an scf.for carrying a tensor: x <- x + x, 3 times.
func.func @linalg_for(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.add ins(%acc, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// The same in an scf.while until the first element reaches 100.
func.func @linalg_while(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %limit = arith.constant 100.0 : f32
  %r = scf.while (%acc = %x) : (tensor<4xf32>) -> tensor<4xf32> {
    %v = tensor.extract %acc[%c0] : tensor<4xf32>
    %go = arith.cmpf olt, %v, %limit : f32
    scf.condition(%go) %acc : tensor<4xf32>
  } do {
  ^bb0(%acc: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.mul ins(%acc, %acc : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// An NVFP4 value carried through an scf.for: each iteration re-quantizes
// 2 * dequantize(q). The E2M1 codes are scale-free, so they stay those of
// the input while the amax doubles: the final dequantization is 8x the first.
func.func @nvfp4_for(%x: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant dense<2.0> : tensor<1x16xf32>
  %q0 = nvfp4.quantize %x : tensor<1x16xf32> -> !nvfp4.tensor<1x16, 1x16>
  %q = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %q0) -> (!nvfp4.tensor<1x16, 1x16>) {
    %d = nvfp4.dequantize %acc : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
    %e = tensor.empty() : tensor<1x16xf32>
    %m = linalg.mul ins(%d, %two : tensor<1x16xf32>, tensor<1x16xf32>) outs(%e : tensor<1x16xf32>) -> tensor<1x16xf32>
    %n = nvfp4.quantize %m : tensor<1x16xf32> -> !nvfp4.tensor<1x16, 1x16>
    scf.yield %n : !nvfp4.tensor<1x16, 1x16>
  }
  %r = nvfp4.dequantize %q : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %a = call @linalg_for(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %va = vector.transfer_read %a[%c0], %f0 {in_bounds = [true]} : tensor<4xf32>, vector<4xf32>
  vector.print %va : vector<4xf32>
  %y = arith.constant dense<[2.0, 1.5, 1.0, 0.5]> : tensor<4xf32>
  %b = call @linalg_while(%y) : (tensor<4xf32>) -> tensor<4xf32>
  %vb = vector.transfer_read %b[%c0], %f0 {in_bounds = [true]} : tensor<4xf32>, vector<4xf32>
  vector.print %vb : vector<4xf32>
  %z = arith.constant dense<[[0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]]> : tensor<1x16xf32>
  %c = call @nvfp4_for(%z) : (tensor<1x16xf32>) -> tensor<1x16xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %f0 {in_bounds = [true, true]} : tensor<1x16xf32>, vector<1x16xf32>
  vector.print %vc : vector<1x16xf32>
  return
}

// CHECK: ( 8, 16, 24, 32 )
// CHECK: ( 256, 25.6289, 1, 0.00390625 )
// CHECK: ( ( 0, 4, 8, 12, 16, 24, 32, 48, -0, -4, -8, -12, -16, -24, -32, -48 ) )
