// Launch plans of hand-written host code: constants and cluster
// dimensions are written as given; what a plan cannot express (host-computed
// launch dimensions or operands, buffers the host writes, dynamic shapes)
// is refused with a diagnostic at the value, and nothing is written.
//
// RUN: nvfp4-translate --nvfp4-extract-launch-plan --split-input-file \
// RUN:   --verify-diagnostics %s | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>, %s: f32, %i: i32, %t: memref<f32>) kernel {
      gpu.return
    }
  }
  // CHECK: # nvfp4 launch plan 1
  // CHECK-NEXT: function constants
  // CHECK-NEXT: buffer 0 f32 4x8 arg0
  // CHECK-NEXT: scalar 1 f32 const=0x3FC00000
  // CHECK-NEXT: scalar 2 i32 const=0xFFFFFFFF
  // CHECK-NEXT: buffer 3 f32 0d temp
  // CHECK-NEXT: launch k grid 4 1 1 block 32 2 1 cluster 2 1 1 shared 0 args 0 1 2 3
  // CHECK-NEXT: launch k grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 1024 args 0 1 2 3
  // CHECK-NEXT: end
  // CHECK-NEXT: function arguments
  // CHECK-NEXT: buffer 0 f32 4x8 arg1
  // CHECK-NEXT: scalar 1 f32 arg0
  // CHECK-NEXT: scalar 2 i32 arg2
  // CHECK-NEXT: buffer 3 f32 0d temp
  // CHECK-NEXT: launch k grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1 2 3
  // CHECK-NEXT: end
  // The second launch reads the buffer the first writes, through a tensor.
  // CHECK-NEXT: function chain
  // CHECK-NEXT: buffer 0 f32 4x8 temp
  // CHECK-NEXT: scalar 1 f32 arg0
  // CHECK-NEXT: scalar 2 i32 const=0x0
  // CHECK-NEXT: buffer 3 f32 0d result0
  // CHECK-NEXT: launch k grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1 2 3
  // CHECK-NEXT: buffer 4 f32 0d temp
  // CHECK-NEXT: launch k grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1 2 4
  // CHECK-NEXT: end
  // The refused modules below write nothing.
  // CHECK-NOT: {{.}}
  func.func @constants(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %s = arith.constant 1.5 : f32
    %i = arith.constant -1 : i32
    %t = memref.alloc() : memref<f32>
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %smem = arith.constant 1024 : i32
    gpu.launch_func @kernels::@k clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c32, %c2, %c1) args(%m : memref<4x8xf32>, %s : f32, %i : i32, %t : memref<f32>)
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %smem args(%m : memref<4x8xf32>, %s : f32, %i : i32, %t : memref<f32>)
    memref.dealloc %t : memref<f32>
    return
  }
  // Scalar and memref arguments passed as they are.
  func.func @arguments(%s: f32, %m: memref<4x8xf32>, %i: i32) {
    %t = memref.alloc() : memref<f32>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>, %s : f32, %i : i32, %t : memref<f32>)
    return
  }
  func.func @chain(%s: f32) -> tensor<f32> {
    %m = memref.alloc() : memref<4x8xf32>
    %t = memref.alloc() : memref<f32>
    %u = memref.alloc() : memref<f32>
    %zero = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>, %s : f32, %zero : i32, %t : memref<f32>)
    %mt = bufferization.to_tensor %m restrict : memref<4x8xf32> to tensor<4x8xf32>
    %mb = bufferization.to_buffer %mt read_only : tensor<4x8xf32> to memref<4x8xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%mb : memref<4x8xf32>, %s : f32, %zero : i32, %u : memref<f32>)
    %r = bufferization.to_tensor %t restrict : memref<f32> to tensor<f32>
    return %r : tensor<f32>
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  func.func @host_grid(%x: tensor<4x8xf32>, %n: index) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %c1 = arith.constant 1 : index
    // expected-error @below {{launch plans need constant launch dimensions; the grid x of @k is computed on the host}}
    gpu.launch_func @kernels::@k blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  func.func @host_written() -> tensor<4x8xf32> {
    %m = memref.alloc() : memref<4x8xf32>
    %zero = arith.constant 0.0 : f32
    // expected-error @below {{launch operand of type 'memref<4x8xf32>' is written on the host ('linalg.fill'), which a launch plan cannot express}}
    linalg.fill ins(%zero : f32) outs(%m : memref<4x8xf32>)
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    %t = bufferization.to_tensor %m restrict : memref<4x8xf32> to tensor<4x8xf32>
    return %t : tensor<4x8xf32>
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%s: f32) kernel {
      gpu.return
    }
  }
  func.func @host_scalar(%x: f32) {
    // expected-error @below {{launch operand of type 'f32' cannot be written to a launch plan}}
    %y = arith.mulf %x, %x : f32
    %c1 = arith.constant 1 : index
    // expected-note @below {{a plan passes buffers of function arguments and results}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : f32)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<1xf32>, %s: f32) kernel {
      gpu.return
    }
  }
  func.func @host_read() {
    %m = memref.alloc() : memref<1xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<1xf32>, %zero : f32)
    // expected-error @below {{launch operand of type 'f32' is read on the host from a buffer (memref.load), which a launch plan cannot express: it has no host synchronization}}
    %s = memref.load %m[%c0] : memref<1xf32>
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<1xf32>, %s : f32)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<?x8xf32>) kernel {
      gpu.return
    }
  }
  func.func @dynamic(%x: tensor<?x8xf32>) {
    // expected-error @below {{launch plans need static, identity-layout buffers, got 'memref<?x8xf32>'}}
    %m = bufferization.to_buffer %x read_only : tensor<?x8xf32> to memref<?x8xf32>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?x8xf32>)
    return
  }
}

// -----

// expected-error @below {{no kernel launches in the module: run nvfp4-opt --nvfp4-to-ptx first}}
module {
  func.func @f() {
    return
  }
}
