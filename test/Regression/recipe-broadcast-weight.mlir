// RUN: nvfp4-opt %s --split-input-file --nvfp4-recipe="summary" -o %t.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s < %t.mlir
// RUN: nvfp4-opt %s --split-input-file --nvfp4-recipe="gpu-target=sm_100a summary" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=TC

// torch-mlir lowers an ONNX MatMul of a [B, M, K] activation by a [K, N]
// weight to a linalg.batch_matmul whose B operand is the weight broadcast
// over the batch (test/ThirdParty/torch-encoder.mlir). Role inference used to
// see no weight there (the attention rule kept every such projection high);
// it now looks through a batch broadcast (linalg.broadcast, or a
// linalg.generic copy) of a matrix argument, and the rewrite flattens the
// GEMM to [B*M, K] x weight, quantizing the weight once.

// linalg.broadcast of a [K, N] weight.
// SUMMARY: broadcast_op 0 fprop 0 4x32x64x128 fp4 fprop of layer 0
// CHECK-LABEL: func.func @broadcast_op
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<4x32x128xf32> into tensor<128x128xf32>
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
// CHECK: %[[QW:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 16x16>
// CHECK: %[[QWT:.*]] = nvfp4.transpose %[[QW]] : !nvfp4.tensor<128x64, 16x16> -> !nvfp4.tensor<64x128, 16x16>
// CHECK: %[[Y:.*]] = nvfp4.matmul %[[QX]], %[[QWT]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} : {{.*}} -> tensor<128x64xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [4, 32, 64] : tensor<128x64xf32> into tensor<4x32x64xf32>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.broadcast
func.func @broadcast_op(%x: tensor<4x32x128xf32>, %w: tensor<128x64xf32>) -> tensor<4x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x128x64xf32>
  %wb = linalg.broadcast ins(%w : tensor<128x64xf32>) outs(%e : tensor<4x128x64xf32>) dimensions = [0]
  %ey = tensor.empty() : tensor<4x32x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ey : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<4x32x128xf32>, tensor<4x128x64xf32>) outs(%c : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
  return %y : tensor<4x32x64xf32>
}

// -----

#kn = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// A linalg.generic broadcast of a transposed [N, K] weight (torch-mlir's
// form), accumulating into a bias: the importer's transpose folds into the
// 16x16 quantization, the accumulator is flattened too.
// SUMMARY: generic_acc 0 fprop 0 2x64x64x128 fp4 fprop of layer 0
// CHECK-LABEL: func.func @generic_acc
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : tensor<2x64x64xf32> into tensor<128x64xf32>
// CHECK-DAG: %[[QX:.*]] = nvfp4.quantize %[[X]]
// CHECK-DAG: %[[QW:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
// CHECK: %[[Y:.*]] = nvfp4.matmul %[[QX]], %[[QW]] acc(%[[C]] : tensor<128x64xf32>)
// CHECK: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 64, 64]
func.func @generic_acc(%x: tensor<2x64x128xf32>, %w: tensor<64x128xf32>, %bias: tensor<2x64x64xf32>) -> tensor<2x64x64xf32> {
  %et = tensor.empty() : tensor<128x64xf32>
  %wt = linalg.transpose ins(%w : tensor<64x128xf32>) outs(%et : tensor<128x64xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<2x128x64xf32>
  %wb = linalg.generic {indexing_maps = [#kn, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wt : tensor<128x64xf32>) outs(%e : tensor<2x128x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x128x64xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<2x64x128xf32>, tensor<2x128x64xf32>) outs(%bias : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %y : tensor<2x64x64xf32>
}

// -----

#bkm = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// An activation stored [B, K, M] (annotated: inference takes an A operand
// contracted over its leading dimension for a weight gradient) is
// transposed in high precision before it is flattened; the weight is a
// broadcast [B, N, K] (transposed-B maps).
// SUMMARY: k_outer 0 fprop 0 2x64x64x128 fp4 fprop of layer 0
// CHECK-LABEL: func.func @k_outer
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x128x64xf32>) outs(%{{.*}} : tensor<2x64x128xf32>) permutation = [0, 2, 1]
// CHECK: %[[X:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
// CHECK: nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
// CHECK: nvfp4.matmul
// CHECK: tensor.expand_shape
func.func @k_outer(%x: tensor<2x128x64xf32>, %w: tensor<64x128xf32>) -> tensor<2x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x128xf32>
  %wb = linalg.broadcast ins(%w : tensor<64x128xf32>) outs(%e : tensor<2x64x128xf32>) dimensions = [0]
  %ey = tensor.empty() : tensor<2x64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %y = linalg.batch_matmul indexing_maps = [#bkm, #bnk, #bmn] ins(%x, %wb : tensor<2x128x64xf32>, tensor<2x64x128xf32>)
         outs(%c : tensor<2x64x64xf32>) {nvfp4.kind = ["activation", "weight"]} -> tensor<2x64x64xf32>
  return %y : tensor<2x64x64xf32>
}

// -----

// Attention stays high: a broadcast of a computed matrix is not a weight,
// and neither is a batch_matmul of two activations.
// SUMMARY: attention 0 fprop 0 1x128x64x64 fp4 fprop of layer 0
// SUMMARY: attention 1 fprop 0 2x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: attention 2 fprop 0 2x128x64x128 high attention (batched contraction of two activations)
// CHECK-LABEL: func.func @attention
// CHECK-COUNT-2: linalg.batch_matmul {{.*}}nvfp4.precision = "high"
func.func @attention(%q: tensor<2x128x64xf32>, %x: tensor<128x64xf32>, %w: tensor<64x64xf32>) -> (tensor<2x128x128xf32>, tensor<2x128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<128x64xf32>
  %c2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %k = linalg.matmul ins(%x, %w : tensor<128x64xf32>, tensor<64x64xf32>) outs(%c2 : tensor<128x64xf32>) -> tensor<128x64xf32>
  %ekt = tensor.empty() : tensor<64x128xf32>
  %kt = linalg.transpose ins(%k : tensor<128x64xf32>) outs(%ekt : tensor<64x128xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<2x64x128xf32>
  %kb = linalg.broadcast ins(%kt : tensor<64x128xf32>) outs(%eb : tensor<2x64x128xf32>) dimensions = [0]
  %es = tensor.empty() : tensor<2x128x128xf32>
  %cs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kb : tensor<2x128x64xf32>, tensor<2x64x128xf32>) outs(%cs : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %eo = tensor.empty() : tensor<2x128x64xf32>
  %co = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %o = linalg.batch_matmul ins(%s, %q : tensor<2x128x128xf32>, tensor<2x128x64xf32>) outs(%co : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %s, %o : tensor<2x128x128xf32>, tensor<2x128x64xf32>
}

// -----

#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bkm = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// Backward through the broadcast: the data gradient dX = dY W^T is a
// batch_matmul by the broadcast weight too (dgrad: its other operand is a
// gradient argument), and it is flattened like the forward GEMM, sharing the
// weight's one quantization (through nvfp4.transpose). The weight gradient
// of a broadcast weight is a reduction over the batch: written as a batched
// X^T dY followed by a sum over B it has no weight operand and stays high
// (the attention rule); written on the flattened [B*M, .] tensors (a
// tensor.collapse_shape, JAX's and PyTorch's autograd form) it is an
// ordinary wgrad.
// SUMMARY: backward 0 fprop 0 2x64x64x128 fp4 fprop of layer 0
// SUMMARY: backward 1 dgrad 0 2x64x128x64 fp4 dgrad of layer 0
// SUMMARY: backward 2 wgrad 0 1x128x64x128 fp4 wgrad of layer 0
// SUMMARY: backward 3 wgrad 0 2x128x64x64 high attention (batched contraction of two activations)
// CHECK-LABEL: func.func @backward
// CHECK: %[[QW:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 16x16>
// CHECK-NOT: nvfp4.quantize %arg1
// CHECK: nvfp4.matmul %{{.*}}, %[[QW]] {nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"}
// CHECK: nvfp4.matmul {{.*}}nvfp4.role = "wgrad"
// CHECK: linalg.batch_matmul {{.*}}nvfp4.precision = "high"
func.func @backward(%x: tensor<2x64x128xf32>, %w: tensor<128x64xf32>, %dy: tensor<2x64x64xf32> loc("grad_y"))
    -> (tensor<2x64x64xf32>, tensor<2x64x128xf32>, tensor<128x64xf32>, tensor<2x128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x128x64xf32>
  %wb = linalg.broadcast ins(%w : tensor<128x64xf32>) outs(%e : tensor<2x128x64xf32>) dimensions = [0]
  %ey = tensor.empty() : tensor<2x64x64xf32>
  %cy = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<2x64x128xf32>, tensor<2x128x64xf32>) outs(%cy : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  // dX = dY W^T: W broadcast, read [B, N, K] -> as [B, K', N'] with K' = 64.
  %ed = tensor.empty() : tensor<2x64x128xf32>
  %cd = linalg.fill ins(%zero : f32) outs(%ed : tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  %dx = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn] ins(%dy, %wb : tensor<2x64x64xf32>, tensor<2x128x64xf32>)
          outs(%cd : tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  // dW = X^T dY over the flattened batch.
  %xf = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x64x128xf32> into tensor<128x128xf32>
  %dyf = tensor.collapse_shape %dy [[0, 1], [2]] : tensor<2x64x64xf32> into tensor<128x64xf32>
  %ew = tensor.empty() : tensor<128x64xf32>
  %cw = linalg.fill ins(%zero : f32) outs(%ew : tensor<128x64xf32>) -> tensor<128x64xf32>
  %dw = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
          ins(%xf, %dyf : tensor<128x128xf32>, tensor<128x64xf32>) outs(%cw : tensor<128x64xf32>) -> tensor<128x64xf32>
  // The batched form, before its sum over B.
  %eb = tensor.empty() : tensor<2x128x64xf32>
  %cb = linalg.fill ins(%zero : f32) outs(%eb : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %dwb = linalg.batch_matmul indexing_maps = [#bkm, #bkn, #bmn] ins(%x, %dy : tensor<2x64x128xf32>, tensor<2x64x64xf32>)
           outs(%cb : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %y, %dx, %dw, %dwb : tensor<2x64x64xf32>, tensor<2x64x128xf32>, tensor<128x64xf32>, tensor<2x128x64xf32>
}

// With gpu-target=sm_100a the flattened shape is FP4 too: the tcgen05
// kernel takes any M and zero-fills the K tile past K = 128.
// TC: broadcast_op 0 fprop 0 4x32x64x128 fp4 fprop of layer 0
// TC: generic_acc 0 fprop 0 2x64x64x128 fp4 fprop of layer 0
