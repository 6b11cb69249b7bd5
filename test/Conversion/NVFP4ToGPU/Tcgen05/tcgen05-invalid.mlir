// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file --verify-diagnostics

// Shapes the tcgen05 kernel cannot take are rejected at the matmul, with the
// reason. (M and N are any size: tcgen05-ragged.mlir; K any multiple of
// 16: tcgen05-k-padding.mlir.)

// TMA tile coordinates are signed 32-bit: the batch times M (the rows of
// the A tensor map) must stay below 2^31.
func.func @rows_beyond_tma_coordinates(%a: !nvfp4.tensor<65536x32768x256, 1x16>,
                                       %b: !nvfp4.tensor<65536x128x256, 1x16>)
    -> tensor<65536x32768x128xf32> {
  // expected-error @below {{is not supported by the tcgen05 kernel: M = 32768, N = 128, K = 256; the batch size times M and times N must be below 2^31 (TMA coordinates are signed 32-bit)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<65536x32768x256, 1x16>,
         !nvfp4.tensor<65536x128x256, 1x16> -> tensor<65536x32768x128xf32>
  return %c : tensor<65536x32768x128xf32>
}

// -----

// The pipeline counters are 32-bit: 2^17 x 2^8 tiles of 2^8 K tiles each
// are too many.
func.func @too_many_steps(%a: !nvfp4.tensor<16777216x65536, 1x16>,
                          %b: !nvfp4.tensor<65536x65536, 1x16>)
    -> tensor<16777216x65536xf32> {
  // expected-error @below {{is not supported by the tcgen05 kernel: M = 16777216, N = 65536, K = 65536; the output tiles times the K tiles must be below 2^31 (the pipeline counters are 32-bit)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<16777216x65536, 1x16>,
         !nvfp4.tensor<65536x65536, 1x16> -> tensor<16777216x65536xf32>
  return %c : tensor<16777216x65536xf32>
}
