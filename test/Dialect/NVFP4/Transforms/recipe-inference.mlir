// RUN: nvfp4-opt %s --nvfp4-recipe="mode=inference calibration=%S/Inputs/calibration-qkv.json" | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-recipe="mode=inference" | FileCheck %s --check-prefix=DYNAMIC
// RUN: nvfp4-opt %s --nvfp4-recipe | FileCheck %s --check-prefix=TRAINING

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (n, k)>
#out = affine_map<(m, n, k) -> (m, n)>

// An inference graph with constant weights. mode=inference quantizes the
// weights at compile time (nvfp4.assemble of constant components, no
// quantize of a weight left), and the calibration file gives the
// activations static amaxes: Q, K and V read one tensor with one amax, so
// it is quantized once; the output projection reads another.
// CHECK-LABEL: func.func @projections
// CHECK-DAG: %[[A2:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[A075:.*]] = arith.constant 7.500000e-01 : f32
// CHECK: %[[X:.*]] = nvfp4.quantize %arg0 amax %[[A2]] {nvfp4.kind = "activation"}
// CHECK-NOT: nvfp4.quantize
// CHECK: %[[WQ:.*]] = nvfp4.assemble {{.*}} -> !nvfp4.tensor<64x64, 16x16>
// CHECK: nvfp4.matmul %[[X]], %[[WQ]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: %[[WK:.*]] = nvfp4.assemble
// CHECK: nvfp4.matmul %[[X]], %[[WK]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: %[[WV:.*]] = nvfp4.assemble
// CHECK: nvfp4.matmul %[[X]], %[[WV]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: %[[H:.*]] = nvfp4.quantize %arg1 amax %[[A075]] {nvfp4.kind = "activation"}
// CHECK-NOT: nvfp4.quantize
// CHECK: %[[WO:.*]] = nvfp4.assemble
// CHECK: nvfp4.matmul %[[H]], %[[WO]] {nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// Without a calibration file the amax is measured at run time.
// DYNAMIC-LABEL: func.func @projections
// DYNAMIC: nvfp4.quantize %arg0 {nvfp4.kind = "activation"}
// DYNAMIC-NOT: nvfp4.quantize %cst
// DYNAMIC: nvfp4.quantize %arg1 {nvfp4.kind = "activation"}
// DYNAMIC-NOT: nvfp4.quantize
func.func @projections(%x: tensor<32x64xf32>, %h: tensor<32x64xf32>)
    -> (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>) {
  %wq = arith.constant dense<0.25> : tensor<64x64xf32>
  %wk = arith.constant dense<0.5> : tensor<64x64xf32>
  %wv = arith.constant dense<-0.5> : tensor<64x64xf32>
  %wo = arith.constant dense<1.5> : tensor<64x64xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %q = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %wq : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32> loc("q_proj")
  %k = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %wk : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32> loc("k_proj")
  %v = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %wv : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32> loc("v_proj")
  %o = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%h, %wo : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32> loc("out_proj")
  return %q, %k, %v, %o : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>
}

// A weight whose rows (N = 40) are not a multiple of 16: an inference graph
// quantizes it with 1x16 blocks (no dgrad needs the exact 16x16 transpose);
// a training graph keeps the contraction in high precision.
// CHECK-LABEL: func.func @head
// CHECK: %[[X:.*]] = nvfp4.quantize %arg0 {nvfp4.kind = "activation"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
// CHECK: %[[W:.*]] = nvfp4.assemble {{.*}} -> !nvfp4.tensor<40x64, 1x16>
// CHECK: nvfp4.matmul %[[X]], %[[W]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<40x64, 1x16> -> tensor<32x40xf32>
// DYNAMIC-LABEL: func.func @head
// TRAINING-LABEL: func.func @head
// TRAINING-NOT: nvfp4.matmul
// TRAINING: linalg.matmul {{.*}}nvfp4.precision = "high"
func.func @head(%x: tensor<32x64xf32>) -> tensor<32x40xf32> {
  %w = arith.constant dense<0.75> : tensor<40x64xf32>
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x40xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<32x40xf32>) -> tensor<32x40xf32>
  %y = linalg.matmul indexing_maps = [#lhs, #rhs, #out]
      ins(%x, %w : tensor<32x64xf32>, tensor<40x64xf32>) outs(%f : tensor<32x40xf32>) -> tensor<32x40xf32>
  return %y : tensor<32x40xf32>
}
