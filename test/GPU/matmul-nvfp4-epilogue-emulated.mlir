// The NVFP4 epilogue of the tcgen05 kernel run by the GPU emulator (the
// cases of Inputs/matmul-nvfp4-epilogue-cases.mlir): the fused kernel
// (quantize in the epilogue, 1x16 and 16x16 blocks, RN and SR, Hadamard,
// bf16 results over a batch, MXFP8 operands quantized on the host) equals
// bit for bit the matmul kernel followed by the quantize kernel, each of
// which matmul-sm100-emulated.mlir and quantize-emulated.mlir check against
// the reference library. SR in
// software, and with hardware-sr (cvt.rs.satfinite.e2m1x4.f32, modelled on
// the ISA's reading of its random bits, docs/emulator.md) on sm_100a and
// sm_103a; sm_110a has no cvt.rs. The sanitizer run checks the sm_100a
// kernels only (sm_103a and sm_110a build the same ones).
//
// RUN: for options in "target=sm_100a" "target=sm_100a hardware-sr=true" \
// RUN:     %if !sanitizers %{ "target=sm_103a hardware-sr=true" "target=sm_110a" %}; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-nvfp4-epilogue-cases.mlir \
// RUN:     --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN:   | FileCheck %S/Inputs/matmul-nvfp4-epilogue-cases.mlir || exit 1; \
// RUN: done
