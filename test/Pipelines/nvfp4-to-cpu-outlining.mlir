// RUN: nvfp4-opt %s --nvfp4-to-cpu --mlir-print-ir-after=nvfp4-outline-loop-nests -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTLINED
// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s

// A large function (32 element-wise ops, the same op at every "layer" but
// for the recipe's annotations) through nvfp4-to-cpu: the ops are outlined
// before they are tiled and lowered, so all 32 share one function and the
// tiling, vectorization and loop lowering run on one copy.
// OUTLINED-LABEL: IR Dump After OutlineLoopNests
// OUTLINED: func.func @layers
// OUTLINED-NOT: linalg.
// OUTLINED-COUNT-32: call @layers_nest0(
// OUTLINED-NOT: linalg.
// OUTLINED: func.func private @layers_nest0(%[[X:[^:]*]]: memref<16x64xf32>, %[[Y:[^:]*]]: memref<16x64xf32>)
// OUTLINED-NEXT: linalg.exp ins(%[[X]] : memref<16x64xf32>) outs(%[[Y]] : memref<16x64xf32>)
// OUTLINED-NEXT: return
// OUTLINED-NOT: @layers_nest1

// The lowered module: one outlined function, called 32 times, whose body is
// vector code.
// CHECK: llvm.func @layers(
// CHECK-COUNT-32: llvm.call @layers_nest0(
// CHECK: llvm.func @layers_nest0(
// CHECK: llvm.intr.exp({{.*}}) : (vector<{{[0-9]+}}xf32>) -> vector<{{[0-9]+}}xf32>
// CHECK-NOT: llvm.func @layers_nest1
func.func @layers(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %e0 = tensor.empty() : tensor<16x64xf32>
  %y0 = linalg.exp {nvfp4.layer = 0 : i64} ins(%x : tensor<16x64xf32>) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e1 = tensor.empty() : tensor<16x64xf32>
  %y1 = linalg.exp {nvfp4.layer = 1 : i64} ins(%y0 : tensor<16x64xf32>) outs(%e1 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %y2 = linalg.exp {nvfp4.layer = 2 : i64} ins(%y1 : tensor<16x64xf32>) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %y3 = linalg.exp {nvfp4.layer = 3 : i64} ins(%y2 : tensor<16x64xf32>) outs(%e3 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e4 = tensor.empty() : tensor<16x64xf32>
  %y4 = linalg.exp {nvfp4.layer = 4 : i64} ins(%y3 : tensor<16x64xf32>) outs(%e4 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e5 = tensor.empty() : tensor<16x64xf32>
  %y5 = linalg.exp {nvfp4.layer = 5 : i64} ins(%y4 : tensor<16x64xf32>) outs(%e5 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e6 = tensor.empty() : tensor<16x64xf32>
  %y6 = linalg.exp {nvfp4.layer = 6 : i64} ins(%y5 : tensor<16x64xf32>) outs(%e6 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e7 = tensor.empty() : tensor<16x64xf32>
  %y7 = linalg.exp {nvfp4.layer = 7 : i64} ins(%y6 : tensor<16x64xf32>) outs(%e7 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e8 = tensor.empty() : tensor<16x64xf32>
  %y8 = linalg.exp {nvfp4.layer = 8 : i64} ins(%y7 : tensor<16x64xf32>) outs(%e8 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e9 = tensor.empty() : tensor<16x64xf32>
  %y9 = linalg.exp {nvfp4.layer = 9 : i64} ins(%y8 : tensor<16x64xf32>) outs(%e9 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e10 = tensor.empty() : tensor<16x64xf32>
  %y10 = linalg.exp {nvfp4.layer = 10 : i64} ins(%y9 : tensor<16x64xf32>) outs(%e10 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e11 = tensor.empty() : tensor<16x64xf32>
  %y11 = linalg.exp {nvfp4.layer = 11 : i64} ins(%y10 : tensor<16x64xf32>) outs(%e11 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e12 = tensor.empty() : tensor<16x64xf32>
  %y12 = linalg.exp {nvfp4.layer = 12 : i64} ins(%y11 : tensor<16x64xf32>) outs(%e12 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e13 = tensor.empty() : tensor<16x64xf32>
  %y13 = linalg.exp {nvfp4.layer = 13 : i64} ins(%y12 : tensor<16x64xf32>) outs(%e13 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e14 = tensor.empty() : tensor<16x64xf32>
  %y14 = linalg.exp {nvfp4.layer = 14 : i64} ins(%y13 : tensor<16x64xf32>) outs(%e14 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e15 = tensor.empty() : tensor<16x64xf32>
  %y15 = linalg.exp {nvfp4.layer = 15 : i64} ins(%y14 : tensor<16x64xf32>) outs(%e15 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e16 = tensor.empty() : tensor<16x64xf32>
  %y16 = linalg.exp {nvfp4.layer = 16 : i64} ins(%y15 : tensor<16x64xf32>) outs(%e16 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e17 = tensor.empty() : tensor<16x64xf32>
  %y17 = linalg.exp {nvfp4.layer = 17 : i64} ins(%y16 : tensor<16x64xf32>) outs(%e17 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e18 = tensor.empty() : tensor<16x64xf32>
  %y18 = linalg.exp {nvfp4.layer = 18 : i64} ins(%y17 : tensor<16x64xf32>) outs(%e18 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e19 = tensor.empty() : tensor<16x64xf32>
  %y19 = linalg.exp {nvfp4.layer = 19 : i64} ins(%y18 : tensor<16x64xf32>) outs(%e19 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e20 = tensor.empty() : tensor<16x64xf32>
  %y20 = linalg.exp {nvfp4.layer = 20 : i64} ins(%y19 : tensor<16x64xf32>) outs(%e20 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e21 = tensor.empty() : tensor<16x64xf32>
  %y21 = linalg.exp {nvfp4.layer = 21 : i64} ins(%y20 : tensor<16x64xf32>) outs(%e21 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e22 = tensor.empty() : tensor<16x64xf32>
  %y22 = linalg.exp {nvfp4.layer = 22 : i64} ins(%y21 : tensor<16x64xf32>) outs(%e22 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e23 = tensor.empty() : tensor<16x64xf32>
  %y23 = linalg.exp {nvfp4.layer = 23 : i64} ins(%y22 : tensor<16x64xf32>) outs(%e23 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e24 = tensor.empty() : tensor<16x64xf32>
  %y24 = linalg.exp {nvfp4.layer = 24 : i64} ins(%y23 : tensor<16x64xf32>) outs(%e24 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e25 = tensor.empty() : tensor<16x64xf32>
  %y25 = linalg.exp {nvfp4.layer = 25 : i64} ins(%y24 : tensor<16x64xf32>) outs(%e25 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e26 = tensor.empty() : tensor<16x64xf32>
  %y26 = linalg.exp {nvfp4.layer = 26 : i64} ins(%y25 : tensor<16x64xf32>) outs(%e26 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e27 = tensor.empty() : tensor<16x64xf32>
  %y27 = linalg.exp {nvfp4.layer = 27 : i64} ins(%y26 : tensor<16x64xf32>) outs(%e27 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e28 = tensor.empty() : tensor<16x64xf32>
  %y28 = linalg.exp {nvfp4.layer = 28 : i64} ins(%y27 : tensor<16x64xf32>) outs(%e28 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e29 = tensor.empty() : tensor<16x64xf32>
  %y29 = linalg.exp {nvfp4.layer = 29 : i64} ins(%y28 : tensor<16x64xf32>) outs(%e29 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e30 = tensor.empty() : tensor<16x64xf32>
  %y30 = linalg.exp {nvfp4.layer = 30 : i64} ins(%y29 : tensor<16x64xf32>) outs(%e30 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e31 = tensor.empty() : tensor<16x64xf32>
  %y31 = linalg.exp {nvfp4.layer = 31 : i64} ins(%y30 : tensor<16x64xf32>) outs(%e31 : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y31 : tensor<16x64xf32>
}
