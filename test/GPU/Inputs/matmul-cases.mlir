// Matmul cases shared by the GPU execution tests (matmul-sm90.mlir,
// matmul-sm120.mlir): inputs filled by the reference runtime, quantized on
// the host by the reference library (nvfp4RtQuantizeReference, so that the
// test does not depend on where nvfp4.quantize is lowered), assembled into
// NVFP4 tensors, multiplied by the GPU kernel, and the
// result checked against nvfp4::matmul within the accumulation-order bound
// of docs/gpu-runtime.md (nvfp4GpuCheckMatmul*, "outside bound 0").
// Shapes: 1x16 x 16x16 operands; 16x16 x 16x16 with K = 1024; batched
// 1x16 x 1x16 with an f32 accumulator; a bf16 result.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}

// CHECK: gpu matmul [64x128] x [192x128]: outside bound 0 (of 12288)
// CHECK: gpu matmul [128x1024] x [128x1024]: outside bound 0 (of 16384)
// CHECK: gpu matmul [2x128x256] x [2x64x256] acc: outside bound 0 (of 16384)
// CHECK: gpu matmul [192x512] x [64x512] bf16: outside bound 0 (of 12288)
// CHECK-NOT: outside bound

func.func @matmul_0() {
  %xm = memref.alloc() : memref<64x128xf32>
  %xu = memref.cast %xm : memref<64x128xf32> to memref<*xf32>
  %xseed = arith.constant 100 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x128xf32> to tensor<64x128xf32>
  %wm = memref.alloc() : memref<192x128xf32>
  %wu = memref.cast %wm : memref<192x128xf32> to memref<*xf32>
  %wseed = arith.constant 101 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<192x128xf32> to tensor<192x128xf32>
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<64x128xi8>
  %asm = memref.alloc() : memref<64x8xi8>
  %adu = memref.cast %adm : memref<64x128xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<64x8xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<64x128xi8> to tensor<64x128xi8>
  %ad4 = arith.trunci %ad8 : tensor<64x128xi8> to tensor<64x128xi4>
  %ad = arith.bitcast %ad4 : tensor<64x128xi4> to tensor<64x128xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<64x8xi8> to tensor<64x8xi8>
  %as = arith.bitcast %as8 : tensor<64x8xi8> to tensor<64x8xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN> -> !nvfp4.tensor<64x128, 1x16>
  %bdm = memref.alloc() : memref<192x128xi8>
  %bsm = memref.alloc() : memref<12x8xi8>
  %bdu = memref.cast %bdm : memref<192x128xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<12x8xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<192x128xi8> to tensor<192x128xi8>
  %bd4 = arith.trunci %bd8 : tensor<192x128xi8> to tensor<192x128xi4>
  %bd = arith.bitcast %bd4 : tensor<192x128xi4> to tensor<192x128xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<12x8xi8> to tensor<12x8xi8>
  %bs = arith.bitcast %bs8 : tensor<12x8xi8> to tensor<12x8xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<192x128xf4E2M1FN>, tensor<12x8xf8E4M3FN> -> !nvfp4.tensor<192x128, 16x16>
  %cm = memref.alloc() : memref<64x192xf32>
  %cu = memref.cast %cm : memref<64x192xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<192x128, 16x16> -> tensor<64x192xf32>
  %ym = bufferization.to_buffer %y : tensor<64x192xf32> to memref<64x192xf32>
  %yu = memref.cast %ym : memref<64x192xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_1() {
  %xm = memref.alloc() : memref<128x1024xf32>
  %xu = memref.cast %xm : memref<128x1024xf32> to memref<*xf32>
  %xseed = arith.constant 110 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<128x1024xf32> to tensor<128x1024xf32>
  %wm = memref.alloc() : memref<128x1024xf32>
  %wu = memref.cast %wm : memref<128x1024xf32> to memref<*xf32>
  %wseed = arith.constant 111 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<128x1024xf32> to tensor<128x1024xf32>
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<128x1024xi8>
  %asm = memref.alloc() : memref<8x64xi8>
  %adu = memref.cast %adm : memref<128x1024xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<8x64xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<128x1024xi8> to tensor<128x1024xi8>
  %ad4 = arith.trunci %ad8 : tensor<128x1024xi8> to tensor<128x1024xi4>
  %ad = arith.bitcast %ad4 : tensor<128x1024xi4> to tensor<128x1024xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<8x64xi8> to tensor<8x64xi8>
  %as = arith.bitcast %as8 : tensor<8x64xi8> to tensor<8x64xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<128x1024xf4E2M1FN>, tensor<8x64xf8E4M3FN> -> !nvfp4.tensor<128x1024, 16x16>
  %bdm = memref.alloc() : memref<128x1024xi8>
  %bsm = memref.alloc() : memref<8x64xi8>
  %bdu = memref.cast %bdm : memref<128x1024xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<8x64xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<128x1024xi8> to tensor<128x1024xi8>
  %bd4 = arith.trunci %bd8 : tensor<128x1024xi8> to tensor<128x1024xi4>
  %bd = arith.bitcast %bd4 : tensor<128x1024xi4> to tensor<128x1024xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<8x64xi8> to tensor<8x64xi8>
  %bs = arith.bitcast %bs8 : tensor<8x64xi8> to tensor<8x64xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<128x1024xf4E2M1FN>, tensor<8x64xf8E4M3FN> -> !nvfp4.tensor<128x1024, 16x16>
  %cm = memref.alloc() : memref<128x128xf32>
  %cu = memref.cast %cm : memref<128x128xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<128x1024, 16x16>, !nvfp4.tensor<128x1024, 16x16> -> tensor<128x128xf32>
  %ym = bufferization.to_buffer %y : tensor<128x128xf32> to memref<128x128xf32>
  %yu = memref.cast %ym : memref<128x128xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_2() {
  %xm = memref.alloc() : memref<2x128x256xf32>
  %xu = memref.cast %xm : memref<2x128x256xf32> to memref<*xf32>
  %xseed = arith.constant 120 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x128x256xf32> to tensor<2x128x256xf32>
  %wm = memref.alloc() : memref<2x64x256xf32>
  %wu = memref.cast %wm : memref<2x64x256xf32> to memref<*xf32>
  %wseed = arith.constant 121 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<2x64x256xf32> to tensor<2x64x256xf32>
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<2x128x256xi8>
  %asm = memref.alloc() : memref<2x128x16xi8>
  %adu = memref.cast %adm : memref<2x128x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x128x16xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<2x128x256xi8> to tensor<2x128x256xi8>
  %ad4 = arith.trunci %ad8 : tensor<2x128x256xi8> to tensor<2x128x256xi4>
  %ad = arith.bitcast %ad4 : tensor<2x128x256xi4> to tensor<2x128x256xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<2x128x16xi8> to tensor<2x128x16xi8>
  %as = arith.bitcast %as8 : tensor<2x128x16xi8> to tensor<2x128x16xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<2x128x256xf4E2M1FN>, tensor<2x128x16xf8E4M3FN> -> !nvfp4.tensor<2x128x256, 1x16>
  %bdm = memref.alloc() : memref<2x64x256xi8>
  %bsm = memref.alloc() : memref<2x64x16xi8>
  %bdu = memref.cast %bdm : memref<2x64x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x64x16xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<2x64x256xi8> to tensor<2x64x256xi8>
  %bd4 = arith.trunci %bd8 : tensor<2x64x256xi8> to tensor<2x64x256xi4>
  %bd = arith.bitcast %bd4 : tensor<2x64x256xi4> to tensor<2x64x256xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<2x64x16xi8> to tensor<2x64x16xi8>
  %bs = arith.bitcast %bs8 : tensor<2x64x16xi8> to tensor<2x64x16xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<2x64x256xf4E2M1FN>, tensor<2x64x16xf8E4M3FN> -> !nvfp4.tensor<2x64x256, 1x16>
  %cm = memref.alloc() : memref<2x128x64xf32>
  %cu = memref.cast %cm : memref<2x128x64xf32> to memref<*xf32>
  %cseed = arith.constant 122 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<2x128x64xf32> to tensor<2x128x64xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<2x128x64xf32>) : !nvfp4.tensor<2x128x256, 1x16>, !nvfp4.tensor<2x64x256, 1x16> -> tensor<2x128x64xf32>
  %ym = bufferization.to_buffer %y : tensor<2x128x64xf32> to memref<2x128x64xf32>
  %yu = memref.cast %ym : memref<2x128x64xf32> to memref<*xf32>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_3() {
  %xm = memref.alloc() : memref<192x512xf32>
  %xu = memref.cast %xm : memref<192x512xf32> to memref<*xf32>
  %xseed = arith.constant 130 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<192x512xf32> to tensor<192x512xf32>
  %wm = memref.alloc() : memref<64x512xf32>
  %wu = memref.cast %wm : memref<64x512xf32> to memref<*xf32>
  %wseed = arith.constant 131 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<64x512xf32> to tensor<64x512xf32>
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<192x512xi8>
  %asm = memref.alloc() : memref<192x32xi8>
  %adu = memref.cast %adm : memref<192x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<192x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<192x512xi8> to tensor<192x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<192x512xi8> to tensor<192x512xi4>
  %ad = arith.bitcast %ad4 : tensor<192x512xi4> to tensor<192x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<192x32xi8> to tensor<192x32xi8>
  %as = arith.bitcast %as8 : tensor<192x32xi8> to tensor<192x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<192x512xf4E2M1FN>, tensor<192x32xf8E4M3FN> -> !nvfp4.tensor<192x512, 1x16>
  %bdm = memref.alloc() : memref<64x512xi8>
  %bsm = memref.alloc() : memref<4x32xi8>
  %bdu = memref.cast %bdm : memref<64x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<4x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<64x512xi8> to tensor<64x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<64x512xi8> to tensor<64x512xi4>
  %bd = arith.bitcast %bd4 : tensor<64x512xi4> to tensor<64x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<4x32xi8> to tensor<4x32xi8>
  %bs = arith.bitcast %bs8 : tensor<4x32xi8> to tensor<4x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<64x512xf4E2M1FN>, tensor<4x32xf8E4M3FN> -> !nvfp4.tensor<64x512, 16x16>
  %cm = memref.alloc() : memref<192x64xf32>
  %cu = memref.cast %cm : memref<192x64xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<192x512, 1x16>, !nvfp4.tensor<64x512, 16x16> -> tensor<192x64xbf16>
  %yb = arith.bitcast %y : tensor<192x64xbf16> to tensor<192x64xi16>
  %ym = bufferization.to_buffer %yb : tensor<192x64xi16> to memref<192x64xi16>
  %yu = memref.cast %ym : memref<192x64xi16> to memref<*xi16>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}
func.func @main() {
  call @matmul_0() : () -> ()
  call @matmul_1() : () -> ()
  call @matmul_2() : () -> ()
  call @matmul_3() : () -> ()
  return
}
