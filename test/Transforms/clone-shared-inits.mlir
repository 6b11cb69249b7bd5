// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-clone-shared-inits))' --split-input-file | FileCheck %s

// A zero fill shared as the destination of three matmuls: the first two
// users get their own tensor.empty + fill (same scalar), built right before
// them; the last keeps the original.
// CHECK-LABEL: func.func @shared_fill
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<8x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x4xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK: %[[A:.*]] = linalg.matmul ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[F1]] : tensor<4x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E2]] : tensor<4x4xf32>)
// CHECK: %[[B:.*]] = linalg.matmul ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[F2]] : tensor<4x4xf32>)
// CHECK: %[[C:.*]] = linalg.matmul ins(%[[X]], %[[Y]] : {{.*}}) outs(%[[F]] : tensor<4x4xf32>)
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @shared_fill(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = linalg.matmul ins(%x, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A shared tensor.empty destination is cloned alone.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[A:.*]] = linalg.exp ins(%{{.*}} : tensor<4xf32>) outs(%[[E1]] : tensor<4xf32>)
// CHECK: %[[B:.*]] = linalg.negf ins(%{{.*}} : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: return %[[A]], %[[B]]
func.func @shared_empty(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.negf ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Left alone: a destination with one use, a shared destination that is a
// computed value (its contents are data, not a fill), and a fill whose own
// destination is not a tensor.empty.
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4xf32>, %[[D:[^:]*]]: tensor<4xf32>)
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
// CHECK: %[[G:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : tensor<4xf32>)
// CHECK: %[[A:.*]] = linalg.exp ins(%[[X]] : tensor<4xf32>) outs(%[[G]] : tensor<4xf32>)
// CHECK: %[[B:.*]] = linalg.negf ins(%[[X]] : tensor<4xf32>) outs(%[[G]] : tensor<4xf32>)
// CHECK: %[[C:.*]] = linalg.exp ins(%[[X]] : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
// CHECK: %[[C2:.*]] = linalg.negf ins(%[[X]] : tensor<4xf32>) outs(%[[A]] : tensor<4xf32>)
// CHECK-NOT: linalg.fill
func.func @left_alone(%x: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %single = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %g = linalg.fill ins(%one : f32) outs(%d : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.exp ins(%x : tensor<4xf32>) outs(%g : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.negf ins(%x : tensor<4xf32>) outs(%g : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.exp ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  %c2 = linalg.negf ins(%x : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %single, %b, %c, %c2, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
