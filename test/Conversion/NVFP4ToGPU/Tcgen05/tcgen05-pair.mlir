// The CTA-pair variant of the tcgen05 kernel (tcgen05.mma.cta_group::2,
// 256 x N tiles, clusters of 2 CTAs) and what stays 1-CTA: the selection
// rule of tcgen05-cta-pair=auto, the host code of a cluster launch, the
// kernel's cta_group::2 operations, and ptxas without spills for sm_100a,
// sm_103a and sm_110a.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major tcgen05-cta-pair=on" --split-input-file | FileCheck %s --check-prefix=ON
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" --split-input-file | FileCheck %s --check-prefix=AUTO
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major tcgen05-cta-pair=off" --split-input-file | FileCheck %s --check-prefix=OFF

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major tcgen05-cta-pair=on" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major tcgen05-cta-pair=on" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major tcgen05-cta-pair=on" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Every kernel assembles without spills.
// PTXAS-NOT:   bytes spill stores
// PTXAS:       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

// 256 x 256 x 512, forced pair. Host: the B box is N / 2 = 128 rows (each
// CTA loads its half of B), the grid is 2 * min(#tiles, max(#SMs / 2, 1))
// CTAs in clusters of (2, 1, 1).
// ON-LABEL:    func.func @pair_f32(
// ON:            llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c128_i32{{.*}}, %c128_i32{{.*}}, %c3_i32
// ON:            llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c256_i64{{.*}}, %c128_i32{{.*}}, %c128_i32{{.*}}, %c3_i32
// ON:            %[[SMS:.*]] = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
// ON:            %[[HALF:.*]] = arith.divui %[[SMS]], %c2_i32 : i32
// ON:            %[[SLOTS:.*]] = arith.maxui %[[HALF]], %c1_i32 : i32
// ON:            %[[PAIRS:.*]] = arith.minui %[[SLOTS]], %c1_i32{{.*}} : i32
// ON:            %[[CTAS:.*]] = arith.muli %[[PAIRS]], %c2_i32{{.*}} : i32
// ON:            %[[GRID:.*]] = arith.index_castui %[[CTAS]] : i32 to index
// ON:            gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_pair_1x16_1x16_f32 clusters in (%c2, %c1{{.*}}, %c1{{.*}}) blocks in (%[[GRID]], %c1{{.*}}, %c1{{.*}}) threads in (%c192,
// ON-SAME:       dynamic_shared_memory_size %c204032_i32
// Device: a cluster of 2 along x; the schedule is per cluster; M = 256
// instruction descriptor 0x10400480.
// ON:          gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_pair_1x16_1x16_f32(
// ON-SAME:       nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.minctasm = 1 : i32
// ON-DAG:        %[[IDESC:.*]] = arith.constant 272630912 : i32
// ON:            %[[CLUSTER:.*]] = nvvm.read.ptx.sreg.clusterid.x : i32
// ON-NEXT:       %[[NCLUSTER:.*]] = nvvm.read.ptx.sreg.nclusterid.x : i32
// ON-NEXT:       %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// ON-NEXT:       %[[ISLEADER:.*]] = arith.cmpi eq, %[[RANK]], %c0_i32 : i32
// 5 stages: full[5] count the 64 producer lanes of both CTAs, accEmpty[1]
// the 256 epilogue threads of both.
// ON-COUNT-5:      nvvm.mbarrier.init %{{.*}}, %c64_i32
// ON-COUNT-6:      nvvm.mbarrier.init %{{.*}}, %c1_i32
// ON:              nvvm.mbarrier.init %{{.*}}, %c256_i32
// ON:              nvvm.tcgen05.alloc %{{.*}}, %c512_i32 {group = #nvvm.cta_group<cta_2>}
// ON-NEXT:         nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// ON:            nvvm.tcgen05.fence <before>
// ON-NEXT:       nvvm.cluster.arrive
// ON-NEXT:       nvvm.cluster.wait
// ON-NEXT:       nvvm.tcgen05.fence <after>
// Producer: waits on its own empty barrier (acquire.cluster); announces its
// own 32768 bytes on the leader's full barrier (mapa to rank 0) and loads
// into its own shared memory with the cta_group::2 TMA signalling that
// barrier; arrives there with release.cluster after its scale stores.
// ON:              nvvm.mbarrier.try_wait %{{.*}} {scope = #nvvm.mem_scope<cluster>}
// ON:              %[[FULL:.*]] = nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// ON:                nvvm.mbarrier.expect_tx %[[FULL]], %c32768_i32 {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
// ON:                nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {group = #nvvm.cta_group<cta_2>}
// ON:                nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} {group = #nvvm.cta_group<cta_2>}
// ON:              nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// ON-NEXT:         nvvm.mbarrier.arrive %[[FULL]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// MMA: only the leader's elected thread; cta_group::2 copies, MMAs and
// commits multicast to both CTAs (mask 0b11).
// ON:            %[[LEADERMMA:.*]] = arith.andi %{{.*}}, %[[ISLEADER]] : i1
// ON-NEXT:       scf.if %[[LEADERMMA]] {
// ON:                nvvm.tcgen05.cp {{.*}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// ON:                nvvm.tcgen05.mma.block_scale {{.*}}, %[[IDESC]], {{.*}} {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
// ON:                nvvm.tcgen05.commit %{{.*}}, multicast_mask = %c3_i16 {group = #nvvm.cta_group<cta_2>}
// ON:              nvvm.tcgen05.commit %{{.*}}, multicast_mask = %c3_i16 {group = #nvvm.cta_group<cta_2>}
// Epilogue: this CTA's 128 rows start at 256 m + 128 rank; it releases the
// accumulator on the leader's accEmpty barrier.
// ON:              nvvm.tcgen05.ld
// ON:            nvvm.tcgen05.fence <before>
// ON:            %[[LACC:.*]] = nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// ON-NEXT:       nvvm.mbarrier.arrive %[[LACC]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// Teardown: a cluster barrier before the cta_group::2 dealloc.
// ON:          nvvm.tcgen05.fence <before>
// ON-NEXT:     nvvm.cluster.arrive
// ON-NEXT:     nvvm.cluster.wait
// ON:            nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 {group = #nvvm.cta_group<cta_2>}

// 2 tiles of 256 x 256 are too few for the rule (74): auto keeps the
// 1-CTA kernel, as does off.
// AUTO-LABEL:  func.func @pair_f32(
// AUTO:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32 blocks in
// OFF-LABEL:   func.func @pair_f32(
// OFF:           gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32 blocks in
// OFF:         gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32(
// OFF-NOT:       nvvm.cluster_dim
// OFF:           nvvm.tcgen05.alloc %{{.*}}, %c512_i32 : !llvm.ptr<3>, i32

// The kernels appear in reverse order of creation.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_bf16_sfstaged_b_nvfp4(
// PTX:         .reqnctapercluster 2, 1, 1
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m256n256k512_t256_pair_1x16_1x16_f32(
// PTX:         .reqnctapercluster 2, 1, 1
// PTX:         tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// PTX:         tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// PTX:         barrier.cluster.arrive;
// PTX-NEXT:    barrier.cluster.wait;
// PTX:         mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX:         mapa.shared::cluster
// PTX:         mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64
// PTX:         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// PTX:         mbarrier.try_wait.parity.acquire.cluster.shared.b64
// PTX:         tcgen05.cp.cta_group::2.32x128b.warpx4
// PTX:         tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16
// PTX:         tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// PTX:         tcgen05.dealloc.cta_group::2.sync.aligned
func.func @pair_f32(%a: !nvfp4.tensor<256x512, 1x16>,
                    %b: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>,
         !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// 16 x 5 = 80 tiles of 256 x 256: auto takes the pair, with the NVFP4
// epilogue (each CTA quantizes its own 128 rows).
// ON-LABEL:    func.func @large_nvfp4_epilogue(
// ON:            gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_bf16_sfstaged_b_nvfp4 clusters in (%c2,
// AUTO-LABEL:  func.func @large_nvfp4_epilogue(
// AUTO:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_bf16_sfstaged_b_nvfp4 clusters in (%c2,
// AUTO:        gpu.func @nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_bf16_sfstaged_b_nvfp4(
// AUTO-SAME:     nvvm.cluster_dim = array<i32: 2, 1, 1>
func.func @large_nvfp4_epilogue(%a: !nvfp4.tensor<4096x256, 1x16>,
                                %b: !nvfp4.tensor<1280x256, 16x16>,
                                %amax: f32) -> !nvfp4.tensor<4096x1280, 1x16> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<4096x256, 1x16>,
         !nvfp4.tensor<1280x256, 16x16> -> tensor<4096x1280xbf16>
  %q = nvfp4.quantize %y amax %amax : tensor<4096x1280xbf16>
         -> !nvfp4.tensor<4096x1280, 1x16>
  return %q : !nvfp4.tensor<4096x1280, 1x16>
}
