// libnvfp4_cuda_runtime loaded by mlir-runner on a program lowered with
// nvfp4-to-gpu-executable, with the toolkit's stub libcuda in place of the
// driver (as on a machine without a GPU): every mgpu* symbol the program
// calls resolves, and the first driver call, the kernel module load in the
// global constructor, is reported with the entry point, the driver call and
// the error name, and ends the process with status 1 instead of crashing.
//
// REQUIRES: nvfp4-cuda-runtime, cuda-stub
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: ln -s %cuda_stub_lib %t.dir/libcuda.so.1
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_90a" -o %t.mlir
// RUN: env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.mlir -e main \
// RUN:   -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils \
// RUN:   2>&1 | FileCheck %s
// CHECK: nvfp4-cuda-runtime: mgpuModuleLoadJIT: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY
// CHECK-NOT: PLEASE submit a bug report

func.func @main() {
  %codes = arith.constant dense<2> : tensor<64x64xi4>
  %d = arith.bitcast %codes : tensor<64x64xi4> to tensor<64x64xf4E2M1FN>
  %scales = arith.constant dense<56> : tensor<64x4xi8>
  %s = arith.bitcast %scales : tensor<64x4xi8> to tensor<64x4xf8E4M3FN>
  %g = arith.constant 1.0 : f32
  %qa = nvfp4.assemble %d, %s, %g : tensor<64x64xf4E2M1FN>, tensor<64x4xf8E4M3FN> -> !nvfp4.tensor<64x64, 1x16>
  %y = nvfp4.matmul %qa, %qa : !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %y[%c0, %c0] : tensor<64x64xf32>
  vector.print %e : f32
  return
}
