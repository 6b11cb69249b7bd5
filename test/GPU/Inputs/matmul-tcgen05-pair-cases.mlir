// Matmul cases of the tcgen05 kernel's CTA pair (cta_group::2, clusters of
// two CTAs, 256-row tiles), run by the GPU emulator with
// tcgen05-cta-pair=on (matmul-sm100-emulated.mlir), checked bit for bit
// against nvfp4::matmul:
//  0. 512 x 512 x 512, 1x16 x 16x16, f32: 4 tiles of 256x256 (each CTA
//     loads its 128 rows of A and 128 of the 256 B rows and holds the
//     scales of all 256 B rows in its tensor memory);
//  1. 256 x 192 x 1792, 16x16 x 1x16, bf16 with a bf16 accumulator input:
//     3 tiles of 256x64, 7 K tiles through 6 stages;
//  2. case 0 with both operands quantized in the program: the scales arrive
//     as atoms by bulk copies, the peer CTA relays its copies through its
//     own scaleFull barrier, and the result's amax comes from the epilogue.
//     This is the regression test of the CTA-pair B-scale bug (rank 1
//     copied the B-scale rows [n 256 + 128, n 256 + 384) instead of
//     [n 256, n 256 + 256)): with it, the emulator reports the copy reading
//     past the scale buffer at the last N tile, and the rows 128..255 of
//     every tile are scaled with the wrong scales.

// CHECK:      gpu matmul [512x512] x [512x512]: outside bound 0 (of 262144), bit-exact 262144,
// CHECK-NEXT: gpu matmul [256x1792] x [192x1792] acc bf16: outside bound 0 (of 49152), bit-exact 49152,
// CHECK-NEXT: gpu matmul [512x512] x [512x512]: outside bound 0 (of 262144), bit-exact 262144,
// CHECK-NEXT: amax [512x512]: mismatches 0 (of 1)
// CHECK-NOT:  outside bound
func.func private @nvfp4RtCheckAmax(memref<*xf32>, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}


func.func @matmul_0() {
  %xm = memref.alloc() : memref<512x512xf32>
  %xu = memref.cast %xm : memref<512x512xf32> to memref<*xf32>
  %xseed = arith.constant 300 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<512x512xf32>
  %wu = memref.cast %wm : memref<512x512xf32> to memref<*xf32>
  %wseed = arith.constant 301 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<512x512xi8>
  %asm = memref.alloc() : memref<512x32xi8>
  %adu = memref.cast %adm : memref<512x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<512x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<512x512xi8> to tensor<512x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<512x512xi8> to tensor<512x512xi4>
  %ad = arith.bitcast %ad4 : tensor<512x512xi4> to tensor<512x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<512x32xi8> to tensor<512x32xi8>
  %as = arith.bitcast %as8 : tensor<512x32xi8> to tensor<512x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<512x512xf4E2M1FN>, tensor<512x32xf8E4M3FN> -> !nvfp4.tensor<512x512, 1x16>
  %bdm = memref.alloc() : memref<512x512xi8>
  %bsm = memref.alloc() : memref<32x32xi8>
  %bdu = memref.cast %bdm : memref<512x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<32x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<512x512xi8> to tensor<512x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<512x512xi8> to tensor<512x512xi4>
  %bd = arith.bitcast %bd4 : tensor<512x512xi4> to tensor<512x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<32x32xi8> to tensor<32x32xi8>
  %bs = arith.bitcast %bs8 : tensor<32x32xi8> to tensor<32x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<512x512xf4E2M1FN>, tensor<32x32xf8E4M3FN> -> !nvfp4.tensor<512x512, 16x16>
  %cm = memref.alloc() : memref<512x512xf32>
  %cu = memref.cast %cm : memref<512x512xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<512x512, 1x16>, !nvfp4.tensor<512x512, 16x16> -> tensor<512x512xf32>
  %ym = bufferization.to_buffer %y : tensor<512x512xf32> to memref<512x512xf32>
  %yu = memref.cast %ym : memref<512x512xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_1() {
  %xm = memref.alloc() : memref<256x1792xf32>
  %xu = memref.cast %xm : memref<256x1792xf32> to memref<*xf32>
  %xseed = arith.constant 310 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<192x1792xf32>
  %wu = memref.cast %wm : memref<192x1792xf32> to memref<*xf32>
  %wseed = arith.constant 311 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<256x1792xi8>
  %asm = memref.alloc() : memref<16x112xi8>
  %adu = memref.cast %adm : memref<256x1792xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<16x112xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<256x1792xi8> to tensor<256x1792xi8>
  %ad4 = arith.trunci %ad8 : tensor<256x1792xi8> to tensor<256x1792xi4>
  %ad = arith.bitcast %ad4 : tensor<256x1792xi4> to tensor<256x1792xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<16x112xi8> to tensor<16x112xi8>
  %as = arith.bitcast %as8 : tensor<16x112xi8> to tensor<16x112xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<256x1792xf4E2M1FN>, tensor<16x112xf8E4M3FN> -> !nvfp4.tensor<256x1792, 16x16>
  %bdm = memref.alloc() : memref<192x1792xi8>
  %bsm = memref.alloc() : memref<192x112xi8>
  %bdu = memref.cast %bdm : memref<192x1792xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<192x112xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<192x1792xi8> to tensor<192x1792xi8>
  %bd4 = arith.trunci %bd8 : tensor<192x1792xi8> to tensor<192x1792xi4>
  %bd = arith.bitcast %bd4 : tensor<192x1792xi4> to tensor<192x1792xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<192x112xi8> to tensor<192x112xi8>
  %bs = arith.bitcast %bs8 : tensor<192x112xi8> to tensor<192x112xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<192x1792xf4E2M1FN>, tensor<192x112xf8E4M3FN> -> !nvfp4.tensor<192x1792, 1x16>
  %cm = memref.alloc() : memref<256x192xf32>
  %cu = memref.cast %cm : memref<256x192xf32> to memref<*xf32>
  %cseed = arith.constant 312 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<256x192xf32> to tensor<256x192xf32>
  %cb = arith.truncf %c : tensor<256x192xf32> to tensor<256x192xbf16>
  %cw = arith.extf %cb : tensor<256x192xbf16> to tensor<256x192xf32>
  %cwm = bufferization.to_buffer %cw : tensor<256x192xf32> to memref<256x192xf32>
  %cwu = memref.cast %cwm : memref<256x192xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb acc(%cb : tensor<256x192xbf16>) : !nvfp4.tensor<256x1792, 16x16>, !nvfp4.tensor<192x1792, 1x16> -> tensor<256x192xbf16>
  %yb = arith.bitcast %y : tensor<256x192xbf16> to tensor<256x192xi16>
  %ym = bufferization.to_buffer %yb : tensor<256x192xi16> to memref<256x192xi16>
  %yu = memref.cast %ym : memref<256x192xi16> to memref<*xi16>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cwu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}

func.func @matmul_2() {
  %xm = memref.alloc() : memref<512x512xf32>
  %xu = memref.cast %xm : memref<512x512xf32> to memref<*xf32>
  %xseed = arith.constant 320 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<512x512xf32>
  %wu = memref.cast %wm : memref<512x512xf32> to memref<*xf32>
  %wseed = arith.constant 321 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<512x512xi8>
  %asm = memref.alloc() : memref<512x32xi8>
  %adu = memref.cast %adm : memref<512x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<512x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<512x512xi8> to tensor<512x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<512x512xi8> to tensor<512x512xi4>
  %ad = arith.bitcast %ad4 : tensor<512x512xi4> to tensor<512x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<512x32xi8> to tensor<512x32xi8>
  %as = arith.bitcast %as8 : tensor<512x32xi8> to tensor<512x32xf8E4M3FN>
  %ax = bufferization.to_tensor %xm restrict : memref<512x512xf32> to tensor<512x512xf32>
  %qa = nvfp4.quantize %ax : tensor<512x512xf32> -> !nvfp4.tensor<512x512, 1x16>
  %bdm = memref.alloc() : memref<512x512xi8>
  %bsm = memref.alloc() : memref<32x32xi8>
  %bdu = memref.cast %bdm : memref<512x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<32x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<512x512xi8> to tensor<512x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<512x512xi8> to tensor<512x512xi4>
  %bd = arith.bitcast %bd4 : tensor<512x512xi4> to tensor<512x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<32x32xi8> to tensor<32x32xi8>
  %bs = arith.bitcast %bs8 : tensor<32x32xi8> to tensor<32x32xf8E4M3FN>
  %bx = bufferization.to_tensor %wm restrict : memref<512x512xf32> to tensor<512x512xf32>
  %qb = nvfp4.quantize %bx : tensor<512x512xf32> -> !nvfp4.tensor<512x512, 16x16>
  %cm = memref.alloc() : memref<512x512xf32>
  %cu = memref.cast %cm : memref<512x512xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<512x512, 1x16>, !nvfp4.tensor<512x512, 16x16> -> tensor<512x512xf32>
  %ym = bufferization.to_buffer %y : tensor<512x512xf32> to memref<512x512xf32>
  %yu = memref.cast %ym : memref<512x512xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  %am = nvfp4.amax %y : tensor<512x512xf32>
  %na = call @nvfp4RtCheckAmax(%yu, %am) : (memref<*xf32>, f32) -> i64
  return
}

func.func @main() {

  call @matmul_0() : () -> ()

  call @matmul_1() : () -> ()

  call @matmul_2() : () -> ()

  return
}
