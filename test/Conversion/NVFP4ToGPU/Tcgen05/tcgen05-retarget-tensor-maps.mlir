// RUN: nvfp4-opt %s --nvfp4-tcgen05-retarget-tensor-maps --split-input-file --verify-diagnostics | FileCheck %s

// A tensor map describes the launch operand right before it: after another
// pass replaced that operand (here by a device copy), the map is encoded
// again from the new operand right before the launch (the encode call, then
// the load of its slot), and the old address computation, down to its
// bufferization.to_buffer, is erased. The slot stays where it is.

// CHECK-LABEL: func.func @rebind(
// CHECK-SAME:    %[[T:.*]]: tensor<128x256xf4E2M1FN>, %[[DEV:.*]]: memref<128x256xf4E2M1FN>)
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK-NOT:     bufferization.to_buffer
// CHECK-NOT:     llvm.call
// CHECK:         %[[MEMCPY_DONE:.*]] = arith.constant 7
// CHECK:         %[[ADDR:.*]] = memref.extract_aligned_pointer_as_index %[[DEV]]
// CHECK:         %[[ADDR64:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK:         %[[PTR:.*]] = llvm.inttoptr %[[ADDR64]] : i64 to !llvm.ptr
// CHECK-NEXT:    llvm.call @nvfp4CudaTensorMapEncode2D(%[[SLOT]], %[[PTR]],
// CHECK-NEXT:    %[[MAP:.*]] = llvm.load %[[SLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK-NEXT:    gpu.launch_func @kernels::@k blocks in ({{.*}}) threads in ({{.*}}) args(%[[DEV]] : memref<128x256xf4E2M1FN>, %[[MAP]] : !llvm.array<16 x i64>)
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  gpu.module @kernels {
    gpu.func @k(%data: memref<128x256xf4E2M1FN>, %map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  func.func @rebind(%t: tensor<128x256xf4E2M1FN>, %dev: memref<128x256xf4E2M1FN>) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %host = bufferization.to_buffer %t read_only : tensor<128x256xf4E2M1FN> to memref<128x256xf4E2M1FN>
    %i = memref.extract_aligned_pointer_as_index %host : memref<128x256xf4E2M1FN> -> index
    %i64 = arith.index_castui %i : index to i64
    %p = llvm.inttoptr %i64 : i64 to !llvm.ptr
    %c128 = arith.constant 128 : i64
    %c3 = arith.constant 3 : i32
    %c128i = arith.constant 128 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %p, %c128, %c128, %c128, %c128i, %c128i, %c3) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    // Stands for the staging code between the map and the launch.
    %memcpyDone = arith.constant 7 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%dev : memref<128x256xf4E2M1FN>, %map : !llvm.array<16 x i64>)
    return
  }
}

// -----

// Launches without tensor maps, pointer operands from other calls and
// aggregates loaded from slots no encode call writes are left alone.

// CHECK-LABEL: func.func @untouched(
// CHECK:         %[[P:.*]] = llvm.call @other()
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[P]]
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    gpu.launch_func @kernels::@k {{.*}} args(%{{.*}} : memref<16xi8>, %[[P]] : !llvm.ptr, %[[V]] : !llvm.array<16 x i64>)
module attributes {gpu.container_module} {
  llvm.func @other() -> !llvm.ptr
  gpu.module @kernels {
    gpu.func @k(%data: memref<16xi8>, %p: !llvm.ptr, %v: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  func.func @untouched(%m: memref<16xi8>) {
    %p = llvm.call @other() : () -> !llvm.ptr
    %v = llvm.load %p : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xi8>, %p : !llvm.ptr, %v : !llvm.array<16 x i64>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  gpu.module @kernels {
    gpu.func @k(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  func.func @no_buffer(%p: !llvm.ptr) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %c128 = arith.constant 128 : i64
    %c3 = arith.constant 3 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %p, %c128, %c128, %c128, %c3, %c3, %c3) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-error @below {{kernel operand #0 is a tensor map that does not follow a memref}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
    return
  }
}
