// Third-party IR: PyTorch's nn.TransformerEncoderLayer(d_model=256, nhead=4,
// dim_feedforward=1024, dropout=0, activation="gelu", batch_first=True,
// norm_first=True) on x[2, 128, 256], exported by torch.onnx.export (torch
// 1.13, Debian's CPU-only python3-torch; opset 17; parameters as graph
// inputs) and lowered to linalg on tensors by IREE's ONNX importer and
// torch-mlir's torch-to-linalg pipeline (utils/third-party/gen_torch_models.py;
// iree-base-compiler 3.13.0).
//
// torch-mlir lowers an ONNX MatMul of a 3-D activation by a 2-D weight to
// linalg.batch_matmul with the weight broadcast over the batch (a
// linalg.generic copy to [B, K, N]): the packed QKV projection (batched over
// the 128 tokens: nn.MultiheadAttention works [T, B, E]) and both FFN GEMMs
// (batched over the 2 sequences). Role inference looks through the
// broadcast, so they are linear layers, FP4 like the output projection (a
// 2-D Gemm), each rewritten as one GEMM of the flattened activation
// (torch-encoder-weights.mlir checks the IR); only QK^T and PV stay high.
//
// RUN: nvfp4-opt %S/Inputs/torch-encoder.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX

// SUMMARY: nvfp4 recipe: 4 of 6 contractions in FP4, 92.31% of 4.362E+08 FLOPs
// SUMMARY: torch_jit 0 fprop 0 128x2x768x256 fp4 fprop of layer 0
// SUMMARY: torch_jit 1 fprop 0 8x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: torch_jit 2 fprop 0 8x128x64x128 high attention (batched contraction of two activations)
// SUMMARY: torch_jit 3 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: torch_jit 4 fprop 0 2x128x1024x256 fp4 fprop of layer 0
// SUMMARY: torch_jit 5 fprop 0 2x128x256x1024 fp4 fprop of layer 0

// Nothing but the LLVM dialect is left, ops with results included (the
// exact GELU's math.erf is a call to erff).
// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @torch_jit
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Four GEMM kernels (four shapes) on each target.
// PTX-COUNT-3: {{^}}4{{$}}
