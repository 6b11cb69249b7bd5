// The sm_90a matmul kernel (3-stage cp.async pipeline, swizzled shared
// memory, bf16 mma.sync on dequantized operands, the Transformer Engine
// alpha in the epilogue) run by the GPU emulator: on the GPU matmul cases
// (Inputs/matmul-cases.mlir, default tiles) and with every CTA tile forced
// on a shape they all divide (Inputs/matmul-tile-cases.mlir). The results
// pass the GPU checks and are bit-exact with the reference GEMM (each
// mma.sync sums one 16-wide scale block exactly, as the reference does).
//
// RUN: nvfp4-opt %S/Inputs/matmul-cases.mlir --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: > %t.cases.txt
// RUN: FileCheck %S/Inputs/matmul-cases.mlir --input-file=%t.cases.txt
// RUN: FileCheck %s --check-prefix=CASES --input-file=%t.cases.txt
// CASES: gpu matmul [64x128] x [192x128]: outside bound 0 (of 12288), bit-exact 12288,
// CASES: gpu matmul [128x1024] x [128x1024]: outside bound 0 (of 16384), bit-exact 16384,
// CASES: gpu matmul [2x128x256] x [2x64x256] acc: outside bound 0 (of 16384), bit-exact 16384,
// CASES: gpu matmul [192x512] x [64x512] bf16: outside bound 0 (of 12288), bit-exact 12288,
//
// RUN: for tile in 64x64 128x64 64x128 128x128; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-tile-cases.mlir --nvfp4-to-gpu-emulation="target=sm_90a tile=$tile" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   | FileCheck %s --check-prefix=TILES || exit 1; \
// RUN: done
// TILES: gpu matmul [256x512] x [384x512]: outside bound 0 (of 98304), bit-exact 98304,
