// The whole GPU path down to PTX text: convert-nvfp4-to-gpu, the upstream
// lowering, and gpu-module-to-binary{format=isa}. The PTX is taken out of the
// gpu.binary's (escaped) assembly string.

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_120a features=+ptx87},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefixes=PTX,PTX120
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_121a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_121a features=+ptx88},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefixes=PTX,PTX121
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX120:      .version 8.7
// PTX120:      .target sm_120a
// PTX121:      .version 8.8
// PTX121:      .target sm_121a

// M = 256, N = 128 selects the 128x64 tile (8 warps). Staging: 4 pipeline
// slots of the A tile (128 rows x 64 bytes) and the B tile (64 x 64), then
// 3 scale slots of 16-byte groups of two steps, each holding A's 128 rows
// then B's 4 compact rows (16x16 blocks), in dynamic shared memory, filled
// by cp.async; one barrier per K step, two K steps per loop iteration;
// fragments by ldmatrix; the group's first step loads the lane's packed A
// and B scale registers whole (16 bytes each, held for both steps).
// PTX:         .extern .shared .align 16 .b8 __nvfp4_mma_sync_smem[];
// PTX-LABEL:   .visible .entry nvfp4_matmul_m256n128k1024_1x16_16x16_f32_t128x64(
// PTX:         .maxntid 256, 1, 1
// PTX-NOT:     ld.global
// Prologue: steps 0, 1 and 2 (A vectors, B vectors, and with steps 0 and
// 2 the scale groups: one job list of A's 128 rows and B's 4, threads
// 0..131), all by 16-byte copies.
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX:         cp.async.cg.shared.global [{{.*}}+49152], [{{.*}}], 16;
// PTX-NOT:     cp.async.ca
// PTX:         cp.async.commit_group;
// PTX:         cp.async.commit_group;
// PTX:         cp.async.cg.shared.global [{{.*}}+51264], [{{.*}}+16], 16;
// PTX:         cp.async.commit_group;
// PTX-NOT:     bar.sync
// The loop's second step (LLVM places it first) loads no scales: the
// group's are held. 8 ldmatrix.x4 and 16 MMAs.
// PTX-NOT:     ld.shared.v
// PTX:         ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-NOT:     ld.shared.v
// PTX:         mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX-COUNT-15: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX-NOT:     mma.sync
// PTX:         cp.async.wait_group 2;
// PTX-NEXT:    bar.sync 0;
// PTX-NOT:     bar.sync
// PTX:         cp.async.cg.shared.global
// The group's first step: one 16-byte load of the lane's packed A scale
// register (A's rows from 49152) and one of B's (its compact rows from
// 49152 + 128 x 16 = 51200).
// PTX:         ld.shared.v4.b32 {{.*}}+49152];
// PTX-NOT:     ld.shared
// PTX:         ld.shared.v4.b32 {{.*}}+51200];
// PTX-NOT:     ld.shared.v
// PTX:         cp.async.wait_group 0;
// PTX-NOT:     bar.sync
// PTX-NOT:     ld.shared
// PTX:         st.global.v2.b32
// PTX:         ret;

// K = 512: two groups of two steps, the loop's two iterations unrolled by
// LLVM; each group's first step loads the lane's two packed scale
// registers (A's, B's).
// PTX-LABEL:   .visible .entry nvfp4_matmul_b2m128n128k512_1x16_16x16_bf16_acc(
// PTX-COUNT-2: ld.shared.v4.b32
// PTX-COUNT-32: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX-COUNT-2: ld.shared.v4.b32
// PTX-COUNT-32: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX-NOT:     mma.sync
// PTX:         ld.global.v2.b16
// PTX:         cvt.rn.bf16x2.f32
// PTX:         st.global.b32
// PTX:         ret;

// Every kernel assembles without spills.
// PTXAS:       Compiling entry function 'nvfp4_matmul_b2m128n128k512_1x16_16x16_bf16_acc'
// PTXAS:       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS:       Compiling entry function 'nvfp4_matmul_m256n128k1024_1x16_16x16_f32_t128x64'
// PTXAS:       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @batched_bf16_acc(%a: !nvfp4.tensor<2x128x512, 1x16>,
                            %b: !nvfp4.tensor<2x128x512, 16x16>,
                            %acc: tensor<2x128x128xbf16>) -> tensor<2x128x128xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<2x128x128xbf16>)
         : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x128x512, 16x16>
         -> tensor<2x128x128xbf16>
  return %c : tensor<2x128x128xbf16>
}

func.func @f32(%a: !nvfp4.tensor<256x1024, 1x16>,
               %b: !nvfp4.tensor<128x1024, 16x16>) -> tensor<256x128xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>,
         !nvfp4.tensor<128x1024, 16x16> -> tensor<256x128xf32>
  return %c : tensor<256x128xf32>
}
