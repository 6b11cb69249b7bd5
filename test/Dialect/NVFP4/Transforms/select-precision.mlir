// RUN: nvfp4-opt %s --nvfp4-select-precision="keep-first=1 keep-last=1 remarks report=%t.json" \
// RUN:   -o %t.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: nvfp4-opt %s --nvfp4-select-precision="high-layers=1 high-ops=pinned min-m=64 quantize-attention quantize-embeddings quantize-head remarks" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: nvfp4-opt %s --nvfp4-select-precision="min-n=128 remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINN
// RUN: nvfp4-opt %s --nvfp4-select-precision="min-k=128 remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINK
// RUN: nvfp4-opt %s --nvfp4-select-precision="min-flops=1000000 remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOPS
// RUN: nvfp4-opt %s --nvfp4-select-precision="gpu-target=sm_120a remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: nvfp4-opt %s --nvfp4-select-precision="disable-2d-quantization remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO2D
// RUN: nvfp4-opt %s --nvfp4-select-precision="summary" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,mxfp8,bf16 keep-first=1 keep-last=1 remarks report=%t.ladder.json summary" \
// RUN:   -o %t.ladder.mlir 2>&1 | FileCheck %s --check-prefix=LADDER
// RUN: FileCheck %s --input-file=%t.ladder.mlir --check-prefix=LADDER-IR
// RUN: FileCheck %s --input-file=%t.ladder.json --check-prefix=LADDER-JSON
// RUN: nvfp4-opt %s --nvfp4-select-precision="format=mxfp4 remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MXFP4
// RUN: nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,mxfp8_e5m2 gpu-target=sm_90a remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LADDER-GPU
// RUN: nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,mxfp8_e5m2 gpu-target=sm_120a remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LADDER-MX
// RUN: nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,mxfp8_e5m2 gpu-target=sm_100a remarks" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LADDER-MX
// RUN: nvfp4-opt %s --nvfp4-report=%t.cl.json --nvfp4-select-precision="keep-first=1 keep-last=1" -o /dev/null
// RUN: FileCheck %s --input-file=%t.cl.json --check-prefix=JSON
// RUN: nvfp4-opt %s --nvfp4-select-precision="keep-first=1 keep-last=1 report=%t.again.json" -o /dev/null
// RUN: cmp %t.json %t.again.json
// Run-time sizes at a hint: by symbol, or one size for all.
// RUN: nvfp4-opt %s --nvfp4-select-precision="size-hint=arg8.0=32 report=%t.hint.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.hint.json --check-prefix=SIZE
// RUN: nvfp4-opt %s --nvfp4-select-precision="size-hint=32 report=%t.hint-all.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.hint-all.json --check-prefix=SIZE
// RUN: nvfp4-opt %s --nvfp4-select-precision="size-hint=other.0=7,arg8.0=32,1 report=%t.hint-named.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.hint-named.json --check-prefix=SIZE
// A rule on a run-time size applies to its hint; without one it is left to
// run time.
// RUN: nvfp4-opt %s --nvfp4-select-precision="size-hint=8 min-m=16 remarks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZE-MIN
// RUN: nvfp4-opt %s --nvfp4-select-precision="min-m=16 remarks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SIZE-NO-HINT

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Roles, kinds and layers are given (as nvfp4-infer-roles would set them),
// so only the selection rules are exercised.

// IR-LABEL: func @select
func.func @select(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>,
                  %w24: tensor<24x64xbf16>, %x24: tensor<32x24xbf16>,
                  %w24k: tensor<64x24xbf16>, %q: tensor<4x32x64xbf16>,
                  %ids: tensor<32xi64>, %wv: tensor<64x64xbf16>,
                  %d: tensor<?x64xbf16>, %c: tensor<32x64xf32>,
                  %cd: tensor<?x64xf32>, %big: tensor<256x64xbf16>)
    -> (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>,
        tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x24xf32>, tensor<32x64xf32>,
        tensor<4x32x32xf32>, tensor<32x32xf32>, tensor<32x64xf32>, tensor<32xf32>,
        tensor<?x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>,
        tensor<256x64xf32>, tensor<32x64xbf16>) {
  // IR: linalg.matmul
  // IR-SAME: nvfp4.precision = "high"
  // REMARK: remark: nvfp4: high: layer 0 within keep-first=1
  // OPTS: remark: nvfp4: high: M=32 below min-m=64
  // M = 32 is below the CTA tile: the kernel's last tile is predicated.
  // GPU: remark: nvfp4: fp4: fprop of layer 0
  // The first layer is kept out of FP4, not out of MXFP8.
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 0 (nvfp4: layer 0 within keep-first=1)
  // LADDER-IR: linalg.matmul
  // LADDER-IR-SAME: nvfp4.precision = "mxfp8_e4m3"
  // MXFP4: remark: nvfp4: mxfp4: fprop of layer 0
  // LADDER-GPU: remark: nvfp4: fp4: fprop of layer 0
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64} -> tensor<32x64xf32>
  // IR: linalg.matmul
  // IR-SAME: nvfp4.precision = "fp4"
  // REMARK: remark: nvfp4: fp4: fprop of layer 1
  // OPTS: remark: nvfp4: high: layer 1 in high-layers
  // MINN: remark: nvfp4: high: N=64 below min-n=128
  // MINK: remark: nvfp4: high: K=64 below min-k=128
  // LADDER: remark: nvfp4: fp4: fprop of layer 1
  // LADDER-IR: linalg.matmul
  // LADDER-IR-SAME: nvfp4.precision = "fp4"
  // MXFP4: remark: nvfp4: mxfp4: fprop of layer 1
  %1 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64} -> tensor<32x64xf32>
  // REMARK: remark: nvfp4: fp4: wgrad of layer 2
  // LADDER: remark: nvfp4: fp4: wgrad of layer 2
  // MXFP4: remark: nvfp4: mxfp4: wgrad of layer 2
  %2 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "wgrad", nvfp4.kind = ["activation", "gradient"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32>
  // REMARK: remark: nvfp4: high: layer 3 within keep-last=1
  // LADDER: remark: nvfp4: mxfp8_e4m3: dgrad of layer 3 (nvfp4: layer 3 within keep-last=1)
  // MXFP4: remark: nvfp4: mxfp4: dgrad of layer 3
  %3 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "dgrad", nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 3 : i64} -> tensor<32x64xf32>
  // A frontend's "high" wins over everything.
  // REMARK: remark: nvfp4: high: annotated nvfp4.precision = "high"
  // OPTS: remark: nvfp4: high: annotated nvfp4.precision = "high"
  // LADDER: remark: nvfp4: high: annotated nvfp4.precision = "high"
  // MXFP4: remark: nvfp4: high: annotated nvfp4.precision = "high"
  %4 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64, nvfp4.precision = "high"} -> tensor<32x64xf32>
  // REMARK: remark: nvfp4: fp4: fprop of layer 2
  // OPTS: remark: nvfp4: high: 'pinned' in high-ops
  // LADDER: remark: nvfp4: fp4: fprop of layer 2
  // MXFP4: remark: nvfp4: mxfp4: fprop of layer 2
  %5 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32> loc("pinned"("pinned.py":1:1))
  // A 16x16 weight needs N % 16 == 0 (not with 1x16 weights).
  // REMARK: remark: nvfp4: high: 16x16 weight needs N=24 to be a multiple of 16
  // NO2D: select-precision.mlir:[[@LINE+8]]:{{[0-9]+}}: remark: nvfp4: fp4: fprop of layer 2
  // MX blocks run along K only: the 16x16 rule is NVFP4's.
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 2 (nvfp4: 16x16 weight needs N=24 to be a multiple of 16)
  // MXFP4: remark: nvfp4: mxfp4: fprop of layer 2
  // LADDER-GPU: remark: nvfp4: high: nvfp4: 16x16 weight needs N=24 to be a multiple of 16; mxfp8_e5m2: no mxfp8_e5m2 GEMM kernel for gpu-target=sm_90a
  // sm_120a and sm_100a have MXFP8 GEMM kernels.
  // LADDER-MX: remark: nvfp4: mxfp8_e5m2: fprop of layer 2 (nvfp4: 16x16 weight needs N=24 to be a multiple of 16)
  %e6 = tensor.empty() : tensor<32x24xf32>
  %6 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w24 : tensor<32x64xbf16>, tensor<24x64xbf16>)
         outs(%e6 : tensor<32x24xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x24xf32>
  // K = 24 is not a multiple of 16: the rewrite zero-pads K, so it is FP4.
  // REMARK: remark: nvfp4: fp4: fprop of layer 2
  // LADDER: remark: nvfp4: fp4: fprop of layer 2
  // MXFP4: remark: nvfp4: mxfp4: fprop of layer 2
  %7 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x24, %w24k : tensor<32x24xbf16>, tensor<64x24xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32>
  // REMARK: remark: nvfp4: high: attention (batched contraction of two activations)
  // OPTS: remark: nvfp4: high: M=32 below min-m=64
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 2 (nvfp4: attention (batched contraction of two activations))
  // LADDER-IR: linalg.batch_matmul
  // LADDER-IR-SAME: nvfp4.precision = "mxfp8_e4m3"
  // MXFP4: remark: nvfp4: high: attention (batched contraction of two activations)
  %e8 = tensor.empty() : tensor<4x32x32xf32>
  %8 = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn] ins(%q, %q : tensor<4x32x64xbf16>, tensor<4x32x64xbf16>)
         outs(%e8 : tensor<4x32x32xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "activation"], nvfp4.layer = 2 : i64} -> tensor<4x32x32xf32>
  // REMARK: remark: nvfp4: high: contraction of two activations
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 2 (nvfp4: contraction of two activations)
  // MXFP4: remark: nvfp4: high: contraction of two activations
  %e9 = tensor.empty() : tensor<32x32xf32>
  %9 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %x : tensor<32x64xbf16>, tensor<32x64xbf16>)
         outs(%e9 : tensor<32x32xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "activation"], nvfp4.layer = 2 : i64} -> tensor<32x32xf32>
  // Embedding: the activation is a one-hot encoding.
  %e10 = tensor.empty() : tensor<32x64xbf16>
  %onehot = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<32xi64>) outs(%e10 : tensor<32x64xbf16>) {
  ^bb0(%id: i64, %out: bf16):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %eq = arith.cmpi eq, %id, %ji : i64
    %r = arith.uitofp %eq : i1 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x64xbf16>
  // REMARK: remark: nvfp4: high: embedding (one-hot operand)
  // OPTS: remark: nvfp4: high: M=32 below min-m=64
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 2 (nvfp4: embedding (one-hot operand))
  // MXFP4: remark: nvfp4: high: embedding (one-hot operand)
  %10 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%onehot, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32>
  // LM head: the forward result feeds a reduction.
  // REMARK: remark: nvfp4: high: LM head (forward result feeds a reduction)
  // LADDER: remark: nvfp4: mxfp8_e4m3: fprop of layer 2 (nvfp4: LM head (forward result feeds a reduction))
  // MXFP4: remark: nvfp4: high: LM head (forward result feeds a reduction)
  %h = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %wv : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32>
  %zero = arith.constant 0.0 : f32
  %e11 = tensor.empty() : tensor<32xf32>
  %f11 = linalg.fill ins(%zero : f32) outs(%e11 : tensor<32xf32>) -> tensor<32xf32>
  %11 = linalg.reduce ins(%h : tensor<32x64xf32>) outs(%f11 : tensor<32xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  // A run-time M changes no decision (SIZE checks its FLOPs).
  // REMARK: remark: nvfp4: fp4: fprop of layer 2
  // LADDER: remark: nvfp4: fp4: fprop of layer 2
  // SIZE-MIN: :[[@LINE+2]]:9: remark: nvfp4: high: M=8 below min-m=16
  // SIZE-NO-HINT: :[[@LINE+1]]:9: remark: nvfp4: fp4: fprop of layer 2
  %12 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%d, %w : tensor<?x64xbf16>, tensor<64x64xbf16>)
         outs(%cd : tensor<?x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<?x64xf32>
  // REMARK: remark: nvfp4: high: role unknown (annotate it or run nvfp4-infer-roles)
  // LADDER: remark: nvfp4: high: role unknown (annotate it or run nvfp4-infer-roles)
  // MXFP4: remark: nvfp4: high: role unknown (annotate it or run nvfp4-infer-roles)
  %13 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  // REMARK: remark: nvfp4: fp4: fprop of layer 2
  // REMARK: remark: nvfp4: fp4: wgrad of layer 2
  // FLOPS: remark: nvfp4: high: 262144 FLOPs below min-flops=1000000
  // FLOPS: remark: nvfp4: fp4: wgrad of layer 2
  // OPTS: remark: nvfp4: fp4: wgrad of layer 2
  // GPU: remark: nvfp4: fp4: wgrad of layer 2
  // LADDER: remark: nvfp4: fp4: fprop of layer 2
  // LADDER: remark: nvfp4: fp4: wgrad of layer 2
  %e14 = tensor.empty() : tensor<256x64xf32>
  %14 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%c : tensor<32x64xf32>) {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64} -> tensor<32x64xf32>
  %15 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%big, %w : tensor<256x64xbf16>, tensor<64x64xbf16>)
         outs(%e14 : tensor<256x64xf32>) {nvfp4.role = "wgrad", nvfp4.kind = ["activation", "gradient"], nvfp4.layer = 2 : i64} -> tensor<256x64xf32>
  // Not a contraction: not decided, not reported.
  // IR: linalg.add
  // IR-NOT: nvfp4.precision
  // IR-SAME: -> tensor<32x64xbf16>
  %e16 = tensor.empty() : tensor<32x64xbf16>
  %16 = linalg.add ins(%x, %x : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%e16 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %h, %15, %16
    : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>,
      tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x24xf32>, tensor<32x64xf32>,
      tensor<4x32x32xf32>, tensor<32x32xf32>, tensor<32x64xf32>, tensor<32xf32>,
      tensor<?x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>,
      tensor<256x64xf32>, tensor<32x64xbf16>
}

// Already-quantized IR is left alone and counted as NVFP4.
// REMARK-NOT: remark
func.func @quantized(%a: !nvfp4.tensor<32x64, 1x16>, %b: !nvfp4.tensor<64x64, 16x16>) -> tensor<32x64xf32> {
  // IR: nvfp4.matmul
  // IR-NOT: nvfp4.precision
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x64, 16x16> -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// JSON:      "contractions": [
// JSON-NEXT:   {
// JSON-NEXT:     "function": "select",
// JSON-NEXT:     "index": 0,
// JSON-NEXT:     "location": "{{.*}}select-precision.mlir:{{[0-9]+}}:{{[0-9]+}}",
// JSON-NEXT:     "op": "linalg.matmul",
// JSON-NEXT:     "role": "fprop",
// JSON-NEXT:     "layer": 0,
// JSON-NEXT:     "kinds": "activation,weight",
// JSON-NEXT:     "batch": 1,
// JSON-NEXT:     "m": 32,
// JSON-NEXT:     "n": 64,
// JSON-NEXT:     "k": 64,
// JSON-NEXT:     "flops": 262144,
// JSON-NEXT:     "decision": "high",
// JSON-NEXT:     "reason": "layer 0 within keep-first=1"
// JSON-NEXT:   },
// JSON:          "index": 1,
// JSON:          "decision": "fp4",
// JSON-NEXT:     "reason": "fprop of layer 1"
// JSON:          "location": "pinned",
// JSON:          "index": 8,
// JSON:          "batch": 4,
// JSON:          "index": 12,
// JSON:          "m": null,
// JSON-NEXT:     "n": 64,
// JSON-NEXT:     "k": 64,
// JSON-NEXT:     "flops": null,
// JSON-NEXT:     "flops_expression": "8192*arg8.0",
// JSON-NEXT:     "decision": "fp4",
// JSON-NEXT:     "reason": "fprop of layer 2"
// JSON:          "index": 13,
// JSON:          "role": null,
// JSON-NEXT:     "layer": null,
// JSON-NEXT:     "kinds": null,
// JSON:          "function": "quantized",
// JSON-NEXT:     "index": 0,
// JSON:          "op": "nvfp4.matmul",
// JSON:          "decision": "fp4",
// JSON-NEXT:     "reason": "already NVFP4"
// JSON:        "summary": {
// JSON-NEXT:     "contractions": 17,
// JSON-NEXT:     "fp4": 8,
// JSON-NEXT:     "high": 9,
// JSON-NEXT:     "flops": 5832704,
// JSON-NEXT:     "contractions_without_flops": 1,

// SUMMARY: nvfp4 recipe: 10 of 17 contractions in FP4, 69.10% of 5.833E+06 FLOPs
// SUMMARY-NEXT: 1 contractions of run-time sizes without a size hint are not in the FLOPs (size-hint=N or SYMBOL=N counts them)

// SUMMARY-NEXT: function           # role   layer BxMxNxK              prec  reason
// SUMMARY-NEXT: select             0 fprop      0 1x32x64x64           fp4   fprop of layer 0
// SUMMARY: select            12 fprop      2 1x?x64x64            fp4   fprop of layer 2
// SUMMARY: quantized          0 -          - 1x32x64x64           fp4   already NVFP4

// The ladder's summary: each decision's contractions and share of FLOPs
// (FP4 counts NVFP4 and MXFP4).
// LADDER: nvfp4 recipe: 8 of 17 contractions in FP4, 60.11% of 5.833E+06 FLOPs
// LADDER-NEXT: 1 contractions of run-time sizes without a size hint are not in the FLOPs
// LADDER-NEXT: fp4            8 contractions,  60.11% of FLOPs
// LADDER-NEXT: high           2 contractions,   8.99% of FLOPs
// LADDER-NEXT: mxfp8_e4m3     7 contractions,  30.90% of FLOPs
// LADDER-NEXT: function
// LADDER-NEXT: select             0 fprop      0 1x32x64x64           mxfp8_e4m3 fprop of layer 0 (nvfp4: layer 0 within keep-first=1)

// LADDER-JSON:        "decision": "mxfp8_e4m3",
// LADDER-JSON-NEXT:   "reason": "fprop of layer 0 (nvfp4: layer 0 within keep-first=1)"
// LADDER-JSON:      "summary": {
// LADDER-JSON-NEXT:   "contractions": 17,
// LADDER-JSON-NEXT:   "fp4": 8,
// LADDER-JSON-NEXT:   "high": 2,
// LADDER-JSON-NEXT:   "flops": 5832704,
// LADDER-JSON-NEXT:   "contractions_without_flops": 1,
// LADDER-JSON-NEXT:   "fp4_flops": 3506176,
// LADDER-JSON-NEXT:   "fp4_flop_percent": "60.11",
// LADDER-JSON-NEXT:   "decisions": {
// LADDER-JSON-NEXT:     "fp4": {
// LADDER-JSON-NEXT:       "contractions": 8,
// LADDER-JSON-NEXT:       "flops": 3506176,
// LADDER-JSON-NEXT:       "flop_percent": "60.11"
// LADDER-JSON-NEXT:     },
// LADDER-JSON-NEXT:     "high": {
// LADDER-JSON-NEXT:       "contractions": 2,
// LADDER-JSON-NEXT:       "flops": 524288,
// LADDER-JSON-NEXT:       "flop_percent": "8.99"
// LADDER-JSON-NEXT:     },
// LADDER-JSON-NEXT:     "mxfp8_e4m3": {
// LADDER-JSON-NEXT:       "contractions": 7,
// LADDER-JSON-NEXT:       "flops": 1802240,
// LADDER-JSON-NEXT:       "flop_percent": "30.90"
// LADDER-JSON-NEXT:     }
// LADDER-JSON-NEXT:   }
// LADDER-JSON-NEXT: }

// SIZE:          "index": 12,
// SIZE:          "m": 32,
// SIZE-NEXT:     "n": 64,
// SIZE-NEXT:     "k": 64,
// SIZE-NEXT:     "flops": 262144,
// SIZE-NEXT:     "flops_expression": "8192*arg8.0",
// SIZE:        "summary": {
// SIZE-NOT:      "contractions_without_flops"
// SIZE:          "flops": 6094848,
// SIZE-NOT:      "contractions_without_flops"
// SIZE:          "fp4_flops":
