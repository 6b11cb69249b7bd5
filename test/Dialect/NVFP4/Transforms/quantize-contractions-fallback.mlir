// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-quantize-contractions))' | FileCheck %s

// A contraction selected for NVFP4 (here by annotation, as a frontend or
// nvfp4-select-precision sets it) that the rewrite cannot express is a
// fallback: a warning at the op says why, and the op stays in high
// precision, marked so.

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// A weight with 16x16 blocks needs its other dimension (N = 40 here) to be
// a multiple of 16.
// CHECK-LABEL: func @weight_not_2d
// CHECK: linalg.matmul {{.*}}nvfp4.precision = "high"
// CHECK-NOT: nvfp4.quantize
func.func @weight_not_2d(%x: tensor<32x64xf32>, %w: tensor<40x64xf32>, %c: tensor<32x40xf32>) -> tensor<32x40xf32> {
  // expected-warning @below {{nvfp4: fallback: selected for NVFP4 but kept in high precision: 16x16 weight needs N=40 to be a multiple of 16}}
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<32x64xf32>, tensor<40x64xf32>)
         outs(%c : tensor<32x40xf32>) {nvfp4.precision = "fp4", nvfp4.role = "fprop"} -> tensor<32x40xf32>
  return %0 : tensor<32x40xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// An empty contraction (M = 0): NVFP4 tensors have positive dimensions.
// CHECK-LABEL: func @empty
// CHECK: linalg.matmul {{.*}}nvfp4.precision = "high"
// CHECK-NOT: nvfp4.quantize
func.func @empty(%x: tensor<0x64xf32>, %w: tensor<48x64xf32>, %c: tensor<0x48xf32>) -> tensor<0x48xf32> {
  // expected-warning @below {{nvfp4: fallback: selected for NVFP4 but kept in high precision: unsupported: empty (a dimension of size 0)}}
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<0x64xf32>, tensor<48x64xf32>)
         outs(%c : tensor<0x48xf32>) {nvfp4.precision = "fp4", nvfp4.role = "fprop"} -> tensor<0x48xf32>
  return %0 : tensor<0x48xf32>
}

// -----

// Not a contraction at all.
// CHECK-LABEL: func @not_a_contraction
// CHECK: linalg.add {{.*}}nvfp4.precision = "high"
func.func @not_a_contraction(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  // expected-warning @below {{nvfp4: fallback: selected for NVFP4 but kept in high precision: unsupported: not a multiply-accumulate contraction on tensors}}
  %0 = linalg.add {nvfp4.precision = "fp4"} ins(%x, %x : tensor<32x64xf32>, tensor<32x64xf32>)
         outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// A seed argument that is not an i64 is an error, not silently ignored (the
// stochastic quantize of the wgrad's gradient would otherwise get seed 0).
func.func @bad_seed(%x: tensor<64x32xf32>, %dy: tensor<64x48xf32> {nvfp4.kind = "gradient"},
                    // expected-error @below {{nvfp4: the argument annotated 'nvfp4.seed' must be an i64, got 'i32'}}
                    %seed: i32 {nvfp4.seed}, %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %0 = linalg.matmul indexing_maps = [#km, #kn, #mn] ins(%x, %dy : tensor<64x32xf32>, tensor<64x48xf32>)
         outs(%c : tensor<32x48xf32>) {nvfp4.precision = "fp4", nvfp4.role = "wgrad",
                                        nvfp4.kind = ["activation", "gradient"]} -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}
