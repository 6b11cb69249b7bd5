// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu --split-input-file --verify-diagnostics

func.func @m_not_tile_multiple(%a: !nvfp4.tensor<48x128, 1x16>,
                               %b: !nvfp4.tensor<64x128, 1x16>) -> tensor<48x64xf32> {
  // expected-error @below {{is not supported by the GPU kernel: M = 48, N = 64, K = 128; M must be a multiple of 64}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<48x128, 1x16>,
         !nvfp4.tensor<64x128, 1x16> -> tensor<48x64xf32>
  return %c : tensor<48x64xf32>
}

// -----

func.func @n_not_tile_multiple(%a: !nvfp4.tensor<64x128, 1x16>,
                               %b: !nvfp4.tensor<80x128, 16x16>) -> tensor<64x80xf32> {
  // expected-error @below {{N must be a multiple of 64}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x128, 1x16>,
         !nvfp4.tensor<80x128, 16x16> -> tensor<64x80xf32>
  return %c : tensor<64x80xf32>
}

// -----

func.func @k_not_mma_multiple(%a: !nvfp4.tensor<64x96, 1x16>,
                              %b: !nvfp4.tensor<64x96, 1x16>) -> tensor<64x64xf32> {
  // expected-error @below {{K must be a multiple of 64 (the K of one m16n8k64 MMA)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x96, 1x16>,
         !nvfp4.tensor<64x96, 1x16> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}


// -----

// The grid is (N / tileN, M / tileM, batch): N / 128 = 2^31 CTAs exceed the
// grid's x limit.
func.func @n_exceeds_grid_x(%a: !nvfp4.tensor<64x64, 1x16>,
                            %b: !nvfp4.tensor<274877906944x64, 1x16>) -> tensor<64x274877906944xf32> {
  // expected-error @below {{N / 128 must not exceed 2147483647 (grid x limit)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x64, 1x16>,
         !nvfp4.tensor<274877906944x64, 1x16> -> tensor<64x274877906944xf32>
  return %c : tensor<64x274877906944xf32>
}
