// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s

// Host side: components as buffers, a 64x64-tile grid of 128 threads, the
// result returned as a tensor.

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @matmul_f32(
// CHECK-SAME:    %[[A:.*]]: !nvfp4.tensor<128x256, 1x16>, %[[B:.*]]: !nvfp4.tensor<192x256, 16x16>
// CHECK:         %[[AD:.*]], %[[AS:.*]], %[[AG:.*]] = nvfp4.disassemble %[[A]]
// CHECK:         %[[ADM:.*]] = bufferization.to_buffer %[[AD]] read_only : tensor<128x256xf4E2M1FN> to memref<128x256xf4E2M1FN>
// CHECK:         %[[ASM:.*]] = bufferization.to_buffer %[[AS]] read_only : tensor<128x16xf8E4M3FN> to memref<128x16xf8E4M3FN>
// CHECK:         %[[BD:.*]], %[[BS:.*]], %[[BG:.*]] = nvfp4.disassemble %[[B]]
// CHECK:         %[[BSM:.*]] = bufferization.to_buffer %[[BS]] read_only : tensor<12x16xf8E4M3FN> to memref<12x16xf8E4M3FN>
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<128x192xf32>
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n192k256_1x16_16x16_f32
// CHECK-SAME:      blocks in (%[[C3]], %[[C2]], %{{[a-z0-9_]+}}) threads in (%[[C128]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}})
// CHECK-SAME:      args(%[[ADM]] : memref<128x256xf4E2M1FN>, %[[ASM]] : memref<128x16xf8E4M3FN>, %[[AG]] : f32,
// CHECK-SAME:           %[[BSM]] : memref<12x16xf8E4M3FN>, %[[BG]] : f32, %[[OUT]] : memref<128x192xf32>)
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[R]]

// Device side: a 4-stage cp.async pipeline (4 slots of the A, B and scale
// tiles in dynamic shared memory), a loop over K/128 steps, and the
// epilogue. Prologue: steps 0, 1 and 2 (absent: an empty group), one commit
// group each. Iteration kt: wait for step kt, barrier, prefetch step kt + 3
// (when it exists), commit; then the scales (each lane's packed scale
// registers, one 16-byte load per register and group of two steps), and
// per 64-wide K slice the A and B fragments by ldmatrix.x4 (one per A
// block, one per two B blocks) and 2x4 MMAs per warp, whose selectors pick
// each block's lanes and slice's word.

// CHECK:       gpu.module @nvfp4_kernels
// CHECK:         llvm.mlir.global external @__nvfp4_mma_sync_smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK:         gpu.func @nvfp4_matmul_m128n192k256_1x16_16x16_f32(
// CHECK-NOT:       workgroup
// Two CTAs fit an SM's shared memory (36032 bytes each): .minnctapersm 2.
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK-DAG:       %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:       %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG:       %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG:       %[[I2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG:       %[[S0:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-DAG:       %[[S1:.*]] = llvm.mlir.constant(1 : i16) : i16
// CHECK-DAG:       %[[S2:.*]] = llvm.mlir.constant(2 : i16) : i16
// CHECK-DAG:       %[[S3:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK:           llvm.mlir.addressof @__nvfp4_mma_sync_smem : !llvm.ptr<3>
// CHECK-NOT:       scf.for
// CHECK-COUNT-4:   nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
// Step 0's scales: one job list of A's 64 rows, then B's 4 compact rows
// (16x16 blocks: one per 16 tile rows), as 16-byte groups of steps 0 and 1
// (K = 256: 16 scale bytes a row), threads 0..67, into consecutive rows of
// the shared scale slot.
// CHECK:           %[[JOBS:.*]] = arith.cmpi ult, %thread_id_x, %c68 : index
// CHECK-NEXT:      scf.if %[[JOBS]] {
// CHECK-NEXT:        %[[ISA:.*]] = arith.cmpi ult, %thread_id_x, %c64 : index
// CHECK-NEXT:        %[[BJOB:.*]] = arith.addi %thread_id_x, %c-64 : index
// CHECK-NEXT:        %[[R:.*]] = arith.select %[[ISA]], %thread_id_x, %[[BJOB]] : index
// CHECK-NEXT:        %[[B0:.*]] = arith.muli %block_id_x, %c4 : index
// CHECK-NEXT:        %[[A0:.*]] = arith.muli %block_id_y, %c64 : index
// CHECK-NEXT:        %[[ROW0:.*]] = arith.select %[[ISA]], %[[A0]], %[[B0]] : index
// CHECK-NEXT:        %[[ROW:.*]] = arith.addi %[[ROW0]], %[[R]] : index
// CHECK-NEXT:        %[[SRC:.*]] = arith.select %[[ISA]], %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK-NEXT:        %[[SRCBYTE:.*]] = arith.muli %[[ROW]], %c16 : index
// CHECK-NEXT:        %[[SRCOFF:.*]] = arith.index_castui %[[SRCBYTE]]
// CHECK-NEXT:        %[[SRCPTR:.*]] = llvm.getelementptr inbounds %[[SRC]][%[[SRCOFF]]]
// CHECK-NEXT:        %[[DSTBYTE:.*]] = arith.muli %thread_id_x, %c16 : index
// CHECK-NEXT:        %[[DSTOFF:.*]] = arith.index_castui %[[DSTBYTE]]
// CHECK-NEXT:        %[[DST:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[DSTOFF]]]
// CHECK-NEXT:        nvvm.cp.async.shared.global %[[DST]], %[[SRCPTR]], 16, cache = cg
// CHECK-NEXT:      }
// CHECK-NEXT:      nvvm.cp.async.commit.group
// Step 1: its data only; step 2 does not exist (K = 256): an empty group.
// CHECK-COUNT-4:   nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK-NEXT:      nvvm.cp.async.commit.group
// CHECK-NEXT:      nvvm.cp.async.commit.group
// The loop runs two steps (one scale group) per iteration, KT and KT + 1.
// Step kt's stage slot is kt mod 4 (a mask); its scale slot, (kt / 2)
// mod 3, is carried through the loop (SLOT, of step KT: A's and B's
// share it) and advanced by a constant with one wrap. Step KT prefetches
// step KT + 3, which starts no group (data only); step KT + 1 prefetches
// KT + 4, which starts one, into scale slot SLOT + 2 mod 3.
// CHECK:           scf.for %[[KT:.*]] = %{{.*}} to %[[C2]] step %[[C2]] iter_args({{.*}}, %[[SLOT:[^ ]*]] = %c0) -> ({{.*}}, f32, index)
// CHECK-NEXT:        %[[STAGE:.*]] = arith.remui %[[KT]], %c4 : index
// CHECK-NEXT:        %[[KT3:.*]] = arith.addi %[[KT]], %c3 : index
// CHECK-NEXT:        %[[NEXTSTAGE0:.*]] = arith.remui %[[KT3]], %c4 : index
// CHECK-NEXT:        nvvm.cp.async.wait.group 2
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        %[[NEXT0:.*]] = arith.addi %[[KT]], %c3
// CHECK:             scf.if
// CHECK:               arith.muli %[[NEXTSTAGE0]], %c4096 : index
// CHECK-COUNT-4:       nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK-NEXT:        }
// CHECK-NEXT:        nvvm.cp.async.commit.group
// Step KT starts its group: each lane loads its packed scale registers
// whole (16 bytes: the group's two steps) from scale slot SLOT,
// whose 1088 bytes hold A's 64 rows, then B's 4. A's register serves the
// warp's two 16-row blocks: lane (g, q) holds row g + 8 (q % 2) of block
// q / 2. B's serves its four 8-column blocks: lane q holds the compact row
// of block q, warpCol / 16 + 8 q / 16. Words 0, 1 are step KT's two K
// slices, 2, 3 step KT + 1's.
// CHECK-NEXT:        %[[GBYTE0:.*]] = arith.muli %[[SLOT]], %c1088 : index
// CHECK-NEXT:        %[[GOFF0:.*]] = arith.index_castui %[[GBYTE0]]
// CHECK-NEXT:        %[[ASLOT:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[GOFF0]]]
// CHECK-NEXT:        %[[QHALF:.*]] = arith.divui %[[Q:.*]], %[[C2]] : index
// CHECK-NEXT:        %[[QBLOCK:.*]] = arith.muli %[[QHALF]], %c16 : index
// CHECK-NEXT:        %[[QODD:.*]] = arith.remui %[[Q]], %[[C2]] : index
// CHECK-NEXT:        %[[QROW:.*]] = arith.muli %[[QODD]], %c8 : index
// CHECK-NEXT:        %[[LANEROW:.*]] = arith.addi %[[G:.*]], %[[QROW]] : index
// CHECK-NEXT:        %[[BLOCKROW:.*]] = arith.addi %[[WARPROW:.*]], %[[QBLOCK]] : index
// CHECK-NEXT:        %[[AROW:.*]] = arith.addi %[[BLOCKROW]], %[[LANEROW]] : index
// CHECK-NEXT:        %[[AROWBYTE:.*]] = arith.muli %[[AROW]], %c16 : index
// CHECK-NEXT:        %[[AROWOFF:.*]] = arith.index_castui %[[AROWBYTE]]
// CHECK-NEXT:        %[[AADDR:.*]] = llvm.getelementptr inbounds %[[ASLOT]][%[[AROWOFF]]]
// CHECK-NEXT:        %[[AG0:.*]] = llvm.load %[[AADDR]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:        %[[AW0:.*]] = llvm.extractelement %[[AG0]][%[[I0]] : i32] : vector<4xi32>
// CHECK-NEXT:        %[[AW1:.*]] = llvm.extractelement %[[AG0]][%[[I1]] : i32] : vector<4xi32>
// CHECK-NEXT:        %[[AW2:.*]] = llvm.extractelement %[[AG0]][%[[I2]] : i32] : vector<4xi32>
// CHECK-NEXT:        llvm.extractelement %[[AG0]]
// CHECK-NEXT:        %[[BSLOTBYTE:.*]] = arith.muli %[[SLOT]], %c1088 : index
// CHECK-NEXT:        %[[BSLOTOFF:.*]] = arith.index_castui %[[BSLOTBYTE]]
// CHECK-NEXT:        %[[BSLOTPTR:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[BSLOTOFF]]]
// CHECK-NEXT:        %[[QCOL:.*]] = arith.muli %[[Q]], %c8 : index
// CHECK-NEXT:        %[[QCOMPACT:.*]] = arith.divui %[[QCOL]], %c16 : index
// CHECK-NEXT:        %[[WARPCOMPACT:.*]] = arith.divui %[[WARPCOL:.*]], %c16 : index
// CHECK-NEXT:        %[[BROW:.*]] = arith.addi %[[WARPCOMPACT]], %[[QCOMPACT]] : index
// CHECK-NEXT:        %[[BROWBYTE:.*]] = arith.muli %[[BROW]], %c16 : index
// CHECK-NEXT:        %[[BROWOFF:.*]] = arith.index_castui %[[BROWBYTE]]
// CHECK-NEXT:        %[[BADDR:.*]] = llvm.getelementptr inbounds %[[BSLOTPTR]][%[[BROWOFF]]]
// CHECK-NEXT:        %[[BG0:.*]] = llvm.load %[[BADDR]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT:        %[[BW0:.*]] = llvm.extractelement %[[BG0]][%[[I0]] : i32] : vector<4xi32>
// CHECK-NEXT:        %[[BW1:.*]] = llvm.extractelement %[[BG0]][%[[I1]] : i32] : vector<4xi32>
// CHECK-NEXT:        %[[BW2:.*]] = llvm.extractelement %[[BG0]][%[[I2]] : i32] : vector<4xi32>
// CHECK-NOT:         llvm.load
// Step KT's fragments come from stage slot STAGE.
// CHECK:             arith.muli %[[STAGE]], %c4096 : index
// CHECK-NOT:         llvm.load
// CHECK:             %[[A:.*]] = nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT:        %[[A0:.*]] = llvm.extractvalue %[[A]][0]
// CHECK-NEXT:        %[[A1:.*]] = llvm.extractvalue %[[A]][1]
// CHECK-NEXT:        %[[A2:.*]] = llvm.extractvalue %[[A]][2]
// CHECK-NEXT:        %[[A3:.*]] = llvm.extractvalue %[[A]][3]
// CHECK-COUNT-2:     nvvm.ldmatrix
// CHECK:             %[[B:.*]] = nvvm.ldmatrix
// CHECK-NEXT:        llvm.extractvalue %[[B]][0]
// CHECK-NEXT:        llvm.extractvalue %[[B]][1]
// CHECK-NEXT:        %[[B2:.*]] = llvm.extractvalue %[[B]][2]
// CHECK-NEXT:        %[[B3:.*]] = llvm.extractvalue %[[B]][3]
// CHECK-NOT:         nvvm.ldmatrix
// MMA (i, j) passes A's register with thread-id-a i, B's with thread-id-b
// j, and byte-id 0 (4X: the slice's four scales are the word).
// CHECK:             nvvm.mma.block_scale A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[{{.*}}] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S0]]] scaleB[%[[BW0]], %[[S0]], %[[S0]]] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>
// CHECK:             nvvm.mma.block_scale A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[{{.*}}] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S0]]] scaleB[%[[BW0]], %[[S0]], %[[S1]]]
// CHECK:             nvvm.mma.block_scale A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[{{.*}}] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S0]]] scaleB[%[[BW0]], %[[S0]], %[[S2]]]
// CHECK:             nvvm.mma.block_scale A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%[[B2]], %[[B3]]] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S0]]] scaleB[%[[BW0]], %[[S0]], %[[S3]]]
// CHECK:             nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S1]]] scaleB[%[[BW0]], %[[S0]], %[[S0]]]
// CHECK-COUNT-3:     nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[AW0]], %[[S0]], %[[S1]]]
// The second K slice: its own fragments, the group's second words.
// CHECK:             nvvm.ldmatrix
// CHECK-COUNT-3:     nvvm.ldmatrix
// CHECK:             nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[AW1]], %[[S0]], %[[S0]]] scaleB[%[[BW1]], %[[S0]], %[[S0]]]
// CHECK-COUNT-7:     nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[AW1]],
// Step KT + 1: its prefetch copies the group of steps KT + 4 and KT + 5
// (one job list of A's and B's rows) into scale slot SLOT + 2 mod 3,
// stage slot (KT + 4) mod 4; it reads stage slot (KT + 1) mod 4 and loads
// no scales: the group's words 2 and 3 are held.
// CHECK:             %[[KT1:.*]] = arith.addi %[[KT]], %c1 : index
// CHECK-NEXT:        %[[KT1B:.*]] = arith.addi %[[KT]], %c1 : index
// CHECK-NEXT:        %[[READSTAGE1:.*]] = arith.remui %[[KT1B]], %c4 : index
// CHECK-NEXT:        %[[KT4:.*]] = arith.addi %[[KT]], %c4 : index
// CHECK-NEXT:        %[[NEXTSTAGE1:.*]] = arith.remui %[[KT4]], %c4 : index
// CHECK-NEXT:        %[[SLOT2:.*]] = arith.addi %[[SLOT]], %c2 : index
// CHECK-NEXT:        %[[WRAP2:.*]] = arith.cmpi uge, %[[SLOT2]], %c3 : index
// CHECK-NEXT:        %[[SLOT2W:.*]] = arith.addi %[[SLOT2]], %c-3 : index
// CHECK-NEXT:        %[[NEXTSLOT:.*]] = arith.select %[[WRAP2]], %[[SLOT2W]], %[[SLOT2]] : index
// CHECK-NEXT:        nvvm.cp.async.wait.group 2
// CHECK-NEXT:        gpu.barrier
// CHECK-NEXT:        %[[NEXT1:.*]] = arith.addi %[[KT1]], %c3 : index
// CHECK:               arith.muli %[[NEXTSTAGE1]], %c4096 : index
// CHECK:             %[[SLOTBYTE:.*]] = arith.muli %[[NEXTSLOT]], %c1088 : index
// CHECK:             arith.cmpi ult, %thread_id_x, %c68 : index
// CHECK:             nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK:             nvvm.cp.async.commit.group
// CHECK-NOT:         llvm.load {{.*}} !llvm.ptr<3> -> vector
// CHECK:             arith.muli %[[READSTAGE1]], %c4096 : index
// CHECK-NOT:         llvm.load {{.*}} !llvm.ptr<3> -> vector
// CHECK:             nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[AW2]], %[[S0]], %[[S0]]] scaleB[%[[BW2]], %[[S0]], %[[S0]]]
// CHECK-COUNT-15:    nvvm.mma.block_scale
// CHECK-NOT:         nvvm.mma.block_scale
// CHECK-NOT:         gpu.barrier
// The next iteration's scale slot: SLOT + 1 mod 3.
// CHECK:             %[[YS:.*]] = arith.addi %[[SLOT]], %c1 : index
// CHECK-NEXT:        %[[YWRAP:.*]] = arith.cmpi uge, %[[YS]], %c3 : index
// CHECK-NEXT:        %[[YSW:.*]] = arith.addi %[[YS]], %c-3 : index
// CHECK-NEXT:        %[[YSLOT:.*]] = arith.select %[[YWRAP]], %[[YSW]], %[[YS]] : index
// CHECK-NEXT:        scf.yield {{.*}}, %[[YSLOT]] : {{.*}}, f32, index
// CHECK:           nvvm.cp.async.wait.group 0
// CHECK:           %[[ALPHA:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// Each lane stores its 32 results as 16 pairs of columns 2q, 2q + 1
// (8-byte stores).
// CHECK-COUNT-16:  llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT:       memref.store
// CHECK:           gpu.return
func.func @matmul_f32(%a: !nvfp4.tensor<128x256, 1x16>,
                      %b: !nvfp4.tensor<192x256, 16x16>) -> tensor<128x192xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>,
         !nvfp4.tensor<192x256, 16x16> -> tensor<128x192xf32>
  return %c : tensor<128x192xf32>
}

// -----

// Batched bf16 with a bf16 accumulator; two identical matmuls share a kernel.

// CHECK-LABEL: func.func @batched_bf16_acc(
// CHECK:         %[[ACC:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x64x64xbf16> to memref<4x64x64xbf16>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_b4m64n64k128_1x16_1x16_bf16_acc
// CHECK-SAME:      blocks in (%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[C4]])
// CHECK-SAME:      dynamic_shared_memory_size %c36864_i32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_b4m64n64k128_1x16_1x16_bf16_acc
// CHECK:       gpu.module @nvfp4_kernels
// CHECK-COUNT-1: gpu.func
// CHECK:           %[[BZ:.*]] = gpu.block_id z
// CHECK:           scf.for
// CHECK-COUNT-8:     nvvm.mma.block_scale
// The pair of columns 2q, 2q + 1 at element (z * 64 + row) * 64 + col of
// the acc and result buffers, 2 bytes per element: one 4-byte load, one
// 4-byte store.
// CHECK:           %[[OUTP:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:           %[[ACCP:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:           %[[ZROWS:.*]] = arith.muli %[[BZ]], %c64 : index
// CHECK-NEXT:      %[[ZROW:.*]] = arith.addi %[[ZROWS]], %{{.*}} : index
// CHECK-NEXT:      %[[ROWEL:.*]] = arith.muli %[[ZROW]], %c64 : index
// CHECK-NEXT:      %[[EL:.*]] = arith.addi %[[ROWEL]], %{{.*}} : index
// CHECK:           %[[ACCOFF:.*]] = arith.muli %[[EL]], %c2 : index
// CHECK-NEXT:      %[[ACCOFF64:.*]] = arith.index_castui %[[ACCOFF]] : index to i64
// CHECK-NEXT:      %[[ACCADDR:.*]] = llvm.getelementptr inbounds %[[ACCP]][%[[ACCOFF64]]]
// CHECK-NEXT:      %[[PREV:.*]] = llvm.load %[[ACCADDR]] {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xbf16>
// CHECK-NEXT:      %[[PREV0:.*]] = llvm.extractelement %[[PREV]][%c0_i32 : i32] : vector<2xbf16>
// CHECK-NEXT:      %[[PREV1:.*]] = llvm.extractelement %[[PREV]][%c1_i32 : i32] : vector<2xbf16>
// CHECK-NEXT:      %[[PREV0F:.*]] = arith.extf %[[PREV0]] : bf16 to f32
// CHECK-NEXT:      %[[SUM0:.*]] = arith.addf %{{.*}}, %[[PREV0F]] : f32
// CHECK-NEXT:      %[[PREV1F:.*]] = arith.extf %[[PREV1]] : bf16 to f32
// CHECK-NEXT:      %[[SUM1:.*]] = arith.addf %{{.*}}, %[[PREV1F]] : f32
// CHECK-NEXT:      %[[OUT0:.*]] = arith.truncf %[[SUM0]] : f32 to bf16
// CHECK-NEXT:      %[[OUT1:.*]] = arith.truncf %[[SUM1]] : f32 to bf16
// CHECK-NEXT:      %[[PAIR0:.*]] = llvm.insertelement %[[OUT0]], %{{.*}}[%c0_i32 : i32] : vector<2xbf16>
// CHECK-NEXT:      %[[PAIR:.*]] = llvm.insertelement %[[OUT1]], %[[PAIR0]][%c1_i32 : i32] : vector<2xbf16>
// CHECK-NEXT:      %[[OUTOFF:.*]] = arith.muli %[[EL]], %c2 : index
// CHECK-NEXT:      %[[OUTOFF64:.*]] = arith.index_castui %[[OUTOFF]] : index to i64
// CHECK-NEXT:      %[[OUTADDR:.*]] = llvm.getelementptr inbounds %[[OUTP]][%[[OUTOFF64]]]
// CHECK-NEXT:      llvm.store %[[PAIR]], %[[OUTADDR]] {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
// CHECK-NOT:     gpu.func
func.func @batched_bf16_acc(%a: !nvfp4.tensor<4x64x128, 1x16>,
                            %b: !nvfp4.tensor<4x64x128, 1x16>,
                            %acc: tensor<4x64x64xbf16>) -> tensor<4x64x64xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<4x64x64xbf16>)
         : !nvfp4.tensor<4x64x128, 1x16>, !nvfp4.tensor<4x64x128, 1x16>
         -> tensor<4x64x64xbf16>
  %d = nvfp4.matmul %a, %b acc(%c : tensor<4x64x64xbf16>)
         : !nvfp4.tensor<4x64x128, 1x16>, !nvfp4.tensor<4x64x128, 1x16>
         -> tensor<4x64x64xbf16>
  return %d : tensor<4x64x64xbf16>
}
