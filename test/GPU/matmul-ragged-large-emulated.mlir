// The issue-size ragged shapes on the sm_120a kernel and on the sm_100a
// tcgen05 kernel, run by the GPU emulator (about 15 s and 7 s):
// 300 x 1000 x 4112 (on sm_100a with K copy-padded to 4128) and the decode
// GEMM 8 x 4096 x 4096 (the 16 x 128 tile; on sm_100a the transposed
// product), bit-exact with the reference GEMM. The smaller ragged cases run on every target and
// tile in matmul-sm{120,90}-emulated.mlir, also under the sanitizers; this
// one is left out of the sanitizer build for its run time.
// UNSUPPORTED: sanitizers
//
// RUN: nvfp4-opt %S/Inputs/matmul-ragged-large-cases.mlir --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: > %t.txt
// RUN: FileCheck %S/Inputs/matmul-ragged-large-cases.mlir --input-file=%t.txt
// RUN: FileCheck %s --input-file=%t.txt
// RUN: nvfp4-opt %S/Inputs/matmul-ragged-large-cases.mlir --nvfp4-to-gpu-emulation="target=sm_100a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: > %t.sm_100a.txt
// RUN: FileCheck %S/Inputs/matmul-ragged-large-cases.mlir --input-file=%t.sm_100a.txt
// RUN: FileCheck %s --input-file=%t.sm_100a.txt
// CHECK: gpu matmul [300x4112] x [1000x4112]: outside bound 0 (of 300000), bit-exact 300000,
// CHECK: gpu matmul [8x4096] x [4096x4096] bf16: outside bound 0 (of 32768), bit-exact 32768,
