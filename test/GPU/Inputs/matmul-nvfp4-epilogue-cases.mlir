// The NVFP4-epilogue cases of the tcgen05 kernel (matmul-nvfp4-epilogue-sm100.mlir
// on a GPU, matmul-nvfp4-epilogue-emulated.mlir in the GPU emulator):
// quantize(matmul) with an amax operand (1x16 or 16x16 blocks, round to
// nearest or stochastic, with or without a Hadamard transform; NVFP4 or MX
// operands, the MX ones quantized on the host) is one kernel
// that writes the NVFP4 result; it must equal bit for bit the same matmul
// stored in f32 (a second use keeps it) and quantized by the quantize
// kernel. Both results are dequantized on the GPU and compared (relative
// error exactly 0).

// CHECK: relative error 0 [256x512]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 1 [2x128x256]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 2 [256x512]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 3 [2x128x256]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 4 [208x80]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 5 [2x72x96]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 6 [208x64]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 7 [208x208]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 8 [144x144]: 0.000000 (tolerance 0.000): ok
// CHECK: relative error 9 [256x512]: 0.000000 (tolerance 0.000): ok
// CHECK-NOT: FAIL

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}

/// A tensor filled by the reference runtime (mode 0: magnitudes 2^-20 ..
/// 2^10, both signs).
func.func @fill_2d(%seed: i64) -> tensor<256x1024xf32> {
  %m = memref.alloc() : memref<256x1024xf32>
  %u = memref.cast %m : memref<256x1024xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256x1024xf32> to tensor<256x1024xf32>
  return %t : tensor<256x1024xf32>
}

func.func @fill_w(%seed: i64) -> tensor<512x1024xf32> {
  %m = memref.alloc() : memref<512x1024xf32>
  %u = memref.cast %m : memref<512x1024xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<512x1024xf32> to tensor<512x1024xf32>
  return %t : tensor<512x1024xf32>
}

func.func @fill_3d(%seed: i64) -> tensor<2x128x512xf32> {
  %m = memref.alloc() : memref<2x128x512xf32>
  %u = memref.cast %m : memref<2x128x512xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<2x128x512xf32> to tensor<2x128x512xf32>
  return %t : tensor<2x128x512xf32>
}

func.func @fill_3d_w(%seed: i64) -> tensor<2x256x512xf32> {
  %m = memref.alloc() : memref<2x256x512xf32>
  %u = memref.cast %m : memref<2x256x512xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<2x256x512xf32> to tensor<2x256x512xf32>
  return %t : tensor<2x256x512xf32>
}

/// 256 x 512 x 1024, f32 result: the 128x256 tile. The amax operand is below
/// the result's actual amax for some blocks (their scales saturate), as
/// delayed scaling allows.
func.func @case_0() {
  %s0 = arith.constant 300 : i64
  %s1 = arith.constant 301 : i64
  %x = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %w = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %qx = nvfp4.quantize %x : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 1x16>
  %qw = nvfp4.quantize %w : tensor<512x1024xf32> -> !nvfp4.tensor<512x1024, 16x16>
  %amax = arith.constant 1.0e+6 : f32
  // Fused: the matmul result's only use is the quantization.
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  // Not fused: the f32 result is also read on the host (%my).
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %q1 = nvfp4.quantize %y1 amax %amax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<256x512xf32> to memref<256x512xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<256x512xf32> to memref<256x512xf32>
  %my = bufferization.to_buffer %y1 : tensor<256x512xf32> to memref<256x512xf32>
  %u0 = memref.cast %m0 : memref<256x512xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<256x512xf32> to memref<*xf32>
  %id = arith.constant 0 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// 2 x 128 x 256 x 512, bf16 result (rounded to bf16 before the epilogue
/// quantizes it): the 128x256 tile over a batch.
func.func @case_1() {
  %s0 = arith.constant 310 : i64
  %s1 = arith.constant 311 : i64
  %x = call @fill_3d(%s0) : (i64) -> tensor<2x128x512xf32>
  %w = call @fill_3d_w(%s1) : (i64) -> tensor<2x256x512xf32>
  %qx = nvfp4.quantize %x : tensor<2x128x512xf32> -> !nvfp4.tensor<2x128x512, 1x16>
  %qw = nvfp4.quantize %w : tensor<2x256x512xf32> -> !nvfp4.tensor<2x256x512, 1x16>
  %amax = arith.constant 3.0e+5 : f32
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x128x256xbf16>
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<2x128x256xbf16> -> !nvfp4.tensor<2x128x256, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<2x128x256, 1x16> -> tensor<2x128x256xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x128x256xbf16>
  %q1 = nvfp4.quantize %y1 amax %amax : tensor<2x128x256xbf16> -> !nvfp4.tensor<2x128x256, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<2x128x256, 1x16> -> tensor<2x128x256xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<2x128x256xf32> to memref<2x128x256xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<2x128x256xf32> to memref<2x128x256xf32>
  %my = bufferization.to_buffer %y1 : tensor<2x128x256xbf16> to memref<2x128x256xbf16>
  %u0 = memref.cast %m0 : memref<2x128x256xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<2x128x256xf32> to memref<*xf32>
  %id = arith.constant 1 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// The gradient forms: 16x16 blocks (half-warp scale reduction),
/// stochastic rounding (the same Philox counters as the quantize kernel;
/// software, or cvt.rs with hardware-sr) and a Hadamard transform.
func.func @case_2() {
  %s0 = arith.constant 320 : i64
  %s1 = arith.constant 321 : i64
  %x = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %w = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %qx = nvfp4.quantize %x : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 1x16>
  %qw = nvfp4.quantize %w : tensor<512x1024xf32> -> !nvfp4.tensor<512x1024, 16x16>
  %amax = arith.constant 1.0e+6 : f32
  %seed = arith.constant 1234567 : i64
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %q0 = nvfp4.quantize %y0 amax %amax rounding rs seed %seed offset 4096 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 16x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<256x512, 16x16> -> tensor<256x512xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 4096 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 16x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<256x512, 16x16> -> tensor<256x512xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<256x512xf32> to memref<256x512xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<256x512xf32> to memref<256x512xf32>
  %my = bufferization.to_buffer %y1 : tensor<256x512xf32> to memref<256x512xf32>
  %u0 = memref.cast %m0 : memref<256x512xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<256x512xf32> to memref<*xf32>
  %id = arith.constant 2 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// Stochastic rounding of a batched bf16 result with 1x16 blocks: the
/// counters run over the flattened batch.
func.func @case_3() {
  %s0 = arith.constant 330 : i64
  %s1 = arith.constant 331 : i64
  %x = call @fill_3d(%s0) : (i64) -> tensor<2x128x512xf32>
  %w = call @fill_3d_w(%s1) : (i64) -> tensor<2x256x512xf32>
  %qx = nvfp4.quantize %x : tensor<2x128x512xf32> -> !nvfp4.tensor<2x128x512, 1x16>
  %qw = nvfp4.quantize %w : tensor<2x256x512xf32> -> !nvfp4.tensor<2x256x512, 1x16>
  %amax = arith.constant 3.0e+5 : f32
  %seed = arith.constant 99 : i64
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x128x256xbf16>
  %q0 = nvfp4.quantize %y0 amax %amax rounding rs seed %seed offset 0 : tensor<2x128x256xbf16> -> !nvfp4.tensor<2x128x256, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<2x128x256, 1x16> -> tensor<2x128x256xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x256x512, 1x16> -> tensor<2x128x256xbf16>
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 0 : tensor<2x128x256xbf16> -> !nvfp4.tensor<2x128x256, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<2x128x256, 1x16> -> tensor<2x128x256xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<2x128x256xf32> to memref<2x128x256xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<2x128x256xf32> to memref<2x128x256xf32>
  %my = bufferization.to_buffer %y1 : tensor<2x128x256xbf16> to memref<2x128x256xbf16>
  %u0 = memref.cast %m0 : memref<2x128x256xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<2x128x256xf32> to memref<*xf32>
  %id = arith.constant 3 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// Shapes that are not multiples of the CTA tile: 208 x 80 (128-row
/// tiles, a 128-wide tile for 80 columns) with 16x16 blocks, RN: only the
/// blocks inside M x N are stored, and every block's scale comes from its
/// own rows.
func.func @case_4() {
  %s0 = arith.constant 340 : i64
  %s1 = arith.constant 341 : i64
  %xf = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %wf = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %x = tensor.extract_slice %xf[0, 0] [208, 256] [1, 1] : tensor<256x1024xf32> to tensor<208x256xf32>
  %w = tensor.extract_slice %wf[0, 0] [80, 256] [1, 1] : tensor<512x1024xf32> to tensor<80x256xf32>
  %qx = nvfp4.quantize %x : tensor<208x256xf32> -> !nvfp4.tensor<208x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<80x256xf32> -> !nvfp4.tensor<80x256, 16x16>
  %amax = arith.constant 1.0e+6 : f32
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<208x256, 1x16>, !nvfp4.tensor<80x256, 16x16> -> tensor<208x80xf32>
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<208x80xf32> -> !nvfp4.tensor<208x80, 16x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<208x80, 16x16> -> tensor<208x80xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<208x256, 1x16>, !nvfp4.tensor<80x256, 16x16> -> tensor<208x80xf32>
  %q1 = nvfp4.quantize %y1 amax %amax : tensor<208x80xf32> -> !nvfp4.tensor<208x80, 16x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<208x80, 16x16> -> tensor<208x80xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<208x80xf32> to memref<208x80xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<208x80xf32> to memref<208x80xf32>
  %my = bufferization.to_buffer %y1 : tensor<208x80xf32> to memref<208x80xf32>
  %u0 = memref.cast %m0 : memref<208x80xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<208x80xf32> to memref<*xf32>
  %id = arith.constant 4 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// A batch of 72 x 96 bf16 results with 1x16 blocks and stochastic rounding:
/// the rows past M of each batch's tile (the next batch's rows) are not
/// stored, and the Philox counters of the stored blocks are those of the
/// flattened result.
func.func @case_5() {
  %s0 = arith.constant 350 : i64
  %s1 = arith.constant 351 : i64
  %xf = call @fill_3d(%s0) : (i64) -> tensor<2x128x512xf32>
  %wf = call @fill_3d_w(%s1) : (i64) -> tensor<2x256x512xf32>
  %x = tensor.extract_slice %xf[0, 0, 0] [2, 72, 256] [1, 1, 1] : tensor<2x128x512xf32> to tensor<2x72x256xf32>
  %w = tensor.extract_slice %wf[0, 0, 0] [2, 96, 256] [1, 1, 1] : tensor<2x256x512xf32> to tensor<2x96x256xf32>
  %qx = nvfp4.quantize %x : tensor<2x72x256xf32> -> !nvfp4.tensor<2x72x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<2x96x256xf32> -> !nvfp4.tensor<2x96x256, 1x16>
  %amax = arith.constant 3.0e+5 : f32
  %seed = arith.constant 77 : i64
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x72x256, 1x16>, !nvfp4.tensor<2x96x256, 1x16> -> tensor<2x72x96xbf16>
  %q0 = nvfp4.quantize %y0 amax %amax rounding rs seed %seed offset 16 : tensor<2x72x96xbf16> -> !nvfp4.tensor<2x72x96, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<2x72x96, 1x16> -> tensor<2x72x96xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x72x256, 1x16>, !nvfp4.tensor<2x96x256, 1x16> -> tensor<2x72x96xbf16>
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 16 : tensor<2x72x96xbf16> -> !nvfp4.tensor<2x72x96, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<2x72x96, 1x16> -> tensor<2x72x96xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<2x72x96xf32> to memref<2x72x96xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<2x72x96xf32> to memref<2x72x96xf32>
  %my = bufferization.to_buffer %y1 : tensor<2x72x96xbf16> to memref<2x72x96xbf16>
  %u0 = memref.cast %m0 : memref<2x72x96xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<2x72x96xf32> to memref<*xf32>
  %id = arith.constant 5 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// A chain whose second GEMM has K = 80, not a multiple of 32 (the TMA
/// row-stride unit): the NVFP4 epilogue of the first GEMM (an accumulator,
/// 16x16 blocks, stochastic rounding, Hadamard) and the quantize kernel of the second
/// GEMM's B (1x16, stochastic rounding, Hadamard) write K-padded storage
/// that the second GEMM reads in place. It must equal bit for bit the same
/// chain whose quantizations have another use (a dequantization), which
/// the quantize kernel computes a second time into padded storage for the
/// GEMM (test/GPU/Inputs/matmul-padded-storage-sr-cases.mlir checks that
/// kernel against the CPU reference lowering).
func.func @case_6() {
  %s0 = arith.constant 360 : i64
  %s1 = arith.constant 361 : i64
  %s2 = arith.constant 362 : i64
  %xf = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %wf = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %vf0 = call @fill_2d(%s2) : (i64) -> tensor<256x1024xf32>
  %vf1 = call @fill_2d(%s2) : (i64) -> tensor<256x1024xf32>
  %x = tensor.extract_slice %xf[0, 0] [208, 256] [1, 1] : tensor<256x1024xf32> to tensor<208x256xf32>
  %w = tensor.extract_slice %wf[0, 0] [80, 256] [1, 1] : tensor<512x1024xf32> to tensor<80x256xf32>
  %v0 = tensor.extract_slice %vf0[0, 0] [64, 80] [1, 1] : tensor<256x1024xf32> to tensor<64x80xf32>
  %v1 = tensor.extract_slice %vf1[0, 0] [64, 80] [1, 1] : tensor<256x1024xf32> to tensor<64x80xf32>
  // An accumulator far from 0: the columns past N of its tile (which read
  // its first element) would quantize to nonzero codes if not zeroed.
  %c = arith.constant dense<3.0e+4> : tensor<208x80xf32>
  %qx = nvfp4.quantize %x : tensor<208x256xf32> -> !nvfp4.tensor<208x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<80x256xf32> -> !nvfp4.tensor<80x256, 1x16>
  %amax = arith.constant 1.0e+6 : f32
  %seed = arith.constant 4242 : i64
  // Padded storage: the quantizations' only uses are the K = 80 GEMMs.
  %y0 = nvfp4.matmul %qx, %qw acc(%c : tensor<208x80xf32>) : !nvfp4.tensor<208x256, 1x16>, !nvfp4.tensor<80x256, 1x16> -> tensor<208x80xf32>
  %q0 = nvfp4.quantize %y0 amax %amax rounding rs seed %seed offset 32 hadamard [1, -1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, -1, 1, -1, 1] : tensor<208x80xf32> -> !nvfp4.tensor<208x80, 16x16>
  %qv0 = nvfp4.quantize %v0 rounding rs seed %seed offset 8 hadamard [1, 1, -1, 1, -1, 1, 1, -1, -1, 1, -1, -1, 1, 1, 1, -1] : tensor<64x80xf32> -> !nvfp4.tensor<64x80, 1x16>
  %z0 = nvfp4.matmul %q0, %qv0 : !nvfp4.tensor<208x80, 16x16>, !nvfp4.tensor<64x80, 1x16> -> tensor<208x64xf32>
  // Both operands the epilogue's storage: its padding must be zeros too.
  %g0 = nvfp4.matmul %q0, %q0 : !nvfp4.tensor<208x80, 16x16>, !nvfp4.tensor<208x80, 16x16> -> tensor<208x208xf32>
  // Copies: the f32 result is read on the host, the quantizations are
  // dequantized too.
  %y1 = nvfp4.matmul %qx, %qw acc(%c : tensor<208x80xf32>) : !nvfp4.tensor<208x256, 1x16>, !nvfp4.tensor<80x256, 1x16> -> tensor<208x80xf32>
  %q1 = nvfp4.quantize %y1 amax %amax rounding rs seed %seed offset 32 hadamard [1, -1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, -1, 1, -1, 1] : tensor<208x80xf32> -> !nvfp4.tensor<208x80, 16x16>
  %qv1 = nvfp4.quantize %v1 rounding rs seed %seed offset 8 hadamard [1, 1, -1, 1, -1, 1, 1, -1, -1, 1, -1, -1, 1, 1, 1, -1] : tensor<64x80xf32> -> !nvfp4.tensor<64x80, 1x16>
  %z1 = nvfp4.matmul %q1, %qv1 : !nvfp4.tensor<208x80, 16x16>, !nvfp4.tensor<64x80, 1x16> -> tensor<208x64xf32>
  %g1 = nvfp4.matmul %q1, %q1 : !nvfp4.tensor<208x80, 16x16>, !nvfp4.tensor<208x80, 16x16> -> tensor<208x208xf32>
  %dq1 = nvfp4.dequantize %q1 : !nvfp4.tensor<208x80, 16x16> -> tensor<208x80xf32>
  %dv1 = nvfp4.dequantize %qv1 : !nvfp4.tensor<64x80, 1x16> -> tensor<64x80xf32>
  %my = bufferization.to_buffer %y1 : tensor<208x80xf32> to memref<208x80xf32>
  %mq = bufferization.to_buffer %dq1 : tensor<208x80xf32> to memref<208x80xf32>
  %mv = bufferization.to_buffer %dv1 : tensor<64x80xf32> to memref<64x80xf32>
  %m0 = bufferization.to_buffer %z0 : tensor<208x64xf32> to memref<208x64xf32>
  %m1 = bufferization.to_buffer %z1 : tensor<208x64xf32> to memref<208x64xf32>
  %u0 = memref.cast %m0 : memref<208x64xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<208x64xf32> to memref<*xf32>
  %id = arith.constant 6 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  %mg0 = bufferization.to_buffer %g0 : tensor<208x208xf32> to memref<208x208xf32>
  %mg1 = bufferization.to_buffer %g1 : tensor<208x208xf32> to memref<208x208xf32>
  %ug0 = memref.cast %mg0 : memref<208x208xf32> to memref<*xf32>
  %ug1 = memref.cast %mg1 : memref<208x208xf32> to memref<*xf32>
  %idg = arith.constant 7 : i32
  %eg = call @nvfp4RtRelativeError(%ug0, %ug1, %idg, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// The same chain with 1x16 blocks and rounding to nearest: the NVFP4
/// epilogue into K-padded storage (blocks past N zeroed under an
/// accumulator far from 0) against the quantize kernel's padded storage.
func.func @case_7() {
  %s0 = arith.constant 370 : i64
  %s1 = arith.constant 371 : i64
  %xf = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %wf = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %x = tensor.extract_slice %xf[0, 0] [144, 256] [1, 1] : tensor<256x1024xf32> to tensor<144x256xf32>
  %w = tensor.extract_slice %wf[0, 0] [48, 256] [1, 1] : tensor<512x1024xf32> to tensor<48x256xf32>
  %qx = nvfp4.quantize %x : tensor<144x256xf32> -> !nvfp4.tensor<144x256, 1x16>
  %qw = nvfp4.quantize %w : tensor<48x256xf32> -> !nvfp4.tensor<48x256, 1x16>
  %amax = arith.constant 1.0e+6 : f32
  %c = arith.constant dense<3.0e+4> : tensor<144x48xf32>
  // Padded storage: the epilogue's result is only read by the K = 48 GEMM.
  %y0 = nvfp4.matmul %qx, %qw acc(%c : tensor<144x48xf32>) : !nvfp4.tensor<144x256, 1x16>, !nvfp4.tensor<48x256, 1x16> -> tensor<144x48xf32>
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<144x48xf32> -> !nvfp4.tensor<144x48, 1x16>
  %z0 = nvfp4.matmul %q0, %q0 : !nvfp4.tensor<144x48, 1x16>, !nvfp4.tensor<144x48, 1x16> -> tensor<144x144xf32>
  // The quantize kernel: the f32 result is read on the host, the
  // quantization dequantized too.
  %y1 = nvfp4.matmul %qx, %qw acc(%c : tensor<144x48xf32>) : !nvfp4.tensor<144x256, 1x16>, !nvfp4.tensor<48x256, 1x16> -> tensor<144x48xf32>
  %q1 = nvfp4.quantize %y1 amax %amax : tensor<144x48xf32> -> !nvfp4.tensor<144x48, 1x16>
  %z1 = nvfp4.matmul %q1, %q1 : !nvfp4.tensor<144x48, 1x16>, !nvfp4.tensor<144x48, 1x16> -> tensor<144x144xf32>
  %dq1 = nvfp4.dequantize %q1 : !nvfp4.tensor<144x48, 1x16> -> tensor<144x48xf32>
  %my = bufferization.to_buffer %y1 : tensor<144x48xf32> to memref<144x48xf32>
  %mq = bufferization.to_buffer %dq1 : tensor<144x48xf32> to memref<144x48xf32>
  %m0 = bufferization.to_buffer %z0 : tensor<144x144xf32> to memref<144x144xf32>
  %m1 = bufferization.to_buffer %z1 : tensor<144x144xf32> to memref<144x144xf32>
  %u0 = memref.cast %m0 : memref<144x144xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<144x144xf32> to memref<*xf32>
  %id = arith.constant 8 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

/// MX operands (MXFP8: E4M3 x E5M2, quantized on the host): the NVFP4
/// epilogue of the kind::mxf8f6f4 kernel, which has no alpha.
func.func @case_8() {
  %s0 = arith.constant 380 : i64
  %s1 = arith.constant 381 : i64
  %x = call @fill_2d(%s0) : (i64) -> tensor<256x1024xf32>
  %w = call @fill_w(%s1) : (i64) -> tensor<512x1024xf32>
  %qx = nvfp4.quantize %x : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 1x32, mxfp8_e4m3>
  %qw = nvfp4.quantize %w : tensor<512x1024xf32> -> !nvfp4.tensor<512x1024, 1x32, mxfp8_e5m2>
  %amax = arith.constant 1.0e+6 : f32
  %y0 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x32, mxfp8_e4m3>, !nvfp4.tensor<512x1024, 1x32, mxfp8_e5m2> -> tensor<256x512xf32>
  %q0 = nvfp4.quantize %y0 amax %amax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %d0 = nvfp4.dequantize %q0 : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  %y1 = nvfp4.matmul %qx, %qw : !nvfp4.tensor<256x1024, 1x32, mxfp8_e4m3>, !nvfp4.tensor<512x1024, 1x32, mxfp8_e5m2> -> tensor<256x512xf32>
  %q1 = nvfp4.quantize %y1 amax %amax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %d1 = nvfp4.dequantize %q1 : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  %m0 = bufferization.to_buffer %d0 : tensor<256x512xf32> to memref<256x512xf32>
  %m1 = bufferization.to_buffer %d1 : tensor<256x512xf32> to memref<256x512xf32>
  %my = bufferization.to_buffer %y1 : tensor<256x512xf32> to memref<256x512xf32>
  %u0 = memref.cast %m0 : memref<256x512xf32> to memref<*xf32>
  %u1 = memref.cast %m1 : memref<256x512xf32> to memref<*xf32>
  %id = arith.constant 9 : i32
  %tol = arith.constant 0.0 : f64
  %e = call @nvfp4RtRelativeError(%u0, %u1, %id, %tol) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @main() {
  call @case_0() : () -> ()
  call @case_1() : () -> ()
  call @case_2() : () -> ()
  call @case_3() : () -> ()
  call @case_4() : () -> ()
  call @case_5() : () -> ()
  call @case_6() : () -> ()
  call @case_7() : () -> ()
  call @case_8() : () -> ()
  return
}
