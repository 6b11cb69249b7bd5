// nvfp4.matmul on an NVIDIA GPU through nvfp4-to-gpu-executable{target=sm_90a}
// and libnvfp4_cuda_runtime, checked against the reference GEMM within the
// accumulation-order bound of docs/gpu-runtime.md (the cases and their
// CHECK lines are in Inputs/matmul-cases.mlir), once with the kernels as PTX
// (JIT-compiled by the driver) and once as a cubin from ptxas. Needs a GPU
// of compute capability 9.0; lit reports it UNSUPPORTED elsewhere.
//
// REQUIRES: gpu-sm_90, nvfp4-cuda-runtime, ptxas
// RUN: nvfp4-opt %S/Inputs/matmul-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_90a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-cases.mlir
// RUN: nvfp4-opt %S/Inputs/matmul-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_90a format=bin cuda-path=%cuda_path" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-cases.mlir
