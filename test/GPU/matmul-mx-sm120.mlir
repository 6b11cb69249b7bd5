// The MX matmuls (MXFP4 x MXFP4, MXFP8 x MXFP8) on an NVIDIA GPU through
// nvfp4-to-gpu-executable{target=sm_120a} and libnvfp4_cuda_runtime,
// checked against nvfp4::mx::matmul within the accumulation-order bound of
// nvfp4GpuCheckMxMatmul (the cases and their CHECK lines are in
// Inputs/matmul-mx-cases.mlir; the emulator runs them bit-exactly in
// matmul-mx-sm120-emulated.mlir). Needs a GPU of compute capability 12.0;
// lit reports it UNSUPPORTED elsewhere.
//
// REQUIRES: gpu-sm_120, nvfp4-cuda-runtime
// RUN: nvfp4-opt %S/Inputs/matmul-mx-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_120a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-mx-cases.mlir
