// The sm_90a matmul kernel (3-stage cp.async pipeline, swizzled shared
// memory, bf16 mma.sync on dequantized operands, the Transformer Engine
// alpha in the epilogue) run by the GPU emulator: on the GPU matmul cases
// (Inputs/matmul-cases.mlir, default tiles) and with every CTA tile forced
// on a shape they all divide (Inputs/matmul-tile-cases.mlir). The results
// pass the GPU checks and are bit-exact with the reference GEMM (each
// mma.sync sums one 16-wide scale block exactly, as the reference does).
// The sanitizer run forces the 64x64 and 128x128 tiles only.
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
// RUN: for tile in 64x64 128x128 %if !sanitizers %{ 128x64 64x128 %}; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-tile-cases.mlir --nvfp4-to-gpu-emulation="target=sm_90a tile=$tile" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   | FileCheck %s --check-prefix=TILES || exit 1; \
// RUN: done
//
// M, N and K that are not multiples of the CTA tile and K step (the last
// tile and K step predicated), with the 64 x 64, the largest and the
// two decode tiles forced (the staging and epilogue code is the sm_120a
// kernel's, which runs every tile):
// RUN: for tile in 64x64 128x128 %if !sanitizers %{ 16x128 32x128 %}; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-ragged-cases.mlir --nvfp4-to-gpu-emulation="target=sm_90a tile=$tile" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   > %t.ragged.$tile.txt || exit 1; \
// RUN:   FileCheck %S/Inputs/matmul-ragged-cases.mlir --input-file=%t.ragged.$tile.txt || exit 1; \
// RUN:   FileCheck %s --check-prefix=RAGGED --input-file=%t.ragged.$tile.txt || exit 1; \
// RUN: done
// RAGGED: gpu matmul [1x64] x [1x64]: outside bound 0 (of 1), bit-exact 1,
// RAGGED: gpu matmul [127x128] x [129x128]: outside bound 0 (of 16383), bit-exact 16383,
// RAGGED: gpu matmul [300x256] x [208x256]: outside bound 0 (of 62400), bit-exact 62400,
// RAGGED: gpu matmul [2x33x64] x [2x65x64] acc: outside bound 0 (of 4290), bit-exact 4290,
// RAGGED: gpu matmul [8x256] x [1000x256] bf16: outside bound 0 (of 8000), bit-exact 8000,
// RAGGED: gpu matmul [80x192] x [48x192] acc: outside bound 0 (of 3840), bit-exact 3840,
// RAGGED: gpu matmul [1x16] x [1x16]: outside bound 0 (of 1), bit-exact 1,
// RAGGED: gpu matmul [127x48] x [129x48]: outside bound 0 (of 16383), bit-exact 16383,
// RAGGED: gpu matmul [96x272] x [80x272] acc: outside bound 0 (of 7680), bit-exact 7680,
// RAGGED: gpu matmul [2x17x80] x [2x33x80] bf16: outside bound 0 (of 1122), bit-exact 1122,
// RAGGED: gpu matmul [64x96] x [64x96]: outside bound 0 (of 4096), bit-exact 4096,
// TILES: gpu matmul [256x512] x [384x512]: outside bound 0 (of 98304), bit-exact 98304,
// TILES: gpu matmul [256x512] x [384x512]: outside bound 0 (of 98304), bit-exact 98304,
