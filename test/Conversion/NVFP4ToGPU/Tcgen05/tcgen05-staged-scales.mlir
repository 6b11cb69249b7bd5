// Staged 16x16-block scales (docs/tcgen05.md, "Staged 16x16-block scales"):
// an operand with 16x16 blocks whose scales are row-major (a weight
// argument, a constant, any value not quantized into the atoms layout)
// keeps its compact [rows / 16, K / 16] scales in global memory. Per K tile
// the producer's elected lane TMA-loads the 16 scale bytes of the tile's
// staged scale rows into the start of the operand's atoms in the stage,
// completing on the stage's scaleStaged barrier; the scale warp (warp 6,
// 224 threads) waits for it, expands each staged row into the 16 tile rows
// it scales (all loads before the first store), fences and arrives on the
// stage's full barrier, which counts its lanes next to the producer's. The
// producer issues only TMA. Left alone: K not a multiple of 256 (no 16-byte
// rows), 1x16 row-major scales (one scale row per tile row: the producer's
// lanes), MX operands.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s
// No producer-warp scale fallback to report for the staged operands:
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file -o /dev/null 2>&1 | not grep "producer warp"
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a" -o /dev/null

// 256 x 256 x 512, A in atoms (the default boundary layout), B 16x16: its
// scales' map [256 / 16 rows, 512 / 16 bytes] in 16-byte boxes of 16 rows,
// unswizzled, right after the scales buffer.
// CHECK-LABEL: func.func @weights_16x16(
// CHECK:         %[[BSCALES:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<16x32xf8E4M3FN> to memref<16x32xf8E4M3FN>
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%[[SSLOT:[^,]*]], %{{.*}}, %c32_i64{{(_[0-9]+)?}}, %c16_i64{{(_[0-9]+)?}}, %c32_i64{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}})
// CHECK-NEXT:    %[[SMAP:.*]] = llvm.load %[[SSLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_16x16_f32_sfatoms_a_sfstaged_b
// CHECK-SAME:      threads in (%c224,
// CHECK-SAME:      %[[BSCALES]] : memref<16x32xf8E4M3FN>, %[[SMAP]] : !llvm.array<16 x i64>, %{{.*}} : f32, %{{.*}} : memref<256x256xf32>)
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_16x16_f32_sfatoms_a_sfstaged_b(
// CHECK-SAME:      %{{[^:]*}}: memref<16x32xf8E4M3FN>, %[[SMAPARG:[^:]*]]: !llvm.array<16 x i64>, %{{[^:]*}}: f32,
// CHECK-SAME:      known_block_size = array<i32: 224, 1, 1>
// CHECK:           llvm.store %[[SMAPARG]], %[[SMAPPTR:[^ ]*]] {alignment = 64 : i64}
// CHECK:           %[[WARP:.*]] = arith.divui %{{.*}}, %c32_i32 : i32
// CHECK:           %[[LANE:.*]] = arith.remui %{{.*}}, %c32_i32 : i32
// 4 stages: full[4] with the 64 lanes of the producer and the scale warp,
// empty[4] + accFull[1], accEmpty[1], then scaleStaged[4] (1 arrival).
// CHECK-COUNT-4:     nvvm.mbarrier.init %{{.*}}, %c64_i32
// CHECK-COUNT-5:     nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NEXT:        llvm.getelementptr
// CHECK-NEXT:        nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK-COUNT-4:     nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NOT:         nvvm.mbarrier.init
// Producer: the third map is prefetched; per K tile (stage s at s * 55296)
// the elected lane announces the 256 staged bytes on scaleStaged[s] (at
// 221264 + 8 s) and loads the box at (16 kt bytes, first B row / 16) into
// the B atoms (stage + 51200), completing there; the lanes store no scales.
// CHECK:           nvvm.prefetch tensormap, %[[SMAPPTR]]
// CHECK:           scf.for %{{.*}} = %c0_i32 to %c2_i32 step %c1_i32 : i32 {
// CHECK:             %[[STAGE:.*]] = arith.remui %{{.*}}, %c4_i32 : i32
// CHECK:             %[[STAGEOFF:.*]] = arith.muli %[[STAGE]], %c55296_i32 : i32
// CHECK:               %[[SBADDR:.*]] = arith.addi %{{.*}}, %c221264_i32 : i32
// CHECK-NEXT:          %[[STAGED:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[SBADDR]]]
// CHECK-NEXT:          nvvm.mbarrier.arrive.expect_tx %[[STAGED]], %c256_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT:          %[[KBYTE:.*]] = arith.muli %{{.*}}, %c16_i32 : i32
// CHECK-NEXT:          %[[DSTOFF:.*]] = arith.addi %[[STAGEOFF]], %c51200_i32 : i32
// CHECK-NEXT:          %[[DST:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[DSTOFF]]]
// CHECK-NEXT:          %[[DSTC:.*]] = llvm.addrspacecast %[[DST]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:          %[[SROW:.*]] = arith.divui %{{.*}}, %c16_i32 : i32
// CHECK-NEXT:          nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DSTC]], %[[SMAPPTR]], %[[STAGED]], box[%[[KBYTE]], %[[SROW]]] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT:        }
// CHECK-NOT:         llvm.load %{{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NEXT:        nvvm.mbarrier.arrive
// The scale warp: per K tile, wait scaleStaged[s] (consumer parity), load
// lane l's 8 rows (2 blocks x 4: tile rows l + 32 q + 128 a) as their staged
// rows at stage + 51200 + (row / 16) * 16, sync the warp, store the 8
// atom rows, fence, arrive on full[s] (221184 + 8 s).
// The epilogue warps are 2..5: not the scale warp.
// CHECK:           %[[ISEPI0:.*]] = arith.cmpi uge, %[[WARP]], %c2_i32 : i32
// CHECK-NEXT:      %[[ISSCALE:.*]] = arith.cmpi eq, %[[WARP]], %c6_i32 : i32
// CHECK-NEXT:      %[[NOTSCALE:.*]] = arith.xori %[[ISSCALE]], %true : i1
// CHECK-NEXT:      %[[ISEPI:.*]] = arith.andi %[[ISEPI0]], %[[NOTSCALE]] : i1
// CHECK-NEXT:      scf.if %[[ISSCALE]] {
// CHECK:               %[[WSTAGE:.*]] = arith.remui %{{.*}}, %c4_i32 : i32
// CHECK:               %[[WSBOFF:.*]] = arith.muli %[[WSTAGE]], %c8_i32 : i32
// CHECK-NEXT:          %[[WSBADDR:.*]] = arith.addi %[[WSBOFF]], %c221264_i32 : i32
// CHECK-NEXT:          %[[WSTAGED:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[WSBADDR]]]
// CHECK:                 nvvm.mbarrier.try_wait %[[WSTAGED]], %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK:               %[[WSTAGEOFF:.*]] = arith.muli %[[WSTAGE]], %c55296_i32 : i32
// CHECK:               %[[SR0:.*]] = arith.divui %[[LANE]], %c16_i32 : i32
// CHECK-NEXT:          %[[SR0OFF:.*]] = arith.muli %[[SR0]], %c16_i32 : i32
// CHECK-NEXT:          %[[ROWSBASE:.*]] = arith.addi %[[WSTAGEOFF]], %c51200_i32 : i32
// CHECK-NEXT:          %[[SR0ADDR:.*]] = arith.addi %[[ROWSBASE]], %[[SR0OFF]] : i32
// CHECK-NEXT:          %[[SR0PTR:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[SR0ADDR]]]
// CHECK-NEXT:          %[[ROW0:.*]] = llvm.load %[[SR0PTR]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:          %[[ROW1IDX:.*]] = arith.addi %[[LANE]], %c32_i32 : i32
// CHECK-NEXT:          arith.divui %[[ROW1IDX]], %c16_i32 : i32
// CHECK-COUNT-7:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:          nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK-NEXT:          %[[W0:.*]] = llvm.extractelement %[[ROW0]][%c0_i32 : i32] : vector<4xi32>
// CHECK-COUNT-8:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT:          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:          %[[FOFF:.*]] = arith.muli %[[WSTAGE]], %c8_i32 : i32
// CHECK-NEXT:          %[[FADDR:.*]] = arith.addi %[[FOFF]], %c221184_i32 : i32
// CHECK-NEXT:          %[[FULL:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[FADDR]]]
// CHECK-NEXT:          nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// CHECK:           scf.if %[[ISEPI]] {
func.func @weights_16x16(%x: !nvfp4.tensor<256x512, 1x16>, %w: !nvfp4.tensor<256x512, 16x16>) -> tensor<256x256xf32> {
  %y = nvfp4.matmul %x, %w : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 16x16> -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

// Both operands 16x16 (a weight-gradient-like product), 208 x 80: A stages
// 8 rows (128 bytes), B (N = 80: the 128-wide tile) 8 rows, 256 bytes per
// K tile on one barrier; the last A tile's staged rows past 208 / 16 = 13
// are TMA's zero fill.
// CHECK-LABEL: func.func @both_16x16(
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c48_i64{{(_[0-9]+)?}}, %c13_i64{{(_[0-9]+)?}}, %c48_i64{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c8_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}})
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c48_i64{{(_[0-9]+)?}}, %c5_i64{{(_[0-9]+)?}}, %c48_i64{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c8_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}})
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m208n80k768_t128_16x16_16x16_f32_sfstaged_ab
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m208n80k768_t128_16x16_16x16_f32_sfstaged_ab(
// CHECK:             nvvm.mbarrier.arrive.expect_tx %[[STAGED:.*]], %c256_i32 : !llvm.ptr<3>, i32
// CHECK-COUNT-2:     nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[STAGED]], box
// CHECK-NOT:         llvm.load %{{.*}} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:           arith.cmpi eq, %{{.*}}, %c6_i32 : i32
// CHECK-COUNT-4:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:          nvvm.bar.warp.sync
// CHECK-COUNT-4:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-COUNT-4:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:          nvvm.bar.warp.sync
// CHECK-COUNT-4:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT:          nvvm.fence.proxy
func.func @both_16x16(%a: !nvfp4.tensor<208x768, 16x16>, %b: !nvfp4.tensor<80x768, 16x16>) -> tensor<208x80xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<208x768, 16x16>, !nvfp4.tensor<80x768, 16x16> -> tensor<208x80xf32>
  return %y : tensor<208x80xf32>
}

// -----

// Left alone: K = 288 is not a multiple of the K tile (the scale rows are
// not 16-byte aligned per K tile): the producer's lanes load the 16x16
// scales, 192 threads, no third map.
// CHECK-LABEL: func.func @ragged_k(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k288_t128_1x16_16x16_f32 blocks
// CHECK-SAME:      threads in (%c192,
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k288_t128_1x16_16x16_f32(
// CHECK-NOT:       nvvm.mbarrier.arrive.expect_tx
// CHECK:           llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:           nvvm.fence.proxy
func.func @ragged_k(%a: !nvfp4.tensor<128x288, 1x16>, %b: !nvfp4.tensor<128x288, 16x16>) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x288, 1x16>, !nvfp4.tensor<128x288, 16x16> -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}

// -----

// The pair (4096 x 1280: 80 tiles of 256 x 256, the auto rule takes it):
// each CTA stages the 16 scale rows of all 256 B rows of the tile itself (a CTA-local TMA on its own scaleStaged barrier, no cta_group), and
// its scale warp arrives on the leader's full barrier (release.cluster),
// which counts the 128 lanes of both CTAs.
// CHECK-LABEL: func.func @pair_weights_16x16(
// CHECK:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_f32_sfatoms_a_sfstaged_b clusters
// CHECK-SAME:       threads in (%c224,
// CHECK:        gpu.func @nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_f32_sfatoms_a_sfstaged_b(
// CHECK-COUNT-5:    nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK:            nvvm.mbarrier.arrive.expect_tx %[[STAGED:.*]], %c256_i32 : !llvm.ptr<3>, i32
// CHECK:            nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[STAGED]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:            arith.cmpi eq, %{{.*}}, %c6_i32 : i32
// CHECK:              nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>}
// CHECK:              nvvm.bar.warp.sync
// CHECK:              nvvm.fence.proxy
// CHECK-NEXT:         %[[FOFF:.*]] = arith.muli %{{.*}}, %c8_i32 : i32
// CHECK-NEXT:         %[[FADDR:.*]] = arith.addi %[[FOFF]], %{{.*}} : i32
// CHECK-NEXT:         %[[FULL:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[FADDR]]]
// CHECK-NEXT:         %[[LEADERFULL:.*]] = nvvm.mapa %[[FULL]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:         nvvm.mbarrier.arrive %[[LEADERFULL]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
func.func @pair_weights_16x16(%x: !nvfp4.tensor<4096x256, 1x16>, %w: !nvfp4.tensor<1280x256, 16x16>) -> tensor<4096x1280xf32> {
  %y = nvfp4.matmul %x, %w : !nvfp4.tensor<4096x256, 1x16>, !nvfp4.tensor<1280x256, 16x16> -> tensor<4096x1280xf32>
  return %y : tensor<4096x1280xf32>
}
