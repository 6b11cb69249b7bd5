// nvfp4.dequantize lowered by nvfp4-to-cpu and run on the CPU, compared bit
// for bit with the reference library, plus two hand-checked decodes:
// - E4M3 0x40 is 2.0 and amax 1344: (2 * 1344) * fl(1/2688) = 1, so the
//   output is the E2M1 table;
// - Transformer Engine's order, e2m1 * ((s * amax) * fl(1/2688)), with
//   s = 1.5 (0x3C) and amax = 7.3: the bit patterns numpy gives for that
//   order, which differ in the last bit from (e2m1 * s) * (1 / S_enc) for 14
//   of the 16 codes.
//
// Both CPU lowerings run and are checked: the default calls of the
// precompiled kernels (libnvfp4_cpu_runtime) and kernels=inline.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN: | FileCheck %s

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckDequantize(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckHadamard(memref<*xf32>, memref<*xf32>, i32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckTranspose(memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckRescale(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtRelativeError(memref<*xf32>, memref<*xf32>, i32, f64) -> f64 attributes {llvm.emit_c_interface}

func.func @dequantize_0() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %xseed = arith.constant 100 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 1x16>
  %adi = arith.bitcast %ad : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %ad8 = arith.extui %adi : tensor<64x128xi4> to tensor<64x128xi8>
  %as8 = arith.bitcast %as : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<64x128xi8> to memref<64x128xi8>
  %asm = bufferization.to_buffer %as8 : tensor<64x8xi8> to memref<64x8xi8>
  %adu = memref.cast %adm : memref<64x128xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<64x8xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ym = bufferization.to_buffer %y : tensor<64x128xf32> to memref<64x128xf32>
  %yu = memref.cast %ym : memref<64x128xf32> to memref<*xf32>
  %n = call @nvfp4RtCheckDequantize(%adu, %asu, %ag, %aR, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_1() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %xseed = arith.constant 101 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<64x128, 16x16> -> tensor<64x128xf32>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 16x16>
  %adi = arith.bitcast %ad : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %ad8 = arith.extui %adi : tensor<64x128xi4> to tensor<64x128xi8>
  %as8 = arith.bitcast %as : tensor<4x8xf8E4M3FN> to tensor<4x8xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<64x128xi8> to memref<64x128xi8>
  %asm = bufferization.to_buffer %as8 : tensor<4x8xi8> to memref<4x8xi8>
  %adu = memref.cast %adm : memref<64x128xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<4x8xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ym = bufferization.to_buffer %y : tensor<64x128xf32> to memref<64x128xf32>
  %yu = memref.cast %ym : memref<64x128xf32> to memref<*xf32>
  %n = call @nvfp4RtCheckDequantize(%adu, %asu, %ag, %aR, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_2() {
  %xm = memref.alloc() : memref<2x32x64xf32>
  %xu = memref.cast %xm : memref<2x32x64xf32> to memref<*xf32>
  %xseed = arith.constant 102 : i64
  %xmode = arith.constant 2 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %sd = arith.constant 42 : i64
  %q = nvfp4.quantize %x rounding rs seed %sd offset 5 : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 16x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<2x32x64, 16x16> -> tensor<2x32x64xf32>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<2x32x64, 16x16>
  %adi = arith.bitcast %ad : tensor<2x32x64xf4E2M1FN> to tensor<2x32x64xi4>
  %ad8 = arith.extui %adi : tensor<2x32x64xi4> to tensor<2x32x64xi8>
  %as8 = arith.bitcast %as : tensor<2x2x4xf8E4M3FN> to tensor<2x2x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<2x32x64xi8> to memref<2x32x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x2x4xi8> to memref<2x2x4xi8>
  %adu = memref.cast %adm : memref<2x32x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x2x4xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ym = bufferization.to_buffer %y : tensor<2x32x64xf32> to memref<2x32x64xf32>
  %yu = memref.cast %ym : memref<2x32x64xf32> to memref<*xf32>
  %n = call @nvfp4RtCheckDequantize(%adu, %asu, %ag, %aR, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_3() {
  %xm = memref.alloc() : memref<256xf32>
  %xu = memref.cast %xm : memref<256xf32> to memref<*xf32>
  %xseed = arith.constant 103 : i64
  %xmode = arith.constant 1 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<256xf32> to tensor<256xf32>
  %q = nvfp4.quantize %x : tensor<256xf32> -> !nvfp4.tensor<256, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<256, 1x16> -> tensor<256xf32>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<256, 1x16>
  %adi = arith.bitcast %ad : tensor<256xf4E2M1FN> to tensor<256xi4>
  %ad8 = arith.extui %adi : tensor<256xi4> to tensor<256xi8>
  %as8 = arith.bitcast %as : tensor<16xf8E4M3FN> to tensor<16xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<256xi8> to memref<256xi8>
  %asm = bufferization.to_buffer %as8 : tensor<16xi8> to memref<16xi8>
  %adu = memref.cast %adm : memref<256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<16xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ym = bufferization.to_buffer %y : tensor<256xf32> to memref<256xf32>
  %yu = memref.cast %ym : memref<256xf32> to memref<*xf32>
  %n = call @nvfp4RtCheckDequantize(%adu, %asu, %ag, %aR, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_4() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %xseed = arith.constant 104 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %sd = arith.constant 42 : i64
  %q = nvfp4.quantize %x rounding rs seed %sd offset 5 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 1x16> -> tensor<32x64xf32>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %adi = arith.bitcast %ad : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %ad8 = arith.extui %adi : tensor<32x64xi4> to tensor<32x64xi8>
  %as8 = arith.bitcast %as : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<32x64xi8> to memref<32x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<32x4xi8> to memref<32x4xi8>
  %adu = memref.cast %adm : memref<32x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<32x4xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ym = bufferization.to_buffer %y : tensor<32x64xf32> to memref<32x64xf32>
  %yu = memref.cast %ym : memref<32x64xf32> to memref<*xf32>
  %n = call @nvfp4RtCheckDequantize(%adu, %asu, %ag, %aR, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xf32>) -> i64
  return
}

func.func @dequantize_known() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %codes = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi4>
  %sc = arith.constant dense<[[64]]> : tensor<1x1xi8>
  %g = arith.constant 1344.0 : f32
  %d = arith.bitcast %codes : tensor<1x16xi4> to tensor<1x16xf4E2M1FN>
  %s = arith.bitcast %sc : tensor<1x1xi8> to tensor<1x1xf8E4M3FN>
  %q = nvfp4.assemble %d, %s, %g : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
  %v = vector.transfer_read %y[%c0, %c0], %f0 {in_bounds = [true]} : tensor<1x16xf32>, vector<16xf32>
  vector.print %v : vector<16xf32>
  return
}

func.func @dequantize_te_order() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %codes = arith.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi4>
  %sc = arith.constant dense<[[60]]> : tensor<1x1xi8>
  %amax = arith.constant 7.3 : f32
  %d = arith.bitcast %codes : tensor<1x16xi4> to tensor<1x16xf4E2M1FN>
  %s = arith.bitcast %sc : tensor<1x1xi8> to tensor<1x1xf8E4M3FN>
  %q = nvfp4.assemble %d, %s, %amax : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16>
  %y = nvfp4.dequantize %q : !nvfp4.tensor<1x16, 1x16> -> tensor<1x16xf32>
  %v = vector.transfer_read %y[%c0, %c0], %f0 {in_bounds = [true]} : tensor<1x16xf32>, vector<16xf32>
  %bits = arith.bitcast %v : vector<16xf32> to vector<16xi32>
  vector.print %bits : vector<16xi32>
  return
}

func.func @main() {
  call @dequantize_0() : () -> ()
  call @dequantize_1() : () -> ()
  call @dequantize_2() : () -> ()
  call @dequantize_3() : () -> ()
  call @dequantize_4() : () -> ()
  call @dequantize_known() : () -> ()
  call @dequantize_te_order() : () -> ()
  return
}

// CHECK: dequantize [64x128] 1x16: mismatches 0 (of
// CHECK: dequantize [64x128] 16x16: mismatches 0 (of
// CHECK: dequantize [2x32x64] 16x16: mismatches 0 (of
// CHECK: dequantize [256] 1x16: mismatches 0 (of
// CHECK: dequantize [32x64] 1x16: mismatches 0 (of
// CHECK: ( 0, 0.5, 1, 1.5, 2, 3, 4, 6, -0, -0.5, -1, -1.5, -2, -3, -4, -6 )
// CHECK: ( 0, 990215257, 998603865, 1002977926, 1006992473, 1011366534, 1015381081, 1019755142, -2147483648, -1157268391, -1148879783, -1144505722, -1140491175, -1136117114, -1132102567, -1127728506 )
