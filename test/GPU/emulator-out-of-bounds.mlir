// The GPU emulator's out-of-bounds checker on deliberately broken kernels:
// every global and shared access of the emitted kernel is checked against
// the launch's device allocations and the CTA's shared memory, and the first
// one outside them stops the program with the kernel, CTA, thread, access
// and source location.
//
// RUN: split-file %s %t
// RUN: nvfp4-opt %t/global.mlir --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: nvfp4-gpu-emulator: out-of-bounds store of 4 bytes of global memory at 0x{{[0-9a-f]+}} in kernel shifted_store, CTA (0, 0, 0), thread (31, 0, 0), at {{.*}}global.mlir:9:7
//
// RUN: nvfp4-opt %t/shared.mlir --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=SHARED
// SHARED: nvfp4-gpu-emulator: out-of-bounds load of 4 bytes of shared memory at 0x{{[0-9a-f]+}} in kernel shared_overread, CTA (1, 0, 0), thread (0, 0, 0), at {{.*}}shared.mlir:11:12
//
// The same kernels with the index in range run cleanly (what the checker
// must leave alone).
// RUN: nvfp4-opt %t/fixed.mlir --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=FIXED
// FIXED: ( 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 )

//--- global.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Thread t writes out[t + 1]: thread 31 writes past the 32 elements.
    gpu.func @shifted_store(%out: memref<32xf32>) kernel {
      %tid = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %i = arith.addi %tid, %c1 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%i] : memref<32xf32>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@shifted_store blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<32xf32>)
    return
  }
}

//--- shared.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Reads a 4-element shared array at index 4 * ctaid: CTA 1 reads past it.
    gpu.func @shared_overread(%out: memref<2xf32>) workgroup(%buf : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      %cta = gpu.block_id x
      %c4 = arith.constant 4 : index
      %i = arith.muli %cta, %c4 : index
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %buf[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %v = memref.load %buf[%i] : memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%cta] : memref<2xf32>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<2xf32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    gpu.launch_func @kernels::@shared_overread blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<2xf32>)
    return
  }
}

//--- fixed.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @store(%out: memref<32xf32>) kernel {
      %tid = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%tid] : memref<32xf32>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<32xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@store blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<32xf32>)
    %f0 = arith.constant 0.0 : f32
    %v = vector.transfer_read %m[%c0], %f0 {in_bounds = [true]} : memref<32xf32>, vector<32xf32>
    vector.print %v : vector<32xf32>
    return
  }
}
