// nvfp4-gpu-stage-launch-operands on buffers: where device buffers are
// allocated, copied in, copied out and freed, and what stays on the device
// between launches.
//
// RUN: nvfp4-opt %s --split-input-file --nvfp4-gpu-stage-launch-operands \
// RUN:   | FileCheck %s
// RUN: nvfp4-opt %s --split-input-file \
// RUN:   --nvfp4-gpu-stage-launch-operands="per-launch=true" \
// RUN:   | FileCheck %s --check-prefix=PER

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// A kernel's output read by the next kernel stays on the device: the input
// goes in once, the intermediate never crosses, the result comes back once
// (the function returns it), and each device buffer is freed after its last
// use.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:.*]]: memref<16xf32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[DX:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.memcpy %[[DX]], %[[X]]
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}} args(%[[DX]] : memref<16xf32>, %[[DT]] : memref<16xf32>)
// CHECK-NOT: nvfp4.operand_access
// CHECK-NEXT: gpu.dealloc %[[DX]]
// CHECK-NEXT: %[[DR:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}} args(%[[DT]] : memref<16xf32>, %[[DR]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK-NEXT: gpu.memcpy %[[R]], %[[DR]]
// CHECK-NEXT: gpu.dealloc %[[DR]]
// CHECK-NEXT: return %[[R]]

// Copied around each launch: the intermediate goes out and back in.
// PER-LABEL: func.func @chain(
// PER: gpu.launch_func @k::@produce
// PER-NEXT: gpu.dealloc
// PER-NEXT: gpu.memcpy %[[T:.*]], %[[DT:.*]] :
// PER-NEXT: gpu.dealloc %[[DT]]
// PER-NEXT: %[[DT2:.*]] = gpu.alloc () : memref<16xf32>
// PER-NEXT: gpu.memcpy %[[DT2]], %[[T]]
// PER-NEXT: %[[DR:.*]] = gpu.alloc
// PER-NEXT: gpu.launch_func @k::@produce {{.*}} args(%[[DT2]] : memref<16xf32>, %[[DR]] : memref<16xf32>)
// PER-NEXT: gpu.dealloc %[[DT2]]
// PER-NEXT: gpu.memcpy %{{.*}}, %[[DR]]
// PER-NEXT: gpu.dealloc %[[DR]]
// PER-NEXT: return
  func.func @chain(%x: memref<16xf32>) -> memref<16xf32> {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    %r = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%t : memref<16xf32>, %r : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return %r : memref<16xf32>
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// A host read brings the kernel's output back first; the device copy stays
// current (a load does not write), so the next launch reads it in place.
// CHECK-LABEL: func.func @host_read_between(
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DT]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NEXT: gpu.memcpy %[[T]], %[[DT]]
// CHECK-NEXT: %[[V:.*]] = memref.load %[[T]]
// CHECK-NOT: gpu.memcpy %[[DT]]
// CHECK: gpu.launch_func @k::@produce {{.*}} args(%[[DT]] : memref<16xf32>,
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK: return %[[V]]
  func.func @host_read_between(%x: memref<16xf32>, %y: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %v = memref.load %t[%c0] : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%t : memref<16xf32>, %y : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return %v : f32
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// A host write of part of a kernel's output: the host copy is brought back
// first (the write keeps the other elements), and the next launch gets it
// again. The argument the second kernel writes goes back at the end of the
// function, which the caller sees.
// CHECK-LABEL: func.func @host_write_between(
// CHECK-SAME: %[[X:.*]]: memref<16xf32>, %[[Y:.*]]: memref<16xf32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DT]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NEXT: gpu.memcpy %[[T]], %[[DT]]
// CHECK-NEXT: memref.store %{{.*}}, %[[T]]
// CHECK-NEXT: gpu.memcpy %[[DT]], %[[T]]
// CHECK-NEXT: %[[DY:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}} args(%[[DT]] : memref<16xf32>, %[[DY]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK-NEXT: gpu.memcpy %[[Y]], %[[DY]]
// CHECK-NEXT: gpu.dealloc %[[DY]]
// CHECK-NEXT: return
  func.func @host_write_between(%x: memref<16xf32>, %y: memref<16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    %t = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    memref.store %f, %t[%c0] : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%t : memref<16xf32>, %y : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// A buffer of the function that it frees, or never lets out, is not copied
// back.
// CHECK-LABEL: func.func @dead_outputs(
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.memcpy
// CHECK: memref.dealloc
// CHECK-NOT: gpu.memcpy
// CHECK: return
  func.func @dead_outputs(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    %u = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%t : memref<16xf32>, %u : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    memref.dealloc %t : memref<16xf32>
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
    gpu.func @produce2d(%in: memref<4x16xf32>, %out: memref<4x16xf32>) kernel {
      gpu.return
    }
    gpu.func @produce2rows(%in: memref<2x16xf32>, %out: memref<2x16xf32>) kernel {
      gpu.return
    }
  }

// Two views of one buffer: the device copy of the whole buffer goes back to
// the host before the launch that reads its leading rows through another
// view, which gets its own device copy (through a reinterpret_cast).
// CHECK-LABEL: func.func @views(
// CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK: %[[CAST:.*]] = memref.cast
// CHECK-NEXT: %[[RC:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 16], strides: [16, 1]
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DB:.*]] = gpu.alloc () : memref<4x16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce2d {{.*}}, %[[DB]] : memref<4x16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
// CHECK-NEXT: gpu.dealloc %[[DB]]
// CHECK-NEXT: %[[DV:.*]] = gpu.alloc () : memref<2x16xf32>
// CHECK-NEXT: gpu.memcpy %[[DV]], %[[RC]]
// CHECK: gpu.launch_func @k::@produce2rows {{.*}} args(%[[DV]] : memref<2x16xf32>,
  func.func @views(%x: memref<4x16xf32>, %y: memref<2x16xf32>) {
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    %sub = memref.subview %b[0, 0] [2, 16] [1, 1] : memref<4x16xf32> to memref<2x16xf32, strided<[16, 1]>>
    %cast = memref.cast %sub : memref<2x16xf32, strided<[16, 1]>> to memref<2x16xf32>
    gpu.launch_func @k::@produce2d blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<4x16xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    gpu.launch_func @k::@produce2rows blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%cast : memref<2x16xf32>, %y : memref<2x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// A loop whose body launches a kernel that reads a buffer an earlier
// kernel wrote: the body borrows the device copy of the enclosing block, so
// the buffer neither goes back to the host before the loop nor comes in at
// each iteration; the body's own output (an argument) goes back at the end
// of each iteration, and the borrowed copy is freed after the loop.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME: %[[X:.*]]: memref<16xf32>, %[[U:.*]]: memref<16xf32>
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DT]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NEXT: scf.for
// CHECK-NEXT: %[[DO:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}} args(%[[DT]] : memref<16xf32>, %[[DO]] : memref<16xf32>)
// CHECK-NEXT: gpu.memcpy %[[U]], %[[DO]]
// CHECK-NEXT: gpu.dealloc %[[DO]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK-NEXT: return
  func.func @loop(%x: memref<16xf32>, %u: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%t : memref<16xf32>, %u : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    }
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

// An aligned pointer taken for anything but a tensor map lets host code
// reach the buffer without a memref: it is copied around each launch.
// CHECK-LABEL: func.func @escaping_address(
// CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DT]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NEXT: gpu.memcpy %[[T]], %[[DT]]
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK-NEXT: return
  func.func @escaping_address(%x: memref<16xf32>) -> index {
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    %p = memref.extract_aligned_pointer_as_index %t : memref<16xf32> -> index
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return %p : index
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
    gpu.func @consume(%in: memref<16xf32>, %map: !llvm.array<128 x i8>) kernel {
      gpu.return
    }
  }

  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)

// The address of a tensor map (which nvfp4-tcgen05-retarget-tensor-maps
// replaces by the device buffer's) is not a host access.
// CHECK-LABEL: func.func @tensor_map_address(
// CHECK: gpu.memcpy
// CHECK-NEXT: %[[DT:.*]] = gpu.alloc () : memref<16xf32>
// CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DT]] : memref<16xf32>)
// CHECK-NEXT: gpu.dealloc
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch_func @k::@consume {{.*}} args(%[[DT]] : memref<16xf32>,
// CHECK-NEXT: gpu.dealloc %[[DT]]
// CHECK-NEXT: return
  func.func @tensor_map_address(%x: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c1_i32 = arith.constant 1 : i32
    %c16_i32 = arith.constant 16 : i32
    %c64_i64 = arith.constant 64 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %t = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %slot = llvm.alloca %c1_i32 x !llvm.array<128 x i8> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %p = memref.extract_aligned_pointer_as_index %t : memref<16xf32> -> index
    %i = arith.index_castui %p : index to i64
    %address = llvm.inttoptr %i : i64 to !llvm.ptr
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %address, %c64_i64, %c1_i64, %c64_i64, %c16_i32, %c1_i32, %c0_i32) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot : !llvm.ptr -> !llvm.array<128 x i8>
    gpu.launch_func @k::@consume blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%t : memref<16xf32>, %map : !llvm.array<128 x i8>) {nvfp4.operand_access = array<i32: 1, 0>}
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }

  // Only a loop launches: the weight, an argument the body only reads, is
  // copied in once before the loop.
  // CHECK-LABEL: func.func @loop_invariant_argument(
  // CHECK-SAME: %[[W:.*]]: memref<16xf32>, %[[U:.*]]: memref<16xf32>
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: %[[DW:.*]] = gpu.alloc () : memref<16xf32>
  // CHECK-NEXT: gpu.memcpy %[[DW]], %[[W]]
  // CHECK-NEXT: scf.for
  // CHECK-NOT: gpu.memcpy %{{.*}}, %[[W]]
  // CHECK: gpu.launch_func @k::@produce {{.*}} args(%[[DW]] : memref<16xf32>,
  // CHECK: }
  // CHECK-NEXT: gpu.dealloc %[[DW]]
  func.func @loop_invariant_argument(%w: memref<16xf32>, %u: memref<16xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%w : memref<16xf32>, %u : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    }
    return
  }

  // What the function does not lend the loop: a buffer its body's kernel
  // writes (%u), a buffer host code in the body touches (%h), a buffer the
  // loop carries (%c, written through the iteration argument), and a buffer
  // only a launch nested deeper reads (%d, in an scf.if): the body stages
  // each as before, the function copies nothing in ahead. The body itself
  // lends %d to the scf.if: copied in before it.
  // CHECK-LABEL: func.func @not_borrowed(
  // CHECK-SAME: %[[U:[^:]*]]: memref<16xf32>, %[[H:[^:]*]]: memref<16xf32>, %[[C:[^:]*]]: memref<16xf32>, %[[D:[^:]*]]: memref<16xf32>
  // CHECK-NOT: gpu.alloc
  // CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %[[C]])
  // CHECK-NEXT: %[[DU:.*]] = gpu.alloc
  // CHECK-NEXT: gpu.memcpy %[[DU]], %[[U]]
  // CHECK-NEXT: gpu.launch_func {{.*}} args(%[[DU]] : memref<16xf32>, %[[DU]] : memref<16xf32>)
  // CHECK-NEXT: memref.load %[[H]]
  // CHECK-NEXT: %[[DH:.*]] = gpu.alloc
  // CHECK-NEXT: gpu.memcpy %[[DH]], %[[H]]
  // The loop yields %a: it goes back right after the launch that wrote it.
  // CHECK: gpu.dealloc %[[DH]]
  // CHECK-NEXT: gpu.memcpy %[[A]],
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: %[[DD:.*]] = gpu.alloc
  // CHECK-NEXT: gpu.memcpy %[[DD]], %[[D]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: gpu.alloc
  // CHECK-NEXT: gpu.launch_func {{.*}} args(%[[DD]] : memref<16xf32>,
  // CHECK: gpu.memcpy %[[U]], %[[DU]]
  // CHECK-NEXT: gpu.dealloc %[[DU]]
  // CHECK-NEXT: scf.yield
  func.func @not_borrowed(%u: memref<16xf32>, %h: memref<16xf32>, %c: memref<16xf32>, %d: memref<16xf32>, %n: index, %p: i1) -> memref<16xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c) -> (memref<16xf32>) {
      gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%u : memref<16xf32>, %u : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
      %v = memref.load %h[%c0] : memref<16xf32>
      gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%h : memref<16xf32>, %a : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
      scf.if %p {
        gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
            args(%d : memref<16xf32>, %a : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
      }
      scf.yield %a : memref<16xf32>
    }
    return %r : memref<16xf32>
  }
}

// -----

// Aliases and host accesses the staging must see.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<64xf32>, %out: memref<4x16xf32>) kernel {
      gpu.return
    }
    gpu.func @two(%a: memref<4x16xf32>, %b: memref<64xf32>) kernel {
      gpu.return
    }
    gpu.func @read(%in: memref<4x16xf32>) kernel {
      gpu.return
    }
  }

  // One launch reads a buffer through two views, each with a device copy
  // from the host: the device copy an earlier kernel wrote goes back first.
  // CHECK-LABEL: func.func @two_views_one_launch(
  // CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
  // CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[B]]
  // CHECK: %[[DB:.*]] = gpu.alloc () : memref<4x16xf32>
  // CHECK-NEXT: gpu.launch_func @k::@produce {{.*}}, %[[DB]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  // CHECK-NEXT: gpu.dealloc %[[DB]]
  // CHECK-NEXT: %[[DB2:.*]] = gpu.alloc () : memref<4x16xf32>
  // CHECK-NEXT: gpu.memcpy %[[DB2]], %[[B]]
  // CHECK-NEXT: %[[DF:.*]] = gpu.alloc () : memref<64xf32>
  // CHECK-NEXT: gpu.memcpy %[[DF]], %[[FLAT]]
  // CHECK-NEXT: gpu.launch_func @k::@two {{.*}} args(%[[DB2]] : memref<4x16xf32>, %[[DF]] : memref<64xf32>)
  func.func @two_views_one_launch(%x: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    %flat = memref.collapse_shape %b [[0, 1]] : memref<4x16xf32> into memref<64xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    gpu.launch_func @k::@two blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<4x16xf32>, %flat : memref<64xf32>) {nvfp4.operand_access = array<i32: 1, 1>}
    return
  }

  // A host read through a view of a buffer a kernel wrote.
  // CHECK-LABEL: func.func @read_through_view(
  // CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DB:.*]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  // CHECK-NEXT: gpu.dealloc %[[DB]]
  // CHECK-NEXT: memref.load %[[SUB:.*]][
  func.func @read_through_view(%x: memref<64xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    %sub = memref.subview %b[1, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: 16>>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %v = memref.load %sub[%c0] : memref<16xf32, strided<[1], offset: 16>>
    return %v : f32
  }

  // Without nvfp4.operand_access, a launch reads and writes every memref:
  // the argument goes in, and back at the end.
  // CHECK-LABEL: func.func @no_access_attribute(
  // CHECK-SAME: %[[Y:.*]]: memref<4x16xf32>
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: %[[DY:.*]] = gpu.alloc
  // CHECK-NEXT: gpu.memcpy %[[DY]], %[[Y]]
  // CHECK-NEXT: gpu.launch_func @k::@read
  // CHECK-NEXT: gpu.memcpy %[[Y]], %[[DY]]
  // CHECK-NEXT: gpu.dealloc %[[DY]]
  func.func @no_access_attribute(%y: memref<4x16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%y : memref<4x16xf32>)
    return
  }

  // A host write in a nested region, and a free that may not happen: the
  // kernel's output comes back before each, and the next launch copies the
  // buffer in again.
  // CHECK-LABEL: func.func @nested_host_write(
  // CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DB:.*]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: memref.store
  // CHECK: gpu.memcpy %[[DB]], %[[B]]
  // CHECK-NEXT: gpu.launch_func @k::@read {{.*}} args(%[[DB]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  // CHECK-NEXT: gpu.dealloc %[[DB]]
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: memref.dealloc %[[B]]
  func.func @nested_host_write(%x: memref<64xf32>, %p: i1, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    scf.if %p {
      memref.store %f, %b[%c0, %c0] : memref<4x16xf32>
    }
    gpu.launch_func @k::@read blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 3>}
    scf.if %p {
      memref.dealloc %b : memref<4x16xf32>
    }
    return
  }

  // An alias that no view records (arith.select): copied around the launch.
  // CHECK-LABEL: func.func @select_alias(
  // CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DB:.*]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  func.func @select_alias(%x: memref<64xf32>, %other: memref<4x16xf32>, %p: i1) -> memref<4x16xf32> {
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    %s = arith.select %p, %b, %other : memref<4x16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    return %s : memref<4x16xf32>
  }

  // An allocation of the block that a successor block reads comes back at
  // the end of the block.
  // CHECK-LABEL: func.func @successor_block(
  // CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DB:.*]] : memref<4x16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[B]], %[[DB]]
  // CHECK-NEXT: gpu.dealloc %[[DB]]
  // CHECK-NEXT: cf.br
  func.func @successor_block(%x: memref<64xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = memref.alloc() : memref<4x16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<4x16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    cf.br ^next
  ^next:
    %v = memref.load %b[%c0, %c0] : memref<4x16xf32>
    return %v : f32
  }
}

// -----

// A loop whose body launches a kernel without operands: nothing to lend.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @nothing() kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @no_operands(
  // CHECK-NOT: gpu.alloc
  // CHECK-NOT: gpu.memcpy
  // CHECK: gpu.launch_func @k::@nothing
  func.func @no_operands(%n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@nothing blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    }
    return
  }
}

// -----

// Buffers that may share memory with others the staging tracks apart:
// copied around each launch.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @produce(%in: memref<16xf32>, %out: memref<16xf32>) kernel {
      gpu.return
    }
  }
  memref.global "private" @state : memref<16xf32> = dense<0.0>

  // The result of arith.select, written by a kernel: the host may read it
  // through the select's operands.
  // CHECK-LABEL: func.func @select_result(
  // CHECK: %[[S:.*]] = arith.select
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DS:.*]] : memref<16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[S]], %[[DS]]
  // CHECK-NEXT: gpu.dealloc %[[DS]]
  // CHECK-NEXT: memref.load
  func.func @select_result(%x: memref<16xf32>, %p: i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<16xf32>
    %b = memref.alloc() : memref<16xf32>
    %s = arith.select %p, %a, %b : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %s : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %v = memref.load %a[%c0] : memref<16xf32>
    return %v : f32
  }

  // A non-constant global, reached through two memref.get_global.
  // CHECK-LABEL: func.func @global_state(
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DG:.*]] : memref<16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %{{.*}}, %[[DG]]
  func.func @global_state(%x: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %g = memref.get_global @state : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %g : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %h = memref.get_global @state : memref<16xf32>
    %v = memref.load %h[%c0] : memref<16xf32>
    return %v : f32
  }

  // A buffer with a tensor map's address (its newest use) and an alias
  // made before it: the alias still counts.
  // CHECK-LABEL: func.func @tensor_map_and_alias(
  // CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DT:.*]] : memref<16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[T]], %[[DT]]
  // CHECK-NEXT: gpu.dealloc %[[DT]]
  // CHECK-NEXT: llvm.alloca
  func.func @tensor_map_and_alias(%x: memref<16xf32>, %q: i1) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c1_i32 = arith.constant 1 : i32
    %c16_i32 = arith.constant 16 : i32
    %c64_i64 = arith.constant 64 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %t = memref.alloc() : memref<16xf32>
    %s = arith.select %q, %t, %x : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    %slot = llvm.alloca %c1_i32 x !llvm.array<128 x i8> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %p = memref.extract_aligned_pointer_as_index %t : memref<16xf32> -> index
    %i = arith.index_castui %p : index to i64
    %address = llvm.inttoptr %i : i64 to !llvm.ptr
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %address, %c64_i64, %c1_i64, %c64_i64, %c16_i32, %c1_i32, %c0_i32) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %v = memref.load %s[%c0] : memref<16xf32>
    return %v : f32
  }

  // A buffer passed to a successor block.
  // CHECK-LABEL: func.func @successor_argument(
  // CHECK: %[[T:.*]] = memref.alloc() : memref<16xf32>
  // CHECK: gpu.launch_func @k::@produce {{.*}}, %[[DT:.*]] : memref<16xf32>)
  // CHECK-NEXT: gpu.dealloc
  // CHECK-NEXT: gpu.memcpy %[[T]], %[[DT]]
  func.func @successor_argument(%x: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@produce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<16xf32>, %t : memref<16xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
    cf.br ^next(%t : memref<16xf32>)
  ^next(%u: memref<16xf32>):
    %v = memref.load %u[%c0] : memref<16xf32>
    return %v : f32
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @scale(%in: memref<?x64xf32>, %codes: memref<?x64xf4E2M1FN>, %out: memref<?x64xf32>) kernel {
      gpu.return
    }
  }

// Run-time sizes: each device buffer is allocated with the sizes of its host
// buffer, read where it is allocated, and a packed byte buffer's view gets
// the host view's run-time sizes on the device.
// CHECK-LABEL: func.func @run_time_sizes(
// CHECK-SAME: %[[X:[^:]*]]: memref<?x64xf32>, %[[BYTES:[^:]*]]: memref<?xi8>, %[[M:[^:]*]]: index
// CHECK: %[[R:.*]] = memref.alloc(%[[M]]) : memref<?x64xf32>
// CHECK: %[[XM:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK-NEXT: %[[DX:.*]] = gpu.alloc (%[[XM]]) : memref<?x64xf32>
// CHECK-NEXT: gpu.memcpy %[[DX]], %[[X]]
// CHECK: %[[BN:.*]] = memref.dim %[[BYTES]], %{{.*}}
// CHECK-NEXT: %[[DB:.*]] = gpu.alloc (%[[BN]]) : memref<?xi8>
// CHECK-NEXT: gpu.memcpy %[[DB]], %[[BYTES]]
// CHECK-NEXT: %[[DV:.*]] = memref.view %[[DB]][%{{.*}}][%[[M]]] : memref<?xi8> to memref<?x64xf4E2M1FN>
// CHECK: %[[RM:.*]] = memref.dim %[[R]], %{{.*}}
// CHECK-NEXT: %[[DR:.*]] = gpu.alloc (%[[RM]]) : memref<?x64xf32>
// CHECK-NEXT: gpu.launch_func @k::@scale {{.*}} args(%[[DX]] : memref<?x64xf32>, %[[DV]] : memref<?x64xf4E2M1FN>, %[[DR]] : memref<?x64xf32>)
// CHECK: gpu.memcpy %[[R]], %[[DR]]
  func.func @run_time_sizes(%x: memref<?x64xf32>, %bytes: memref<?xi8>, %m: index) -> memref<?x64xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = memref.alloc(%m) : memref<?x64xf32>
    %codes = memref.view %bytes[%c0][%m] : memref<?xi8> to memref<?x64xf4E2M1FN>
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<?x64xf32>, %codes : memref<?x64xf4E2M1FN>, %r : memref<?x64xf32>) {nvfp4.operand_access = array<i32: 1, 1, 2>}
    return %r : memref<?x64xf32>
  }
}
