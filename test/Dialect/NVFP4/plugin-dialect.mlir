// Stock mlir-opt loads the dialect from the plugin, round-trips it and runs
// its canonicalization patterns.
// RUN: mlir-opt %s --load-dialect-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext --canonicalize | FileCheck %s

// CHECK-LABEL: func @f
// CHECK-SAME: (%[[Q:.*]]: !nvfp4.tensor<32x64, 16x16>)
// CHECK: %[[T:.*]] = nvfp4.transpose %[[Q]] : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
// CHECK: nvfp4.dequantize %[[T]]
func.func @f(%q: !nvfp4.tensor<32x64, 16x16>) -> tensor<64x32xf32> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 16x16> -> tensor<32x64xf32>
  %r = nvfp4.quantize %d : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %t = nvfp4.transpose %r : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  %e = nvfp4.dequantize %t : !nvfp4.tensor<64x32, 16x16> -> tensor<64x32xf32>
  return %e : tensor<64x32xf32>
}
