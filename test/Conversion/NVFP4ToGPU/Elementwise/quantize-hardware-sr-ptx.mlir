// hardware-sr through nvfp4-to-ptx on sm_100a / sm_103a: the stochastic
// kernels convert with cvt.rs.satfinite.e2m1x4.f32 (four per 16-element
// block, one per Philox word), the round-to-nearest kernel keeps
// cvt.rn.satfinite.e2m1x2.f32; ptxas accepts both with no spills.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major hardware-sr=true" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefixes=PTX,PTX100
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=RS
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=RN
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major hardware-sr=true" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefixes=PTX,PTX103
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=RS
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=RN
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=STRICT
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX100:      .target sm_100a
// PTX103:      .target sm_103a
// PTX-DAG:     .visible .entry nvfp4_quantize_64x256_1x16_f32_rn(
// PTX-DAG:     .visible .entry nvfp4_quantize_2x64x64_1x16_f16_rs_o8_hw_rhtd7e8(
// PTX-DAG:     .visible .entry nvfp4_quantize_64x256_16x16_f32_rs_o1024_hw(
// Philox4x32-10 still supplies the random bits.
// PTX-DAG:     {{mul|mad}}.{{.*}}3528531795

// Two stochastic kernels x 4 conversions, one round-to-nearest kernel x 8.
// RS-COUNT-8:  cvt.rs.satfinite.e2m1x4.f32 {{.*}}%rs{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %r{{[0-9]+}};
// RS-NOT:      cvt.rs
// RN-COUNT-8:  cvt.rn.satfinite.e2m1x2.f32
// RN-NOT:      cvt.rn.satfinite.e2m1x2.f32

// STRICT-NOT:  {{fma|approx|ftz}}

// PTXAS-COUNT-5: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @act(%x: tensor<64x256xf32>) -> !nvfp4.tensor<64x256, 1x16> {
  %q = nvfp4.quantize %x : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %q : !nvfp4.tensor<64x256, 1x16>
}

func.func @grad(%g: tensor<2x64x64xf16>, %seed: i64) -> !nvfp4.tensor<2x64x64, 1x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 8 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<2x64x64xf16> -> !nvfp4.tensor<2x64x64, 1x16>
  return %q : !nvfp4.tensor<2x64x64, 1x16>
}

func.func @grad2d(%g: tensor<64x256xf32>, %seed: i64) -> !nvfp4.tensor<64x256, 16x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 1024 : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 16x16>
  return %q : !nvfp4.tensor<64x256, 16x16>
}
