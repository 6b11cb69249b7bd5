// RUN: nvfp4-opt %s --nvfp4-emulate-gpu-kernels | FileCheck %s

// A byval grid-constant kernel parameter (a tensor map, after
// nvfp4-grid-constant-kernel-params) is read in place under the emulator:
// the entry passes the address of the launch's slot instead of loading
// from it, the emulated kernel takes it as a plain pointer (no byval copy,
// no NVVM attribute), and the prefetch in the parameter space is the
// emulator's tensor-map prefetch of that address. Other parameters are
// loaded from their slots.

// CHECK-LABEL: llvm.func internal @__nvfp4_emu_k_kern(
// CHECK-SAME:      %[[T:arg0]]: !llvm.ptr, %[[N:arg1]]: i64, %[[MAP:arg2]]: !llvm.ptr) {
// CHECK:         llvm.call @nvfp4EmuPrefetchTensorMap(%[[T]], %[[MAP]], %{{.*}})
// CHECK-LABEL: llvm.func @__nvfp4_emu_k_kern_entry(
// CHECK-SAME:      %[[ET:.*]]: !llvm.ptr, %[[PARAMS:.*]]: !llvm.ptr)
// CHECK-NEXT:    %[[A0:.*]] = llvm.getelementptr %[[PARAMS]][0]
// CHECK-NEXT:    %[[S0:.*]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[NV:.*]] = llvm.load %[[S0]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[A1:.*]] = llvm.getelementptr %[[PARAMS]][1]
// CHECK-NEXT:    %[[S1:.*]] = llvm.load %[[A1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    llvm.call @__nvfp4_emu_k_kern(%[[ET]], %[[NV]], %[[S1]])
// CHECK-NOT:     llvm.byval
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%n: i64, %map: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}) attributes {gpu.kernel, nvvm.kernel} {
      nvvm.prefetch tensormap in_param_space, %map : !llvm.ptr
      llvm.return
    }
  }
}
