// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_89" --verify-diagnostics

// sm_89 has no FP4 tensor-core instruction and no kernel of its own: the pass
// rejects the target instead of silently generating a kernel for another
// architecture.

// expected-error @below {{convert-nvfp4-to-gpu: unsupported target 'sm_89' (supported: sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, sm_90a)}}
module {
  func.func @f(%a: !nvfp4.tensor<64x64, 1x16>, %b: !nvfp4.tensor<64x64, 1x16>) -> tensor<64x64xf32> {
    %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x64, 1x16>,
           !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
    return %c : tensor<64x64xf32>
  }
}
