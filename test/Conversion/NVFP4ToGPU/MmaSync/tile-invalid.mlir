// The `tile` option of convert-nvfp4-to-gpu: unknown tiles, tcgen05
// targets and the 128x256 tile on sm_90a are errors; a shape that is not a multiple of a forced tile gets
// a rounded-up grid and a predicated last tile (ragged-shapes.mlir).

// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a tile=96x64" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a tile=128" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a tile=128x128" 2>&1 | FileCheck %s --check-prefix=TCGEN05
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a tile=128x64" | FileCheck %s --check-prefix=FORCED
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a tile=128x256" 2>&1 | FileCheck %s --check-prefix=WIDE90

// UNKNOWN: error: convert-nvfp4-to-gpu: unsupported tile '96x64' (supported: 64x64, 128x64, 64x128, 128x128, 128x256, 16x128, 32x128)
// MALFORMED: error: convert-nvfp4-to-gpu: unsupported tile '128' (supported: 64x64, 128x64, 64x128, 128x128, 128x256, 16x128, 32x128)
// TCGEN05: error: convert-nvfp4-to-gpu: tile applies to the sm_120a, sm_121a and sm_90a matmul kernels, not to target 'sm_100a'
// WIDE90: error: 'nvfp4.matmul' op is not supported by the GPU kernel: M = 192, N = 64, K = 128; the 128x256 tile has no kernel for sm_90a (its 64x64 warp tiles of dequantized operands exceed 255 registers); use tile=128x128
// FORCED: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m192n64k128_1x16_1x16_f32_t128x64 blocks in (%c1, %c2, %c1{{(_[0-9]+)?}}) threads in (%c256,

func.func @not_multiple(%a: !nvfp4.tensor<192x128, 1x16>, %b: !nvfp4.tensor<64x128, 1x16>) -> tensor<192x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<192x128, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<192x64xf32>
  return %c : tensor<192x64xf32>
}
