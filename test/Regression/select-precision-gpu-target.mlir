// RUN: nvfp4-opt %s --nvfp4-recipe="summary" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=NONE
// RUN: nvfp4-opt %s --nvfp4-recipe="gpu-target=sm_120a summary" -o %t.sm_120a.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --nvfp4-recipe="gpu-target=sm_90a summary" -o %t.sm_90a.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --nvfp4-recipe="gpu-target=sm_100a summary" -o %t.sm_100a.mlir 2>&1 \
// RUN: | FileCheck %s --check-prefix=TC
// RUN: nvfp4-opt %s --nvfp4-infer-roles --nvfp4-select-precision="gpu-target=sm_103a remarks" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=REMARK
// RUN: not nvfp4-opt %s --nvfp4-recipe="gpu-target=sm_80" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=BAD
//
// Everything the recipe selects with gpu-target, the GEMM kernel of that
// target takes:
// RUN: nvfp4-opt %t.sm_120a.mlir --nvfp4-to-ptx="target=sm_120a" -o /dev/null
// RUN: nvfp4-opt %t.sm_90a.mlir --nvfp4-to-ptx="target=sm_90a" -o /dev/null
// RUN: nvfp4-opt %t.sm_100a.mlir --nvfp4-to-ptx="target=sm_100a" -o /dev/null

// The recipe's gpu-target rule (docs/recipe.md, rule 9) is the shape check of
// the GEMM kernel of the target: on sm_120a, sm_121a and sm_90a (mma.sync)
// any M, N and K (the last CTA tile and K step are predicated; only the grid
// limits apply); on sm_100a, sm_103a and sm_110a (tcgen05) any M, N and K
// too (the last CTA tile and K tile are predicated or zero-filled, and a K
// that is not a multiple of 32, e.g. 80, gets copy-padded operands). Without it only the format rules apply. (It used to be `gpu-tiles`, M % 128 and N % 8 on every target: a
// batch-1 GEMM (M = 1) was caught, but K % 256 on tcgen05, N % 64 and the
// mma.sync tiles were not.)

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// NONE: nvfp4 recipe: 9 of 9 contractions in FP4

// MMA: nvfp4 recipe: 9 of 9 contractions in FP4
// MMA: fits_both 0 fprop 0 1x128x64x256 fp4 fprop of layer 0
// MMA: m64 0 fprop 0 1x64x64x64 fp4 fprop of layer 0
// MMA: k128 0 fprop 0 1x128x64x128 fp4 fprop of layer 0
// MMA: n32 0 fprop 0 1x128x32x256 fp4 fprop of layer 0
// MMA: m1 0 fprop 0 1x1x64x256 fp4 fprop of layer 0
// MMA: m192 0 fprop 0 1x192x64x256 fp4 fprop of layer 0
// MMA: m384_n128 0 fprop 0 1x384x128x64 fp4 fprop of layer 0
// MMA: k80 0 fprop 0 1x64x64x80 fp4 fprop of layer 0
// MMA: k24 0 fprop 0 1x64x64x24 fp4 fprop of layer 0

// TC: nvfp4 recipe: 9 of 9 contractions in FP4
// TC: fits_both 0 fprop 0 1x128x64x256 fp4 fprop of layer 0
// TC: m64 0 fprop 0 1x64x64x64 fp4 fprop of layer 0
// TC: k128 0 fprop 0 1x128x64x128 fp4 fprop of layer 0
// TC: n32 0 fprop 0 1x128x32x256 fp4 fprop of layer 0
// TC: m1 0 fprop 0 1x1x64x256 fp4 fprop of layer 0
// TC: m192 0 fprop 0 1x192x64x256 fp4 fprop of layer 0
// TC: m384_n128 0 fprop 0 1x384x128x64 fp4 fprop of layer 0
// TC: k80 0 fprop 0 1x64x64x80 fp4 fprop of layer 0
// K = 24 is zero-padded to 32 by the rewrite, which the tcgen05 kernel takes.
// TC: k24 0 fprop 0 1x64x64x24 fp4 fprop of layer 0

// The remarks carry the decisions at the ops (sm_103a: tcgen05).
// REMARK-COUNT-9: remark: nvfp4: fp4: fprop of layer 0
// REMARK-NOT: remark: nvfp4: high

// BAD: error: nvfp4-select-precision: unknown gpu-target 'sm_80' (supported: sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, sm_90a)

func.func @fits_both(%x: tensor<128x256xf32>, %w: tensor<64x256xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<128x256xf32>, tensor<64x256xf32>)
         outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

func.func @m64(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>)
         outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

func.func @k128(%x: tensor<128x128xf32>, %w: tensor<64x128xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<128x128xf32>, tensor<64x128xf32>)
         outs(%c : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}

func.func @n32(%x: tensor<128x256xf32>, %w: tensor<32x256xf32>) -> tensor<128x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<128x256xf32>, tensor<32x256xf32>)
         outs(%c : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %y : tensor<128x32xf32>
}

func.func @m1(%x: tensor<1x256xf32>, %w: tensor<64x256xf32>) -> tensor<1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<1x256xf32>, tensor<64x256xf32>)
         outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

func.func @m192(%x: tensor<192x256xf32>, %w: tensor<64x256xf32>) -> tensor<192x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<192x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<192x64xf32>) -> tensor<192x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<192x256xf32>, tensor<64x256xf32>)
         outs(%c : tensor<192x64xf32>) -> tensor<192x64xf32>
  return %y : tensor<192x64xf32>
}

func.func @m384_n128(%x: tensor<384x64xf32>, %w: tensor<128x64xf32>) -> tensor<384x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<384x128xf32>) -> tensor<384x128xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<384x64xf32>, tensor<128x64xf32>)
         outs(%c : tensor<384x128xf32>) -> tensor<384x128xf32>
  return %y : tensor<384x128xf32>
}

func.func @k80(%x: tensor<64x80xf32>, %w: tensor<64x80xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<64x80xf32>, tensor<64x80xf32>)
         outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

func.func @k24(%x: tensor<64x24xf32>, %w: tensor<64x24xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<64x24xf32>, tensor<64x24xf32>)
         outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
