// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-tile-and-vectorize))' --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-tile-and-vectorize{contraction-tiles=4,8,16}))' --split-input-file | FileCheck %s --check-prefix=TILES
// RUN: not nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-tile-and-vectorize{contraction-tiles=8,16}))' 2>&1 | FileCheck %s --check-prefix=BAD

// A matmul with a transposed B (C[m, n] += A[m, k] * B[n, k]), 20 x 40 x 64:
// tiles of 8 (M) x 16 (N) x 8 (K). M = 20 and N = 40 are not multiples of
// their tiles: the loops are peeled. A full tile is vectorized with its K
// loop first (the products [k][m][n] reduced over the outermost dimension
// into the C tile, in increasing k), its transfers rewritten on the base
// buffers, and the C tile carried through the K loop (read before, written
// after). The tiles of the peeled M remainder stay a linalg.matmul with a
// dynamic N size.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[^:]*]]: memref<20x64xf32>, %[[B:[^:]*]]: memref<40x64xf32>, %[[C:[^:]*]]: memref<20x40xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.for %[[M:.*]] = %[[C0]] to %[[C16]] step %[[C8]] {
// CHECK: scf.for %[[N:.*]] = %[[C0]] to %[[C32]] step %[[C16]] {
// CHECK: %[[ACC0:.*]] = vector.transfer_read %[[C]][%[[M]], %[[N]]]{{.*}} : memref<20x40xf32>, vector<8x16xf32>
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C64]] step %[[C8]] iter_args(%[[IT:.*]] = %[[ACC0]]) -> (vector<8x16xf32>) {
// CHECK: %[[VA:.*]] = vector.transfer_read %[[A]][%[[M]], %[[K]]]{{.*}} : memref<20x64xf32>, vector<8x8x16xf32>
// CHECK: %[[VB:.*]] = vector.transfer_read %[[B]][%[[N]], %[[K]]]{{.*}} : memref<40x64xf32>, vector<8x8x16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[VA]], %[[VB]] : vector<8x8x16xf32>
// CHECK: %[[R:.*]] = vector.multi_reduction <add>, %[[P]], %[[IT]] [0] : vector<8x8x16xf32> to vector<8x16xf32>
// CHECK: scf.yield %[[R]] : vector<8x16xf32>
// CHECK: vector.transfer_write %[[ACC]], %[[C]][%[[M]], %[[N]]]
// The N remainder (8 columns at 32) of the full M tiles: static, vectorized.
// CHECK: vector.transfer_read %[[C]][%[[M]], %[[C32]]]{{.*}} vector<8x8xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} [0] : vector<8x8x8xf32> to vector<8x8xf32>
// The M remainder (rows 16..19): the tile's N size is dynamic, left as linalg.
// CHECK: affine.min
// CHECK: linalg.matmul {{.*}} ins({{.*}} : memref<4x8xf32, {{.*}}>, memref<?x8xf32, {{.*}}>) outs({{.*}} : memref<4x?xf32, {{.*}}>)
// TILES-LABEL: func.func @matmul
// TILES: vector.multi_reduction <add>, {{.*}} [0] : vector<16x4x8xf32> to vector<4x8xf32>
func.func @matmul(%a: memref<20x64xf32>, %b: memref<40x64xf32>, %c: memref<20x40xf32>) {
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : memref<20x64xf32>, memref<40x64xf32>) outs(%c : memref<20x40xf32>)
  return
}

// -----

// Any other op: the innermost loop in tiles of 16, the others of 1; the
// 8-column remainder is peeled and vectorized too.
// CHECK-LABEL: func.func @exp
// CHECK-SAME: (%[[X:[^:]*]]: memref<3x40xf32>, %[[Y:[^:]*]]: memref<3x40xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[V:.*]] = vector.transfer_read %[[X]][%[[I]], %[[J]]]{{.*}} vector<1x16xf32>
// CHECK: %[[E:.*]] = math.exp %[[V]] : vector<1x16xf32>
// CHECK: vector.transfer_write %[[E]], %[[Y]][%[[I]], %[[J]]]
// CHECK: %[[VR:.*]] = vector.transfer_read %[[X]][%[[I]], %{{.*}}]{{.*}} vector<1x8xf32>
// CHECK: %[[ER:.*]] = math.exp %[[VR]] : vector<1x8xf32>
// CHECK: vector.transfer_write %[[ER]], %[[Y]]
// CHECK-NOT: linalg.exp
func.func @exp(%a: memref<3x40xf32>, %b: memref<3x40xf32>) {
  linalg.exp ins(%a : memref<3x40xf32>) outs(%b : memref<3x40xf32>)
  return
}

// -----

// Left alone: dynamic shapes, and ops on tensors (the pass runs after
// bufferization).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK: linalg.exp ins(%{{.*}} : memref<?x16xf32>)
// CHECK: linalg.exp ins(%{{.*}} : tensor<4x16xf32>)
// CHECK-NOT: vector.
func.func @left_alone(%a: memref<?x16xf32>, %b: memref<?x16xf32>, %t: tensor<4x16xf32>) -> tensor<4x16xf32> {
  linalg.exp ins(%a : memref<?x16xf32>) outs(%b : memref<?x16xf32>)
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.exp ins(%t : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// BAD: error: nvfp4-tile-and-vectorize: contraction-tiles needs three sizes >= 1 and vector-width one >= 1
