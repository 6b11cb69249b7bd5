// Launch plans of hand-written host code: constants and cluster
// dimensions are written as given, arguments as they are, a chain of
// launches through a kernel's result, one number per argument component,
// grid sizes computed from the device's multiprocessor count as
// expressions, tensor maps over buffers as their encoding parameters, the
// atoms layout of boundary scales; what a plan cannot express (launches in
// control flow, other host-computed launch dimensions, shared memory sizes
// or operands, tensor maps of other addresses or with host-computed
// parameters, buffers the host writes or reads, dynamic shapes,
// non-identity layouts, other operand types) is refused with a diagnostic
// at the value, and nothing is written.
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
    gpu.func @t(%x: memref<128x64xf4E2M1FN>, %map: !llvm.array<16 x i64>, %s: memref<128x4xf8E4M3FN>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaMultiprocessorCount() -> i32
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  // CHECK: # nvfp4 launch plan 2
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
  // A tcgen05-style launch: the grid from the SM count, the tensor map of
  // the argument's codes, its scales in atoms; the second launch reads the
  // first one's result through a tensor map of it, and the result's scales
  // are in atoms.
  // CHECK-NEXT: function tensor_maps
  // CHECK-NEXT: buffer 0 f4E2M1FN 128x64 arg0.data
  // CHECK-NEXT: tensormap 1 of 0 bytes 32x128 stride 32 box 32x128 swizzle 0
  // CHECK-NEXT: buffer 2 f8E4M3FN 128x4 arg0.scales atoms
  // CHECK-NEXT: launch t grid mul(min(max(div(sm_count,2),1),3),2) 1 1 block 192 1 1 cluster 2 1 1 shared 0 args 0 1 2
  // CHECK-NEXT: buffer 3 f4E2M1FN 128x64 result0.data
  // CHECK-NEXT: tensormap 4 of 3 bytes 32x128 stride 32 box 32x64 swizzle 1
  // CHECK-NEXT: buffer 5 f8E4M3FN 128x4 result0.scales atoms
  // CHECK-NEXT: launch t grid ceildiv(add(sm_count,1),2) 1 1 block 128 1 1 cluster 1 1 1 shared 0 args 3 4 5
  // CHECK-NEXT: end
  // Signed forms and integer casts of the SM count; an f32 and an i32 of
  // the same bits are two constants.
  // CHECK-NEXT: function signed_grid
  // CHECK-NEXT: buffer 0 f32 4x8 arg0
  // CHECK-NEXT: scalar 1 f32 const=0x0
  // CHECK-NEXT: scalar 2 i32 const=0x0
  // CHECK-NEXT: buffer 3 f32 0d temp
  // CHECK-NEXT: launch k grid max(div(sm_count,4),1) min(sub(sm_count,1),ceildiv(sm_count,3)) 1 block 1 1 1 cluster 1 1 1 shared 0 args 0 1 2 3
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
  func.func @tensor_maps(%x: !nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
      -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot0 = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %slot1 = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %d, %s, %a = nvfp4.disassemble %x : !nvfp4.tensor<128x64, 1x16>
    %dm = bufferization.to_buffer %d read_only : tensor<128x64xf4E2M1FN> to memref<128x64xf4E2M1FN>
    %sm = bufferization.to_buffer %s read_only : tensor<128x4xf8E4M3FN> to memref<128x4xf8E4M3FN>
    %p = memref.extract_aligned_pointer_as_index %dm : memref<128x64xf4E2M1FN> -> index
    %pi = arith.index_castui %p : index to i64
    %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
    %c32 = arith.constant 32 : i64
    %c128 = arith.constant 128 : i64
    %b32 = arith.constant 32 : i32
    %b64 = arith.constant 64 : i32
    %b128 = arith.constant 128 : i32
    %sw0 = arith.constant 0 : i32
    %sw1 = arith.constant 1 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot0, %pp, %c32, %c128, %c32, %b32, %b128, %sw0) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map0 = llvm.load %slot0 {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %sms = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
    %c1i = arith.constant 1 : i32
    %c2i = arith.constant 2 : i32
    %c3i = arith.constant 3 : i32
    %half = arith.divui %sms, %c2i : i32
    %pairs = arith.maxui %half, %c1i : i32
    %used = arith.minui %pairs, %c3i : i32
    %ctas = arith.muli %used, %c2i : i32
    %gx = arith.index_castui %ctas : i32 to index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128i = arith.constant 128 : index
    %c192 = arith.constant 192 : index
    gpu.launch_func @kernels::@t clusters in (%c2, %c1, %c1) blocks in (%gx, %c1, %c1) threads in (%c192, %c1, %c1) args(%dm : memref<128x64xf4E2M1FN>, %map0 : !llvm.array<16 x i64>, %sm : memref<128x4xf8E4M3FN>)
    %rd = memref.alloc() : memref<128x64xf4E2M1FN>
    %rs = memref.alloc() : memref<128x4xf8E4M3FN>
    %q = memref.extract_aligned_pointer_as_index %rd : memref<128x64xf4E2M1FN> -> index
    %qi = arith.index_castui %q : index to i64
    %qp = llvm.inttoptr %qi : i64 to !llvm.ptr
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot1, %qp, %c32, %c128, %c32, %b32, %b64, %sw1) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map1 = llvm.load %slot1 {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %smsp1 = arith.addi %sms, %c1i : i32
    %gy = arith.ceildivui %smsp1, %c2i : i32
    %gyi = arith.index_cast %gy : i32 to index
    gpu.launch_func @kernels::@t blocks in (%gyi, %c1, %c1) threads in (%c128i, %c1, %c1) args(%rd : memref<128x64xf4E2M1FN>, %map1 : !llvm.array<16 x i64>, %rs : memref<128x4xf8E4M3FN>)
    %rdt = bufferization.to_tensor %rd restrict : memref<128x64xf4E2M1FN> to tensor<128x64xf4E2M1FN>
    %rst = bufferization.to_tensor %rs restrict : memref<128x4xf8E4M3FN> to tensor<128x4xf8E4M3FN>
    %r = nvfp4.assemble %rdt, %rst, %a : tensor<128x64xf4E2M1FN>, tensor<128x4xf8E4M3FN> -> !nvfp4.tensor<128x64, 1x16>
    return %r : !nvfp4.tensor<128x64, 1x16>
  }
  func.func @signed_grid(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %t = memref.alloc() : memref<f32>
    %zf = arith.constant 0.0 : f32
    %zi = arith.constant 0 : i32
    %sms = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
    %wide = arith.extsi %sms : i32 to i64
    %c1 = arith.constant 1 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %q = arith.divsi %wide, %c4 : i64
    %g = arith.maxsi %q, %c1 : i64
    %gx = arith.index_cast %g : i64 to index
    %u = arith.extui %sms : i32 to i64
    %less = arith.subi %u, %c1 : i64
    %third = arith.ceildivsi %u, %c3 : i64
    %gy = arith.minsi %less, %third : i64
    %gyi = arith.index_castui %gy : i64 to index
    %one = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%gx, %gyi, %one) threads in (%one, %one, %one) args(%m : memref<4x8xf32>, %zf : f32, %zi : i32, %t : memref<f32>)
    return
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
    // expected-error @below {{launch plans need grid sizes computed from constants and the device's multiprocessor count; grid x of @k is computed otherwise on the host}}
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
    // expected-error @below {{launch plans need constant block, cluster and shared-memory sizes; the shared memory size of @k is computed on the host}}
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

// A grid from another host call.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  llvm.func @other() -> i32
  func.func @other_call_grid(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %n = llvm.call @other() : () -> i32
    %g = arith.index_castui %n : i32 to index
    %c1 = arith.constant 1 : index
    // expected-error @below {{grid x of @k is computed otherwise on the host}}
    gpu.launch_func @kernels::@k blocks in (%g, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    return
  }
}

// -----

// A grid computed in 16 bits, which a driver's evaluation would not wrap
// as the host does.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaMultiprocessorCount() -> i32
  func.func @narrow_grid(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %sms = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
    %n = arith.trunci %sms : i32 to i16
    %c2 = arith.constant 2 : i16
    %d = arith.muli %n, %c2 : i16
    %g = arith.index_castui %d : i16 to index
    %c1 = arith.constant 1 : index
    // expected-error @below {{grid x of @k is computed otherwise on the host}}
    gpu.launch_func @kernels::@k blocks in (%g, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    return
  }
}

// -----

// A negative constant grid size, and an expression longer than a plan
// line takes (the SM count doubled 12 times, each operand spelled out).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<4x8xf32>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaMultiprocessorCount() -> i32
  func.func @negative_grid(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %n = arith.constant -1 : index
    %c1 = arith.constant 1 : index
    // expected-error @below {{grid x of @k is computed otherwise on the host}}
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
  llvm.func @nvfp4CudaMultiprocessorCount() -> i32
  func.func @long_grid(%x: tensor<4x8xf32>) {
    %m = bufferization.to_buffer %x read_only : tensor<4x8xf32> to memref<4x8xf32>
    %x0 = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
    %x1 = arith.addi %x0, %x0 : i32
    %x2 = arith.addi %x1, %x1 : i32
    %x3 = arith.addi %x2, %x2 : i32
    %x4 = arith.addi %x3, %x3 : i32
    %x5 = arith.addi %x4, %x4 : i32
    %x6 = arith.addi %x5, %x5 : i32
    %x7 = arith.addi %x6, %x6 : i32
    %x8 = arith.addi %x7, %x7 : i32
    %x9 = arith.addi %x8, %x8 : i32
    %x10 = arith.addi %x9, %x9 : i32
    %x11 = arith.addi %x10, %x10 : i32
    %x12 = arith.addi %x11, %x11 : i32
    %g = arith.index_castui %x12 : i32 to index
    %c1 = arith.constant 1 : index
    // expected-error @below {{grid x of @k is computed otherwise on the host}}
    gpu.launch_func @kernels::@k blocks in (%g, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    return
  }
}

// -----

// A swizzle mode the driver does not have.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  func.func @bad_swizzle(%x: tensor<32x64xf4E2M1FN>) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %m = bufferization.to_buffer %x read_only : tensor<32x64xf4E2M1FN> to memref<32x64xf4E2M1FN>
    %p = memref.extract_aligned_pointer_as_index %m : memref<32x64xf4E2M1FN> -> index
    %pi = arith.index_castui %p : index to i64
    %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
    // expected-error @below {{the tensor map of a launch has a box or swizzle out of range, which a launch plan cannot express}}
    %c32 = arith.constant 32 : i64
    %b32 = arith.constant 32 : i32
    %sw = arith.constant 5 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %pp, %c32, %c32, %c32, %b32, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
    return
  }
}

// -----

// A tensor map the driver would refuse: a 256-byte box row with the
// 128-byte swizzle.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  func.func @bad_box(%x: tensor<32x512xf4E2M1FN>) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %m = bufferization.to_buffer %x read_only : tensor<32x512xf4E2M1FN> to memref<32x512xf4E2M1FN>
    %p = memref.extract_aligned_pointer_as_index %m : memref<32x512xf4E2M1FN> -> index
    %pi = arith.index_castui %p : index to i64
    %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
    // expected-error @below {{the tensor map of a launch has parameters cuTensorMapEncodeTiled refuses (inner box extent larger than the swizzle span), which a launch plan cannot express}}
    %c256 = arith.constant 256 : i64
    %c32 = arith.constant 32 : i64
    %b256 = arith.constant 256 : i32
    %b32 = arith.constant 32 : i32
    %sw = arith.constant 3 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %pp, %c256, %c32, %c256, %b256, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
    return
  }
}

// -----

// Tensor maps of an address that is no buffer's, with a parameter computed
// on the host, written twice, and a buffer whose address the host uses
// otherwise.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  func.func @null_address() {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    // expected-error @below {{the tensor map of a launch describes an address other than a buffer's, which a launch plan cannot express}}
    %null = llvm.mlir.zero : !llvm.ptr
    %c32 = arith.constant 32 : i64
    %b32 = arith.constant 32 : i32
    %sw = arith.constant 0 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %null, %c32, %c32, %c32, %b32, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  // expected-error @below {{the tensor map of a launch has a parameter computed on the host, which a launch plan cannot express}}
  func.func @host_rows(%x: tensor<32x64xf4E2M1FN>, %rows: i64) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %m = bufferization.to_buffer %x read_only : tensor<32x64xf4E2M1FN> to memref<32x64xf4E2M1FN>
    %p = memref.extract_aligned_pointer_as_index %m : memref<32x64xf4E2M1FN> -> index
    %pi = arith.index_castui %p : index to i64
    %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
    %c32 = arith.constant 32 : i64
    %b32 = arith.constant 32 : i32
    %sw = arith.constant 0 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %pp, %c32, %rows, %c32, %b32, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @t(%map: !llvm.array<16 x i64>) kernel {
      gpu.return
    }
  }
  llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
  func.func @written_twice(%x: tensor<32x64xf4E2M1FN>) {
    %one = llvm.mlir.constant(1 : i32) : i32
    %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
    %m = bufferization.to_buffer %x read_only : tensor<32x64xf4E2M1FN> to memref<32x64xf4E2M1FN>
    %p = memref.extract_aligned_pointer_as_index %m : memref<32x64xf4E2M1FN> -> index
    %pi = arith.index_castui %p : index to i64
    %pp = llvm.inttoptr %pi : i64 to !llvm.ptr
    %c32 = arith.constant 32 : i64
    %b32 = arith.constant 32 : i32
    %sw = arith.constant 0 : i32
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %pp, %c32, %c32, %c32, %b32, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %pp, %c32, %c32, %c32, %b32, %b32, %sw) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
    // expected-error @below {{launch operand of type '!llvm.array<16 x i64>' cannot be written to a launch plan}}
    %map = llvm.load %slot {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
    %c1 = arith.constant 1 : index
    // expected-note @below {{a plan passes buffers of function arguments and results}}
    gpu.launch_func @kernels::@t blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !llvm.array<16 x i64>)
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
  func.func @address_on_host() -> (tensor<4x8xf32>, index) {
    %m = memref.alloc() : memref<4x8xf32>
    // expected-error @below {{launch operand of type 'memref<4x8xf32>' is used on the host ('memref.extract_aligned_pointer_as_index'), which a launch plan cannot express}}
    %p = memref.extract_aligned_pointer_as_index %m : memref<4x8xf32> -> index
    %c1 = arith.constant 1 : index
    // expected-note @below {{passed to this launch}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4x8xf32>)
    %t = bufferization.to_tensor %m restrict : memref<4x8xf32> to tensor<4x8xf32>
    return %t, %p : tensor<4x8xf32>, index
  }
}

// -----

// expected-error @below {{no kernel launches in the module: run nvfp4-opt --nvfp4-to-ptx first}}
module {
  func.func @f() {
    return
  }
}
