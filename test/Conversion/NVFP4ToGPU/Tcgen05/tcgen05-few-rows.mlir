// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a" -o /dev/null

// A GEMM of at most 64 rows and at least 128 columns (a decode step) runs
// on the tcgen05 kernel as its transposed product C^T = B A^T: the
// operands swap places so that the weight's rows fill the MMA's 128 rows,
// and the kernel (`_transposed`) reads the accumulator and writes the
// result transposed, in the caller's [M, N] buffers: no transpose is left
// for the host. The same sums of the same products: bit for bit the
// original (test/GPU/matmul-sm100-emulated.mlir runs 8 x 1000, a batched
// 40 x 208 with an accumulator and 64 x 128; emulator-memory-report.mlir
// checks the transposed stores' coalescing). The mma.sync kernels have
// few-row tiles and keep the product as it is.

// CHECK: remark: nvfp4: fallback: computed as the transposed product B A^T (its kernel stores the result transposed) for the tcgen05 kernel, whose MMA takes 128 rows of A: M = 8 rows fill the MMA's N instead
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:[^:]*]]: !nvfp4.tensor<2x8x256, 1x16>, %[[W:[^:]*]]: !nvfp4.tensor<2x512x256, 16x16, decode>, %[[ACC:[^:]*]]: tensor<2x8x512xbf16>
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     tensor.empty
// CHECK:         %[[WD:.*]], %[[WS:.*]], %[[WG:.*]] = nvfp4.disassemble %[[W]]
// CHECK:         %[[XD:.*]], %[[XS:.*]], %[[XG:.*]] = nvfp4.disassemble %[[X]]
// CHECK:         %[[ACCB:.*]] = bufferization.to_buffer %[[ACC]] read_only : tensor<2x8x512xbf16> to memref<2x8x512xbf16>
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x8x512xbf16>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m512n8k256_t64_16x16_1x16_bf16_acc_ds_a_sfstaged_a_transposed
// CHECK-SAME:      %[[WG]] : f32
// CHECK-SAME:      %[[XG]] : f32, %[[ACCB]] : memref<2x8x512xbf16>, %[[OUT]] : memref<2x8x512xbf16>)
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[C:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x8x512xbf16> to tensor<2x8x512xbf16>
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[C]]
// MMA-LABEL: func.func @decode(
// MMA-NOT:     linalg.transpose
// MMA:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_b2m8n512k256_1x16_16x16_bf16_acc_ds_b_t16x128
func.func @decode(%x: !nvfp4.tensor<2x8x256, 1x16>,
                  %w: !nvfp4.tensor<2x512x256, 16x16, decode>,
                  %acc: tensor<2x8x512xbf16>) -> tensor<2x8x512xbf16> {
  %c = nvfp4.matmul %x, %w acc(%acc : tensor<2x8x512xbf16>)
         : !nvfp4.tensor<2x8x256, 1x16>, !nvfp4.tensor<2x512x256, 16x16, decode>
         -> tensor<2x8x512xbf16>
  return %c : tensor<2x8x512xbf16>
}

// -----

// 65 rows, or fewer than 128 columns, keep the product as it is.
// CHECK-NOT: remark
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m65n512k256_
// CHECK-NOT:     linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m8n127k256_
// CHECK-NOT:     linalg.transpose
func.func @kept(%a: !nvfp4.tensor<65x256, 1x16>, %b: !nvfp4.tensor<512x256, 1x16>,
                %c: !nvfp4.tensor<8x256, 1x16>, %d: !nvfp4.tensor<127x256, 1x16>)
    -> (tensor<65x512xf32>, tensor<8x127xf32>) {
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<65x256, 1x16>, !nvfp4.tensor<512x256, 1x16> -> tensor<65x512xf32>
  %1 = nvfp4.matmul %c, %d : !nvfp4.tensor<8x256, 1x16>, !nvfp4.tensor<127x256, 1x16> -> tensor<8x127xf32>
  return %0, %1 : tensor<65x512xf32>, tensor<8x127xf32>
}
