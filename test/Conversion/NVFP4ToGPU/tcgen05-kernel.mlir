// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a" --split-input-file | FileCheck %s

// The tcgen05 kernel: host launch with dynamic shared memory, tensor-memory
// allocation, scale copies, block-scaled MMAs with compiler-built
// descriptors, mbarrier commit/wait, tcgen05.ld epilogue.

// CHECK-LABEL: func.func @f32_n256(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_16x16_f32
// CHECK-SAME:      blocks in (%c2, %c2{{.*}}, %c1) threads in (%c128,
// CHECK-SAME:      dynamic_shared_memory_size %c111640_i32
// CHECK:       gpu.module @nvfp4_kernels
// CHECK:         llvm.mlir.global external @__nvfp4_tcgen05_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_16x16_f32(
// CHECK-SAME:      known_block_size = array<i32: 128, 1, 1>
// The K-major 128-byte-swizzle operand descriptor (SBO 1024, version 1,
// swizzle 2), the instruction descriptor of M = 128, N = 256 (0x08400480) and
// the scale-copy descriptor (no swizzle, SBO 128).
// CHECK-DAG:       %[[OPDESC:.*]] = arith.constant 4611756662049538048 : i64
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 138413184 : i32
// CHECK-DAG:       %[[CPDESC:.*]] = arith.constant 70403103981568 : i64
// CHECK:           nvvm.mbarrier.init
// CHECK:           nvvm.mbarrier.init
// CHECK:           nvvm.fence.mbarrier.init
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c512_i32 : !llvm.ptr<3>, i32
// CHECK:           nvvm.tcgen05.relinquish_alloc_permit
// CHECK:           scf.for
// CHECK:             nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:             gpu.barrier
// CHECK:             scf.if
// CHECK:               nvvm.tcgen05.fence <after>
// CHECK:               arith.ori %{{.*}}, %[[CPDESC]] : i64
// CHECK-COUNT-12:      nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:               arith.ori %{{.*}}, %[[OPDESC]] : i64
// CHECK-COUNT-4:       nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %{{.*}}, %{{.*}}, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
// CHECK-NOT:           nvvm.tcgen05.mma
// CHECK:               nvvm.tcgen05.commit
// CHECK:             scf.if
// CHECK:               scf.while
// CHECK:                 nvvm.mbarrier.try_wait
// CHECK:           scf.while
// CHECK:             nvvm.mbarrier.try_wait
// CHECK:           nvvm.tcgen05.fence <after>
// CHECK:           scf.for
// CHECK:             nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK:             nvvm.tcgen05.wait <load>
// CHECK-COUNT-4:     llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK:           gpu.barrier
// CHECK:           nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 : !llvm.ptr<6>, i32
func.func @f32_n256(%a: !nvfp4.tensor<256x1024, 1x16>,
                    %b: !nvfp4.tensor<512x1024, 16x16>) -> tensor<256x512xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>,
         !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}

// -----

// N = 384 takes the 128-wide tile: 8 scale copies (4 A + 4 B atoms) and 4
// MMAs per K tile, N = 128 in the instruction descriptor (0x08200480), 256
// tensor-memory columns; bf16 accumulator loaded and the result stored as bf16.
// CHECK-LABEL: func.func @batched_bf16_acc_n128(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m128n384k512_t128_1x16_16x16_bf16_acc
// CHECK-SAME:      blocks in (%c3, %c1, %c2)
// CHECK-SAME:      dynamic_shared_memory_size %c74776_i32
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_b2m128n384k512_t128_1x16_16x16_bf16_acc(
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 136316032 : i32
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c256_i32
// CHECK:           scf.for
// CHECK-COUNT-8:       nvvm.tcgen05.cp
// CHECK-COUNT-4:       nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]],
// CHECK:               nvvm.tcgen05.commit
// CHECK:             nvvm.tcgen05.ld
// CHECK:             llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
// CHECK:             arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
// CHECK:           nvvm.tcgen05.dealloc %{{.*}}, %c256_i32
func.func @batched_bf16_acc_n128(%a: !nvfp4.tensor<2x128x512, 1x16>,
                                 %b: !nvfp4.tensor<2x384x512, 16x16>,
                                 %acc: tensor<2x128x384xbf16>) -> tensor<2x128x384xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<2x128x384xbf16>)
         : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x384x512, 16x16>
         -> tensor<2x128x384xbf16>
  return %c : tensor<2x128x384xbf16>
}

// -----

// N = 192 takes the 64-wide tile (0x08100480, 128 columns); the B scale atom
// is half padding, zeroed by a select.
// CHECK-LABEL: func.func @f32_n64(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32
// CHECK-SAME:      blocks in (%c3, %c1, %c1
// CHECK-SAME:      dynamic_shared_memory_size %c58392_i32
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32(
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 135267456 : i32
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c128_i32
// CHECK:           arith.select
// CHECK:           scf.for
// CHECK-COUNT-8:       nvvm.tcgen05.cp
// CHECK-COUNT-4:       nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]],
func.func @f32_n64(%a: !nvfp4.tensor<128x256, 16x16>,
                   %b: !nvfp4.tensor<192x256, 1x16>) -> tensor<128x192xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 16x16>,
         !nvfp4.tensor<192x256, 1x16> -> tensor<128x192xf32>
  return %c : tensor<128x192xf32>
}
