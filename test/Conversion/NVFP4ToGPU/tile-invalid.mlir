// The `tile` option of convert-nvfp4-to-gpu: unknown tiles, tcgen05 targets
// and shapes that are not multiples of a forced tile.

// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a tile=96x64" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a tile=128" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a tile=128x128" 2>&1 | FileCheck %s --check-prefix=TCGEN05
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a tile=128x64" --verify-diagnostics
// RUN: not nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a tile=64x128" 2>&1 | FileCheck %s --check-prefix=PIPELINE

// UNKNOWN: error: convert-nvfp4-to-gpu: unsupported tile '96x64' (supported: 64x64, 128x64, 64x128, 128x128)
// MALFORMED: error: convert-nvfp4-to-gpu: unsupported tile '128' (supported: 64x64, 128x64, 64x128, 128x128)
// TCGEN05: error: convert-nvfp4-to-gpu: tile applies to the sm_120a, sm_121a and sm_90a matmul kernels, not to target 'sm_100a'
// PIPELINE: tile-invalid.mlir:[[# @LINE + 4]]:8: error: 'nvfp4.matmul' op is not supported by the GPU kernel: M = 192, N = 64, K = 128; N must be a multiple of 128 (the CTA tile 64x128; operands are not padded)

func.func @not_multiple(%a: !nvfp4.tensor<192x128, 1x16>, %b: !nvfp4.tensor<64x128, 1x16>) -> tensor<192x64xf32> {
  // expected-error @below {{is not supported by the GPU kernel: M = 192, N = 64, K = 128; M must be a multiple of 128 (the CTA tile 128x64; operands are not padded)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<192x128, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<192x64xf32>
  return %c : tensor<192x64xf32>
}
