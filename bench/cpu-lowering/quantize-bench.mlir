// Quantize throughput of the CPU lowering (nvfp4-to-cpu) against the
// reference library (single-threaded nvfp4::quantize) in the same process:
// 1x16 and 16x16 blocks, round-to-nearest, f32 input of 4096 x 4096. The
// results of both are checked bit for bit once. Run by quantize-bench.sh.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckQuantize(memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printComma()

func.func @quantize_1x16(%x: tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<4096x256xi8>, f32) {
  %q = nvfp4.quantize %x : tensor<4096x4096xf32> -> !nvfp4.tensor<4096x4096, 1x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<4096x4096, 1x16>
  %di = arith.bitcast %d : tensor<4096x4096xf4E2M1FN> to tensor<4096x4096xi4>
  %d8 = arith.extui %di : tensor<4096x4096xi4> to tensor<4096x4096xi8>
  %s8 = arith.bitcast %s : tensor<4096x256xf8E4M3FN> to tensor<4096x256xi8>
  return %d8, %s8, %g : tensor<4096x4096xi8>, tensor<4096x256xi8>, f32
}

func.func @quantize_16x16(%x: tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<256x256xi8>, f32) {
  %q = nvfp4.quantize %x : tensor<4096x4096xf32> -> !nvfp4.tensor<4096x4096, 16x16>
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<4096x4096, 16x16>
  %di = arith.bitcast %d : tensor<4096x4096xf4E2M1FN> to tensor<4096x4096xi4>
  %d8 = arith.extui %di : tensor<4096x4096xi4> to tensor<4096x4096xi8>
  %s8 = arith.bitcast %s : tensor<256x256xf8E4M3FN> to tensor<256x256xi8>
  return %d8, %s8, %g : tensor<4096x4096xi8>, tensor<256x256xi8>, f32
}

// Prints: block rows, lowered seconds per quantize, reference seconds per
// quantize, and lowered throughput / reference throughput.
func.func @bench(%x: tensor<4096x4096xf32>, %xu: memref<*xf32>, %blockRows: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %iters = arith.constant 5 : index
  %itersf = arith.constant 5.0 : f64
  %one = arith.constant 1 : i32
  %rn = arith.constant 0 : i32
  %zero64 = arith.constant 0 : i64
  %nohad = arith.constant -2 : i32
  %noamax = arith.constant -1.0 : f32
  %c16 = arith.constant 16 : i64
  %is2d = arith.cmpi eq, %blockRows, %c16 : i64
  // Lowered.
  %t0 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %iters step %c1 {
    scf.if %is2d {
      %d, %s, %g = func.call @quantize_16x16(%x) : (tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<256x256xi8>, f32)
    } else {
      %d, %s, %g = func.call @quantize_1x16(%x) : (tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<4096x256xi8>, f32)
    }
  }
  %t1 = call @rtclock() : () -> f64
  // Reference, into scratch buffers.
  %dm = memref.alloc() : memref<4096x4096xi8>
  // Compact scales: 4096 / blockRows rows.
  %c4096 = arith.constant 4096 : i64
  %scaleRows64 = arith.divui %c4096, %blockRows : i64
  %scaleRows = arith.index_cast %scaleRows64 : i64 to index
  %sm = memref.alloc(%scaleRows) : memref<?x256xi8>
  %du = memref.cast %dm : memref<4096x4096xi8> to memref<*xi8>
  %su = memref.cast %sm : memref<?x256xi8> to memref<*xi8>
  %t2 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %iters step %c1 {
    %g = func.call @nvfp4RtQuantizeReference(%xu, %du, %su, %blockRows, %one) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  }
  %t3 = call @rtclock() : () -> f64
  %lowered = arith.subf %t1, %t0 : f64
  %reference = arith.subf %t3, %t2 : f64
  %lp = arith.divf %lowered, %itersf : f64
  %rp = arith.divf %reference, %itersf : f64
  %ratio = arith.divf %rp, %lp : f64
  call @printI64(%blockRows) : (i64) -> ()
  call @printComma() : () -> ()
  call @printF64(%lp) : (f64) -> ()
  call @printComma() : () -> ()
  call @printF64(%rp) : (f64) -> ()
  call @printComma() : () -> ()
  call @printF64(%ratio) : (f64) -> ()
  call @printNewline() : () -> ()
  // One bit-exact check of the lowered result.
  scf.if %is2d {
    %d, %s, %g = func.call @quantize_16x16(%x) : (tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<256x256xi8>, f32)
    %dm2 = bufferization.to_buffer %d : tensor<4096x4096xi8> to memref<4096x4096xi8>
    %sm2 = bufferization.to_buffer %s : tensor<256x256xi8> to memref<256x256xi8>
    %du2 = memref.cast %dm2 : memref<4096x4096xi8> to memref<*xi8>
    %su2 = memref.cast %sm2 : memref<256x256xi8> to memref<*xi8>
    %n = func.call @nvfp4RtCheckQuantize(%xu, %du2, %su2, %g, %blockRows, %rn, %zero64, %zero64, %nohad, %noamax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  } else {
    %d, %s, %g = func.call @quantize_1x16(%x) : (tensor<4096x4096xf32>) -> (tensor<4096x4096xi8>, tensor<4096x256xi8>, f32)
    %dm2 = bufferization.to_buffer %d : tensor<4096x4096xi8> to memref<4096x4096xi8>
    %sm2 = bufferization.to_buffer %s : tensor<4096x256xi8> to memref<4096x256xi8>
    %du2 = memref.cast %dm2 : memref<4096x4096xi8> to memref<*xi8>
    %su2 = memref.cast %sm2 : memref<4096x256xi8> to memref<*xi8>
    %n = func.call @nvfp4RtCheckQuantize(%xu, %du2, %su2, %g, %blockRows, %rn, %zero64, %zero64, %nohad, %noamax) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, f32, i64, i32, i64, i64, i32, f32) -> i64
  }
  return
}

func.func @main() {
  %xm = memref.alloc() : memref<4096x4096xf32>
  %xu = memref.cast %xm : memref<4096x4096xf32> to memref<*xf32>
  %seed = arith.constant 1 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<4096x4096xf32> to tensor<4096x4096xf32>
  %r1 = arith.constant 1 : i64
  %r16 = arith.constant 16 : i64
  call @bench(%x, %xu, %r1) : (tensor<4096x4096xf32>, memref<*xf32>, i64) -> ()
  call @bench(%x, %xu, %r16) : (tensor<4096x4096xf32>, memref<*xf32>, i64) -> ()
  return
}
