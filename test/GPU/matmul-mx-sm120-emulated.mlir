// The MX matmul kernels of sm_120a / sm_121a (block-scaled mma.sync:
// MXFP4 m16n8k64 kind::mxf4 scale_vec::2X; MXFP8 m16n8k32 kind::mxf8f6f4
// scale_vec::1X in every E4M3 / E5M2 pairing; E8M0 scales, no alpha) run by
// the GPU emulator on Inputs/matmul-mx-cases.mlir: MX quantization on the
// host (the reference lowering's calls of the reference library), the GEMM
// a kernel, checked against nvfp4::mx::matmul. The emulator takes the
// MMAs' fragment and scale layouts from the PTX ISA (bytes 0 and 1, or
// byte 0, of each scale register), not from the kernel builder; the
// results are bit-exact with the reference GEMM (on every CTA tile:
// matmul-mx-sm120-tiles-emulated.mlir).
//
// RUN: for target in %sm120_family; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-mx-cases.mlir --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib,%nvfp4_cpu_runtime_lib \
// RUN:   > %t.$target.txt || exit 1; \
// RUN:   FileCheck %S/Inputs/matmul-mx-cases.mlir --input-file=%t.$target.txt || exit 1; \
// RUN:   FileCheck %s --check-prefix=EXACT --input-file=%t.$target.txt || exit 1; \
// RUN: done
// EXACT: gpu mx matmul [128x256] e2m1 x [64x256] e2m1 acc: outside bound 0 (of 8192), bit-exact 8192
// EXACT: gpu mx matmul [127x96] e2m1 x [129x96] e2m1: outside bound 0 (of 16383), bit-exact 16383
// EXACT: gpu mx matmul [2x33x64] e2m1 x [2x65x64] e2m1 acc: outside bound 0 (of 4290), bit-exact 4290
// EXACT: gpu mx matmul [1x32] e2m1 x [1x32] e2m1: outside bound 0 (of 1), bit-exact 1
// EXACT: gpu mx matmul [64x544] e2m1 x [200x544] e2m1: outside bound 0 (of 12800), bit-exact 12800
// EXACT: gpu mx matmul [128x256] e4m3 x [64x256] e4m3 acc: outside bound 0 (of 8192), bit-exact 8192
// EXACT: gpu mx matmul [127x96] e4m3 x [129x96] e5m2: outside bound 0 (of 16383), bit-exact 16383
// EXACT: gpu mx matmul [2x33x64] e5m2 x [2x65x64] e4m3 acc: outside bound 0 (of 4290), bit-exact 4290
// EXACT: gpu mx matmul [1x32] e5m2 x [1x32] e5m2: outside bound 0 (of 1), bit-exact 1
// EXACT: gpu mx matmul [64x544] e4m3 x [200x544] e4m3: outside bound 0 (of 12800), bit-exact 12800
// EXACT: gpu mx matmul [64x1536] e2m1 x [72x1536] e2m1: outside bound 0 (of 4608), bit-exact 4608
// EXACT: gpu mx matmul [96x1024] e4m3 x [80x1024] e5m2 acc: outside bound 0 (of 7680), bit-exact 7680
