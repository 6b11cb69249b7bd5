// Quantization lowered by nvfp4-to-cpu and run on the CPU, compared bit for
// bit (codes, block scales, amax) with the reference library: 1x16
// and 16x16 blocks, round-to-nearest and stochastic rounding, with and
// without the Hadamard transform, ranks 1 to 3, f32/bf16/f16 inputs,
// explicit amax, and inputs with ties, zeros, -0, outliers, Inf and NaN.
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
func.func private @nvfp4RtCheckQuantize(memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}

func.func @quantize_a() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 97 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 1x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<64x8xi8> to memref<64x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<64x8xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_b() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 98 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 16x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<4x8xf8E4M3FN> to tensor<4x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<4x8xi8> to memref<4x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<4x8xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_c() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 99 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 7 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 3 : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 1x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<64x8xi8> to memref<64x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<64x8xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 3 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_d() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 100 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 81985529216486895 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 1000 : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 16x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<4x8xf8E4M3FN> to tensor<4x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<4x8xi8> to memref<4x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<4x8xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 1000 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_e() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 101 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 1x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<64x8xi8> to memref<64x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<64x8xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -1 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_f() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %fseed = arith.constant 102 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %xref = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 5 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 1x16>
  %di = arith.bitcast %d : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d8 = arith.extui %di : tensor<64x128xi4> to tensor<64x128xi8>
  %s8 = arith.bitcast %s : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
  %dm = bufferization.to_buffer %d8 : tensor<64x128xi8> to memref<64x128xi8>
  %sm = bufferization.to_buffer %s8 : tensor<64x8xi8> to memref<64x8xi8>
  %du = memref.cast %dm : memref<64x128xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<64x8xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -1 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_g() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 103 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x hadamard [1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, -1, -1, 1, -1, 1] : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x4xi8> to memref<2x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x4xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant 23130 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_h() {
  %xm = memref.alloc() : memref<2x32x64xf32>
  %xu = memref.cast %xm : memref<2x32x64xf32> to memref<*xf32>
  %fseed = arith.constant 104 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %xref = memref.cast %xm : memref<2x32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<2x32x64, 16x16>
  %di = arith.bitcast %d : tensor<2x32x64xf4E2M1FN> to tensor<2x32x64xi4>
  %d8 = arith.extui %di : tensor<2x32x64xi4> to tensor<2x32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x2x4xf8E4M3FN> to tensor<2x2x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<2x32x64xi8> to memref<2x32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x2x4xi8> to memref<2x2x4xi8>
  %du = memref.cast %dm : memref<2x32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x2x4xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_i() {
  %xm = memref.alloc() : memref<2x32x64xf32>
  %xu = memref.cast %xm : memref<2x32x64xf32> to memref<*xf32>
  %fseed = arith.constant 105 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %xref = memref.cast %xm : memref<2x32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 11 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 9 : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<2x32x64, 1x16>
  %di = arith.bitcast %d : tensor<2x32x64xf4E2M1FN> to tensor<2x32x64xi4>
  %d8 = arith.extui %di : tensor<2x32x64xi4> to tensor<2x32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x32x4xf8E4M3FN> to tensor<2x32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<2x32x64xi8> to memref<2x32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x32x4xi8> to memref<2x32x4xi8>
  %du = memref.cast %dm : memref<2x32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 9 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_j() {
  %xm = memref.alloc() : memref<256xf32>
  %xu = memref.cast %xm : memref<256xf32> to memref<*xf32>
  %fseed = arith.constant 106 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<256xf32> to tensor<256xf32>
  %xref = memref.cast %xm : memref<256xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<256xf32> -> !nvfp4.tensor<256, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<256, 1x16>
  %di = arith.bitcast %d : tensor<256xf4E2M1FN> to tensor<256xi4>
  %d8 = arith.extui %di : tensor<256xi4> to tensor<256xi8>
  %s8 = arith.bitcast %s : tensor<16xf8E4M3FN> to tensor<16xi8>
  %dm = bufferization.to_buffer %d8 : tensor<256xi8> to memref<256xi8>
  %sm = bufferization.to_buffer %s8 : tensor<16xi8> to memref<16xi8>
  %du = memref.cast %dm : memref<256xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<16xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_k() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 107 : i64
  %mode = arith.constant 1 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<32x4xi8> to memref<32x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_l() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 108 : i64
  %mode = arith.constant 1 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x4xi8> to memref<2x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x4xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_m() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 109 : i64
  %mode = arith.constant 1 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 3 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 0 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<32x4xi8> to memref<32x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_n() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 110 : i64
  %mode = arith.constant 2 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<32x4xi8> to memref<32x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_o() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 111 : i64
  %mode = arith.constant 2 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 13 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 77 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x4xi8> to memref<2x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x4xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 77 : i64
  %hm = arith.constant -1 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_p() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 112 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %xref = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant 100.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x amax %amax : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<32x4xi8> to memref<32x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_q() {
  %xm = memref.alloc() : memref<48x96xf32>
  %xu = memref.cast %xm : memref<48x96xf32> to memref<*xf32>
  %fseed = arith.constant 113 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<48x96xf32> to tensor<48x96xf32>
  %xref = memref.cast %xm : memref<48x96xf32> to memref<*xf32>
  %amax = arith.constant 0.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x amax %amax : tensor<48x96xf32> -> !nvfp4.tensor<48x96, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<48x96, 16x16>
  %di = arith.bitcast %d : tensor<48x96xf4E2M1FN> to tensor<48x96xi4>
  %d8 = arith.extui %di : tensor<48x96xi4> to tensor<48x96xi8>
  %s8 = arith.bitcast %s : tensor<3x6xf8E4M3FN> to tensor<3x6xi8>
  %dm = bufferization.to_buffer %d8 : tensor<48x96xi8> to memref<48x96xi8>
  %sm = bufferization.to_buffer %s8 : tensor<3x6xi8> to memref<3x6xi8>
  %du = memref.cast %dm : memref<48x96xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<3x6xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_r() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 114 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x32 = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %x = arith.truncf %x32 : tensor<32x64xf32> to tensor<32x64xbf16>
  %xe = arith.extf %x : tensor<32x64xbf16> to tensor<32x64xf32>
  %xem = bufferization.to_buffer %xe : tensor<32x64xf32> to memref<32x64xf32>
  %xref = memref.cast %xem : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 0 : i64
  %q = nvfp4.quantize %x : tensor<32x64xbf16> -> !nvfp4.tensor<32x64, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<32x4xf8E4M3FN> to tensor<32x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<32x4xi8> to memref<32x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<32x4xi8> to memref<*xi8>
  %R = arith.constant 1 : i64
  %sr = arith.constant 0 : i32
  %off = arith.constant 0 : i64
  %hm = arith.constant -2 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

func.func @quantize_s() {
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %fseed = arith.constant 115 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %fseed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x32 = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %x = arith.truncf %x32 : tensor<32x64xf32> to tensor<32x64xf16>
  %xe = arith.extf %x : tensor<32x64xf16> to tensor<32x64xf32>
  %xem = bufferization.to_buffer %xe : tensor<32x64xf32> to memref<32x64xf32>
  %xref = memref.cast %xem : memref<32x64xf32> to memref<*xf32>
  %amax = arith.constant -1.0 : f32
  %seed = arith.constant 1 : i64
  %q = nvfp4.quantize %x rounding rs seed %seed offset 2 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf16> -> !nvfp4.tensor<32x64, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  %di = arith.bitcast %d : tensor<32x64xf4E2M1FN> to tensor<32x64xi4>
  %d8 = arith.extui %di : tensor<32x64xi4> to tensor<32x64xi8>
  %s8 = arith.bitcast %s : tensor<2x4xf8E4M3FN> to tensor<2x4xi8>
  %dm = bufferization.to_buffer %d8 : tensor<32x64xi8> to memref<32x64xi8>
  %sm = bufferization.to_buffer %s8 : tensor<2x4xi8> to memref<2x4xi8>
  %du = memref.cast %dm : memref<32x64xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<2x4xi8> to memref<*xi8>
  %R = arith.constant 16 : i64
  %sr = arith.constant 1 : i32
  %off = arith.constant 2 : i64
  %hm = arith.constant -1 : i32
  %n = call @nvfp4RtCheckQuantize(%xref, %du, %su, %g, %R, %sr, %seed, %off, %hm, %amax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  return
}

// A hand-computed block: amax 2688 makes S_enc = 1; the block amax 6 gives
// the E4M3 scale 1.0 (0x38 = 56) and m = 1, so each code is the E2M1
// round-to-nearest-even of the input: 0 -> 0, 0.25 -> 0 (tie), 0.3 -> 1,
// 0.75 -> 2 (tie), 1 -> 2, 1.25 -> 2 (tie), 1.5 -> 3, 1.75 -> 4 (tie),
// 2.5 -> 4 (tie), 3 -> 5, 3.5 -> 6 (tie), 4 -> 6, 5 -> 6 (tie), 5.5 -> 7,
// -6 -> 15, -0 -> 8.
func.func @known_codes() {
  %x = arith.constant dense<[[0.0, 0.25, 0.3, 0.75, 1.0, 1.25, 1.5, 1.75, 2.5, 3.0, 3.5, 4.0, 5.0, 5.5, -6.0, -0.0]]> : tensor<1x16xf32>
  %amax = arith.constant 2688.0 : f32
  %q = nvfp4.quantize %x amax %amax : tensor<1x16xf32> -> !nvfp4.tensor<1x16, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<1x16, 1x16>
  %di = arith.bitcast %d : tensor<1x16xf4E2M1FN> to tensor<1x16xi4>
  %d32 = arith.extui %di : tensor<1x16xi4> to tensor<1x16xi32>
  %s8 = arith.bitcast %s : tensor<1x1xf8E4M3FN> to tensor<1x1xi8>
  %s32 = arith.extui %s8 : tensor<1x1xi8> to tensor<1x1xi32>
  %dm = bufferization.to_buffer %d32 : tensor<1x16xi32> to memref<1x16xi32>
  %sm = bufferization.to_buffer %s32 : tensor<1x1xi32> to memref<1x1xi32>
  %du = memref.cast %dm : memref<1x16xi32> to memref<*xi32>
  %su = memref.cast %sm : memref<1x1xi32> to memref<*xi32>
  call @printMemrefI32(%du) : (memref<*xi32>) -> ()
  call @printMemrefI32(%su) : (memref<*xi32>) -> ()
  vector.print %g : f32
  return
}

func.func @main() {
  call @quantize_a() : () -> ()
  call @quantize_b() : () -> ()
  call @quantize_c() : () -> ()
  call @quantize_d() : () -> ()
  call @quantize_e() : () -> ()
  call @quantize_f() : () -> ()
  call @quantize_g() : () -> ()
  call @quantize_h() : () -> ()
  call @quantize_i() : () -> ()
  call @quantize_j() : () -> ()
  call @quantize_k() : () -> ()
  call @quantize_l() : () -> ()
  call @quantize_m() : () -> ()
  call @quantize_n() : () -> ()
  call @quantize_o() : () -> ()
  call @quantize_p() : () -> ()
  call @quantize_q() : () -> ()
  call @quantize_r() : () -> ()
  call @quantize_s() : () -> ()
  call @known_codes() : () -> ()
  return
}

// CHECK: quantize [64x128] 1x16 rn: mismatches 0 (of
// CHECK: quantize [64x128] 16x16 rn: mismatches 0 (of
// CHECK: quantize [64x128] 1x16 rs: mismatches 0 (of
// CHECK: quantize [64x128] 16x16 rs: mismatches 0 (of
// CHECK: quantize [64x128] 1x16 rn hadamard: mismatches 0 (of
// CHECK: quantize [64x128] 1x16 rs hadamard: mismatches 0 (of
// CHECK: quantize [32x64] 16x16 rn hadamard: mismatches 0 (of
// CHECK: quantize [2x32x64] 16x16 rn: mismatches 0 (of
// CHECK: quantize [2x32x64] 1x16 rs: mismatches 0 (of
// CHECK: quantize [256] 1x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 1x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 16x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 1x16 rs: mismatches 0 (of
// CHECK: quantize [32x64] 1x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 16x16 rs hadamard: mismatches 0 (of
// CHECK: quantize [32x64] 1x16 rn: mismatches 0 (of
// CHECK: quantize [48x96] 16x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 1x16 rn: mismatches 0 (of
// CHECK: quantize [32x64] 16x16 rs hadamard: mismatches 0 (of
// CHECK: [0,   0,   1,   2,   2,   2,   3,   4,   4,   5,   6,   6,   6,   7,   15,   8]
// CHECK: [56]
// The tensor carries the explicit amax.
// CHECK: 2688
