// nvfp4.quantize -> amax + quantize kernels, and quantize -> matmul chains
// that hand the quantize kernels' buffers to the matmul kernel.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" --split-input-file | FileCheck %s --check-prefixes=CHECK,CVT
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a" --split-input-file | FileCheck %s --check-prefixes=CHECK,CVT
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" --split-input-file | FileCheck %s --check-prefixes=CHECK,SOFT

// Computed amax: the amax kernel writes one partial maximum per CTA (128
// threads, 16 elements each: 16384 / 2048 = 8 CTAs), the quantize kernel
// reduces them, writes data, compact scales and S_dec; the host reads S_dec
// back and assembles the NVFP4 value over the kernel's buffers.
// CHECK-LABEL: func.func @act(
// CHECK-SAME:      %[[X:.*]]: tensor<64x256xf32>
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<64x256xf32> to memref<64x256xf32>
// CHECK:         %[[PART:.*]] = memref.alloc() {alignment = 16 : i64} : memref<8xf32>
// Each launch records what its kernel reads (1) and writes (2); scalars 0.
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_64x256_f32 blocks in (%c8, %{{.*}}, %{{.*}}) threads in (%c128, %{{.*}}, %{{.*}}) args(%[[IN]] : memref<64x256xf32>, %[[PART]] : memref<8xf32>) {nvfp4.operand_access = array<i32: 1, 2>}
// CHECK:         %[[DATA:.*]] = memref.alloc() {alignment = 16 : i64} : memref<64x256xf4E2M1FN>
// CHECK:         %[[SCALES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<64x16xf8E4M3FN>
// CHECK:         %[[DEC:.*]] = memref.alloc() : memref<1xf32>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_1x16_f32_rn blocks in (%c8{{.*}}) threads in (%c128, %{{.*}}, %{{.*}}) args(%[[IN]] : memref<64x256xf32>, %[[PART]] : memref<8xf32>, %[[DATA]] : memref<64x256xf4E2M1FN>, %[[SCALES]] : memref<64x16xf8E4M3FN>, %[[DEC]] : memref<1xf32>) {nvfp4.operand_access = array<i32: 1, 1, 2, 2, 2>}
// CHECK:         %[[G:.*]] = memref.load %[[DEC]]
// CHECK:         %[[D:.*]] = bufferization.to_tensor %[[DATA]] restrict writable
// CHECK:         %[[S:.*]] = bufferization.to_tensor %[[SCALES]] restrict writable
// CHECK:         %[[Q:.*]] = nvfp4.assemble %[[D]], %[[S]], %[[G]] : tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN> -> !nvfp4.tensor<64x256, 1x16>
// CHECK:         return %[[Q]]
func.func @act(%x: tensor<64x256xf32>) -> !nvfp4.tensor<64x256, 1x16> {
  %q = nvfp4.quantize %x : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %q : !nvfp4.tensor<64x256, 1x16>
}

// CHECK:       gpu.module @nvfp4_kernels
// The kernels. Amax: grid-strided walk, NaN-ignoring max, warp butterfly,
// per-warp maxima in shared memory, thread 0 writes the CTA's partial.
// CHECK:         gpu.func @nvfp4_amax_64x256_f32(
// CHECK-SAME:        workgroup(%{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>}
// CHECK:           scf.for
// CHECK-COUNT-16:    arith.cmpf ogt
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK:           gpu.barrier
// CHECK:           gpu.return

// Quantize, 1x16 RN: the tensor amax reduced from the partials, S_enc =
// fminf(2688 / amax, FLT_MAX) (unordered compare: a NaN gives FLT_MAX), 1 for
// amax 0 or S_enc 0; thread 0 stores the amax (the NVFP4 value's f32
// component); then the block (BlockQuantizeIR.h): S_enc * fl(1/6), the E4M3
// scale, 1 / (scale * (1 / S_enc)), 16 products, 8 packed bytes in one i64
// store and one scale byte.
// CHECK:         gpu.func @nvfp4_quantize_64x256_1x16_f32_rn(
// CHECK-SAME:      %{{.*}}: memref<64x256xf32>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<64x256xf4E2M1FN>, %{{.*}}: memref<64x16xf8E4M3FN>, %[[AMAXOUT:.*]]: memref<1xf32>)
// CHECK-DAG:       %[[SIXTH:.*]] = arith.constant 0.166666672 : f32
// CHECK-DAG:       %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:       %[[FLTMAX:.*]] = arith.constant 3.40282347E+38 : f32
// CHECK-DAG:       %[[C2688:.*]] = arith.constant 2.688000e+03 : f32
// CHECK:           gpu.barrier
// CHECK:           %[[Q:.*]] = arith.divf %[[C2688]], %[[AMAX:.*]] : f32
// CHECK-NEXT:      %[[NANORBIG:.*]] = arith.cmpf ugt, %[[Q]], %[[FLTMAX]] : f32
// CHECK-NEXT:      arith.select %[[NANORBIG]], %[[FLTMAX]], %[[Q]] : f32
// CHECK:           memref.store %[[AMAX]], %[[AMAXOUT]][%c0] : memref<1xf32>
// CHECK:           arith.mulf %{{.*}}, %[[SIXTH]] : f32
// CHECK:           arith.divf %[[ONE]]
// CVT-COUNT-8:     nvvm.convert.f32x2.to.f4x2 %{{.*}}, %{{.*}} : i8(f4E2M1FN)
// SOFT-NOT:        nvvm.convert.f32x2.to.f4x2
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
// CHECK:           gpu.return

// -----

// Explicit amax: no amax kernel; the f32 goes to the quantize kernel.
// CHECK-LABEL: func.func @weight(
// CHECK-SAME:      %{{.*}}: tensor<128x128xbf16>, %[[AMAX:.*]]: f32
// CHECK-NOT:     nvfp4_amax
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x128_16x16_bf16_rn_amax {{.*}} args(%{{.*}} : memref<128x128xbf16>, %[[AMAX]] : f32, %{{.*}} : memref<128x128xf4E2M1FN>, %{{.*}} : memref<8x8xf8E4M3FN>, %{{.*}} : memref<1xf32>) {nvfp4.operand_access = array<i32: 1, 0, 2, 2, 2>}
// CHECK:         nvfp4.assemble {{.*}} : tensor<128x128xf4E2M1FN>, tensor<8x8xf8E4M3FN> -> !nvfp4.tensor<128x128, 16x16>
func.func @weight(%w: tensor<128x128xbf16>, %amax: f32) -> !nvfp4.tensor<128x128, 16x16> {
  %q = nvfp4.quantize %w amax %amax : tensor<128x128xbf16> -> !nvfp4.tensor<128x128, 16x16>
  return %q : !nvfp4.tensor<128x128, 16x16>
}

// 16x16: the tile amax over the aligned half warp (offsets 1, 2, 4, 8).
// CHECK:         gpu.func @nvfp4_quantize_128x128_16x16_bf16_rn_amax(
// CHECK-SAME:        %{{.*}}: memref<128x128xbf16>, %{{.*}}: f32,
// CHECK-NOT:       gpu.barrier
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK:           gpu.return


// -----

// Stochastic rounding with the RHT (sign mask 0xd7e8: TE's sign vector);
// the seed is a kernel argument, the offset is part of the kernel.
// CHECK-LABEL: func.func @grad(
// CHECK-SAME:      %{{.*}}: tensor<2x64x64xf16>, %[[SEED:.*]]: i64
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_2x64x64_f16_rhtd7e8
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_2x64x64_1x16_f16_rs_o8_rhtd7e8 {{.*}} %[[SEED]] : i64)
func.func @grad(%g: tensor<2x64x64xf16>, %seed: i64) -> !nvfp4.tensor<2x64x64, 1x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 8 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<2x64x64xf16> -> !nvfp4.tensor<2x64x64, 1x16>
  return %q : !nvfp4.tensor<2x64x64, 1x16>
}

// SR: software on every target, Philox4x32-10: 20 32x32->64 multiplies,
// the one by the zero counter word of round 0 folded away.
// CHECK:         gpu.func @nvfp4_quantize_2x64x64_1x16_f16_rs_o8_rhtd7e8(
// CHECK-SAME:        %{{.*}}: i64)
// CHECK-COUNT-19:  arith.mului_extended
// CHECK-NOT:       nvvm.convert.f32x2.to.f4x2
// CHECK:           gpu.return

// -----

// Without a seed operand the seed is 0.
// CHECK-LABEL: func.func @grad_no_seed(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_16x32_16x16_f32_rs_o0_rhtd7e8{{.*}} %[[ZERO]] : i64)
func.func @grad_no_seed(%g: tensor<16x32xf32>) -> !nvfp4.tensor<16x32, 16x16> {
  %q = nvfp4.quantize %g rounding rs offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 16x16>
  return %q : !nvfp4.tensor<16x32, 16x16>
}

// -----

// quantize -> matmul: the matmul kernel reads the quantize kernels' buffers
// and S_dec directly (no nvfp4.disassemble, no to_buffer, no copy).
// CHECK-LABEL: func.func @linear(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_128x256_1x16_bf16_rn {{.*}} %[[AD:.*]] : memref<128x256xf4E2M1FN>, %[[AS:.*]] : memref<128x16xf8E4M3FN>, %[[ADEC:.*]] : memref<1xf32>)
// CHECK:         %[[AG:.*]] = memref.load %[[ADEC]]
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_16x16_f32_rn {{.*}} %[[BD:.*]] : memref<64x256xf4E2M1FN>, %[[BS:.*]] : memref<4x16xf8E4M3FN>, %[[BDEC:.*]] : memref<1xf32>)
// CHECK:         %[[BG:.*]] = memref.load %[[BDEC]]
// CHECK-NOT:     nvfp4.disassemble
// CHECK-NOT:     bufferization.to_buffer
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n64k256_1x16_16x16_bf16 {{.*}} args(%[[AD]] : memref<128x256xf4E2M1FN>, %[[AS]] : memref<128x16xf8E4M3FN>, %[[AG]] : f32, %[[BD]] : memref<64x256xf4E2M1FN>, %[[BS]] : memref<4x16xf8E4M3FN>, %[[BG]] : f32, %{{.*}} : memref<128x64xbf16>) {nvfp4.operand_access = array<i32: 1, 1, 0, 1, 1, 0, 2>}
func.func @linear(%x: tensor<128x256xbf16>, %w: tensor<64x256xf32>) -> tensor<128x64xbf16> {
  %qx = nvfp4.quantize %x : tensor<128x256xbf16> -> !nvfp4.tensor<128x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 16x16>
  %y = nvfp4.matmul %qx, %qw : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xbf16>
  return %y : tensor<128x64xbf16>
}

// -----

// Kernels are typed by the input shape: equal sizes, different shapes give
// different kernels (a shared one would not verify).
// CHECK-LABEL: func.func @same_size(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_64x256_f32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_1x16_f32_rn
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_amax_2x32x256_f32
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_2x32x256_1x16_f32_rn
func.func @same_size(%a: tensor<64x256xf32>, %b: tensor<2x32x256xf32>)
    -> (!nvfp4.tensor<64x256, 1x16>, !nvfp4.tensor<2x32x256, 1x16>) {
  %qa = nvfp4.quantize %a : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  %qb = nvfp4.quantize %b : tensor<2x32x256xf32> -> !nvfp4.tensor<2x32x256, 1x16>
  return %qa, %qb : !nvfp4.tensor<64x256, 1x16>, !nvfp4.tensor<2x32x256, 1x16>
}
