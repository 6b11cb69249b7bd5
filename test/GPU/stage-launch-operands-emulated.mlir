// A two-layer MLP compiled for the GPU: every quantization and matmul is a
// kernel, and each kernel reads its inputs where the previous one left them
// on the device. The result equals the CPU reference lowering's bit for bit
// on each target, with buffers kept on the device and copied around each
// launch (copies-per-launch).
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for options in "target=sm_120a" "target=sm_100a" "target=sm_90a" \
// RUN:                "target=sm_90a copies-per-launch=true"; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: FileCheck %s --input-file=%t.cpu --check-prefix=RESULT
// RESULT-COUNT-1: {{^}}[
//
// The copies between host and device (NVFP4_GPU_EMULATOR_REPORT=1): the
// three f32 inputs go in once each and the 128x128 f32 result comes back.
// Nothing else crosses: not the intermediate (128x256 f32), not the
// quantized data and scales, and not the tensor amax of each quantization,
// which the kernels that need it read from the buffer the quantize kernel
// wrote (nvfp4-keep-kernel-scalars-on-device), so the host never waits for
// a kernel before the result. On sm_100a the matmul's epilogue also
// computes the amax of its result, into a buffer the host zeroes first.
// RUN: for target in sm_90a sm_120a sm_100a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | env NVFP4_GPU_EMULATOR_REPORT=1 %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib 2>&1 \
// RUN:   | grep "nvfp4-gpu-emulator: copy" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=COPIES
// COPIES: copy host-to-device 262144 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy device-to-host 65536 bytes
// COPIES-NEXT: copy host-to-device 262144 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy device-to-host 65536 bytes
// COPIES-NEXT: copy host-to-device 262144 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy host-to-device 4 bytes
// COPIES-NEXT: copy host-to-device 131072 bytes
// COPIES-NEXT: copy device-to-host 65536 bytes
// COPIES-NOT: copy

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @mlp(%x: tensor<128x256xf32>, %w1: tensor<256x256xf32>,
               %w2: tensor<128x256xf32>) -> tensor<128x128xf32> {
  %qw1 = nvfp4.quantize %w1 : tensor<256x256xf32> -> !nvfp4.tensor<256x256, 16x16>
  %qx = nvfp4.quantize %x : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  %h = nvfp4.matmul %qx, %qw1 : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<256x256, 16x16> -> tensor<128x256xf32>
  %qw2 = nvfp4.quantize %w2 : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 16x16>
  %qh = nvfp4.quantize %h : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  %y = nvfp4.matmul %qh, %qw2 : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}

func.func @main() {
  %mode = arith.constant 0 : i32
  %xm = memref.alloc() : memref<128x256xf32>
  %xu = memref.cast %xm : memref<128x256xf32> to memref<*xf32>
  %s1 = arith.constant 11 : i64
  call @nvfp4RtFill(%xu, %s1, %mode) : (memref<*xf32>, i64, i32) -> ()
  %w1m = memref.alloc() : memref<256x256xf32>
  %w1u = memref.cast %w1m : memref<256x256xf32> to memref<*xf32>
  %s2 = arith.constant 12 : i64
  call @nvfp4RtFill(%w1u, %s2, %mode) : (memref<*xf32>, i64, i32) -> ()
  %w2m = memref.alloc() : memref<128x256xf32>
  %w2u = memref.cast %w2m : memref<128x256xf32> to memref<*xf32>
  %s3 = arith.constant 13 : i64
  call @nvfp4RtFill(%w2u, %s3, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<128x256xf32> to tensor<128x256xf32>
  %w1 = bufferization.to_tensor %w1m restrict : memref<256x256xf32> to tensor<256x256xf32>
  %w2 = bufferization.to_tensor %w2m restrict : memref<128x256xf32> to tensor<128x256xf32>
  %y = call @mlp(%x, %w1, %w2) : (tensor<128x256xf32>, tensor<256x256xf32>, tensor<128x256xf32>) -> tensor<128x128xf32>
  %bits = arith.bitcast %y : tensor<128x128xf32> to tensor<128x128xi32>
  %bm = bufferization.to_buffer %bits : tensor<128x128xi32> to memref<128x128xi32>
  %bu = memref.cast %bm : memref<128x128xi32> to memref<*xi32>
  call @printMemrefI32(%bu) : (memref<*xi32>) -> ()
  return
}
