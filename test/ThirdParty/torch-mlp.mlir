// Third-party IR: PyTorch's nn.Sequential(nn.Linear(256, 1024), nn.GELU(),
// nn.Linear(1024, 256)) on x[128, 256], exported by torch.onnx.export
// (torch 1.13, Debian's CPU-only python3-torch; opset 17; parameters as
// graph inputs) and lowered to linalg on tensors by IREE's ONNX importer and
// torch-mlir's torch-to-linalg pipeline (utils/third-party/gen_torch_models.py;
// iree-base-compiler 3.13.0). nn.Linear stores its weight [out, in]: Gemm
// with transB = 1, a linalg.transpose of the argument before linalg.matmul.
//
// RUN: nvfp4-opt %S/Inputs/torch-mlp.mlir --nvfp4-recipe="summary report=%t.json" \
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
// Execution: torch-mlp-run.mlir (expected to fail, see there).

// SUMMARY: nvfp4 recipe: 2 of 2 contractions in FP4, 100.00% of 1.342E+08 FLOPs
// SUMMARY: torch_jit 0 fprop 0 1x128x1024x256 fp4 fprop of layer 0
// SUMMARY: torch_jit 1 fprop 1 1x128x256x1024 fp4 fprop of layer 1

// REPORT-COUNT-2: "kinds": "activation,weight",

// The [out, in] weights are K-major as stored: quantized 16x16 and used
// directly (no nvfp4.transpose).
// RECIPE-LABEL: func.func @torch_jit
// RECIPE: %[[W1:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<1024x256xf32> -> !nvfp4.tensor<1024x256, 16x16>
// RECIPE-NEXT: nvfp4.matmul %{{.*}}, %[[W1]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// RECIPE: %[[W2:.*]] = nvfp4.quantize %arg3 {nvfp4.kind = "weight"} : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 16x16>
// RECIPE-NEXT: nvfp4.matmul %{{.*}}, %[[W2]] {nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// RECIPE-NOT: linalg.matmul
// RECIPE-NOT: nvfp4.transpose

// Nothing but the LLVM dialect is left, ops with results included (the
// exact GELU's math.erf is a call to erff).
// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @torch_jit
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// PTX-COUNT-3: {{^}}2{{$}}
