// nvfp4.transpose and nvfp4.rescale lowered by nvfp4-to-cpu and run on the
// CPU, compared bit for bit with the reference (transpose2D;
// quantize(dequantize(x)) with the new options).
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

func.func @transpose_0() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %xseed = arith.constant 600 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %t = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %adi = arith.bitcast %ad : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %ad8 = arith.extui %adi : tensor<32x64xi4> to tensor<32x64xi8>
  %as8 = arith.bitcast %as : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<32x64xi8> to memref<32x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x4xi8> to memref<2x4xi8>
  %adu = memref.cast %adm : memref<32x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x4xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %bd, %bs, %bg = nvfp4.disassemble %t : !nvfp4.tensor<64x32, 16x16>
  %bdi = arith.bitcast %bd : tensor<64x32xf4E2M1FN> to tensor<64x32xi4>
  %bd8 = arith.extui %bdi : tensor<64x32xi4> to tensor<64x32xi8>
  %bs8 = arith.bitcast %bs : tensor<4x2xf8E4M3FN> to tensor<4x2xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<64x32xi8> to memref<64x32xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<4x2xi8> to memref<4x2xi8>
  %bdu = memref.cast %bdm : memref<64x32xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<4x2xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %n = call @nvfp4RtCheckTranspose(%adu, %asu, %bdu, %bsu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) -> i64
  return
}

func.func @transpose_1() {
  %xm = memref.alloc() : memref<2x48x16xf32>
  %xu = memref.cast %xm : memref<2x48x16xf32> to memref<*xf32>
  %xseed = arith.constant 601 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x48x16xf32> to tensor<2x48x16xf32>
  %q = nvfp4.quantize %x : tensor<2x48x16xf32> -> !nvfp4.tensor<2x48x16, 16x16>
  %t = nvfp4.transpose %q : !nvfp4.tensor<2x48x16, 16x16> -> !nvfp4.tensor<2x16x48, 16x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<2x48x16, 16x16>
  %adi = arith.bitcast %ad : tensor<2x48x16xf4E2M1FN> to tensor<2x48x16xi4>
  %ad8 = arith.extui %adi : tensor<2x48x16xi4> to tensor<2x48x16xi8>
  %as8 = arith.bitcast %as : tensor<2x3x1xf8E4M3FN> to tensor<2x3x1xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<2x48x16xi8> to memref<2x48x16xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x3x1xi8> to memref<2x3x1xi8>
  %adu = memref.cast %adm : memref<2x48x16xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x3x1xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %bd, %bs, %bg = nvfp4.disassemble %t : !nvfp4.tensor<2x16x48, 16x16>
  %bdi = arith.bitcast %bd : tensor<2x16x48xf4E2M1FN> to tensor<2x16x48xi4>
  %bd8 = arith.extui %bdi : tensor<2x16x48xi4> to tensor<2x16x48xi8>
  %bs8 = arith.bitcast %bs : tensor<2x1x3xf8E4M3FN> to tensor<2x1x3xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<2x16x48xi8> to memref<2x16x48xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<2x1x3xi8> to memref<2x1x3xi8>
  %bdu = memref.cast %bdm : memref<2x16x48xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x1x3xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %n = call @nvfp4RtCheckTranspose(%adu, %asu, %bdu, %bsu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) -> i64
  return
}

func.func @transpose_2() {
  %xm = memref.alloc() : memref<2x3x32x16xf32>
  %xu = memref.cast %xm : memref<2x3x32x16xf32> to memref<*xf32>
  %xseed = arith.constant 602 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x3x32x16xf32> to tensor<2x3x32x16xf32>
  %q = nvfp4.quantize %x : tensor<2x3x32x16xf32> -> !nvfp4.tensor<2x3x32x16, 16x16>
  %t = nvfp4.transpose %q : !nvfp4.tensor<2x3x32x16, 16x16> -> !nvfp4.tensor<2x3x16x32, 16x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<2x3x32x16, 16x16>
  %adi = arith.bitcast %ad : tensor<2x3x32x16xf4E2M1FN> to tensor<2x3x32x16xi4>
  %ad8 = arith.extui %adi : tensor<2x3x32x16xi4> to tensor<2x3x32x16xi8>
  %as8 = arith.bitcast %as : tensor<2x3x2x1xf8E4M3FN> to tensor<2x3x2x1xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<2x3x32x16xi8> to memref<2x3x32x16xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x3x2x1xi8> to memref<2x3x2x1xi8>
  %adu = memref.cast %adm : memref<2x3x32x16xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x3x2x1xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %bd, %bs, %bg = nvfp4.disassemble %t : !nvfp4.tensor<2x3x16x32, 16x16>
  %bdi = arith.bitcast %bd : tensor<2x3x16x32xf4E2M1FN> to tensor<2x3x16x32xi4>
  %bd8 = arith.extui %bdi : tensor<2x3x16x32xi4> to tensor<2x3x16x32xi8>
  %bs8 = arith.bitcast %bs : tensor<2x3x1x2xf8E4M3FN> to tensor<2x3x1x2xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<2x3x16x32xi8> to memref<2x3x16x32xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<2x3x1x2xi8> to memref<2x3x1x2xi8>
  %bdu = memref.cast %bdm : memref<2x3x16x32xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x3x1x2xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %n = call @nvfp4RtCheckTranspose(%adu, %asu, %bdu, %bsu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) -> i64
  return
}

func.func @rescale_0() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %xseed = arith.constant 700 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %amax = arith.constant -1.0 : f32
  %sd = arith.constant 21 : i64
  %off = arith.constant 12 : i64
  %sr = arith.constant 0 : i32
  %r = nvfp4.rescale %q : !nvfp4.tensor<32x64, 1x16> -> !nvfp4.tensor<32x64, 16x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %adi = arith.bitcast %ad : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %ad8 = arith.extui %adi : tensor<32x64xi4> to tensor<32x64xi8>
  %as8 = arith.bitcast %as : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<32x64xi8> to memref<32x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<32x4xi8> to memref<32x4xi8>
  %adu = memref.cast %adm : memref<32x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<32x4xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %bd, %bs, %bg = nvfp4.disassemble %r : !nvfp4.tensor<32x64, 16x16>
  %bdi = arith.bitcast %bd : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %bd8 = arith.extui %bdi : tensor<32x64xi4> to tensor<32x64xi8>
  %bs8 = arith.bitcast %bs : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<32x64xi8> to memref<32x64xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<2x4xi8> to memref<2x4xi8>
  %bdu = memref.cast %bdm : memref<32x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x4xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %n = call @nvfp4RtCheckRescale(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %sr, %sd, %off, %amax) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, f32) -> i64
  return
}

func.func @rescale_1() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %xseed = arith.constant 701 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %amax = arith.constant -1.0 : f32
  %sd = arith.constant 21 : i64
  %off = arith.constant 12 : i64
  %sr = arith.constant 1 : i32
  %r = nvfp4.rescale %q rounding rs seed %sd offset 12 : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<32x64, 1x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %adi = arith.bitcast %ad : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %ad8 = arith.extui %adi : tensor<32x64xi4> to tensor<32x64xi8>
  %as8 = arith.bitcast %as : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<32x64xi8> to memref<32x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x4xi8> to memref<2x4xi8>
  %adu = memref.cast %adm : memref<32x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x4xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %bd, %bs, %bg = nvfp4.disassemble %r : !nvfp4.tensor<32x64, 1x16>
  %bdi = arith.bitcast %bd : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %bd8 = arith.extui %bdi : tensor<32x64xi4> to tensor<32x64xi8>
  %bs8 = arith.bitcast %bs : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<32x64xi8> to memref<32x64xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<32x4xi8> to memref<32x4xi8>
  %bdu = memref.cast %bdm : memref<32x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<32x4xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %n = call @nvfp4RtCheckRescale(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %sr, %sd, %off, %amax) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, f32) -> i64
  return
}

func.func @rescale_2() {
  %xm = memref.alloc() : memref<2x16x64xf32>
  %xu = memref.cast %xm : memref<2x16x64xf32> to memref<*xf32>
  %xseed = arith.constant 702 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x16x64xf32> to tensor<2x16x64xf32>
  %q = nvfp4.quantize %x : tensor<2x16x64xf32> -> !nvfp4.tensor<2x16x64, 1x16>
  %amax = arith.constant 7.5 : f32
  %sd = arith.constant 21 : i64
  %off = arith.constant 12 : i64
  %sr = arith.constant 0 : i32
  %r = nvfp4.rescale %q amax %amax : !nvfp4.tensor<2x16x64, 1x16> -> !nvfp4.tensor<2x16x64, 1x16>
  %ad, %as, %ag = nvfp4.disassemble %q : !nvfp4.tensor<2x16x64, 1x16>
  %adi = arith.bitcast %ad : tensor<2x16x64xf4E2M1FN> to tensor<2x16x64xi4>
  %ad8 = arith.extui %adi : tensor<2x16x64xi4> to tensor<2x16x64xi8>
  %as8 = arith.bitcast %as : tensor<2x16x4xf8E4M3FN> to tensor<2x16x4xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<2x16x64xi8> to memref<2x16x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x16x4xi8> to memref<2x16x4xi8>
  %adu = memref.cast %adm : memref<2x16x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x16x4xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %bd, %bs, %bg = nvfp4.disassemble %r : !nvfp4.tensor<2x16x64, 1x16>
  %bdi = arith.bitcast %bd : tensor<2x16x64xf4E2M1FN> to tensor<2x16x64xi4>
  %bd8 = arith.extui %bdi : tensor<2x16x64xi4> to tensor<2x16x64xi8>
  %bs8 = arith.bitcast %bs : tensor<2x16x4xf8E4M3FN> to tensor<2x16x4xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<2x16x64xi8> to memref<2x16x64xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<2x16x4xi8> to memref<2x16x4xi8>
  %bdu = memref.cast %bdm : memref<2x16x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x16x4xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %n = call @nvfp4RtCheckRescale(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %sr, %sd, %off, %amax) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, f32) -> i64
  return
}

func.func @main() {
  call @transpose_0() : () -> ()
  call @transpose_1() : () -> ()
  call @transpose_2() : () -> ()
  call @rescale_0() : () -> ()
  call @rescale_1() : () -> ()
  call @rescale_2() : () -> ()
  return
}

// CHECK: transpose [32x64]: mismatches 0 (of
// CHECK: transpose [2x48x16]: mismatches 0 (of
// CHECK: transpose [2x3x32x16]: mismatches 0 (of
// CHECK: rescale [32x64] 1x16 -> 16x16 rn: mismatches 0 (of
// CHECK: rescale [32x64] 16x16 -> 1x16 rs: mismatches 0 (of
// CHECK: rescale [2x16x64] 1x16 -> 1x16 rn: mismatches 0 (of
