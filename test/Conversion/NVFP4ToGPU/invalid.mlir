// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu --split-input-file --verify-diagnostics

func.func @k_not_mma_multiple(%a: !nvfp4.tensor<64x96, 1x16>,
                              %b: !nvfp4.tensor<64x96, 1x16>) -> tensor<64x64xf32> {
  // expected-error @below {{K must be a multiple of 64 (the K of one m16n8k64 MMA)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x96, 1x16>,
         !nvfp4.tensor<64x96, 1x16> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}


// -----

// M and N need not be multiples of the CTA tile (ragged-shapes.mlir), but
// the grid is (ceil(N / tileN), ceil(M / tileM), batch): N / 128 = 2^31
// CTAs exceed the grid's x limit.
func.func @n_exceeds_grid_x(%a: !nvfp4.tensor<64x64, 1x16>,
                            %b: !nvfp4.tensor<274877906944x64, 1x16>) -> tensor<64x274877906944xf32> {
  // expected-error @below {{ceil(N / 128) must not exceed 2147483647 (grid x limit)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x64, 1x16>,
         !nvfp4.tensor<274877906944x64, 1x16> -> tensor<64x274877906944xf32>
  return %c : tensor<64x274877906944xf32>
}
