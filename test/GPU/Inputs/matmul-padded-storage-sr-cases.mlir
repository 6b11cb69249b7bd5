// GEMMs with K = 80 and K = 48 (not multiples of 32) of operands quantized
// with stochastic rounding and the random Hadamard transform, their results
// printed as f32 bit patterns (matmul-sm100-emulated.mlir compares the
// tcgen05 kernels, whose operands the quantize kernels write into K-padded
// storage, with the CPU reference lowering byte for byte): the random bits
// of every element must be those of the unpadded tensor.

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @fill(%seed: i64) -> tensor<64x128xf32> {
  %m = memref.alloc() : memref<64x128xf32>
  %u = memref.cast %m : memref<64x128xf32> to memref<*xf32>
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<64x128xf32> to tensor<64x128xf32>
  return %t : tensor<64x128xf32>
}

func.func @print(%y: tensor<64x48xf32>) {
  %bits = arith.bitcast %y : tensor<64x48xf32> to tensor<64x48xi32>
  %m = bufferization.to_buffer %bits : tensor<64x48xi32> to memref<64x48xi32>
  %u = memref.cast %m : memref<64x48xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %seed = arith.constant 2024 : i64
  %s0 = arith.constant 600 : i64
  %s1 = arith.constant 601 : i64
  %xf = call @fill(%s0) : (i64) -> tensor<64x128xf32>
  %wf = call @fill(%s1) : (i64) -> tensor<64x128xf32>

  // K = 80: a 1x16 A and a 16x16 B, both stochastically rounded after the
  // Hadamard transform.
  %x0 = tensor.extract_slice %xf[0, 0] [64, 80] [1, 1] : tensor<64x128xf32> to tensor<64x80xf32>
  %w0 = tensor.extract_slice %wf[0, 0] [48, 80] [1, 1] : tensor<64x128xf32> to tensor<48x80xf32>
  %qx0 = nvfp4.quantize %x0 rounding rs seed %seed offset 5 hadamard [1, -1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, -1, 1, -1, 1] : tensor<64x80xf32> -> !nvfp4.tensor<64x80, 1x16>
  %qw0 = nvfp4.quantize %w0 rounding rs seed %seed offset 1000 hadamard [1, 1, -1, 1, -1, 1, 1, -1, -1, 1, -1, -1, 1, 1, 1, -1] : tensor<48x80xf32> -> !nvfp4.tensor<48x80, 16x16>
  %y0 = nvfp4.matmul %qx0, %qw0 : !nvfp4.tensor<64x80, 1x16>, !nvfp4.tensor<48x80, 16x16> -> tensor<64x48xf32>
  call @print(%y0) : (tensor<64x48xf32>) -> ()

  // K = 48: a bf16 A with an explicit amax, a B rounded to nearest.
  %x1 = tensor.extract_slice %xf[0, 64] [64, 48] [1, 1] : tensor<64x128xf32> to tensor<64x48xf32>
  %w1 = tensor.extract_slice %wf[0, 64] [48, 48] [1, 1] : tensor<64x128xf32> to tensor<48x48xf32>
  %x1b = arith.truncf %x1 : tensor<64x48xf32> to tensor<64x48xbf16>
  %amax = arith.constant 1000.0 : f32
  %qx1 = nvfp4.quantize %x1b amax %amax rounding rs seed %seed offset 0 : tensor<64x48xbf16> -> !nvfp4.tensor<64x48, 1x16>
  %qw1 = nvfp4.quantize %w1 : tensor<48x48xf32> -> !nvfp4.tensor<48x48, 1x16>
  %y1 = nvfp4.matmul %qx1, %qw1 : !nvfp4.tensor<64x48, 1x16>, !nvfp4.tensor<48x48, 1x16> -> tensor<64x48xf32>
  call @print(%y1) : (tensor<64x48xf32>) -> ()
  return
}
