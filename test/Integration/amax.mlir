// nvfp4.amax lowered by nvfp4-to-cpu and run on the CPU. Two oracles, both
// independent of the lowering: hand-computed results of constant tensors
// (printed as f32 bit patterns), and nvfp4RtCheckAmax, which computes
// max |x| over the non-NaN elements with std::fabs / std::isnan. Covered:
// NaN elements (ignored; all-NaN gives +0), -0, +-Inf, f32 / bf16 / f16
// subnormals, values near FLT_MAX, bf16 and f16 inputs (checked against
// the input rounded to that type), ranks 1 to 3.
//
// Both CPU lowerings run and are checked: the default calls of the
// precompiled kernels (libnvfp4_cpu_runtime) and kernels=inline.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN: | FileCheck %s

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtCheckAmax(memref<*xf32>, f32) -> i64 attributes {llvm.emit_c_interface}

/// Prints the bits of `a`.
func.func @print_bits(%a: f32) {
  %bits = arith.bitcast %a : f32 to i32
  vector.print %bits : i32
  return
}

// Hand-computed: NaN and -0 ignored, |-2.5| = 2.5 (0x40200000).
// CHECK: 1075838976
func.func @hand_f32() {
  %x = arith.constant dense<[0x7FC00000, -0.0, 1.0e-40, -2.5, 2.0, 0.5, 0x7FC00000, -1.0,
                             0.0, 2.25, -2.4999998, 1.0e-3, 0xFFC00000, -0.0, 0.0, 1.0]> : tensor<16xf32>
  %a = nvfp4.amax %x : tensor<16xf32>
  call @print_bits(%a) : (f32) -> ()
  return
}

// All NaN (positive and negative): +0.
// CHECK-NEXT: 0
func.func @hand_nan() {
  %x = arith.constant dense<[[0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000,
                              0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000, 0x7FC00000]]> : tensor<1x16xf32>
  %a = nvfp4.amax %x : tensor<1x16xf32>
  call @print_bits(%a) : (f32) -> ()
  return
}

// Only -0 and +0: +0 (the sign bit is cleared).
// CHECK-NEXT: 0
func.func @hand_negative_zero() {
  %x = arith.constant dense<-0.0> : tensor<2x16xf32>
  %a = nvfp4.amax %x : tensor<2x16xf32>
  call @print_bits(%a) : (f32) -> ()
  return
}

// f32 subnormals only: 3e-40 (bits 214087), not flushed to zero.
// CHECK-NEXT: 214087
func.func @hand_subnormal() {
  %x = arith.constant dense<[-1.0e-45, 3.0e-40, -2.9e-40, 0x7FC00000, -0.0, 1.0e-42, 0.0, 0.0,
                             0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0e-40]> : tensor<16xf32>
  %a = nvfp4.amax %x : tensor<16xf32>
  call @print_bits(%a) : (f32) -> ()
  return
}

// -Inf: +Inf (0x7F800000), also next to NaN and FLT_MAX.
// CHECK-NEXT: 2139095040
func.func @hand_inf() {
  %x = arith.constant dense<[3.4028235e38, 0x7FC00000, 0xFF800000, 1.0, 0.0, 0.0, 0.0, 0.0,
                             0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.4028235e38]> : tensor<16xf32>
  %a = nvfp4.amax %x : tensor<16xf32>
  call @print_bits(%a) : (f32) -> ()
  return
}

// bf16: |bf16(-3.0e38)| = 3.00405527e38 (0x7F61C000); a bf16 subnormal
// 2^-129 (0x00100000) when it is the largest.
// CHECK-NEXT: 2137128960
// CHECK-NEXT: 1048576
func.func @hand_bf16() {
  %x = arith.constant dense<[[-3.0e38, 0x7FC0, 0.1, -0.0, 1.5e-39, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0e30]]> : tensor<1x16xbf16>
  %a = nvfp4.amax %x : tensor<1x16xbf16>
  call @print_bits(%a) : (f32) -> ()
  %s = arith.constant dense<[0x7FC0, -0.0, 1.5e-39, -1.0e-39, 0.0, 0.0, 0.0, 0.0,
                             0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFFC0]> : tensor<16xbf16>
  %b = nvfp4.amax %s : tensor<16xbf16>
  call @print_bits(%b) : (f32) -> ()
  return
}

// f16: |-65504| = 65504 (0x477FE000); f16 subnormals only: 2^-23
// (0x34000000) from 2 * 2^-24.
// CHECK-NEXT: 1199562752
// CHECK-NEXT: 872415232
func.func @hand_f16() {
  %x = arith.constant dense<[-65504.0, 0x7E00, 1.0, -0.0, 0.0, 0.0, 0.0, 0.0,
                             0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0e4, 0xFE00]> : tensor<16xf16>
  %a = nvfp4.amax %x : tensor<16xf16>
  call @print_bits(%a) : (f32) -> ()
  %s = arith.constant dense<[[[0x7E00, -6.0e-8, 1.2e-7, -0.0, 0.0, 0.0, 0.0, 0.0,
                               0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.1e-7]]]> : tensor<1x1x16xf16>
  %b = nvfp4.amax %s : tensor<1x1x16xf16>
  call @print_bits(%b) : (f32) -> ()
  return
}

// Filled tensors against nvfp4RtCheckAmax: f32 (fill mode 0: magnitudes
// 2^-20 to 2^10 with zeros, -0 and outliers), f32 with Inf, NaN, subnormals
// and values near FLT_MAX (mode 2), bf16 (mode 0), f16 (mode 3, rank 1).
// CHECK-NEXT: amax [64x128]: mismatches 0 (of 1)
// CHECK-NEXT: amax [2x32x64]: mismatches 0 (of 1)
// CHECK-NEXT: amax [128x64]: mismatches 0 (of 1)
// CHECK-NEXT: amax [4096]: mismatches 0 (of 1)
func.func @filled() {
  %mode0 = arith.constant 0 : i32
  %mode2 = arith.constant 2 : i32
  %mode3 = arith.constant 3 : i32

  %am = memref.alloc() : memref<64x128xf32>
  %au = memref.cast %am : memref<64x128xf32> to memref<*xf32>
  %aseed = arith.constant 501 : i64
  call @nvfp4RtFill(%au, %aseed, %mode0) : (memref<*xf32>, i64, i32) -> ()
  %a = bufferization.to_tensor %am restrict : memref<64x128xf32> to tensor<64x128xf32>
  %aamax = nvfp4.amax %a : tensor<64x128xf32>
  %na = call @nvfp4RtCheckAmax(%au, %aamax) : (memref<*xf32>, f32) -> i64

  %bm = memref.alloc() : memref<2x32x64xf32>
  %bu = memref.cast %bm : memref<2x32x64xf32> to memref<*xf32>
  %bseed = arith.constant 502 : i64
  call @nvfp4RtFill(%bu, %bseed, %mode2) : (memref<*xf32>, i64, i32) -> ()
  %b = bufferization.to_tensor %bm restrict : memref<2x32x64xf32> to tensor<2x32x64xf32>
  %bamax = nvfp4.amax %b : tensor<2x32x64xf32>
  %nb = call @nvfp4RtCheckAmax(%bu, %bamax) : (memref<*xf32>, f32) -> i64

  %cm = memref.alloc() : memref<128x64xf32>
  %cu = memref.cast %cm : memref<128x64xf32> to memref<*xf32>
  %cseed = arith.constant 503 : i64
  call @nvfp4RtFill(%cu, %cseed, %mode0) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<128x64xf32> to tensor<128x64xf32>
  %cl = arith.truncf %c : tensor<128x64xf32> to tensor<128x64xbf16>
  %camax = nvfp4.amax %cl : tensor<128x64xbf16>
  %cle = arith.extf %cl : tensor<128x64xbf16> to tensor<128x64xf32>
  %clm = bufferization.to_buffer %cle : tensor<128x64xf32> to memref<128x64xf32>
  %clu = memref.cast %clm : memref<128x64xf32> to memref<*xf32>
  %nc = call @nvfp4RtCheckAmax(%clu, %camax) : (memref<*xf32>, f32) -> i64

  %dm = memref.alloc() : memref<4096xf32>
  %du = memref.cast %dm : memref<4096xf32> to memref<*xf32>
  %dseed = arith.constant 504 : i64
  call @nvfp4RtFill(%du, %dseed, %mode3) : (memref<*xf32>, i64, i32) -> ()
  %d = bufferization.to_tensor %dm restrict : memref<4096xf32> to tensor<4096xf32>
  %dl = arith.truncf %d : tensor<4096xf32> to tensor<4096xf16>
  %damax = nvfp4.amax %dl : tensor<4096xf16>
  %dle = arith.extf %dl : tensor<4096xf16> to tensor<4096xf32>
  %dlm = bufferization.to_buffer %dle : tensor<4096xf32> to memref<4096xf32>
  %dlu = memref.cast %dlm : memref<4096xf32> to memref<*xf32>
  %nd = call @nvfp4RtCheckAmax(%dlu, %damax) : (memref<*xf32>, f32) -> i64
  return
}
// CHECK-NOT: mismatches {{[1-9]}}

func.func @main() {
  call @hand_f32() : () -> ()
  call @hand_nan() : () -> ()
  call @hand_negative_zero() : () -> ()
  call @hand_subnormal() : () -> ()
  call @hand_inf() : () -> ()
  call @hand_bf16() : () -> ()
  call @hand_f16() : () -> ()
  call @filled() : () -> ()
  return
}
