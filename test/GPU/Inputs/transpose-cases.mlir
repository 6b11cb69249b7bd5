// nvfp4.transpose of tensors the program quantizes (16x16 blocks), the
// results dequantized or multiplied and printed as f32 bit patterns
// (transpose-emulated.mlir compares the GPU kernels run by the emulator with
// the CPU reference lowering, byte for byte): a 48 x 128 weight, a batch of
// 2 x 32 x 64 with stochastic rounding, and a GEMM of K = 48 whose B is a
// transposed 48 x 64 weight, as the recipe's GEMMs read 16x16 weights (on
// the tcgen05 targets the transpose writes K-padded storage that the GEMM
// reads in place).

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @fill_48x128(%seed: i64) -> tensor<48x128xf32> {
  %m = memref.alloc() : memref<48x128xf32>
  %u = memref.cast %m : memref<48x128xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<48x128xf32> to tensor<48x128xf32>
  return %t : tensor<48x128xf32>
}

func.func @fill_2x32x64(%seed: i64) -> tensor<2x32x64xf32> {
  %m = memref.alloc() : memref<2x32x64xf32>
  %u = memref.cast %m : memref<2x32x64xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  return %t : tensor<2x32x64xf32>
}

func.func @fill_48x64(%seed: i64) -> tensor<48x64xf32> {
  %m = memref.alloc() : memref<48x64xf32>
  %u = memref.cast %m : memref<48x64xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<48x64xf32> to tensor<48x64xf32>
  return %t : tensor<48x64xf32>
}

func.func @fill_128x48(%seed: i64) -> tensor<128x48xf32> {
  %m = memref.alloc() : memref<128x48xf32>
  %u = memref.cast %m : memref<128x48xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<128x48xf32> to tensor<128x48xf32>
  return %t : tensor<128x48xf32>
}

func.func @print_128x48(%y: tensor<128x48xf32>) {
  %bits = arith.bitcast %y : tensor<128x48xf32> to tensor<128x48xi32>
  %m = bufferization.to_buffer %bits : tensor<128x48xi32> to memref<128x48xi32>
  %u = memref.cast %m : memref<128x48xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_128x64(%y: tensor<128x64xf32>) {
  %bits = arith.bitcast %y : tensor<128x64xf32> to tensor<128x64xi32>
  %m = bufferization.to_buffer %bits : tensor<128x64xi32> to memref<128x64xi32>
  %u = memref.cast %m : memref<128x64xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_2x64x32(%y: tensor<2x64x32xf32>) {
  %bits = arith.bitcast %y : tensor<2x64x32xf32> to tensor<2x64x32xi32>
  %m = bufferization.to_buffer %bits : tensor<2x64x32xi32> to memref<2x64x32xi32>
  %u = memref.cast %m : memref<2x64x32xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %s0 = arith.constant 700 : i64
  %s1 = arith.constant 701 : i64
  %s2 = arith.constant 702 : i64
  %s3 = arith.constant 703 : i64

  // 48 x 128 -> 128 x 48, dequantized.
  %x0 = call @fill_48x128(%s0) : (i64) -> tensor<48x128xf32>
  %q0 = nvfp4.quantize %x0 : tensor<48x128xf32> -> !nvfp4.tensor<48x128, 16x16>
  %t0 = nvfp4.transpose %q0 : !nvfp4.tensor<48x128, 16x16> -> !nvfp4.tensor<128x48, 16x16>
  %d0 = nvfp4.dequantize %t0 : !nvfp4.tensor<128x48, 16x16> -> tensor<128x48xf32>
  call @print_128x48(%d0) : (tensor<128x48xf32>) -> ()

  // A batch: 2 x 32 x 64 -> 2 x 64 x 32, stochastically rounded.
  %x1b = call @fill_2x32x64(%s1) : (i64) -> tensor<2x32x64xf32>
  %seed = arith.constant 31 : i64
  %q1 = nvfp4.quantize %x1b rounding rs seed %seed offset 3 : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 16x16>
  %t1 = nvfp4.transpose %q1 : !nvfp4.tensor<2x32x64, 16x16> -> !nvfp4.tensor<2x64x32, 16x16>
  %d1 = nvfp4.dequantize %t1 : !nvfp4.tensor<2x64x32, 16x16> -> tensor<2x64x32xf32>
  call @print_2x64x32(%d1) : (tensor<2x64x32xf32>) -> ()

  // The recipe's form: W (48 x 64, 16x16) read transposed as the B operand
  // [N = 64, K = 48] of X (128 x 48) times W.
  %w = call @fill_48x64(%s2) : (i64) -> tensor<48x64xf32>
  %x2 = call @fill_128x48(%s3) : (i64) -> tensor<128x48xf32>
  %qw = nvfp4.quantize %w : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %qwt = nvfp4.transpose %qw : !nvfp4.tensor<48x64, 16x16> -> !nvfp4.tensor<64x48, 16x16>
  %qx2 = nvfp4.quantize %x2 : tensor<128x48xf32> -> !nvfp4.tensor<128x48, 1x16>
  %y = nvfp4.matmul %qx2, %qwt : !nvfp4.tensor<128x48, 1x16>, !nvfp4.tensor<64x48, 16x16> -> tensor<128x64xf32>
  call @print_128x64(%y) : (tensor<128x64xf32>) -> ()
  return
}
