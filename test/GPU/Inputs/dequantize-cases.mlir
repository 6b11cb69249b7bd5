// nvfp4.dequantize cases shared by the GPU execution tests
// (dequantize-sm*.mlir) and their CPU companion (dequantize-on-cpu.mlir):
// inputs filled by the reference runtime and quantized on the host by the
// reference library (nvfp4RtQuantizeReference), assembled, dequantized, and
// compared bit for bit with nvfp4::dequantize (nvfp4RtCheckDequantize); the
// bf16 / f16 results must equal the checked f32 result rounded to nearest
// even (relative error exactly 0). Shapes: 1x16 and 16x16 scales, ranks 1
// to 3, subnormal and zero block scales (fill mode 0 spans 2^-20 .. 2^10),
// ties (mode 1), specials (mode 2); all 16 codes with a normal scale (2.0,
// amax 1344: (2 * 1344) * fl(1/2688) = 1) and a subnormal one (2^-9, amax
// 2688: the factor is exactly 2^-9).

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckDequantize(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckHadamard(memref<*xf32>, memref<*xf32>, i32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}

// CHECK: dequantize [64x128] 1x16: mismatches 0 (of
// CHECK-NEXT: dequantize [2x32x64] 16x16: mismatches 0 (of
// CHECK-NEXT: dequantize [128x256] 16x16: mismatches 0 (of
// CHECK-NEXT: relative error 2 [128x256]: 0.000000 (tolerance 0.000): ok
// CHECK-NEXT: dequantize [64x64] 1x16: mismatches 0 (of
// CHECK-NEXT: relative error 3 [64x64]: 0.000000 (tolerance 0.000): ok
// CHECK-NEXT: dequantize [4096] 1x16: mismatches 0 (of
// CHECK-NEXT: relative error 4 [4096]: 0.000000 (tolerance 0.000): ok
// CHECK-NEXT: ( 0, 0.5, 1, 1.5, 2, 3, 4, 6, -0, -0.5, -1, -1.5, -2, -3, -4, -6 )
// CHECK-NEXT: ( 0, 0.000976562, 0.00195312, 0.00292969, 0.00390625, 0.00585938, 0.0078125, 0.0117188, -0, -0.000976562, -0.00195312, -0.00292969, -0.00390625, -0.00585938, -0.0078125, -0.0117188 )
// CHECK-NOT: mismatches {{[1-9]}}
// CHECK-NOT: FAIL

func.func @dequantize_0() {
  %xm1 = memref.alloc() : memref<64x128xf32>
  %xu2 = memref.cast %xm1 : memref<64x128xf32> to memref<*xf32>
  %c3 = arith.constant 200 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x128xf32> to tensor<64x128xf32>
  %dm6 = memref.alloc() : memref<64x128xi8>
  %sm7 = memref.alloc() : memref<64x8xi8>
  %du8 = memref.cast %dm6 : memref<64x128xi8> to memref<*xi8>
  %su9 = memref.cast %sm7 : memref<64x8xi8> to memref<*xi8>
  %c10 = arith.constant 1 : i64
  %c11 = arith.constant 1 : i32
  %g12 = call @nvfp4RtQuantizeReference(%xu2, %du8, %su9, %c10, %c11) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %d813 = bufferization.to_tensor %dm6 restrict : memref<64x128xi8> to tensor<64x128xi8>
  %d414 = arith.trunci %d813 : tensor<64x128xi8> to tensor<64x128xi4>
  %d15 = arith.bitcast %d414 : tensor<64x128xi4> to tensor<64x128xf4E2M1FN>
  %s816 = bufferization.to_tensor %sm7 restrict : memref<64x8xi8> to tensor<64x8xi8>
  %s17 = arith.bitcast %s816 : tensor<64x8xi8> to tensor<64x8xf8E4M3FN>
  %q18 = nvfp4.assemble %d15, %s17, %g12 : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> !nvfp4.tensor<64x128, 1x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  %m20 = bufferization.to_buffer %y19 : tensor<64x128xf32> to memref<64x128xf32>
  %u21 = memref.cast %m20 : memref<64x128xf32> to memref<*xf32>
  %n22 = call @nvfp4RtCheckDequantize(%du8, %su9, %g12, %c10, %u21) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_1() {
  %xm1 = memref.alloc() : memref<2x32x64xf32>
  %xu2 = memref.cast %xm1 : memref<2x32x64xf32> to memref<*xf32>
  %c3 = arith.constant 201 : i64
  %c4 = arith.constant 2 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %dm6 = memref.alloc() : memref<2x32x64xi8>
  %sm7 = memref.alloc() : memref<2x2x4xi8>
  %du8 = memref.cast %dm6 : memref<2x32x64xi8> to memref<*xi8>
  %su9 = memref.cast %sm7 : memref<2x2x4xi8> to memref<*xi8>
  %c10 = arith.constant 16 : i64
  %c11 = arith.constant 1 : i32
  %g12 = call @nvfp4RtQuantizeReference(%xu2, %du8, %su9, %c10, %c11) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %d813 = bufferization.to_tensor %dm6 restrict : memref<2x32x64xi8> to tensor<2x32x64xi8>
  %d414 = arith.trunci %d813 : tensor<2x32x64xi8> to tensor<2x32x64xi4>
  %d15 = arith.bitcast %d414 : tensor<2x32x64xi4> to tensor<2x32x64xf4E2M1FN>
  %s816 = bufferization.to_tensor %sm7 restrict : memref<2x2x4xi8> to tensor<2x2x4xi8>
  %s17 = arith.bitcast %s816 : tensor<2x2x4xi8> to tensor<2x2x4xf8E4M3FN>
  %q18 = nvfp4.assemble %d15, %s17, %g12 : tensor<2x32x64xf4E2M1FN>, tensor<2x2x4xf8E4M3FN> -> !nvfp4.tensor<2x32x64, 16x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<2x32x64, 16x16> -> tensor<2x32x64xf32>
  %m20 = bufferization.to_buffer %y19 : tensor<2x32x64xf32> to memref<2x32x64xf32>
  %u21 = memref.cast %m20 : memref<2x32x64xf32> to memref<*xf32>
  %n22 = call @nvfp4RtCheckDequantize(%du8, %su9, %g12, %c10, %u21) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_2() {
  %xm1 = memref.alloc() : memref<128x256xf32>
  %xu2 = memref.cast %xm1 : memref<128x256xf32> to memref<*xf32>
  %c3 = arith.constant 202 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<128x256xf32> to tensor<128x256xf32>
  %dm6 = memref.alloc() : memref<128x256xi8>
  %sm7 = memref.alloc() : memref<8x16xi8>
  %du8 = memref.cast %dm6 : memref<128x256xi8> to memref<*xi8>
  %su9 = memref.cast %sm7 : memref<8x16xi8> to memref<*xi8>
  %c10 = arith.constant 16 : i64
  %c11 = arith.constant 1 : i32
  %g12 = call @nvfp4RtQuantizeReference(%xu2, %du8, %su9, %c10, %c11) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %d813 = bufferization.to_tensor %dm6 restrict : memref<128x256xi8> to tensor<128x256xi8>
  %d414 = arith.trunci %d813 : tensor<128x256xi8> to tensor<128x256xi4>
  %d15 = arith.bitcast %d414 : tensor<128x256xi4> to tensor<128x256xf4E2M1FN>
  %s816 = bufferization.to_tensor %sm7 restrict : memref<8x16xi8> to tensor<8x16xi8>
  %s17 = arith.bitcast %s816 : tensor<8x16xi8> to tensor<8x16xf8E4M3FN>
  %q18 = nvfp4.assemble %d15, %s17, %g12 : tensor<128x256xf4E2M1FN>, tensor<8x16xf8E4M3FN> -> !nvfp4.tensor<128x256, 16x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<128x256, 16x16> -> tensor<128x256xf32>
  %m20 = bufferization.to_buffer %y19 : tensor<128x256xf32> to memref<128x256xf32>
  %u21 = memref.cast %m20 : memref<128x256xf32> to memref<*xf32>
  %n22 = call @nvfp4RtCheckDequantize(%du8, %su9, %g12, %c10, %u21) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  %yl23 = nvfp4.dequantize %q18 : !nvfp4.tensor<128x256, 16x16> -> tensor<128x256xbf16>
  %t24 = arith.truncf %y19 : tensor<128x256xf32> to tensor<128x256xbf16>
  %te25 = arith.extf %t24 : tensor<128x256xbf16> to tensor<128x256xf32>
  %ye26 = arith.extf %yl23 : tensor<128x256xbf16> to tensor<128x256xf32>
  %m27 = bufferization.to_buffer %ye26 : tensor<128x256xf32> to memref<128x256xf32>
  %u28 = memref.cast %m27 : memref<128x256xf32> to memref<*xf32>
  %m29 = bufferization.to_buffer %te25 : tensor<128x256xf32> to memref<128x256xf32>
  %u30 = memref.cast %m29 : memref<128x256xf32> to memref<*xf32>
  %c31 = arith.constant 2 : i32
  %c32 = arith.constant 0.0 : f64
  %r33 = call @nvfp4RtRelativeError(%u28, %u30, %c31, %c32) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @dequantize_3() {
  %xm1 = memref.alloc() : memref<64x64xf32>
  %xu2 = memref.cast %xm1 : memref<64x64xf32> to memref<*xf32>
  %c3 = arith.constant 203 : i64
  %c4 = arith.constant 1 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x64xf32> to tensor<64x64xf32>
  %dm6 = memref.alloc() : memref<64x64xi8>
  %sm7 = memref.alloc() : memref<64x4xi8>
  %du8 = memref.cast %dm6 : memref<64x64xi8> to memref<*xi8>
  %su9 = memref.cast %sm7 : memref<64x4xi8> to memref<*xi8>
  %c10 = arith.constant 1 : i64
  %c11 = arith.constant 1 : i32
  %g12 = call @nvfp4RtQuantizeReference(%xu2, %du8, %su9, %c10, %c11) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %d813 = bufferization.to_tensor %dm6 restrict : memref<64x64xi8> to tensor<64x64xi8>
  %d414 = arith.trunci %d813 : tensor<64x64xi8> to tensor<64x64xi4>
  %d15 = arith.bitcast %d414 : tensor<64x64xi4> to tensor<64x64xf4E2M1FN>
  %s816 = bufferization.to_tensor %sm7 restrict : memref<64x4xi8> to tensor<64x4xi8>
  %s17 = arith.bitcast %s816 : tensor<64x4xi8> to tensor<64x4xf8E4M3FN>
  %q18 = nvfp4.assemble %d15, %s17, %g12 : tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN> -> !nvfp4.tensor<64x64, 1x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %m20 = bufferization.to_buffer %y19 : tensor<64x64xf32> to memref<64x64xf32>
  %u21 = memref.cast %m20 : memref<64x64xf32> to memref<*xf32>
  %n22 = call @nvfp4RtCheckDequantize(%du8, %su9, %g12, %c10, %u21) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  %yl23 = nvfp4.dequantize %q18 : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf16>
  %t24 = arith.truncf %y19 : tensor<64x64xf32> to tensor<64x64xf16>
  %te25 = arith.extf %t24 : tensor<64x64xf16> to tensor<64x64xf32>
  %ye26 = arith.extf %yl23 : tensor<64x64xf16> to tensor<64x64xf32>
  %m27 = bufferization.to_buffer %ye26 : tensor<64x64xf32> to memref<64x64xf32>
  %u28 = memref.cast %m27 : memref<64x64xf32> to memref<*xf32>
  %m29 = bufferization.to_buffer %te25 : tensor<64x64xf32> to memref<64x64xf32>
  %u30 = memref.cast %m29 : memref<64x64xf32> to memref<*xf32>
  %c31 = arith.constant 3 : i32
  %c32 = arith.constant 0.0 : f64
  %r33 = call @nvfp4RtRelativeError(%u28, %u30, %c31, %c32) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @dequantize_4() {
  %xm1 = memref.alloc() : memref<4096xf32>
  %xu2 = memref.cast %xm1 : memref<4096xf32> to memref<*xf32>
  %c3 = arith.constant 204 : i64
  %c4 = arith.constant 3 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<4096xf32> to tensor<4096xf32>
  %dm6 = memref.alloc() : memref<4096xi8>
  %sm7 = memref.alloc() : memref<256xi8>
  %du8 = memref.cast %dm6 : memref<4096xi8> to memref<*xi8>
  %su9 = memref.cast %sm7 : memref<256xi8> to memref<*xi8>
  %c10 = arith.constant 1 : i64
  %c11 = arith.constant 1 : i32
  %g12 = call @nvfp4RtQuantizeReference(%xu2, %du8, %su9, %c10, %c11) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %d813 = bufferization.to_tensor %dm6 restrict : memref<4096xi8> to tensor<4096xi8>
  %d414 = arith.trunci %d813 : tensor<4096xi8> to tensor<4096xi4>
  %d15 = arith.bitcast %d414 : tensor<4096xi4> to tensor<4096xf4E2M1FN>
  %s816 = bufferization.to_tensor %sm7 restrict : memref<256xi8> to tensor<256xi8>
  %s17 = arith.bitcast %s816 : tensor<256xi8> to tensor<256xf8E4M3FN>
  %q18 = nvfp4.assemble %d15, %s17, %g12 : tensor<4096xf4E2M1FN>, tensor<256xf8E4M3FN> -> !nvfp4.tensor<4096, 1x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<4096, 1x16> -> tensor<4096xf32>
  %m20 = bufferization.to_buffer %y19 : tensor<4096xf32> to memref<4096xf32>
  %u21 = memref.cast %m20 : memref<4096xf32> to memref<*xf32>
  %n22 = call @nvfp4RtCheckDequantize(%du8, %su9, %g12, %c10, %u21) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  %yl23 = nvfp4.dequantize %q18 : !nvfp4.tensor<4096, 1x16> -> tensor<4096xbf16>
  %t24 = arith.truncf %y19 : tensor<4096xf32> to tensor<4096xbf16>
  %te25 = arith.extf %t24 : tensor<4096xbf16> to tensor<4096xf32>
  %ye26 = arith.extf %yl23 : tensor<4096xbf16> to tensor<4096xf32>
  %m27 = bufferization.to_buffer %ye26 : tensor<4096xf32> to memref<4096xf32>
  %u28 = memref.cast %m27 : memref<4096xf32> to memref<*xf32>
  %m29 = bufferization.to_buffer %te25 : tensor<4096xf32> to memref<4096xf32>
  %u30 = memref.cast %m29 : memref<4096xf32> to memref<*xf32>
  %c31 = arith.constant 4 : i32
  %c32 = arith.constant 0.0 : f64
  %r33 = call @nvfp4RtRelativeError(%u28, %u30, %c31, %c32) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @dequantize_known() {
  %c1 = arith.constant 0 : index
  %c2 = arith.constant 0.0 : f32
  %codes3 = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi4>
  %sc4 = arith.constant dense<[[64]]> : tensor<1x1xi8>
  %g5 = arith.constant 1344.0 : f32
  %d6 = arith.bitcast %codes3 : tensor<1x16xi4> to tensor<1x16xf4E2M1FN>
  %s7 = arith.bitcast %sc4 : tensor<1x1xi8> to tensor<1x1xf8E4M3FN>
  %q8 = nvfp4.assemble %d6, %s7, %g5 : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16>
  %y9 = nvfp4.dequantize %q8 : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
  %vec10 = vector.transfer_read %y9[%c1, %c1], %c2 {in_bounds = [true]} : tensor<1x16xf32>, vector<16xf32>
  vector.print %vec10 : vector<16xf32>
  %c11 = arith.constant 0 : index
  %c12 = arith.constant 0.0 : f32
  %codes13 = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi4>
  %sc14 = arith.constant dense<[[1]]> : tensor<1x1xi8>
  %g15 = arith.constant 2688.0 : f32
  %d16 = arith.bitcast %codes13 : tensor<1x16xi4> to tensor<1x16xf4E2M1FN>
  %s17 = arith.bitcast %sc14 : tensor<1x1xi8> to tensor<1x1xf8E4M3FN>
  %q18 = nvfp4.assemble %d16, %s17, %g15 : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16>
  %y19 = nvfp4.dequantize %q18 : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
  %vec20 = vector.transfer_read %y19[%c11, %c11], %c12 {in_bounds = [true]} : tensor<1x16xf32>, vector<16xf32>
  vector.print %vec20 : vector<16xf32>
  return
}

func.func @main() {
  call @dequantize_0() : () -> ()
  call @dequantize_1() : () -> ()
  call @dequantize_2() : () -> ()
  call @dequantize_3() : () -> ()
  call @dequantize_4() : () -> ()
  call @dequantize_known() : () -> ()
  return
}
