// IREE input-phase output with dynamic axes: the MLP of
// onnx-mlp-iree-input.mlir with a [batch, seq, 64] input whose batch and
// sequence are dynamic (Inputs/onnx-mlp-dynamic-iree-input.mlir,
// utils/third-party/gen_iree_input.py). The entry point reads the run-time
// sizes off its buffer view (`hal.buffer_view.dim`) for the import and for
// the program; nvfp4-import-iree-input makes them `tensor.dim` of the new
// tensor argument. The recipe then takes both contractions (batched, the
// weight broadcast over the batch) to FP4, and the CPU lowering and the GPU
// pipelines (the ops of run-time sizes left for the host) take the result.
//
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/onnx-mlp-dynamic-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input | FileCheck %s
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/onnx-mlp-dynamic-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input --nvfp4-recipe="mode=inference summary" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-gpu-executable="target=sm_100a format=isa" \
// RUN:   | FileCheck %s --check-prefix=CPU
//
// The dynamic model on 1 x 16 tokens computes what the static model of
// onnx-mlp-iree-input.mlir (the same weights, [16, 64]) computes, bit for
// bit, on the CPU and under GPU emulation (where the static model's GEMMs
// are kernels and the dynamic model's run on the host).
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/onnx-mlp-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input --nvfp4-recipe="mode=inference" \
// RUN:   --mlir-print-local-scope 2>/dev/null | sed '1d;$d' > %t.static.mlir
// RUN: nvfp4-opt %t.recipe.mlir --mlir-print-local-scope | sed '1d;$d' \
// RUN:   | sed 's/@mlp(/@mlp_dynamic(/' > %t.dynamic.mlir
// RUN: cat %t.static.mlir %t.dynamic.mlir %s > %t.run.mlir
// RUN: nvfp4-opt %t.run.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s --check-prefix=EXEC
// RUN: nvfp4-opt %t.run.mlir --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s --check-prefix=EXEC

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:.*]]: tensor<?x?x64xf32>) -> tensor<?x?x48xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: tensor.dim %[[X]], %[[C0]] : tensor<?x?x64xf32>
// CHECK-DAG: tensor.dim %[[X]], %[[C1]] : tensor<?x?x64xf32>
// CHECK: linalg.batch_matmul
// CHECK: linalg.batch_matmul
// CHECK: return %{{.*}} : tensor<?x?x48xf32>
// CHECK-NOT: util.
// CHECK-NOT: hal.

// SUMMARY: nvfp4 recipe: 2 of 2 contractions in FP4
// The activations, [batch * seq, K], are quantized at run time; the
// constant weights at compile time (16x16, exactly transposed).
// RECIPE-LABEL: func.func @mlp(
// RECIPE: %[[A:.*]] = nvfp4.quantize %{{.*}} : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
// RECIPE: nvfp4.assemble {{.*}} -> !nvfp4.tensor<64x32, 16x16>
// RECIPE: nvfp4.matmul %[[A]], %{{.*}} : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<32x64, 16x16> -> tensor<?x32xf32>
// RECIPE: %[[B:.*]] = nvfp4.quantize %{{.*}} : tensor<?x32xf32> -> !nvfp4.tensor<?x32, 1x16>
// RECIPE: nvfp4.assemble {{.*}} -> !nvfp4.tensor<32x48, 16x16>
// RECIPE: nvfp4.matmul %[[B]], %{{.*}} : !nvfp4.tensor<?x32, 1x16>, !nvfp4.tensor<48x32, 16x16> -> tensor<?x48xf32>

// CPU-NOT: nvfp4.
// CPU: llvm.func @mlp

// EXEC: mismatches: 0
// EXEC-NEXT: nonzeros: {{[1-9][0-9]*}}

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}

/// The elements of `a` and `b` whose bits differ.
func.func @count_diff(%a: tensor<16x48xf32>, %b: tensor<16x48xf32>) -> i32 {
  %ai = arith.bitcast %a : tensor<16x48xf32> to tensor<16x48xi32>
  %bi = arith.bitcast %b : tensor<16x48xf32> to tensor<16x48xi32>
  %ne = arith.cmpi ne, %ai, %bi : tensor<16x48xi32>
  %ones = arith.extui %ne : tensor<16x48xi1> to tensor<16x48xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %acc = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %sum = linalg.reduce ins(%ones : tensor<16x48xi32>) outs(%acc : tensor<i32>) dimensions = [0, 1]
    (%v: i32, %s: i32) {
      %r = arith.addi %v, %s : i32
      linalg.yield %r : i32
    }
  %n = tensor.extract %sum[] : tensor<i32>
  return %n : i32
}

func.func @main() {
  %mode = arith.constant 0 : i32
  %seed = arith.constant 7 : i64
  %xm = memref.alloc() : memref<16x64xf32>
  %xu = memref.cast %xm : memref<16x64xf32> to memref<*xf32>
  call @nvfp4RtFill(%xu, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<16x64xf32> to tensor<16x64xf32>
  %ys = call @mlp(%x) : (tensor<16x64xf32>) -> tensor<16x48xf32>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [1, 16, 64] : tensor<16x64xf32> into tensor<1x16x64xf32>
  %xd = tensor.cast %x3 : tensor<1x16x64xf32> to tensor<?x?x64xf32>
  %yd = call @mlp_dynamic(%xd) : (tensor<?x?x64xf32>) -> tensor<?x?x48xf32>
  %y3 = tensor.cast %yd : tensor<?x?x48xf32> to tensor<1x16x48xf32>
  %y2 = tensor.collapse_shape %y3 [[0, 1], [2]] : tensor<1x16x48xf32> into tensor<16x48xf32>
  %n = call @count_diff(%y2, %ys) : (tensor<16x48xf32>, tensor<16x48xf32>) -> i32
  vector.print str "mismatches: "
  vector.print %n : i32
  %zero = arith.constant dense<0.0> : tensor<16x48xf32>
  %nz = call @count_diff(%y2, %zero) : (tensor<16x48xf32>, tensor<16x48xf32>) -> i32
  vector.print str "nonzeros: "
  vector.print %nz : i32
  return
}
