// The tcgen05 kernels (1-CTA and CTA pair) that read scale atoms by bulk
// copy, and the kernels
// that write them (quantize kernels, NVFP4 epilogue), through nvfp4-to-ptx
// for sm_100a, sm_103a and sm_110a, assembled by ptxas without spills.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The kernels appear in reverse order of creation; `_byref3_7` marks the
// copies that read the amaxes of A (operand 3) and B (operand 7) from the
// buffers the quantize kernels left them in
// (nvfp4-keep-kernel-scalars-on-device). Per K tile, the elected
// producer lane announces the TMA bytes plus 2 KiB per 128-row block of
// scales and issues one bulk copy per block; tcgen05.cp reads the atoms as
// before.

// N = 256 with the NVFP4 epilogue writing atoms: 49152 + 3 x 2048 bytes
// (the four K tiles unrolled).
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m256n512k1024_t256_1x16_16x16_f32_sfatoms_ab_nvfp4_sfatoms_byref3_7(
// PTX:         mov.b32 {{%r[0-9]+}}, 55296;
// PTX:         mbarrier.expect_tx.relaxed.cta.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-3: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [{{%rd[0-9]+}}], {{%r[0-9]+}}, [{{%rd[0-9]+}}];
// PTX-NOT:     fence.proxy.async
// PTX:         mbarrier.arrive

// N = 128 (1024 x 384 x 4096, bf16): A and B atoms, 32768 + 2 x 2048 bytes.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m1024n384k4096_t128_1x16_16x16_bf16_sfatoms_ab_byref3_7(
// PTX:         mov.b32 {{%r[0-9]+}}, 36864;
// PTX-NEXT:    mbarrier.expect_tx.relaxed.cta.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-COUNT-2: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-NOT:     fence.proxy.async
// PTX:         mbarrier.arrive

// CTA pairs (4096 x 1280 x 256, 80 tiles of 256 x 256: the auto rule takes
// the pair). A atoms, B compact: the peer's scaleFull[5] at 194656 (1
// arrival); the leader expects 32768 + 2048 bytes on its full barrier, the
// peer 32768 there and 2048 on its scaleFull by arrive.expect_tx; the copy
// completes on full[s] or scaleFull[s] (selp); the peer's lanes wait on
// scaleFull[s] before the release.cluster arrival on the leader.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_1x16_f32_sfatoms_a_byref3(
// PTX:         mbarrier.init.shared.b64 [{{%rd[0-9]+}}+194656]
// PTX-COUNT-4: mbarrier.init.shared.b64
// PTX-NEXT:    fence.mbarrier_init.release.cluster;
// PTX:         selp.b32 {{%r[0-9]+}}, 34816, 32768,
// PTX:         mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX:         mbarrier.try_wait.parity.acquire.cluster.shared.b64
// PTX:         selp.b64
// PTX:         mbarrier.arrive.expect_tx.shared.b64
// PTX:         mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// PTX:         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-NOT:     cp.async.bulk.shared::cluster.global
// PTX:         fence.proxy.async
// PTX-NEXT:    @{{%p[0-9]+}} bra
// A and B atoms (B 16x16, 2 blocks): 32768 + 3 x 2048 bytes for the leader.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m4096n1280k256_t256_pair_1x16_16x16_bf16_sfatoms_ab_byref3_7(
// PTX:         selp.b32 {{%r[0-9]+}}, 38912, 32768,
// PTX:         mbarrier.arrive.expect_tx.shared.b64
// PTX:         mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2
// PTX-COUNT-3: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-NOT:     fence.proxy.async

// N = 64 (B compact: the lanes store its atom), A by bulk copy.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n192k256_t64_1x16_1x16_f32_sfatoms_a_byref3(
// PTX:         mov.b32 {{%r[0-9]+}}, 26624;
// PTX-NEXT:    mbarrier.expect_tx.relaxed.cta.shared.b64
// PTX-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX:         cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-NOT:     cp.async.bulk.shared::cluster.global
// PTX:         .visible .entry nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_ab_byref7(

// Every kernel (8 amax, 8 quantize, 6 matmul kernels) without spills.
// PTXAS-COUNT-22: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @epilogue_chain(%x: tensor<256x1024xbf16>, %wf: tensor<512x1024xbf16>, %wf2: tensor<256x512xbf16>, %amax: f32) -> tensor<256x256xf32> {
  %a = nvfp4.quantize %x : tensor<256x1024xbf16> -> !nvfp4.tensor<256x1024, 1x16>
  %w = nvfp4.quantize %wf : tensor<512x1024xbf16> -> !nvfp4.tensor<512x1024, 16x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %q = nvfp4.quantize %y amax %amax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %w2 = nvfp4.quantize %wf2 : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  %z = nvfp4.matmul %q, %w2 : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %z : tensor<256x256xf32>
}

func.func @lhs_atoms_n64(%x: tensor<128x256xbf16>, %w: !nvfp4.tensor<192x256, 1x16>) -> tensor<128x192xf32> {
  %a = nvfp4.quantize %x : tensor<128x256xbf16> -> !nvfp4.tensor<128x256, 1x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<192x256, 1x16> -> tensor<128x192xf32>
  return %y : tensor<128x192xf32>
}

func.func @pair_atoms(%x: tensor<4096x256xbf16>, %wf: tensor<1280x256xbf16>) -> tensor<4096x1280xbf16> {
  %a = nvfp4.quantize %x : tensor<4096x256xbf16> -> !nvfp4.tensor<4096x256, 1x16>
  %w = nvfp4.quantize %wf : tensor<1280x256xbf16> -> !nvfp4.tensor<1280x256, 16x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<4096x256, 1x16>, !nvfp4.tensor<1280x256, 16x16> -> tensor<4096x1280xbf16>
  return %y : tensor<4096x1280xbf16>
}

func.func @pair_lhs_atoms(%x: tensor<4096x256xbf16>, %w: !nvfp4.tensor<1280x256, 1x16>) -> tensor<4096x1280xf32> {
  %a = nvfp4.quantize %x : tensor<4096x256xbf16> -> !nvfp4.tensor<4096x256, 1x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<4096x256, 1x16>, !nvfp4.tensor<1280x256, 1x16> -> tensor<4096x1280xf32>
  return %y : tensor<4096x1280xf32>
}

func.func @long_k(%x: tensor<1024x4096xbf16>, %wf: tensor<384x4096xbf16>) -> tensor<1024x384xbf16> {
  %a = nvfp4.quantize %x : tensor<1024x4096xbf16> -> !nvfp4.tensor<1024x4096, 1x16>
  %w = nvfp4.quantize %wf : tensor<384x4096xbf16> -> !nvfp4.tensor<384x4096, 16x16>
  %y = nvfp4.matmul %a, %w : !nvfp4.tensor<1024x4096, 1x16>, !nvfp4.tensor<384x4096, 16x16> -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}
