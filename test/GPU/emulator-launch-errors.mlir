// Launches the hardware would refuse fail with a message and a non-zero
// status, never with a wrong result: a cluster of 2 CTAs that does not tile
// a grid of 3.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s
// CHECK: nvfp4-gpu-emulator: kernel fill: invalid cluster 2x1x1 for the grid 3x1x1 (at most 8 CTAs, dividing the grid)

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
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@fill clusters in (%c2, %c1, %c1) blocks in (%c3, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<64xf32>)
    return
  }
}
