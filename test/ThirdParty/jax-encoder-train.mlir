// Third-party IR: a training step of the encoder block of jax-encoder.mlir
// written in JAX (loss = mean squared error against a target;
// `jax.value_and_grad` returns the loss and the gradients of the ten
// parameters), exported to StableHLO with jax.export and lowered to linalg
// on tensors by IREE's StableHLO input conversion
// (utils/third-party/gen_jax_models.py; jax 0.10.2, iree-base-compiler
// 3.13.0). With the batch dimension, each weight gradient contracts over
// batch and tokens: its gradient operand [2, 128, n] is transposed to
// [n, 2, 128] (linalg.generic) and flattened to [n, 256]
// (tensor.collapse_shape), its activation flattened to [256, k]. No
// annotations.
//
// RUN: nvfp4-opt %S/Inputs/jax-encoder-train.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: grep -o '"kinds": "[a-z,]*"' %t.json | FileCheck %s --check-prefix=KINDS
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX
//
// Execution on the CPU, f32 as exported against the recipe's output (bounds
// as in test/Integration/training-step.mlir for the gradients, measured
// 0.24 to 0.34; the loss moves less).
// RUN: cat %S/Inputs/jax-encoder-train.mlir %s > %t.run.mlir
// RUN: nvfp4-opt %t.run.mlir --nvfp4-to-cpu \
// RUN: | env NVFP4_RT_STASH=%t.hp NVFP4_RT_STASH_MODE=write %mlir_runner \
// RUN:   -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s --check-prefix=HP
// RUN: nvfp4-opt %t.run.mlir --nvfp4-recipe --nvfp4-to-cpu \
// RUN: | env NVFP4_RT_STASH=%t.hp NVFP4_RT_STASH_MODE=compare %mlir_runner \
// RUN:   -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s --check-prefix=EXEC

// Forward as in jax-encoder.mlir; backward: for each of w2, w1, wo, wv, wk,
// wq its wgrad (gradient x activation, over the 256 tokens) and its dgrad
// (gradient x weight), all FP4 in layer 0; the four attention GEMMs of the
// backward pass (dP, dV, dQ, dK) stay high like the forward ones.
// SUMMARY: nvfp4 recipe: 18 of 24 contractions in FP4, 92.31% of 1.309E+09 FLOPs
// SUMMARY: encoder_train_step 0 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 1 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 2 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 3 fprop 0 8x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 4 fprop 0 8x64x128x128 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 5 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 6 fprop 0 1x256x1024x256 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 7 fprop 0 1x256x256x1024 fp4 fprop of layer 0
// SUMMARY: encoder_train_step 8 wgrad 0 1x256x1024x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 9 dgrad 0 1x256x1024x256 fp4 dgrad of layer 0
// SUMMARY: encoder_train_step 10 wgrad 0 1x1024x256x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 11 dgrad 0 1x256x256x1024 fp4 dgrad of layer 0
// SUMMARY: encoder_train_step 12 wgrad 0 1x256x256x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 13 dgrad 0 1x256x256x256 fp4 dgrad of layer 0
// SUMMARY: encoder_train_step 14 dgrad 0 8x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 15 dgrad 0 8x64x128x128 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 16 dgrad 0 8x128x64x128 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 17 dgrad 0 8x128x64x128 high attention (batched contraction of two activations)
// SUMMARY: encoder_train_step 18 wgrad 0 1x256x256x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 19 dgrad 0 1x256x256x256 fp4 dgrad of layer 0
// SUMMARY: encoder_train_step 20 wgrad 0 1x256x256x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 21 dgrad 0 1x256x256x256 fp4 dgrad of layer 0
// SUMMARY: encoder_train_step 22 wgrad 0 1x256x256x256 fp4 wgrad of layer 0
// SUMMARY: encoder_train_step 23 dgrad 0 1x256x256x256 fp4 dgrad of layer 0

// Operand kinds of the 24 contractions, in order.
// KINDS:      "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "activation,activation"
// KINDS-NEXT: "kinds": "activation,activation"
// KINDS-NEXT: "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "activation,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NEXT: "kinds": "gradient,activation"
// KINDS-NEXT: "kinds": "gradient,weight"
// KINDS-NOT: kinds

// REPORT: "summary":
// REPORT-NEXT: "contractions": 24,
// REPORT-NEXT: "fp4": 18,
// REPORT-NEXT: "high": 6,

// Six wgrads with stochastically rounded, Hadamard-transformed gradients;
// the six attention batch matmuls left in high precision.
// RECIPE-LABEL: func.func @encoder_train_step
// RECIPE-COUNT-6: nvfp4.quantize %arg{{[0-9]+}} {nvfp4.kind = "weight"}
// RECIPE-NOT: nvfp4.quantize %arg{{[0-9]+}} {nvfp4.kind = "weight"}
// RECIPE-COUNT-6: nvfp4.quantize {{.*}} rounding rs offset {{[0-9]+}} hadamard {{.*}} {nvfp4.kind = "gradient"}
// RECIPE-NOT: linalg.matmul
// RECIPE-NOT: nvfp4.quantize {{.*}} rounding rs offset {{[0-9]+}} hadamard

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @encoder_train_step
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Six distinct GEMM shapes on each target.
// PTX-COUNT-3: {{^}}6{{$}}

// HP-COUNT-11: stash {{[0-9]+}} [{{[0-9x]*}}]: written
// EXEC: stash 0 []: relative error {{.*}} (bounds [1.0e-03, 6.0e-01]): ok
// EXEC-COUNT-10: stash {{[0-9]+}} [{{[0-9x]+}}]: relative error {{.*}} (bounds [5.0e-03, 6.0e-01]): ok
// EXEC-NOT: FAIL

// The driver: inputs filled with uniform values in [-1/8, 1/8) (mode 3 of
// nvfp4RtFill), one seed per argument; the loss and the ten gradients are
// stashed (written by the reference run, compared by the NVFP4 run).
func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtStash(memref<*xf32>, i32, f64, f64) -> f64 attributes {llvm.emit_c_interface}

func.func @fill_256(%seed: i64) -> tensor<256xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<256xf32>
  %u = memref.cast %m : memref<256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256xf32> to tensor<256xf32>
  return %t : tensor<256xf32>
}
func.func @fill_256_256(%seed: i64) -> tensor<256x256xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<256x256xf32>
  %u = memref.cast %m : memref<256x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256x256xf32> to tensor<256x256xf32>
  return %t : tensor<256x256xf32>
}
func.func @fill_256_1024(%seed: i64) -> tensor<256x1024xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<256x1024xf32>
  %u = memref.cast %m : memref<256x1024xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<256x1024xf32> to tensor<256x1024xf32>
  return %t : tensor<256x1024xf32>
}
func.func @fill_1024_256(%seed: i64) -> tensor<1024x256xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<1024x256xf32>
  %u = memref.cast %m : memref<1024x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<1024x256xf32> to tensor<1024x256xf32>
  return %t : tensor<1024x256xf32>
}
func.func @fill_2_128_256(%seed: i64) -> tensor<2x128x256xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<2x128x256xf32>
  %u = memref.cast %m : memref<2x128x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<2x128x256xf32> to tensor<2x128x256xf32>
  return %t : tensor<2x128x256xf32>
}

func.func @main() {
  %seed0 = arith.constant 1 : i64
  %a0 = call @fill_2_128_256(%seed0) : (i64) -> tensor<2x128x256xf32>
  %seed1 = arith.constant 2 : i64
  %a1 = call @fill_256(%seed1) : (i64) -> tensor<256xf32>
  %seed2 = arith.constant 3 : i64
  %a2 = call @fill_256(%seed2) : (i64) -> tensor<256xf32>
  %seed3 = arith.constant 4 : i64
  %a3 = call @fill_256_256(%seed3) : (i64) -> tensor<256x256xf32>
  %seed4 = arith.constant 5 : i64
  %a4 = call @fill_256_256(%seed4) : (i64) -> tensor<256x256xf32>
  %seed5 = arith.constant 6 : i64
  %a5 = call @fill_256_256(%seed5) : (i64) -> tensor<256x256xf32>
  %seed6 = arith.constant 7 : i64
  %a6 = call @fill_256_256(%seed6) : (i64) -> tensor<256x256xf32>
  %seed7 = arith.constant 8 : i64
  %a7 = call @fill_256(%seed7) : (i64) -> tensor<256xf32>
  %seed8 = arith.constant 9 : i64
  %a8 = call @fill_256(%seed8) : (i64) -> tensor<256xf32>
  %seed9 = arith.constant 10 : i64
  %a9 = call @fill_256_1024(%seed9) : (i64) -> tensor<256x1024xf32>
  %seed10 = arith.constant 11 : i64
  %a10 = call @fill_1024_256(%seed10) : (i64) -> tensor<1024x256xf32>
  %seed11 = arith.constant 12 : i64
  %a11 = call @fill_2_128_256(%seed11) : (i64) -> tensor<2x128x256xf32>
  %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9, %r10 = call @encoder_train_step(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10, %a11)
      : (tensor<2x128x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>, tensor<2x128x256xf32>)
      -> (tensor<f32>, tensor<256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>)
  %lo = arith.constant 0.005 : f64
  %hi = arith.constant 0.6 : f64
  // The loss moves less than the gradients (measured 0.015 to 0.08).
  %lo_loss = arith.constant 0.001 : f64
  %m0 = bufferization.to_buffer %r0 : tensor<f32> to memref<f32>
  %u0 = memref.cast %m0 : memref<f32> to memref<*xf32>
  %i0 = arith.constant 0 : i32
  %e0 = call @nvfp4RtStash(%u0, %i0, %lo_loss, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m1 = bufferization.to_buffer %r1 : tensor<256xf32> to memref<256xf32>
  %u1 = memref.cast %m1 : memref<256xf32> to memref<*xf32>
  %i1 = arith.constant 1 : i32
  %e1 = call @nvfp4RtStash(%u1, %i1, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m2 = bufferization.to_buffer %r2 : tensor<256xf32> to memref<256xf32>
  %u2 = memref.cast %m2 : memref<256xf32> to memref<*xf32>
  %i2 = arith.constant 2 : i32
  %e2 = call @nvfp4RtStash(%u2, %i2, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m3 = bufferization.to_buffer %r3 : tensor<256x256xf32> to memref<256x256xf32>
  %u3 = memref.cast %m3 : memref<256x256xf32> to memref<*xf32>
  %i3 = arith.constant 3 : i32
  %e3 = call @nvfp4RtStash(%u3, %i3, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m4 = bufferization.to_buffer %r4 : tensor<256x256xf32> to memref<256x256xf32>
  %u4 = memref.cast %m4 : memref<256x256xf32> to memref<*xf32>
  %i4 = arith.constant 4 : i32
  %e4 = call @nvfp4RtStash(%u4, %i4, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m5 = bufferization.to_buffer %r5 : tensor<256x256xf32> to memref<256x256xf32>
  %u5 = memref.cast %m5 : memref<256x256xf32> to memref<*xf32>
  %i5 = arith.constant 5 : i32
  %e5 = call @nvfp4RtStash(%u5, %i5, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m6 = bufferization.to_buffer %r6 : tensor<256x256xf32> to memref<256x256xf32>
  %u6 = memref.cast %m6 : memref<256x256xf32> to memref<*xf32>
  %i6 = arith.constant 6 : i32
  %e6 = call @nvfp4RtStash(%u6, %i6, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m7 = bufferization.to_buffer %r7 : tensor<256xf32> to memref<256xf32>
  %u7 = memref.cast %m7 : memref<256xf32> to memref<*xf32>
  %i7 = arith.constant 7 : i32
  %e7 = call @nvfp4RtStash(%u7, %i7, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m8 = bufferization.to_buffer %r8 : tensor<256xf32> to memref<256xf32>
  %u8 = memref.cast %m8 : memref<256xf32> to memref<*xf32>
  %i8 = arith.constant 8 : i32
  %e8 = call @nvfp4RtStash(%u8, %i8, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m9 = bufferization.to_buffer %r9 : tensor<256x1024xf32> to memref<256x1024xf32>
  %u9 = memref.cast %m9 : memref<256x1024xf32> to memref<*xf32>
  %i9 = arith.constant 9 : i32
  %e9 = call @nvfp4RtStash(%u9, %i9, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  %m10 = bufferization.to_buffer %r10 : tensor<1024x256xf32> to memref<1024x256xf32>
  %u10 = memref.cast %m10 : memref<1024x256xf32> to memref<*xf32>
  %i10 = arith.constant 10 : i32
  %e10 = call @nvfp4RtStash(%u10, %i10, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  return
}
