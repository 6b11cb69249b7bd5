// Scale selectors the PTX ISA leaves undefined fail with a message and a
// non-zero status, never with a result: byte-id 1 with scale_vec::2X (0 or
// 2 only), and selectors that differ across the lanes of the warp.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" > %t.mlir
// RUN: not %mlir_runner %t.mlir -e out_of_range -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=RANGE
// RUN: not %mlir_runner %t.mlir -e per_lane -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s --check-prefix=LANES
// RANGE: nvfp4-gpu-emulator: kernel select: thread 0: block-scaled mma.sync (kind::mxf4) with scale selectors {1, 0} / {0, 0}: the PTX ISA defines byte-id 0 or 2, thread-id-a 0 or 1 and thread-id-b 0 to 3
// LANES: nvfp4-gpu-emulator: kernel select: warp 0: block-scaled mma.sync with scale selectors that differ across lanes (lane 0 {0, 0} / {0, 0}, lane 1 {1, 0} / {0, 0})

module attributes {gpu.container_module} {
  gpu.module @selectors {
    // mode 0: byte-id-a 1 with scale_vec::2X; mode 1: byte-id-a = lane % 2
    // with scale_vec::1X.
    gpu.func @select(%mode: i32, %out: memref<32xf32>) kernel {
      %tid = gpu.thread_id x
      %lane = arith.index_cast %tid : index to i32
      %i0 = arith.constant 0 : i32
      %i2 = arith.constant 2 : i32
      %s0 = arith.constant 0 : i16
      %s1 = arith.constant 1 : i16
      %f0 = arith.constant 0.0 : f32
      %ones = arith.constant 0x22222222 : i32
      %unit = arith.constant 0x7F7F7F7F : i32
      %range = arith.cmpi eq, %mode, %i0 : i32
      %r = scf.if %range -> f32 {
        %d = nvvm.mma.block_scale A[%ones, %ones, %ones, %ones] B[%ones, %ones] C[%f0, %f0, %f0, %f0] scaleA[%unit, %s1, %s0] scaleB[%unit, %s0, %s0] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
        scf.yield %d0 : f32
      } else {
        %odd = arith.remui %lane, %i2 : i32
        %bid = arith.trunci %odd : i32 to i16
        %d = nvvm.mma.block_scale A[%ones, %ones, %ones, %ones] B[%ones, %ones] C[%f0, %f0, %f0, %f0] scaleA[%unit, %bid, %s0] scaleB[%unit, %s0, %s0] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e4m3>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
        scf.yield %d0 : f32
      }
      memref.store %r, %out[%tid] : memref<32xf32>
      gpu.return
    }
  }
  func.func @launch(%mode: i32) {
    %m = memref.alloc() : memref<32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @selectors::@select blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%mode : i32, %m : memref<32xf32>)
    return
  }
  func.func @out_of_range() {
    %c0 = arith.constant 0 : i32
    call @launch(%c0) : (i32) -> ()
    return
  }
  func.func @per_lane() {
    %c1 = arith.constant 1 : i32
    call @launch(%c1) : (i32) -> ()
    return
  }
}
