// nvfp4.hadamard -> one launch of a Hadamard kernel: one thread per
// 16-element group, the butterfly order of docs/numerics.md §5 in f32,
// rounded once to the element type.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_103a" --split-input-file | FileCheck %s

// TE's signs (mask 0xd7e8: signs 3, 5, 6, 7, 8, 9, 10, 12, 14, 15 negative).
// 256x64 = 1024 groups = 8 CTAs.
// CHECK-LABEL: func.func @te_signs(
// CHECK-SAME:      %[[X:.*]]: tensor<256x64xbf16>
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256x64xbf16>
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<256x64xbf16> to memref<256x64xbf16>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_hadamard_256x64_bf16_sd7e8 blocks in (%c8, %{{.*}}, %{{.*}}) threads in (%c128{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}) args(%[[IN]] : memref<256x64xbf16>, %[[OUT]] : memref<256x64xbf16>)
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[R]]
// CHECK:       gpu.func @nvfp4_hadamard_256x64_bf16_sd7e8(
// CHECK:           arith.cmpi ult, %{{.*}}, %c1024
// CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
// CHECK-COUNT-16:  arith.extf
// CHECK-COUNT-10:  arith.negf
// CHECK-NOT:       arith.negf
// Stage h = 1: (v0 + v1, v0 - v1), ...; 32 adds and 32 subtractions in all.
// CHECK:           %[[A0:.*]] = arith.addf %[[V0:.*]], %[[V1:.*]] : f32
// CHECK-NEXT:      %[[S0:.*]] = arith.subf %[[V0]], %[[V1]] : f32
// CHECK-COUNT-16:  arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK-COUNT-8:   arith.truncf %{{.*}} : f32 to bf16
// CHECK:           llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-8:   arith.truncf %{{.*}} : f32 to bf16
// CHECK:           llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-NOT:       llvm.store
// CHECK:           gpu.return
func.func @te_signs(%x: tensor<256x64xbf16>) -> tensor<256x64xbf16> {
  %y = nvfp4.hadamard %x : tensor<256x64xbf16>
  return %y : tensor<256x64xbf16>
}

// -----

// f32, custom signs, rank 1: no rounding step; a partial CTA (4 groups).
// CHECK-LABEL: func.func @custom(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_hadamard_64_f32_s0f0f blocks in (%c1{{(_[0-9]+)?}}, %{{.*}}, %{{.*}})
// CHECK:       gpu.func @nvfp4_hadamard_64_f32_s0f0f(
// CHECK:           arith.cmpi ult, %{{.*}}, %c4
// CHECK-COUNT-4:   llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-8:   arith.negf
// CHECK-NOT:       arith.negf
// CHECK-NOT:       arith.truncf
// CHECK-COUNT-4:   llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @custom(%x: tensor<64xf32>) -> tensor<64xf32> {
  %y = nvfp4.hadamard %x signs [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1] : tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Hadamard then quantize (the recipe's explicit RHT): two kernels, the
// quantize kernel reads the Hadamard kernel's output buffer.
// CHECK-LABEL: func.func @rht_then_quantize(
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<16x32xf16>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_hadamard_16x32_f16_s0000
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_16x32_f16
func.func @rht_then_quantize(%x: tensor<16x32xf16>) -> !nvfp4.tensor<16x32, 16x16> {
  %y = nvfp4.hadamard %x signs [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] : tensor<16x32xf16>
  %q = nvfp4.quantize %y : tensor<16x32xf16> -> !nvfp4.tensor<16x32, 16x16>
  return %q : !nvfp4.tensor<16x32, 16x16>
}
