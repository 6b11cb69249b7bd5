// RUN: nvfp4-opt %s --nvfp4-recipe="summary report=%t.json" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=IR

// The report covers every contraction-like op of the model, with its FLOPs
// (2 x the product of its loop ranges), also those the recipe cannot
// rewrite, so that the FP4 share is over the whole model: a convolution
// (2*1*30*30*32*3*3*16 = 8294400), a depthwise convolution (2*30*30*16*9 =
// 259200), a matvec (2*64*512 = 65536), the matmul that goes to NVFP4
// (2*64*128*512 = 8388608) and a generic contraction over two K dimensions
// (2*8*32*4*16 = 32768): 8388608 of 17040512 FLOPs, 49.23%. A max pooling
// (matched by the convolution interface, but no multiply-accumulate) is
// not a contraction.
// SUMMARY: nvfp4 recipe: 1 of 5 contractions in FP4, 49.23% of 1.704E+07 FLOPs
// SUMMARY: model              0 -          - 1x0x0x0              high  unsupported: convolution (no NVFP4 lowering)
// SUMMARY: model              1 -          - 1x0x0x0              high  unsupported: convolution (no NVFP4 lowering)
// SUMMARY: model              2 -          - 1x0x0x0              high  unsupported: needs exactly one M, N and K dimension
// SUMMARY: model              3 fprop      0 1x64x128x512         fp4   fprop of layer 0
// SUMMARY: model              4 -          - 1x0x0x0              high  unsupported: needs exactly one M, N and K dimension
// JSON-NOT: pooling
// JSON: "op": "linalg.conv_2d_nhwc_hwcf",
// JSON: "flops": 8294400,
// JSON-NEXT: "decision": "high",
// JSON: "op": "linalg.depthwise_conv_2d_nhwc_hwc",
// JSON: "flops": 259200,
// JSON: "op": "linalg.matvec",
// JSON: "flops": 65536,
// JSON: "op": "linalg.matmul",
// JSON: "flops": 8388608,
// JSON-NEXT: "decision": "fp4",
// JSON: "op": "linalg.generic",
// JSON: "flops": 32768,
// JSON: "flops": 17040512,
// JSON-NEXT: "fp4_flops": 8388608,
// JSON-NOT: pooling
// The convolutions are left as they are (marked high precision).
// IR: linalg.conv_2d_nhwc_hwcf {nvfp4.precision = "high"}
// IR: linalg.depthwise_conv_2d_nhwc_hwc {nvfp4.precision = "high"}
// IR: nvfp4.matmul
func.func @model(%img: tensor<1x32x32x16xf32>, %filter: tensor<3x3x16x32xf32>, %dw: tensor<3x3x16xf32>, %w: tensor<64x512xf32>, %v: tensor<512xf32>, %x: tensor<64x512xf32>, %wt: tensor<512x128xf32>, %a: tensor<8x4x16xf32>, %b: tensor<4x16x32xf32>) -> (tensor<1x30x30x32xf32>, tensor<1x30x30x16xf32>, tensor<64xf32>, tensor<64x128xf32>, tensor<8x32xf32>, tensor<1x31x31x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x30x30x32xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %conv = linalg.conv_2d_nhwc_hwcf ins(%img, %filter : tensor<1x32x32x16xf32>, tensor<3x3x16x32xf32>) outs(%f0 : tensor<1x30x30x32xf32>) -> tensor<1x30x30x32xf32>
  %e1 = tensor.empty() : tensor<1x30x30x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
  %dwc = linalg.depthwise_conv_2d_nhwc_hwc ins(%img, %dw : tensor<1x32x32x16xf32>, tensor<3x3x16xf32>) outs(%f1 : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
  %e2 = tensor.empty() : tensor<64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  %mv = linalg.matvec ins(%w, %v : tensor<64x512xf32>, tensor<512xf32>) outs(%f2 : tensor<64xf32>) -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64x128xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<64x512xf32>, tensor<512x128xf32>) outs(%f3 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e4 = tensor.empty() : tensor<8x32xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %two_k = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (k1, k2, n)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : tensor<8x4x16xf32>, tensor<4x16x32xf32>) outs(%f4 : tensor<8x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %prod = arith.mulf %p, %q : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  } -> tensor<8x32xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e5 = tensor.empty() : tensor<1x31x31x16xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x31x31x16xf32>) -> tensor<1x31x31x16xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%img, %win : tensor<1x32x32x16xf32>, tensor<2x2xf32>) outs(%f5 : tensor<1x31x31x16xf32>) -> tensor<1x31x31x16xf32>
  return %conv, %dwc, %mv, %mm, %two_k, %pool : tensor<1x30x30x32xf32>, tensor<1x30x30x16xf32>, tensor<64xf32>, tensor<64x128xf32>, tensor<8x32xf32>, tensor<1x31x31x16xf32>
}
