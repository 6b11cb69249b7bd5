// The GPU emulator's shfl.sync against the PTX ISA's definition, on a
// hand-written kernel (not one of the project's): lane l holds 10 * l; for
// each mode the value read and the valid flag of every lane. Width 32 (no
// segments): bfly 1 reads lane l ^ 1; up 3 reads l - 3, valid for l >= 3
// (invalid lanes keep their own value); down 5 reads l + 5, valid for
// l <= 26; idx 7 reads lane 7.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @shuffles {
    gpu.func @shuffle_modes(%out: memref<8x32xi32>) kernel {
      %tid = gpu.thread_id x
      %lane = arith.index_cast %tid : index to i32
      %c10 = arith.constant 10 : i32
      %v = arith.muli %lane, %c10 : i32
      %w = arith.constant 32 : i32
      %c1 = arith.constant 1 : i32
      %c3 = arith.constant 3 : i32
      %c5 = arith.constant 5 : i32
      %c7 = arith.constant 7 : i32
      %x, %xv = gpu.shuffle xor %v, %c1, %w : i32
      %u, %uv = gpu.shuffle up %v, %c3, %w : i32
      %d, %dv = gpu.shuffle down %v, %c5, %w : i32
      %i, %iv = gpu.shuffle idx %v, %c7, %w : i32
      %r0 = arith.constant 0 : index
      %r1 = arith.constant 1 : index
      %r2 = arith.constant 2 : index
      %r3 = arith.constant 3 : index
      %r4 = arith.constant 4 : index
      %r5 = arith.constant 5 : index
      %r6 = arith.constant 6 : index
      %r7 = arith.constant 7 : index
      memref.store %x, %out[%r0, %tid] : memref<8x32xi32>
      memref.store %u, %out[%r1, %tid] : memref<8x32xi32>
      memref.store %d, %out[%r2, %tid] : memref<8x32xi32>
      memref.store %i, %out[%r3, %tid] : memref<8x32xi32>
      %xvi = arith.extui %xv : i1 to i32
      %uvi = arith.extui %uv : i1 to i32
      %dvi = arith.extui %dv : i1 to i32
      %ivi = arith.extui %iv : i1 to i32
      memref.store %xvi, %out[%r4, %tid] : memref<8x32xi32>
      memref.store %uvi, %out[%r5, %tid] : memref<8x32xi32>
      memref.store %dvi, %out[%r6, %tid] : memref<8x32xi32>
      memref.store %ivi, %out[%r7, %tid] : memref<8x32xi32>
      gpu.return
    }
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %m = memref.alloc() : memref<8x32xi32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @shuffles::@shuffle_modes blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<8x32xi32>)
    %u = memref.cast %m : memref<8x32xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
}

// CHECK: [10,{{ +}}0,{{ +}}30,{{ +}}20,{{ +}}50,{{ +}}40,{{ +}}70,{{ +}}60,{{ +}}90,{{ +}}80,{{ +}}110,{{ +}}100,{{ +}}130,{{ +}}120,{{ +}}150,{{ +}}140,{{ +}}170,{{ +}}160,{{ +}}190,{{ +}}180,{{ +}}210,{{ +}}200,{{ +}}230,{{ +}}220,{{ +}}250,{{ +}}240,{{ +}}270,{{ +}}260,{{ +}}290,{{ +}}280,{{ +}}310,{{ +}}300]
// CHECK-NEXT: [0,{{ +}}10,{{ +}}20,{{ +}}0,{{ +}}10,{{ +}}20,{{ +}}30,{{ +}}40,{{ +}}50,{{ +}}60,{{ +}}70,{{ +}}80,{{ +}}90,{{ +}}100,{{ +}}110,{{ +}}120,{{ +}}130,{{ +}}140,{{ +}}150,{{ +}}160,{{ +}}170,{{ +}}180,{{ +}}190,{{ +}}200,{{ +}}210,{{ +}}220,{{ +}}230,{{ +}}240,{{ +}}250,{{ +}}260,{{ +}}270,{{ +}}280]
// CHECK-NEXT: [50,{{ +}}60,{{ +}}70,{{ +}}80,{{ +}}90,{{ +}}100,{{ +}}110,{{ +}}120,{{ +}}130,{{ +}}140,{{ +}}150,{{ +}}160,{{ +}}170,{{ +}}180,{{ +}}190,{{ +}}200,{{ +}}210,{{ +}}220,{{ +}}230,{{ +}}240,{{ +}}250,{{ +}}260,{{ +}}270,{{ +}}280,{{ +}}290,{{ +}}300,{{ +}}310,{{ +}}270,{{ +}}280,{{ +}}290,{{ +}}300,{{ +}}310]
// CHECK-NEXT: [70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70,{{ +}}70]
// CHECK-NEXT: [1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1]
// CHECK-NEXT: [0,{{ +}}0,{{ +}}0,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1]
// CHECK-NEXT: [1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0,{{ +}}0]
// CHECK-NEXT: [1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1,{{ +}}1]
