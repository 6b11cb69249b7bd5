// RUN: nvfp4-opt %s --nvfp4-expand-run-time-reshapes | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-expand-run-time-reshapes --expand-strided-metadata -o /dev/null

// A dimension split into two run-time sizes: a reinterpret cast of the
// source's base buffer at its offset, the strides split over the group.
// CHECK-LABEL: func @split_two_run_time
// CHECK-SAME: (%[[M:.*]]: memref<?x32xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[M]]
// CHECK: %[[OUTER:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[S]], 32], strides: [%[[OUTER]], 32, 1]
// CHECK-NOT: memref.expand_shape
func.func @split_two_run_time(%m: memref<?x32xf32>, %b: index, %s: index) -> memref<?x?x32xf32> {
  %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %s, 32]
      : memref<?x32xf32> into memref<?x?x32xf32>
  return %e : memref<?x?x32xf32>
}

// A strided source (a column slice): its row stride (32) and run-time
// offset carry over, the outer stride times the inner size.
// CHECK-LABEL: func @strided_source
// CHECK-SAME: %[[B:[^:]*]]: index, %[[S:[^:]*]]: index, %{{.*}}: index)
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata
// CHECK: %[[OUTER:.*]] = arith.muli %{{.*}}, %[[S]] : index
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[B]], %[[S]], 16], strides: [%[[OUTER]], 32, 1]
func.func @strided_source(%m: memref<?x32xf32>, %b: index, %s: index, %o: index)
    -> memref<?x?x16xf32, strided<[?, ?, 1], offset: ?>> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %m, %c0 : memref<?x32xf32>
  %v = memref.subview %m[0, %o] [%n, 16] [1, 1]
      : memref<?x32xf32> to memref<?x16xf32, strided<[32, 1], offset: ?>>
  %e = memref.expand_shape %v [[0, 1], [2]] output_shape [%b, %s, 16]
      : memref<?x16xf32, strided<[32, 1], offset: ?>> into memref<?x?x16xf32, strided<[?, 32, 1], offset: ?>>
  %c = memref.cast %e : memref<?x?x16xf32, strided<[?, 32, 1], offset: ?>> to memref<?x?x16xf32, strided<[?, ?, 1], offset: ?>>
  return %c : memref<?x?x16xf32, strided<[?, ?, 1], offset: ?>>
}

// Left to expand-strided-metadata: no group of two run-time sizes.
// CHECK-LABEL: func @left_alone
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, %{{.*}}, 32]
// CHECK: memref.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, %{{.*}}, 32]
// CHECK-NOT: reinterpret_cast
func.func @left_alone(%m: memref<?x32xf32>, %s: index) -> (memref<1x?x32xf32>, memref<4x?x32xf32>) {
  %a = memref.expand_shape %m [[0, 1], [2]] output_shape [1, %s, 32]
      : memref<?x32xf32> into memref<1x?x32xf32>
  %b = memref.expand_shape %m [[0, 1], [2]] output_shape [4, %s, 32]
      : memref<?x32xf32> into memref<4x?x32xf32>
  return %a, %b : memref<1x?x32xf32>, memref<4x?x32xf32>
}
