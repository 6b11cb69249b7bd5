// The large shapes of the ragged-shape tests (matmul-ragged-large-emulated
// .mlir): 300 x 1000 x 4112 (K = 16 * 257: 8-byte copies and byte-wise
// scales, a partial last K step, ragged M and N tiles) and a decode-time
// 8 x 4096 x 4096 with a 16x16 B and a bf16 result. Built like
// matmul-ragged-cases.mlir (utils/gen-matmul-ragged-cases.py --large).

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}

// CHECK: gpu matmul [300x4112] x [1000x4112]: outside bound 0 (of 300000)
// CHECK: gpu matmul [8x4096] x [4096x4096] bf16: outside bound 0 (of 32768)
// CHECK-NOT: outside bound

func.func @matmul_0() {
  %xm = memref.alloc() : memref<300x4112xf32>
  %xu = memref.cast %xm : memref<300x4112xf32> to memref<*xf32>
  %xseed = arith.constant 500 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<1000x4112xf32>
  %wu = memref.cast %wm : memref<1000x4112xf32> to memref<*xf32>
  %wseed = arith.constant 501 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<300x4112xi8>
  %asm = memref.alloc() : memref<300x257xi8>
  %adu = memref.cast %adm : memref<300x4112xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<300x257xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<300x4112xi8> to tensor<300x4112xi8>
  %ad4 = arith.trunci %ad8 : tensor<300x4112xi8> to tensor<300x4112xi4>
  %ad = arith.bitcast %ad4 : tensor<300x4112xi4> to tensor<300x4112xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<300x257xi8> to tensor<300x257xi8>
  %as = arith.bitcast %as8 : tensor<300x257xi8> to tensor<300x257xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<300x4112xf4E2M1FN>, tensor<300x257xf8E4M3FN> -> !nvfp4.tensor<300x4112, 1x16>
  %bdm = memref.alloc() : memref<1000x4112xi8>
  %bsm = memref.alloc() : memref<1000x257xi8>
  %bdu = memref.cast %bdm : memref<1000x4112xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<1000x257xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<1000x4112xi8> to tensor<1000x4112xi8>
  %bd4 = arith.trunci %bd8 : tensor<1000x4112xi8> to tensor<1000x4112xi4>
  %bd = arith.bitcast %bd4 : tensor<1000x4112xi4> to tensor<1000x4112xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<1000x257xi8> to tensor<1000x257xi8>
  %bs = arith.bitcast %bs8 : tensor<1000x257xi8> to tensor<1000x257xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<1000x4112xf4E2M1FN>, tensor<1000x257xf8E4M3FN> -> !nvfp4.tensor<1000x4112, 1x16>
  %cm = memref.alloc() : memref<300x1000xf32>
  %cu = memref.cast %cm : memref<300x1000xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<300x4112, 1x16>, !nvfp4.tensor<1000x4112, 1x16> -> tensor<300x1000xf32>
  %hasacc = arith.constant 0 : i32
  %ym = bufferization.to_buffer %y : tensor<300x1000xf32> to memref<300x1000xf32>
  %yu = memref.cast %ym : memref<300x1000xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_1() {
  %xm = memref.alloc() : memref<8x4096xf32>
  %xu = memref.cast %xm : memref<8x4096xf32> to memref<*xf32>
  %xseed = arith.constant 510 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<4096x4096xf32>
  %wu = memref.cast %wm : memref<4096x4096xf32> to memref<*xf32>
  %wseed = arith.constant 511 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<8x4096xi8>
  %asm = memref.alloc() : memref<8x256xi8>
  %adu = memref.cast %adm : memref<8x4096xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<8x256xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<8x4096xi8> to tensor<8x4096xi8>
  %ad4 = arith.trunci %ad8 : tensor<8x4096xi8> to tensor<8x4096xi4>
  %ad = arith.bitcast %ad4 : tensor<8x4096xi4> to tensor<8x4096xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<8x256xi8> to tensor<8x256xi8>
  %as = arith.bitcast %as8 : tensor<8x256xi8> to tensor<8x256xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<8x4096xf4E2M1FN>, tensor<8x256xf8E4M3FN> -> !nvfp4.tensor<8x4096, 1x16>
  %bdm = memref.alloc() : memref<4096x4096xi8>
  %bsm = memref.alloc() : memref<256x256xi8>
  %bdu = memref.cast %bdm : memref<4096x4096xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<256x256xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<4096x4096xi8> to tensor<4096x4096xi8>
  %bd4 = arith.trunci %bd8 : tensor<4096x4096xi8> to tensor<4096x4096xi4>
  %bd = arith.bitcast %bd4 : tensor<4096x4096xi4> to tensor<4096x4096xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<256x256xi8> to tensor<256x256xi8>
  %bs = arith.bitcast %bs8 : tensor<256x256xi8> to tensor<256x256xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<4096x4096xf4E2M1FN>, tensor<256x256xf8E4M3FN> -> !nvfp4.tensor<4096x4096, 16x16>
  %cm = memref.alloc() : memref<8x4096xf32>
  %cu = memref.cast %cm : memref<8x4096xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<8x4096, 1x16>, !nvfp4.tensor<4096x4096, 16x16> -> tensor<8x4096xbf16>
  %hasacc = arith.constant 0 : i32
  %yb = arith.bitcast %y : tensor<8x4096xbf16> to tensor<8x4096xi16>
  %ym = bufferization.to_buffer %yb : tensor<8x4096xi16> to memref<8x4096xi16>
  %yu = memref.cast %ym : memref<8x4096xi16> to memref<*xi16>
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}
func.func @main() {
  call @matmul_0() : () -> ()
  call @matmul_1() : () -> ()
  return
}
