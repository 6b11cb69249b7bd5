// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" 2>&1 | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" | FileCheck %s --check-prefix=IR

// The kernels are built for static shapes: every nvfp4 op with a run-time
// size is left for the host, and so is the quantization of a static weight
// that such a matmul reads (through its transpose), with a fallback remark
// each; a static chain beside them gets its kernels.

// CHECK: remark: nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for run-time sizes
// CHECK-NEXT: %qx = nvfp4.quantize %x
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %qw = nvfp4.quantize %w
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %qwt = nvfp4.transpose
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %y = nvfp4.matmul
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %d = nvfp4.dequantize
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %h = nvfp4.hadamard
// CHECK: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// CHECK-NEXT: %a = nvfp4.amax
// CHECK-NOT: no kernel for run-time sizes

// IR-LABEL: func.func @run_time
// IR-NOT: gpu.launch_func
// IR: nvfp4.quantize %arg0 : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
// IR: nvfp4.quantize %arg1 : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
// IR: nvfp4.transpose
// IR: nvfp4.matmul
// IR: nvfp4.dequantize
// IR: nvfp4.hadamard
// IR: nvfp4.amax
// IR-NOT: gpu.launch_func
// IR-LABEL: func.func @static
// IR-COUNT-2: gpu.launch_func
func.func @run_time(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>)
    -> (tensor<?x32xf32>, tensor<?x64xf32>, tensor<?x64xf32>, f32) {
  %qx = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
  %qwt = nvfp4.transpose %qw : !nvfp4.tensor<64x32, 16x16> -> !nvfp4.tensor<32x64, 16x16>
  %y = nvfp4.matmul %qx, %qwt : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<32x64, 16x16> -> tensor<?x32xf32>
  %d = nvfp4.dequantize %qx : !nvfp4.tensor<?x64, 1x16> -> tensor<?x64xf32>
  %h = nvfp4.hadamard %x : tensor<?x64xf32>
  %a = nvfp4.amax %x : tensor<?x64xf32>
  return %y, %d, %h, %a : tensor<?x32xf32>, tensor<?x64xf32>, tensor<?x64xf32>, f32
}

func.func @static(%x: tensor<32x64xf32>) -> !nvfp4.tensor<32x64, 1x16> {
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  return %q : !nvfp4.tensor<32x64, 1x16>
}
