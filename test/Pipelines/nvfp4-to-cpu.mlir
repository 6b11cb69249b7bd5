// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=fake-quant=true | FileCheck %s --check-prefix=FAKE

// The pipeline leaves nothing but the LLVM dialect: functions take memref
// descriptors (identity layouts), the quantization kernel keeps its 16-lane
// vectors, and fake-quant drops the per-block GEMM reduction.
// CHECK-NOT: nvfp4.
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK-LABEL: llvm.func @step
// CHECK: llvm.shufflevector
// CHECK: llvm.store %{{.*}} : vector<16xi8>, !llvm.ptr
// CHECK: llvm.intr.vector.reduce.fadd
// CHECK: llvm.call @free
// CHECK-NOT: {{^ *(func|scf|linalg|tensor|memref|vector|arith|bufferization)\.}}
// FAKE-LABEL: llvm.func @step
// FAKE-NOT: llvm.intr.vector.reduce.fadd
// FAKE: llvm.return
func.func @step(%x: tensor<32x64xf32>, %w: tensor<48x64xf32>, %seed: i64) -> tensor<32x48xbf16> {
  %qx = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %qw = nvfp4.quantize %w rounding rs seed %seed offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %y = nvfp4.matmul %qx, %qw : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xbf16>
  return %y : tensor<32x48xbf16>
}
