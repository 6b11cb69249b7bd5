// Third-party IR: an MLP (128 tokens, hidden 256, FFN 1024, GELU) written as
// an ONNX model and lowered to linalg on tensors by IREE's ONNX importer and
// torch-mlir's torch-to-linalg pipeline
// (utils/third-party/gen_onnx_models.py). No annotations: the weights are
// inferred from their use as the B operand of linalg.matmul.
//
// RUN: nvfp4-opt %S/Inputs/onnx-mlp.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %S/Inputs/onnx-mlp.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 summary" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KEEP
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX

// Two projections that do not share their input: two layers, both FP4.
// SUMMARY: nvfp4 recipe: 2 of 2 contractions in FP4, 100.00% of 1.342E+08 FLOPs
// SUMMARY: mlp 0 fprop 0 1x128x1024x256 fp4 fprop of layer 0
// SUMMARY: mlp 1 fprop 1 1x128x256x1024 fp4 fprop of layer 1

// REPORT: "op": "linalg.matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 0,
// REPORT-NEXT: "kinds": "activation,weight",
// REPORT: "op": "linalg.matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 1,
// REPORT-NEXT: "kinds": "activation,weight",

// The weights are the function arguments %arg1 and %arg3, 16x16-quantized.
// RECIPE-LABEL: func.func @mlp
// RECIPE: nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 16x16>
// RECIPE: nvfp4.matmul
// RECIPE: nvfp4.quantize %arg3 {nvfp4.kind = "weight"} : tensor<1024x256xf32> -> !nvfp4.tensor<1024x256, 16x16>
// RECIPE: nvfp4.matmul
// RECIPE-NOT: linalg.matmul

// The paper's keep-first=1 keep-last=1 keeps both layers in high precision.
// KEEP: nvfp4 recipe: 0 of 2 contractions in FP4
// KEEP: mlp 0 fprop 0 1x128x1024x256 high layer 0 within keep-first=1
// KEEP: mlp 1 fprop 1 1x128x256x1024 high layer 1 within keep-last=1

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @mlp
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// One GEMM kernel per FP4 matmul on each target.
// PTX-COUNT-3: {{^}}2{{$}}
