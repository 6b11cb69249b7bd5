// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu --split-input-file --verify-diagnostics


// M, N and K need not be multiples of the CTA tile or the K step
// (ragged-shapes.mlir), but
// the grid is (ceil(N / tileN), ceil(M / tileM), batch): N / 128 = 2^31
// CTAs exceed the grid's x limit.
func.func @n_exceeds_grid_x(%a: !nvfp4.tensor<64x64, 1x16>,
                            %b: !nvfp4.tensor<274877906944x64, 1x16>) -> tensor<64x274877906944xf32> {
  // expected-error @below {{ceil(N / 128) must not exceed 2147483647 (grid x limit)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x64, 1x16>,
         !nvfp4.tensor<274877906944x64, 1x16> -> tensor<64x274877906944xf32>
  return %c : tensor<64x274877906944xf32>
}
