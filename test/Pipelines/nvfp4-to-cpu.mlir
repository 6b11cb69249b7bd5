// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=fake-quant=true | FileCheck %s --check-prefix=FAKE
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline | FileCheck %s --check-prefix=INLINE
// RUN: nvfp4-opt %s --nvfp4-to-cpu="kernels=inline fake-quant=true" | FileCheck %s --check-prefix=INLINE-FAKE

// The pipeline leaves nothing but the LLVM dialect: functions take memref
// descriptors (identity layouts).
//
// kernels=library (the default): each nvfp4 op is one call of the CPU
// runtime through the C-interface wrapper (descriptors passed by pointer),
// on the buffers of the operands, no copies; the results are malloc'ed and
// freed after their last use.
// CHECK-NOT: nvfp4.
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK: llvm.func private @nvfp4CpuMatmul(
// CHECK: llvm.call @_mlir_ciface_nvfp4CpuMatmul(
// CHECK: llvm.func @_mlir_ciface_nvfp4CpuMatmul(!llvm.ptr, !llvm.ptr, f32, i32, i64, !llvm.ptr, !llvm.ptr, f32, i32, i64, !llvm.ptr, i32, !llvm.ptr)
// CHECK: llvm.func private @nvfp4CpuQuantize(
// CHECK: llvm.call @_mlir_ciface_nvfp4CpuQuantize(
// CHECK: llvm.func @_mlir_ciface_nvfp4CpuQuantize(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i32, i64, i64, i32, i32, i32, f32) -> f32
// CHECK-LABEL: llvm.func @step
// CHECK-SAME: (%[[XALLOC:[^:]*]]: !llvm.ptr, %[[XALIGNED:[^:]*]]: !llvm.ptr,
// CHECK-SAME: %[[SEED:[^:]*]]: i64) ->
// CHECK-NOT: llvm.intr.vector.reduce.fadd
// CHECK: %[[XAMAX:.*]] = llvm.call @nvfp4CpuQuantize({{.*}}) :
// CHECK: %[[WAMAX:.*]] = llvm.call @nvfp4CpuQuantize({{.*}}, %[[SEED]], {{.*}}) :
// CHECK: llvm.call @nvfp4CpuMatmul({{[^)]*}}, %[[XAMAX]], {{[^)]*}}, %[[WAMAX]], {{.*}}) :
// CHECK-NOT: llvm.intr.vector.reduce.fadd
// CHECK: llvm.call @free
// CHECK-NOT: {{^ *(func|scf|linalg|tensor|memref|vector|arith|bufferization)\.}}
// With fake-quant the GEMM is two dequantize calls and an f32 loop nest.
// FAKE-LABEL: llvm.func @step
// FAKE-NOT: nvfp4CpuMatmul
// FAKE: llvm.call @nvfp4CpuDequantize
// FAKE: llvm.call @nvfp4CpuDequantize
// FAKE-NOT: nvfp4CpuMatmul
// FAKE: llvm.return
//
// kernels=inline: no calls; the quantization kernel keeps its 16-lane
// vectors, and fake-quant drops the per-block GEMM reduction.
// INLINE-NOT: nvfp4.
// INLINE-NOT: nvfp4Cpu
// INLINE-NOT: builtin.unrealized_conversion_cast
// INLINE-LABEL: llvm.func @step
// INLINE: llvm.shufflevector
// INLINE: llvm.store %{{.*}} : vector<16xi8>, !llvm.ptr
// INLINE: llvm.intr.vector.reduce.fadd
// INLINE: llvm.call @free
// INLINE-NOT: {{^ *(func|scf|linalg|tensor|memref|vector|arith|bufferization)\.}}
// INLINE-NOT: nvfp4Cpu
// INLINE-FAKE-LABEL: llvm.func @step
// INLINE-FAKE-NOT: llvm.intr.vector.reduce.fadd
// INLINE-FAKE: llvm.return
func.func @step(%x: tensor<32x64xf32>, %w: tensor<48x64xf32>, %seed: i64) -> tensor<32x48xbf16> {
  %qx = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %qw = nvfp4.quantize %w rounding rs seed %seed offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %y = nvfp4.matmul %qx, %qw : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xbf16>
  return %y : tensor<32x48xbf16>
}
