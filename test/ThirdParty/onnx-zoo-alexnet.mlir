// Published third-party model: AlexNet (BVLC) of the ONNX model zoo, as
// shipped in the `onnx` PyPI package's backend test data
// (backend/test/data/light/light_bvlc_alexnet.onnx: the architecture, with
// every weight a ConstantOfShape fill), lowered to linalg on tensors by
// IREE's ONNX importer and torch-mlir's torch-to-linalg pipeline
// (utils/third-party/gen_onnx_published.py; onnx 1.23.2, iree-base-compiler
// 3.13.0). Opset 9 is upgraded to 17 and the weight fills become function
// arguments before the import. Batch 1, 3x224x224: five convolutions
// (grouped ones as linalg.conv_2d_ngchw_gfchw), LRN, max pooling, and three
// fully-connected layers (ONNX Gemm with transB = 1: linalg.transpose of the
// [out, in] weight, then linalg.matmul) ending in softmax.
//
// RUN: nvfp4-opt %S/Inputs/onnx-zoo-alexnet.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %S/Inputs/onnx-zoo-alexnet.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 summary" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KEEP
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
//
// A batch of one image has M = 1. Every GEMM kernel predicates its last
// CTA tile, so fc6 and fc7 become two GEMM kernels on every target.
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=MMA-PTX
//
// The recipe's gpu-target option agrees: on every target fc6 and fc7 stay
// FP4 and are offloaded.
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %S/Inputs/onnx-zoo-alexnet.mlir \
// RUN:     --nvfp4-recipe="gpu-target=$target summary" -o %t.$target.mlir 2>&1; \
// RUN: done | FileCheck %s --check-prefix=TILES
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.$target.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | FileCheck %s --check-prefix=TILES-MMA || exit 1; done

// fc6 and fc7 (separate layers: they do not share their input) are FP4;
// fc8, whose result (after its bias) feeds the softmax, is the head. The
// five convolutions stay high (no NVFP4 lowering of convolutions) and count
// in the model's FLOPs: the FP4 share is 8.33% of the whole model's 1.3
// GFLOP, not 93% of the fully-connected layers'.
// SUMMARY: nvfp4 recipe: 2 of 8 contractions in FP4, 8.33% of 1.309E+09 FLOPs
// SUMMARY-COUNT-5: unsupported: convolution (no NVFP4 lowering)
// SUMMARY: bvlc_alexnet 5 fprop 0 1x1x4096x9216 fp4 fprop of layer 0
// SUMMARY: bvlc_alexnet 6 fprop 1 1x1x4096x4096 fp4 fprop of layer 1
// SUMMARY: bvlc_alexnet 7 fprop 2 1x1x1000x4096 high LM head (forward result feeds a reduction)

// The five convolutions (grouped ones included) and the three matmuls are
// reported with their FLOPs (2 x the loop ranges' product); pooling (a max
// or a plain sum, no multiply) is not a contraction.
// REPORT: "op": "linalg.conv_2d_nchw_fchw",
// REPORT: "flops": 203233536,
// REPORT: "op": "linalg.conv_2d_ngchw_gfchw",
// REPORT: "flops": 415334400,
// REPORT: "op": "linalg.conv_2d_nchw_fchw",
// REPORT: "flops": 254803968,
// REPORT: "op": "linalg.conv_2d_ngchw_gfchw",
// REPORT: "flops": 191102976,
// REPORT: "op": "linalg.conv_2d_ngchw_gfchw",
// REPORT: "flops": 127401984,
// REPORT-COUNT-3: "op": "linalg.matmul",
// REPORT-NOT: "op":
// REPORT: "summary":

// The [out, in] weights are K-major as stored: quantized 16x16 and used
// directly, the transposes the importer wrote are looked through.
// RECIPE-LABEL: func.func @bvlc_alexnet
// RECIPE: linalg.conv_2d_nchw_fchw
// RECIPE: %[[W6:.*]] = nvfp4.quantize %arg12 {nvfp4.kind = "weight"} : tensor<4096x9216xf32> -> !nvfp4.tensor<4096x9216, 16x16>
// RECIPE: nvfp4.matmul %{{.*}}, %[[W6]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} : !nvfp4.tensor<1x9216, 1x16>, !nvfp4.tensor<4096x9216, 16x16> -> tensor<1x4096xf32>
// RECIPE: %[[W7:.*]] = nvfp4.quantize %arg14 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %{{.*}}, %[[W7]] {nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// RECIPE: linalg.matmul {nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64, nvfp4.precision = "high", nvfp4.role = "fprop"}

// KEEP: nvfp4 recipe: 1 of 8 contractions in FP4
// KEEP: bvlc_alexnet 5 fprop 0 1x1x4096x9216 high layer 0 within keep-first=1
// KEEP: bvlc_alexnet 6 fprop 1 1x1x4096x4096 fp4 fprop of layer 1
// KEEP: bvlc_alexnet 7 fprop 2 1x1x1000x4096 high LM head (forward result feeds a reduction)

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @bvlc_alexnet
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// MMA-PTX: 2
// MMA-PTX-NEXT: 2
// MMA-PTX-NEXT: 2

// TILES: nvfp4 recipe: 2 of 8 contractions in FP4
// TILES: bvlc_alexnet 5 fprop 0 1x1x4096x9216 fp4 fprop of layer 0
// TILES: bvlc_alexnet 6 fprop 1 1x1x4096x4096 fp4 fprop of layer 1
// TILES: bvlc_alexnet 7 fprop 2 1x1x1000x4096 high LM head (forward result feeds a reduction)
// TILES: nvfp4 recipe: 2 of 8 contractions in FP4
// TILES: bvlc_alexnet 5 fprop 0 1x1x4096x9216 fp4 fprop of layer 0
// TILES: bvlc_alexnet 6 fprop 1 1x1x4096x4096 fp4 fprop of layer 1
// TILES: bvlc_alexnet 7 fprop 2 1x1x1000x4096 high LM head (forward result feeds a reduction)
// TILES: nvfp4 recipe: 2 of 8 contractions in FP4
// TILES: bvlc_alexnet 5 fprop 0 1x1x4096x9216 fp4 fprop of layer 0
// TILES: bvlc_alexnet 6 fprop 1 1x1x4096x4096 fp4 fprop of layer 1
// TILES: bvlc_alexnet 7 fprop 2 1x1x1000x4096 high LM head (forward result feeds a reduction)
// TILES-MMA-LABEL: func.func @bvlc_alexnet
// One token: on tcgen05 targets the transposed product (M = 4096, N = 1).
// TILES-MMA-COUNT-2: gpu.launch_func @nvfp4_kernels::@nvfp4_{{(matmul_m1n4096|tcgen05_matmul_m4096n1k)}}
// TILES-MMA-NOT: gpu.launch_func @nvfp4_kernels::@nvfp4_{{(tcgen05_)?}}matmul_
