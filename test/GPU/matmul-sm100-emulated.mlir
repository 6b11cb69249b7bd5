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
// RUN: for target in %sm100_family; do \
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
// RUN: for target in %sm100_family; do \
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
//
// M, N and K that are not multiples of the CTA tile or K tile (the last tile
// predicated:
// TMA zero fill, clamped scale rows, guarded epilogue stores), and K that
// is not a multiple of 32 (operands copied with K padded), and few-row
// GEMMs (their transposed product), on every target and with persistent
// CTAs wrapping:
// RUN: for target in %sm100_family; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-ragged-tcgen05-cases.mlir --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   > %t.ragged.$target.txt || exit 1; \
// RUN:   FileCheck %S/Inputs/matmul-ragged-tcgen05-cases.mlir --input-file=%t.ragged.$target.txt || exit 1; \
// RUN:   FileCheck %s --check-prefix=RAGGED --input-file=%t.ragged.$target.txt || exit 1; \
// RUN: done
// RUN: nvfp4-opt %S/Inputs/matmul-ragged-tcgen05-cases.mlir --nvfp4-to-gpu-emulation="target=sm_100a" \
// RUN: | env NVFP4_GPU_EMULATOR_SMS=1 %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %s --check-prefix=RAGGED
// RAGGED: gpu matmul [1x256] x [1x256]: outside bound 0 (of 1), bit-exact 1,
// RAGGED: gpu matmul [127x256] x [129x256]: outside bound 0 (of 16383), bit-exact 16383,
// RAGGED: gpu matmul [300x512] x [208x512]: outside bound 0 (of 62400), bit-exact 62400,
// RAGGED-NEXT: amax [300x208]: mismatches 0 (of 1)
// RAGGED: gpu matmul [2x33x256] x [2x65x256] acc: outside bound 0 (of 4290), bit-exact 4290,
// RAGGED: gpu matmul [8x256] x [1000x256] bf16: outside bound 0 (of 8000), bit-exact 8000,
// RAGGED: gpu matmul [208x768] x [80x768] acc: outside bound 0 (of 16640), bit-exact 16640,
// RAGGED-NEXT: amax [208x80]: mismatches 0 (of 1)
// RAGGED: gpu matmul [2x130x256] x [2x20x256] acc: outside bound 0 (of 5200), bit-exact 5200,
// RAGGED: gpu matmul [2x40x256] x [2x48x256]: outside bound 0 (of 3840), bit-exact 3840,
// RAGGED-NEXT: amax [2x40x48]: mismatches 0 (of 1)
// RAGGED: gpu matmul [128x96] x [64x96]: outside bound 0 (of 8192), bit-exact 8192,
// RAGGED: gpu matmul [130x288] x [100x288] acc: outside bound 0 (of 13000), bit-exact 13000,
// RAGGED: gpu matmul [2x64x544] x [2x64x544] bf16: outside bound 0 (of 8192), bit-exact 8192,
// RAGGED: gpu matmul [127x48] x [129x48]: outside bound 0 (of 16383), bit-exact 16383,
// RAGGED: gpu matmul [96x272] x [80x272] acc: outside bound 0 (of 7680), bit-exact 7680,
// RAGGED: gpu matmul [2x17x80] x [2x33x80] bf16: outside bound 0 (of 1122), bit-exact 1122,
// RAGGED: gpu matmul [1x16] x [1x16]: outside bound 0 (of 1), bit-exact 1,
// RAGGED: gpu matmul [2x40x96] x [2x208x96] acc: outside bound 0 (of 16640), bit-exact 16640,
// RAGGED: gpu matmul [64x256] x [128x256] bf16: outside bound 0 (of 8192), bit-exact 8192,
//
// K not a multiple of 32 with operands quantized in the program: the
// quantize kernels write K-padded storage that the kernel reads in place
// (the atoms layout included); the quantize kernels' names say so. On
// sm_100a (sm_103a and sm_110a build the same kernels).
// RUN: for target in sm_100a; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-padded-storage-cases.mlir --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   > %t.padded.$target.txt || exit 1; \
// RUN:   FileCheck %S/Inputs/matmul-padded-storage-cases.mlir --input-file=%t.padded.$target.txt || exit 1; \
// RUN:   FileCheck %s --check-prefix=PADDED --input-file=%t.padded.$target.txt || exit 1; \
// RUN: done
// RUN: nvfp4-opt %S/Inputs/matmul-padded-storage-cases.mlir --convert-nvfp4-to-gpu="target=sm_100a" \
// RUN: | FileCheck %s --check-prefix=PADDED-IR
// Stochastic rounding and the Hadamard transform into padded storage (the
// random bits of every element those of the unpadded tensor), in software
// and with hardware-sr: the printed results equal the CPU reference
// lowering's byte for byte.
// RUN: nvfp4-opt %S/Inputs/matmul-padded-storage-sr-cases.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.padded-sr.cpu
// RUN: for options in "target=sm_100a" "target=sm_103a hardware-sr=true"; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-padded-storage-sr-cases.mlir --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.padded-sr.gpu || exit 1; \
// RUN:   cmp %t.padded-sr.cpu %t.padded-sr.gpu || exit 1; \
// RUN: done
// RUN: grep -c "^\[\[" %t.padded-sr.cpu | FileCheck %s --check-prefix=PADDED-SR
// PADDED-SR: 2
// PADDED: gpu matmul [127x48] x [129x48]: outside bound 0 (of 16383), bit-exact 16383,
// PADDED: gpu matmul [96x272] x [80x272] acc: outside bound 0 (of 7680), bit-exact 7680,
// PADDED: gpu matmul [2x17x80] x [2x33x80] bf16: outside bound 0 (of 1122), bit-exact 1122,
// PADDED: gpu matmul [1x16] x [1x16]: outside bound 0 (of 1), bit-exact 1,
// PADDED: gpu matmul [256x496] x [128x496]: outside bound 0 (of 32768), bit-exact 32768,
// PADDED: gpu matmul [8x48] x [256x48] bf16: outside bound 0 (of 2048), bit-exact 2048,
// PADDED: gpu matmul [128x48] x [64x48]: outside bound 0 (of 8192), bit-exact 8192,
// PADDED-IR-LABEL: func.func @matmul_4(
// PADDED-IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x496_1x16_f32_rn_sfatoms_pad512 {{.*}} args({{.*}}, %[[AD:.*]] : memref<256x512xf4E2M1FN>, %[[AS:.*]] : memref<256x32xf8E4M3FN>,
// PADDED-IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x496_1x16_f32_rn_sfatoms_pad512 {{.*}} args({{.*}}, %[[BD:.*]] : memref<128x512xf4E2M1FN>, %[[BS:.*]] : memref<128x32xf8E4M3FN>,
// PADDED-IR: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_1x16_f32_sfatoms_ab {{.*}} args(%[[AD]] : memref<256x512xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[AS]] : memref<256x32xf8E4M3FN>, %{{.*}} : f32, %[[BD]] : memref<128x512xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[BS]] : memref<128x32xf8E4M3FN>,
// PADDED-IR-LABEL: func.func @matmul_6(
// PADDED-IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x48_1x16_f32_rn_pad64 {{.*}} args({{.*}}, %[[AD6:.*]] : memref<128x64xf4E2M1FN>,
// PADDED-IR: tensor.pad
// PADDED-IR: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k64_t64_1x16_16x16_f32 {{.*}} args(%[[AD6]] : memref<128x64xf4E2M1FN>,
//
// The CTA pair with a K that is not a multiple of the K tile:
// RUN: for target in %sm100_family; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-ragged-tcgen05-pair-cases.mlir \
// RUN:     --nvfp4-to-gpu-emulation="target=$target tcgen05-cta-pair=on" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   | FileCheck %s --check-prefix=RAGGED-PAIR || exit 1; \
// RUN: done
// RAGGED-PAIR: gpu matmul [256x288] x [256x288]: outside bound 0 (of 65536), bit-exact 65536,
// RAGGED-PAIR: gpu matmul [512x96] x [256x96] acc: outside bound 0 (of 131072), bit-exact 131072,
