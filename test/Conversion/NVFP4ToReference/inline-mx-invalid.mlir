// RUN: nvfp4-opt %s --convert-nvfp4-to-reference=kernels=inline --split-input-file --verify-diagnostics

// The inline lowering implements NVFP4; MX tensors lower with the default
// kernels=library. Each op that computes on an MX tensor is rejected.

func.func @quantize(%x: tensor<4x32xf32>) -> !nvfp4.tensor<4x32, 1x32, mxfp4> {
  // expected-error @below {{'nvfp4.quantize' op on an MX tensor lowers with kernels=library only (the inline lowering implements NVFP4)}}
  %q = nvfp4.quantize %x : tensor<4x32xf32> -> !nvfp4.tensor<4x32, 1x32, mxfp4>
  return %q : !nvfp4.tensor<4x32, 1x32, mxfp4>
}

// -----

func.func @dequantize(%q: !nvfp4.tensor<4x32, 1x32, mxfp8_e4m3>) -> tensor<4x32xf32> {
  // expected-error @below {{'nvfp4.dequantize' op on an MX tensor lowers with kernels=library only}}
  %d = nvfp4.dequantize %q : !nvfp4.tensor<4x32, 1x32, mxfp8_e4m3> -> tensor<4x32xf32>
  return %d : tensor<4x32xf32>
}

// -----

func.func @matmul(%a: !nvfp4.tensor<4x32, 1x32, mxfp8_e5m2>) -> tensor<4x4xf32> {
  // expected-error @below {{'nvfp4.matmul' op on an MX tensor lowers with kernels=library only}}
  %y = nvfp4.matmul %a, %a : !nvfp4.tensor<4x32, 1x32, mxfp8_e5m2>, !nvfp4.tensor<4x32, 1x32, mxfp8_e5m2> -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// Taking an MX tensor apart and putting it together needs no numerics.
func.func @components(%q: !nvfp4.tensor<4x32, 1x32, mxfp4>) -> !nvfp4.tensor<4x32, 1x32, mxfp4> {
  %c, %s = nvfp4.disassemble %q : !nvfp4.tensor<4x32, 1x32, mxfp4>
  %r = nvfp4.assemble %c, %s : tensor<4x32xf4E2M1FN>, tensor<4x1xf8E8M0FNU> -> !nvfp4.tensor<4x32, 1x32, mxfp4>
  return %r : !nvfp4.tensor<4x32, 1x32, mxfp4>
}
