// An MLP with PyTorch's default (exact) GELU, 0.5 x (1 + erf(x / sqrt 2)),
// between its two NVFP4 GEMMs: the GPU pipelines lower the host's
// `math.erf` as the CPU pipeline does (a C-library call), so the program
// runs under GPU emulation and equals the CPU reference lowering bit for bit
// on each target.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for target in sm_120a sm_100a sm_90a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: FileCheck %s --input-file=%t.cpu
//
// The executable pipeline lowers it too, with erff declared for the host.
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_120a format=isa" \
// RUN: | FileCheck %s --check-prefix=EXECUTABLE
// EXECUTABLE: llvm.func @erff(f32) -> f32
// EXECUTABLE-NOT: math.
//
// The result (bits printed as i32) is a 32x32 matrix with nonzero values.
// CHECK: {{^}}{{\[\[}}
// CHECK: {{[1-9]}}

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @gelu(%h: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %e = tensor.empty() : tensor<32x64xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %rsqrt2 = arith.constant 0.707106769 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %a, %rsqrt2 : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %hp = arith.mulf %a, %half : f32
    %g = arith.mulf %hp, %p : f32
    linalg.yield %g : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

func.func @mlp(%x: tensor<32x64xf32>, %w1: tensor<64x64xf32>,
               %w2: tensor<32x64xf32>) -> tensor<32x32xf32> {
  %qw1 = nvfp4.quantize %w1 : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16>
  %qx = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %h = nvfp4.matmul %qx, %qw1 : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x64, 16x16> -> tensor<32x64xf32>
  %a = call @gelu(%h) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %qw2 = nvfp4.quantize %w2 : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %qa = nvfp4.quantize %a : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  %y = nvfp4.matmul %qa, %qw2 : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<32x64, 16x16> -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

func.func @main() {
  %mode = arith.constant 0 : i32
  %xm = memref.alloc() : memref<32x64xf32>
  %xu = memref.cast %xm : memref<32x64xf32> to memref<*xf32>
  %s1 = arith.constant 21 : i64
  call @nvfp4RtFill(%xu, %s1, %mode) : (memref<*xf32>, i64, i32) -> ()
  %w1m = memref.alloc() : memref<64x64xf32>
  %w1u = memref.cast %w1m : memref<64x64xf32> to memref<*xf32>
  %s2 = arith.constant 22 : i64
  call @nvfp4RtFill(%w1u, %s2, %mode) : (memref<*xf32>, i64, i32) -> ()
  %w2m = memref.alloc() : memref<32x64xf32>
  %w2u = memref.cast %w2m : memref<32x64xf32> to memref<*xf32>
  %s3 = arith.constant 23 : i64
  call @nvfp4RtFill(%w2u, %s3, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<32x64xf32> to tensor<32x64xf32>
  %w1 = bufferization.to_tensor %w1m restrict : memref<64x64xf32> to tensor<64x64xf32>
  %w2 = bufferization.to_tensor %w2m restrict : memref<32x64xf32> to tensor<32x64xf32>
  %y = call @mlp(%x, %w1, %w2) : (tensor<32x64xf32>, tensor<64x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  %bits = arith.bitcast %y : tensor<32x32xf32> to tensor<32x32xi32>
  %bm = bufferization.to_buffer %bits : tensor<32x32xi32> to memref<32x32xi32>
  %bu = memref.cast %bm : memref<32x32xi32> to memref<*xi32>
  call @printMemrefI32(%bu) : (memref<*xi32>) -> ()
  return
}
