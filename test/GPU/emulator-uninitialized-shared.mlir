// The GPU emulator reports a load of shared memory no store or cp.async
// wrote (shared memory is undefined until written), with the kernel, CTA,
// thread and source location: here thread 0 writes element 0 of a
// 4-element shared array and every thread reads element tid, so thread 1
// reads a never-written element.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s
// CHECK: nvfp4-gpu-emulator: load of shared memory that nothing wrote before: byte 0 of the 4-byte access at shared address 0x404 in kernel partial_write, CTA (0, 0, 0), thread (1, 0, 0), at {{.*}}emulator-uninitialized-shared.mlir:[[# @LINE + 13]]:12

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @partial_write(%out: memref<4xf32>) workgroup(%buf : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %is0 = arith.cmpi eq, %tid, %c0 : index
      scf.if %is0 {
        %one = arith.constant 1.0 : f32
        memref.store %one, %buf[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %v = memref.load %buf[%tid] : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<4xf32>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<4xf32>
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@partial_write blocks in (%c1, %c1, %c1) threads in (%c4, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}
