// RUN: nvfp4-opt %s --pass-pipeline="builtin.module(gpu.module(nvfp4-grid-constant-kernel-params))" --split-input-file | FileCheck %s

// A kernel argument only spilled to take its address becomes a byval
// grid-constant parameter (its type, the slot's alignment); the slot's
// readers read the parameter, a tensor-map prefetch in the parameter space.
// The slot, its store and its size constant are gone; other arguments keep
// their types and attributes.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @tma(%[[N:.*]]: i64, %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %[[OUT:.*]]: !llvm.ptr {llvm.noalias})
// CHECK-NOT:     llvm.alloca
// CHECK-NOT:     llvm.store %{{.*}}, %{{.*}} : !llvm.array
// CHECK:         nvvm.prefetch tensormap in_param_space, %[[MAP]] : !llvm.ptr
// CHECK-NEXT:    %[[W:.*]] = llvm.load %[[MAP]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[S:.*]] = llvm.add %[[W]], %[[N]] : i64
// CHECK-NEXT:    llvm.store %[[S]], %[[OUT]] : i64, !llvm.ptr
gpu.module @kernels {
  llvm.func @tma(%n: i64, %map: !llvm.array<16 x i64>, %out: !llvm.ptr {llvm.noalias}) attributes {gpu.kernel, nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot {alignment = 64 : i64} : !llvm.array<16 x i64>, !llvm.ptr
    nvvm.prefetch tensormap, %slot : !llvm.ptr
    %w = llvm.load %slot : !llvm.ptr -> i64
    %s = llvm.add %w, %n : i64
    llvm.store %s, %out : i64, !llvm.ptr
    llvm.return
  }
}

// -----

// Structs too.

// CHECK-LABEL: llvm.func @by_struct(
// CHECK-SAME:    %{{.*}}: !llvm.ptr {llvm.align = 16 : i64, llvm.byval = !llvm.struct<(i64, i32)>, nvvm.grid_constant})
gpu.module @kernels {
  llvm.func @by_struct(%p: !llvm.struct<(i64, i32)>) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.struct<(i64, i32)> {alignment = 16 : i64} : (i32) -> !llvm.ptr
    llvm.store %p, %slot : !llvm.struct<(i64, i32)>, !llvm.ptr
    %v = llvm.load %slot : !llvm.ptr -> i64
    llvm.return
  }
}

// -----

// Left alone: a slot the kernel writes (a grid-constant parameter is
// read-only), a slot passed to a call or to an NVVM operation other than a
// tensor-map read (a data prefetch), an argument used directly, a slot
// of another type or of several elements, a non-kernel function, and
// scalar arguments.

// CHECK-LABEL: llvm.func @written(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @escapes(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @data_prefetch(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @direct_use(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>, %{{.*}}: !llvm.ptr)
// CHECK-LABEL: llvm.func @other_type(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @two_elements(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @device_function(
// CHECK-SAME:    %{{.*}}: !llvm.array<16 x i64>)
// CHECK:         llvm.alloca
// CHECK-LABEL: llvm.func @scalar(
// CHECK-SAME:    %{{.*}}: i64)
// CHECK:         llvm.alloca
// CHECK-NOT:   nvvm.grid_constant
gpu.module @kernels {
  llvm.func @sink(!llvm.ptr)
  llvm.func @written(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    %zero = llvm.mlir.constant(0 : i64) : i64
    llvm.store %zero, %slot : i64, !llvm.ptr
    llvm.return
  }
  llvm.func @escapes(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    llvm.call @sink(%slot) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @data_prefetch(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    nvvm.prefetch level = L1, %slot : !llvm.ptr
    llvm.return
  }
  llvm.func @direct_use(%map: !llvm.array<16 x i64>, %out: !llvm.ptr) attributes {nvvm.kernel} {
    %w = llvm.extractvalue %map[0] : !llvm.array<16 x i64>
    llvm.store %w, %out : i64, !llvm.ptr
    llvm.return
  }
  llvm.func @other_type(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<32 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    llvm.return
  }
  llvm.func @two_elements(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
    %two = llvm.mlir.constant(2 : i32) : i32
    %slot = llvm.alloca %two x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    llvm.return
  }
  llvm.func @device_function(%map: !llvm.array<16 x i64>) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    llvm.store %map, %slot : !llvm.array<16 x i64>, !llvm.ptr
    llvm.return
  }
  llvm.func @scalar(%n: i64) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x i64 : (i32) -> !llvm.ptr
    llvm.store %n, %slot : i64, !llvm.ptr
    llvm.return
  }
}
