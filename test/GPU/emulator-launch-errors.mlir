// Launches the GPU emulator does not model fail with a message and a
// non-zero status, never with a wrong result: a cluster launch (clusters
// are not emulated yet).
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s
// CHECK: nvfp4-gpu-emulator: kernel fill: clusters (2x1x1) are not emulated yet

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<64xf32>) kernel {
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%tid] : memref<64xf32>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<64xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@fill clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<64xf32>)
    return
  }
}
