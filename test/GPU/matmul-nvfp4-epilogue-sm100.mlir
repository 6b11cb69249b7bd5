// The NVFP4 epilogue of the tcgen05 kernel on an sm_100 GPU (B200 /
// GB200): quantize(matmul) with an amax operand (1x16 or 16x16 blocks,
// round to nearest or stochastic, with or without a Hadamard transform), lowered to one kernel that
// writes the NVFP4 result, must equal bit for bit the same matmul stored in
// f32 (a second use keeps it) and quantized by the quantize kernel: same
// MMAs, same accumulation order, same quantization code. Both results are
// dequantized on the GPU and compared (relative error exactly 0). Once with
// the kernels as PTX (JIT-compiled by the driver), once as a cubin from
// ptxas. Needs a GPU of compute capability 10.0; lit reports it UNSUPPORTED
// elsewhere.
//
// REQUIRES: gpu, gpu-sm_100, nvfp4-cuda-runtime, ptxas
// RUN: nvfp4-opt %S/Inputs/matmul-nvfp4-epilogue-cases.mlir --nvfp4-to-gpu-executable="target=sm_100a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/matmul-nvfp4-epilogue-cases.mlir
// RUN: nvfp4-opt %S/Inputs/matmul-nvfp4-epilogue-cases.mlir \
// RUN:   --nvfp4-to-gpu-executable="target=sm_100a format=bin cuda-path=%cuda_path" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/matmul-nvfp4-epilogue-cases.mlir
// RUN: nvfp4-opt %S/Inputs/matmul-nvfp4-epilogue-cases.mlir --nvfp4-to-gpu-executable="target=sm_100a hardware-sr=true" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/matmul-nvfp4-epilogue-cases.mlir
