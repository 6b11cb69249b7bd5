// The tcgen05 kernels through the nvfp4-to-ptx pipeline for sm_100a, sm_103a
// and sm_110a, the PTX written by nvfp4-translate --nvfp4-extract-ptx, and
// every kernel assembled by ptxas without spills.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefixes=PTX,PTX100
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefixes=PTX,PTX103
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefixes=PTX,PTX110
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX100:      .version 8.8
// PTX100:      .target sm_100a
// PTX103:      .version 8.8
// PTX103:      .target sm_103a
// PTX110:      .version 9.0
// PTX110:      .target sm_110a
// PTX:         .extern .shared .align 1024 .b8 __nvfp4_tcgen05_smem[];

// The kernels appear in reverse order of creation.

// N = 64: 6 stages (6 full barriers for the 32 producer lanes and the 32
// lanes of the scale warp, 6 empty + 2 accFull for tcgen05.commit, 2
// accEmpty for the 128 epilogue threads, 6 scaleStaged), 24576 TMA bytes per
// stage, 8 scale copies and 4 MMAs per K tile. The tensor maps are byval
// grid-constant parameters (128 bytes, 64-byte aligned): the prefetches
// read the parameter space, the TMA loads take the parameter's generic
// address (cvta.param); no map in global memory. The 16x16 A scales are
// staged: their map (the third parameter map) is loaded into the A atoms
// on the scaleStaged barrier, and the scale warp (224 threads; its code
// follows the MMA thread's) expands them: 4 16-byte shared loads, a warp sync, 4 16-byte shared stores, the
// proxy fence.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a(
// PTX:         .param .align 64 .b8 nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_7[128],
// PTX:         .param .align 64 .b8 nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_15[128],
// PTX:         .param .align 64 .b8 nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_24[128],
// PTX:         .maxntid 224, 1, 1
// PTX-NEXT:    .minnctapersm 1
// PTX:         mov.b64 [[BPARAM:%rd[0-9]+]], nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_24;
// PTX-NEXT:    cvta.param.u64 [[BMAP:%rd[0-9]+]], [[BPARAM]];
// PTX-NEXT:    mov.b64 [[SPARAM:%rd[0-9]+]], nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_15;
// PTX-NEXT:    cvta.param.u64 [[SMAP:%rd[0-9]+]], [[SPARAM]];
// PTX-NEXT:    mov.b64 [[APARAM:%rd[0-9]+]], nvfp4_tcgen05_matmul_m128n192k256_t64_16x16_1x16_f32_sfstaged_a_param_7;
// PTX-NEXT:    cvta.param.u64 [[AMAP:%rd[0-9]+]], [[APARAM]];
// PTX:         prefetch.param.tensormap [[[APARAM]]];
// PTX-NEXT:    prefetch.param.tensormap [[[BPARAM]]];
// PTX-NEXT:    prefetch.param.tensormap [[[SPARAM]]];
// PTX:         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[AMAP]], {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX-NEXT:    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[BMAP]], {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+}}];
// PTX:         mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[STAGED:%rd[0-9]+\+[0-9]+]]], {{%r[0-9]+}};
// PTX-NEXT:    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[SMAP]], {{[{]}}{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[STAGED]]];
// PTX-COUNT-8: tcgen05.cp.cta_group::1.32x128b.warpx4
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// PTX-NOT:     tcgen05.mma
// PTX:         tcgen05.commit
// PTX-COUNT-4: ld.shared.v4.b32
// PTX-NEXT:    bar.warp.sync -1;
// PTX-COUNT-4: st.shared.v4.b32
// PTX-NEXT:    fence.proxy.async.shared::cta;
// PTX:         tcgen05.dealloc.cta_group::1.sync.aligned.b32

// N = 128 (batched, bf16 with an accumulator input, staged 16x16 B
// scales): 6 stages, 2 accumulators.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_b2m128n384k512_t128_1x16_16x16_bf16_acc_sfstaged_b(
// PTX:         .maxntid 224, 1, 1
// PTX-NEXT:    .minnctapersm 1
// PTX:         mov.b32 [[LANES:%r[0-9]+]], 64;
// PTX-COUNT-6: mbarrier.init.shared.b64 [{{.*}}], [[LANES]];
// PTX-NEXT:    mov.b32 [[ONE:%r[0-9]+]], 1;
// PTX-COUNT-8: mbarrier.init.shared.b64 [{{.*}}], [[ONE]];
// PTX-NEXT:    mov.b32 [[THREADS:%r[0-9]+]], 128;
// PTX-COUNT-2: mbarrier.init.shared.b64 [{{.*}}], [[THREADS]];
// PTX-COUNT-6: mbarrier.init.shared.b64 [{{.*}}], [[ONE]];
// PTX:         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-8: tcgen05.cp.cta_group::1.32x128b.warpx4
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16
// PTX-NOT:     tcgen05.mma
// PTX:         tcgen05.commit
// PTX:         tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX:         cvt.rn.bf16x2.f32
// PTX:         tcgen05.dealloc.cta_group::1.sync.aligned.b32

// N = 256: 4 stages, one accumulator. The whole kernel in order: setup,
// the producer (scale rows, fence, arrival; its wait, expect_tx and TMA
// loads; the drain), the MMA issuer, the epilogue, the teardown.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_1x16_f32(
// PTX:         .maxntid 192, 1, 1
// PTX-NEXT:    .minnctapersm 1
// PTX:         mov.b32 [[LANES:%r[0-9]+]], 32;
// PTX-COUNT-4: mbarrier.init.shared.b64 [{{.*}}], [[LANES]];
// PTX-NEXT:    mov.b32 [[ONE:%r[0-9]+]], 1;
// PTX-COUNT-5: mbarrier.init.shared.b64 [{{.*}}], [[ONE]];
// PTX-NEXT:    mov.b32 [[THREADS:%r[0-9]+]], 128;
// PTX-NEXT:    mbarrier.init.shared.b64 [{{.*}}], [[THREADS]];
// PTX-NEXT:    fence.mbarrier_init.release.cluster;
// PTX:         tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// PTX:         tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// PTX:         tcgen05.fence::before_thread_sync;
// PTX-NEXT:    bar.sync 0;
// PTX-NEXT:    tcgen05.fence::after_thread_sync;
// PTX:         elect.sync
// PTX-COUNT-12: ld.global.v4.b32
// PTX:         fence.proxy.async.shared::cta;
// PTX-NEXT:    mbarrier.arrive.shared.b64
// PTX:         mbarrier.try_wait.parity.shared.b64
// PTX:         mov.b32 {{%r[0-9]+}}, 49152;
// PTX-NEXT:    mbarrier.expect_tx.relaxed.cta.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX:         mbarrier.try_wait.parity.shared.b64
// PTX:         elect.sync
// PTX:         mbarrier.try_wait.parity.shared.b64
// PTX:         tcgen05.fence::after_thread_sync;
// PTX:         mbarrier.try_wait.parity.shared.b64
// PTX:         tcgen05.fence::after_thread_sync;
// PTX-COUNT-12: tcgen05.cp.cta_group::1.32x128b.warpx4 [{{.*}}], {{.*}};
// PTX-COUNT-4: tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16.collector::a::discard [{{.*}}], {{.*}}, {{.*}}, {{.*}}, [{{.*}}], [{{.*}}], {{.*}};
// PTX-NOT:     tcgen05.mma
// PTX:         tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX:         tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX:         mbarrier.try_wait.parity.shared.b64
// PTX:         tcgen05.fence::after_thread_sync;
// PTX:         tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX:         tcgen05.wait::ld.sync.aligned;
// PTX-COUNT-4: st.global.v2.b64
// PTX:         tcgen05.fence::before_thread_sync;
// PTX-NEXT:    mbarrier.arrive.shared.b64
// PTX:         tcgen05.fence::before_thread_sync;
// PTX-NEXT:    bar.sync 0;
// PTX:         tcgen05.dealloc.cta_group::1.sync.aligned.b32
// PTX:         ret;

// PTXAS-COUNT-3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @f32_n256(%a: !nvfp4.tensor<256x1024, 1x16>,
                    %b: !nvfp4.tensor<512x1024, 1x16>) -> tensor<256x512xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x1024, 1x16>,
         !nvfp4.tensor<512x1024, 1x16> -> tensor<256x512xf32>
  return %c : tensor<256x512xf32>
}

func.func @batched_bf16_acc_n128(%a: !nvfp4.tensor<2x128x512, 1x16>,
                                 %b: !nvfp4.tensor<2x384x512, 16x16>,
                                 %acc: tensor<2x128x384xbf16>) -> tensor<2x128x384xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<2x128x384xbf16>)
         : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x384x512, 16x16>
         -> tensor<2x128x384xbf16>
  return %c : tensor<2x128x384xbf16>
}

func.func @f32_n64(%a: !nvfp4.tensor<128x256, 16x16>,
                   %b: !nvfp4.tensor<192x256, 1x16>) -> tensor<128x192xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 16x16>,
         !nvfp4.tensor<192x256, 1x16> -> tensor<128x192xf32>
  return %c : tensor<128x192xf32>
}
