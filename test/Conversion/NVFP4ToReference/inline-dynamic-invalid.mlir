// RUN: nvfp4-opt %s --convert-nvfp4-to-reference="kernels=inline" --split-input-file --verify-diagnostics

// The inline kernels are built for static shapes: an nvfp4 op with a
// run-time size is an error that names the library kernels, which take it.

func.func @dynamic_hadamard(%x: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @below {{'nvfp4.hadamard' op with a dynamic shape lowers with kernels=library only (the inline lowering is built for static shapes)}}
  %y = nvfp4.hadamard %x : tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

func.func @dynamic_quantize(%x: tensor<?x32xf32>) -> !nvfp4.tensor<?x32, 1x16> {
  // expected-error @below {{'nvfp4.quantize' op with a dynamic shape lowers with kernels=library only}}
  %q = nvfp4.quantize %x : tensor<?x32xf32> -> !nvfp4.tensor<?x32, 1x16>
  return %q : !nvfp4.tensor<?x32, 1x16>
}

// -----

func.func @dynamic_matmul(%a: !nvfp4.tensor<?x32, 1x16>, %b: !nvfp4.tensor<16x32, 1x16>) -> tensor<?x16xf32> {
  // expected-error @below {{'nvfp4.matmul' op with a dynamic shape lowers with kernels=library only}}
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<?x32, 1x16>, !nvfp4.tensor<16x32, 1x16> -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
