// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --split-input-file 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" --split-input-file 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" -o /dev/null

// The tcgen05 kernel's TMA row strides (K / 2 bytes) must be multiples of
// 16 bytes. A matmul whose K is a multiple of 16 but not of 32 gets both
// operands copied with K padded to the next multiple of 32: on the integer
// views of the codes and scales, 16 zero codes and one zero scale appended
// to every row (the scale rows of a 16x16 operand likewise), the tensor
// scale kept, and the kernel runs on the padded K. The product is unchanged
// (exact zeros); test/GPU/matmul-sm100-emulated.mlir runs K = 16, 48, 80
// and 272 bit-exact. The mma.sync kernels take such a K as it is.

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
