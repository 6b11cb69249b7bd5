// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_100a --split-input-file --verify-diagnostics
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_90a --split-input-file --verify-diagnostics
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a --split-input-file 2>&1 | FileCheck %s --check-prefix=SM120

// The MX GEMM kernels are MXFP4 x MXFP4 and MXFP8 x MXFP8 on sm_120a /
// sm_121a (matmul-mx.mlir): on the other targets every MX matmul is an
// error at the op, and on sm_120a / sm_121a MXFP4 x MXFP8. MX
// quantizations and dequantizations are left for the host (mx-host.mlir).

// SM120-NOT: error: 'nvfp4.matmul' op on mxfp4 x mxfp4
// SM120: error: 'nvfp4.matmul' op on mxfp8_e5m2 x mxfp4 operands has no GPU kernel for sm_120a
// SM120-NOT: error: 'nvfp4.matmul' op on mxfp4 x mxfp4

func.func @mxfp4(%a: !nvfp4.tensor<128x64, 1x32, mxfp4>, %b: !nvfp4.tensor<128x64, 1x32, mxfp4>) -> tensor<128x128xf32> {
  // expected-error @below {{'nvfp4.matmul' op on mxfp4 x mxfp4 operands has no GPU kernel for sm_}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x32, mxfp4>, !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}

// -----

func.func @mxfp8(%a: !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, %b: !nvfp4.tensor<128x64, 1x32, mxfp4>) -> tensor<128x128xf32> {
  // expected-error @below {{'nvfp4.matmul' op on mxfp8_e5m2 x mxfp4 operands has no GPU kernel}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
