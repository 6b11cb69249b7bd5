// Operands with a decode tensor scale (`!nvfp4.tensor<..., decode>`, a
// weight from a Model Optimizer checkpoint): the kernels are specialized on
// the tensor-scale kinds (`_ds_*` names), the dequantize kernel multiplies
// the block scale by the decode scale only, and the GEMM's alpha is the
// product of the decode scales, an amax contributing amax * fl(1/2688)
// (3.72023816E-4). Every kernel is assembled by ptxas for each target.
// The numerics run bit-exact in the emulator: python/tests/test_checkpoints.py.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefixes=CHECK,MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" --split-input-file | FileCheck %s --check-prefixes=CHECK,TC
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_121a %t.sm_121a.ptx -o %t.sm_121a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm_90a.ptx -o %t.sm_90a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_103a %t.sm_103a.ptx -o %t.sm_103a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a boundary-scale-layout=row-major" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_110a %t.sm_110a.ptx -o %t.sm_110a.cubin %}

// An amax-scaled activation times a decode-scaled weight.
// CHECK-LABEL: func.func @mixed(
// CHECK:         %[[AD:.*]], %[[AS:.*]], %[[AG:.*]] = nvfp4.disassemble %arg0 : !nvfp4.tensor<128x256, 1x16>
// CHECK:         %[[BD:.*]], %[[BS:.*]], %[[BG:.*]] = nvfp4.disassemble %arg1 : !nvfp4.tensor<128x256, 1x16, decode>
// MMA:           gpu.launch_func @nvfp4_kernels::@[[K:nvfp4_matmul_m128n128k256_1x16_1x16_f32_ds_b]]
// TC:            gpu.launch_func @nvfp4_kernels::@[[K:nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_1x16_f32_ds_b]]
// CHECK-SAME:      %[[AG]] : f32
// CHECK-SAME:      %[[BG]] : f32
// CHECK:         gpu.func @[[K]](
// CHECK-SAME:      %{{[^:]*}}: memref<128x16xf8E4M3FN>, %[[KAG:[^:]*]]: f32
// CHECK-SAME:      %{{[^:]*}}: memref<128x16xf8E4M3FN>, %[[KBG:[^:]*]]: f32
// CHECK-DAG:       %[[INV2688:.*]] = arith.constant 3.72023816E-4 : f32
// CHECK:           %[[AD2:.*]] = arith.mulf %[[KAG]], %[[INV2688]] : f32
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.mulf %[[AD2]], %[[KBG]] : f32
// CHECK-NOT:       1.38401717E-7
// CHECK:           arith.mulf %{{.*}}, %[[ALPHA]] : f32
func.func @mixed(%a: !nvfp4.tensor<128x256, 1x16>,
                 %b: !nvfp4.tensor<128x256, 1x16, decode>) -> tensor<128x128xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>,
         !nvfp4.tensor<128x256, 1x16, decode> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}

// -----

// Two decode scales: alpha is their product (vLLM's input_scale *
// weight_scale_2), with no constant factor. (The tcgen05 kernel stages the
// 16x16 A scales: their tensor map follows their buffer.)
// CHECK-LABEL: func.func @both(
// MMA:           gpu.launch_func @nvfp4_kernels::@[[K:nvfp4_matmul_m128n128k256_16x16_1x16_bf16_ds_ab]]
// TC:            gpu.launch_func @nvfp4_kernels::@[[K:nvfp4_tcgen05_matmul_m128n128k256_t128_16x16_1x16_bf16_ds_ab_sfstaged_a]]
// CHECK:         gpu.func @[[K]](
// CHECK-SAME:      %{{[^:]*}}: memref<8x16xf8E4M3FN>, {{(%[^:]*: !llvm.array<16 x i64>, )?}}%[[KAG:[^:]*]]: f32
// CHECK-SAME:      %{{[^:]*}}: memref<128x16xf8E4M3FN>, %[[KBG:[^:]*]]: f32
// CHECK:           %[[ALPHA:.*]] = arith.mulf %[[KAG]], %[[KBG]] : f32
// CHECK:           arith.mulf %{{.*}}, %[[ALPHA]] : f32
func.func @both(%a: !nvfp4.tensor<128x256, 16x16, decode>,
                %b: !nvfp4.tensor<128x256, 1x16, decode>) -> tensor<128x128xbf16> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 16x16, decode>,
         !nvfp4.tensor<128x256, 1x16, decode> -> tensor<128x128xbf16>
  return %c : tensor<128x128xbf16>
}

// -----

// Dequantize: the block's factor is scale * decode scale, and no 1/2688.
// CHECK-LABEL: func.func @dequantize(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_32x64_1x16_f32_ds
// CHECK:         gpu.func @nvfp4_dequantize_32x64_1x16_f32_ds(
// CHECK-SAME:      %{{[^:]*}}: memref<32x64xf4E2M1FN>, %{{[^:]*}}: memref<32x4xf8E4M3FN>, %[[KG:[^:]*]]: f32
// CHECK-NOT:       3.72023816E-4
// CHECK:           %[[FACTOR:.*]] = arith.mulf %{{.*}}, %[[KG]] : f32
// CHECK:           arith.shrui %c-932957680_i32
// CHECK-COUNT-16:  arith.mulf %{{.*}}, %[[FACTOR]] : f32
func.func @dequantize(%q: !nvfp4.tensor<32x64, 1x16, decode>) -> tensor<32x64xf32> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 1x16, decode> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}
