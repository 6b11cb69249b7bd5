// A weight brought in as constants (a checkpoint's packed codes, E4M3 block
// scales and decode scale, `nvfp4.assemble` to a `decode` tensor), lowered
// and run: dequantized and multiplied on the CPU (both lowerings) and by
// the GPU kernels in the emulator on every target (the mma.sync kernels of
// sm_120a, sm_121a and sm_90a; the tcgen05 kernels of sm_100a, sm_103a and
// sm_110a, whose K = 16 operands are copy-padded to 32). Hand-checked values, exact in binary:
// - dequantize: e2m1 * (e4m3 * d) with scale 2.0 and d = 0.25, i.e. half
//   the E2M1 value;
// - matmul of a [1, 16] row of ones (scale 1.0, d = 0.5) by [2, 16] rows of
//   ones and of sixes (scale 2.0, d = 0.25): (16 and 96) * (1 * 2) *
//   (0.5 * 0.25) = 4 and 24.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu=kernels=inline \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN: | FileCheck %s
// RUN: for target in %sm120_family sm_90a %sm100_family; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | FileCheck %s || exit 1; \
// RUN: done

// CHECK: [0.25,   0.5,   0.75,   1,   1.5,   2,   3,   -3,   0,   -0.25,   -0.5,   -0.75,   -1,   -1.5,   -2,   -0]
// CHECK: [4,   24]

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %codes = arith.constant dense<[[0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -6.0, 0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -0.0]]> : tensor<1x16xf4E2M1FN>
  %scales = arith.constant dense<2.0> : tensor<1x1xf8E4M3FN>
  %ws2 = arith.constant 0.25 : f32
  %w = nvfp4.assemble %codes, %scales, %ws2 : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16, decode>
  %d = nvfp4.dequantize %w : !nvfp4.tensor<1x16, 1x16, decode> -> tensor<1x16xf32>
  %du = tensor.cast %d : tensor<1x16xf32> to tensor<*xf32>
  call @printMemrefF32(%du) : (tensor<*xf32>) -> ()

  %ac = arith.constant dense<1.0> : tensor<1x16xf4E2M1FN>
  %as = arith.constant dense<1.0> : tensor<1x1xf8E4M3FN>
  %ad = arith.constant 0.5 : f32
  %a = nvfp4.assemble %ac, %as, %ad : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16, decode>
  %bc = arith.constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0]]> : tensor<2x16xf4E2M1FN>
  %bs = arith.constant dense<2.0> : tensor<2x1xf8E4M3FN>
  %bd = arith.constant 0.25 : f32
  %b = nvfp4.assemble %bc, %bs, %bd : tensor<2x16xf4E2M1FN>, tensor<2x1xf8E4M3FN> -> !nvfp4.tensor<2x16, 1x16, decode>
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<1x16, 1x16, decode>, !nvfp4.tensor<2x16, 1x16, decode> -> tensor<1x2xf32>
  %cu = tensor.cast %c : tensor<1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%cu) : (tensor<*xf32>) -> ()
  return
}
