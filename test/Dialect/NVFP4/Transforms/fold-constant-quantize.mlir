// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-fold-constant-quantize))' --split-input-file | FileCheck %s

// A splat 0.5: amax 0.5, S_enc = 2688 / 0.5 = 5376, block scale
// e4m3(0.5 * 5376 / 6) = 448, every code E2M1(0.5 * 5376 / 448) = 6.
// CHECK-LABEL: func.func @splat
// CHECK-DAG: %[[CODES:.*]] = arith.constant dense<6.000000e+00> : tensor<32x32xf4E2M1FN>
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<4.480000e+02> : tensor<2x2xf8E4M3FN>
// CHECK-DAG: %[[AMAX:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[Q:.*]] = nvfp4.assemble %[[CODES]], %[[SCALES]], %[[AMAX]] : tensor<32x32xf4E2M1FN>, tensor<2x2xf8E4M3FN> -> !nvfp4.tensor<32x32, 16x16>
// CHECK: return %[[Q]]
func.func @splat() -> !nvfp4.tensor<32x32, 16x16> {
  %s = arith.constant dense<0.5> : tensor<32x32xf32>
  %q = nvfp4.quantize %s : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 16x16>
  return %q : !nvfp4.tensor<32x32, 16x16>
}

// -----

// bf16 values, 1x16 blocks. amax 24: S_enc = 112. Row 0 (block amax 16):
// scale e4m3(16 * 112 / 6 = 298.7) = 288, codes of x * 112 / 288. Row 1
// (block amax 24): scale 448, codes of x / 4 (-1 / 4 = -0.25 is a tie: -0).
// CHECK-LABEL: func.func @values
// CHECK-DAG: arith.constant dense<{{\[\[}}5.000000e-01, 1.000000e+00, 1.000000e+00, 1.500000e+00, 2.000000e+00, 2.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 4.000000e+00, 4.000000e+00, 4.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00], [-0.000000e+00, -0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 5.000000e-01, 5.000000e-01, 1.000000e+00, 1.000000e+00, 1.500000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x16xf4E2M1FN>
// CHECK-DAG: arith.constant dense<{{\[\[}}2.880000e+02], [4.480000e+02]]> : tensor<2x1xf8E4M3FN>
// CHECK-DAG: arith.constant 2.400000e+01 : f32
// CHECK: nvfp4.assemble
// CHECK-NOT: nvfp4.quantize
func.func @values() -> !nvfp4.tensor<2x16, 1x16> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0]]> : tensor<2x16xbf16>
  %q = nvfp4.quantize %w : tensor<2x16xbf16> -> !nvfp4.tensor<2x16, 1x16>
  return %q : !nvfp4.tensor<2x16, 1x16>
}

// -----

// A constant amax and seed are folded in (the amax is the given one).
// CHECK-LABEL: func.func @constant_operands
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: nvfp4.assemble
// CHECK-NOT: nvfp4.quantize
func.func @constant_operands() -> !nvfp4.tensor<16x32, 1x16> {
  %x = arith.constant dense<1.0> : tensor<16x32xf32>
  %amax = arith.constant 4.0 : f32
  %seed = arith.constant 7 : i64
  %q = nvfp4.quantize %x amax %amax rounding rs seed %seed offset 2 : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 1x16>
  return %q : !nvfp4.tensor<16x32, 1x16>
}

// -----

// Left alone: a run-time input, a run-time amax, a run-time seed.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: nvfp4.quantize
// CHECK-NOT: nvfp4.assemble
func.func @left_alone(%x: tensor<16x32xf32>, %amax: f32, %seed: i64) -> (!nvfp4.tensor<16x32, 1x16>, !nvfp4.tensor<16x32, 1x16>, !nvfp4.tensor<16x32, 1x16>) {
  %c = arith.constant dense<1.0> : tensor<16x32xf32>
  %q0 = nvfp4.quantize %x : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 1x16>
  %q1 = nvfp4.quantize %c amax %amax : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 1x16>
  %q2 = nvfp4.quantize %c rounding rs seed %seed offset 0 : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 1x16>
  return %q0, %q1, %q2 : !nvfp4.tensor<16x32, 1x16>, !nvfp4.tensor<16x32, 1x16>, !nvfp4.tensor<16x32, 1x16>
}

// -----

// A constant zero-padded along K (the recipe pads K to whole blocks): the
// padded elements quantize as zeros, the block's scale comes from its real
// values. Splat 0.5 in 10 columns of 16: codes 6 then 0, scale 448, amax 0.5.
// CHECK-LABEL: func.func @padded
// CHECK-DAG: %[[CODES:.*]] = arith.constant dense<{{\[\[}}6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [6.000000e+00, {{.*}}, 0.000000e+00]]> : tensor<2x16xf4E2M1FN>
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<4.480000e+02> : tensor<2x1xf8E4M3FN>
// CHECK-DAG: %[[AMAX:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: nvfp4.assemble %[[CODES]], %[[SCALES]], %[[AMAX]]
// CHECK-NOT: nvfp4.quantize
func.func @padded() -> !nvfp4.tensor<2x16, 1x16> {
  %w = arith.constant dense<0.5> : tensor<2x10xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %w low[0, 0] high[0, 6] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x10xf32> to tensor<2x16xf32>
  %q = nvfp4.quantize %p : tensor<2x16xf32> -> !nvfp4.tensor<2x16, 1x16>
  return %q : !nvfp4.tensor<2x16, 1x16>
}

// -----

// MXFP8 (E4M3): a splat 1000 has the shared exponent floor(log2(1000)) - 8 =
// 1, scale 2, and 1000 / 2 = 500 saturates to 448. No tensor scale.
// CHECK-LABEL: func.func @mxfp8_splat
// CHECK-DAG: %[[CODES:.*]] = arith.constant dense<4.480000e+02> : tensor<4x64xf8E4M3FN>
// CHECK-DAG: %[[SCALES:.*]] = arith.constant dense<2.000000e+00> : tensor<4x2xf8E8M0FNU>
// CHECK: %[[Q:.*]] = nvfp4.assemble %[[CODES]], %[[SCALES]] : tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU> -> !nvfp4.tensor<4x64, 1x32, mxfp8_e4m3>
// CHECK: return %[[Q]]
func.func @mxfp8_splat() -> !nvfp4.tensor<4x64, 1x32, mxfp8_e4m3> {
  %s = arith.constant dense<1000.0> : tensor<4x64xf32>
  %q = nvfp4.quantize %s : tensor<4x64xf32> -> !nvfp4.tensor<4x64, 1x32, mxfp8_e4m3>
  return %q : !nvfp4.tensor<4x64, 1x32, mxfp8_e4m3>
}

// -----

// MXFP4, one block a row. Row 0 (block amax 24): exponent 4 - 2 = 2, scale
// 4, codes of x / 4 (1 / 4 = 0.25 ties to 0; 3 / 4 = 0.75 ties to 1; 24 / 4
// = 6). Row 1 (block amax 0.75): exponent -1 - 2 = -3, scale 0.125, codes
// of 8x (-0.75 -> -6, 0.25 -> 2).
// CHECK-LABEL: func.func @mxfp4_values
// CHECK-DAG: arith.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-6.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x32xf4E2M1FN>
// CHECK-DAG: arith.constant dense<{{\[\[}}4.000000e+00], [1.250000e-01]]> : tensor<2x1xf8E8M0FNU>
// CHECK: nvfp4.assemble
// CHECK-NOT: nvfp4.quantize
func.func @mxfp4_values() -> !nvfp4.tensor<2x32, 1x32, mxfp4> {
  %w = arith.constant dense<[[1.0, 3.0, 24.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [-0.75, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<2x32xbf16>
  %q = nvfp4.quantize %w : tensor<2x32xbf16> -> !nvfp4.tensor<2x32, 1x32, mxfp4>
  return %q : !nvfp4.tensor<2x32, 1x32, mxfp4>
}
