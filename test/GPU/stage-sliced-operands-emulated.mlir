// Kernel operands that are slices of a larger buffer: the leading rows
// (a strided view laid out as the identity, which bufferization casts to the
// identity layout; the device staging copies it through a reinterpret_cast,
// since a gpu.memcpy of the strided view, into which the canonicalizer
// would fold the cast, has no lowering) and rows at an offset. The GPU
// kernels, run by the emulator, give the CPU reference lowering's bytes.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for target in sm_120a sm_100a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: grep -c "^\[\[" %t.cpu | FileCheck %s
// CHECK: 2

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @print(%d: tensor<48x128xf32>) {
  %bits = arith.bitcast %d : tensor<48x128xf32> to tensor<48x128xi32>
  %b = bufferization.to_buffer %bits : tensor<48x128xi32> to memref<48x128xi32>
  %bu = memref.cast %b : memref<48x128xi32> to memref<*xi32>
  call @printMemrefI32(%bu) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %m = memref.alloc() : memref<128x128xf32>
  %u = memref.cast %m : memref<128x128xf32> to memref<*xf32>
  %s = arith.constant 5 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %s, %mode) : (memref<*xf32>, i64, i32) -> ()
  %f = bufferization.to_tensor %m restrict : memref<128x128xf32> to tensor<128x128xf32>
  %x0 = tensor.extract_slice %f[0, 0] [48, 128] [1, 1] : tensor<128x128xf32> to tensor<48x128xf32>
  %q0 = nvfp4.quantize %x0 : tensor<48x128xf32> -> !nvfp4.tensor<48x128, 16x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<48x128, 16x16> -> tensor<48x128xf32>
  call @print(%d0) : (tensor<48x128xf32>) -> ()
  %x1 = tensor.extract_slice %f[16, 0] [48, 128] [1, 1] : tensor<128x128xf32> to tensor<48x128xf32>
  %q1 = nvfp4.quantize %x1 : tensor<48x128xf32> -> !nvfp4.tensor<48x128, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<48x128, 1x16> -> tensor<48x128xf32>
  call @print(%d1) : (tensor<48x128xf32>) -> ()
  return
}
