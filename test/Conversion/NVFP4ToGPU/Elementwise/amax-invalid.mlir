// An nvfp4.amax the amax kernel does not take is reported at the op, on
// every target; nothing is generated.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file --verify-diagnostics
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" --split-input-file --verify-diagnostics
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file --verify-diagnostics

func.func @empty_rows(%x: tensor<0x64xf32>) -> f32 {
  // expected-error @below {{'nvfp4.amax' op is not supported by the GPU kernel: the input must have a non-empty shape}}
  %a = nvfp4.amax %x : tensor<0x64xf32>
  return %a : f32
}

// -----

func.func @empty_columns(%x: tensor<8x0xbf16>) -> f32 {
  // expected-error @below {{'nvfp4.amax' op is not supported by the GPU kernel: the input must have a non-empty shape}}
  %a = nvfp4.amax %x : tensor<8x0xbf16>
  return %a : f32
}

