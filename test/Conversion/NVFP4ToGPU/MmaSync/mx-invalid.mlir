// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_90a --split-input-file --verify-diagnostics
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a --split-input-file 2>&1 | FileCheck %s --check-prefix=MIXED -DTARGET=sm_120a
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_100a --split-input-file 2>&1 | FileCheck %s --check-prefix=MIXED -DTARGET=sm_100a

// The MX GEMM kernels are MXFP4 x MXFP4 and MXFP8 x MXFP8 on sm_120a /
// sm_121a (matmul-mx.mlir) and on sm_100a / sm_103a / sm_110a
// (tcgen05-mx.mlir): on sm_90a every MX matmul is an error at the op, and
// on the block-scaled targets MXFP4 x MXFP8. MX quantizations and
// dequantizations are left for the host (mx-host.mlir).

// MIXED-NOT: error: 'nvfp4.matmul' op on mxfp4 x mxfp4
// MIXED: error: 'nvfp4.matmul' op on mxfp8_e5m2 x mxfp4 operands has no GPU kernel for [[TARGET]]
// MIXED-NOT: error: 'nvfp4.matmul' op on mxfp4 x mxfp4

func.func @mxfp4(%a: !nvfp4.tensor<128x64, 1x32, mxfp4>, %b: !nvfp4.tensor<128x64, 1x32, mxfp4>) -> tensor<128x128xf32> {
  // expected-error @below {{'nvfp4.matmul' op on mxfp4 x mxfp4 operands has no GPU kernel for sm_90a}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x32, mxfp4>, !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}

// -----

func.func @mxfp8(%a: !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, %b: !nvfp4.tensor<128x64, 1x32, mxfp4>) -> tensor<128x128xf32> {
  // expected-error @below {{'nvfp4.matmul' op on mxfp8_e5m2 x mxfp4 operands has no GPU kernel}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
