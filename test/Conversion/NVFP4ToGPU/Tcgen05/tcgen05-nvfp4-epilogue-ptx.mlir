// The tcgen05 kernels with the NVFP4 epilogue through nvfp4-to-ptx for
// sm_100a, sm_103a and sm_110a: the epilogue converts with
// cvt.rn.satfinite.e2m1x2.f32 (or, stochastic with hardware-sr,
// cvt.rs.satfinite.e2m1x4.f32) and stores 8 code bytes and one scale byte per
// 16 columns (16x16 blocks: after a half-warp shuffle reduction, from the
// tile's first row); ptxas assembles every kernel without spills.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major hardware-sr=true" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.hw.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.hw.ptx --check-prefix=HWSR
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.hw.ptx -o %t.sm_100a.hw.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major hardware-sr=true" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.hw.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.hw.ptx --check-prefix=HWSR
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.hw.ptx -o %t.sm_103a.hw.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// A chain: the first epilogue writes its scales as atoms, which the second
// kernel bulk-copies as A (tcgen05-scale-atoms.mlir).
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_16x16_f32_sfstaged_b_nvfp4_sfatoms(
// PTX:         tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX:         st.global.b64
// PTX:         st.global.b8
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfatoms_a_sfstaged_b_nvfp4(
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_b2m256n256k512_t256_1x16_1x16_bf16_acc_nvfp4(
// PTX:         cvt.rn.bf16.f32
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// The gradient form: stochastic rounding (Philox), a Hadamard transform,
// software rounding without hardware-sr.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_1x16_bf16_nvfp4_rs_o0_rhtd7e8(
// PTX:         {{mul|mad}}.{{.*}}3528531795
// PTX-NOT:     cvt.rs.satfinite
// PTX:         st.global.b64
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_1x16_f32_nvfp4_16x16(
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX:         st.global.b8
// The result's amax: a warp maximum, then one atomic per warp and tile.
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_bf16_sfstaged_b_nvfp4_resultamax(
// PTX-COUNT-5: shfl.sync.bfly.b32
// PTX:         {{red|atom}}.global.max.u32
// A ragged shape (208 x 80): every lane takes part in the half-warp
// maximum, then a branch skips the blocks outside M x N (LLVM sinks their
// conversion into the guarded stores).
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m208n80k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_16x16(
// PTX-COUNT-4: shfl.sync.bfly.b32
// PTX:         @{{%p[0-9]+}} bra
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX:         st.global.b64
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_resultamax(
// PTX:         tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX:         st.global.v2.b64
// PTX:         {{red|atom}}.global.max.u32
// HWSR-LABEL:  .visible .entry nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_1x16_bf16_nvfp4_rs_o0_hw_rhtd7e8(
// HWSR-COUNT-4: cvt.rs.satfinite.e2m1x4.f32
// HWSR-NOT:    cvt.rn.satfinite.e2m1x2.f32
// HWSR:        st.global.b64

// Eight matmul kernels, five dequantize kernels and a quantize kernel.
// PTXAS-NOT:   bytes spill
// PTXAS-COUNT-15: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   bytes spill

func.func @chain(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<256x256, 16x16>, %c: !nvfp4.tensor<128x256, 16x16>, %amax1: f32, %amax2: f32) -> tensor<128x128xf32> {
  %y1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<256x256, 16x16> -> tensor<128x256xf32>
  %q1 = nvfp4.quantize %y1 amax %amax1 : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  %y2 = nvfp4.matmul %q1, %c : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %q2 = nvfp4.quantize %y2 amax %amax2 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

func.func @bf16_acc(%a: !nvfp4.tensor<2x256x512, 1x16>, %b: !nvfp4.tensor<2x256x512, 1x16>, %c: tensor<2x256x256xbf16>, %amax: f32) -> tensor<2x256x256xf32> {
  %y = nvfp4.matmul %a, %b acc(%c : tensor<2x256x256xbf16>) : !nvfp4.tensor<2x256x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x256x256xbf16>
  %q = nvfp4.quantize %y amax %amax : tensor<2x256x256xbf16> -> !nvfp4.tensor<2x256x256, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<2x256x256, 1x16> -> tensor<2x256x256xf32>
  return %d : tensor<2x256x256xf32>
}

func.func @gradient_forms(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<256x256, 1x16>, %c: !nvfp4.tensor<128x256, 1x16>, %amax: f32, %seed: i64) -> (tensor<128x256xf32>, tensor<128x128xf32>) {
  %y1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<256x256, 1x16> -> tensor<128x256xbf16>
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<128x256xbf16> -> !nvfp4.tensor<128x256, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<128x256, 1x16> -> tensor<128x256xf32>
  %y2 = nvfp4.matmul %a, %c : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
  %q2 = nvfp4.quantize %y2 amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %d2 = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
  return %d1, %d2 : tensor<128x256xf32>, tensor<128x128xf32>
}

func.func @scaling(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %prev: f32) -> (tensor<128x128xf32>, f32, tensor<128x128xf32>) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xbf16>
  %q = nvfp4.quantize %y amax %prev : tensor<128x128xbf16> -> !nvfp4.tensor<128x128, 1x16>
  %next = nvfp4.amax %y : tensor<128x128xbf16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  %y2 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %q2 = nvfp4.quantize %y2 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d2 = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d, %next, %d2 : tensor<128x128xf32>, f32, tensor<128x128xf32>
}

func.func @ragged(%a: !nvfp4.tensor<208x256, 1x16>, %b: !nvfp4.tensor<80x256, 16x16>, %amax: f32) -> tensor<208x80xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<208x256, 1x16>, !nvfp4.tensor<80x256, 16x16> -> tensor<208x80xf32>
  %q = nvfp4.quantize %y amax %amax : tensor<208x80xf32> -> !nvfp4.tensor<208x80, 16x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<208x80, 16x16> -> tensor<208x80xf32>
  return %d : tensor<208x80xf32>
}
