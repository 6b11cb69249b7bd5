// nvfp4.amax -> a launch of the amax kernel of the quantize lowering (one
// partial maximum per CTA) and the maximum of the partials on the host. A
// quantization without an explicit amax of a tensor of the same type
// launches the same kernel. On sm_100a an amax whose input is not a matmul
// result takes the same path.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_103a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a" --split-input-file | FileCheck %s

// 16384 elements, 16 per thread, 128 threads per CTA: 8 CTAs, 8 partials,
// reduced on the host from 0 by `x > acc ? x : acc`.
// CHECK-LABEL: func.func @amax(
// CHECK-SAME:      %[[X:.*]]: tensor<64x256xf32>) -> f32
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<64x256xf32> to memref<64x256xf32>
// CHECK:         %[[PART:.*]] = memref.alloc() {alignment = 16 : i64} : memref<8xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_64x256_f32 blocks in (%c8, %{{.*}}, %{{.*}}) threads in (%c128, %{{.*}}, %{{.*}}) args(%[[IN]] : memref<64x256xf32>, %[[PART]] : memref<8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[AMAX:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C8]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:      %[[P:.*]] = memref.load %[[PART]][%[[I]]] : memref<8xf32>
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[P]], %[[ACC]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.select %[[GT]], %[[P]], %[[ACC]] : f32
// CHECK-NEXT:      scf.yield %[[MAX]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[PART]] : memref<8xf32>
// CHECK-NEXT:    return %[[AMAX]] : f32
func.func @amax(%x: tensor<64x256xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<64x256xf32>
  return %a : f32
}

// The kernel: the grid-strided, NaN-ignoring walk of the quantize lowering;
// thread 0 of each CTA writes its partial.
// CHECK:       gpu.module @nvfp4_kernels
// CHECK:         gpu.func @nvfp4_amax_64x256_f32(%{{.*}}: memref<64x256xf32>, %[[OUT:.*]]: memref<8xf32>)
// CHECK-SAME:        workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK:           scf.for
// CHECK-COUNT-16:    arith.cmpf ogt
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:           gpu.barrier
// CHECK:           memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<8xf32>
// CHECK:           gpu.return
// CHECK-NOT:     gpu.func

// -----

// A quantization and an amax of the same bf16 tensor launch one kernel
// (twice: the amax has its own partials).
// CHECK-LABEL: func.func @shared(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_2x32x64_bf16 blocks in (%c2{{.*}}) {{.*}} args(%{{.*}} : memref<2x32x64xbf16>, %[[QPART:.*]] : memref<2xf32>)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_2x32x64_1x16_bf16_rn {{.*}} args(%{{.*}} : memref<2x32x64xbf16>, %[[QPART]] : memref<2xf32>,
// CHECK:         nvfp4.assemble
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_2x32x64_bf16 blocks in (%c2{{.*}}) {{.*}} args(%{{.*}} : memref<2x32x64xbf16>, %[[PART:.*]] : memref<2xf32>)
// CHECK:         scf.for
// CHECK:           memref.load %[[PART]]
// CHECK:         memref.dealloc %[[PART]] : memref<2xf32>
// CHECK:       gpu.module @nvfp4_kernels
// CHECK-COUNT-1: gpu.func @nvfp4_amax_2x32x64_bf16(
// CHECK-NOT:     gpu.func @nvfp4_amax
func.func @shared(%x: tensor<2x32x64xbf16>) -> (!nvfp4.tensor<2x32x64, 1x16>, f32) {
  %q = nvfp4.quantize %x : tensor<2x32x64xbf16> -> !nvfp4.tensor<2x32x64, 1x16>
  %a = nvfp4.amax %x : tensor<2x32x64xbf16>
  return %q, %a : !nvfp4.tensor<2x32x64, 1x16>, f32
}

// -----

// A rank-1 f16 input of 2^20 elements: 512 CTAs of blocks, but the amax
// kernel's grid stops at 256 CTAs (each thread strides over the rest).
// CHECK-LABEL: func.func @large(
// CHECK:         %[[PART:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_1048576_f16 blocks in (%c256, %{{.*}}, %{{.*}}) {{.*}} args(%{{.*}} : memref<1048576xf16>, %[[PART]] : memref<256xf32>)
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c256
// CHECK:       gpu.func @nvfp4_amax_1048576_f16(
func.func @large(%x: tensor<1048576xf16>) -> f32 {
  %a = nvfp4.amax %x : tensor<1048576xf16>
  return %a : f32
}
