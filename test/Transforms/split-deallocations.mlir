// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-split-deallocations))' --split-input-file | FileCheck %s

func.func private @use(i1, i1, i1)

// Three distinct allocations: one dealloc each, with its own condition; the
// view of %a is retained only by %a's split and takes its updated
// condition (listed twice: both results); the function argument comes from
// none of them (false).
// CHECK-LABEL: func.func @distinct
// CHECK-SAME: (%[[ARG:[^:]*]]: memref<2xf32>, %[[C1:[^:]*]]: i1, %[[C2:[^:]*]]: i1, %[[C3:[^:]*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[VA:.*]] = memref.expand_shape %[[A]]
// CHECK: %[[RA:.*]]:2 = bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C1]]) retain (%[[VA]], %[[VA]] : memref<2x2xf32>, memref<2x2xf32>)
// CHECK: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%[[C2]])
// CHECK-NOT: retain
// CHECK: bufferization.dealloc (%[[C]] : memref<2xf32>) if (%[[C3]])
// CHECK-NOT: retain
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: call @use(%[[RA]]#0, %[[FALSE]], %[[RA]]#1)
func.func @distinct(%arg: memref<2xf32>, %c1: i1, %c2: i1, %c3: i1) -> (memref<2x2xf32>, memref<2xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %c = memref.alloc() : memref<2xf32>
  %va = memref.expand_shape %a [[0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
  %r:3 = bufferization.dealloc (%a, %b, %c : memref<4xf32>, memref<8xf32>, memref<2xf32>) if (%c1, %c2, %c3) retain (%va, %arg, %va : memref<2x2xf32>, memref<2xf32>, memref<2x2xf32>)
  call @use(%r#0, %r#1, %r#2) : (i1, i1, i1) -> ()
  return %va, %arg : memref<2x2xf32>, memref<2xf32>
}

// -----

func.func private @make() -> memref<4xf32>

// Left alone: a memref that is not an allocation (an argument, which may
// alias another one), a retained value of unknown origin (a call result),
// a single memref.
// CHECK-LABEL: func.func @left_alone
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if ({{.*}}) retain
// CHECK: bufferization.dealloc (%{{.*}} : memref<4xf32>) if
// CHECK-NOT: bufferization.dealloc
func.func @left_alone(%arg: memref<4xf32>, %c: i1) -> (i1, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%a, %arg : memref<4xf32>, memref<4xf32>) if (%c, %c)
  %b = memref.alloc() : memref<4xf32>
  %d = memref.alloc() : memref<4xf32>
  %m = call @make() : () -> memref<4xf32>
  %r = bufferization.dealloc (%b, %d : memref<4xf32>, memref<4xf32>) if (%c, %c) retain (%m : memref<4xf32>)
  %e = memref.alloc() : memref<4xf32>
  bufferization.dealloc (%e : memref<4xf32>) if (%c)
  return %r, %m : i1, memref<4xf32>
}
