// RUN: nvfp4-opt %s --nvfp4-select-precision="keep-first=1 keep-last=1" --verify-diagnostics | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-select-precision="keep-first=2" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FIRST
// RUN: nvfp4-opt %s --nvfp4-select-precision="keep-first=1" -o /dev/null 2>&1 \
// RUN:   | not grep "warning: nvfp4: 0 of"

// keep-first and keep-last that cover every layer of a function leave no
// layer in FP4: a warning says so (with the counts), instead of a report of
// 0 FP4 contractions that looks like the model's. A recipe that leaves a
// layer in FP4 does not warn (the last RUN).

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func @two_layers
// CHECK-COUNT-2: nvfp4.precision = "high"
// expected-warning @below {{nvfp4: 0 of 2 layers in FP4, keep-first + keep-last >= layers (keep-first=1, keep-last=1, 2 layers in @two_layers); lower them to quantize some layers}}
func.func @two_layers(%x: tensor<32x64xf32>, %w1: tensor<64x64xf32>,
                      %w2: tensor<64x64xf32>, %c: tensor<32x64xf32>)
    -> tensor<32x64xf32> {
  %h = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w1 : tensor<32x64xf32>, tensor<64x64xf32>)
         outs(%c : tensor<32x64xf32>)
         {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64} -> tensor<32x64xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%h, %w2 : tensor<32x64xf32>, tensor<64x64xf32>)
         outs(%c : tensor<32x64xf32>)
         {nvfp4.role = "fprop", nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64} -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// FIRST: warning: nvfp4: 0 of 2 layers in FP4, keep-first + keep-last >= layers (keep-first=2, keep-last=0, 2 layers in @two_layers)
