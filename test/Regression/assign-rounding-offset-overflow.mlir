// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-assign-rounding{base-offset=9223372036854775000}))'

// The stochastic-rounding counters (one per 16-element block, numbered from
// base-offset) of a program must fit in int64_t; an overflow is an error, not
// a wrapped (and reused) counter range. (The block count of one tensor
// cannot itself overflow: the NVFP4 type bounds its element count.)

func.func @sum(%g: tensor<1024x16xf32>) -> !nvfp4.tensor<1024x16, 1x16> {
  // expected-error @below {{stochastic-rounding counters of '!nvfp4.tensor<1024x16, 1x16>' at offset 9223372036854775000 overflow int64_t}}
  %q = nvfp4.quantize %g rounding rs offset 0 : tensor<1024x16xf32> -> !nvfp4.tensor<1024x16, 1x16>
  return %q : !nvfp4.tensor<1024x16, 1x16>
}

// -----

// 2^57 blocks, far past INT64_MAX - offset.
func.func @largest(%g: tensor<144115188075855872x16xbf16>) -> !nvfp4.tensor<144115188075855872x16, 1x16> {
  // expected-error @below {{stochastic-rounding counters of '!nvfp4.tensor<144115188075855872x16, 1x16>' at offset 9223372036854775000 overflow int64_t}}
  %q = nvfp4.quantize %g rounding rs offset 0 : tensor<144115188075855872x16xbf16> -> !nvfp4.tensor<144115188075855872x16, 1x16>
  return %q : !nvfp4.tensor<144115188075855872x16, 1x16>
}

// -----

// In range: the last counter is INT64_MAX. (The other cases fail: `not`.)
// RUN: not nvfp4-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-assign-rounding{base-offset=9223372036854775000}))' \
// RUN:   2>/dev/null | FileCheck %s
// CHECK-LABEL: func.func @fits
// CHECK: offset 9223372036854775000
func.func @fits(%g: tensor<807x16xf32>) -> !nvfp4.tensor<807x16, 1x16> {
  %q = nvfp4.quantize %g rounding rs offset 0 : tensor<807x16xf32> -> !nvfp4.tensor<807x16, 1x16>
  return %q : !nvfp4.tensor<807x16, 1x16>
}
