// The 128 x 256 CTA tile of the sm_120a / sm_121a mma.sync kernel: selected
// for a 128-row tile when N is a multiple of 256 and at least 512; 8 warps
// of 64 x 64 outputs, 3 pipeline stages (77 to 83 KiB of dynamic shared memory;
// 4 would exceed sm_120a's 99 KiB). sm_90a (dequantizing in registers)
// keeps 128 x 128 (and rejects the forced tile: tile-invalid.mlir).

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=SELECT
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" | FileCheck %s --check-prefix=SM90
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Grid (N / 256, M / 128); 256 threads; 3 x 24576 bytes of A and B, 2 x 2048
// of A scale groups, 2 x 256 of B scale groups (B's 16x16 blocks: one
// compact 16-byte row per 16 tile rows): 78336 bytes.
// SELECT-LABEL: func.func @xwide(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n512k1024_1x16_16x16_f32_t128x256
// SELECT-SAME:      blocks in (%c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %{{.*}}) threads in (%c256{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c78336_i32
// N = 640 is not a multiple of 256: 128 x 128.
// SELECT-LABEL: func.func @not_multiple(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n640k256_1x16_1x16_f32_t128x128
// Per K step and warp: 2 K slices of 4 x 8 MMAs; two K steps per loop
// iteration (one group of B's scales).
// SELECT:       gpu.func @nvfp4_matmul_m256n512k1024_1x16_16x16_f32_t128x256(
// SELECT-SAME:    known_block_size = array<i32: 256, 1, 1>
// SELECT:         scf.for
// SELECT-COUNT-128: nvvm.mma.block_scale
// SELECT-NOT:     nvvm.mma.block_scale

// SM90-LABEL: func.func @xwide(
// SM90:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n512k1024_1x16_16x16_f32_t128x128

// The K loop: wait for all but stages - 2 = 1 group, barrier; per step 16
// ldmatrix.x4 (4 A blocks and 4 B column pairs per slice) for 64 MMAs. A
// and B share their scale slots (both in groups of two steps, 16-byte
// rows): from 3 x 24576 = 73728 on, slot s holds A's 128 rows, then B's 16,
// so B's rows of slot 0 start at 73728 + 128 x 16 = 75776. The group's
// first step loads each lane's 4 packed scale registers whole: A's two
// (each serving two 16-row blocks: 32 rows, 512 bytes apart) and B's two
// (each serving four 8-column blocks: 2 compact rows, 32 bytes apart), 4
// shared loads for the group's 128 MMAs; the second step loads no scales.
// (LLVM places the loop's second step first.)
// PTX-LABEL:     .visible .entry nvfp4_matmul_m256n512k1024_1x16_16x16_f32_t128x256(
// PTX:           .maxntid 256, 1, 1
// PTX-NOT:       ld.shared
// PTX-COUNT-16:  ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT:       ld.shared
// PTX:           cp.async.wait_group 1;
// PTX-NEXT:      bar.sync 0;
// PTX:           ld.shared.v4.b32 {{.*}}, [[[ASCALES:%rd[0-9]+]]+73728];
// PTX-NEXT:      ld.shared.v4.b32 {{.*}}, [[[ASCALES]]+74240];
// PTX-NOT:       ld.shared
// PTX:           ld.shared.v4.b32 {{.*}}, [[[BSCALES:%rd[0-9]+]]+75776];
// PTX-NEXT:      ld.shared.v4.b32 {{.*}}, [[[BSCALES]]+75808];
// PTX-NOT:       ld.shared
// PTX-COUNT-16:  ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT:       ld.shared
// PTX:           cp.async.wait_group 1;
// PTX-NEXT:      bar.sync 0;
// PTX-NOT:       ld.shared
// PTX:           cp.async.wait_group 0;
// PTX:           ret;

// PTXAS:         Compiling entry function 'nvfp4_matmul_m256n512k1024_1x16_16x16_f32_t128x256'
// PTXAS-NEXT:    Function properties
// PTXAS-NEXT:    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @xwide(%a: !nvfp4.tensor<256x1024, 1x16>, %b: !nvfp4.tensor<512x1024, 16x16>) -> tensor<256x512xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}

func.func @not_multiple(%a: !nvfp4.tensor<256x256, 1x16>, %b: !nvfp4.tensor<640x256, 1x16>) -> tensor<256x640xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x256, 1x16>, !nvfp4.tensor<640x256, 1x16> -> tensor<256x640xf32>
  return %c : tensor<256x640xf32>
}
