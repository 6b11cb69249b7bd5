// The decisions on torch-encoder.mlir's PyTorch encoder layer: the packed
// QKV projection and the two FFN GEMMs are linear layers (their B operand is
// a weight argument broadcast over the batch by torch-mlir's MatMul
// lowering, a linalg.batch_matmul of [B, M, K] by [B, K, N]) and are FP4
// like the output projection; only the two attention GEMMs stay high. Each
// of them becomes one GEMM of the flattened [B*M, K] activation by the
// weight, quantized once (16x16, round to nearest, as stored: the
// importer's transpose is exact on 16x16 blocks and folds away).
//
// RUN: nvfp4-opt %S/Inputs/torch-encoder.mlir --nvfp4-recipe="summary" \
// RUN:   -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: FileCheck %s --check-prefix=GONE < %t.mlir

// CHECK: nvfp4 recipe: 4 of 6 contractions in FP4, 92.31% of 4.362E+08 FLOPs
// CHECK: torch_jit 0 fprop 0 128x2x768x256 fp4 fprop of layer 0
// CHECK: torch_jit 1 fprop 0 8x128x128x64 high attention
// CHECK: torch_jit 2 fprop 0 8x128x64x128 high attention
// CHECK: torch_jit 3 fprop 0 1x256x256x256 fp4 fprop of layer 0
// CHECK: torch_jit 4 fprop 0 2x128x1024x256 fp4 fprop of layer 0
// CHECK: torch_jit 5 fprop 0 2x128x256x1024 fp4 fprop of layer 0

// QKV: the [seq, batch, hidden] = [128, 2, 256] input flattened to 256 rows.
// IR-LABEL: func.func @torch_jit
// IR: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<128x2x256xf32> into tensor<256x256xf32>
// IR-NEXT: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<256x256xf32> -> !nvfp4.tensor<256x256, 1x16>
// IR-NEXT: %[[QW:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<768x256xf32> -> !nvfp4.tensor<768x256, 16x16>
// IR-NEXT: %[[Y:.*]] = nvfp4.matmul %[[QX]], %[[QW]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<768x256, 16x16> -> tensor<256x768xf32>
// IR-NEXT: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [128, 2, 768] : tensor<256x768xf32> into tensor<128x2x768xf32>
// Attention stays a batch_matmul.
// IR: linalg.batch_matmul {{.*}}nvfp4.precision = "high"
// IR: linalg.batch_matmul {{.*}}nvfp4.precision = "high"
// IR: nvfp4.quantize %arg3 {nvfp4.kind = "weight"} : tensor<256x256xf32> -> !nvfp4.tensor<256x256, 16x16>
// FFN up and down.
// IR: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x128x256xf32> into tensor<256x256xf32>
// IR: nvfp4.quantize %arg5 {nvfp4.kind = "weight"} : tensor<1024x256xf32> -> !nvfp4.tensor<1024x256, 16x16>
// IR: nvfp4.matmul
// IR-NEXT: tensor.expand_shape %{{.*}} output_shape [2, 128, 1024]
// IR: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x128x1024xf32> into tensor<256x1024xf32>
// IR: nvfp4.quantize %arg7 {nvfp4.kind = "weight"} : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 16x16>
// IR: nvfp4.matmul
// IR-NEXT: tensor.expand_shape %{{.*}} output_shape [2, 128, 256]
// The broadcast copies of the weights are gone, and nothing is quantized
// twice or stochastically.
// GONE-NOT: linalg.broadcast
// GONE-NOT: tensor<128x256x768xf32>
// GONE-NOT: tensor<2x256x1024xf32>
// GONE-NOT: tensor<2x1024x256xf32>
// GONE-NOT: rounding
