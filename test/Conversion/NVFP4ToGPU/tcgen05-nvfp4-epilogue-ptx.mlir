// The tcgen05 kernels with the NVFP4 epilogue through nvfp4-to-ptx for
// sm_100a, sm_103a and sm_110a: the epilogue converts with
// cvt.rn.satfinite.e2m1x2.f32 and stores 8 code bytes and one scale byte per
// 16 columns; ptxas assembles every kernel without spills.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_16x16_f32_nvfp4(
// PTX:         tcgen05.ld.sync.aligned.32x32b.x16.b32
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX:         st.global.b64
// PTX:         st.global.b8
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_nvfp4(
// PTX:         cvt.rn.satfinite.e2m1x2.f32
// PTX-LABEL:   .visible .entry nvfp4_tcgen05_matmul_b2m256n256k512_t256_1x16_1x16_bf16_acc_nvfp4(
// PTX:         cvt.rn.bf16.f32
// PTX:         cvt.rn.satfinite.e2m1x2.f32

// Three matmul kernels and two dequantize kernels.
// PTXAS-NOT:   bytes spill
// PTXAS-COUNT-5: 0 bytes spill stores, 0 bytes spill loads
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
