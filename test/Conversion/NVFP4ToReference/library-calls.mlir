// RUN: nvfp4-opt %s --convert-nvfp4-to-reference --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-reference="kernels=library fake-quant=true" --split-input-file | FileCheck %s --check-prefix=FAKE

// kernels=library (the default): every nvfp4 op with numerics becomes one
// call of libnvfp4_cpu_runtime. Tensor operands are passed as their buffers
// (to_buffer read_only, cast to unranked), results are fresh allocations the
// call writes, turned back into tensors by to_tensor restrict writable.

// Quantize: the input widened to f32 and viewed as [rows, cols]; the
// options become scalar arguments (block rows, rounding, seed, offset, RHT
// flag and sign mask, given-amax flag and amax), the codes and scales are
// reshaped back, and the call's result is the amax.
// The runtime function is declared once per module, private.
// CHECK: func.func private @nvfp4CpuQuantize(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32, i64, i64, i32, i32, i32, f32) -> f32 attributes {llvm.emit_c_interface}
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @quantize
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x32x64xbf16>, %[[W:[^:]*]]: tensor<32x64xf32>, %[[SEED:[^:]*]]: i64, %[[AMAX:[^:]*]]: f32)
// CHECK: %[[XF:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x32x64xbf16>)
// CHECK: arith.extf
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[XF]] {{\[\[}}0, 1], [2]] : tensor<2x32x64xf32> into tensor<64x64xf32>
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X2]] read_only : tensor<64x64xf32> to memref<64x64xf32>
// CHECK: %[[XU:.*]] = memref.cast %[[XB]] : memref<64x64xf32> to memref<*xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<64x64xi8>
// CHECK: %[[CU:.*]] = memref.cast %[[C]] : memref<64x64xi8> to memref<*xi8>
// CHECK: %[[S:.*]] = memref.alloc() : memref<64x4xi8>
// CHECK: %[[SU:.*]] = memref.cast %[[S]] : memref<64x4xi8> to memref<*xi8>
// CHECK: %[[R1:.*]] = arith.constant 1 : i64
// CHECK: %[[RN:.*]] = arith.constant 0 : i32
// CHECK: %[[NOSEED:.*]] = arith.constant 0 : i64
// CHECK: %[[OFF0:.*]] = arith.constant 0 : i64
// CHECK: %[[NORHT:.*]] = arith.constant 0 : i32
// CHECK: %[[NOSIGNS:.*]] = arith.constant 0 : i32
// CHECK: %[[NOAMAX:.*]] = arith.constant 0 : i32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[XAMAX:.*]] = call @nvfp4CpuQuantize(%[[XU]], %[[CU]], %[[SU]], %[[R1]], %[[RN]], %[[NOSEED]], %[[OFF0]], %[[NORHT]], %[[NOSIGNS]], %[[NOAMAX]], %[[ZERO]])
// CHECK: %[[CT:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<64x64xi8> to tensor<64x64xi8>
// CHECK: %[[C3:.*]] = tensor.expand_shape %[[CT]] {{\[\[}}0, 1], [2]] output_shape [2, 32, 64]
// CHECK: %[[ST:.*]] = bufferization.to_tensor %[[S]] restrict writable : memref<64x4xi8> to tensor<64x4xi8>
// CHECK: %[[S3:.*]] = tensor.expand_shape %[[ST]] {{\[\[}}0, 1], [2]] output_shape [2, 32, 4]
// 16x16 weights, stochastic rounding with a seed operand, an offset, the RHT
// with its sign mask (bit i: sign i is -1) and a given amax.
// CHECK: %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<32x64xf32> to memref<32x64xf32>
// CHECK: %[[WU:.*]] = memref.cast %[[WB]]
// CHECK: %[[WC:.*]] = memref.alloc() : memref<32x64xi8>
// CHECK: %[[WCU:.*]] = memref.cast %[[WC]]
// CHECK: %[[WS:.*]] = memref.alloc() : memref<2x4xi8>
// CHECK: %[[WSU:.*]] = memref.cast %[[WS]]
// CHECK: %[[R16:.*]] = arith.constant 16 : i64
// CHECK: %[[RS:.*]] = arith.constant 1 : i32
// CHECK: %[[OFF7:.*]] = arith.constant 7 : i64
// CHECK: %[[RHT:.*]] = arith.constant 1 : i32
// CHECK: %[[SIGNS:.*]] = arith.constant 55272 : i32
// CHECK: %[[HASAMAX:.*]] = arith.constant 1 : i32
// CHECK: %[[WAMAX:.*]] = call @nvfp4CpuQuantize(%[[WU]], %[[WCU]], %[[WSU]], %[[R16]], %[[RS]], %[[SEED]], %[[OFF7]], %[[RHT]], %[[SIGNS]], %[[HASAMAX]], %[[AMAX]])
// CHECK: %[[WCT:.*]] = bufferization.to_tensor %[[WC]] restrict writable
// CHECK: %[[WST:.*]] = bufferization.to_tensor %[[WS]] restrict writable
// CHECK: return %[[C3]], %[[S3]], %[[XAMAX]], %[[WCT]], %[[WST]], %[[WAMAX]]
func.func @quantize(%x: tensor<2x32x64xbf16>, %w: tensor<32x64xf32>, %seed: i64, %amax: f32) -> (!nvfp4.tensor<2x32x64, 1x16>, !nvfp4.tensor<32x64, 16x16>) {
  %qx = nvfp4.quantize %x : tensor<2x32x64xbf16> -> !nvfp4.tensor<2x32x64, 1x16>
  %qw = nvfp4.quantize %w amax %amax rounding rs seed %seed offset 7 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  return %qx, %qw : !nvfp4.tensor<2x32x64, 1x16>, !nvfp4.tensor<32x64, 16x16>
}

// -----

// Dequantize to f32 by the call, then rounded to bf16 (as the inline
// lowering); amax and hadamard of f16 through f32; rescale is a dequantize
// call feeding a quantize call with the result's block rows and rounding.
// CHECK-LABEL: func.func @ops
// CHECK-SAME: (%[[D:[^:]*]]: tensor<32x64xi8>, %[[S:[^:]*]]: tensor<2x4xi8>, %[[G:[^:]*]]: f32, %[[X:[^:]*]]: tensor<4x32xf16>, %[[SEED:[^:]*]]: i64)
// CHECK: %[[DB:.*]] = bufferization.to_buffer %[[D]] read_only
// CHECK: %[[DU:.*]] = memref.cast %[[DB]]
// CHECK: %[[SB:.*]] = bufferization.to_buffer %[[S]] read_only
// CHECK: %[[SU:.*]] = memref.cast %[[SB]]
// CHECK: %[[AMAXKIND:.*]] = arith.constant 0 : i32
// CHECK: %[[R16:.*]] = arith.constant 16 : i64
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: %[[OUTU:.*]] = memref.cast %[[OUT]]
// CHECK: call @nvfp4CpuDequantize(%[[DU]], %[[SU]], %[[G]], %[[AMAXKIND]], %[[R16]], %[[OUTU]])
// CHECK: %[[Y32:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[Y32]] : tensor<32x64xf32>) outs({{.*}} : tensor<32x64xbf16>)
// CHECK: arith.truncf
// CHECK: %[[XF:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x32xf16>)
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[XF]] read_only : tensor<4x32xf32>
// CHECK: %[[XU:.*]] = memref.cast %[[XB]]
// CHECK: %[[A:.*]] = call @nvfp4CpuAmax(%[[XU]]) : (memref<*xf32>) -> f32
// CHECK: %[[HF:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x32xf16>)
// CHECK: %[[HB:.*]] = bufferization.to_buffer %[[HF]] read_only
// CHECK: %[[HU:.*]] = memref.cast %[[HB]]
// CHECK: %[[HO:.*]] = memref.alloc() : memref<4x32xf32>
// CHECK: %[[HOU:.*]] = memref.cast %[[HO]]
// CHECK: %[[DEFAULT:.*]] = arith.constant 55272 : i32
// CHECK: call @nvfp4CpuHadamard(%[[HU]], %[[HOU]], %[[DEFAULT]])
// CHECK: %[[H32:.*]] = bufferization.to_tensor %[[HO]] restrict writable
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[H32]] : tensor<4x32xf32>) outs({{.*}} : tensor<4x32xf16>)
// CHECK: call @nvfp4CpuDequantize
// CHECK: %[[RD:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<32x64xf32>
// CHECK: %[[RDB:.*]] = bufferization.to_buffer %[[RD]] read_only
// CHECK: %[[RDU:.*]] = memref.cast %[[RDB]]
// CHECK: %[[RC:.*]] = memref.alloc() : memref<32x64xi8>
// CHECK: %[[RCU:.*]] = memref.cast %[[RC]]
// CHECK: %[[RS:.*]] = memref.alloc() : memref<32x4xi8>
// CHECK: %[[RSU:.*]] = memref.cast %[[RS]]
// CHECK: %[[R1:.*]] = arith.constant 1 : i64
// CHECK: %[[SR:.*]] = arith.constant 1 : i32
// CHECK: %[[OFF3:.*]] = arith.constant 3 : i64
// CHECK: %[[RAMAX:.*]] = call @nvfp4CpuQuantize(%[[RDU]], %[[RCU]], %[[RSU]], %[[R1]], %[[SR]], %[[SEED]], %[[OFF3]],
// CHECK: %[[RCT:.*]] = bufferization.to_tensor %[[RC]]
// CHECK: %[[RST:.*]] = bufferization.to_tensor %[[RS]]
// CHECK: return %[[Y]], %[[A]], %[[H]], %[[RCT]], %[[RST]], %[[RAMAX]]
func.func @ops(%q: !nvfp4.tensor<32x64, 16x16>, %x: tensor<4x32xf16>, %seed: i64) -> (tensor<32x64xbf16>, f32, tensor<4x32xf16>, !nvfp4.tensor<32x64, 1x16>) {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 16x16> -> tensor<32x64xbf16>
  %a = nvfp4.amax %x : tensor<4x32xf16>
  %h = nvfp4.hadamard %x : tensor<4x32xf16>
  %r = nvfp4.rescale %q rounding rs seed %seed offset 3 : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<32x64, 1x16>
  return %y, %a, %h, %r : tensor<32x64xbf16>, f32, tensor<4x32xf16>, !nvfp4.tensor<32x64, 1x16>
}

// -----

// Matmul on [batch, rows, K] views: operand A's codes, scales, tensor
// scale, its kind (0: an amax) and block rows, then B's (kind 1: a decode
// scale), then acc (widened to f32) with hasAcc = 1, then the f32 result
// buffer; without acc the result buffer stands in for acc with hasAcc = 0.
// A rank-2 matmul gets a unit batch that is dropped again.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[AD:[^:]*]]: tensor<2x32x64xi8>, %[[AS:[^:]*]]: tensor<2x32x4xi8>, %[[AG:[^:]*]]: f32, %[[BD:[^:]*]]: tensor<2x48x64xi8>, %[[BS:[^:]*]]: tensor<2x3x4xi8>, %[[BG:[^:]*]]: f32, %[[ACC:[^:]*]]: tensor<2x32x48xbf16>, %[[CD:[^:]*]]: tensor<32x64xi8>
// CHECK: %[[ACCF:.*]] = linalg.generic {{.*}} ins(%[[ACC]] : tensor<2x32x48xbf16>)
// CHECK: %[[ADB:.*]] = bufferization.to_buffer %[[AD]] read_only
// CHECK: %[[ADU:.*]] = memref.cast %[[ADB]]
// CHECK: %[[ASB:.*]] = bufferization.to_buffer %[[AS]] read_only
// CHECK: %[[ASU:.*]] = memref.cast %[[ASB]]
// CHECK: %[[AK:.*]] = arith.constant 0 : i32
// CHECK: %[[RA:.*]] = arith.constant 1 : i64
// CHECK: %[[BDB:.*]] = bufferization.to_buffer %[[BD]] read_only
// CHECK: %[[BDU:.*]] = memref.cast %[[BDB]]
// CHECK: %[[BSB:.*]] = bufferization.to_buffer %[[BS]] read_only
// CHECK: %[[BSU:.*]] = memref.cast %[[BSB]]
// CHECK: %[[BK:.*]] = arith.constant 1 : i32
// CHECK: %[[RB:.*]] = arith.constant 16 : i64
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x32x48xf32>
// CHECK: %[[ACCB:.*]] = bufferization.to_buffer %[[ACCF]] read_only
// CHECK: %[[ACCU:.*]] = memref.cast %[[ACCB]]
// CHECK: %[[HASACC:.*]] = arith.constant 1 : i32
// CHECK: %[[OUTU:.*]] = memref.cast %[[OUT]]
// CHECK: call @nvfp4CpuMatmul(%[[ADU]], %[[ASU]], %[[AG]], %[[AK]], %[[RA]], %[[BDU]], %[[BSU]], %[[BG]], %[[BK]], %[[RB]], %[[ACCU]], %[[HASACC]], %[[OUTU]])
// CHECK: %[[Y32:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x32x48xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[Y32]] : tensor<2x32x48xf32>) outs({{.*}} : tensor<2x32x48xbf16>)
// CHECK: tensor.expand_shape %[[CD]] {{\[\[}}0, 1], [2]] output_shape [1, 32, 64]
// CHECK: %[[OUT2:.*]] = memref.alloc() : memref<1x32x48xf32>
// CHECK: %[[OUT2U:.*]] = memref.cast %[[OUT2]]
// CHECK: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK: %[[OUT2V:.*]] = memref.cast %[[OUT2]]
// CHECK: call @nvfp4CpuMatmul({{.*}}, %[[OUT2U]], %[[NOACC]], %[[OUT2V]])
// CHECK: %[[Z3:.*]] = bufferization.to_tensor %[[OUT2]] restrict writable
// CHECK: %[[Z:.*]] = tensor.collapse_shape %[[Z3]] {{\[\[}}0, 1], [2]] : tensor<1x32x48xf32> into tensor<32x48xf32>
// CHECK: return %[[Y]], %[[Z]]
// With fake-quant both operands are dequantized by calls and contracted by
// an f32 linalg.generic; no matmul call.
// FAKE-LABEL: func.func @matmul
// FAKE-NOT: nvfp4CpuMatmul
// FAKE: %[[FAK:.*]] = arith.constant 0 : i32
// FAKE: call @nvfp4CpuDequantize({{[^,]*}}, {{[^,]*}}, {{[^,]*}}, %[[FAK]],
// FAKE: %[[DA2:.*]] = bufferization.to_tensor {{.*}} : memref<64x64xf32>
// FAKE: %[[DA:.*]] = tensor.expand_shape %[[DA2]] {{.*}} into tensor<2x32x64xf32>
// FAKE: %[[FBK:.*]] = arith.constant 1 : i32
// FAKE: call @nvfp4CpuDequantize({{[^,]*}}, {{[^,]*}}, {{[^,]*}}, %[[FBK]],
// FAKE: %[[DB2:.*]] = bufferization.to_tensor {{.*}} : memref<96x64xf32>
// FAKE: %[[DB:.*]] = tensor.expand_shape %[[DB2]] {{.*}} into tensor<2x48x64xf32>
// FAKE: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[DA]], %[[DB]] : tensor<2x32x64xf32>, tensor<2x48x64xf32>)
// FAKE: arith.mulf
// FAKE: arith.addf
// FAKE-NOT: nvfp4CpuMatmul
func.func @matmul(%a: !nvfp4.tensor<2x32x64, 1x16>, %b: !nvfp4.tensor<2x48x64, 16x16, decode>, %acc: tensor<2x32x48xbf16>, %c: !nvfp4.tensor<32x64, 1x16>, %d: !nvfp4.tensor<48x64, 16x16>) -> (tensor<2x32x48xbf16>, tensor<32x48xf32>) {
  %y = nvfp4.matmul %a, %b acc(%acc : tensor<2x32x48xbf16>) : !nvfp4.tensor<2x32x64, 1x16>, !nvfp4.tensor<2x48x64, 16x16, decode> -> tensor<2x32x48xbf16>
  %z = nvfp4.matmul %c, %d : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xf32>
  return %y, %z : tensor<2x32x48xbf16>, tensor<32x48xf32>
}

// -----

// Transpose: one call on [batch, rows, cols] views, the codes and the
// compact tile scales transposed into fresh buffers, the amax passed through.
// CHECK: func.func private @nvfp4CpuTranspose(memref<*xi8>, memref<*xi8>, memref<*xi8>, memref<*xi8>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xi8>, %[[S:.*]]: tensor<2x4xi8>, %[[G:.*]]: f32)
// CHECK-NOT: linalg.transpose
// CHECK: %[[D3:.*]] = tensor.expand_shape %[[D]] {{\[}}[0, 1], [2]] output_shape [1, 32, 64]
// CHECK: %[[DB:.*]] = bufferization.to_buffer %[[D3]] read_only
// CHECK: %[[DU:.*]] = memref.cast %[[DB]] : memref<1x32x64xi8> to memref<*xi8>
// CHECK: %[[S3:.*]] = tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]] output_shape [1, 2, 4]
// CHECK: %[[SB:.*]] = bufferization.to_buffer %[[S3]] read_only
// CHECK: %[[SU:.*]] = memref.cast %[[SB]] : memref<1x2x4xi8> to memref<*xi8>
// CHECK: %[[OD:.*]] = memref.alloc() : memref<1x64x32xi8>
// CHECK: %[[ODU:.*]] = memref.cast %[[OD]]
// CHECK: %[[OS:.*]] = memref.alloc() : memref<1x4x2xi8>
// CHECK: %[[OSU:.*]] = memref.cast %[[OS]]
// CHECK: call @nvfp4CpuTranspose(%[[DU]], %[[SU]], %[[ODU]], %[[OSU]])
// CHECK: %[[TD:.*]] = bufferization.to_tensor %[[OD]] restrict writable
// CHECK: %[[RD:.*]] = tensor.collapse_shape %[[TD]] {{\[}}[0, 1], [2]] : tensor<1x64x32xi8> into tensor<64x32xi8>
// CHECK: %[[TS:.*]] = bufferization.to_tensor %[[OS]] restrict writable
// CHECK: %[[RS:.*]] = tensor.collapse_shape %[[TS]] {{\[}}[0, 1], [2]] : tensor<1x4x2xi8> into tensor<4x2xi8>
// CHECK: return %[[RD]], %[[RS]], %[[G]]
func.func @transpose(%q: !nvfp4.tensor<32x64, 16x16>) -> !nvfp4.tensor<64x32, 16x16> {
  %t = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  return %t : !nvfp4.tensor<64x32, 16x16>
}

// Rank 4: the dimensions before the last two collapse into the batch.
// CHECK-LABEL: func.func @transpose_rank4
// CHECK-SAME: (%[[D:.*]]: tensor<2x3x16x48xi8>, %[[S:.*]]: tensor<2x3x1x3xi8>, %[[G:.*]]: f32)
// CHECK: tensor.collapse_shape %[[D]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x16x48xi8> into tensor<6x16x48xi8>
// CHECK: tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x1x3xi8> into tensor<6x1x3xi8>
// CHECK: memref.alloc() : memref<6x48x16xi8>
// CHECK: memref.alloc() : memref<6x3x1xi8>
// CHECK: call @nvfp4CpuTranspose
// CHECK: %[[RD:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 48, 16] : tensor<6x48x16xi8> into tensor<2x3x48x16xi8>
// CHECK: %[[RS:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 3, 1] : tensor<6x3x1xi8> into tensor<2x3x3x1xi8>
// CHECK: return %[[RD]], %[[RS]], %[[G]]
func.func @transpose_rank4(%q: !nvfp4.tensor<2x3x16x48, 16x16>) -> !nvfp4.tensor<2x3x48x16, 16x16> {
  %t = nvfp4.transpose %q : !nvfp4.tensor<2x3x16x48, 16x16> -> !nvfp4.tensor<2x3x48x16, 16x16>
  return %t : !nvfp4.tensor<2x3x48x16, 16x16>
}
