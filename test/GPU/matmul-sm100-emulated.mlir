// The tcgen05 matmul kernels of sm_100a, sm_103a and sm_110a (persistent,
// warp-specialized: TMA loads of A and B with the 128-byte swizzle, scales
// through the producer warp or bulk copies of atoms, tcgen05.cp of the
// scales into tensor memory, block-scaled tcgen05.mma kind::mxf4nvf4,
// tcgen05.commit to mbarriers, tcgen05.ld epilogue) run by the GPU
// emulator, which decodes the instruction and shared-memory descriptors,
// the tensor-memory addresses and the TMA box placement from the PTX ISA
// and CUTLASS's SM100 descriptors, not from the kernel builder's encoders
// (Tcgen05Descriptors.h). Every result is bit-exact with the reference GEMM.
//
// 1-CTA tiles N = 256, 128, 64 on every target (tcgen05-cta-pair=off), and
// once with a single SM (NVFP4_GPU_EMULATOR_SMS=1): one persistent CTA
// computes every tile, so the stage and accumulator phases wrap across
// tiles.
// RUN: for target in sm_100a sm_103a sm_110a; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-tcgen05-cases.mlir \
// RUN:     --nvfp4-to-gpu-emulation="target=$target tcgen05-cta-pair=off" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   | FileCheck %S/Inputs/matmul-tcgen05-cases.mlir || exit 1; \
// RUN: done
// RUN: nvfp4-opt %S/Inputs/matmul-tcgen05-cases.mlir \
// RUN:   --nvfp4-to-gpu-emulation="target=sm_100a tcgen05-cta-pair=off" \
// RUN: | env NVFP4_GPU_EMULATOR_SMS=1 %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-tcgen05-cases.mlir
//
// The CTA pair (clusters of two CTAs, cta_group::2, multicast commits,
// remote arrivals through mapa), with the default SM count and with two SMs
// (one cluster computes every tile). Its case 2 fails with the CTA-pair
// B-scale bug of the Blackwell-kernels issue.
// RUN: for target in sm_100a sm_103a sm_110a; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-tcgen05-pair-cases.mlir \
// RUN:     --nvfp4-to-gpu-emulation="target=$target tcgen05-cta-pair=on" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   | FileCheck %S/Inputs/matmul-tcgen05-pair-cases.mlir || exit 1; \
// RUN: done
// RUN: nvfp4-opt %S/Inputs/matmul-tcgen05-pair-cases.mlir \
// RUN:   --nvfp4-to-gpu-emulation="target=sm_100a tcgen05-cta-pair=on" \
// RUN: | env NVFP4_GPU_EMULATOR_SMS=2 %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %S/Inputs/matmul-tcgen05-pair-cases.mlir
