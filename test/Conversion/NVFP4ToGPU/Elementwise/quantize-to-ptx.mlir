// The quantize kernels through nvfp4-to-ptx for every target, assembled by
// ptxas: no spills, no FMA contraction, IEEE division, the hardware E2M1
// conversion on every target but sm_90a (round-to-nearest kernels; SR in
// software without hardware-sr, quantize-hardware-sr-ptx.mlir). nvfp4.amax
// launches the amax kernels: the one of @act's input is shared (7 kernels in
// all).

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefixes=PTX,PTX100
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=CVT
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefixes=PTX,PTX103
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=CVT
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefixes=PTX,PTX110
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=CVT
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefixes=PTX,PTX120
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=CVT
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefixes=PTX,PTX121
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=CVT
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefixes=PTX,PTX90
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefix=SOFT
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm_90a.ptx -o %t.sm_90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX120:      .target sm_120a
// PTX121:      .target sm_121a
// PTX90:       .target sm_90a
// PTX100:      .target sm_100a
// PTX103:      .target sm_103a
// PTX110:      .target sm_110a
// PTX-DAG:     .visible .entry nvfp4_amax_64x256_f32(
// PTX-DAG:     .visible .entry nvfp4_quantize_64x256_1x16_f32_rn(
// PTX-DAG:     .visible .entry nvfp4_quantize_128x128_16x16_bf16_rn_amax(
// PTX-DAG:     .visible .entry nvfp4_amax_2x64x64_f16_rhtd7e8(
// PTX-DAG:     .visible .entry nvfp4_quantize_2x64x64_1x16_f16_rs_o8_rhtd7e8(
// PTX-DAG:     .visible .entry nvfp4_quantize_64x256_16x16_f32_rs_o1024(
// PTX-DAG:     .visible .entry nvfp4_amax_128x64_bf16(
// S_enc = 2688 / amax and S_dec = 1 / S_enc correctly rounded; the
// multiplier 1 / (scale * S_dec) as rcp.rn (the same IEEE reciprocal).
// PTX-DAG:     div.rn.f32
// PTX-DAG:     rcp.rn.f32
// PTX-DAG:     shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// PTX-DAG:     shfl.sync.bfly.b32 {{.*}}, 8, 31, -1;
// Philox4x32-10 multiplier 0xD2511F53.
// PTX-DAG:     {{mul|mad}}.{{.*}}3528531795
// PTX-DAG:     bar.sync

// Two round-to-nearest kernels x 8 conversions (the SR kernels convert in
// software on every target).
// CVT-COUNT-16: cvt.rn.satfinite.e2m1x2.f32
// CVT-NOT:     cvt.rn.satfinite.e2m1x2.f32
// CVT-NOT:     cvt.rs
// SOFT-NOT:    cvt.{{.*}}e2m1

// STRICT-NOT:  {{fma|approx|ftz}}

// PTXAS-COUNT-7: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @act(%x: tensor<64x256xf32>) -> !nvfp4.tensor<64x256, 1x16> {
  %q = nvfp4.quantize %x : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %q : !nvfp4.tensor<64x256, 1x16>
}

func.func @weight(%w: tensor<128x128xbf16>, %amax: f32) -> !nvfp4.tensor<128x128, 16x16> {
  %q = nvfp4.quantize %w amax %amax : tensor<128x128xbf16> -> !nvfp4.tensor<128x128, 16x16>
  return %q : !nvfp4.tensor<128x128, 16x16>
}

func.func @grad(%g: tensor<2x64x64xf16>, %seed: i64) -> !nvfp4.tensor<2x64x64, 1x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 8 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<2x64x64xf16> -> !nvfp4.tensor<2x64x64, 1x16>
  return %q : !nvfp4.tensor<2x64x64, 1x16>
}

func.func @grad2d(%g: tensor<64x256xf32>, %seed: i64) -> !nvfp4.tensor<64x256, 16x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 1024 : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 16x16>
  return %q : !nvfp4.tensor<64x256, 16x16>
}

func.func @amax_act(%x: tensor<64x256xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<64x256xf32>
  return %a : f32
}

func.func @amax_bf16(%x: tensor<128x64xbf16>) -> f32 {
  %a = nvfp4.amax %x : tensor<128x64xbf16>
  return %a : f32
}
