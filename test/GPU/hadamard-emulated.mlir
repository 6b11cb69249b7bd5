// The GPU hadamard cases (Inputs/hadamard-cases.mlir) with their kernels run by the
// GPU emulator: nvfp4-to-gpu-emulation lowers them exactly as for the GPU
// up to the NVVM dialect the NVVM target compiles, and libnvfp4_gpu_emulator
// executes those kernel bodies on the host. The results must pass the same
// bit-for-bit checks against the reference library as on a GPU, for every
// target (hardware E2M1 conversions on sm_100a and later, software on
// sm_90a).
//
// RUN: for target in sm_90a %sm100_family %sm120_family; do \
// RUN:   nvfp4-opt %S/Inputs/hadamard-cases.mlir --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | FileCheck %S/Inputs/hadamard-cases.mlir || exit 1; \
// RUN: done
