// The NVFP4 epilogue of the tcgen05 kernel: `nvfp4.quantize` with an amax
// operand (any block layout, rounding and Hadamard transform) of the single
// use of an `nvfp4.matmul` lowers to one launch of the matmul kernel whose
// epilogue quantizes each block of 16 accumulator columns and stores the
// E2M1 codes and the E4M3 scales; the result carries the quantization's
// amax. Every other quantization of a matmul result is left
// to the quantize kernels, with a report-fallbacks remark saying why.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// The 16x16 weights cross the boundaries row-major, and the matmul kernels
// stage their scales by TMA: no producer-warp scale fallback to report.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file -o /dev/null 2>&1 | not grep "producer warp"
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major hardware-sr=true" --split-input-file | FileCheck %s --check-prefix=HWSR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefix=SM120

// The whole programs lower to host code (the PTX and ptxas figures are in
// tcgen05-nvfp4-epilogue-ptx.mlir).
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a boundary-scale-layout=row-major" -o /dev/null
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_120a" -o /dev/null

// CHECK-LABEL: func.func @fused_f32(
// CHECK-SAME:      %[[AMAX:[a-z0-9]+]]: f32)
// CHECK-NOT:     nvfp4_quantize
// CHECK:         %[[DATA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x128xf4E2M1FN>
// CHECK:         %[[SCALES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x8xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4
// CHECK-SAME:      %[[AMAX]] : f32, %[[DATA]] : memref<128x128xf4E2M1FN>, %[[SCALES]] : memref<128x8xf8E4M3FN>)
// CHECK-NOT:     gpu.launch_func
// The result carries the amax it was quantized with: the dequantization
// reads the epilogue's buffers and that amax, with no host arithmetic.
// CHECK-NOT:     arith.divf
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_128x128_1x16_f32
// CHECK-SAME:      args(%[[DATA]] : memref<128x128xf4E2M1FN>, %[[SCALES]] : memref<128x8xf8E4M3FN>, %[[AMAX]] : f32
// Device: the encode scale once per thread, then per 16 accumulator columns
// of the thread's row: the E2M1 conversions, one 8-byte store of the codes
// at (row * 128 + col) / 2 and one byte of scale at row * 8 + col / 16.
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4(
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

// A chain: the second matmul reads the first one's epilogue output, whose
// scales the epilogue writes as atoms (tcgen05-scale-atoms.mlir), as A.
// CHECK-LABEL: func.func @chain(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n256k256_t256_1x16_16x16_f32_sfstaged_b_nvfp4_sfatoms
// CHECK-NOT:     nvfp4_quantize
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfatoms_a_sfstaged_b_nvfp4
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

// No amax operand: the tensor scale depends on the whole result, so the
// quantization stays a separate kernel, but the matmul kernel's epilogue
// computes the result's amax (an atomic maximum per warp into a buffer the
// host zeroes), which saves the amax kernel. A Hadamard transform needs the
// amax of the transformed result: the amax kernel stays.
// CHECK-LABEL: func.func @no_amax(
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<1xf32>
// CHECK:         memref.store %{{.*}}, %[[BUF]][%{{.*}}] : memref<1xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_resultamax blocks
// CHECK-SAME:      %{{.*}} : memref<128x128xf32>, %[[BUF]] : memref<1xf32>)
// The result is written; the amax buffer read (the host's 0) and written.
// CHECK-SAME:      nvfp4.operand_access = array<i32: 1, 0, 1, 0, 1, 0, 1, 0, 0, 2, 3>
// CHECK:         %[[AMAX:.*]] = memref.load %[[BUF]][%{{.*}}] : memref<1xf32>
// CHECK:         memref.dealloc %[[BUF]] : memref<1xf32>
// CHECK-NOT:     @nvfp4_amax_
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_amax
// CHECK-SAME:      %[[AMAX]] : f32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_128x128_f32_rhtd2ca
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_rhtd2ca blocks
// Device: the thread's running maximum of |value| (NaN ignored) over its
// chunks, then per tile a warp maximum and one atomic by lane 0.
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_resultamax(
// CHECK-SAME:      %{{[^:]*}}: memref<128x128xf32>, %[[KBUF:[^:]*]]: memref<1xf32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)  : i32 {
// CHECK:           nvvm.tcgen05.ld
// CHECK:           arith.andi %{{.*}}, %c2147483647_i32 : i32
// CHECK:           arith.cmpf ogt
// CHECK:           scf.yield %{{.*}} : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         scf.if
// CHECK:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:           llvm.atomicrmw umax %{{.*}}, %[[BITS]] monotonic : !llvm.ptr<1>, i32
func.func @no_amax(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}nvfp4: fallback: the matmul result is stored and quantized by a separate kernel instead of in the tcgen05 epilogue: without an amax operand the tensor scale depends on the whole result, which no CTA sees (the matmul kernel's epilogue computes the result's amax for the quantize kernel)
  %q = nvfp4.quantize %y : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  %y2 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}without an amax operand the tensor scale depends on the whole result, which no CTA sees{{$}}
  %q2 = nvfp4.quantize %y2 hadamard [1, -1, 1, -1, 1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1] : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d2 = nvfp4.dequantize %q2 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d, %d2 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// Delayed scaling: the quantization uses an earlier amax and the step
// records the result's own amax (used here before the quantization): one
// kernel writes the NVFP4 result and the amax, read on the host at the
// matmul.
// CHECK-LABEL: func.func @delayed_scaling(
// CHECK-SAME:      %[[PREV:[a-z0-9]+]]: f32)
// CHECK:         %[[BUF:.*]] = memref.alloc() : memref<1xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_bf16_sfstaged_b_nvfp4_resultamax blocks
// CHECK-SAME:      %[[PREV]] : f32, %{{.*}} : memref<128x128xf4E2M1FN>, %{{.*}} : memref<128x8xf8E4M3FN>, %[[BUF]] : memref<1xf32>)
// CHECK:         %[[NEXT:.*]] = memref.load %[[BUF]]
// CHECK-NOT:     gpu.launch_func @nvfp4_kernels::@nvfp4_{{amax|quantize}}
// CHECK:         %[[HALF:.*]] = arith.mulf %[[NEXT]], %{{.*}} : f32
// CHECK:         return %{{.*}}, %[[HALF]] : tensor<128x128xf32>, f32
// The amax is of the bf16-rounded result.
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_bf16_sfstaged_b_nvfp4_resultamax(
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         llvm.atomicrmw umax
func.func @delayed_scaling(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %prev: f32) -> (tensor<128x128xf32>, f32) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xbf16>
  %next = nvfp4.amax %y : tensor<128x128xbf16>
  %half = arith.constant 0.5 : f32
  %h = arith.mulf %next, %half : f32
  %q = nvfp4.quantize %y amax %prev : tensor<128x128xbf16> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d, %h : tensor<128x128xf32>, f32
}

// -----

// An amax operand computed from the result itself (current scaling written
// out): the quantization stays a separate kernel; the matmul kernel computes
// the amax. A plain nvfp4.amax of a result is computed the same way.
// CHECK-LABEL: func.func @amax_of_result(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_resultamax blocks
// CHECK:         %[[A:.*]] = memref.load
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_amax
// CHECK-SAME:      %[[A]] : f32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_resultamax blocks
// CHECK:         %[[A2:.*]] = memref.load
// CHECK-NOT:     @nvfp4_amax_
// CHECK:         return %{{.*}}, %{{.*}}, %[[A2]] :
func.func @amax_of_result(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>) -> (tensor<128x128xf32>, tensor<128x128xf32>, f32) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %amax = nvfp4.amax %y : tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}the amax operand is defined after the matmul (e.g. from its result), so the tensor scale is unknown when the kernel runs
  %q = nvfp4.quantize %y amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  %y2 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %amax2 = nvfp4.amax %y2 : tensor<128x128xf32>
  return %d, %y2, %amax2 : tensor<128x128xf32>, tensor<128x128xf32>, f32
}

// -----

// Left alone: the matmul result has another use.
// CHECK-LABEL: func.func @two_uses(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b blocks
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_1x16_f32_rn_amax
func.func @two_uses(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}the matmul result has other uses, so it is stored anyway
  %q = nvfp4.quantize %y amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %y, %d : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// 16x16 blocks: the 16 lanes of a half warp hold the 16 rows of a scale
// tile, so the block amax is the maximum over lanes xor 1, 2, 4, 8, and the
// tile's first row stores the scale byte at (row / 16) * 8 + col / 16.
// CHECK-LABEL: func.func @fused_16x16(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_16x16
// CHECK-SAME:      %{{.*}} : f32, %{{.*}} : memref<128x128xf4E2M1FN>, %{{.*}} : memref<8x8xf8E4M3FN>)
// CHECK-NOT:     nvfp4_quantize
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_16x16(
// CHECK:         nvvm.tcgen05.ld
// CHECK:         gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:         gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f4x2
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK:         %[[TROW:.*]] = arith.divui %[[ROW:.*]], %c16_i32 : i32
// CHECK:         %[[FIRST:.*]] = arith.muli %[[TROW]], %c16_i32 : i32
// CHECK:         %[[ISFIRST:.*]] = arith.cmpi eq, %[[FIRST]], %[[ROW]] : i32
// CHECK:         scf.if %[[ISFIRST]] {
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
func.func @fused_16x16(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  %q = nvfp4.quantize %y amax %amax : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}

// -----

// Stochastic rounding: the seed is a kernel argument, and block b of the
// result draws philox4x32(seed, offset + b) as the quantize kernel does
// (software rounding unless hardware-sr). Without a seed operand, seed 0.
// CHECK-LABEL: func.func @fused_stochastic(
// CHECK-SAME:      %[[SEED:[a-z0-9]+]]: i64)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_rs_o64
// CHECK-SAME:      %{{.*}} : f32, %[[SEED]] : i64, %{{.*}} : memref<128x128xf4E2M1FN>, %{{.*}} : memref<128x8xf8E4M3FN>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_16x16_rs_o0
// CHECK-SAME:      %{{.*}} : f32, %[[ZERO]] : i64,
// CHECK-NOT:     nvfp4_quantize
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_rs_o64(
// CHECK-SAME:      %{{[^:]*}}: f32, %[[KSEED:[^:]*]]: i64,
// CHECK:         nvvm.tcgen05.ld
// CHECK:         %[[BLK:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK:         %[[CTR:.*]] = arith.addi %[[BLK]], %c64_i64 : i64
// CHECK:         arith.trunci %[[CTR]] : i64 to i32
// CHECK:         arith.constant -766435501 : i32
// CHECK-NOT:     nvvm.convert.f32x4.to.f4x4
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// HWSR-LABEL:  func.func @fused_stochastic(
// HWSR:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_rs_o64_hw
// HWSR:          gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_16x16_rs_o0_hw
// HWSR:        gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_f32_sfstaged_b_nvfp4_rs_o64_hw(
// HWSR-COUNT-4:  nvvm.convert.f32x4.to.f4x4
// HWSR-NOT:      nvvm.convert.f32x2.to.f4x2
// HWSR:          llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
func.func @fused_stochastic(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32, %seed: i64) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %y0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}nvfp4: fallback: stochastic rounding in software
  %q0 = nvfp4.quantize %y0 amax %amax rounding rs seed %seed offset 64 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  %y1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xf32>
  // REMARK: :[[@LINE+1]]:{{[0-9]+}}: remark: {{.*}}nvfp4: fallback: stochastic rounding in software
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs offset 0 : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
  return %d0, %d1 : tensor<128x128xf32>, tensor<128x128xf32>
}

// -----

// A Hadamard transform: the thread's 16 columns are one transform block, so
// it is applied in registers (signs, butterflies, times 1/4) after the
// rounding to the result type and before the block amax.
// CHECK-LABEL: func.func @fused_hadamard(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_bf16_sfstaged_b_nvfp4_rhtd2ca
// CHECK-NOT:     nvfp4_quantize
// CHECK:       gpu.func @nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_16x16_bf16_sfstaged_b_nvfp4_rhtd2ca(
// CHECK:         nvvm.tcgen05.ld
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         arith.negf
// CHECK-COUNT-32: arith.addf
// CHECK:         arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK-COUNT-8: nvvm.convert.f32x2.to.f4x2
func.func @fused_hadamard(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 16x16>, %amax: f32) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 16x16> -> tensor<128x128xbf16>
  %q = nvfp4.quantize %y amax %amax hadamard [1, -1, 1, -1, 1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1] : tensor<128x128xbf16> -> !nvfp4.tensor<128x128, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %d : tensor<128x128xf32>
}
