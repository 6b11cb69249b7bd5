// RUN: nvfp4-opt %s --convert-nvfp4-to-reference --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-reference="fake-quant=true" --split-input-file | FileCheck %s --check-prefix=FAKE

// MX tensors (kernels=library): two components, codes one per byte and
// E8M0 scales [rows, cols / 32], both i8; no tensor scale. quantize,
// dequantize and matmul call the runtime's nvfp4CpuMx entry points with
// the element type as a code (0 E2M1, 1 E4M3, 2 E5M2).

// CHECK-DAG: func.func private @nvfp4CpuMxQuantize(memref<*xf32>, memref<*xi8>, memref<*xi8>, i32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @nvfp4CpuMxDequantize(memref<*xi8>, memref<*xi8>, i32, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @quantize_dequantize
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x4x64xbf16>) -> (tensor<2x4x64xf32>, tensor<2x4x64xi8>, tensor<2x4x2xi8>)
// CHECK: %[[XF:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x4x64xbf16>)
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[XF]] {{\[\[}}0, 1], [2]] : tensor<2x4x64xf32> into tensor<8x64xf32>
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X2]] read_only
// CHECK: %[[XU:.*]] = memref.cast %[[XB]] : memref<8x64xf32> to memref<*xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<8x64xi8>
// CHECK: %[[CU:.*]] = memref.cast %[[C]]
// CHECK: %[[S:.*]] = memref.alloc() : memref<8x2xi8>
// CHECK: %[[SU:.*]] = memref.cast %[[S]]
// CHECK: %[[E2M1:.*]] = arith.constant 0 : i32
// CHECK: call @nvfp4CpuMxQuantize(%[[XU]], %[[CU]], %[[SU]], %[[E2M1]])
// CHECK: %[[CT:.*]] = bufferization.to_tensor %[[C]] restrict writable
// CHECK: %[[C3:.*]] = tensor.expand_shape %[[CT]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 64]
// CHECK: %[[ST:.*]] = bufferization.to_tensor %[[S]] restrict writable
// CHECK: %[[S3:.*]] = tensor.expand_shape %[[ST]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 2]
// CHECK: %[[C2:.*]] = tensor.collapse_shape %[[C3]]
// CHECK: %[[CB:.*]] = bufferization.to_buffer %[[C2]] read_only
// CHECK: %[[CBU:.*]] = memref.cast %[[CB]]
// CHECK: %[[S2:.*]] = tensor.collapse_shape %[[S3]]
// CHECK: %[[SB:.*]] = bufferization.to_buffer %[[S2]] read_only
// CHECK: %[[SBU:.*]] = memref.cast %[[SB]]
// CHECK: %[[E2M1B:.*]] = arith.constant 0 : i32
// CHECK: %[[D:.*]] = memref.alloc() : memref<8x64xf32>
// CHECK: %[[DU:.*]] = memref.cast %[[D]]
// CHECK: call @nvfp4CpuMxDequantize(%[[CBU]], %[[SBU]], %[[E2M1B]], %[[DU]])
// CHECK: %[[DT:.*]] = bufferization.to_tensor %[[D]] restrict writable
// CHECK: %[[D3:.*]] = tensor.expand_shape %[[DT]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 64]
// CHECK: return %[[D3]], %[[C3]], %[[S3]]
func.func @quantize_dequantize(%x: tensor<2x4x64xbf16>) -> (tensor<2x4x64xf32>, tensor<2x4x64xf4E2M1FN>, tensor<2x4x2xf8E8M0FNU>) {
  %q = nvfp4.quantize %x : tensor<2x4x64xbf16> -> !nvfp4.tensor<2x4x64, 1x32, mxfp4>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<2x4x64, 1x32, mxfp4> -> tensor<2x4x64xf32>
  %c, %s = nvfp4.disassemble %q : !nvfp4.tensor<2x4x64, 1x32, mxfp4>
  return %d, %c, %s : tensor<2x4x64xf32>, tensor<2x4x64xf4E2M1FN>, tensor<2x4x2xf8E8M0FNU>
}

// FAKE-LABEL: func.func @quantize_dequantize
// FAKE: call @nvfp4CpuMxQuantize
// FAKE: call @nvfp4CpuMxDequantize

// -----

// Matmul: each operand's codes and scales as [B, rows, K] views with its
// own element-type code (E4M3 1, E5M2 2), then the accumulator with flag 1
// or, without one, the result buffer with flag 0, then the result.
// CHECK: func.func private @nvfp4CpuMxMatmul(memref<*xi8>, memref<*xi8>, i32, memref<*xi8>, memref<*xi8>, i32, memref<*xf32>, i32, memref<*xf32>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[AC:[^:]*]]: tensor<2x8x64xi8>, %[[AS:[^:]*]]: tensor<2x8x2xi8>, %[[BC:[^:]*]]: tensor<2x16x64xi8>, %[[BS:[^:]*]]: tensor<2x16x2xi8>, %[[ACC:[^:]*]]: tensor<2x8x16xf32>)
// CHECK: %[[AB:.*]] = bufferization.to_buffer %[[AC]] read_only
// CHECK: %[[ABU:.*]] = memref.cast %[[AB]] : memref<2x8x64xi8> to memref<*xi8>
// CHECK: %[[ASB:.*]] = bufferization.to_buffer %[[AS]] read_only
// CHECK: %[[ASU:.*]] = memref.cast %[[ASB]] : memref<2x8x2xi8> to memref<*xi8>
// CHECK: %[[E4M3:.*]] = arith.constant 1 : i32
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[BC]] read_only
// CHECK: %[[BBU:.*]] = memref.cast %[[BB]] : memref<2x16x64xi8> to memref<*xi8>
// CHECK: %[[BSB:.*]] = bufferization.to_buffer %[[BS]] read_only
// CHECK: %[[BSU:.*]] = memref.cast %[[BSB]] : memref<2x16x2xi8> to memref<*xi8>
// CHECK: %[[E5M2:.*]] = arith.constant 2 : i32
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<2x8x16xf32>
// CHECK: %[[ACCB:.*]] = bufferization.to_buffer %[[ACC]] read_only
// CHECK: %[[ACCU:.*]] = memref.cast %[[ACCB]]
// CHECK: %[[HASACC:.*]] = arith.constant 1 : i32
// CHECK: %[[OUTU:.*]] = memref.cast %[[OUT]]
// CHECK: call @nvfp4CpuMxMatmul(%[[ABU]], %[[ASU]], %[[E4M3]], %[[BBU]], %[[BSU]], %[[E5M2]], %[[ACCU]], %[[HASACC]], %[[OUTU]])
// CHECK: %[[Y:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// Without an accumulator, a bf16 result.
// CHECK: %[[OUT2:.*]] = memref.alloc() : memref<2x8x16xf32>
// CHECK: %[[STANDIN:.*]] = memref.cast %[[OUT2]]
// CHECK: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK: %[[OUT2U:.*]] = memref.cast %[[OUT2]]
// CHECK: call @nvfp4CpuMxMatmul(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[STANDIN]], %[[NOACC]], %[[OUT2U]])
// CHECK: %[[Z:.*]] = bufferization.to_tensor %[[OUT2]] restrict writable
// CHECK: %[[ZB:.*]] = linalg.generic {{.*}} ins(%[[Z]] : tensor<2x8x16xf32>)
// CHECK: arith.truncf
// CHECK: return %[[Y]], %[[ZB]]
func.func @matmul(%ac: tensor<2x8x64xi8>, %as: tensor<2x8x2xi8>, %bc: tensor<2x16x64xi8>, %bs: tensor<2x16x2xi8>, %acc: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xbf16>) {
  %acf = arith.bitcast %ac : tensor<2x8x64xi8> to tensor<2x8x64xf8E4M3FN>
  %asf = arith.bitcast %as : tensor<2x8x2xi8> to tensor<2x8x2xf8E8M0FNU>
  %a = nvfp4.assemble %acf, %asf : tensor<2x8x64xf8E4M3FN>, tensor<2x8x2xf8E8M0FNU> -> !nvfp4.tensor<2x8x64, 1x32, mxfp8_e4m3>
  %bcf = arith.bitcast %bc : tensor<2x16x64xi8> to tensor<2x16x64xf8E5M2>
  %bsf = arith.bitcast %bs : tensor<2x16x2xi8> to tensor<2x16x2xf8E8M0FNU>
  %b = nvfp4.assemble %bcf, %bsf : tensor<2x16x64xf8E5M2>, tensor<2x16x2xf8E8M0FNU> -> !nvfp4.tensor<2x16x64, 1x32, mxfp8_e5m2>
  %y = nvfp4.matmul %a, %b acc(%acc : tensor<2x8x16xf32>) : !nvfp4.tensor<2x8x64, 1x32, mxfp8_e4m3>, !nvfp4.tensor<2x16x64, 1x32, mxfp8_e5m2> -> tensor<2x8x16xf32>
  %z = nvfp4.matmul %a, %b : !nvfp4.tensor<2x8x64, 1x32, mxfp8_e4m3>, !nvfp4.tensor<2x16x64, 1x32, mxfp8_e5m2> -> tensor<2x8x16xbf16>
  return %y, %z : tensor<2x8x16xf32>, tensor<2x8x16xbf16>
}

// fake-quant: both operands dequantized by nvfp4CpuMxDequantize with their
// element-type codes, then an f32 contraction.
// FAKE-LABEL: func.func @matmul
// FAKE: %[[E4M3:.*]] = arith.constant 1 : i32
// FAKE: call @nvfp4CpuMxDequantize(%{{.*}}, %{{.*}}, %[[E4M3]], %{{.*}})
// FAKE: %[[E5M2:.*]] = arith.constant 2 : i32
// FAKE: call @nvfp4CpuMxDequantize(%{{.*}}, %{{.*}}, %[[E5M2]], %{{.*}})
// FAKE: linalg.generic
// FAKE: arith.mulf
// FAKE: arith.addf
// FAKE-NOT: nvfp4CpuMxMatmul
