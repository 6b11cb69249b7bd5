// The dequantize and Hadamard kernels through nvfp4-to-ptx for every target,
// assembled by ptxas: no spills, no FMA contraction (the products and the
// butterfly sums are mul.rn / add.rn / sub.rn), no approximate or
// flush-to-zero arithmetic, rounding to bf16 / f16 by cvt.rn.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefixes=PTX,PTX-sm_120a
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefixes=PTX,PTX-sm_121a
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefixes=PTX,PTX-sm_90a
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm_90a.ptx -o %t.sm_90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefixes=PTX,PTX-sm_100a
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefixes=PTX,PTX-sm_103a
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefixes=PTX,PTX-sm_110a
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX-sm_120a: .target sm_120a
// PTX-sm_121a: .target sm_121a
// PTX-sm_90a:  .target sm_90a
// PTX-sm_100a: .target sm_100a
// PTX-sm_103a: .target sm_103a
// PTX-sm_110a: .target sm_110a
// PTX-DAG:     .visible .entry nvfp4_dequantize_128x256_1x16_f32(
// PTX-DAG:     .visible .entry nvfp4_dequantize_128x256_16x16_bf16(
// PTX-DAG:     .visible .entry nvfp4_dequantize_2x64x64_1x16_f16(
// PTX-DAG:     .visible .entry nvfp4_hadamard_128x256_f32_sd7e8(
// PTX-DAG:     .visible .entry nvfp4_hadamard_64x128_bf16_sd7e8(
// PTX-DAG:     .visible .entry nvfp4_hadamard_2x16x64_f16_s0f0f(
// PTX-DAG:     mul.rn.f32
// PTX-DAG:     add.rn.f32
// PTX-DAG:     sub.rn.f32
// PTX-DAG:     cvt.rn.bf16{{(x2)?}}.f32
// PTX-DAG:     cvt.rn.f16{{(x2)?}}.f32
// PTX-DAG:     ld.global.v4.{{[bfu]}}32
// PTX-DAG:     st.global.v4.{{[bfu]}}32

// STRICT-NOT:  {{fma|approx|ftz}}

// PTXAS-COUNT-6: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @dequantize_f32(%q: !nvfp4.tensor<128x256, 1x16>) -> tensor<128x256xf32> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<128x256, 1x16> -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}

func.func @dequantize_bf16(%q: !nvfp4.tensor<128x256, 16x16>) -> tensor<128x256xbf16> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<128x256, 16x16> -> tensor<128x256xbf16>
  return %y : tensor<128x256xbf16>
}

func.func @dequantize_f16(%q: !nvfp4.tensor<2x64x64, 1x16>) -> tensor<2x64x64xf16> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<2x64x64, 1x16> -> tensor<2x64x64xf16>
  return %y : tensor<2x64x64xf16>
}

func.func @hadamard_f32(%x: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %y = nvfp4.hadamard %x : tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}

func.func @hadamard_bf16(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %y = nvfp4.hadamard %x : tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}

func.func @hadamard_f16(%x: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  %y = nvfp4.hadamard %x signs [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1] : tensor<2x16x64xf16>
  return %y : tensor<2x16x64xf16>
}
