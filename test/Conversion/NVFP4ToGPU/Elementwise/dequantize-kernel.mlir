// nvfp4.dequantize -> one launch of a dequantize kernel (one thread per
// 16-element block, 128 threads per CTA); a dequantize of a quantized value
// reads the quantize kernel's buffers directly.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s

// A value from outside: disassembled, its components passed as read-only
// buffers with the f32 amax; the result is a fresh 16-byte aligned
// buffer the kernel writes. 64x128 = 512 blocks = 4 CTAs.
// CHECK-LABEL: func.func @weights(
// CHECK-SAME:      %[[Q:.*]]: !nvfp4.tensor<64x128, 16x16>
// CHECK:         %[[D:.*]], %[[S:.*]], %[[G:.*]] = nvfp4.disassemble %[[Q]]
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<64x128xbf16>
// CHECK:         %[[DB:.*]] = bufferization.to_buffer %[[D]] read_only : tensor<64x128xf4E2M1FN> to memref<64x128xf4E2M1FN>
// CHECK:         %[[SB:.*]] = bufferization.to_buffer %[[S]] read_only : tensor<4x8xf8E4M3FN> to memref<4x8xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_64x128_16x16_bf16 blocks in (%c4, %{{.*}}, %{{.*}}) threads in (%c128{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}) args(%[[DB]] : memref<64x128xf4E2M1FN>, %[[SB]] : memref<4x8xf8E4M3FN>, %[[G]] : f32, %[[OUT]] : memref<64x128xbf16>)
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:         return %[[R]]
func.func @weights(%q: !nvfp4.tensor<64x128, 16x16>) -> tensor<64x128xbf16> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<64x128, 16x16> -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}

// The kernel: guard gid < 512, 8 code bytes at 8 * block, the compact scale
// of the block's 16-row tile, exact decodes, Transformer Engine's order
// code * ((scale * amax) * fl(1/2688)), rounded to bf16, two 16-byte stores.
// CHECK:       gpu.module @nvfp4_kernels
// CHECK:         gpu.func @nvfp4_dequantize_64x128_16x16_bf16(%{{.*}}: memref<64x128xf4E2M1FN>, %{{.*}}: memref<4x8xf8E4M3FN>, %[[KG:.*]]: f32, %{{.*}}: memref<64x128xbf16>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK:           %[[INV2688:.*]] = arith.constant 3.72023816E-4 : f32
// CHECK:           arith.cmpi ult, %{{.*}}, %c512
// CHECK:           scf.if
// CHECK:             llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// CHECK:             arith.divui %{{.*}}, %c128
// CHECK:             llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:             %[[SCALED:.*]] = arith.mulf %[[SCALE:.*]], %[[KG]] : f32
// CHECK-NEXT:        %[[FACTOR:.*]] = arith.mulf %[[SCALED]], %[[INV2688]] : f32
// CHECK:             arith.shrui %c-932957680_i32
// CHECK-COUNT-16:    arith.mulf %{{.*}}, %[[FACTOR]] : f32
// CHECK-COUNT-8:     arith.truncf %{{.*}} : f32 to bf16
// CHECK:             llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-COUNT-8:     arith.truncf %{{.*}} : f32 to bf16
// CHECK:             llvm.store %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
// CHECK-NOT:         llvm.store
// CHECK:           gpu.return

// -----

// quantize -> dequantize: the dequantize kernel reads the quantize kernel's
// data and scale buffers and its amax; no disassemble, no copy, and the
// assembly that only fed the dequantize is erased (no host code is left
// that reads the packed buffer as a tensor).
// CHECK-LABEL: func.func @round_trip(
// CHECK:         %[[DATA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<32x64xf4E2M1FN>
// CHECK:         %[[SCALES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<32x4xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_32x64_1x16_f16_rn
// CHECK:         %[[G:.*]] = memref.load
// CHECK-NOT:     nvfp4.disassemble
// CHECK-NOT:     nvfp4.assemble
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 16 : i64} : memref<32x64xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_32x64_1x16_f32 blocks in (%c1{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}) threads in (%c128{{(_[0-9]+)?}}, %{{.*}}, %{{.*}}) args(%[[DATA]] : memref<32x64xf4E2M1FN>, %[[SCALES]] : memref<32x4xf8E4M3FN>, %[[G]] : f32, %[[OUT]] : memref<32x64xf32>)
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:       gpu.func @nvfp4_dequantize_32x64_1x16_f32(
// CHECK-NOT:     arith.divui
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
func.func @round_trip(%x: tensor<32x64xf16>) -> tensor<32x64xf32> {
  %q = nvfp4.quantize %x : tensor<32x64xf16> -> !nvfp4.tensor<32x64, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 1x16> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// -----

// Identical dequantizations share one kernel; the partial last CTA (rank 3,
// 2x8x64 = 64 blocks) is guarded.
// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-2: gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_2x8x64_1x16_f16
// CHECK:       gpu.module @nvfp4_kernels
// CHECK-COUNT-1: gpu.func @nvfp4_dequantize_2x8x64_1x16_f16(
// CHECK-NOT:   gpu.func
// CHECK-LABEL: arith.cmpi ult, %{{.*}}, %c64
func.func @shared(%a: !nvfp4.tensor<2x8x64, 1x16>, %b: !nvfp4.tensor<2x8x64, 1x16>) -> (tensor<2x8x64xf16>, tensor<2x8x64xf16>) {
  %x = nvfp4.dequantize %a : !nvfp4.tensor<2x8x64, 1x16> -> tensor<2x8x64xf16>
  %y = nvfp4.dequantize %b : !nvfp4.tensor<2x8x64, 1x16> -> tensor<2x8x64xf16>
  return %x, %y : tensor<2x8x64xf16>, tensor<2x8x64xf16>
}
