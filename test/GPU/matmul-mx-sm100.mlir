// The MX matmuls (MXFP4 x MXFP4, MXFP8 x MXFP8) on an NVIDIA GPU through
// nvfp4-to-gpu-executable{target=sm_100a} and libnvfp4_cuda_runtime (the
// tcgen05 kernel, 1-CTA tiles and, forced, the CTA pair), checked against
// nvfp4::mx::matmul within the accumulation-order bound of
// nvfp4GpuCheckMxMatmul (the cases and their CHECK lines are in
// Inputs/matmul-mx-cases.mlir and Inputs/matmul-mx-pair-cases.mlir; the
// emulator runs them bit-exactly in matmul-mx-sm100-emulated.mlir). Needs a
// GPU of compute capability 10.0; lit reports it UNSUPPORTED elsewhere.
//
// REQUIRES: gpu, gpu-sm_100, nvfp4-cuda-runtime, ptxas
// RUN: nvfp4-opt %S/Inputs/matmul-mx-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_100a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-mx-cases.mlir
// RUN: nvfp4-opt %S/Inputs/matmul-mx-pair-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_100a tcgen05-cta-pair=on" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-mx-pair-cases.mlir
