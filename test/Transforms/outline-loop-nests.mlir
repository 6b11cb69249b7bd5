// RUN: nvfp4-opt %s --nvfp4-outline-loop-nests=min-loop-nests=3 | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-outline-loop-nests | FileCheck %s --check-prefix=DEFAULT

// @f has three top-level loop nests: each becomes a call. The first two
// are identical once outlined (the same loop over another memref) and
// share @f_nest0; the reduction returns its result. Inputs are passed in
// order of first use, constants cloned into the new functions.
// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[M:[^:]*]]: memref<4xf32>, %[[N:[^:]*]]: memref<4xf32>, %[[S:[^:]*]]: f32) -> f32
// CHECK-NOT: scf.for
// CHECK: call @f_nest0(%[[S]], %[[M]]) : (f32, memref<4xf32>) -> ()
// CHECK: call @f_nest0(%[[S]], %[[N]]) : (f32, memref<4xf32>) -> ()
// CHECK: %[[SUM:.*]] = call @f_nest1(%[[M]]) : (memref<4xf32>) -> f32
// CHECK: return %[[SUM]] : f32
// CHECK: func.func private @f_nest0(%[[V:[^:]*]]: f32, %[[B:[^:]*]]: memref<4xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK: memref.store %[[V]], %[[B]][%[[I]]] : memref<4xf32>
// CHECK: return
// CHECK: func.func private @f_nest1(%[[B1:[^:]*]]: memref<4xf32>) -> f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: memref.load %[[B1]]
// CHECK: return %[[R]] : f32
// CHECK-NOT: func.func private @f_nest2
// A function below the threshold is left alone.
// CHECK-LABEL: func.func @small
// CHECK: scf.for
// CHECK-NOT: call
// With the default threshold (32) nothing is outlined.
// DEFAULT-NOT: call
// DEFAULT-NOT: _nest
func.func @f(%m: memref<4xf32>, %n: memref<4xf32>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %s, %m[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %s, %n[%i] : memref<4xf32>
  }
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<4xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  return %sum : f32
}

func.func @small(%m: memref<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %s, %m[%i] : memref<4xf32>
  }
  return
}

// Linalg ops hold regions too. Their discardable attributes (the recipe's
// annotations) are dropped, so the same op of every layer shares one
// function; inherent attributes and types still tell nests apart.
// CHECK-LABEL: func.func @linalg
// CHECK-SAME: (%[[A:[^:]*]]: memref<4x8xf32>, %[[B:[^:]*]]: memref<8x4xf32>, %[[C:[^:]*]]: memref<4x4xf32>, %[[D:[^:]*]]: memref<4x4xf32>)
// CHECK-NEXT: call @linalg_nest0(%[[A]], %[[B]], %[[C]])
// CHECK-NEXT: call @linalg_nest0(%[[A]], %[[B]], %[[D]])
// CHECK-NEXT: call @linalg_nest1(%[[B]], %[[A]], %[[D]])
// CHECK-NEXT: return
// CHECK: func.func private @linalg_nest0
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<8x4xf32>)
// CHECK-NOT: nvfp4.layer
// CHECK: func.func private @linalg_nest1
// CHECK-NEXT: linalg.matmul indexing_maps = [#{{.*}}] ins(%{{.*}}, %{{.*}} : memref<8x4xf32>, memref<4x8xf32>)
// CHECK-NOT: func.func private @linalg_nest2
func.func @linalg(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>, %d: memref<4x4xf32>) {
  linalg.matmul {nvfp4.layer = 0 : i64, nvfp4.precision = "high"} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.matmul {nvfp4.layer = 1 : i64} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%d : memref<4x4xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {nvfp4.layer = 2 : i64} ins(%b, %a : memref<8x4xf32>, memref<4x8xf32>) outs(%d : memref<4x4xf32>)
  return
}
