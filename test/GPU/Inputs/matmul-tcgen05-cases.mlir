// Matmul cases of the tcgen05 kernel's 1-CTA tiles (sm_100a / sm_103a /
// sm_110a), run by the GPU emulator (matmul-sm100-emulated.mlir). Inputs are
// filled and quantized on the host by the reference library; the GPU result
// is checked bit for bit against nvfp4::matmul (nvfp4GpuCheckMatmul*):
//  0. 256 x 256 x 512, 1x16 x 16x16, f32: the 128x256 tile (4 stages, one
//     accumulator), compact scales copied by the producer lanes;
//  1. the same with both operands quantized by nvfp4.quantize in the
//     program: the quantize kernels write the scales as 128x4 atoms, which
//     the producer bulk-copies (`_sfatoms_ab`), and nvfp4.amax of the result
//     comes from the matmul's epilogue (`_resultamax`, atomics);
//  2. 2 x 128 x 384 x 512, bf16 result and bf16 accumulator input: the
//     128x128 tile (6 stages, two accumulators), the batch in the rows of
//     the tensor maps;
//  3. 128 x 192 x 256, 16x16 x 1x16, f32: the 128x64 tile, one K tile per
//     tile;
//  4. 128 x 128 x 2560 with an f32 accumulator input: 10 K tiles through 6
//     stages (the phases wrap within a tile).

// CHECK:      gpu matmul [256x512] x [256x512]: outside bound 0 (of 65536), bit-exact 65536,
// CHECK-NEXT: gpu matmul [256x512] x [256x512]: outside bound 0 (of 65536), bit-exact 65536,
// CHECK-NEXT: amax [256x256]: mismatches 0 (of 1)
// CHECK-NEXT: gpu matmul [2x128x512] x [2x384x512] acc bf16: outside bound 0 (of 98304), bit-exact 98304,
// CHECK-NEXT: gpu matmul [128x256] x [192x256]: outside bound 0 (of 24576), bit-exact 24576,
// CHECK-NEXT: gpu matmul [128x2560] x [128x2560] acc: outside bound 0 (of 16384), bit-exact 16384,
// CHECK-NOT:  outside bound
func.func private @nvfp4RtCheckAmax(memref<*xf32>, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}


func.func @matmul_0() {
  %xm = memref.alloc() : memref<256x512xf32>
  %xu = memref.cast %xm : memref<256x512xf32> to memref<*xf32>
  %xseed = arith.constant 300 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<256x512xf32>
  %wu = memref.cast %wm : memref<256x512xf32> to memref<*xf32>
  %wseed = arith.constant 301 : i64
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
  %bdm = memref.alloc() : memref<256x512xi8>
  %bsm = memref.alloc() : memref<16x32xi8>
  %bdu = memref.cast %bdm : memref<256x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<16x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<256x512xi8> to tensor<256x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<256x512xi8> to tensor<256x512xi4>
  %bd = arith.bitcast %bd4 : tensor<256x512xi4> to tensor<256x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<16x32xi8> to tensor<16x32xi8>
  %bs = arith.bitcast %bs8 : tensor<16x32xi8> to tensor<16x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<256x512xf4E2M1FN>, tensor<16x32xf8E4M3FN> -> !nvfp4.tensor<256x512, 16x16>
  %cm = memref.alloc() : memref<256x256xf32>
  %cu = memref.cast %cm : memref<256x256xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 16x16> -> tensor<256x256xf32>
  %ym = bufferization.to_buffer %y : tensor<256x256xf32> to memref<256x256xf32>
  %yu = memref.cast %ym : memref<256x256xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_1() {
  %xm = memref.alloc() : memref<256x512xf32>
  %xu = memref.cast %xm : memref<256x512xf32> to memref<*xf32>
  %xseed = arith.constant 310 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<256x512xf32>
  %wu = memref.cast %wm : memref<256x512xf32> to memref<*xf32>
  %wseed = arith.constant 311 : i64
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
  %ax = bufferization.to_tensor %xm restrict : memref<256x512xf32> to tensor<256x512xf32>
  %qa = nvfp4.quantize %ax : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  %bdm = memref.alloc() : memref<256x512xi8>
  %bsm = memref.alloc() : memref<16x32xi8>
  %bdu = memref.cast %bdm : memref<256x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<16x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<256x512xi8> to tensor<256x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<256x512xi8> to tensor<256x512xi4>
  %bd = arith.bitcast %bd4 : tensor<256x512xi4> to tensor<256x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<16x32xi8> to tensor<16x32xi8>
  %bs = arith.bitcast %bs8 : tensor<16x32xi8> to tensor<16x32xf8E4M3FN>
  %bx = bufferization.to_tensor %wm restrict : memref<256x512xf32> to tensor<256x512xf32>
  %qb = nvfp4.quantize %bx : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 16x16>
  %cm = memref.alloc() : memref<256x256xf32>
  %cu = memref.cast %cm : memref<256x256xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 16x16> -> tensor<256x256xf32>
  %ym = bufferization.to_buffer %y : tensor<256x256xf32> to memref<256x256xf32>
  %yu = memref.cast %ym : memref<256x256xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  %am = nvfp4.amax %y : tensor<256x256xf32>
  %na = call @nvfp4RtCheckAmax(%yu, %am) : (memref<*xf32>, f32) -> i64
  return
}

func.func @matmul_2() {
  %xm = memref.alloc() : memref<2x128x512xf32>
  %xu = memref.cast %xm : memref<2x128x512xf32> to memref<*xf32>
  %xseed = arith.constant 320 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<2x384x512xf32>
  %wu = memref.cast %wm : memref<2x384x512xf32> to memref<*xf32>
  %wseed = arith.constant 321 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<2x128x512xi8>
  %asm = memref.alloc() : memref<2x128x32xi8>
  %adu = memref.cast %adm : memref<2x128x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x128x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<2x128x512xi8> to tensor<2x128x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<2x128x512xi8> to tensor<2x128x512xi4>
  %ad = arith.bitcast %ad4 : tensor<2x128x512xi4> to tensor<2x128x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<2x128x32xi8> to tensor<2x128x32xi8>
  %as = arith.bitcast %as8 : tensor<2x128x32xi8> to tensor<2x128x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<2x128x512xf4E2M1FN>, tensor<2x128x32xf8E4M3FN> -> !nvfp4.tensor<2x128x512, 1x16>
  %bdm = memref.alloc() : memref<2x384x512xi8>
  %bsm = memref.alloc() : memref<2x24x32xi8>
  %bdu = memref.cast %bdm : memref<2x384x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x24x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<2x384x512xi8> to tensor<2x384x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<2x384x512xi8> to tensor<2x384x512xi4>
  %bd = arith.bitcast %bd4 : tensor<2x384x512xi4> to tensor<2x384x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<2x24x32xi8> to tensor<2x24x32xi8>
  %bs = arith.bitcast %bs8 : tensor<2x24x32xi8> to tensor<2x24x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<2x384x512xf4E2M1FN>, tensor<2x24x32xf8E4M3FN> -> !nvfp4.tensor<2x384x512, 16x16>
  %cm = memref.alloc() : memref<2x128x384xf32>
  %cu = memref.cast %cm : memref<2x128x384xf32> to memref<*xf32>
  %cseed = arith.constant 322 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<2x128x384xf32> to tensor<2x128x384xf32>
  %cb = arith.truncf %c : tensor<2x128x384xf32> to tensor<2x128x384xbf16>
  %cw = arith.extf %cb : tensor<2x128x384xbf16> to tensor<2x128x384xf32>
  %cwm = bufferization.to_buffer %cw : tensor<2x128x384xf32> to memref<2x128x384xf32>
  %cwu = memref.cast %cwm : memref<2x128x384xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb acc(%cb : tensor<2x128x384xbf16>) : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x384x512, 16x16> -> tensor<2x128x384xbf16>
  %yb = arith.bitcast %y : tensor<2x128x384xbf16> to tensor<2x128x384xi16>
  %ym = bufferization.to_buffer %yb : tensor<2x128x384xi16> to memref<2x128x384xi16>
  %yu = memref.cast %ym : memref<2x128x384xi16> to memref<*xi16>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cwu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}

func.func @matmul_3() {
  %xm = memref.alloc() : memref<128x256xf32>
  %xu = memref.cast %xm : memref<128x256xf32> to memref<*xf32>
  %xseed = arith.constant 330 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<192x256xf32>
  %wu = memref.cast %wm : memref<192x256xf32> to memref<*xf32>
  %wseed = arith.constant 331 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<128x256xi8>
  %asm = memref.alloc() : memref<8x16xi8>
  %adu = memref.cast %adm : memref<128x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<8x16xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<128x256xi8> to tensor<128x256xi8>
  %ad4 = arith.trunci %ad8 : tensor<128x256xi8> to tensor<128x256xi4>
  %ad = arith.bitcast %ad4 : tensor<128x256xi4> to tensor<128x256xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<8x16xi8> to tensor<8x16xi8>
  %as = arith.bitcast %as8 : tensor<8x16xi8> to tensor<8x16xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<128x256xf4E2M1FN>, tensor<8x16xf8E4M3FN> -> !nvfp4.tensor<128x256, 16x16>
  %bdm = memref.alloc() : memref<192x256xi8>
  %bsm = memref.alloc() : memref<192x16xi8>
  %bdu = memref.cast %bdm : memref<192x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<192x16xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<192x256xi8> to tensor<192x256xi8>
  %bd4 = arith.trunci %bd8 : tensor<192x256xi8> to tensor<192x256xi4>
  %bd = arith.bitcast %bd4 : tensor<192x256xi4> to tensor<192x256xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<192x16xi8> to tensor<192x16xi8>
  %bs = arith.bitcast %bs8 : tensor<192x16xi8> to tensor<192x16xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<192x256xf4E2M1FN>, tensor<192x16xf8E4M3FN> -> !nvfp4.tensor<192x256, 1x16>
  %cm = memref.alloc() : memref<128x192xf32>
  %cu = memref.cast %cm : memref<128x192xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<128x256, 16x16>, !nvfp4.tensor<192x256, 1x16> -> tensor<128x192xf32>
  %ym = bufferization.to_buffer %y : tensor<128x192xf32> to memref<128x192xf32>
  %yu = memref.cast %ym : memref<128x192xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_4() {
  %xm = memref.alloc() : memref<128x2560xf32>
  %xu = memref.cast %xm : memref<128x2560xf32> to memref<*xf32>
  %xseed = arith.constant 340 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<128x2560xf32>
  %wu = memref.cast %wm : memref<128x2560xf32> to memref<*xf32>
  %wseed = arith.constant 341 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<128x2560xi8>
  %asm = memref.alloc() : memref<128x160xi8>
  %adu = memref.cast %adm : memref<128x2560xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<128x160xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<128x2560xi8> to tensor<128x2560xi8>
  %ad4 = arith.trunci %ad8 : tensor<128x2560xi8> to tensor<128x2560xi4>
  %ad = arith.bitcast %ad4 : tensor<128x2560xi4> to tensor<128x2560xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<128x160xi8> to tensor<128x160xi8>
  %as = arith.bitcast %as8 : tensor<128x160xi8> to tensor<128x160xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<128x2560xf4E2M1FN>, tensor<128x160xf8E4M3FN> -> !nvfp4.tensor<128x2560, 1x16>
  %bdm = memref.alloc() : memref<128x2560xi8>
  %bsm = memref.alloc() : memref<128x160xi8>
  %bdu = memref.cast %bdm : memref<128x2560xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<128x160xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<128x2560xi8> to tensor<128x2560xi8>
  %bd4 = arith.trunci %bd8 : tensor<128x2560xi8> to tensor<128x2560xi4>
  %bd = arith.bitcast %bd4 : tensor<128x2560xi4> to tensor<128x2560xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<128x160xi8> to tensor<128x160xi8>
  %bs = arith.bitcast %bs8 : tensor<128x160xi8> to tensor<128x160xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<128x2560xf4E2M1FN>, tensor<128x160xf8E4M3FN> -> !nvfp4.tensor<128x2560, 1x16>
  %cm = memref.alloc() : memref<128x128xf32>
  %cu = memref.cast %cm : memref<128x128xf32> to memref<*xf32>
  %cseed = arith.constant 342 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<128x128xf32> to tensor<128x128xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<128x128xf32>) : !nvfp4.tensor<128x2560, 1x16>, !nvfp4.tensor<128x2560, 1x16> -> tensor<128x128xf32>
  %ym = bufferization.to_buffer %y : tensor<128x128xf32> to memref<128x128xf32>
  %yu = memref.cast %ym : memref<128x128xf32> to memref<*xf32>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @main() {

  call @matmul_0() : () -> ()

  call @matmul_1() : () -> ()

  call @matmul_2() : () -> ()

  call @matmul_3() : () -> ()

  call @matmul_4() : () -> ()

  return
}
