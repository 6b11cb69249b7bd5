// nvfp4.hadamard lowered by nvfp4-to-cpu and run on the CPU, compared bit for
// bit with the reference butterfly; e0 maps to the first column of H, all
// 1/4 (sign 0 is +1).
//
// Both CPU lowerings run and are checked: the default calls of the
// precompiled kernels (libnvfp4_cpu_runtime) and kernels=inline.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN: | FileCheck %s

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckDequantize(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckHadamard(memref<*xf32>, memref<*xf32>, i32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckTranspose(memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckRescale(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}

func.func @hadamard_0() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %xseed = arith.constant 500 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %y = nvfp4.hadamard %x : tensor<32x64xf32>
  %ym = bufferization.to_buffer %y : tensor<32x64xf32> to memref<32x64xf32>
  %yu = memref.cast %ym : memref<32x64xf32> to memref<*xf32>
  %mask = arith.constant -1 : i32
  %n = call @nvfp4RtCheckHadamard(%xu, %yu, %mask) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  return
}

func.func @hadamard_1() {
  %xm = memref.alloc() : memref<2x16x32xf32>
  %xu = memref.cast %xm : memref<2x16x32xf32> to memref<*xf32>
  %xseed = arith.constant 501 : i64
  %xmode = arith.constant 2 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x16x32xf32> to tensor<2x16x32xf32>
  %y = nvfp4.hadamard %x signs [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1] : tensor<2x16x32xf32>
  %ym = bufferization.to_buffer %y : tensor<2x16x32xf32> to memref<2x16x32xf32>
  %yu = memref.cast %ym : memref<2x16x32xf32> to memref<*xf32>
  %mask = arith.constant 3855 : i32
  %n = call @nvfp4RtCheckHadamard(%xu, %yu, %mask) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  return
}

func.func @hadamard_2() {
  %xm = memref.alloc() : memref<64xf32>
  %xu = memref.cast %xm : memref<64xf32> to memref<*xf32>
  %xseed = arith.constant 502 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64xf32> to tensor<64xf32>
  %y = nvfp4.hadamard %x signs [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] : tensor<64xf32>
  %ym = bufferization.to_buffer %y : tensor<64xf32> to memref<64xf32>
  %yu = memref.cast %ym : memref<64xf32> to memref<*xf32>
  %mask = arith.constant 0 : i32
  %n = call @nvfp4RtCheckHadamard(%xu, %yu, %mask) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  return
}

func.func @hadamard_known() {
  %x = arith.constant dense<[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<16xf32>
  %y = nvfp4.hadamard %x : tensor<16xf32>
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %v = vector.transfer_read %y[%c0], %f0 {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
  vector.print %v : vector<16xf32>
  return
}

func.func @main() {
  call @hadamard_0() : () -> ()
  call @hadamard_1() : () -> ()
  call @hadamard_2() : () -> ()
  call @hadamard_known() : () -> ()
  return
}

// CHECK: hadamard [32x64]: mismatches 0 (of
// CHECK: hadamard [2x16x32]: mismatches 0 (of
// CHECK: hadamard [64]: mismatches 0 (of
// CHECK: ( 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25 )
