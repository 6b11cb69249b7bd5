// The GPU emulator reports a deadlock (every live thread blocked), with the
// state of each warp, and exits with an error: here lanes 16..31 exit while
// lanes 0..15 wait in a shfl.sync whose member mask names all 32 lanes
// (undefined behaviour in the PTX ISA; a hang on hardware).
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s
// CHECK:      nvfp4-gpu-emulator: deadlock in kernel divergent_shuffle, cluster of CTA (0, 0, 0) (1 CTAs): no thread can run
// CHECK-NEXT:   CTA (0, 0, 0), rank 0: bar.sync 0: 0 of 16 live threads arrived
// CHECK-NEXT:     warp 0: lanes 0..15: shfl.sync; lanes 16..31: exited; shfl.sync members arrived 0x0000ffff of 0xffffffff

module attributes {gpu.container_module} {
  gpu.module @bad {
    gpu.func @divergent_shuffle(%out: memref<32xf32>) kernel {
      %tid = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %lt = arith.cmpi ult, %tid, %c16 : index
      scf.if %lt {
        %v = arith.constant 1.0 : f32
        %o = arith.constant 1 : i32
        %w = arith.constant 32 : i32
        %r, %valid = gpu.shuffle xor %v, %o, %w : f32
        memref.store %r, %out[%tid] : memref<32xf32>
      }
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @bad::@divergent_shuffle blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<32xf32>)
    return
  }
}
