// nvfp4.quantize on an NVIDIA GPU through
// nvfp4-to-gpu-executable{target=sm_90a} and libnvfp4_cuda_runtime,
// checked bit for bit against the reference library (the cases and their
// CHECK lines are in Inputs/quantize-cases.mlir; quantize-on-cpu.mlir runs the same
// cases on the CPU), once with the kernels as PTX (JIT-compiled by the
// driver) and once as a cubin from ptxas. Needs a GPU of compute capability
// 9.0 (H100 / H200); lit reports it UNSUPPORTED elsewhere.
//
// REQUIRES: gpu, gpu-sm_90, nvfp4-cuda-runtime, ptxas
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_90a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/quantize-cases.mlir
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_90a format=bin cuda-path=%cuda_path" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/quantize-cases.mlir
