// Matmul cases whose shape every CTA tile of the sm_90a / sm_120a kernels
// divides (M = 256, N = 384, K = 512: several tiles along M and N and
// several K steps), for tests that force each tile (`tile=`): 1x16 A x
// 16x16 B (a weight of the recipe), then 16x16 A x 1x16 B (A's compact
// scale rows in shared slots ahead of B's tile rows). Inputs are
// filled and quantized by the reference runtime, as in matmul-cases.mlir;
// the result is checked with nvfp4GpuCheckMatmul.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}

func.func @matmul_tiles() {
  %xm = memref.alloc() : memref<256x512xf32>
  %xu = memref.cast %xm : memref<256x512xf32> to memref<*xf32>
  %xseed = arith.constant 500 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<384x512xf32>
  %wu = memref.cast %wm : memref<384x512xf32> to memref<*xf32>
  %wseed = arith.constant 501 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<256x512xi8>
  %asm = memref.alloc() : memref<256x32xi8>
  %adu = memref.cast %adm : memref<256x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<256x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<256x512xi8> to tensor<256x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<256x512xi8> to tensor<256x512xi4>
  %ad = arith.bitcast %ad4 : tensor<256x512xi4> to tensor<256x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<256x32xi8> to tensor<256x32xi8>
  %as = arith.bitcast %as8 : tensor<256x32xi8> to tensor<256x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<256x512xf4E2M1FN>, tensor<256x32xf8E4M3FN> -> !nvfp4.tensor<256x512, 1x16>
  %bdm = memref.alloc() : memref<384x512xi8>
  %bsm = memref.alloc() : memref<24x32xi8>
  %bdu = memref.cast %bdm : memref<384x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<24x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<384x512xi8> to tensor<384x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<384x512xi8> to tensor<384x512xi4>
  %bd = arith.bitcast %bd4 : tensor<384x512xi4> to tensor<384x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<24x32xi8> to tensor<24x32xi8>
  %bs = arith.bitcast %bs8 : tensor<24x32xi8> to tensor<24x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<384x512xf4E2M1FN>, tensor<24x32xf8E4M3FN> -> !nvfp4.tensor<384x512, 16x16>
  %cm = memref.alloc() : memref<256x384xf32>
  %cu = memref.cast %cm : memref<256x384xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<384x512, 16x16> -> tensor<256x384xf32>
  %ym = bufferization.to_buffer %y : tensor<256x384xf32> to memref<256x384xf32>
  %yu = memref.cast %ym : memref<256x384xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_tiles_16x16_a() {
  %xm = memref.alloc() : memref<256x512xf32>
  %xu = memref.cast %xm : memref<256x512xf32> to memref<*xf32>
  %xseed = arith.constant 510 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<384x512xf32>
  %wu = memref.cast %wm : memref<384x512xf32> to memref<*xf32>
  %wseed = arith.constant 511 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<256x512xi8>
  %asm = memref.alloc() : memref<16x32xi8>
  %adu = memref.cast %adm : memref<256x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<16x32xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<256x512xi8> to tensor<256x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<256x512xi8> to tensor<256x512xi4>
  %ad = arith.bitcast %ad4 : tensor<256x512xi4> to tensor<256x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<16x32xi8> to tensor<16x32xi8>
  %as = arith.bitcast %as8 : tensor<16x32xi8> to tensor<16x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<256x512xf4E2M1FN>, tensor<16x32xf8E4M3FN> -> !nvfp4.tensor<256x512, 16x16>
  %bdm = memref.alloc() : memref<384x512xi8>
  %bsm = memref.alloc() : memref<384x32xi8>
  %bdu = memref.cast %bdm : memref<384x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<384x32xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<384x512xi8> to tensor<384x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<384x512xi8> to tensor<384x512xi4>
  %bd = arith.bitcast %bd4 : tensor<384x512xi4> to tensor<384x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<384x32xi8> to tensor<384x32xi8>
  %bs = arith.bitcast %bs8 : tensor<384x32xi8> to tensor<384x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<384x512xf4E2M1FN>, tensor<384x32xf8E4M3FN> -> !nvfp4.tensor<384x512, 1x16>
  %cm = memref.alloc() : memref<256x384xf32>
  %cu = memref.cast %cm : memref<256x384xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<256x512, 16x16>, !nvfp4.tensor<384x512, 1x16> -> tensor<256x384xf32>
  %ym = bufferization.to_buffer %y : tensor<256x384xf32> to memref<256x384xf32>
  %yu = memref.cast %ym : memref<256x384xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @main() {
  call @matmul_tiles() : () -> ()
  call @matmul_tiles_16x16_a() : () -> ()
  return
}
