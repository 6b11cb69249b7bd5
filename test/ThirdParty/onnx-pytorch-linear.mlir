// Published third-party model: torch.nn.Linear(10, 8) on a 4x10 input as
// exported to ONNX by PyTorch (`torch.onnx.export`, PyTorch 0.3), shipped in
// the `onnx` PyPI package's backend test data
// (backend/test/data/pytorch-converted/test_Linear/model.onnx), imported as
// published by IREE's ONNX importer and lowered by torch-mlir's
// torch-to-linalg pipeline (utils/third-party/gen_onnx_published.py; onnx
// 1.23.2, iree-base-compiler 3.13.0). Its weight and bias are ONNX
// initializers, so they arrive as dense constants: Gemm(x, W, b, transB = 1)
// is a linalg.transpose of the constant weight, linalg.matmul and a bias
// add.
//
// RUN: nvfp4-opt %S/Inputs/onnx-pytorch-linear.mlir \
// RUN:   --nvfp4-recipe="summary report=%t.json remarks" -o %t.recipe.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target"; done \
// RUN: | FileCheck %s --check-prefix=PTX
//
// As an argument (as in training IR) the weight is a weight too, with the
// same decision.
// RUN: sed -e 's/%arg0: tensor<4x10xf32>/%arg0: tensor<4x10xf32>, %w: tensor<8x10xf32>/' \
// RUN:     -e 's/ins(%cst_0 : tensor<8x10xf32>)/ins(%w : tensor<8x10xf32>)/' \
// RUN:     %S/Inputs/onnx-pytorch-linear.mlir \
// RUN: | nvfp4-opt --nvfp4-recipe="summary" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=ARG

// The constant (through its transpose) is the weight (constant-weights, the
// default). K = 10 is zero-padded to one 16-wide block; in the default
// training mode the GEMM stays in high precision only because a 16x16
// weight needs N (8) to be whole tiles. With mode=inference the weight
// gets 1x16 blocks, the GEMM is FP4 and the padded weight is quantized at
// compile time (nvfp4.assemble of constants). With constant-weights=false
// the constant is a second activation.
// RUN: nvfp4-opt %S/Inputs/onnx-pytorch-linear.mlir \
// RUN:   --nvfp4-recipe="mode=inference summary" -o %t.inference.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=INFER
// RUN: FileCheck %s --check-prefix=INFER-IR < %t.inference.mlir
// RUN: nvfp4-opt %t.inference.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: nvfp4-opt %S/Inputs/onnx-pytorch-linear.mlir \
// RUN:   --nvfp4-recipe="summary constant-weights=false" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=NOCONST
// SUMMARY: remark: nvfp4: high: 16x16 weight needs N=8 to be a multiple of 16
// SUMMARY: nvfp4 recipe: 0 of 1 contractions in FP4, 0.00% of 6.400E+02 FLOPs
// SUMMARY: torch-jit-export 0 fprop 0 1x4x8x10 high 16x16 weight needs N=8 to be a multiple of 16
// INFER: nvfp4 recipe: 1 of 1 contractions in FP4, 100.00% of 6.400E+02 FLOPs
// INFER: torch-jit-export 0 fprop 0 1x4x8x10 fp4 fprop of layer 0
// INFER-IR: %[[X:.*]] = tensor.pad %arg0 low[0, 0] high[0, 6]
// INFER-IR: %[[QX:.*]] = nvfp4.quantize %[[X]] {nvfp4.kind = "activation"} : tensor<4x16xf32> -> !nvfp4.tensor<4x16, 1x16>
// INFER-IR: %[[QW:.*]] = nvfp4.assemble {{.*}} : tensor<8x16xf4E2M1FN>, tensor<8x1xf8E4M3FN> -> !nvfp4.tensor<8x16, 1x16>
// INFER-IR: nvfp4.matmul %[[QX]], %[[QW]]
// NOCONST: torch-jit-export 0 fprop - 1x4x8x10 high contraction of two activations

// REPORT: "op": "linalg.matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT: "kinds": "activation,weight",

// CPU-NOT: nvfp4.
// CPU: llvm.func @"torch-jit-export"
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Nothing to offload: the GPU pipeline leaves the function as it is.
// PTX-NOT: gpu.
// PTX: linalg.matmul
// PTX-NOT: gpu.
// PTX: linalg.matmul
// PTX-NOT: gpu.
// PTX: linalg.matmul
// PTX-NOT: gpu.

// ARG: torch-jit-export 0 fprop 0 1x4x8x10 high 16x16 weight needs N=8 to be a multiple of 16
