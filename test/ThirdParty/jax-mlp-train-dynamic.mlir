// Third-party IR with a run-time size: the MLP training step of
// jax-mlp-train.mlir exported with its token count symbolic
// (`jax.export.symbolic_shape("tokens")`; Inputs/jax-mlp-train-dynamic.mlir,
// utils/third-party/gen_jax_models.py), so its activations are
// tensor<?x256xf32> and its wgrads contract over a run-time K. The recipe
// takes every contraction to FP4 as it does for the static export, and the
// compiled step, run for 128 tokens, computes the loss and the four
// gradients of the static export bit for bit (stochastic rounding off: a
// quantization of run-time size draws its counters from a window of its
// own). The GPU pipelines compile the dynamic step once and, on sm_120a and
// sm_90a, run all of it as kernels under emulation (the forward and dgrad
// matmuls of run-time M, the wgrads of run-time K, the quantizations of
// run-time rows or columns; nothing is left for the host), computing the
// static export's results bit for bit as well.
//
// RUN: nvfp4-opt %S/Inputs/jax-mlp-train-dynamic.mlir \
// RUN:   --nvfp4-recipe="summary report=%t.json" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: nvfp4-opt %S/Inputs/jax-mlp-train-dynamic.mlir \
// RUN:   --nvfp4-recipe="summary size-hint=128" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HINT
//
// RUN: sed 's/@mlp_train_step(/@mlp_train_step_dynamic(/' \
// RUN:   %S/Inputs/jax-mlp-train-dynamic.mlir > %t.dynamic.mlir
// RUN: cat %S/Inputs/jax-mlp-train.mlir %t.dynamic.mlir %s > %t.run.mlir
// RUN: nvfp4-opt %t.run.mlir --nvfp4-recipe="disable-stochastic-rounding" \
// RUN:   --nvfp4-to-cpu -o %t.cpu.mlir
// RUN: %mlir_runner %t.cpu.mlir -e main_static -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.static.out
// RUN: %mlir_runner %t.cpu.mlir -e main_dynamic -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.dynamic.out
// RUN: cmp %t.static.out %t.dynamic.out
// RUN: grep -c "^\[" %t.dynamic.out | FileCheck %s --check-prefix=EXEC
// RUN: for target in sm_120a sm_90a; do \
// RUN:   nvfp4-opt %t.run.mlir --nvfp4-recipe="disable-stochastic-rounding" \
// RUN:     --nvfp4-to-gpu-emulation="target=$target report-fallbacks" \
// RUN:     -o %t.$target.mlir 2> %t.$target.remarks || exit 1; \
// RUN:   FileCheck %s --check-prefix=KERNELS --allow-empty < %t.$target.remarks || exit 1; \
// RUN:   %mlir_runner %t.$target.mlir -e main_dynamic -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN:   | grep -v "base@" > %t.$target.out || exit 1; \
// RUN:   cmp %t.static.out %t.$target.out || exit 1; \
// RUN: done
// KERNELS-NOT: left for the host

// SUMMARY: nvfp4 recipe: 5 of 5 contractions in FP4
// SUMMARY: 5 contractions of run-time sizes without a size hint are not in the FLOPs
// SUMMARY: mlp_train_step     0 fprop      0 1x?x1024x256         fp4
// SUMMARY: mlp_train_step     1 fprop      1 1x?x256x1024         fp4
// SUMMARY: mlp_train_step     2 wgrad      1 1x256x1024x?         fp4
// SUMMARY: mlp_train_step     3 dgrad      1 1x?x1024x256         fp4
// SUMMARY: mlp_train_step     4 wgrad      0 1x1024x256x?         fp4
// The FLOPs in the symbol of the token count (dimension 0 of the inputs).
// REPORT: "flops": null,
// REPORT-NEXT: "flops_expression": "524288*arg4.0",
// REPORT: "flops_expression": "524288*{{arg4|arg5}}.0",
// At the hint, the FLOPs of jax-mlp-train.mlir's 128 tokens.
// HINT: nvfp4 recipe: 5 of 5 contractions in FP4, 100.00% of 3.355E+08 FLOPs

// Five results, each printed once per run.
// EXEC: {{^}}5{{$}}

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

/// Uniform values in [-1/8, 1/8) from a seed (nvfp4RtFill, mode 0).
func.func @fill_256(%seed: i64) -> tensor<256xf32> {
  %mode = arith.constant 0 : i32
  %m = memref.alloc() : memref<256xf32>
  %u = memref.cast %m : memref<256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256xf32> to tensor<256xf32>
  return %t : tensor<256xf32>
}

func.func @fill_1024(%seed: i64) -> tensor<1024xf32> {
  %mode = arith.constant 0 : i32
  %m = memref.alloc() : memref<1024xf32>
  %u = memref.cast %m : memref<1024xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<1024xf32> to tensor<1024xf32>
  return %t : tensor<1024xf32>
}

func.func @fill_128x256(%seed: i64) -> tensor<128x256xf32> {
  %mode = arith.constant 0 : i32
  %m = memref.alloc() : memref<128x256xf32>
  %u = memref.cast %m : memref<128x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<128x256xf32> to tensor<128x256xf32>
  return %t : tensor<128x256xf32>
}

func.func @fill_256x1024(%seed: i64) -> tensor<256x1024xf32> {
  %mode = arith.constant 0 : i32
  %m = memref.alloc() : memref<256x1024xf32>
  %u = memref.cast %m : memref<256x1024xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256x1024xf32> to tensor<256x1024xf32>
  return %t : tensor<256x1024xf32>
}

func.func @fill_1024x256(%seed: i64) -> tensor<1024x256xf32> {
  %mode = arith.constant 0 : i32
  %m = memref.alloc() : memref<1024x256xf32>
  %u = memref.cast %m : memref<1024x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<1024x256xf32> to tensor<1024x256xf32>
  return %t : tensor<1024x256xf32>
}

/// The inputs of both runs.
func.func @inputs() -> (tensor<256x1024xf32>, tensor<1024xf32>,
                        tensor<1024x256xf32>, tensor<256xf32>,
                        tensor<128x256xf32>, tensor<128x256xf32>) {
  %s1 = arith.constant 31 : i64
  %s2 = arith.constant 32 : i64
  %s3 = arith.constant 33 : i64
  %s4 = arith.constant 34 : i64
  %s5 = arith.constant 35 : i64
  %s6 = arith.constant 36 : i64
  %w1 = call @fill_256x1024(%s1) : (i64) -> tensor<256x1024xf32>
  %b1 = call @fill_1024(%s2) : (i64) -> tensor<1024xf32>
  %w2 = call @fill_1024x256(%s3) : (i64) -> tensor<1024x256xf32>
  %b2 = call @fill_256(%s4) : (i64) -> tensor<256xf32>
  %x = call @fill_128x256(%s5) : (i64) -> tensor<128x256xf32>
  %y = call @fill_128x256(%s6) : (i64) -> tensor<128x256xf32>
  return %w1, %b1, %w2, %b2, %x, %y : tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128x256xf32>
}

/// Prints the bits of an f32 tensor as i32.
func.func @print_bits_1(%t: tensor<?xf32>) {
  %b = arith.bitcast %t : tensor<?xf32> to tensor<?xi32>
  %m = bufferization.to_buffer %b : tensor<?xi32> to memref<?xi32>
  %u = memref.cast %m : memref<?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func @print_bits_2(%t: tensor<?x?xf32>) {
  %b = arith.bitcast %t : tensor<?x?xf32> to tensor<?x?xi32>
  %m = bufferization.to_buffer %b : tensor<?x?xi32> to memref<?x?xi32>
  %u = memref.cast %m : memref<?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @print_results(%loss: tensor<f32>, %dw1: tensor<256x1024xf32>,
                         %db1: tensor<1024xf32>, %dw2: tensor<1024x256xf32>,
                         %db2: tensor<256xf32>) {
  %l = tensor.expand_shape %loss [] output_shape [1] : tensor<f32> into tensor<1xf32>
  %l1 = tensor.cast %l : tensor<1xf32> to tensor<?xf32>
  call @print_bits_1(%l1) : (tensor<?xf32>) -> ()
  %a = tensor.cast %dw1 : tensor<256x1024xf32> to tensor<?x?xf32>
  call @print_bits_2(%a) : (tensor<?x?xf32>) -> ()
  %b = tensor.cast %db1 : tensor<1024xf32> to tensor<?xf32>
  call @print_bits_1(%b) : (tensor<?xf32>) -> ()
  %c = tensor.cast %dw2 : tensor<1024x256xf32> to tensor<?x?xf32>
  call @print_bits_2(%c) : (tensor<?x?xf32>) -> ()
  %d = tensor.cast %db2 : tensor<256xf32> to tensor<?xf32>
  call @print_bits_1(%d) : (tensor<?xf32>) -> ()
  return
}

func.func @main_static() {
  %w1, %b1, %w2, %b2, %x, %y = call @inputs() : () -> (tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128x256xf32>)
  %r:5 = call @mlp_train_step(%w1, %b1, %w2, %b2, %x, %y) : (tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128x256xf32>) -> (tensor<f32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>)
  call @print_results(%r#0, %r#1, %r#2, %r#3, %r#4) : (tensor<f32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>) -> ()
  return
}

func.func @main_dynamic() {
  %w1, %b1, %w2, %b2, %x, %y = call @inputs() : () -> (tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<128x256xf32>, tensor<128x256xf32>)
  %xd = tensor.cast %x : tensor<128x256xf32> to tensor<?x256xf32>
  %yd = tensor.cast %y : tensor<128x256xf32> to tensor<?x256xf32>
  %r:5 = call @mlp_train_step_dynamic(%w1, %b1, %w2, %b2, %xd, %yd) : (tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>, tensor<?x256xf32>, tensor<?x256xf32>) -> (tensor<f32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>)
  call @print_results(%r#0, %r#1, %r#2, %r#3, %r#4) : (tensor<f32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>) -> ()
  return
}
