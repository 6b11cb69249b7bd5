// Scale atoms in global memory (docs/tcgen05.md): an NVFP4 value produced by
// a quantization that convert-nvfp4-to-gpu lowers, whose every use is an
// operand the tcgen05 kernel (1-CTA or CTA pair) reads from whole 128x4
// atoms (A, or B with a tile N that is a multiple of 128), gets its E4M3
// scales in the
// atoms layout of nvfp4::swizzleScales, one scale per row also for 16x16
// blocks. The quantize kernel (`_sfatoms`) or the NVFP4 epilogue writes
// them, an unrealized_conversion_cast carries the value to the matmul, whose
// producer's elected lane bulk-copies 2 KiB per 128-row block and K tile
// (`_sfatoms_a`, `_sfatoms_b`, `_sfatoms_ab`); in a CTA pair the peer's
// copies complete on its own scaleFull barrier, relayed by its lanes to the
// leader's full barrier. Everything else keeps the compact scales.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major tcgen05-cta-pair=on" --split-input-file | FileCheck %s --check-prefix=PAIR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefix=SM120
// The executable pipeline lowers them.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a boundary-scale-layout=row-major" -o /dev/null
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a boundary-scale-layout=row-major tcgen05-cta-pair=on" -o /dev/null

// The activation's quantize kernel stores each scale at its atom offset
// (row, column block) of the [256, 32] matrix: ((r / 128) * 8 + c / 4) * 512
// + (r % 32) * 16 + ((r / 32) % 4) * 4 + c % 4; the matmul kernel copies the
// A atoms with one cp.async.bulk per K tile (the full barrier expects the
// 49152 TMA bytes plus 2048) and the lanes still load and store the B scales.
// CHECK-LABEL: func.func @quantize_lhs(
// CHECK:         %[[DATA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256x512xf4E2M1FN>
// CHECK:         %[[SCALES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256x32xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn_sfatoms
// CHECK-SAME:      %[[DATA]] : memref<256x512xf4E2M1FN>, %[[SCALES]] : memref<256x32xf8E4M3FN>
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_a
// CHECK-SAME:      args(%[[DATA]] : memref<256x512xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[SCALES]] : memref<256x32xf8E4M3FN>
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:         return
// CHECK:       gpu.func @nvfp4_quantize_256x512_1x16_bf16_rn_sfatoms(
// CHECK:         arith.divui %{{.*}}, %c32{{.*}} : index
// CHECK:         arith.remui %{{.*}}, %c32{{.*}} : index
// CHECK:         arith.divui %{{.*}}, %c128 : index
// CHECK:         arith.muli %{{.*}}, %c8 : index
// CHECK:         arith.muli %{{.*}}, %c512 : index
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK-NEXT:    }
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_a(
// CHECK:         nvvm.mbarrier.expect_tx %{{.*}}, %c51200_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:         nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c2048_i32 : !llvm.ptr<7>, <1>
// CHECK-NOT:     nvvm.cp.async.bulk.shared.cluster.global
// The B scales: 2 atoms, 4 rows each, 16-byte loads and stores.
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:         nvvm.fence.proxy
// CHECK:         nvvm.mbarrier.arrive
// The pair: each CTA copies the atoms of its 128 A rows. The peer's
// scaleFull[5] (after accEmpty, at 194656, 1 arrival each); the leader
// expects 32768 + 2048 bytes on its full barrier, the peer 32768 there and
// 2048 by arrive.expect_tx on its scaleFull; the copy completes on full[s]
// (leader) or scaleFull[s] (peer); after the B scale stores the peer's
// lanes wait on scaleFull[s] (consumer parity) before the remote arrival.
// PAIR-LABEL:  func.func @quantize_lhs(
// PAIR:          gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn_sfatoms blocks
// PAIR:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_pair_1x16_1x16_f32_sfatoms_a clusters
// PAIR-SAME:       dynamic_shared_memory_size %c204032_i32
// PAIR:        gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_pair_1x16_1x16_f32_sfatoms_a(
// PAIR:          %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// PAIR-COUNT-5:    nvvm.mbarrier.init %{{.*}}, %c64_i32
// PAIR-COUNT-6:    nvvm.mbarrier.init %{{.*}}, %c1_i32
// PAIR:            nvvm.mbarrier.init %{{.*}}, %c256_i32
// PAIR-COUNT-5:    nvvm.mbarrier.init %{{.*}}, %c1_i32
// PAIR-NEXT:       nvvm.fence.mbarrier.init
// PAIR:            %[[ISPEER:.*]] = arith.cmpi ne, %[[RANK]], %c0_i32 : i32
// PAIR:            %[[ELECTED:.*]] = nvvm.elect.sync -> i1
// PAIR:              %[[FULLOFF:.*]] = arith.addi %{{.*}}, %c194560_i32 : i32
// PAIR-NEXT:         %[[FULL:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[FULLOFF]]]
// PAIR:              %[[SFOFF:.*]] = arith.addi %{{.*}}, %c194656_i32 : i32
// PAIR-NEXT:         %[[SCALEFULL:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[SFOFF]]]
// PAIR-NEXT:         %[[COPYBAR:.*]] = arith.select %[[ISPEER]], %[[SCALEFULL]], %[[FULL]] : !llvm.ptr<3>
// PAIR:              %[[LEADERFULL:.*]] = nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// PAIR:              scf.if %[[ELECTED]] {
// PAIR-NEXT:           %[[TX:.*]] = arith.select %[[ISPEER]], %c32768_i32, %c34816_i32 : i32
// PAIR-NEXT:           scf.if %[[ISPEER]] {
// PAIR-NEXT:             nvvm.mbarrier.arrive.expect_tx %[[SCALEFULL]], %c2048_i32 : !llvm.ptr<3>, i32
// PAIR-NEXT:           }
// PAIR-NEXT:           nvvm.mbarrier.expect_tx %[[LEADERFULL]], %[[TX]] {scope = #nvvm.mem_scope<cluster>}
// PAIR-COUNT-2:        nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {group = #nvvm.cta_group<cta_2>}
// PAIR:                nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %[[COPYBAR]], %c2048_i32 : !llvm.ptr<7>, <1>
// PAIR-NOT:            nvvm.cp.async.bulk.shared.cluster.global
// PAIR:              nvvm.fence.proxy
// PAIR-NEXT:         scf.if %[[ISPEER]] {
// PAIR:                scf.while
// PAIR-NEXT:             nvvm.mbarrier.try_wait %[[SCALEFULL]], %{{.*}} {scope = #nvvm.mem_scope<cluster>}
// PAIR:                } do {
// PAIR-NEXT:             scf.yield
// PAIR-NEXT:           }
// PAIR-NEXT:         }
// PAIR-NEXT:         nvvm.mbarrier.arrive %[[LEADERFULL]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// SM120-LABEL: func.func @quantize_lhs(
// SM120:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn blocks
// SM120:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n256k512_1x16_1x16_f32_t128x128 blocks
func.func @quantize_lhs(%x: tensor<256x512xbf16>, %w: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  %a = nvfp4.quantize %x : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

// 16x16 weights as B of a 128x256 tile: the scales expanded to one per row
// ([256, 16] bytes instead of the compact [16, 16]; every row of a tile
// stores the tile's scale, no first-row condition), two bulk copies per K
// tile (one per 128-row block of B) and no scale loads or stores by the
// lanes, which only wait and arrive (no proxy fence).
// CHECK-LABEL: func.func @weights_16x16(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x256_16x16_bf16_rn_amax_sfatoms
// CHECK-SAME:      memref<256x16xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k256_t256_1x16_16x16_f32_sfatoms_b
// CHECK-SAME:      memref<256x16xf8E4M3FN>
// CHECK:       gpu.func @nvfp4_quantize_256x256_16x16_bf16_rn_amax_sfatoms(
// CHECK:         gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK:         scf.if
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK-NOT:     scf.if
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m256n256k256_t256_1x16_16x16_f32_sfatoms_b(
// CHECK:         nvvm.mbarrier.expect_tx %{{.*}}, %c53248_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-COUNT-2: nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c2048_i32
// The A scales by the lanes: 4 rows, 16-byte loads.
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT:     llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK:         nvvm.fence.proxy
// CHECK:         nvvm.mbarrier.arrive
// The pair: each CTA TMA-loads its own 128 rows of A and of B (rank *
// 128 past the tile's first row), but copies the scale atoms of all 256 B
// rows of the tile, from its first row (no rank offset): each CTA's tensor
// core scales its accumulator rows by every B column's scales. Copying from
// the rank's row instead gave rank 1 the scales of rows [128, 384) of the
// tile and read 2 KiB past the buffer at the last N tile.
// PAIR-LABEL:  func.func @weights_16x16(
// PAIR:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k256_t256_pair_1x16_16x16_f32_sfatoms_b clusters
// PAIR:        gpu.func @nvfp4_tcgen05_matmul_m256n256k256_t256_pair_1x16_16x16_f32_sfatoms_b(
// PAIR-SAME:       %{{[^:]*}}: memref<256x256xf4E2M1FN>, %[[AMAPARG:[^:]*]]: !llvm.array<16 x i64>, %{{[^:]*}}: memref<256x16xf8E4M3FN>, %{{[^:]*}}: f32, %{{[^:]*}}: memref<256x256xf4E2M1FN>, %[[BMAPARG:[^:]*]]: !llvm.array<16 x i64>, %[[BSCALES:[^:]*]]: memref<256x16xf8E4M3FN>
// PAIR:            llvm.store %[[AMAPARG]], %[[AMAP:[^ ]*]] {alignment = 64 : i64}
// PAIR:            llvm.store %[[BMAPARG]], %[[BMAP:[^ ]*]] {alignment = 64 : i64}
// PAIR:            %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// PAIR:            %[[AFIRST:.*]] = arith.muli %{{.*}}, %c256_i32 : i32
// PAIR-NEXT:       %[[ASHARE:.*]] = arith.muli %[[RANK]], %c128_i32 : i32
// PAIR-NEXT:       %[[AROW:.*]] = arith.addi %[[AFIRST]], %[[ASHARE]] : i32
// PAIR-NEXT:       %[[BFIRST:.*]] = arith.muli %{{.*}}, %c256_i32 : i32
// PAIR-NEXT:       %[[BSHARE:.*]] = arith.muli %[[RANK]], %c128_i32 : i32
// PAIR-NEXT:       %[[BROW:.*]] = arith.addi %[[BFIRST]], %[[BSHARE]] : i32
// PAIR:            arith.select %{{.*}}, %c32768_i32, %c36864_i32 : i32
// PAIR:            nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c4096_i32 : !llvm.ptr<3>, i32
// PAIR:            nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[AMAP]], %{{.*}}, box[%{{.*}}, %[[AROW]]]
// PAIR:            nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[BMAP]], %{{.*}}, box[%{{.*}}, %[[BROW]]]
// Atom 0: rows [BFIRST, BFIRST + 128); atom 1: rows [BFIRST + 128, BFIRST + 256).
// PAIR:            %[[R0:.*]] = arith.extui %[[BFIRST]] : i32 to i64
// PAIR:            arith.divui %[[R0]], %c128_i64 : i64
// PAIR:            nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c2048_i32
// PAIR:            %[[R1:.*]] = arith.addi %[[BFIRST]], %c128_i32 : i32
// PAIR-NEXT:       %[[R1W:.*]] = arith.extui %[[R1]] : i32 to i64
// PAIR:            arith.divui %[[R1W]], %c128_i64 : i64
// PAIR:            nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, %c2048_i32
// PAIR-NEXT:     }
func.func @weights_16x16(%a: !nvfp4.tensor<256x256, 1x16>, %wf: tensor<256x256xbf16>, %amax: f32) -> tensor<256x256xf32> {
  %w = nvfp4.quantize %wf amax %amax : tensor<256x256xbf16> -> !nvfp4.tensor<256x256, 16x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<256x256, 16x16> -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// -----

// The NVFP4 epilogue -> matmul chain: the first kernel reads both operands'
// atoms and its epilogue writes the result's scales at their atom offsets
// (`_nvfp4_sfatoms`); the second matmul reads them as A. No cast survives.
// CHECK-LABEL: func.func @epilogue_chain(
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_16x16_f32_sfatoms_ab_nvfp4_sfatoms
// CHECK-SAME:      %[[Q:[a-z0-9_]+]] : memref<256x256xf4E2M1FN>, %[[QS:[a-z0-9_]+]] : memref<256x16xf8E4M3FN>)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k256_t256_1x16_16x16_f32_sfatoms_ab
// CHECK-SAME:      args(%[[Q]] : memref<256x256xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[QS]] : memref<256x16xf8E4M3FN>
// CHECK-NOT:     builtin.unrealized_conversion_cast
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_16x16_f32_sfatoms_ab_nvfp4_sfatoms(
// CHECK:         nvvm.mbarrier.expect_tx %{{.*}}, %c55296_i32
// CHECK-COUNT-3: nvvm.cp.async.bulk.shared.cluster.global
// CHECK-NOT:     llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-NOT:     nvvm.fence.proxy
// CHECK:         nvvm.mbarrier.arrive
// CHECK:         nvvm.tcgen05.ld
// The atom offset of (row, column block) in i64, then every row stores.
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK:         arith.divui %{{.*}}, %c128_i64 : i64
// CHECK:         arith.muli %{{.*}}, %c512_i64 : i64
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// SM120-LABEL: func.func @epilogue_chain(
// SM120-NOT:     sfatoms
// SM120:         return
func.func @epilogue_chain(%x: tensor<256x512xbf16>, %wf: tensor<256x512xbf16>, %wf2: tensor<256x256xbf16>, %amax: f32) -> tensor<256x256xf32> {
  %a = nvfp4.quantize %x : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  %w = nvfp4.quantize %wf : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 16x16>
  %w2 = nvfp4.quantize %wf2 : tensor<256x256xbf16> -> !nvfp4.tensor<256x256, 16x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 16x16> -> tensor<256x256xf32>
  %q = nvfp4.quantize %y amax %amax : tensor<256x256xf32> -> !nvfp4.tensor<256x256, 1x16>
  %z = nvfp4.matmul %q, %w2 : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<256x256, 16x16> -> tensor<256x256xf32>
  return %z : tensor<256x256xf32>
}

// -----

// What stays compact: a value also dequantized, B of a matmul with tile
// N = 64 (a 64-row B tile is half an atom).
// CHECK-LABEL: func.func @stays_compact(
// CHECK-NOT:     sfatoms
// CHECK:         return
func.func @stays_compact(%x: tensor<256x256xbf16>, %w: !nvfp4.tensor<64x256, 1x16>, %v: tensor<64x256xbf16>) -> (tensor<256x256xf32>, tensor<256x64xf32>, tensor<256x64xf32>) {
  %a = nvfp4.quantize %x : tensor<256x256xbf16> -> !nvfp4.tensor<256x256, 1x16>
  %d = nvfp4.dequantize %a : !nvfp4.tensor<256x256, 1x16> -> tensor<256x256xf32>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<256x64xf32>
  %b = nvfp4.quantize %v : tensor<64x256xbf16> -> !nvfp4.tensor<64x256, 1x16>
  %y3 = nvfp4.matmul %a, %b : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<256x64xf32>
  return %d, %y, %y3 : tensor<256x256xf32>, tensor<256x64xf32>, tensor<256x64xf32>
}

