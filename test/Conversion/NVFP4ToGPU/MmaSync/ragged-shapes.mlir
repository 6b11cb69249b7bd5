// M, N and K that are not multiples of the CTA tile or of the 64-wide K
// step on the mma.sync kernels (sm_120a, sm_121a, sm_90a): the grid rounds
// up, the last tile's copies of rows past M or N and the last K step's
// copies past K read nothing and zero-fill (cp.async with a src-size
// operand, the source clamped into the operand; 8-byte copies when rows are
// not 16-byte aligned, scale bytes loaded one by one when scale rows are not
// 4-byte aligned), and results past M or N are not stored. Shapes that
// divide the tile keep the unpredicated kernel. The emulated runs are in test/GPU/matmul-sm{120,90}-emulated.mlir
// (Inputs/matmul-ragged-cases.mlir), bit-exact with the reference.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_121a %t.sm_121a.ptx -o %t.sm_121a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}

// K = 48: one K step.
// CHECK-LABEL: func.func @k48(
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n64k48_1x16_1x16_f32 blocks in (%c1, %c1{{(_[0-9]+)?}}, %c1{{(_[0-9]+)?}})
func.func @k48(%a: !nvfp4.tensor<64x48, 1x16>, %b: !nvfp4.tensor<64x48, 1x16>) -> tensor<64x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x48, 1x16>, !nvfp4.tensor<64x48, 1x16> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// Grid: ceil(72 / 64) x ceil(100 / 64).
// CHECK-LABEL: func.func @ragged(
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m100n72k128_1x16_1x16_f32 blocks in (%c2, %c2_{{[0-9]+}}, %c1)
func.func @ragged(%a: !nvfp4.tensor<100x128, 1x16>, %b: !nvfp4.tensor<72x128, 1x16>) -> tensor<100x72xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<100x128, 1x16>, !nvfp4.tensor<72x128, 1x16> -> tensor<100x72xf32>
  return %c : tensor<100x72xf32>
}

// M = 128 and N = 64 divide the 64x64 tile: no predicate.
// CHECK-LABEL: func.func @aligned(
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n64k128_1x16_1x16_f32 blocks in (%c1, %c2, %c1{{(_[0-9]+)?}})
func.func @aligned(%a: !nvfp4.tensor<128x128, 1x16>, %b: !nvfp4.tensor<64x128, 1x16>) -> tensor<128x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x128, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}

// Kernels are emitted last-generated first. The aligned kernel has no
// src-size operand and no guarded store.
// CHECK-LABEL: gpu.func @nvfp4_matmul_m128n64k128_1x16_1x16_f32(
// CHECK-NOT: cache =  cg, %
// CHECK-NOT: arith.andi
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: cache =  cg, %
// CHECK-NOT: arith.andi
// CHECK: gpu.return

// The ragged kernel. A row of the tile: valid when below M, else clamped to
// M - 1 and copied with src-size 0.
// CHECK-LABEL: gpu.func @nvfp4_matmul_m100n72k128_1x16_1x16_f32(
// CHECK-DAG: %[[C71:.*]] = arith.constant 71 : index
// CHECK-DAG: %[[C72:.*]] = arith.constant 72 : index
// CHECK-DAG: %[[C99:.*]] = arith.constant 99 : index
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK: %[[AROW:.*]] = arith.addi
// CHECK: %[[AVALID:.*]] = arith.cmpi ult, %[[AROW]], %[[C100]] : index
// CHECK: %[[ACLAMP:.*]] = arith.select %[[AVALID]], %[[AROW]], %[[C99]] : index
// CHECK: arith.muli %[[ACLAMP]], %c64
// CHECK: %[[ASIZE:.*]] = arith.select %[[AVALID]], %c16_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[ASIZE]]
// A row is four 16-byte copies: each thread copies two of A's 256.
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}}
// B rows against N.
// CHECK: %[[BROW:.*]] = arith.addi
// CHECK: %[[BVALID:.*]] = arith.cmpi ult, %[[BROW]], %[[C72]] : index
// CHECK: %[[BCLAMP:.*]] = arith.select %[[BVALID]], %[[BROW]], %[[C71]] : index
// CHECK: arith.muli %[[BCLAMP]], %c64
// CHECK: %[[BSIZE:.*]] = arith.select %[[BVALID]], %c16_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[BSIZE]]
// Scale rows (8 bytes a step): A's and B's share their slots, one job list
// of A's 64 rows then B's 64, one per thread and so with no guard: thread
// tid < 64 copies A's row tid against M, the others B's row tid - 64
// against N, into slot row tid.
// CHECK: %[[ISA:.*]] = arith.cmpi ult, %thread_id_x, %c64 : index
// CHECK: %[[BJOB:.*]] = arith.addi %thread_id_x, %c-64 : index
// CHECK: %[[R:.*]] = arith.select %[[ISA]], %thread_id_x, %[[BJOB]] : index
// CHECK: %[[B0:.*]] = arith.muli %block_id_x, %c64 : index
// CHECK: %[[A0:.*]] = arith.muli %block_id_y, %c64 : index
// CHECK: %[[ROW0:.*]] = arith.select %[[ISA]], %[[A0]], %[[B0]] : index
// CHECK: %[[SROW:.*]] = arith.addi %[[ROW0]], %[[R]] : index
// CHECK: %[[LIMIT:.*]] = arith.select %[[ISA]], %[[C100]], %[[C72]] : index
// CHECK: %[[SVALID:.*]] = arith.cmpi ult, %[[SROW]], %[[LIMIT]] : index
// CHECK: %[[LAST:.*]] = arith.addi %[[LIMIT]], %c-1 : index
// CHECK: %[[SCLAMP:.*]] = arith.select %[[SVALID]], %[[SROW]], %[[LAST]] : index
// CHECK: arith.select %[[ISA]], %{{.*}}, %{{.*}} : !llvm.ptr<1>
// CHECK: arith.muli %[[SCLAMP]], %c8 : index
// CHECK: arith.muli %thread_id_x, %c8 : index
// CHECK: %[[SSIZE:.*]] = arith.select %[[SVALID]], %c8_i32, %c0_i32 : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca, %[[SSIZE]]
// CHECK-NOT: nvvm.cp.async.shared.global {{.*}}, 8, cache
// CHECK: nvvm.cp.async.commit.group
// The epilogue, after the K loop, stores inside the tile only.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: %[[ROWIN:.*]] = arith.cmpi ult, %[[ROW:[^,]*]], %[[C100]] : index
// CHECK-NEXT: %[[COLIN:.*]] = arith.cmpi ult, %[[COL:[^,]*]], %[[C72]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[ROWIN]], %[[COLIN]] : i1
// N = 72 is even: the columns COL and COL + 1 (COL even) are both inside
// when COL is, one 8-byte store at element ROW * 72 + COL.
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT:   %[[ROWEL:.*]] = arith.muli %[[ROW]], %[[C72]] : index
// CHECK-NEXT:   %[[EL:.*]] = arith.addi %[[ROWEL]], %[[COL]] : index
// CHECK-NEXT:   %[[V0:.*]] = arith.mulf
// CHECK-NEXT:   %[[V1:.*]] = arith.mulf
// CHECK-NEXT:   %[[PAIR0:.*]] = llvm.insertelement %[[V0]], %{{.*}}[%c0_i32 : i32] : vector<2xf32>
// CHECK-NEXT:   %[[PAIR:.*]] = llvm.insertelement %[[V1]], %[[PAIR0]][%c1_i32 : i32] : vector<2xf32>
// CHECK-NEXT:   %[[OFF:.*]] = arith.muli %[[EL]], %c4 : index
// CHECK-NEXT:   %[[OFF64:.*]] = arith.index_castui %[[OFF]] : index to i64
// CHECK-NEXT:   %[[ADDR:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[OFF64]]]
// CHECK-NEXT:   llvm.store %[[PAIR]], %[[ADDR]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>

// K = 48 (rows of 24 bytes, scale rows of 3): 8-byte copies; a half past
// the row's 24 bytes reads nothing, from the row's start.
// CHECK-LABEL: gpu.func @nvfp4_matmul_m64n64k48_1x16_1x16_f32(
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c8 : index
// CHECK-NEXT: %[[KIN:.*]] = arith.cmpi ult, %[[OFF]], %c24 : index
// CHECK-NEXT: %[[KOFF:.*]] = arith.select %[[KIN]], %[[OFF]], %c0 : index
// CHECK-NEXT: %[[ROWOFF:.*]] = arith.muli %{{.*}}, %c24 : index
// CHECK-NEXT: arith.addi %[[ROWOFF]], %[[KOFF]] : index
// CHECK: %[[SIZE:.*]] = arith.select %[[KIN]], %c8_i32, %c0_i32 : i32
// CHECK-NEXT: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache =  ca, %[[SIZE]]
// The scale bytes of a row, loaded one by one, packed low byte first, and
// stored as one shared word.
// CHECK: %[[B0:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: %[[W0:.*]] = arith.extui %[[B0]] : i8 to i32
// CHECK: %[[B1:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: %[[X1:.*]] = arith.extui %[[B1]] : i8 to i32
// CHECK: %[[S1:.*]] = arith.shli %[[X1]], %c8_i32 : i32
// CHECK: %[[W1:.*]] = arith.ori %[[W0]], %[[S1]] : i32
// CHECK: %[[B2:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: %[[X2:.*]] = arith.extui %[[B2]] : i8 to i32
// CHECK: %[[S2:.*]] = arith.shli %[[X2]], %c16_i32 : i32
// CHECK: %[[W2:.*]] = arith.ori %[[W1]], %[[S2]] : i32
// CHECK: llvm.store %[[W2]], %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: scf.for %{{.*}} = %c0 to %c1 step %c1

// PTX: cp.async.cg.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 16, %r{{[0-9]+}};
// PTX: cp.async.ca.shared.global [%rd{{[0-9]+}}], [%rd{{[0-9]+}}], 8, %r{{[0-9]+}};
