// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s

// The tcgen05 lowering folds a transpose of the two innermost dimensions
// that is the only use of a matmul's result, when the accumulator (if any)
// is such a transpose too, into the kernel (`_transposed`): it reads the
// accumulator and stores the result transposed, into buffers of the
// transposes' shapes. Few-row GEMMs get this form from their transposed
// product (tcgen05-few-rows.mlir); any program of this form gets the fold.
// Otherwise the transposes stay for the host.

// CHECK-LABEL: func.func @folded(
// CHECK-SAME:    %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}, %{{[^:]*}}: !nvfp4.tensor<128x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}, %[[ACC:[^:]*]]: tensor<128x256xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[ACCB:.*]] = bufferization.to_buffer %[[ACC]] read_only : tensor<128x256xf32> to memref<128x256xf32>
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<128x256xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_1x16_f32_acc{{[a-z_]*}}_transposed
// CHECK-SAME:      %[[ACCB]] : memref<128x256xf32>, %[[OUT]] : memref<128x256xf32>)
// CHECK:         %[[C:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[C]]
func.func @folded(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<128x512, 1x16>,
                  %acc: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %e0 = tensor.empty() : tensor<256x128xf32>
  %acct = linalg.transpose ins(%acc : tensor<128x256xf32>) outs(%e0 : tensor<256x128xf32>) permutation = [1, 0]
  %d = nvfp4.matmul %a, %b acc(%acct : tensor<256x128xf32>) : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 1x16> -> tensor<256x128xf32>
  %e1 = tensor.empty() : tensor<128x256xf32>
  %c = linalg.transpose ins(%d : tensor<256x128xf32>) outs(%e1 : tensor<128x256xf32>) permutation = [1, 0]
  return %c : tensor<128x256xf32>
}

// -----

// The accumulator's transpose has another use: it stays for that one, the
// kernel reads the accumulator itself.
// CHECK-LABEL: func.func @acc_transpose_kept(
// CHECK-SAME:    %[[ACC:[^:]*]]: tensor<128x256xf32>
// CHECK:         %[[ACCT:.*]] = linalg.transpose ins(%[[ACC]] : tensor<128x256xf32>)
// CHECK:         %[[ACCB:.*]] = bufferization.to_buffer %[[ACC]] read_only : tensor<128x256xf32> to memref<128x256xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_{{[a-z0-9_]*}}_transposed
// CHECK-SAME:      %[[ACCB]] : memref<128x256xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %{{.*}}, %[[ACCT]]
func.func @acc_transpose_kept(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<128x512, 1x16>,
                              %acc: tensor<128x256xf32>) -> (tensor<128x256xf32>, tensor<256x128xf32>) {
  %e0 = tensor.empty() : tensor<256x128xf32>
  %acct = linalg.transpose ins(%acc : tensor<128x256xf32>) outs(%e0 : tensor<256x128xf32>) permutation = [1, 0]
  %d = nvfp4.matmul %a, %b acc(%acct : tensor<256x128xf32>) : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 1x16> -> tensor<256x128xf32>
  %e1 = tensor.empty() : tensor<128x256xf32>
  %c = linalg.transpose ins(%d : tensor<256x128xf32>) outs(%e1 : tensor<128x256xf32>) permutation = [1, 0]
  return %c, %acct : tensor<128x256xf32>, tensor<256x128xf32>
}

// -----

// Not folded: the result has another use; the accumulator is not a
// transpose; the result is the transpose's destination, not its input; a
// transpose of other dimensions.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     _transposed
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_1x16_f32_sfatoms_ab blocks
// CHECK:         linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_1x16_f32_acc_sfatoms_ab blocks
// CHECK:         linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_1x16_f32_sfatoms_ab blocks
// CHECK:         linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m256n128k512_t128_1x16_1x16_f32_sfatoms_ab blocks
// CHECK:         linalg.transpose
// CHECK-NOT:     _transposed
func.func @kept(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<128x512, 1x16>,
                %acc: tensor<256x128xf32>, %x: tensor<128x256xf32>,
                %a3: !nvfp4.tensor<2x256x512, 1x16>, %b3: !nvfp4.tensor<2x128x512, 1x16>)
    -> (tensor<128x256xf32>, tensor<256x128xf32>, tensor<128x256xf32>, tensor<256x128xf32>, tensor<128x256x2xf32>) {
  %e = tensor.empty() : tensor<128x256xf32>
  %d0 = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 1x16> -> tensor<256x128xf32>
  %c0 = linalg.transpose ins(%d0 : tensor<256x128xf32>) outs(%e : tensor<128x256xf32>) permutation = [1, 0]
  %d1 = nvfp4.matmul %a, %b acc(%acc : tensor<256x128xf32>) : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 1x16> -> tensor<256x128xf32>
  %c1 = linalg.transpose ins(%d1 : tensor<256x128xf32>) outs(%e : tensor<128x256xf32>) permutation = [1, 0]
  %d2 = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 1x16> -> tensor<256x128xf32>
  %c2 = linalg.transpose ins(%x : tensor<128x256xf32>) outs(%d2 : tensor<256x128xf32>) permutation = [1, 0]
  %d3 = nvfp4.matmul %a3, %b3 : !nvfp4.tensor<2x256x512, 1x16>, !nvfp4.tensor<2x128x512, 1x16> -> tensor<2x256x128xf32>
  %e3 = tensor.empty() : tensor<128x256x2xf32>
  %c3 = linalg.transpose ins(%d3 : tensor<2x256x128xf32>) outs(%e3 : tensor<128x256x2xf32>) permutation = [2, 1, 0]
  return %c0, %d0, %c1, %c2, %c3 : tensor<128x256xf32>, tensor<256x128xf32>, tensor<128x256xf32>, tensor<256x128xf32>, tensor<128x256x2xf32>
}
