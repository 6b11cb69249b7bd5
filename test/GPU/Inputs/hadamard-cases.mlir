// nvfp4.hadamard cases shared by the GPU execution tests (hadamard-sm*.mlir)
// and their CPU companion (hadamard-on-cpu.mlir), compared bit for bit with
// nvfp4::applyHadamard (nvfp4RtCheckHadamard): TE's signs, custom signs,
// all-plus signs, ranks 1 to 3, specials (fill mode 2: Inf, NaN, f32
// subnormals, values near FLT_MAX); bf16 / f16 inputs must give the checked
// f32 transform of the rounded input, rounded once (relative error exactly
// 0).

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckDequantize(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckHadamard(memref<*xf32>, memref<*xf32>, i32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}

// CHECK: hadamard [64x128]: mismatches 0 (of
// CHECK-NEXT: hadamard [64x128]: mismatches 0 (of
// CHECK-NEXT: relative error 10 [64x128]: 0.000000 (tolerance 0.000): ok
// CHECK-NEXT: hadamard [2x16x32]: mismatches 0 (of
// CHECK-NEXT: hadamard [2048]: mismatches 0 (of
// CHECK-NEXT: hadamard [256x64]: mismatches 0 (of
// CHECK-NEXT: hadamard [256x64]: mismatches 0 (of
// CHECK-NEXT: relative error 13 [256x64]: 0.000000 (tolerance 0.000): ok
// CHECK-NEXT: hadamard [256x64]: mismatches 0 (of
// CHECK-NEXT: relative error 23 [256x64]: 0.000000 (tolerance 0.000): ok
// CHECK-NOT: mismatches {{[1-9]}}
// CHECK-NOT: FAIL

func.func @hadamard_0() {
  %xm1 = memref.alloc() : memref<64x128xf32>
  %xu2 = memref.cast %xm1 : memref<64x128xf32> to memref<*xf32>
  %c3 = arith.constant 300 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<64x128xf32> to tensor<64x128xf32>
  %y6 = nvfp4.hadamard %x5 : tensor<64x128xf32>
  %m7 = bufferization.to_buffer %y6 : tensor<64x128xf32> to memref<64x128xf32>
  %u8 = memref.cast %m7 : memref<64x128xf32> to memref<*xf32>
  %c9 = arith.constant -1 : i32
  %n10 = call @nvfp4RtCheckHadamard(%xu2, %u8, %c9) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %xl11 = arith.truncf %x5 : tensor<64x128xf32> to tensor<64x128xbf16>
  %xle12 = arith.extf %xl11 : tensor<64x128xbf16> to tensor<64x128xf32>
  %yf13 = nvfp4.hadamard %xle12 : tensor<64x128xf32>
  %m15 = bufferization.to_buffer %xle12 : tensor<64x128xf32> to memref<64x128xf32>
  %u16 = memref.cast %m15 : memref<64x128xf32> to memref<*xf32>
  %m17 = bufferization.to_buffer %yf13 : tensor<64x128xf32> to memref<64x128xf32>
  %u18 = memref.cast %m17 : memref<64x128xf32> to memref<*xf32>
  %c19 = arith.constant -1 : i32
  %n20 = call @nvfp4RtCheckHadamard(%u16, %u18, %c19) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %yl14 = nvfp4.hadamard %xl11 : tensor<64x128xbf16>
  %t21 = arith.truncf %yf13 : tensor<64x128xf32> to tensor<64x128xbf16>
  %te22 = arith.extf %t21 : tensor<64x128xbf16> to tensor<64x128xf32>
  %ye23 = arith.extf %yl14 : tensor<64x128xbf16> to tensor<64x128xf32>
  %m24 = bufferization.to_buffer %ye23 : tensor<64x128xf32> to memref<64x128xf32>
  %u25 = memref.cast %m24 : memref<64x128xf32> to memref<*xf32>
  %m26 = bufferization.to_buffer %te22 : tensor<64x128xf32> to memref<64x128xf32>
  %u27 = memref.cast %m26 : memref<64x128xf32> to memref<*xf32>
  %c28 = arith.constant 10 : i32
  %c29 = arith.constant 0.0 : f64
  %r30 = call @nvfp4RtRelativeError(%u25, %u27, %c28, %c29) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @hadamard_1() {
  %xm1 = memref.alloc() : memref<2x16x32xf32>
  %xu2 = memref.cast %xm1 : memref<2x16x32xf32> to memref<*xf32>
  %c3 = arith.constant 301 : i64
  %c4 = arith.constant 2 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<2x16x32xf32> to tensor<2x16x32xf32>
  %y6 = nvfp4.hadamard %x5 signs [-1, -1, -1, -1, 1, 1, 1, 1, -1, -1, -1, -1, 1, 1, 1, 1] : tensor<2x16x32xf32>
  %m7 = bufferization.to_buffer %y6 : tensor<2x16x32xf32> to memref<2x16x32xf32>
  %u8 = memref.cast %m7 : memref<2x16x32xf32> to memref<*xf32>
  %c9 = arith.constant 3855 : i32
  %n10 = call @nvfp4RtCheckHadamard(%xu2, %u8, %c9) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  return
}

func.func @hadamard_2() {
  %xm1 = memref.alloc() : memref<2048xf32>
  %xu2 = memref.cast %xm1 : memref<2048xf32> to memref<*xf32>
  %c3 = arith.constant 302 : i64
  %c4 = arith.constant 0 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<2048xf32> to tensor<2048xf32>
  %y6 = nvfp4.hadamard %x5 signs [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] : tensor<2048xf32>
  %m7 = bufferization.to_buffer %y6 : tensor<2048xf32> to memref<2048xf32>
  %u8 = memref.cast %m7 : memref<2048xf32> to memref<*xf32>
  %c9 = arith.constant 0 : i32
  %n10 = call @nvfp4RtCheckHadamard(%xu2, %u8, %c9) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  return
}

func.func @hadamard_3() {
  %xm1 = memref.alloc() : memref<256x64xf32>
  %xu2 = memref.cast %xm1 : memref<256x64xf32> to memref<*xf32>
  %c3 = arith.constant 303 : i64
  %c4 = arith.constant 3 : i32
  call @nvfp4RtFill(%xu2, %c3, %c4) : (memref<*xf32>, i64, i32) -> ()
  %x5 = bufferization.to_tensor %xm1 restrict : memref<256x64xf32> to tensor<256x64xf32>
  %y6 = nvfp4.hadamard %x5 : tensor<256x64xf32>
  %m7 = bufferization.to_buffer %y6 : tensor<256x64xf32> to memref<256x64xf32>
  %u8 = memref.cast %m7 : memref<256x64xf32> to memref<*xf32>
  %c9 = arith.constant -1 : i32
  %n10 = call @nvfp4RtCheckHadamard(%xu2, %u8, %c9) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %xl11 = arith.truncf %x5 : tensor<256x64xf32> to tensor<256x64xbf16>
  %xle12 = arith.extf %xl11 : tensor<256x64xbf16> to tensor<256x64xf32>
  %yf13 = nvfp4.hadamard %xle12 : tensor<256x64xf32>
  %m15 = bufferization.to_buffer %xle12 : tensor<256x64xf32> to memref<256x64xf32>
  %u16 = memref.cast %m15 : memref<256x64xf32> to memref<*xf32>
  %m17 = bufferization.to_buffer %yf13 : tensor<256x64xf32> to memref<256x64xf32>
  %u18 = memref.cast %m17 : memref<256x64xf32> to memref<*xf32>
  %c19 = arith.constant -1 : i32
  %n20 = call @nvfp4RtCheckHadamard(%u16, %u18, %c19) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %yl14 = nvfp4.hadamard %xl11 : tensor<256x64xbf16>
  %t21 = arith.truncf %yf13 : tensor<256x64xf32> to tensor<256x64xbf16>
  %te22 = arith.extf %t21 : tensor<256x64xbf16> to tensor<256x64xf32>
  %ye23 = arith.extf %yl14 : tensor<256x64xbf16> to tensor<256x64xf32>
  %m24 = bufferization.to_buffer %ye23 : tensor<256x64xf32> to memref<256x64xf32>
  %u25 = memref.cast %m24 : memref<256x64xf32> to memref<*xf32>
  %m26 = bufferization.to_buffer %te22 : tensor<256x64xf32> to memref<256x64xf32>
  %u27 = memref.cast %m26 : memref<256x64xf32> to memref<*xf32>
  %c28 = arith.constant 13 : i32
  %c29 = arith.constant 0.0 : f64
  %r30 = call @nvfp4RtRelativeError(%u25, %u27, %c28, %c29) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  %xl31 = arith.truncf %x5 : tensor<256x64xf32> to tensor<256x64xf16>
  %xle32 = arith.extf %xl31 : tensor<256x64xf16> to tensor<256x64xf32>
  %yf33 = nvfp4.hadamard %xle32 : tensor<256x64xf32>
  %m35 = bufferization.to_buffer %xle32 : tensor<256x64xf32> to memref<256x64xf32>
  %u36 = memref.cast %m35 : memref<256x64xf32> to memref<*xf32>
  %m37 = bufferization.to_buffer %yf33 : tensor<256x64xf32> to memref<256x64xf32>
  %u38 = memref.cast %m37 : memref<256x64xf32> to memref<*xf32>
  %c39 = arith.constant -1 : i32
  %n40 = call @nvfp4RtCheckHadamard(%u36, %u38, %c39) : (memref<*xf32>, memref<*xf32>, i32) -> i64
  %yl34 = nvfp4.hadamard %xl31 : tensor<256x64xf16>
  %t41 = arith.truncf %yf33 : tensor<256x64xf32> to tensor<256x64xf16>
  %te42 = arith.extf %t41 : tensor<256x64xf16> to tensor<256x64xf32>
  %ye43 = arith.extf %yl34 : tensor<256x64xf16> to tensor<256x64xf32>
  %m44 = bufferization.to_buffer %ye43 : tensor<256x64xf32> to memref<256x64xf32>
  %u45 = memref.cast %m44 : memref<256x64xf32> to memref<*xf32>
  %m46 = bufferization.to_buffer %te42 : tensor<256x64xf32> to memref<256x64xf32>
  %u47 = memref.cast %m46 : memref<256x64xf32> to memref<*xf32>
  %c48 = arith.constant 23 : i32
  %c49 = arith.constant 0.0 : f64
  %r50 = call @nvfp4RtRelativeError(%u45, %u47, %c48, %c49) : (memref<*xf32>, memref<*xf32>, i32, f64) -> f64
  return
}

func.func @main() {
  call @hadamard_0() : () -> ()
  call @hadamard_1() : () -> ()
  call @hadamard_2() : () -> ()
  call @hadamard_3() : () -> ()
  return
}
