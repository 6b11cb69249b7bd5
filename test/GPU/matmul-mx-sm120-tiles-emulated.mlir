// The MX matmul kernels of sm_120a (matmul-mx-sm120-emulated.mlir) with
// every CTA tile forced: bit-exact with nvfp4::mx::matmul on
// Inputs/matmul-mx-cases.mlir. Not under the sanitizers (the cases run
// there on the default tiles).
//
// UNSUPPORTED: sanitizers
// RUN: for tile in 64x64 128x64 64x128 128x128 128x256 16x128 32x128; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-mx-cases.mlir --nvfp4-to-gpu-emulation="target=sm_120a tile=$tile" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib,%nvfp4_cpu_runtime_lib \
// RUN:   | FileCheck %s --check-prefix=EXACT || exit 1; \
// RUN: done
// EXACT: gpu mx matmul [128x256] e2m1 x [64x256] e2m1 acc: outside bound 0 (of 8192), bit-exact 8192
// EXACT: gpu mx matmul [127x96] e2m1 x [129x96] e2m1: outside bound 0 (of 16383), bit-exact 16383
// EXACT: gpu mx matmul [2x33x64] e2m1 x [2x65x64] e2m1 acc: outside bound 0 (of 4290), bit-exact 4290
// EXACT: gpu mx matmul [1x32] e2m1 x [1x32] e2m1: outside bound 0 (of 1), bit-exact 1
// EXACT: gpu mx matmul [64x544] e2m1 x [200x544] e2m1: outside bound 0 (of 12800), bit-exact 12800
// EXACT: gpu mx matmul [128x256] e4m3 x [64x256] e4m3 acc: outside bound 0 (of 8192), bit-exact 8192
// EXACT: gpu mx matmul [127x96] e4m3 x [129x96] e5m2: outside bound 0 (of 16383), bit-exact 16383
// EXACT: gpu mx matmul [2x33x64] e5m2 x [2x65x64] e4m3 acc: outside bound 0 (of 4290), bit-exact 4290
// EXACT: gpu mx matmul [1x32] e5m2 x [1x32] e5m2: outside bound 0 (of 1), bit-exact 1
// EXACT: gpu mx matmul [64x544] e4m3 x [200x544] e4m3: outside bound 0 (of 12800), bit-exact 12800
// EXACT: gpu mx matmul [64x1536] e2m1 x [72x1536] e2m1: outside bound 0 (of 4608), bit-exact 4608
// EXACT: gpu mx matmul [96x1024] e4m3 x [80x1024] e5m2 acc: outside bound 0 (of 7680), bit-exact 7680
