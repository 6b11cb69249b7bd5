// The GPU matmul cases (Inputs/matmul-cases.mlir) lowered with nvfp4-to-cpu
// instead: the bit-exact reference lowering must pass the GPU checks with
// every element bit-exact. Tests the cases and libnvfp4_cuda_runtime_checks
// on any machine.
//
// RUN: nvfp4-opt %S/Inputs/matmul-cases.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %s
// CHECK: gpu matmul [64x128] x [192x128]: outside bound 0 (of 12288), bit-exact 12288,
// CHECK: gpu matmul [128x1024] x [128x1024]: outside bound 0 (of 16384), bit-exact 16384,
// CHECK: gpu matmul [2x128x256] x [2x64x256] acc: outside bound 0 (of 16384), bit-exact 16384,
// CHECK: gpu matmul [192x512] x [64x512] bf16: outside bound 0 (of 12288), bit-exact 12288,
