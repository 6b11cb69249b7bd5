// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" --split-input-file 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" -o /dev/null

// The tcgen05 kernel's TMA row strides (K / 2 bytes) must be multiples of
// 16 bytes. A matmul whose K is a multiple of 16 but not of 32 runs on K
// padded to the next multiple of 32 (zero codes and zero scales: the
// product is unchanged). Operands from outside (arguments, assembled
// tensors) are copied: on the integer views of the codes and scales, 16
// zero codes and one zero scale appended to every row (the scale rows of a
// 16x16 operand likewise), the tensor scale kept. Operands the program
// quantizes are quantized into K-padded storage instead (the quantize
// kernel or the NVFP4 epilogue writes the padding; a quantization with
// other uses is computed a second time for the matmul).
// test/GPU/matmul-sm100-emulated.mlir runs both bit-exact. The mma.sync
// kernels take such a K as it is.

// CHECK: remark: nvfp4: fallback: both operands are copied with K padded from 48 to 64 (zero codes and scales) for the tcgen05 kernel, whose TMA row strides of K / 2 bytes must be multiples of 16 bytes
// CHECK-LABEL: func.func @k48(
// CHECK-SAME:    %[[A:[^:]*]]: !nvfp4.tensor<128x48, 1x16>, %[[B:[^:]*]]: !nvfp4.tensor<64x48, 16x16, decode>
// CHECK:         %[[AD:.*]], %[[AS:.*]], %[[AG:.*]] = nvfp4.disassemble %[[A]]
// CHECK:         %[[ADI:.*]] = arith.bitcast %[[AD]] : tensor<128x48xf4E2M1FN> to tensor<128x48xi4>
// CHECK:         %[[Z4:.*]] = arith.constant 0 : i4
// CHECK:         %[[ADP:.*]] = tensor.pad %[[ADI]] low[0, 0] high[0, 16]
// CHECK:           tensor.yield %[[Z4]] : i4
// CHECK:         %[[ADF:.*]] = arith.bitcast %[[ADP]] : tensor<128x64xi4> to tensor<128x64xf4E2M1FN>
// CHECK:         %[[ASI:.*]] = arith.bitcast %[[AS]] : tensor<128x3xf8E4M3FN> to tensor<128x3xi8>
// CHECK:         %[[Z8:.*]] = arith.constant 0 : i8
// CHECK:         %[[ASP:.*]] = tensor.pad %[[ASI]] low[0, 0] high[0, 1]
// CHECK:           tensor.yield %[[Z8]] : i8
// CHECK:         %[[ASF:.*]] = arith.bitcast %[[ASP]] : tensor<128x4xi8> to tensor<128x4xf8E4M3FN>
// CHECK:         %[[BD:.*]], %[[BS:.*]], %[[BG:.*]] = nvfp4.disassemble %[[B]]
// CHECK:         tensor.pad %{{.*}} low[0, 0] high[0, 16]
// CHECK:         %[[BSP:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 1]
// CHECK:         %[[BSF:.*]] = arith.bitcast %[[BSP]] : tensor<4x4xi8> to tensor<4x4xf8E4M3FN>
// CHECK:         bufferization.to_buffer %[[ADF]]
// CHECK:         bufferization.to_buffer %[[ASF]]
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k64_t64_1x16_16x16_f32_ds_b
// CHECK-SAME:      %[[AG]] : f32
// CHECK-SAME:      %[[BG]] : f32
// MMA-NOT: remark
// MMA: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n64k48_1x16_16x16_f32_ds_b
func.func @k48(%a: !nvfp4.tensor<128x48, 1x16>,
               %b: !nvfp4.tensor<64x48, 16x16, decode>) -> tensor<128x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x48, 1x16>,
         !nvfp4.tensor<64x48, 16x16, decode> -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}

// -----

// K a multiple of 32 is left alone.
// CHECK-NOT: remark
// CHECK-LABEL: func.func @k96(
// CHECK-NOT:     tensor.pad
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_b2m40n24k96_
func.func @k96(%a: !nvfp4.tensor<2x40x96, 1x16>,
               %b: !nvfp4.tensor<2x24x96, 1x16>) -> tensor<2x40x24xbf16> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<2x40x96, 1x16>,
         !nvfp4.tensor<2x24x96, 1x16> -> tensor<2x40x24xbf16>
  return %c : tensor<2x40x24xbf16>
}

// -----

// Quantized in the program: straight into storage 64 columns wide, which
// the kernel reads in place (no copy, no remark).
// REMARK: remark: nvfp4: fallback: both operands are copied with K padded from 48 to 64
// REMARK-NOT: remark
// CHECK-LABEL: func.func @quantized(
// CHECK-NOT:     tensor.pad
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x48_1x16_f32_rn_pad64 {{.*}} args(%{{.*}} : memref<128x48xf32>, %{{.*}} : memref<3xf32>, %[[AD:.*]] : memref<128x64xf4E2M1FN>, %[[AS:.*]] : memref<128x4xf8E4M3FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x48_16x16_bf16_rn_pad64 {{.*}} args(%{{.*}} : memref<64x48xbf16>, %{{.*}} : memref<2xf32>, %[[BD:.*]] : memref<64x64xf4E2M1FN>, %[[BS:.*]] : memref<4x4xf8E4M3FN>,
// CHECK-NOT:     tensor.pad
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k64_t64_1x16_16x16_f32 {{.*}} args(%[[AD]] : memref<128x64xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[AS]] : memref<128x4xf8E4M3FN>, %{{.*}} : f32, %[[BD]] : memref<64x64xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[BS]] : memref<4x4xf8E4M3FN>,
// The kernel: 512 storage blocks (128 rows of 4); blocks past the input's
// 3 column blocks load zeros.
// CHECK:       gpu.func @nvfp4_quantize_128x48_1x16_f32_rn_pad64(
// CHECK:         %[[VALID:.*]] = arith.cmpi ult, %[[BLOCK:.*]], %c512 : index
// CHECK:         %[[COLBLOCK:.*]] = arith.remui %[[BLOCK]], %c4 : index
// CHECK:         %[[INSIDE:.*]] = arith.cmpi ult, %[[COLBLOCK]], %c3 : index
// CHECK:         %[[LOADS:.*]] = arith.andi %[[VALID]], %[[INSIDE]] : i1
// CHECK:         scf.if %[[LOADS]] -> (f32,
// MMA-LABEL: func.func @quantized(
// MMA-NOT: _pad
// MMA: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n64k48_
func.func @quantized(%x: tensor<128x48xf32>, %w: tensor<64x48xbf16>) -> tensor<128x64xf32> {
  %qx = nvfp4.quantize %x : tensor<128x48xf32> -> !nvfp4.tensor<128x48, 1x16>
  %qw = nvfp4.quantize %w : tensor<64x48xbf16> -> !nvfp4.tensor<64x48, 16x16>
  %c = nvfp4.matmul %qx, %qw : !nvfp4.tensor<128x48, 1x16>, !nvfp4.tensor<64x48, 16x16> -> tensor<128x64xf32>
  return %c : tensor<128x64xf32>
}

// -----

// A quantization also dequantized is computed a second time, into padded
// storage, for the matmul; the argument B is copied.
// REMARK: tcgen05-k-padding.mlir:[[@LINE+10]]:8: remark: nvfp4: fallback: the rhs operand is copied with K padded from 48 to 64 (zero codes and scales) for the tcgen05 kernel, whose TMA row strides of K / 2 bytes must be multiples of 16 bytes
// REMARK: tcgen05-k-padding.mlir:[[@LINE+9]]:8: remark: nvfp4: fallback: the lhs operand is computed a second time (its quantization or transpose), into storage with K padded from 48 to 64 for the tcgen05 kernel (TMA row strides of K / 2 bytes must be multiples of 16 bytes), as the first result has uses other than matmuls
// CHECK-LABEL: func.func @mixed(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x48_1x16_f32_rn {{.*}} args({{.*}}, %[[D:.*]] : memref<128x48xf4E2M1FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x48_1x16_f32_rn_pad64 {{.*}} args({{.*}}, %[[PD:.*]] : memref<128x64xf4E2M1FN>,
// CHECK:         tensor.pad %{{.*}} low[0, 0] high[0, 16]
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k64_{{.*}} args(%[[PD]] : memref<128x64xf4E2M1FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_128x48_1x16_f32 {{.*}} args(%[[D]] : memref<128x48xf4E2M1FN>,
func.func @mixed(%x: tensor<128x48xf32>, %b: !nvfp4.tensor<64x48, 1x16>) -> (tensor<128x64xf32>, tensor<128x48xf32>) {
  %qx = nvfp4.quantize %x : tensor<128x48xf32> -> !nvfp4.tensor<128x48, 1x16>
  %c = nvfp4.matmul %qx, %b : !nvfp4.tensor<128x48, 1x16>, !nvfp4.tensor<64x48, 1x16> -> tensor<128x64xf32>
  %d = nvfp4.dequantize %qx : !nvfp4.tensor<128x48, 1x16> -> tensor<128x48xf32>
  return %c, %d : tensor<128x64xf32>, tensor<128x48xf32>
}

// -----

// The NVFP4 epilogue of a GEMM with N = 80 writes storage 96 columns wide
// (the blocks past N zeroed) for the next GEMM, whose K is 80.
// REMARK-NOT: remark
// CHECK-LABEL: func.func @epilogue(
// CHECK:         %[[YD:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x96xf4E2M1FN>
// CHECK:         %[[YS:.*]] = memref.alloc() {alignment = 16 : i64} : memref<128x6xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n80k256_{{.*}}_nvfp4_pad96 {{.*}}, %[[YD]] : memref<128x96xf4E2M1FN>, %[[YS]] : memref<128x6xf8E4M3FN>)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x80_1x16_f32_rn_pad96 {{.*}}, %[[VD:.*]] : memref<64x96xf4E2M1FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k96_{{.*}} args(%[[YD]] : memref<128x96xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[YS]] : memref<128x6xf8E4M3FN>, %{{.*}} : f32, %[[VD]] : memref<64x96xf4E2M1FN>,
func.func @epilogue(%x: tensor<128x256xf32>, %w: tensor<80x256xf32>, %v: tensor<64x80xf32>, %amax: f32) -> tensor<128x64xf32> {
  %qx = nvfp4.quantize %x : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<80x256xf32> -> !nvfp4.tensor<80x256, 1x16>
  %y = nvfp4.matmul %qx, %qw : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<80x256, 1x16> -> tensor<128x80xf32>
  %qy = nvfp4.quantize %y amax %amax : tensor<128x80xf32> -> !nvfp4.tensor<128x80, 1x16>
  %qv = nvfp4.quantize %v : tensor<64x80xf32> -> !nvfp4.tensor<64x80, 1x16>
  %z = nvfp4.matmul %qy, %qv : !nvfp4.tensor<128x80, 1x16>, !nvfp4.tensor<64x80, 1x16> -> tensor<128x64xf32>
  return %z : tensor<128x64xf32>
}
