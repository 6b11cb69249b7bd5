// Third-party IR: a BERT-style transformer encoder block (128 tokens, hidden
// 256, 4 heads of 64, FFN 1024, post-LN, GELU) written as an ONNX model and
// lowered to linalg on tensors by IREE's ONNX importer and torch-mlir's
// torch-to-linalg pipeline (utils/third-party/gen_onnx_models.py). No
// annotations: Q/K/V/O/FFN weights are inferred from their use as the B
// operand of linalg.matmul; the heads are linalg.transpose + batch_matmul.
//
// RUN: nvfp4-opt %S/Inputs/onnx-encoder.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX
//
// With quantize-attention the two attention GEMMs (K = 64 and 128, the head
// dimension and the sequence) are FP4 too, and every target's kernel takes
// them (tcgen05 zero-fills the K tile past K).
// RUN: nvfp4-opt %S/Inputs/onnx-encoder.mlir \
// RUN:   --nvfp4-recipe="quantize-attention summary" -o %t.qa.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QA
// RUN: nvfp4-opt %t.qa.mlir --nvfp4-to-cpu -o /dev/null
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.qa.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=QA-PTX

// One block: one layer. The six projections are FP4, the attention GEMMs
// (two activations) stay in high precision.
// SUMMARY: nvfp4 recipe: 6 of 8 contractions in FP4, 92.31% of 2.181E+08 FLOPs
// SUMMARY: encoder 0 fprop 0 1x128x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 1 fprop 0 1x128x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 2 fprop 0 1x128x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 3 fprop 0 4x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: encoder 4 fprop 0 4x128x64x128 high attention (batched contraction of two activations)
// SUMMARY: encoder 5 fprop 0 1x128x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 6 fprop 0 1x128x1024x256 fp4 fprop of layer 0
// SUMMARY: encoder 7 fprop 0 1x128x256x1024 fp4 fprop of layer 0

// REPORT-COUNT-3: "kinds": "activation,weight",
// REPORT: "op": "linalg.batch_matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 0,
// REPORT-NEXT: "kinds": "activation,activation",
// REPORT: "op": "linalg.batch_matmul",
// REPORT-COUNT-3: "kinds": "activation,weight",

// Q, K and V share one quantization of the input.
// RECIPE-LABEL: func.func @encoder
// RECIPE: %[[X:.*]] = nvfp4.quantize %arg0 {nvfp4.kind = "activation"}
// RECIPE: nvfp4.quantize %arg1 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[X]],
// RECIPE: nvfp4.quantize %arg2 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[X]],
// RECIPE: nvfp4.quantize %arg3 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[X]],
// RECIPE: linalg.batch_matmul
// RECIPE: linalg.batch_matmul
// RECIPE: nvfp4.quantize %arg4 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.quantize %arg5 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.quantize %arg6 {nvfp4.kind = "weight"}
// RECIPE-NOT: linalg.matmul

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @encoder
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Three distinct GEMM shapes on each target.
// PTX-COUNT-3: {{^}}3{{$}}

// QA: nvfp4 recipe: 8 of 8 contractions in FP4, 100.00% of 2.181E+08 FLOPs
// QA: encoder 3 fprop 0 4x128x128x64 fp4 fprop of layer 0
// QA: encoder 4 fprop 0 4x128x64x128 fp4 fprop of layer 0
// QA-PTX-COUNT-3: {{^}}5{{$}}
