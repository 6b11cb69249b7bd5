// The NVFP4 epilogue of the tcgen05 kernel: `nvfp4.quantize` (1x16 blocks,
// round to nearest, an amax operand, no Hadamard) of the single use of an
// `nvfp4.matmul` lowers to one launch of the matmul kernel whose epilogue
// quantizes each 1x16 block of the accumulator and stores the E2M1 codes and
// the E4M3 scales; the decode scale of the result is computed on the host
// from amax. Every other quantization of a matmul result is left to the
// quantize kernels, with a report-fallbacks remark saying why.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefix=SM120

// The whole programs lower to host code (the PTX and ptxas figures are in
// tcgen05-nvfp4-epilogue-ptx.mlir).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a" -o /dev/null
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_120a" -o /dev/null

// CHECK-LABEL: func.func @fused_f32(
// CHECK-SAME:      %[[AMAX:[a-z0-9]+]]: f32)
// CHECK-NOT:     nvfp4_quantize
// CHECK:         %[[DATA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x128xf4E2M1FN>
// CHECK:         %[[SCALES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x8xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_nvfp4
// CHECK-SAME:      %[[AMAX]] : f32, %[[DATA]] : memref<128x128xf4E2M1FN>, %[[SCALES]] : memref<128x8xf8E4M3FN>)
// CHECK-NOT:     gpu.launch_func
// The decode scale 1 / S_enc, S_enc = 2688 / amax (clamped; 1 for amax 0).
// CHECK:         arith.divf %{{.*}}, %[[AMAX]] : f32
// CHECK:         arith.ori
// CHECK:         %[[ENC:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         %[[DEC:.*]] = arith.divf %{{.*}}, %[[ENC]] : f32
// The dequantization reads the epilogue's buffers and decode scale.
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_128x128_1x16_f32
// CHECK-SAME:      args(%[[DATA]] : memref<128x128xf4E2M1FN>, %[[SCALES]] : memref<128x8xf8E4M3FN>, %[[DEC]] : f32
// Device: the encode scale once per thread, then per 16 accumulator columns
// of the thread's row: the E2M1 conversions, one 8-byte store of the codes
// at (row * 128 + col) / 2 and one byte of scale at row * 8 + col / 16.
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_nvfp4(
// CHECK-SAME:      %[[KAMAX:[^:]*]]: f32, %[[KDATA:[^:]*]]: memref<128x128xf4E2M1FN>, %[[KSCALES:[^:]*]]: memref<128x8xf8E4M3FN>)
// CHECK:         arith.divf %{{.*}}, %[[KAMAX]] : f32
// CHECK:         nvvm.tcgen05.ld
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f4x2
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// SM120-LABEL: func.func @fused_f32(
// SM120:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n128k256_1x16_16x16_f32
// SM120:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_amax
func.func @fused_f32(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %q = nvfp4.quantize %y amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// A bf16 result (with a bf16 accumulator, batched): each value is rounded to
// bf16 before it is quantized, as the quantize kernel would read it.
// CHECK-LABEL: func.func @fused_bf16_acc(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m256n256k512_t256_1x16_1x16_bf16_acc_nvfp4
// CHECK-SAME:      %{{.*}} : memref<2x256x256xbf16>, %{{.*}} : f32, %{{.*}} : memref<2x256x256xf4E2M1FN>, %{{.*}} : memref<2x256x16xf8E4M3FN>)
// CHECK-NOT:     nvfp4_quantize
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_2x256x256_1x16_f32
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_b2m256n256k512_t256_1x16_1x16_bf16_acc_nvfp4(
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT:    arith.extf %{{.*}} : bf16 to f32
func.func @fused_bf16_acc(%a: !nvfp4.tensor<2x256x512, 1x16>, %b: !nvfp4.tensor<2x256x512, 1x16>, %c: tensor<2x256x256xbf16>, %amax: f32) -> tensor<2x256x256xf32> {
  %y = nvfp4.matmul %a, %b acc(%c : tensor<2x256x256xbf16>) : !nvfp4.tensor<2x256x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x256x256xbf16>
  %q = nvfp4.quantize %y amax %amax : tensor<2x256x256xbf16> -> !nvfp4.tensor<2x256x256, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<2x256x256, 1x16> -> tensor<2x256x256xf32>
  return %d : tensor<2x256x256xf32>
}

// -----

// A chain: the second matmul reads the first one's epilogue output.
// CHECK-LABEL: func.func @chain(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_16x16_f32_nvfp4
// CHECK-NEXT:    llvm.call @nvfp4CudaTensorMapDestroy
// CHECK-NEXT:    llvm.call @nvfp4CudaTensorMapDestroy
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_nvfp4
// CHECK-NOT:     gpu.launch_func @nvfp4_kernels::@nvfp4_quantize
func.func @chain(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<256x256, 16x16>, %c: !nvfp4.tensor<128x256, 16x16>, %amax1: f32, %amax2: f32) -> tensor<128x128xf32> {
  %y1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<256x256, 16x16> -> tensor<128x256xf32>
  %q1 = nvfp4.quantize %y1 amax %amax1 : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  %y2 = nvfp4.matmul %q1, %c : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %q2 = nvfp4.quantize %y2 amax %amax2 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// Left alone: no amax (the tensor scale depends on the whole result).
// CHECK-LABEL: func.func @no_amax(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32 blocks
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_128x128_f32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn
func.func @no_amax(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}nvfp4: fallback: the matmul result is stored and quantized by a separate kernel instead of in the tcgen05 epilogue: without an amax operand the tensor scale depends on the whole result, which no CTA sees
  %q = nvfp4.quantize %y : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// Left alone: the matmul result has another use.
// CHECK-LABEL: func.func @two_uses(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32 blocks
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_amax
func.func @two_uses(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}the matmul result has other uses, so it is stored anyway
  %q = nvfp4.quantize %y amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %y, %d : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// Left alone: 16x16 blocks, stochastic rounding, a Hadamard transform.
// CHECK-LABEL: func.func @other_quantizations(
// CHECK-COUNT-3: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32 blocks
// CHECK-NOT:     _f32_nvfp4
func.func @other_quantizations(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32, %seed: i64) -> (tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>) {
  %y0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}16x16 blocks span the rows of 16 epilogue threads; only 1x16 blocks are quantized in the epilogue
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
  %y1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+2]]:{{[0-9]+}}: remark: {{.*}}nvfp4: fallback: stochastic rounding in software
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}stochastic rounding is not implemented in the epilogue
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 0 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  %y2 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}the Hadamard transform is not implemented in the epilogue
  %q2 = nvfp4.quantize %y2 amax %amax hadamard [1, -1, 1, -1, 1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1] : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d2 = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d0, %d1, %d2 : tensor<128x128xf32>, tensor<128x128xf32>, tensor<128x128xf32>
}
