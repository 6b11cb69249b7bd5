// ldmatrix becomes a call of the emulator with the lane's row address, the
// matrix count, an access site of its own and the source location; the
// registers come back through a stack buffer, in order. (Site 0 is the
// store's access check, inserted before the operations are rewritten.)
// RUN: nvfp4-opt %s --nvfp4-emulate-gpu-kernels | FileCheck %s

// CHECK-LABEL: llvm.func internal @__nvfp4_emu_k_kern(
// CHECK-SAME:      %[[T:[^:]*]]: !llvm.ptr, %[[P:[^:]*]]: !llvm.ptr
// CHECK:         %[[D:.*]] = llvm.alloca %{{.*}} x i32
// CHECK:         %[[NUM:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK:         %[[SITE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         llvm.call @nvfp4EmuLdMatrix(%[[T]], %[[P]], %[[NUM]], %[[SITE]], %{{.*}}, %[[D]])
// CHECK:         %[[R0P:.*]] = llvm.getelementptr %[[D]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[R0:.*]] = llvm.load %[[R0P]] : !llvm.ptr -> i32
// CHECK:         %[[S0:.*]] = llvm.insertvalue %[[R0]], %{{.*}}[0]
// CHECK:         %[[R3P:.*]] = llvm.getelementptr %[[D]][3] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK-NEXT:    %[[R3:.*]] = llvm.load %[[R3P]] : !llvm.ptr -> i32
// CHECK:         llvm.insertvalue %[[R3]], %{{.*}}[3]
// CHECK-NOT:     nvvm.ldmatrix
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%p: !llvm.ptr<3>, %out: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %0 = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      %1 = llvm.extractvalue %0[3] : !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %1, %out : i32, !llvm.ptr<1>
      llvm.return
    }
  }
}
