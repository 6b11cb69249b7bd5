// Shapes the Hadamard kernel does not take are reported at the op; nothing
// is generated.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu --split-input-file --verify-diagnostics

func.func @empty(%x: tensor<0x32xbf16>) -> tensor<0x32xbf16> {
  // expected-error @below {{'nvfp4.hadamard' op is not supported by the GPU kernel: the shape must be static, non-empty}}
  %y = nvfp4.hadamard %x : tensor<0x32xbf16>
  return %y : tensor<0x32xbf16>
}
