// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100" --verify-diagnostics

// tcgen05 exists only on the architecture-specific targets: the plain sm_100
// target is rejected instead of silently getting another kernel.

// expected-error @below {{convert-nvfp4-to-gpu: unsupported target 'sm_100' (supported: sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, sm_90a)}}
module {
  func.func @f(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 1x16>) -> tensor<128x128xf32> {
    %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>,
           !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
    return %c : tensor<128x128xf32>
  }
}
