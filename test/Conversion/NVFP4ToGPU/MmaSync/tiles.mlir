// CTA tile selection and the four tiles of the sm_120a / sm_121a / sm_90a
// matmul kernel, down to PTX and through ptxas for every target.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=SELECT
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a tile=64x64" | FileCheck %s --check-prefix=FORCED
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a tile=64x64" | FileCheck %s --check-prefix=PIPELINE

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefixes=PTX,PTX-FP4
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefixes=PTX,PTX-FP4
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefixes=PTX,PTX-BF16
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm_90a.ptx -o %t.sm_90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Selection: a dimension gets a 128-wide tile when it is a multiple of 128
// and at least 256. Grid (N / tileN, M / tileM, batch); 128 threads for
// 64x64, 256 for the others. Shared memory: 4 stages of A and B, then 3
// scale slots of 16-byte rows (K is a multiple of 256: the scales come in
// 16-byte groups of two steps) holding A's tile rows and B's compact rows
// (16x16 blocks: one per 16 tile rows), e.g. 64x64:
// 4 x 128 x 64 + 3 x 64 x 16 + 3 x 4 x 16 = 36032; 128x64:
// 4 x 192 x 64 + 3 x 128 x 16 + 3 x 4 x 16 = 55488; 64x128:
// 4 x 192 x 64 + 3 x 64 x 16 + 3 x 8 x 16 = 52608; 128x128:
// 4 x 256 x 64 + 3 x 128 x 16 + 3 x 8 x 16 = 72064.
// SELECT-LABEL: func.func @small(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n128k1024_1x16_16x16_f32
// SELECT-SAME:      blocks in (%c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %{{.*}}) threads in (%c128{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c36032_i32
// SELECT-LABEL: func.func @tall(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m512n64k1024_1x16_16x16_f32_t128x64
// SELECT-SAME:      blocks in (%c1{{(_[0-9]+)?}}, %c4{{(_[0-9]+)?}}, %{{.*}}) threads in (%c256{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c55488_i32
// SELECT-LABEL: func.func @wide(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m192n256k1024_1x16_16x16_f32_t64x128
// SELECT-SAME:      blocks in (%c2{{(_[0-9]+)?}}, %c3{{(_[0-9]+)?}}, %{{.*}}) threads in (%c256{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c52608_i32
// SELECT-LABEL: func.func @large(
// SELECT:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_b2m256n256k2048_1x16_16x16_bf16_acc_t128x128
// SELECT-SAME:      blocks in (%c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}, %c2{{(_[0-9]+)?}}) threads in (%c256{{(_[0-9]+)?}}, {{.*}} dynamic_shared_memory_size %c72064_i32
// Kernels: workgroup slots and block size per tile, and the MMAs of one
// loop iteration: two K steps (one group of B's scales).
// (in the order the kernels are generated)
// SELECT:       gpu.func @nvfp4_matmul_b2m256n256k2048_1x16_16x16_bf16_acc_t128x128(
// SELECT-SAME:    known_block_size = array<i32: 256, 1, 1>
// SELECT-COUNT-64: nvvm.mma.block_scale
// SELECT-NOT:     nvvm.mma.block_scale
// SELECT:       gpu.func @nvfp4_matmul_m192n256k1024_1x16_16x16_f32_t64x128(
// SELECT-SAME:    known_block_size = array<i32: 256, 1, 1>
// SELECT-COUNT-32: nvvm.mma.block_scale
// SELECT-NOT:     nvvm.mma.block_scale
// SELECT:       gpu.func @nvfp4_matmul_m512n64k1024_1x16_16x16_f32_t128x64(
// SELECT-SAME:    known_block_size = array<i32: 256, 1, 1>
// SELECT-COUNT-32: nvvm.mma.block_scale
// SELECT-NOT:     nvvm.mma.block_scale
// SELECT:       gpu.func @nvfp4_matmul_m128n128k1024_1x16_16x16_f32(
// SELECT-SAME:    known_block_size = array<i32: 128, 1, 1>
// SELECT-COUNT-32: nvvm.mma.block_scale
// SELECT-NOT:     nvvm.mma.block_scale

// A forced tile applies to every matmul of the module.
// FORCED-LABEL: func.func @small(
// FORCED:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n128k1024_1x16_16x16_f32 blocks
// FORCED-LABEL: func.func @tall(
// FORCED:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m512n64k1024_1x16_16x16_f32 blocks
// FORCED-LABEL: func.func @wide(
// FORCED:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m192n256k1024_1x16_16x16_f32 blocks
// FORCED-LABEL: func.func @large(
// FORCED:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_b2m256n256k2048_1x16_16x16_bf16_acc blocks
// FORCED-NOT:   _t{{[0-9]+}}x
// FORCED-NOT:   known_block_size = array<i32: 256

// The pipelines pass the option on.
// PIPELINE-NOT: _t{{[0-9]+}}x{{[0-9]+}}
// PIPELINE:     gpu.binary @nvfp4_kernels

// Every tile: its block size, dynamic shared memory, cp.async staging and
// MMAs per warp and loop iteration (sm_120a: two K steps, a group of B's
// scales; sm_90a: one).
// PTX:           .extern .shared .align 16 .b8 __nvfp4_mma_sync_smem[];
// PTX-LABEL:     .visible .entry nvfp4_matmul_b2m256n256k2048_1x16_16x16_bf16_acc_t128x128(
// PTX:           .maxntid 256, 1, 1
// PTX:           cp.async.cg.shared.global
// sm_90a: the scales take 8-byte copies (one per slot row and step: A's
// 128 rows and B's 8 compact rows, in one job list of shared slots);
// sm_120a: both operands' scales come in 16-byte groups of two steps.
// PTX-BF16:      cp.async.ca.shared.global [{{%rd[0-9]+(\+[0-9]+)?}}], [{{%rd[0-9]+}}], 8;
// PTX-FP4-NOT:   cp.async.ca
// PTX:           cp.async.commit_group;
// PTX-FP4-COUNT-64: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX-BF16-COUNT-128: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:       mma.sync
// PTX:           cp.async.wait_group 0;
// PTX:           ret;
// PTX-LABEL:     .visible .entry nvfp4_matmul_m192n256k1024_1x16_16x16_f32_t64x128(
// PTX:           .maxntid 256, 1, 1
// PTX:           cp.async.cg.shared.global
// PTX-FP4-COUNT-32: mma.sync.aligned.m16n8k64
// PTX-BF16-COUNT-64: mma.sync.aligned.m16n8k16
// PTX-NOT:       mma.sync
// PTX:           ret;
// PTX-LABEL:     .visible .entry nvfp4_matmul_m512n64k1024_1x16_16x16_f32_t128x64(
// PTX:           .maxntid 256, 1, 1
// PTX:           cp.async.cg.shared.global
// PTX-FP4-COUNT-32: mma.sync.aligned.m16n8k64
// PTX-BF16-COUNT-64: mma.sync.aligned.m16n8k16
// PTX-NOT:       mma.sync
// PTX:           ret;
// PTX-LABEL:     .visible .entry nvfp4_matmul_m128n128k1024_1x16_16x16_f32(
// PTX:           .maxntid 128, 1, 1
// PTX:           cp.async.cg.shared.global
// PTX-FP4-COUNT-32: mma.sync.aligned.m16n8k64
// PTX-BF16-COUNT-64: mma.sync.aligned.m16n8k16
// PTX-NOT:       mma.sync
// PTX:           ret;

// No kernel spills, on any target.
// PTXAS-DAG:     Compiling entry function 'nvfp4_matmul_m128n128k1024_1x16_16x16_f32'
// PTXAS-DAG:     Compiling entry function 'nvfp4_matmul_m512n64k1024_1x16_16x16_f32_t128x64'
// PTXAS-DAG:     Compiling entry function 'nvfp4_matmul_m192n256k1024_1x16_16x16_f32_t64x128'
// PTXAS-DAG:     Compiling entry function 'nvfp4_matmul_b2m256n256k2048_1x16_16x16_bf16_acc_t128x128'
// PTXAS-NOT:     {{[1-9][0-9]* bytes spill}}
// PTXAS-NOT:     {{[1-9][0-9]* bytes stack frame}}

func.func @small(%a: !nvfp4.tensor<128x1024, 1x16>, %b: !nvfp4.tensor<128x1024, 16x16>) -> tensor<128x128xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x1024, 1x16>, !nvfp4.tensor<128x1024, 16x16> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}

func.func @tall(%a: !nvfp4.tensor<512x1024, 1x16>, %b: !nvfp4.tensor<64x1024, 16x16>) -> tensor<512x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<512x1024, 1x16>, !nvfp4.tensor<64x1024, 16x16> -> tensor<512x64xf32>
  return %c : tensor<512x64xf32>
}

func.func @wide(%a: !nvfp4.tensor<192x1024, 1x16>, %b: !nvfp4.tensor<256x1024, 16x16>) -> tensor<192x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<192x1024, 1x16>, !nvfp4.tensor<256x1024, 16x16> -> tensor<192x256xf32>
  return %c : tensor<192x256xf32>
}

func.func @large(%a: !nvfp4.tensor<2x256x2048, 1x16>, %b: !nvfp4.tensor<2x256x2048, 16x16>,
                 %acc: tensor<2x256x256xbf16>) -> tensor<2x256x256xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<2x256x256xbf16>)
         : !nvfp4.tensor<2x256x2048, 1x16>, !nvfp4.tensor<2x256x2048, 16x16> -> tensor<2x256x256xbf16>
  return %c : tensor<2x256x256xbf16>
}
