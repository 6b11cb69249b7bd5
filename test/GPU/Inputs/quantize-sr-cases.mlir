// Stochastic-rounding quantizations, dequantized and printed as f32 bit
// patterns (quantize-sr-emulated.mlir compares the GPU kernels run by the
// emulator with the CPU reference lowering, byte for byte): 1x16 blocks
// with a seed and an offset; 16x16 blocks with the random Hadamard
// transform; a bf16 input with an explicit amax.

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

func.func @print(%y: tensor<64x128xf32>) {
  %bits = arith.bitcast %y : tensor<64x128xf32> to tensor<64x128xi32>
  %m = bufferization.to_buffer %bits : tensor<64x128xi32> to memref<64x128xi32>
  %u = memref.cast %m : memref<64x128xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %s0 = arith.constant 500 : i64
  %x0 = call @fill(%s0) : (i64) -> tensor<64x128xf32>
  %seed = arith.constant 1234 : i64
  %q0 = nvfp4.quantize %x0 rounding rs seed %seed offset 7 : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16>
  %y0 = nvfp4.dequantize %q0 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  call @print(%y0) : (tensor<64x128xf32>) -> ()

  %s1 = arith.constant 501 : i64
  %x1 = call @fill(%s1) : (i64) -> tensor<64x128xf32>
  %q1 = nvfp4.quantize %x1 rounding rs seed %seed offset 4096 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  %y1 = nvfp4.dequantize %q1 : !nvfp4.tensor<64x128, 16x16> -> tensor<64x128xf32>
  call @print(%y1) : (tensor<64x128xf32>) -> ()

  %s2 = arith.constant 502 : i64
  %x2 = call @fill(%s2) : (i64) -> tensor<64x128xf32>
  %x2b = arith.truncf %x2 : tensor<64x128xf32> to tensor<64x128xbf16>
  %amax = arith.constant 1000.0 : f32
  %q2 = nvfp4.quantize %x2b amax %amax rounding rs seed %seed offset 0 : tensor<64x128xbf16> -> !nvfp4.tensor<64x128, 1x16>
  %y2 = nvfp4.dequantize %q2 : !nvfp4.tensor<64x128, 1x16> -> tensor<64x128xf32>
  call @print(%y2) : (tensor<64x128xf32>) -> ()
  return
}
