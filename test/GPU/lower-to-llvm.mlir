// The nvfp4-to-gpu-executable pipeline on a machine without a GPU: a matmul
// lowers to LLVM dialect host code that loads the kernel module, copies the
// packed operands to device memory, launches the kernel, copies the result
// back and frees the device buffers through the mgpu* functions of
// libnvfp4_cuda_runtime, and mlir-translate turns it into LLVM IR.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_90a" | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_120a" \
// RUN: | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVM

// CHECK-NOT: nvfp4.
// CHECK-NOT: bufferization.
// CHECK-NOT: unrealized_conversion_cast
// CHECK-LABEL: llvm.func @matmul
// CHECK: llvm.call @mgpuStreamCreate()
// Five device buffers: A codes (64 x 128 / 2 bytes), A scales, B codes,
// B scales, the 64 x 64 f32 result.
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemAlloc
// CHECK-NOT: llvm.call @mgpuMemcpy
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @nvfp4_kernels::@nvfp4_matmul_m64n64k128
// CHECK-SAME: blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in
// The four operands are freed after their last use, the launch; the result
// after its copy back.
// CHECK-COUNT-4: llvm.call @mgpuMemFree
// CHECK: llvm.call @mgpuMemcpy
// CHECK: llvm.call @mgpuMemFree
// CHECK-NOT: llvm.call @mgpuMem
// CHECK: llvm.call @mgpuStreamSynchronize
// CHECK: llvm.call @mgpuStreamDestroy
// CHECK: gpu.binary @nvfp4_kernels

// LLVM-LABEL: define {{.*}}@matmul(
// LLVM: call ptr @mgpuMemAlloc(i64 4096, ptr %{{.*}}, i8 0)
// LLVM: call void @mgpuMemcpy(ptr %{{.*}}, ptr %{{.*}}, i64 4096, ptr %{{.*}})
// LLVM: call ptr @mgpuMemAlloc(i64 512, ptr %{{.*}}, i8 0)
// LLVM: call ptr @mgpuModuleGetFunction(ptr %{{.*}}, ptr @nvfp4_kernels_nvfp4_matmul_m64n64k128
// LLVM: call void @mgpuLaunchKernel(ptr %{{.*}}, i64 1, i64 1, i64 1, i64 128, i64 1, i64 1, i32 36864,
// LLVM: call void @mgpuMemcpy(ptr %{{.*}}, ptr %{{.*}}, i64 16384, ptr %{{.*}})
// LLVM: call ptr @mgpuModuleLoadJIT(ptr @nvfp4_kernels_binary, i32 3)

// The operands are arguments, so that the test does not depend on where
// nvfp4.quantize is lowered.
func.func @matmul(%qa: !nvfp4.tensor<64x128, 1x16>, %qb: !nvfp4.tensor<64x128, 1x16>) -> tensor<64x64xf32> {
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
