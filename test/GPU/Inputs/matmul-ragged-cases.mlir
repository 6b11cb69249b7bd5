// Matmul cases whose M and N are not multiples of the CTA tile, shared by
// the GPU execution tests (matmul-sm120-emulated.mlir,
// matmul-sm90-emulated.mlir): the last CTA tile's rows past M or N are
// zero-filled on load (cp.async with src-size 0) and not stored. Inputs are
// filled by the reference runtime, quantized on the host by the reference
// library (nvfp4RtQuantizeReference), assembled into NVFP4 tensors,
// multiplied by the GPU kernel, and checked against nvfp4::matmul
// (nvfp4GpuCheckMatmul*). Shapes: one row and one column (a decode GEMM),
// 127 x 129, M = 300 with a 16x16 B of N = 208, a batched case with an f32
// accumulator, M = 8 by N = 1000 with a bf16 result, and 16x16 operands on
// both sides with an accumulator.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}

// CHECK: gpu matmul [1x64] x [1x64]: outside bound 0 (of 1)
// CHECK: gpu matmul [127x128] x [129x128]: outside bound 0 (of 16383)
// CHECK: gpu matmul [300x256] x [208x256]: outside bound 0 (of 62400)
// CHECK: gpu matmul [2x33x64] x [2x65x64] acc: outside bound 0 (of 4290)
// CHECK: gpu matmul [8x256] x [1000x256] bf16: outside bound 0 (of 8000)
// CHECK: gpu matmul [80x192] x [48x192] acc: outside bound 0 (of 3840)
// CHECK-NOT: outside bound

func.func @matmul_0() {
  %xm = memref.alloc() : memref<1x64xf32>
  %xu = memref.cast %xm : memref<1x64xf32> to memref<*xf32>
  %xseed = arith.constant 300 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<1x64xf32>
  %wu = memref.cast %wm : memref<1x64xf32> to memref<*xf32>
  %wseed = arith.constant 301 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<1x64xi8>
  %asm = memref.alloc() : memref<1x4xi8>
  %adu = memref.cast %adm : memref<1x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<1x4xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<1x64xi8> to tensor<1x64xi8>
  %ad4 = arith.trunci %ad8 : tensor<1x64xi8> to tensor<1x64xi4>
  %ad = arith.bitcast %ad4 : tensor<1x64xi4> to tensor<1x64xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<1x4xi8> to tensor<1x4xi8>
  %as = arith.bitcast %as8 : tensor<1x4xi8> to tensor<1x4xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<1x64xf4E2M1FN>, tensor<1x4xf8E4M3FN> -> !nvfp4.tensor<1x64, 1x16>
  %bdm = memref.alloc() : memref<1x64xi8>
  %bsm = memref.alloc() : memref<1x4xi8>
  %bdu = memref.cast %bdm : memref<1x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<1x4xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<1x64xi8> to tensor<1x64xi8>
  %bd4 = arith.trunci %bd8 : tensor<1x64xi8> to tensor<1x64xi4>
  %bd = arith.bitcast %bd4 : tensor<1x64xi4> to tensor<1x64xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<1x4xi8> to tensor<1x4xi8>
  %bs = arith.bitcast %bs8 : tensor<1x4xi8> to tensor<1x4xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<1x64xf4E2M1FN>, tensor<1x4xf8E4M3FN> -> !nvfp4.tensor<1x64, 1x16>
  %cm = memref.alloc() : memref<1x1xf32>
  %cu = memref.cast %cm : memref<1x1xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<1x64, 1x16>, !nvfp4.tensor<1x64, 1x16> -> tensor<1x1xf32>
  %hasacc = arith.constant 0 : i32
  %ym = bufferization.to_buffer %y : tensor<1x1xf32> to memref<1x1xf32>
  %yu = memref.cast %ym : memref<1x1xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_1() {
  %xm = memref.alloc() : memref<127x128xf32>
  %xu = memref.cast %xm : memref<127x128xf32> to memref<*xf32>
  %xseed = arith.constant 310 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<129x128xf32>
  %wu = memref.cast %wm : memref<129x128xf32> to memref<*xf32>
  %wseed = arith.constant 311 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<127x128xi8>
  %asm = memref.alloc() : memref<127x8xi8>
  %adu = memref.cast %adm : memref<127x128xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<127x8xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<127x128xi8> to tensor<127x128xi8>
  %ad4 = arith.trunci %ad8 : tensor<127x128xi8> to tensor<127x128xi4>
  %ad = arith.bitcast %ad4 : tensor<127x128xi4> to tensor<127x128xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<127x8xi8> to tensor<127x8xi8>
  %as = arith.bitcast %as8 : tensor<127x8xi8> to tensor<127x8xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<127x128xf4E2M1FN>, tensor<127x8xf8E4M3FN> -> !nvfp4.tensor<127x128, 1x16>
  %bdm = memref.alloc() : memref<129x128xi8>
  %bsm = memref.alloc() : memref<129x8xi8>
  %bdu = memref.cast %bdm : memref<129x128xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<129x8xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<129x128xi8> to tensor<129x128xi8>
  %bd4 = arith.trunci %bd8 : tensor<129x128xi8> to tensor<129x128xi4>
  %bd = arith.bitcast %bd4 : tensor<129x128xi4> to tensor<129x128xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<129x8xi8> to tensor<129x8xi8>
  %bs = arith.bitcast %bs8 : tensor<129x8xi8> to tensor<129x8xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<129x128xf4E2M1FN>, tensor<129x8xf8E4M3FN> -> !nvfp4.tensor<129x128, 1x16>
  %cm = memref.alloc() : memref<127x129xf32>
  %cu = memref.cast %cm : memref<127x129xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<127x128, 1x16>, !nvfp4.tensor<129x128, 1x16> -> tensor<127x129xf32>
  %hasacc = arith.constant 0 : i32
  %ym = bufferization.to_buffer %y : tensor<127x129xf32> to memref<127x129xf32>
  %yu = memref.cast %ym : memref<127x129xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_2() {
  %xm = memref.alloc() : memref<300x256xf32>
  %xu = memref.cast %xm : memref<300x256xf32> to memref<*xf32>
  %xseed = arith.constant 320 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<208x256xf32>
  %wu = memref.cast %wm : memref<208x256xf32> to memref<*xf32>
  %wseed = arith.constant 321 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<300x256xi8>
  %asm = memref.alloc() : memref<300x16xi8>
  %adu = memref.cast %adm : memref<300x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<300x16xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<300x256xi8> to tensor<300x256xi8>
  %ad4 = arith.trunci %ad8 : tensor<300x256xi8> to tensor<300x256xi4>
  %ad = arith.bitcast %ad4 : tensor<300x256xi4> to tensor<300x256xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<300x16xi8> to tensor<300x16xi8>
  %as = arith.bitcast %as8 : tensor<300x16xi8> to tensor<300x16xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<300x256xf4E2M1FN>, tensor<300x16xf8E4M3FN> -> !nvfp4.tensor<300x256, 1x16>
  %bdm = memref.alloc() : memref<208x256xi8>
  %bsm = memref.alloc() : memref<13x16xi8>
  %bdu = memref.cast %bdm : memref<208x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<13x16xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<208x256xi8> to tensor<208x256xi8>
  %bd4 = arith.trunci %bd8 : tensor<208x256xi8> to tensor<208x256xi4>
  %bd = arith.bitcast %bd4 : tensor<208x256xi4> to tensor<208x256xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<13x16xi8> to tensor<13x16xi8>
  %bs = arith.bitcast %bs8 : tensor<13x16xi8> to tensor<13x16xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<208x256xf4E2M1FN>, tensor<13x16xf8E4M3FN> -> !nvfp4.tensor<208x256, 16x16>
  %cm = memref.alloc() : memref<300x208xf32>
  %cu = memref.cast %cm : memref<300x208xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<300x256, 1x16>, !nvfp4.tensor<208x256, 16x16> -> tensor<300x208xf32>
  %hasacc = arith.constant 0 : i32
  %ym = bufferization.to_buffer %y : tensor<300x208xf32> to memref<300x208xf32>
  %yu = memref.cast %ym : memref<300x208xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_3() {
  %xm = memref.alloc() : memref<2x33x64xf32>
  %xu = memref.cast %xm : memref<2x33x64xf32> to memref<*xf32>
  %xseed = arith.constant 330 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<2x65x64xf32>
  %wu = memref.cast %wm : memref<2x65x64xf32> to memref<*xf32>
  %wseed = arith.constant 331 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<2x33x64xi8>
  %asm = memref.alloc() : memref<2x33x4xi8>
  %adu = memref.cast %adm : memref<2x33x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x33x4xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<2x33x64xi8> to tensor<2x33x64xi8>
  %ad4 = arith.trunci %ad8 : tensor<2x33x64xi8> to tensor<2x33x64xi4>
  %ad = arith.bitcast %ad4 : tensor<2x33x64xi4> to tensor<2x33x64xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<2x33x4xi8> to tensor<2x33x4xi8>
  %as = arith.bitcast %as8 : tensor<2x33x4xi8> to tensor<2x33x4xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<2x33x64xf4E2M1FN>, tensor<2x33x4xf8E4M3FN> -> !nvfp4.tensor<2x33x64, 1x16>
  %bdm = memref.alloc() : memref<2x65x64xi8>
  %bsm = memref.alloc() : memref<2x65x4xi8>
  %bdu = memref.cast %bdm : memref<2x65x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x65x4xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<2x65x64xi8> to tensor<2x65x64xi8>
  %bd4 = arith.trunci %bd8 : tensor<2x65x64xi8> to tensor<2x65x64xi4>
  %bd = arith.bitcast %bd4 : tensor<2x65x64xi4> to tensor<2x65x64xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<2x65x4xi8> to tensor<2x65x4xi8>
  %bs = arith.bitcast %bs8 : tensor<2x65x4xi8> to tensor<2x65x4xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<2x65x64xf4E2M1FN>, tensor<2x65x4xf8E4M3FN> -> !nvfp4.tensor<2x65x64, 1x16>
  %cm = memref.alloc() : memref<2x33x65xf32>
  %cu = memref.cast %cm : memref<2x33x65xf32> to memref<*xf32>
  %cseed = arith.constant 332 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<2x33x65xf32> to tensor<2x33x65xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<2x33x65xf32>) : !nvfp4.tensor<2x33x64, 1x16>, !nvfp4.tensor<2x65x64, 1x16> -> tensor<2x33x65xf32>
  %hasacc = arith.constant 1 : i32
  %ym = bufferization.to_buffer %y : tensor<2x33x65xf32> to memref<2x33x65xf32>
  %yu = memref.cast %ym : memref<2x33x65xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_4() {
  %xm = memref.alloc() : memref<8x256xf32>
  %xu = memref.cast %xm : memref<8x256xf32> to memref<*xf32>
  %xseed = arith.constant 340 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<1000x256xf32>
  %wu = memref.cast %wm : memref<1000x256xf32> to memref<*xf32>
  %wseed = arith.constant 341 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<8x256xi8>
  %asm = memref.alloc() : memref<8x16xi8>
  %adu = memref.cast %adm : memref<8x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<8x16xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<8x256xi8> to tensor<8x256xi8>
  %ad4 = arith.trunci %ad8 : tensor<8x256xi8> to tensor<8x256xi4>
  %ad = arith.bitcast %ad4 : tensor<8x256xi4> to tensor<8x256xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<8x16xi8> to tensor<8x16xi8>
  %as = arith.bitcast %as8 : tensor<8x16xi8> to tensor<8x16xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<8x256xf4E2M1FN>, tensor<8x16xf8E4M3FN> -> !nvfp4.tensor<8x256, 1x16>
  %bdm = memref.alloc() : memref<1000x256xi8>
  %bsm = memref.alloc() : memref<1000x16xi8>
  %bdu = memref.cast %bdm : memref<1000x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<1000x16xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<1000x256xi8> to tensor<1000x256xi8>
  %bd4 = arith.trunci %bd8 : tensor<1000x256xi8> to tensor<1000x256xi4>
  %bd = arith.bitcast %bd4 : tensor<1000x256xi4> to tensor<1000x256xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<1000x16xi8> to tensor<1000x16xi8>
  %bs = arith.bitcast %bs8 : tensor<1000x16xi8> to tensor<1000x16xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<1000x256xf4E2M1FN>, tensor<1000x16xf8E4M3FN> -> !nvfp4.tensor<1000x256, 1x16>
  %cm = memref.alloc() : memref<8x1000xf32>
  %cu = memref.cast %cm : memref<8x1000xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<8x256, 1x16>, !nvfp4.tensor<1000x256, 1x16> -> tensor<8x1000xbf16>
  %hasacc = arith.constant 0 : i32
  %yb = arith.bitcast %y : tensor<8x1000xbf16> to tensor<8x1000xi16>
  %ym = bufferization.to_buffer %yb : tensor<8x1000xi16> to memref<8x1000xi16>
  %yu = memref.cast %ym : memref<8x1000xi16> to memref<*xi16>
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}
func.func @matmul_5() {
  %xm = memref.alloc() : memref<80x192xf32>
  %xu = memref.cast %xm : memref<80x192xf32> to memref<*xf32>
  %xseed = arith.constant 350 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<48x192xf32>
  %wu = memref.cast %wm : memref<48x192xf32> to memref<*xf32>
  %wseed = arith.constant 351 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<80x192xi8>
  %asm = memref.alloc() : memref<5x12xi8>
  %adu = memref.cast %adm : memref<80x192xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<5x12xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<80x192xi8> to tensor<80x192xi8>
  %ad4 = arith.trunci %ad8 : tensor<80x192xi8> to tensor<80x192xi4>
  %ad = arith.bitcast %ad4 : tensor<80x192xi4> to tensor<80x192xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<5x12xi8> to tensor<5x12xi8>
  %as = arith.bitcast %as8 : tensor<5x12xi8> to tensor<5x12xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<80x192xf4E2M1FN>, tensor<5x12xf8E4M3FN> -> !nvfp4.tensor<80x192, 16x16>
  %bdm = memref.alloc() : memref<48x192xi8>
  %bsm = memref.alloc() : memref<3x12xi8>
  %bdu = memref.cast %bdm : memref<48x192xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<3x12xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<48x192xi8> to tensor<48x192xi8>
  %bd4 = arith.trunci %bd8 : tensor<48x192xi8> to tensor<48x192xi4>
  %bd = arith.bitcast %bd4 : tensor<48x192xi4> to tensor<48x192xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<3x12xi8> to tensor<3x12xi8>
  %bs = arith.bitcast %bs8 : tensor<3x12xi8> to tensor<3x12xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<48x192xf4E2M1FN>, tensor<3x12xf8E4M3FN> -> !nvfp4.tensor<48x192, 16x16>
  %cm = memref.alloc() : memref<80x48xf32>
  %cu = memref.cast %cm : memref<80x48xf32> to memref<*xf32>
  %cseed = arith.constant 352 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<80x48xf32> to tensor<80x48xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<80x48xf32>) : !nvfp4.tensor<80x192, 16x16>, !nvfp4.tensor<48x192, 16x16> -> tensor<80x48xf32>
  %hasacc = arith.constant 1 : i32
  %ym = bufferization.to_buffer %y : tensor<80x48xf32> to memref<80x48xf32>
  %yu = memref.cast %ym : memref<80x48xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @main() {
  call @matmul_0() : () -> ()
  call @matmul_1() : () -> ()
  call @matmul_2() : () -> ()
  call @matmul_3() : () -> ()
  call @matmul_4() : () -> ()
  call @matmul_5() : () -> ()
  return
}
