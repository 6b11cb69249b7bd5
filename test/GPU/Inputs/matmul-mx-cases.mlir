// MXFP4 x MXFP4 matmul cases shared by the GPU execution tests of the
// sm_120a / sm_121a kernel (kind::mxf4, scale_vec::2X, E8M0 scales):
// inputs filled by the reference runtime, quantized to MXFP4 on the host
// (the GPU lowering leaves MX quantization to the reference lowering,
// which calls the reference library), multiplied by the GPU kernel and
// checked against nvfp4::mx::matmul (nvfp4GpuCheckMxMatmul). Shapes: the
// default tile with an accumulator, 127 x 129 with K = 96 (half a last K
// step: its scale byte past the row's end is zero-filled), a batched case
// with an accumulator, one row and column with K = 32, and N = 200 with
// K = 544 (17 blocks of 32).

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMxMatmul(memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}

// CHECK: gpu mx matmul [128x256] x [64x256] acc: outside bound 0 (of 8192)
// CHECK: gpu mx matmul [127x96] x [129x96]: outside bound 0 (of 16383)
// CHECK: gpu mx matmul [2x33x64] x [2x65x64] acc: outside bound 0 (of 4290)
// CHECK: gpu mx matmul [1x32] x [1x32]: outside bound 0 (of 1)
// CHECK: gpu mx matmul [64x544] x [200x544]: outside bound 0 (of 12800)
// CHECK-NOT: outside bound

func.func @matmul_0() {
  %xm = memref.alloc() : memref<128x256xf32>
  %xu = memref.cast %xm : memref<128x256xf32> to memref<*xf32>
  %xseed = arith.constant 700 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<128x256xf32> to tensor<128x256xf32>
  %wm = memref.alloc() : memref<64x256xf32>
  %wu = memref.cast %wm : memref<64x256xf32> to memref<*xf32>
  %wseed = arith.constant 701 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<64x256xf32> to tensor<64x256xf32>
  %qa = nvfp4.quantize %x : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x32, mxfp4>
  %qb = nvfp4.quantize %w : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x32, mxfp4>
  %cm = memref.alloc() : memref<128x64xf32>
  %cu = memref.cast %cm : memref<128x64xf32> to memref<*xf32>
  %cseed = arith.constant 702 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<128x64xf32> to tensor<128x64xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<128x64xf32>) : !nvfp4.tensor<128x256, 1x32, mxfp4>, !nvfp4.tensor<64x256, 1x32, mxfp4> -> tensor<128x64xf32>
  %hasacc = arith.constant 1 : i32
  %ad, %as = nvfp4.disassemble %qa : !nvfp4.tensor<128x256, 1x32, mxfp4>
  %ad4 = arith.bitcast %ad : tensor<128x256xf4E2M1FN> to tensor<128x256xi4>
  %ad8 = arith.extui %ad4 : tensor<128x256xi4> to tensor<128x256xi8>
  %as8 = arith.bitcast %as : tensor<128x8xf8E8M0FNU> to tensor<128x8xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<128x256xi8> to memref<128x256xi8>
  %asm = bufferization.to_buffer %as8 : tensor<128x8xi8> to memref<128x8xi8>
  %adu = memref.cast %adm : memref<128x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<128x8xi8> to memref<*xi8>
  %bd, %bs = nvfp4.disassemble %qb : !nvfp4.tensor<64x256, 1x32, mxfp4>
  %bd4 = arith.bitcast %bd : tensor<64x256xf4E2M1FN> to tensor<64x256xi4>
  %bd8 = arith.extui %bd4 : tensor<64x256xi4> to tensor<64x256xi8>
  %bs8 = arith.bitcast %bs : tensor<64x8xf8E8M0FNU> to tensor<64x8xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<64x256xi8> to memref<64x256xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<64x8xi8> to memref<64x8xi8>
  %bdu = memref.cast %bdm : memref<64x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<64x8xi8> to memref<*xi8>
  %ym = bufferization.to_buffer %y : tensor<128x64xf32> to memref<128x64xf32>
  %yu = memref.cast %ym : memref<128x64xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %bdu, %bsu, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_1() {
  %xm = memref.alloc() : memref<127x96xf32>
  %xu = memref.cast %xm : memref<127x96xf32> to memref<*xf32>
  %xseed = arith.constant 710 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<127x96xf32> to tensor<127x96xf32>
  %wm = memref.alloc() : memref<129x96xf32>
  %wu = memref.cast %wm : memref<129x96xf32> to memref<*xf32>
  %wseed = arith.constant 711 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<129x96xf32> to tensor<129x96xf32>
  %qa = nvfp4.quantize %x : tensor<127x96xf32> -> !nvfp4.tensor<127x96, 1x32, mxfp4>
  %qb = nvfp4.quantize %w : tensor<129x96xf32> -> !nvfp4.tensor<129x96, 1x32, mxfp4>
  %cm = memref.alloc() : memref<127x129xf32>
  %cu = memref.cast %cm : memref<127x129xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<127x96, 1x32, mxfp4>, !nvfp4.tensor<129x96, 1x32, mxfp4> -> tensor<127x129xf32>
  %hasacc = arith.constant 0 : i32
  %ad, %as = nvfp4.disassemble %qa : !nvfp4.tensor<127x96, 1x32, mxfp4>
  %ad4 = arith.bitcast %ad : tensor<127x96xf4E2M1FN> to tensor<127x96xi4>
  %ad8 = arith.extui %ad4 : tensor<127x96xi4> to tensor<127x96xi8>
  %as8 = arith.bitcast %as : tensor<127x3xf8E8M0FNU> to tensor<127x3xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<127x96xi8> to memref<127x96xi8>
  %asm = bufferization.to_buffer %as8 : tensor<127x3xi8> to memref<127x3xi8>
  %adu = memref.cast %adm : memref<127x96xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<127x3xi8> to memref<*xi8>
  %bd, %bs = nvfp4.disassemble %qb : !nvfp4.tensor<129x96, 1x32, mxfp4>
  %bd4 = arith.bitcast %bd : tensor<129x96xf4E2M1FN> to tensor<129x96xi4>
  %bd8 = arith.extui %bd4 : tensor<129x96xi4> to tensor<129x96xi8>
  %bs8 = arith.bitcast %bs : tensor<129x3xf8E8M0FNU> to tensor<129x3xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<129x96xi8> to memref<129x96xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<129x3xi8> to memref<129x3xi8>
  %bdu = memref.cast %bdm : memref<129x96xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<129x3xi8> to memref<*xi8>
  %ym = bufferization.to_buffer %y : tensor<127x129xf32> to memref<127x129xf32>
  %yu = memref.cast %ym : memref<127x129xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %bdu, %bsu, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_2() {
  %xm = memref.alloc() : memref<2x33x64xf32>
  %xu = memref.cast %xm : memref<2x33x64xf32> to memref<*xf32>
  %xseed = arith.constant 720 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<2x33x64xf32> to tensor<2x33x64xf32>
  %wm = memref.alloc() : memref<2x65x64xf32>
  %wu = memref.cast %wm : memref<2x65x64xf32> to memref<*xf32>
  %wseed = arith.constant 721 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<2x65x64xf32> to tensor<2x65x64xf32>
  %qa = nvfp4.quantize %x : tensor<2x33x64xf32> -> !nvfp4.tensor<2x33x64, 1x32, mxfp4>
  %qb = nvfp4.quantize %w : tensor<2x65x64xf32> -> !nvfp4.tensor<2x65x64, 1x32, mxfp4>
  %cm = memref.alloc() : memref<2x33x65xf32>
  %cu = memref.cast %cm : memref<2x33x65xf32> to memref<*xf32>
  %cseed = arith.constant 722 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<2x33x65xf32> to tensor<2x33x65xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<2x33x65xf32>) : !nvfp4.tensor<2x33x64, 1x32, mxfp4>, !nvfp4.tensor<2x65x64, 1x32, mxfp4> -> tensor<2x33x65xf32>
  %hasacc = arith.constant 1 : i32
  %ad, %as = nvfp4.disassemble %qa : !nvfp4.tensor<2x33x64, 1x32, mxfp4>
  %ad4 = arith.bitcast %ad : tensor<2x33x64xf4E2M1FN> to tensor<2x33x64xi4>
  %ad8 = arith.extui %ad4 : tensor<2x33x64xi4> to tensor<2x33x64xi8>
  %as8 = arith.bitcast %as : tensor<2x33x2xf8E8M0FNU> to tensor<2x33x2xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<2x33x64xi8> to memref<2x33x64xi8>
  %asm = bufferization.to_buffer %as8 : tensor<2x33x2xi8> to memref<2x33x2xi8>
  %adu = memref.cast %adm : memref<2x33x64xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x33x2xi8> to memref<*xi8>
  %bd, %bs = nvfp4.disassemble %qb : !nvfp4.tensor<2x65x64, 1x32, mxfp4>
  %bd4 = arith.bitcast %bd : tensor<2x65x64xf4E2M1FN> to tensor<2x65x64xi4>
  %bd8 = arith.extui %bd4 : tensor<2x65x64xi4> to tensor<2x65x64xi8>
  %bs8 = arith.bitcast %bs : tensor<2x65x2xf8E8M0FNU> to tensor<2x65x2xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<2x65x64xi8> to memref<2x65x64xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<2x65x2xi8> to memref<2x65x2xi8>
  %bdu = memref.cast %bdm : memref<2x65x64xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x65x2xi8> to memref<*xi8>
  %ym = bufferization.to_buffer %y : tensor<2x33x65xf32> to memref<2x33x65xf32>
  %yu = memref.cast %ym : memref<2x33x65xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %bdu, %bsu, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_3() {
  %xm = memref.alloc() : memref<1x32xf32>
  %xu = memref.cast %xm : memref<1x32xf32> to memref<*xf32>
  %xseed = arith.constant 730 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<1x32xf32> to tensor<1x32xf32>
  %wm = memref.alloc() : memref<1x32xf32>
  %wu = memref.cast %wm : memref<1x32xf32> to memref<*xf32>
  %wseed = arith.constant 731 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<1x32xf32> to tensor<1x32xf32>
  %qa = nvfp4.quantize %x : tensor<1x32xf32> -> !nvfp4.tensor<1x32, 1x32, mxfp4>
  %qb = nvfp4.quantize %w : tensor<1x32xf32> -> !nvfp4.tensor<1x32, 1x32, mxfp4>
  %cm = memref.alloc() : memref<1x1xf32>
  %cu = memref.cast %cm : memref<1x1xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<1x32, 1x32, mxfp4>, !nvfp4.tensor<1x32, 1x32, mxfp4> -> tensor<1x1xf32>
  %hasacc = arith.constant 0 : i32
  %ad, %as = nvfp4.disassemble %qa : !nvfp4.tensor<1x32, 1x32, mxfp4>
  %ad4 = arith.bitcast %ad : tensor<1x32xf4E2M1FN> to tensor<1x32xi4>
  %ad8 = arith.extui %ad4 : tensor<1x32xi4> to tensor<1x32xi8>
  %as8 = arith.bitcast %as : tensor<1x1xf8E8M0FNU> to tensor<1x1xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<1x32xi8> to memref<1x32xi8>
  %asm = bufferization.to_buffer %as8 : tensor<1x1xi8> to memref<1x1xi8>
  %adu = memref.cast %adm : memref<1x32xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<1x1xi8> to memref<*xi8>
  %bd, %bs = nvfp4.disassemble %qb : !nvfp4.tensor<1x32, 1x32, mxfp4>
  %bd4 = arith.bitcast %bd : tensor<1x32xf4E2M1FN> to tensor<1x32xi4>
  %bd8 = arith.extui %bd4 : tensor<1x32xi4> to tensor<1x32xi8>
  %bs8 = arith.bitcast %bs : tensor<1x1xf8E8M0FNU> to tensor<1x1xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<1x32xi8> to memref<1x32xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<1x1xi8> to memref<1x1xi8>
  %bdu = memref.cast %bdm : memref<1x32xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<1x1xi8> to memref<*xi8>
  %ym = bufferization.to_buffer %y : tensor<1x1xf32> to memref<1x1xf32>
  %yu = memref.cast %ym : memref<1x1xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %bdu, %bsu, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}

func.func @matmul_4() {
  %xm = memref.alloc() : memref<64x544xf32>
  %xu = memref.cast %xm : memref<64x544xf32> to memref<*xf32>
  %xseed = arith.constant 740 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<64x544xf32> to tensor<64x544xf32>
  %wm = memref.alloc() : memref<200x544xf32>
  %wu = memref.cast %wm : memref<200x544xf32> to memref<*xf32>
  %wseed = arith.constant 741 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<200x544xf32> to tensor<200x544xf32>
  %qa = nvfp4.quantize %x : tensor<64x544xf32> -> !nvfp4.tensor<64x544, 1x32, mxfp4>
  %qb = nvfp4.quantize %w : tensor<200x544xf32> -> !nvfp4.tensor<200x544, 1x32, mxfp4>
  %cm = memref.alloc() : memref<64x200xf32>
  %cu = memref.cast %cm : memref<64x200xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x544, 1x32, mxfp4>, !nvfp4.tensor<200x544, 1x32, mxfp4> -> tensor<64x200xf32>
  %hasacc = arith.constant 0 : i32
  %ad, %as = nvfp4.disassemble %qa : !nvfp4.tensor<64x544, 1x32, mxfp4>
  %ad4 = arith.bitcast %ad : tensor<64x544xf4E2M1FN> to tensor<64x544xi4>
  %ad8 = arith.extui %ad4 : tensor<64x544xi4> to tensor<64x544xi8>
  %as8 = arith.bitcast %as : tensor<64x17xf8E8M0FNU> to tensor<64x17xi8>
  %adm = bufferization.to_buffer %ad8 : tensor<64x544xi8> to memref<64x544xi8>
  %asm = bufferization.to_buffer %as8 : tensor<64x17xi8> to memref<64x17xi8>
  %adu = memref.cast %adm : memref<64x544xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<64x17xi8> to memref<*xi8>
  %bd, %bs = nvfp4.disassemble %qb : !nvfp4.tensor<200x544, 1x32, mxfp4>
  %bd4 = arith.bitcast %bd : tensor<200x544xf4E2M1FN> to tensor<200x544xi4>
  %bd8 = arith.extui %bd4 : tensor<200x544xi4> to tensor<200x544xi8>
  %bs8 = arith.bitcast %bs : tensor<200x17xf8E8M0FNU> to tensor<200x17xi8>
  %bdm = bufferization.to_buffer %bd8 : tensor<200x544xi8> to memref<200x544xi8>
  %bsm = bufferization.to_buffer %bs8 : tensor<200x17xi8> to memref<200x17xi8>
  %bdu = memref.cast %bdm : memref<200x544xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<200x17xi8> to memref<*xi8>
  %ym = bufferization.to_buffer %y : tensor<64x200xf32> to memref<64x200xf32>
  %yu = memref.cast %ym : memref<64x200xf32> to memref<*xf32>
  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %bdu, %bsu, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, memref<*xf32>) -> i64
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
