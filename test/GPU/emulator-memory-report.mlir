// The GPU emulator's memory counters (NVFP4_GPU_EMULATOR_REPORT=1) on a
// hand-written kernel of one warp with known access patterns:
// - a contiguous f32 store (lane l writes element l): 1 request, 128 bytes
//   in 4 sectors, 100% coalesced;
// - a strided f32 store (lane l writes element 32 l): 1 request, 128 bytes
//   in 32 sectors;
// - together 2 global requests, 36 sectors, 256 bytes: 22.2% coalescing;
// - a shared store where lane l writes word 32 l (all in bank 0): 1 request,
//   32 wavefronts, 31 bank conflicts; then a conflict-free shared store of
//   word l (one per bank): 1 request, 1 wavefront.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" \
// RUN: | env NVFP4_GPU_EMULATOR_REPORT=1 %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 \
// RUN: | FileCheck %s
// CHECK: nvfp4-gpu-emulator: memory of patterns: global 2 requests, 36 sectors, 256 bytes, coalescing 22.2%; shared 2 requests, 33 wavefronts, 31 bank conflicts, 256 bytes; cp.async 0 bytes in 0 copies, TMA 0 bytes
//
// The tcgen05 kernel on the 256x512 x 384x512 GEMM (128x128 tiles, 2 x 3
// tiles of 2 K tiles): TMA moves 6 x 2 x (128 + 128) x 128 = 393,216 bytes
// of A and B, plus the staged 16x16 B scales, 6 x 2 x 8 rows x 16 bytes =
// 1,536; the CTA pair (256x128 tiles) loads each B row once per cluster:
// 3 x 2 x (256 + 128) x 128 = 294,912, and each CTA stages the 8 B scale
// rows of the tile, 3 x 2 x 2 x 128 = 1,536. The global requests are the
// epilogue's stores of whole rows through its staging buffers (4 lanes per
// 64-byte row, fully coalesced) and the producer lanes' 16-byte loads of
// the row-major A scales (16 of each 32-byte row sector): 94.4%. Neither
// the staging, the producer's 16-byte scale stores nor the scale warp's
// expansion conflict.
// RUN: for options in "target=sm_100a" "target=sm_100a tcgen05-cta-pair=on"; do \
// RUN:   nvfp4-opt %S/Inputs/matmul-tile-cases.mlir --nvfp4-to-gpu-emulation="$options" \
// RUN:   | env NVFP4_GPU_EMULATOR_REPORT=1 %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib 2>&1; \
// RUN: done | FileCheck %s --check-prefix=TMA
// TMA: memory of nvfp4_tcgen05_matmul_m256n384k512_t128_1x16_16x16_f32_sfstaged_b: global 816 requests, 13824 sectors, 417792 bytes, coalescing 94.4%; {{.*}} 0 bank conflicts, {{.*}} TMA 394752 bytes
// TMA: memory of nvfp4_tcgen05_matmul_m256n384k512_t128_pair_1x16_16x16_f32_sfstaged_b: global 816 requests, 13824 sectors, 417792 bytes, coalescing 94.4%; {{.*}} 0 bank conflicts, {{.*}} TMA 296448 bytes
//
// Few-row GEMMs (Inputs/matmul-few-rows-cases.mlir) run as their transposed
// product, whose kernel stores the result and reads the accumulator
// transposed, element by element: lane l's element of a column is next to
// lane l + 1's, so every store and load moves whole sectors, f32 and bf16
// alike (the shape's rows are 16-byte aligned). Bit-exact, with no
// transpose on the host. (The batched 32-row case is ragged in the 64-wide
// tile: its loads past N all read element 0, which counts above 100%.)
// RUN: nvfp4-opt %S/Inputs/matmul-few-rows-cases.mlir --nvfp4-to-gpu-emulation="target=sm_100a" \
// RUN: | env NVFP4_GPU_EMULATOR_REPORT=1 %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib 2>&1 \
// RUN: | tee %t.few-rows.txt | FileCheck %s --check-prefix=FEW
// RUN: FileCheck %S/Inputs/matmul-few-rows-cases.mlir --input-file=%t.few-rows.txt
// FEW: memory of nvfp4_tcgen05_matmul_m512n64k256_t64_1x16_1x16_f32_transposed: global 1048 requests, 4480 sectors, 143360 bytes, coalescing 100.0%;
// FEW: memory of nvfp4_tcgen05_matmul_m512n64k256_t64_16x16_1x16_f32_acc_sfstaged_a_transposed: global 2056 requests, 8320 sectors, 266240 bytes, coalescing 100.0%;
// FEW: memory of nvfp4_tcgen05_matmul_m512n64k256_t64_1x16_16x16_bf16_sfstaged_b_transposed: global 1040 requests, 2304 sectors, 73728 bytes, coalescing 100.0%;
// FEW: memory of nvfp4_tcgen05_matmul_b2m256n32k256_t64_1x16_1x16_f32_acc_transposed:
//
// The mma.sync kernels (sm_120a) on the 128x128 and 128x256 tiles, on every
// MX case (ragged shapes, K residues, 16-, 8- and 4-byte scale groups,
// ungrouped MXFP8 rows) and on both NVFP4 tile cases: each lane's packed
// scale register reads 32 consecutive rows of a scale slot (rows of 4
// bytes or more, no wider than a copy), and ldmatrix reads swizzled rows,
// so no shared-memory access conflicts. (MX rows of 4 bytes in 8-byte slot
// rows had a 2-way conflict on every scale load.)
// RUN: for tile in 128x128 128x256; do \
// RUN:   for cases in matmul-mx-cases matmul-tile-cases; do \
// RUN:     nvfp4-opt %S/Inputs/$cases.mlir --nvfp4-to-gpu-emulation="target=sm_120a tile=$tile" \
// RUN:     | env NVFP4_GPU_EMULATOR_REPORT=1 %mlir_runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib,%nvfp4_cpu_runtime_lib 2>&1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=MMA
// MMA-COUNT-30: memory of nvfp4_matmul_{{[a-z0-9_]*}}_t128x{{128|256}}: global {{.*}}; shared {{[0-9]+}} requests, {{[0-9]+}} wavefronts, 0 bank conflicts,
// MMA-NOT:      bank conflicts

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @patterns(%out: memref<1024xf32>) workgroup(%buf : memref<1024xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %strided = arith.muli %tid, %c32 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %out[%tid] : memref<1024xf32>
      memref.store %one, %out[%strided] : memref<1024xf32>
      memref.store %one, %buf[%strided] : memref<1024xf32, #gpu.address_space<workgroup>>
      memref.store %one, %buf[%tid] : memref<1024xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
  func.func @main() {
    %m = memref.alloc() : memref<1024xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@patterns blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%m : memref<1024xf32>)
    return
  }
}
