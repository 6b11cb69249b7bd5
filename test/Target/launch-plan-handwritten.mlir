// Launch plans of hand-written host code: constants and cluster
// dimensions are written as given, arguments as they are, a chain of
// launches through a kernel's result, one number per argument component;
// what a plan cannot express (launches in control flow, host-computed
// launch dimensions, shared memory sizes or operands, buffers the host
// writes or reads, dynamic shapes, non-identity layouts, other operand
// types) is refused with a diagnostic at the value, and nothing is written.
//
// RUN: nvfp4-translate --nvfp4-extract-launch-plan --split-input-file \
// RUN:   --verify-diagnostics %s | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>, %s: f32, %i: i32, %t: memref<f32>) kernel {
      gpu.return
    }
    gpu.func @q(%x: memref<32x64xf4E2M1FN>, %s: f32) kernel {
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
  // Two reads of one argument's components share their numbers.
  // CHECK-NEXT: function shared_source
  // CHECK-NEXT: buffer 0 f4E2M1FN 32x64 arg0.data
  // CHECK-NEXT: scalar 1 f32 arg0.amax
  // CHECK-NEXT: launch q grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1
  // CHECK-NEXT: launch q grid 1 1 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1
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
  func.func @shared_source(%x: !nvfp4.tensor<32x64, 1x16>) {
    %c1 = arith.constant 1 : index
    %d0, %s0, %a0 = nvfp4.disassemble %x : !nvfp4.tensor<32x64, 1x16>
    %m0 = bufferization.to_buffer %d0 read_only : tensor<32x64xf4E2M1FN> to memref<32x64xf4E2M1FN>
    gpu.launch_func @kernels::@q blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m0 : memref<32x64xf4E2M1FN>, %a0 : f32)
    %d1, %s1, %a1 = nvfp4.disassemble %x : !nvfp4.tensor<32x64, 1x16>
    %m1 = bufferization.to_buffer %d1 read_only : tensor<32x64xf4E2M1FN> to memref<32x64xf4E2M1FN>
    gpu.launch_func @kernels::@q blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m1 : memref<32x64xf4E2M1FN>, %a1 : f32)
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
    // expected-error @below {{launch operand of type 'memref<4x8xf32>' is used on the host ('linalg.fill'), which a launch plan cannot express}}
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

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  func.func @in_loop(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-error @below {{launch plans describe straight-line host code; this launch is inside 'scf.for'}}
      gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    }
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
  func.func @host_shared_memory(%x: tensor<4x8xf32>, %bytes: i32) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %c1 = arith.constant 1 : index
    // expected-error @below {{launch plans need constant launch dimensions; the shared memory size of @k is computed on the host}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %bytes args(%m : memref<4x8xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32, strided<[16, 1]>>) kernel {
      gpu.return
    }
  }
  // expected-error @below {{launch plans need static, identity-layout buffers, got 'memref<4x8xf32, strided<[16, 1]>>'}}
  func.func @strided(%x: memref<4x8xf32, strided<[16, 1]>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4x8xf32, strided<[16, 1]>>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%v: vector<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @vector_operand() {
    // expected-error @below {{launch operand of type 'vector<4xf32>' cannot be written to a launch plan}}
    %v = arith.constant dense<1.0> : vector<4xf32>
    %c1 = arith.constant 1 : index
    // expected-note @below {{a plan passes buffers of function arguments and results}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : vector<4xf32>)
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
  func.func @host_reads_result() -> f32 {
    %m = memref.alloc() : memref<4x8xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    %t = bufferization.to_tensor %m restrict : memref<4x8xf32> to tensor<4x8xf32>
    // expected-error @below {{launch operand of type 'memref<4x8xf32>' is used on the host ('tensor.extract'), which a launch plan cannot express}}
    %e = tensor.extract %t[%c0, %c0] : tensor<4x8xf32>
    return %e : f32
  }
}

// -----

// expected-error @below {{no kernel launches in the module: run nvfp4-opt --nvfp4-to-ptx first}}
module {
  func.func @f() {
    return
  }
}
