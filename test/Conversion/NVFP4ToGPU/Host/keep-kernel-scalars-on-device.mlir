// nvfp4-keep-kernel-scalars-on-device: scalars the host reads back from a
// kernel's one-element output reach later kernels as that buffer.
//
// RUN: nvfp4-opt %s --split-input-file --nvfp4-keep-kernel-scalars-on-device \
// RUN:   | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @reduce(%in: memref<64xf32>, %out: memref<1xf32>) kernel {
      gpu.return
    }
    // No launch calls @scale any more: the copies replace it.
    // CHECK-NOT: gpu.func @scale(
    gpu.func @scale(%in: memref<64xf32>, %s: f32, %t: f32, %out: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %in[%c0] : memref<64xf32>
      %p = arith.mulf %x, %s : f32
      %y = arith.mulf %p, %t : f32
      memref.store %y, %out[%c0] : memref<64xf32>
      gpu.return
    }
    // The copy with operands 1 and 2 by reference, loaded first.
    // CHECK-LABEL: gpu.func @scale_byref1_2(
    // CHECK-SAME: %[[IN2:.*]]: memref<64xf32>, %[[SR:.*]]: memref<1xf32>, %[[TR:.*]]: memref<1xf32>, %[[OUT2:.*]]: memref<64xf32>) kernel
    // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
    // CHECK-NEXT: %[[SV:.*]] = memref.load %[[SR]][%[[Z]]] : memref<1xf32>
    // CHECK-NEXT: %[[TV:.*]] = memref.load %[[TR]][%[[Z]]] : memref<1xf32>
    // CHECK: %[[X:.*]] = memref.load %[[IN2]]
    // CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[SV]] : f32
    // CHECK-NEXT: arith.mulf %[[P]], %[[TV]] : f32
    // The copy with operand 2 by reference.
    // CHECK-LABEL: gpu.func @scale_byref2(
    // CHECK-SAME: %{{.*}}: memref<64xf32>, %{{.*}}: f32, %[[TR3:.*]]: memref<1xf32>, %{{.*}}: memref<64xf32>) kernel
    // CHECK-NEXT: arith.constant 0 : index
    // CHECK-NEXT: memref.load %[[TR3]]
    // CHECK-NOT: gpu.func @scale(
  }

  // Two reductions feed the same kernel: both buffers pass by reference,
  // the loads are gone and the buffers are freed after the launch.
  // CHECK-LABEL: func.func @two_amaxes(
  // CHECK: %[[A:.*]] = memref.alloc() : memref<1xf32>
  // CHECK-NEXT: gpu.launch_func @k::@reduce {{.*}} args(%{{.*}} : memref<64xf32>, %[[A]] : memref<1xf32>)
  // CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<1xf32>
  // CHECK-NEXT: gpu.launch_func @k::@reduce {{.*}} args(%{{.*}} : memref<64xf32>, %[[B]] : memref<1xf32>)
  // CHECK-NOT: memref.load
  // The recorded access says the kernel reads the two buffers.
  // CHECK-NEXT: gpu.launch_func @k::@scale_byref1_2 {{.*}} args(%{{.*}} : memref<64xf32>, %[[A]] : memref<1xf32>, %[[B]] : memref<1xf32>, %{{.*}} : memref<64xf32>) {nvfp4.operand_access = array<i32: 1, 1, 1, 2>}
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: memref.dealloc %[[B]]
  // CHECK-NEXT: return
  func.func @two_amaxes(%x: memref<64xf32>, %y: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %av = memref.load %a[%c0] : memref<1xf32>
    memref.dealloc %a : memref<1xf32>
    %b = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%y : memref<64xf32>, %b : memref<1xf32>)
    %bv = memref.load %b[%c0] : memref<1xf32>
    memref.dealloc %b : memref<1xf32>
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %av : f32, %bv : f32, %y : memref<64xf32>)
        {nvfp4.operand_access = array<i32: 1, 0, 0, 2>}
    return
  }

  // A value the host also uses keeps its load for that use; a scalar that
  // does not come from a kernel's buffer (an argument) stays a scalar.
  // CHECK-LABEL: func.func @host_use(
  // CHECK-SAME: %[[X:.*]]: memref<64xf32>, %[[S:.*]]: f32
  // CHECK: %[[A:.*]] = memref.alloc() : memref<1xf32>
  // CHECK: %[[AV:.*]] = memref.load %[[A]]
  // A launch without nvfp4.operand_access stays without.
  // CHECK-NEXT: gpu.launch_func @k::@scale_byref2 {{.*}} args(%[[X]] : memref<64xf32>, %[[S]] : f32, %[[A]] : memref<1xf32>, %[[X]] : memref<64xf32>){{$}}
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: return %[[AV]]
  func.func @host_use(%x: memref<64xf32>, %s: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %av = memref.load %a[%c0] : memref<1xf32>
    memref.dealloc %a : memref<1xf32>
    gpu.launch_func @k::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %s : f32, %av : f32, %x : memref<64xf32>)
    return %av : f32
  }
}

// -----

// What must stay as it is: a buffer written after the load (the kernel would
// read the later value) and a buffer no kernel writes. The original kernel
// stays: launches still call it.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @reduce(%in: memref<64xf32>, %out: memref<1xf32>) kernel {
      gpu.return
    }
    gpu.func @use(%s: f32) kernel {
      gpu.return
    }
    gpu.func @count(%in: memref<64xf32>, %n: memref<1xindex>) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: gpu.module @k
  // CHECK-NOT: byref
  // CHECK-LABEL: func.func @written_after(
  // CHECK: %[[V:.*]] = memref.load
  // CHECK: gpu.launch_func @k::@reduce
  // CHECK: gpu.launch_func @k::@use {{.*}} args(%[[V]] : f32)
  func.func @written_after(%x: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %v = memref.load %a[%c0] : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : f32)
    return
  }
  // A write through an alias of the buffer after the load.
  // CHECK-LABEL: func.func @alias_written_after(
  // CHECK: %[[V:.*]] = memref.load
  // CHECK: gpu.launch_func @k::@use {{.*}} args(%[[V]] : f32)
  func.func @alias_written_after(%x: memref<64xf32>, %f: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    %alias = memref.cast %a : memref<1xf32> to memref<?xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %v = memref.load %a[%c0] : memref<1xf32>
    memref.store %f, %alias[%c0] : memref<?xf32>
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : f32)
    return
  }
  // A value used as a grid size (not a kernel operand) stays a scalar.
  // CHECK-LABEL: func.func @grid_size(
  // CHECK: %[[N:.*]] = memref.load
  // CHECK: gpu.launch_func @k::@count blocks in (%[[N]],
  func.func @grid_size(%x: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xindex>
    gpu.launch_func @k::@count blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xindex>)
    %n = memref.load %a[%c0] : memref<1xindex>
    %b = memref.alloc() : memref<1xindex>
    gpu.launch_func @k::@count blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %b : memref<1xindex>)
    return
  }
  // CHECK-LABEL: func.func @host_written(
  // CHECK: %[[V:.*]] = memref.load
  // CHECK-NEXT: gpu.launch_func @k::@use {{.*}} args(%[[V]] : f32)
  func.func @host_written(%s: f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    memref.store %s, %a[%c0] : memref<1xf32>
    %v = memref.load %a[%c0] : memref<1xf32>
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : f32)
    return
  }
}

// -----

// Every launch of a kernel takes the scalar by reference: only the copy
// remains.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @reduce(%in: memref<64xf32>, %out: memref<1xf32>) kernel {
      gpu.return
    }
    gpu.func @use(%s: f32) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: gpu.module @k
  // CHECK-NOT: gpu.func @use(
  // CHECK: gpu.func @use_byref0(%{{.*}}: memref<1xf32>) kernel
  // CHECK-NOT: gpu.func @use(
  func.func @only_by_reference(%x: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %v = memref.load %a[%c0] : memref<1xf32>
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : f32)
    return
  }

  // Two loads of one buffer, each feeding a launch: both by reference.
  // CHECK-LABEL: func.func @two_loads(
  // CHECK: %[[A:.*]] = memref.alloc() : memref<1xf32>
  // CHECK-NOT: memref.load
  // CHECK: gpu.launch_func @k::@use_byref0 {{.*}} args(%[[A]] : memref<1xf32>)
  // CHECK-NEXT: gpu.launch_func @k::@use_byref0 {{.*}} args(%[[A]] : memref<1xf32>)
  func.func @two_loads(%x: memref<64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %v = memref.load %a[%c0] : memref<1xf32>
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%v : f32)
    %w = memref.load %a[%c0] : memref<1xf32>
    gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%w : f32)
    return
  }

  // A launch in a loop after the load reads the buffer too: the buffer is
  // freed after the loop.
  // CHECK-LABEL: func.func @in_a_loop(
  // CHECK: %[[A:.*]] = memref.alloc() : memref<1xf32>
  // CHECK-NEXT: gpu.launch_func @k::@reduce
  // CHECK-NOT: memref.load
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: gpu.launch_func @k::@use_byref0 {{.*}} args(%[[A]] : memref<1xf32>)
  // CHECK-NEXT: }
  // CHECK-NEXT: memref.dealloc %[[A]]
  // CHECK-NEXT: return
  func.func @in_a_loop(%x: memref<64xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@reduce blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<64xf32>, %a : memref<1xf32>)
    %v = memref.load %a[%c0] : memref<1xf32>
    memref.dealloc %a : memref<1xf32>
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @k::@use blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
          args(%v : f32)
    }
    return
  }
}
