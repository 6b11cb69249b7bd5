// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" --verify-diagnostics | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" --verify-diagnostics | FileCheck %s

// MX quantizations and dequantizations have no GPU kernel: they stay on
// the host (nvfp4-to-gpu-executable lowers them through the reference
// lowering, which calls the reference library), with a fallback remark;
// the MXFP4 matmul between them is a kernel (mma.sync on sm_120a, tcgen05
// on sm_100a).

// CHECK-LABEL: func.func @mx
// CHECK: %[[QA:.*]] = nvfp4.quantize %arg0 : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x32, mxfp4>
// CHECK: %[[QB:.*]] = nvfp4.quantize %arg1 : tensor<32x128xf32> -> !nvfp4.tensor<32x128, 1x32, mxfp4>
// CHECK: nvfp4.disassemble %[[QA]]
// CHECK: nvfp4.disassemble %[[QB]]
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_{{(tcgen05_)?}}matmul_m64n32k128_{{(t64_)?}}mxfp4_mxfp4_f32
// CHECK: nvfp4.dequantize %[[QB]] : !nvfp4.tensor<32x128, 1x32, mxfp4> -> tensor<32x128xf32>
func.func @mx(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> (tensor<64x32xf32>, tensor<32x128xf32>) {
  // expected-remark @below {{nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for MX quantization}}
  %qa = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x32, mxfp4>
  // expected-remark @below {{nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for MX quantization}}
  %qb = nvfp4.quantize %w : tensor<32x128xf32> -> !nvfp4.tensor<32x128, 1x32, mxfp4>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x128, 1x32, mxfp4>, !nvfp4.tensor<32x128, 1x32, mxfp4> -> tensor<64x32xf32>
  // expected-remark @below {{nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for MX dequantization}}
  %d = nvfp4.dequantize %qb : !nvfp4.tensor<32x128, 1x32, mxfp4> -> tensor<32x128xf32>
  return %y, %d : tensor<64x32xf32>, tensor<32x128xf32>
}

