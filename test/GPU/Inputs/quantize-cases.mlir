// nvfp4.quantize cases shared by the GPU execution tests (quantize-sm*.mlir)
// and their CPU companion (quantize-on-cpu.mlir): quantize -> dequantize,
// compared bit for bit with nvfp4::dequantize of the reference library's
// quantization of the same input (nvfp4RtQuantizeReference: round to
// nearest, computed amax; nvfp4RtCheckDequantize). 1x16 and 16x16 scales;
// f32 / bf16 / f16 inputs (the reference quantizes the input rounded to
// that type, which is what the kernel reads); explicit amax equal to the
// computed one (fill mode 1 forces amax = 2688, with rounding ties); the
// Hadamard transform (the reference quantizes nvfp4.hadamard of the input,
// itself checked against nvfp4::applyHadamard); a partial last CTA (48x16:
// 48 blocks for 128 threads). Then nvfp4.amax, checked by nvfp4RtCheckAmax
// (max |x| over the non-NaN elements with std::fabs / std::isnan): 2^20 f32
// elements (the amax kernel's 256 CTAs stride over 512 CTAs of blocks), NaN
// elements next to a finite maximum, bf16 with Inf / NaN / subnormals and a
// partial CTA, rank-1 f16.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckDequantize(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckHadamard(memref<*xf32>, memref<*xf32>, i32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckAmax(memref<*xf32>, f32) -> i64 attributes {llvm.emit_c_interface}

// CHECK: dequantize [64x128] 1x16: mismatches 0 (of
// CHECK-NEXT: dequantize [128x256] 16x16: mismatches 0 (of
// CHECK-NEXT: dequantize [64x64] 1x16: mismatches 0 (of
// CHECK-NEXT: dequantize [2x32x64] 16x16: mismatches 0 (of
// CHECK-NEXT: dequantize [64x128] 1x16: mismatches 0 (of
// CHECK-NEXT: dequantize [128x64] 16x16: mismatches 0 (of
// CHECK-NEXT: hadamard [64x128]: mismatches 0 (of
// CHECK-NEXT: dequantize [64x128] 1x16: mismatches 0 (of
// CHECK-NEXT: hadamard [64x256]: mismatches 0 (of
// CHECK-NEXT: dequantize [64x256] 16x16: mismatches 0 (of
// CHECK-NEXT: dequantize [48x16] 1x16: mismatches 0 (of
// CHECK-NEXT: amax [1024x1024]: mismatches 0 (of 1)
// CHECK-NEXT: amax [2x32x64]: mismatches 0 (of 1)
// CHECK-NEXT: amax [48x16]: mismatches 0 (of 1)
// CHECK-NEXT: amax [4096]: mismatches 0 (of 1)
// CHECK-NOT: mismatches {{[1-9]}}
// CHECK-NOT: FAIL

func.func @quantize_0() {
  %xm1 = memref.alloc() : memref<64x128xf32>
  %xu2 = memref.cast %xm1 : memref<64x128xf32> to memref<*xf32>
  %c3 = arith.constant 400 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x128xf32> to tensor<64x128xf32>
  %m6 = bufferization.to_buffer %x5 : tensor<64x128xf32> to memref<64x128xf32>
  %u7 = memref.cast %m6 : memref<64x128xf32> to memref<*xf32>
  %dm8 = memref.alloc() : memref<64x128xi8>
  %sm9 = memref.alloc() : memref<64x8xi8>
  %du10 = memref.cast %dm8 : memref<64x128xi8> to memref<*xi8>
  %su11 = memref.cast %sm9 : memref<64x8xi8> to memref<*xi8>
  %c12 = arith.constant 1 : i64
  %c13 = arith.constant 1 : i32
  %g14 = call @nvfp4RtQuantizeReference(%u7, %du10, %su11, %c12, %c13) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q15 = nvfp4.quantize %x5 : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %y16 = nvfp4.dequantize %q15 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  %m17 = bufferization.to_buffer %y16 : tensor<64x128xf32> to memref<64x128xf32>
  %u18 = memref.cast %m17 : memref<64x128xf32> to memref<*xf32>
  %n19 = call @nvfp4RtCheckDequantize(%du10, %su11, %g14, %c12, %u18) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_1() {
  %xm1 = memref.alloc() : memref<128x256xf32>
  %xu2 = memref.cast %xm1 : memref<128x256xf32> to memref<*xf32>
  %c3 = arith.constant 401 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<128x256xf32> to tensor<128x256xf32>
  %m6 = bufferization.to_buffer %x5 : tensor<128x256xf32> to memref<128x256xf32>
  %u7 = memref.cast %m6 : memref<128x256xf32> to memref<*xf32>
  %dm8 = memref.alloc() : memref<128x256xi8>
  %sm9 = memref.alloc() : memref<8x16xi8>
  %du10 = memref.cast %dm8 : memref<128x256xi8> to memref<*xi8>
  %su11 = memref.cast %sm9 : memref<8x16xi8> to memref<*xi8>
  %c12 = arith.constant 16 : i64
  %c13 = arith.constant 1 : i32
  %g14 = call @nvfp4RtQuantizeReference(%u7, %du10, %su11, %c12, %c13) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q15 = nvfp4.quantize %x5 : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 16x16>
  %y16 = nvfp4.dequantize %q15 : !nvfp4.tensor<128x256, 16x16> -> tensor<128x256xf32>
  %m17 = bufferization.to_buffer %y16 : tensor<128x256xf32> to memref<128x256xf32>
  %u18 = memref.cast %m17 : memref<128x256xf32> to memref<*xf32>
  %n19 = call @nvfp4RtCheckDequantize(%du10, %su11, %g14, %c12, %u18) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_2() {
  %xm1 = memref.alloc() : memref<64x64xf32>
  %xu2 = memref.cast %xm1 : memref<64x64xf32> to memref<*xf32>
  %c3 = arith.constant 402 : i64
  %c4 = arith.constant 1 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x64xf32> to tensor<64x64xf32>
  %m6 = bufferization.to_buffer %x5 : tensor<64x64xf32> to memref<64x64xf32>
  %u7 = memref.cast %m6 : memref<64x64xf32> to memref<*xf32>
  %dm8 = memref.alloc() : memref<64x64xi8>
  %sm9 = memref.alloc() : memref<64x4xi8>
  %du10 = memref.cast %dm8 : memref<64x64xi8> to memref<*xi8>
  %su11 = memref.cast %sm9 : memref<64x4xi8> to memref<*xi8>
  %c12 = arith.constant 1 : i64
  %c13 = arith.constant 1 : i32
  %g14 = call @nvfp4RtQuantizeReference(%u7, %du10, %su11, %c12, %c13) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %amax15 = arith.constant 2688.0 : f32
  %q16 = nvfp4.quantize %x5 amax %amax15 : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  %y17 = nvfp4.dequantize %q16 : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %m18 = bufferization.to_buffer %y17 : tensor<64x64xf32> to memref<64x64xf32>
  %u19 = memref.cast %m18 : memref<64x64xf32> to memref<*xf32>
  %n20 = call @nvfp4RtCheckDequantize(%du10, %su11, %g14, %c12, %u19) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_3() {
  %xm1 = memref.alloc() : memref<2x32x64xf32>
  %xu2 = memref.cast %xm1 : memref<2x32x64xf32> to memref<*xf32>
  %c3 = arith.constant 403 : i64
  %c4 = arith.constant 1 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %m6 = bufferization.to_buffer %x5 : tensor<2x32x64xf32> to memref<2x32x64xf32>
  %u7 = memref.cast %m6 : memref<2x32x64xf32> to memref<*xf32>
  %dm8 = memref.alloc() : memref<2x32x64xi8>
  %sm9 = memref.alloc() : memref<2x2x4xi8>
  %du10 = memref.cast %dm8 : memref<2x32x64xi8> to memref<*xi8>
  %su11 = memref.cast %sm9 : memref<2x2x4xi8> to memref<*xi8>
  %c12 = arith.constant 16 : i64
  %c13 = arith.constant 1 : i32
  %g14 = call @nvfp4RtQuantizeReference(%u7, %du10, %su11, %c12, %c13) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %amax15 = arith.constant 2688.0 : f32
  %q16 = nvfp4.quantize %x5 amax %amax15 : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 16x16>
  %y17 = nvfp4.dequantize %q16 : !nvfp4.tensor<2x32x64, 16x16> -> tensor<2x32x64xf32>
  %m18 = bufferization.to_buffer %y17 : tensor<2x32x64xf32> to memref<2x32x64xf32>
  %u19 = memref.cast %m18 : memref<2x32x64xf32> to memref<*xf32>
  %n20 = call @nvfp4RtCheckDequantize(%du10, %su11, %g14, %c12, %u19) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_4() {
  %xm1 = memref.alloc() : memref<64x128xf32>
  %xu2 = memref.cast %xm1 : memref<64x128xf32> to memref<*xf32>
  %c3 = arith.constant 404 : i64
  %c4 = arith.constant 3 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xl6 = arith.truncf %x5 : tensor<64x128xf32> to tensor<64x128xbf16>
  %xle7 = arith.extf %xl6 : tensor<64x128xbf16> to tensor<64x128xf32>
  %m8 = bufferization.to_buffer %xle7 : tensor<64x128xf32> to memref<64x128xf32>
  %u9 = memref.cast %m8 : memref<64x128xf32> to memref<*xf32>
  %dm10 = memref.alloc() : memref<64x128xi8>
  %sm11 = memref.alloc() : memref<64x8xi8>
  %du12 = memref.cast %dm10 : memref<64x128xi8> to memref<*xi8>
  %su13 = memref.cast %sm11 : memref<64x8xi8> to memref<*xi8>
  %c14 = arith.constant 1 : i64
  %c15 = arith.constant 1 : i32
  %g16 = call @nvfp4RtQuantizeReference(%u9, %du12, %su13, %c14, %c15) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q17 = nvfp4.quantize %xl6 : tensor<64x128xbf16> -> !nvfp4.tensor<64x128, 1x16>
  %y18 = nvfp4.dequantize %q17 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  %m19 = bufferization.to_buffer %y18 : tensor<64x128xf32> to memref<64x128xf32>
  %u20 = memref.cast %m19 : memref<64x128xf32> to memref<*xf32>
  %n21 = call @nvfp4RtCheckDequantize(%du12, %su13, %g16, %c14, %u20) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_5() {
  %xm1 = memref.alloc() : memref<128x64xf32>
  %xu2 = memref.cast %xm1 : memref<128x64xf32> to memref<*xf32>
  %c3 = arith.constant 405 : i64
  %c4 = arith.constant 3 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<128x64xf32> to tensor<128x64xf32>
  %xl6 = arith.truncf %x5 : tensor<128x64xf32> to tensor<128x64xf16>
  %xle7 = arith.extf %xl6 : tensor<128x64xf16> to tensor<128x64xf32>
  %m8 = bufferization.to_buffer %xle7 : tensor<128x64xf32> to memref<128x64xf32>
  %u9 = memref.cast %m8 : memref<128x64xf32> to memref<*xf32>
  %dm10 = memref.alloc() : memref<128x64xi8>
  %sm11 = memref.alloc() : memref<8x4xi8>
  %du12 = memref.cast %dm10 : memref<128x64xi8> to memref<*xi8>
  %su13 = memref.cast %sm11 : memref<8x4xi8> to memref<*xi8>
  %c14 = arith.constant 16 : i64
  %c15 = arith.constant 1 : i32
  %g16 = call @nvfp4RtQuantizeReference(%u9, %du12, %su13, %c14, %c15) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q17 = nvfp4.quantize %xl6 : tensor<128x64xf16> -> !nvfp4.tensor<128x64, 16x16>
  %y18 = nvfp4.dequantize %q17 : !nvfp4.tensor<128x64, 16x16> -> tensor<128x64xf32>
  %m19 = bufferization.to_buffer %y18 : tensor<128x64xf32> to memref<128x64xf32>
  %u20 = memref.cast %m19 : memref<128x64xf32> to memref<*xf32>
  %n21 = call @nvfp4RtCheckDequantize(%du12, %su13, %g16, %c14, %u20) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_6() {
  %xm1 = memref.alloc() : memref<64x128xf32>
  %xu2 = memref.cast %xm1 : memref<64x128xf32> to memref<*xf32>
  %c3 = arith.constant 406 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xr6 = nvfp4.hadamard %x5 : tensor<64x128xf32>
  %m7 = bufferization.to_buffer %x5 : tensor<64x128xf32> to memref<64x128xf32>
  %u8 = memref.cast %m7 : memref<64x128xf32> to memref<*xf32>
  %m9 = bufferization.to_buffer %xr6 : tensor<64x128xf32> to memref<64x128xf32>
  %u10 = memref.cast %m9 : memref<64x128xf32> to memref<*xf32>
  %c11 = arith.constant -1 : i32
  %n12 = call @nvfp4RtCheckHadamard(%u8, %u10, %c11) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %m13 = bufferization.to_buffer %xr6 : tensor<64x128xf32> to memref<64x128xf32>
  %u14 = memref.cast %m13 : memref<64x128xf32> to memref<*xf32>
  %dm15 = memref.alloc() : memref<64x128xi8>
  %sm16 = memref.alloc() : memref<64x8xi8>
  %du17 = memref.cast %dm15 : memref<64x128xi8> to memref<*xi8>
  %su18 = memref.cast %sm16 : memref<64x8xi8> to memref<*xi8>
  %c19 = arith.constant 1 : i64
  %c20 = arith.constant 1 : i32
  %g21 = call @nvfp4RtQuantizeReference(%u14, %du17, %su18, %c19, %c20) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q22 = nvfp4.quantize %x5 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %y23 = nvfp4.dequantize %q22 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  %m24 = bufferization.to_buffer %y23 : tensor<64x128xf32> to memref<64x128xf32>
  %u25 = memref.cast %m24 : memref<64x128xf32> to memref<*xf32>
  %n26 = call @nvfp4RtCheckDequantize(%du17, %su18, %g21, %c19, %u25) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_7() {
  %xm1 = memref.alloc() : memref<64x256xf32>
  %xu2 = memref.cast %xm1 : memref<64x256xf32> to memref<*xf32>
  %c3 = arith.constant 407 : i64
  %c4 = arith.constant 3 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x256xf32> to tensor<64x256xf32>
  %xl6 = arith.truncf %x5 : tensor<64x256xf32> to tensor<64x256xbf16>
  %xle7 = arith.extf %xl6 : tensor<64x256xbf16> to tensor<64x256xf32>
  %xr8 = nvfp4.hadamard %xle7 : tensor<64x256xf32>
  %m9 = bufferization.to_buffer %xle7 : tensor<64x256xf32> to memref<64x256xf32>
  %u10 = memref.cast %m9 : memref<64x256xf32> to memref<*xf32>
  %m11 = bufferization.to_buffer %xr8 : tensor<64x256xf32> to memref<64x256xf32>
  %u12 = memref.cast %m11 : memref<64x256xf32> to memref<*xf32>
  %c13 = arith.constant -1 : i32
  %n14 = call @nvfp4RtCheckHadamard(%u10, %u12, %c13) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %m15 = bufferization.to_buffer %xr8 : tensor<64x256xf32> to memref<64x256xf32>
  %u16 = memref.cast %m15 : memref<64x256xf32> to memref<*xf32>
  %dm17 = memref.alloc() : memref<64x256xi8>
  %sm18 = memref.alloc() : memref<4x16xi8>
  %du19 = memref.cast %dm17 : memref<64x256xi8> to memref<*xi8>
  %su20 = memref.cast %sm18 : memref<4x16xi8> to memref<*xi8>
  %c21 = arith.constant 16 : i64
  %c22 = arith.constant 1 : i32
  %g23 = call @nvfp4RtQuantizeReference(%u16, %du19, %su20, %c21, %c22) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q24 = nvfp4.quantize %xl6 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x256xbf16> -> !nvfp4.tensor<64x256, 16x16>
  %y25 = nvfp4.dequantize %q24 : !nvfp4.tensor<64x256, 16x16> -> tensor<64x256xf32>
  %m26 = bufferization.to_buffer %y25 : tensor<64x256xf32> to memref<64x256xf32>
  %u27 = memref.cast %m26 : memref<64x256xf32> to memref<*xf32>
  %n28 = call @nvfp4RtCheckDequantize(%du19, %su20, %g23, %c21, %u27) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @quantize_8() {
  %xm1 = memref.alloc() : memref<48x16xf32>
  %xu2 = memref.cast %xm1 : memref<48x16xf32> to memref<*xf32>
  %c3 = arith.constant 408 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<48x16xf32> to tensor<48x16xf32>
  %m6 = bufferization.to_buffer %x5 : tensor<48x16xf32> to memref<48x16xf32>
  %u7 = memref.cast %m6 : memref<48x16xf32> to memref<*xf32>
  %dm8 = memref.alloc() : memref<48x16xi8>
  %sm9 = memref.alloc() : memref<48x1xi8>
  %du10 = memref.cast %dm8 : memref<48x16xi8> to memref<*xi8>
  %su11 = memref.cast %sm9 : memref<48x1xi8> to memref<*xi8>
  %c12 = arith.constant 1 : i64
  %c13 = arith.constant 1 : i32
  %g14 = call @nvfp4RtQuantizeReference(%u7, %du10, %su11, %c12, %c13) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %q15 = nvfp4.quantize %x5 : tensor<48x16xf32> -> !nvfp4.tensor<48x16, 1x16>
  %y16 = nvfp4.dequantize %q15 : !nvfp4.tensor<48x16, 1x16> -> tensor<48x16xf32>
  %m17 = bufferization.to_buffer %y16 : tensor<48x16xf32> to memref<48x16xf32>
  %u18 = memref.cast %m17 : memref<48x16xf32> to memref<*xf32>
  %n19 = call @nvfp4RtCheckDequantize(%du10, %su11, %g14, %c12, %u18) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @amax_0() {
  %mode0 = arith.constant 0 : i32
  %mode2 = arith.constant 2 : i32
  %mode3 = arith.constant 3 : i32

  %am = memref.alloc() : memref<1024x1024xf32>
  %au = memref.cast %am : memref<1024x1024xf32> to memref<*xf32>
  %aseed = arith.constant 410 : i64
  call @nvfp4RtFill(%au, %aseed, %mode0) : (memref<*xf32>, i64, i32) -> ()
  %a = bufferization.to_tensor %am restrict : memref<1024x1024xf32> to tensor<1024x1024xf32>
  %aamax = nvfp4.amax %a : tensor<1024x1024xf32>
  %na = call @nvfp4RtCheckAmax(%au, %aamax) : (memref<*xf32>, f32) -> i64

  // NaN in the first and the last element.
  %bm = memref.alloc() : memref<2x32x64xf32>
  %bu = memref.cast %bm : memref<2x32x64xf32> to memref<*xf32>
  %bseed = arith.constant 411 : i64
  call @nvfp4RtFill(%bu, %bseed, %mode0) : (memref<*xf32>, i64, i32) -> ()
  %nan = arith.constant 0x7FC00000 : f32
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i31 = arith.constant 31 : index
  %i63 = arith.constant 63 : index
  memref.store %nan, %bm[%i0, %i0, %i0] : memref<2x32x64xf32>
  memref.store %nan, %bm[%i1, %i31, %i63] : memref<2x32x64xf32>
  %b = bufferization.to_tensor %bm restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %bamax = nvfp4.amax %b : tensor<2x32x64xf32>
  %nb = call @nvfp4RtCheckAmax(%bu, %bamax) : (memref<*xf32>, f32) -> i64

  %cm = memref.alloc() : memref<48x16xf32>
  %cu = memref.cast %cm : memref<48x16xf32> to memref<*xf32>
  %cseed = arith.constant 412 : i64
  call @nvfp4RtFill(%cu, %cseed, %mode2) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<48x16xf32> to tensor<48x16xf32>
  %cl = arith.truncf %c : tensor<48x16xf32> to tensor<48x16xbf16>
  %camax = nvfp4.amax %cl : tensor<48x16xbf16>
  %cle = arith.extf %cl : tensor<48x16xbf16> to tensor<48x16xf32>
  %clm = bufferization.to_buffer %cle : tensor<48x16xf32> to memref<48x16xf32>
  %clu = memref.cast %clm : memref<48x16xf32> to memref<*xf32>
  %nc = call @nvfp4RtCheckAmax(%clu, %camax) : (memref<*xf32>, f32) -> i64

  %dm = memref.alloc() : memref<4096xf32>
  %du = memref.cast %dm : memref<4096xf32> to memref<*xf32>
  %dseed = arith.constant 413 : i64
  call @nvfp4RtFill(%du, %dseed, %mode3) : (memref<*xf32>, i64, i32) -> ()
  %d = bufferization.to_tensor %dm restrict : memref<4096xf32> to tensor<4096xf32>
  %dl = arith.truncf %d : tensor<4096xf32> to tensor<4096xf16>
  %damax = nvfp4.amax %dl : tensor<4096xf16>
  %dle = arith.extf %dl : tensor<4096xf16> to tensor<4096xf32>
  %dlm = bufferization.to_buffer %dle : tensor<4096xf32> to memref<4096xf32>
  %dlu = memref.cast %dlm : memref<4096xf32> to memref<*xf32>
  %nd = call @nvfp4RtCheckAmax(%dlu, %damax) : (memref<*xf32>, f32) -> i64
  return
}

func.func @main() {
  call @quantize_0() : () -> ()
  call @quantize_1() : () -> ()
  call @quantize_2() : () -> ()
  call @quantize_3() : () -> ()
  call @quantize_4() : () -> ()
  call @quantize_5() : () -> ()
  call @quantize_6() : () -> ()
  call @quantize_7() : () -> ()
  call @quantize_8() : () -> ()
  call @amax_0() : () -> ()
  return
}
