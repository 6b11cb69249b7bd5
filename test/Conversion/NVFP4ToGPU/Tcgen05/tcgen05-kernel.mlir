// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a boundary-scale-layout=row-major" --split-input-file | FileCheck %s

// The tcgen05 kernel. Host: a TMA tensor map of each operand's data,
// encoded by libnvfp4_cuda_runtime into a 64-byte aligned stack slot and
// passed by value (128 bytes) right after that buffer; a persistent grid of min(#tiles, #SMs) CTAs of 192 threads.
// Device: mbarrier setup and tensor-memory allocation, then three roles:
// warp 0 loads the stages (TMA for A and B, its lanes for the scales), one
// elected thread of warp 1 issues the scale copies, the block-scaled MMAs
// with compiler-built descriptors and the commits, warps 2..5 read the
// accumulator with tcgen05.ld and store it.

// CHECK-DAG:   llvm.func @nvfp4CudaMultiprocessorCount() -> i32
// CHECK-DAG:   llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
// CHECK-NOT:   nvfp4CudaTensorMapDestroy
// CHECK-LABEL: func.func @f32_n256(
// The slots, in the entry block.
// CHECK:         %[[BSLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
// CHECK:         %[[ASLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
// The operands' buffers first (a run-time K would be checked on them), then
// the A data as a [256, 512] byte tensor read in 128 x 128-byte boxes with
// the 128-byte swizzle (3); B as [512, 512] in 256 x 128-byte boxes.
// CHECK:         %[[A:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<256x1024xf4E2M1FN> to memref<256x1024xf4E2M1FN>
// CHECK:         %[[B:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<512x1024xf4E2M1FN> to memref<512x1024xf4E2M1FN>
// CHECK:         %[[AADDR:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK:         %[[AADDR64:.*]] = arith.index_castui %[[AADDR]] : index to i64
// CHECK:         %[[APTR:.*]] = llvm.inttoptr %[[AADDR64]] : i64 to !llvm.ptr
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%[[ASLOT]], %[[APTR]], %c512_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK-NEXT:    %[[AMAP:.*]] = llvm.load %[[ASLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%[[BSLOT]], %{{.*}}, %c512_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c512_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c256_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.load %[[BSLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// 2 x 2 tiles of 128 x 256.
// CHECK:         %[[SMS:.*]] = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
// CHECK:         %[[CTAS:.*]] = arith.minui %[[SMS]], %c4_i32 : i32
// CHECK:         %[[GRID:.*]] = arith.index_castui %[[CTAS]] : i32 to index
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_1x16_f32
// CHECK-SAME:      blocks in (%[[GRID]], %c1{{.*}}, %c1{{.*}}) threads in (%c192,
// CHECK-SAME:      dynamic_shared_memory_size %c230528_i32
// CHECK-SAME:      args(%[[A]] : memref<256x1024xf4E2M1FN>, %[[AMAP]] : !llvm.array<16 x i64>, %{{.*}} : memref<256x64xf8E4M3FN>, %{{.*}} : f32, %[[B]] : memref<512x1024xf4E2M1FN>, %[[BMAP]] : !llvm.array<16 x i64>, %{{.*}} : memref<512x64xf8E4M3FN>, %{{.*}} : f32, %{{.*}} : memref<256x512xf32>)
// CHECK-NOT:     nvfp4CudaTensorMap
// CHECK:       gpu.module @nvfp4_kernels
// CHECK:         llvm.mlir.global external @__nvfp4_tcgen05_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_1x16_f32(%{{.*}}: memref<256x1024xf4E2M1FN>, %[[AMAPARG:.*]]: !llvm.array<16 x i64>, %{{.*}}: memref<256x64xf8E4M3FN>, %{{.*}}: f32, %{{.*}}: memref<512x1024xf4E2M1FN>, %[[BMAPARG:.*]]: !llvm.array<16 x i64>,
// CHECK-SAME:      known_block_size = array<i32: 192, 1, 1>, nvvm.minctasm = 1 : i32
// The K-major 128-byte-swizzle operand descriptor (SBO 1024, version 1,
// swizzle 2), the instruction descriptor of M = 128, N = 256 (0x08400480) and
// the scale-copy descriptor (no swizzle, SBO 128).
// CHECK-DAG:       %[[OPDESC:.*]] = arith.constant 4611756662049538048 : i64
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 138413184 : i32
// CHECK-DAG:       %[[CPDESC:.*]] = arith.constant 70403103981568 : i64
// TMA reads the maps through their address: a 64-byte aligned stack copy,
// which nvfp4-grid-constant-kernel-params replaces by the parameter.
// CHECK:           %[[TMA:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
// CHECK-NEXT:      llvm.store %[[AMAPARG]], %[[TMA]] {alignment = 64 : i64} : !llvm.array<16 x i64>, !llvm.ptr
// CHECK:           %[[TMB:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
// CHECK-NEXT:      llvm.store %[[BMAPARG]], %[[TMB]] {alignment = 64 : i64} : !llvm.array<16 x i64>, !llvm.ptr
// CHECK:           %[[TID:.*]] = arith.index_castui %thread_id_x : index to i32
// CHECK:           %[[CTA:.*]] = arith.index_castui %block_id_x : index to i32
// CHECK:           %[[NCTA:.*]] = arith.index_castui %grid_dim_x : index to i32
// CHECK:           %[[WARP:.*]] = arith.divui %[[TID]], %c32_i32 : i32
// This CTA's tiles: (gridDim + 3 - blockIdx) / gridDim of 4.
// CHECK:           %[[T0:.*]] = arith.addi %[[NCTA]], %c3_i32 : i32
// CHECK:           %[[T1:.*]] = arith.subi %[[T0]], %[[CTA]] : i32
// CHECK:           %[[NLOCAL:.*]] = arith.divui %[[T1]], %[[NCTA]] : i32
// The dynamic shared memory's base rounded up to 1024 bytes.
// CHECK:           %[[SMEMRAW:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK-NEXT:      %[[SMEMUP:.*]] = arith.addi %[[SMEMRAW]], %c1023_i32 : i32
// CHECK-NEXT:      %[[SMEMBASE:.*]] = arith.andi %[[SMEMUP]], %c-1024_i32 : i32
// 4 stages: full[4] (32 producer lanes), empty[4] and accFull[1] (one
// tcgen05.commit), accEmpty[1] (128 epilogue threads).
// CHECK-COUNT-4:     nvvm.mbarrier.init %{{.*}}, %c32_i32
// CHECK-COUNT-5:     nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK:             nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK-NOT:         nvvm.mbarrier.init
// CHECK:             nvvm.fence.mbarrier.init
// CHECK:           %[[ISMMA:.*]] = arith.cmpi eq, %[[WARP]], %c1_i32 : i32
// CHECK-NEXT:      scf.if %[[ISMMA]] {
// CHECK-NEXT:        nvvm.tcgen05.alloc %{{.*}}, %c512_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT:        nvvm.tcgen05.relinquish_alloc_permit
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
//
// Warp 0, the producer: the elected lane prefetches both tensor maps; then
// per tile and K tile, wait empty[s]; the elected lane expects 49152 bytes
// and issues the two TMA loads; every lane loads its 4 A scale rows and
// stores them into the 4 A atoms, then loads its 8 B scale rows (all before
// the first store) and stores them into the 8 B atoms, fences and arrives on
// full[s]. Then it drains the empty barriers.
// CHECK:           %[[ISPRODUCER:.*]] = arith.cmpi eq, %[[WARP]], %c0_i32 : i32
// CHECK-NEXT:      scf.if %[[ISPRODUCER]] {
// CHECK-NEXT:        %[[LEADER:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:        scf.if %[[LEADER]] {
// CHECK-NEXT:          nvvm.prefetch tensormap, %[[TMA]] : !llvm.ptr
// CHECK-NEXT:          nvvm.prefetch tensormap, %[[TMB]] : !llvm.ptr
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.for %[[LOCAL:.*]] = %c0_i32 to %[[NLOCAL]] step %c1_i32 : i32 {
// CHECK:               scf.for %{{.*}} = %c0_i32 to %c4_i32 step %c1_i32 : i32 {
// CHECK:                 scf.while
// CHECK-NEXT:              nvvm.mbarrier.try_wait
// CHECK:                 scf.if %[[LEADER]] {
// CHECK-NEXT:              nvvm.mbarrier.expect_tx %[[FULL:.*]], %c49152_i32 : !llvm.ptr<3>, i32
// CHECK:                   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMA]], %[[FULL]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK:                   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[TMB]], %[[FULL]], box[%{{.*}}, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK-NEXT:            }
// CHECK-COUNT-4:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-4:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-COUNT-8:         llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK-COUNT-8:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK-NEXT:            nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:            nvvm.mbarrier.arrive %[[FULL]] : !llvm.ptr<3>
// CHECK:             scf.for
// CHECK:               scf.while
// CHECK-NEXT:            nvvm.mbarrier.try_wait
//
// Warp 1, the MMA issuer (one elected thread): per tile, wait accEmpty;
// per K tile, wait full[s], copy the 12 scale atoms, issue the 4 MMAs and
// commit to empty[s]; after the tile, commit to accFull. K tile 0 is peeled:
// its first MMA overwrites the accumulator (enable-input-d false); the loop
// over K tiles 1..3 carries the stage, its parity and the descriptor
// start-address field of the stage's base, advanced by one step after each
// K tile (+1, wrapping at the 4 stages with the parity flipped and the field
// back to stage 0's; a stage of 55296 bytes is 3456 in the field).
// CHECK:           scf.if %[[ISMMA]] {
// CHECK-NEXT:        %[[ELECTED:.*]] = nvvm.elect.sync -> i1
// CHECK-NEXT:        scf.if %[[ELECTED]] {
// CHECK-NEXT:          %[[BASESHIFT:.*]] = arith.shrui %[[SMEMBASE]], %c4_i32 : i32
// CHECK-NEXT:          %[[BASEFIELD:.*]] = arith.andi %[[BASESHIFT]], %c16383_i32 : i32
// Two accumulators overlap (N = 256: 2 x 256 columns and the 4 x 48 scale
// columns exceed 512): buffer local % 2 starts at column 64 (local % 2),
// the scales at 320; one accEmpty barrier (221256), waited with parity
// (local + 1) % 2.
// CHECK-NEXT:          scf.for %[[MLOCAL:.*]] = %c0_i32 to %[[NLOCAL]] step %c1_i32 : i32 {
// CHECK-NEXT:            %[[MLNEXT:.*]] = arith.addi %[[MLOCAL]], %c1_i32 : i32
// CHECK-NEXT:            %[[MPAR:.*]] = arith.remui %[[MLNEXT]], %c2_i32 : i32
// CHECK-NEXT:            %[[MACCEMPTY:.*]] = llvm.getelementptr inbounds %{{.*}}[221256]
// CHECK-NEXT:            scf.while
// CHECK-NEXT:              nvvm.mbarrier.try_wait %[[MACCEMPTY]], %[[MPAR]]
// CHECK:                 nvvm.tcgen05.fence <after>
// CHECK-NEXT:            %[[MACC:.*]] = arith.remui %[[MLOCAL]], %c2_i32 : i32
// CHECK-NEXT:            %[[MACCCOL:.*]] = arith.muli %[[MACC]], %c64_i32 : i32
// CHECK-NEXT:            %[[MACCADDR:.*]] = arith.addi %[[TMEMBASE:.*]], %[[MACCCOL]] : i32
// CHECK:                 %[[STAGE0:.*]] = arith.remui %{{.*}}, %c4_i32 : i32
// CHECK:                 %[[FIELDOFF:.*]] = arith.muli %[[STAGE0]], %c3456_i32 : i32
// CHECK-NEXT:            %[[FIELD0:.*]] = arith.addi %[[BASEFIELD]], %[[FIELDOFF]] : i32
// CHECK:                 scf.while
// CHECK-NEXT:              nvvm.mbarrier.try_wait %{{.*}}, %[[PARITY0:.*]] : !llvm.ptr<3>, i32 -> i1
// CHECK:                 nvvm.tcgen05.fence <after>
// CHECK:                 arith.addi %[[TMEMBASE]], %c320_i32 : i32
// CHECK-COUNT-12:        nvvm.tcgen05.cp
// CHECK:                 %[[MACCPTR:.*]] = llvm.inttoptr %[[MACCADDR]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:            nvvm.tcgen05.mma.block_scale %[[MACCPTR]], %{{.*}}, %{{.*}}, %[[IDESC]], %false,
// CHECK-COUNT-3:         nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %true,
// CHECK:                 nvvm.tcgen05.commit
// CHECK-NEXT:            %[[NEXT:.*]] = arith.addi %[[STAGE0]], %c1_i32 : i32
// CHECK-NEXT:            %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c4_i32 : i32
// CHECK-NEXT:            %[[STAGE1:.*]] = arith.select %[[WRAP]], %c0_i32, %[[NEXT]] : i32
// CHECK-NEXT:            %[[FLIP:.*]] = arith.extui %[[WRAP]] : i1 to i32
// CHECK-NEXT:            %[[PARITY1:.*]] = arith.xori %[[PARITY0]], %[[FLIP]] : i32
// CHECK-NEXT:            %[[FIELDNEXT:.*]] = arith.addi %[[FIELD0]], %c3456_i32 : i32
// CHECK-NEXT:            %[[FIELD1:.*]] = arith.select %[[WRAP]], %[[BASEFIELD]], %[[FIELDNEXT]] : i32
// CHECK-NEXT:            scf.for %{{.*}} = %c1_i32 to %c4_i32 step %c1_i32 iter_args(%[[S:.*]] = %[[STAGE1]], %[[P:.*]] = %[[PARITY1]], %[[F:.*]] = %[[FIELD1]]) -> (i32, i32, i32)  : i32 {
// CHECK:                   scf.while
// CHECK-NEXT:                nvvm.mbarrier.try_wait %{{.*}}, %[[P]] : !llvm.ptr<3>, i32 -> i1
// CHECK:                   nvvm.tcgen05.fence <after>
// The stage's two descriptors are encoded once; an atom or K slice adds its
// byte offset >> 4 (A scales at 49152: 3072; B at 16384: 1024; the K slice
// of MMA i at 32 i: 2 i).
// CHECK:                   %[[CPFIELD:.*]] = arith.extui %[[F]] : i32 to i64
// CHECK-NEXT:              %[[CPSTAGE:.*]] = arith.ori %[[CPFIELD]], %[[CPDESC]] : i64
// CHECK-NEXT:              %[[OPFIELD:.*]] = arith.extui %[[F]] : i32 to i64
// CHECK-NEXT:              %[[OPSTAGE:.*]] = arith.ori %[[OPFIELD]], %[[OPDESC]] : i64
// CHECK-NEXT:              arith.addi %[[CPSTAGE]], %c3072_i64 : i64
// CHECK-COUNT-12:          nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:                   %[[B0:.*]] = arith.addi %[[OPSTAGE]], %c1024_i64 : i64
// CHECK:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %[[OPSTAGE]], %[[B0]], %[[IDESC]], %true, %{{.*}}, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>}
// CHECK-NEXT:              %[[A1:.*]] = arith.addi %[[OPSTAGE]], %c2_i64 : i64
// CHECK-NEXT:              %[[B1:.*]] = arith.addi %[[OPSTAGE]], %c1026_i64 : i64
// CHECK:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %[[A1]], %[[B1]], %[[IDESC]], %true,
// CHECK-COUNT-2:           nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %true,
// CHECK-NOT:               nvvm.tcgen05.mma
// The empty barriers start at byte 221216 (after 4 stages of 55296 bytes
// and 4 full barriers), accFull at 221248.
// CHECK:                   %[[EMPTYOFF:.*]] = arith.addi %{{.*}}, %c221216_i32 : i32
// CHECK-NEXT:              %[[EMPTY:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[EMPTYOFF]]]
// CHECK-NEXT:              nvvm.tcgen05.commit %[[EMPTY]] : !llvm.ptr<3>
// CHECK-NEXT:              %[[LNEXT:.*]] = arith.addi %[[S]], %c1_i32 : i32
// CHECK-NEXT:              %[[LWRAP:.*]] = arith.cmpi eq, %[[LNEXT]], %c4_i32 : i32
// CHECK-NEXT:              %[[LSTAGE:.*]] = arith.select %[[LWRAP]], %c0_i32, %[[LNEXT]] : i32
// CHECK-NEXT:              %[[LFLIP:.*]] = arith.extui %[[LWRAP]] : i1 to i32
// CHECK-NEXT:              %[[LPARITY:.*]] = arith.xori %[[P]], %[[LFLIP]] : i32
// CHECK-NEXT:              %[[LFIELDNEXT:.*]] = arith.addi %[[F]], %c3456_i32 : i32
// CHECK-NEXT:              %[[LFIELD:.*]] = arith.select %[[LWRAP]], %[[BASEFIELD]], %[[LFIELDNEXT]] : i32
// CHECK-NEXT:              scf.yield %[[LSTAGE]], %[[LPARITY]], %[[LFIELD]] : i32, i32, i32
// CHECK-NEXT:            }
// CHECK-NEXT:            %[[ACCFULL:.*]] = llvm.getelementptr inbounds %{{.*}}[221248]
// CHECK-NEXT:            nvvm.tcgen05.commit %[[ACCFULL]] : !llvm.ptr<3>
//
// Warps 2..5, the epilogue: per tile, wait accFull; per 16 columns,
// tcgen05.ld, scale, store through the warp's staging buffer (after the
// tensor-memory slot, at 221312 + 2048 (warp % 4)): each thread stores its
// row's 4 groups of 4 values at 64 lane + 16 (group ^ (lane / 2) % 4),
// bar.warp.sync, then each of the 4 accesses moves group lane % 4 of row
// 8 s + lane / 4 to global memory (4 lanes per row: whole rows), and
// bar.warp.sync before the buffer's next use; then arrive on accEmpty.
// CHECK:           %[[ISEPILOGUE:.*]] = arith.cmpi uge, %[[WARP]], %c2_i32 : i32
// CHECK-NEXT:      scf.if %[[ISEPILOGUE]] {
// CHECK:             scf.for %{{.*}} = %c0_i32 to %[[NLOCAL]] step %c1_i32 : i32 {
// CHECK:               scf.while
// CHECK-NEXT:            nvvm.mbarrier.try_wait
// CHECK:               nvvm.tcgen05.fence <after>
// CHECK-NEXT:          %[[EACC:.*]] = arith.remui %[[ELOCAL:.*]], %c2_i32 : i32
// CHECK-NEXT:          %[[EACCCOL:.*]] = arith.muli %[[EACC]], %c64_i32 : i32
// CHECK-NEXT:          %[[EROWT:.*]] = arith.addi %[[TMEMBASE]], %{{.*}} : i32
// CHECK-NEXT:          %[[EROW:.*]] = arith.addi %[[EROWT]], %[[EACCCOL]] : i32
// The 12 chunks the other buffer shares first: chunk (i + 4 + 12 acc) % 16
// (buffer 0: chunks 4..15; buffer 1: chunks 0..11); then the release,
// then the other 4.
// CHECK:               scf.for %[[I:.*]] = %c0_i32 to %c12_i32 step %c1_i32 : i32 {
// CHECK-NEXT:            %[[ACCLAP:.*]] = arith.muli %[[EACC]], %c12_i32 : i32
// CHECK-NEXT:            %[[I4:.*]] = arith.addi %[[I]], %c4_i32 : i32
// CHECK-NEXT:            %[[ILAP:.*]] = arith.addi %[[I4]], %[[ACCLAP]] : i32
// CHECK-NEXT:            %[[CHUNK:.*]] = arith.remui %[[ILAP]], %c16_i32 : i32
// CHECK-NEXT:            %[[CHUNKCOL:.*]] = arith.muli %[[CHUNK]], %c16_i32 : i32
// CHECK-NEXT:            %[[LDADDR:.*]] = arith.addi %[[EROW]], %[[CHUNKCOL]] : i32
// CHECK-NEXT:            %[[LDPTR:.*]] = llvm.inttoptr %[[LDADDR]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:            nvvm.tcgen05.ld %[[LDPTR]] {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
// CHECK-NEXT:            nvvm.tcgen05.wait <load>
// CHECK:                 %[[WARPQ:.*]] = arith.remui %[[WARP]], %c4_i32 : i32
// CHECK-NEXT:            %[[WARPOFF:.*]] = arith.muli %[[WARPQ]], %c2048_i32 : i32
// CHECK-NEXT:            %[[BUF:.*]] = arith.addi %[[WARPOFF]], %c221312_i32 : i32
// CHECK-NEXT:            %[[PAIRROW:.*]] = arith.divui %[[LANE:.*]], %c2_i32 : i32
// CHECK-NEXT:            %[[SWZ:.*]] = arith.remui %[[PAIRROW]], %c4_i32 : i32
// CHECK-NEXT:            %[[GROUPOFF:.*]] = arith.muli %[[SWZ]], %c16_i32 : i32
// CHECK-NEXT:            %[[ROWOFF:.*]] = arith.muli %[[LANE]], %c64_i32 : i32
// CHECK-NEXT:            %[[INBUF:.*]] = arith.addi %[[ROWOFF]], %[[GROUPOFF]] : i32
// CHECK-NEXT:            %[[OFF:.*]] = arith.addi %[[BUF]], %[[INBUF]] : i32
// CHECK-NEXT:            %[[SLOT:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK-NEXT:            llvm.store %{{.*}}, %[[SLOT]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:                 arith.xori %{{.*}}, %c1_i32 : i32
// CHECK:                 llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:                 arith.xori %{{.*}}, %c2_i32 : i32
// CHECK:                 llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:                 arith.xori %{{.*}}, %c3_i32 : i32
// CHECK:                 llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:            nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK:                 %[[QUADROW:.*]] = arith.divui %[[LANE]], %c4_i32 : i32
// CHECK:                 %[[V0:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:                 llvm.store %[[V0]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:                 %[[QUADROW1:.*]] = arith.divui %[[LANE]], %c4_i32 : i32
// CHECK-NEXT:            arith.addi %[[QUADROW1]], %c8_i32 : i32
// CHECK:                 %[[V1:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:                 llvm.store %[[V1]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:                 %[[QUADROW2:.*]] = arith.divui %[[LANE]], %c4_i32 : i32
// CHECK-NEXT:            arith.addi %[[QUADROW2]], %c16_i32 : i32
// CHECK:                 %[[V2:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:                 llvm.store %[[V2]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK:                 %[[QUADROW3:.*]] = arith.divui %[[LANE]], %c4_i32 : i32
// CHECK-NEXT:            arith.addi %[[QUADROW3]], %c24_i32 : i32
// CHECK:                 %[[V3:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:                 llvm.store %[[V3]], %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NEXT:            nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK-NEXT:          }
// CHECK-NEXT:          nvvm.tcgen05.fence <before>
// CHECK-NEXT:          %[[ACCEMPTY:.*]] = llvm.getelementptr inbounds %{{.*}}[221256]
// CHECK-NEXT:          nvvm.mbarrier.arrive %[[ACCEMPTY]] : !llvm.ptr<3>
// CHECK-NEXT:          scf.for %{{.*}} = %c12_i32 to %c16_i32 step %c1_i32 : i32 {
// CHECK:                 nvvm.tcgen05.ld
// CHECK-NOT:             nvvm.mbarrier.arrive
// CHECK:               }
// CHECK:           nvvm.tcgen05.fence <before>
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.if %[[ISMMA]] {
// CHECK-NEXT:        nvvm.tcgen05.fence <after>
// CHECK:             nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 : !llvm.ptr<6>, i32
func.func @f32_n256(%a: !nvfp4.tensor<256x1024, 1x16>,
                    %b: !nvfp4.tensor<512x1024, 1x16>) -> tensor<256x512xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>,
         !nvfp4.tensor<512x1024, 1x16> -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}

// -----

// N = 384 takes the 128-wide tile: 6 stages and two accumulators (2 x 128
// columns next to 6 x 32 scale columns), 8 scale copies (4 A + 4 B atoms)
// and 4 MMAs per K tile, N = 128 in the instruction descriptor (0x08200480);
// the batch is part of the rows of the tensor maps (2 x 384 rows of B); a
// bf16 accumulator is loaded and the result stored as bf16.
// CHECK-LABEL: func.func @batched_bf16_acc_n128(
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{(_[0-9]+)?}}, %c768_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// The 16x16 B scales are staged (tcgen05-staged-scales.mlir): their map is
// [2 x 384 / 16, 512 / 16] bytes in boxes of 8 rows x 16 bytes, the full
// barriers count the scale warp's lanes too, and 6 scaleStaged barriers
// follow accEmpty.
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c32_i64{{(_[0-9]+)?}}, %c48_i64{{(_[0-9]+)?}}, %c32_i64{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c8_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}})
// CHECK:         arith.minui %{{.*}}, %c6_i32 : i32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m128n384k512_t128_1x16_16x16_bf16_acc_sfstaged_b
// CHECK-SAME:      threads in (%c224,
// CHECK-SAME:      dynamic_shared_memory_size %c230656_i32
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_b2m128n384k512_t128_1x16_16x16_bf16_acc_sfstaged_b(
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 136316032 : i32
// CHECK-COUNT-6:     nvvm.mbarrier.init %{{.*}}, %c64_i32
// CHECK-COUNT-8:     nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-COUNT-2:     nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK-COUNT-6:     nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NOT:         nvvm.mbarrier.init
// CHECK:             nvvm.tcgen05.alloc %{{.*}}, %c512_i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:           scf.for
// CHECK-COUNT-8:       nvvm.tcgen05.cp
// CHECK-COUNT-4:       nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]],
// CHECK:               nvvm.tcgen05.commit
// CHECK:             nvvm.tcgen05.ld
// CHECK:             llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xbf16>
// CHECK:             arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xbf16>, !llvm.ptr<1>
// CHECK:           nvvm.tcgen05.dealloc %{{.*}}, %c512_i32
func.func @batched_bf16_acc_n128(%a: !nvfp4.tensor<2x128x512, 1x16>,
                                 %b: !nvfp4.tensor<2x384x512, 16x16>,
                                 %acc: tensor<2x128x384xbf16>) -> tensor<2x128x384xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<2x128x384xbf16>)
         : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x384x512, 16x16>
         -> tensor<2x128x384xbf16>
  return %c : tensor<2x128x384xbf16>
}

// -----

// N = 192 takes the 64-wide tile (0x08100480, B boxes of 64 rows); rows 64..
// 127 of the B scale atom are zero padding the producer stores as zeros
// (words 2 and 3 of each lane's 16 bytes, in each of the 4 atoms). The 16x16
// A scales are staged: a [8, 16]-byte map in boxes of 8 rows.
// CHECK-LABEL: func.func @f32_n64(
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c16_i64{{(_[0-9]+)?}}, %c8_i64{{(_[0-9]+)?}}, %c16_i64{{(_[0-9]+)?}}, %c16_i32{{(_[0-9]+)?}}, %c8_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}})
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c128_i64{{(_[0-9]+)?}}, %c192_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c64_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK:         arith.minui %{{.*}}, %c3_i32{{(_[0-9]+)?}} : i32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a
// CHECK-SAME:      dynamic_shared_memory_size %c181504_i32
// CHECK:         gpu.func @nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a(
// CHECK-DAG:       %[[IDESC:.*]] = arith.constant 135267456 : i32
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c512_i32
// CHECK:           nvvm.mbarrier.expect_tx %{{.*}}, %c24576_i32
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c128_i32
// CHECK-COUNT-8:   llvm.insertelement %c0_i32, %{{.*}}[%c{{2|3}}_i32 : i32] : vector<4xi32>
// CHECK:           nvvm.mbarrier.arrive
// CHECK:           scf.for
// CHECK-COUNT-8:       nvvm.tcgen05.cp
// CHECK-COUNT-4:       nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]],
func.func @f32_n64(%a: !nvfp4.tensor<128x256, 16x16>,
                   %b: !nvfp4.tensor<192x256, 1x16>) -> tensor<128x192xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 16x16>,
         !nvfp4.tensor<192x256, 1x16> -> tensor<128x192xf32>
  return %c : tensor<128x192xf32>
}

// -----

// Two identical matmuls share the kernel and the runtime declarations; each
// launch has its own tensor maps.
// CHECK-LABEL: func.func @shared_kernel(
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(
// CHECK-NEXT:    %[[M0:.*]] = llvm.load
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(
// CHECK-NEXT:    %[[M1:.*]] = llvm.load
// CHECK:         gpu.launch_func @nvfp4_kernels::@[[KERNEL:nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_1x16_f32]] {{.*}} args(%{{.*}}, %[[M0]] : !llvm.array<16 x i64>, {{.*}}, %[[M1]] : !llvm.array<16 x i64>,
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(
// CHECK-NEXT:    %[[M2:.*]] = llvm.load
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(
// CHECK-NEXT:    %[[M3:.*]] = llvm.load
// CHECK:         gpu.launch_func @nvfp4_kernels::@[[KERNEL]] {{.*}} args(%{{.*}}, %[[M2]] : !llvm.array<16 x i64>, {{.*}}, %[[M3]] : !llvm.array<16 x i64>,
// CHECK:         gpu.func @[[KERNEL]](
// CHECK-NOT:     gpu.func
// CHECK-NOT:     llvm.func @nvfp4Cuda
func.func @shared_kernel(%a: !nvfp4.tensor<128x256, 1x16>,
                         %b: !nvfp4.tensor<128x256, 1x16>)
    -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>,
         !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
  %d = nvfp4.matmul %b, %a : !nvfp4.tensor<128x256, 1x16>,
         !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
  return %c, %d : tensor<128x128xf32>, tensor<128x128xf32>
}
