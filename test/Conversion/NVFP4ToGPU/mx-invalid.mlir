// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_100a --split-input-file --verify-diagnostics
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a --split-input-file --verify-diagnostics

// The GPU kernels implement NVFP4: an MX tensor anywhere in the module is
// an error at the first op or function that carries one.

func.func @quantize(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
  // expected-error @below {{'nvfp4.quantize' op on an MX tensor: convert-nvfp4-to-gpu has no kernels for the MX formats; lower the program with --nvfp4-to-cpu}}
  %q = nvfp4.quantize %x : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x32, mxfp4>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x64xf32>
  return %d : tensor<128x64xf32>
}

// -----

// expected-error @below {{'func.func' op on an MX tensor: convert-nvfp4-to-gpu has no kernels for the MX formats}}
func.func @argument(%a: !nvfp4.tensor<128x64, 1x32, mxfp8_e4m3>) {
  return
}

// -----

func.func @matmul(%a: !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, %b: !nvfp4.tensor<128x64, 1x32, mxfp4>) -> tensor<128x128xf32> {
  // expected-error @below {{'nvfp4.matmul' op on an MX tensor}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>, !nvfp4.tensor<128x64, 1x32, mxfp4> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
