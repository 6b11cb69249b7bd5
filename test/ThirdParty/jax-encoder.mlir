// Third-party IR: a pre-LN transformer encoder block written in JAX
// (jax.numpy, no Flax; batch 2 x 128 tokens, hidden 256, 4 heads of 64 laid
// out as in Flax's attention, `...qhd,...khd->...hqk`, LayerNorm, FFN 1024
// with tanh GELU), exported to StableHLO with jax.export and lowered to
// linalg on tensors by IREE's StableHLO input conversion
// (utils/third-party/gen_jax_models.py; jax 0.10.2, iree-base-compiler
// 3.13.0). The projections flatten [2, 128, 256] to [256, 256]
// (tensor.collapse_shape); the heads are transposed by linalg.generic copies
// and the two attention dot_generals become linalg.batch_matmul over the 8
// (batch, head) pairs. No annotations.
//
// RUN: nvfp4-opt %S/Inputs/jax-encoder.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX
//
// With quantize-attention the attention GEMMs are FP4 too, and every
// target's kernel takes them (tcgen05 zero-fills the K tile past K = 64).
// RUN: nvfp4-opt %S/Inputs/jax-encoder.mlir \
// RUN:   --nvfp4-recipe="quantize-attention summary" -o %t.qa.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QA
// RUN: nvfp4-opt %t.qa.mlir --nvfp4-to-cpu -o /dev/null
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.qa.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=QA-PTX
//
// Execution on the CPU, f32 as exported against the recipe's output (the
// driver below; bounds as in test/Integration/training-step.mlir; measured
// 0.22).
// RUN: cat %S/Inputs/jax-encoder.mlir %s > %t.run.mlir
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

// One block: the six projections (Q, K, V, O, FFN up and down, M = 2 x 128
// tokens) are FP4 in layer 0; the attention GEMMs stay high.
// SUMMARY: nvfp4 recipe: 6 of 8 contractions in FP4, 92.31% of 4.362E+08 FLOPs
// SUMMARY: encoder 0 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 1 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 2 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 3 fprop 0 8x128x128x64 high attention (batched contraction of two activations)
// SUMMARY: encoder 4 fprop 0 8x64x128x128 high attention (batched contraction of two activations)
// SUMMARY: encoder 5 fprop 0 1x256x256x256 fp4 fprop of layer 0
// SUMMARY: encoder 6 fprop 0 1x256x1024x256 fp4 fprop of layer 0
// SUMMARY: encoder 7 fprop 0 1x256x256x1024 fp4 fprop of layer 0

// REPORT-COUNT-3: "kinds": "activation,weight",
// REPORT: "op": "linalg.batch_matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 0,
// REPORT-NEXT: "kinds": "activation,activation",
// REPORT: "decision": "high",
// REPORT: "op": "linalg.batch_matmul",
// REPORT: "decision": "high",
// REPORT-COUNT-3: "kinds": "activation,weight",

// Q, K and V share one quantization of the flattened LayerNorm output.
// RECIPE-LABEL: func.func @encoder
// RECIPE: %[[H:.*]] = nvfp4.quantize %collapsed {nvfp4.kind = "activation"} : tensor<256x256xf32> -> !nvfp4.tensor<256x256, 1x16>
// RECIPE: nvfp4.quantize %arg3 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[H]],
// RECIPE: nvfp4.quantize %arg4 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[H]],
// RECIPE: nvfp4.quantize %arg5 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.matmul %[[H]],
// RECIPE: linalg.batch_matmul
// RECIPE: linalg.batch_matmul
// RECIPE: nvfp4.quantize %arg6 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.quantize %arg9 {nvfp4.kind = "weight"}
// RECIPE: nvfp4.quantize %arg10 {nvfp4.kind = "weight"}
// RECIPE-NOT: linalg.matmul

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @encoder
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Three distinct GEMM shapes on each target.
// PTX-COUNT-3: {{^}}3{{$}}

// QA: nvfp4 recipe: 8 of 8 contractions in FP4, 100.00% of 4.362E+08 FLOPs
// QA: encoder 3 fprop 0 8x128x128x64 fp4 fprop of layer 0
// QA: encoder 4 fprop 0 8x64x128x128 fp4 fprop of layer 0
// QA-PTX-COUNT-3: {{^}}5{{$}}

// HP: stash 0 [2x128x256]: written
// EXEC: stash 0 [2x128x256]: relative error {{.*}} (bounds [5.0e-03, 6.0e-01]): ok
// EXEC-NOT: FAIL

// The driver: inputs filled with uniform values in [-1/8, 1/8) (mode 3 of
// nvfp4RtFill), one seed per argument; the output is
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
  %r0 = call @encoder(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8, %a9, %a10)
      : (tensor<2x128x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256x256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256x1024xf32>, tensor<1024x256xf32>)
      -> (tensor<2x128x256xf32>)
  %lo = arith.constant 0.005 : f64
  %hi = arith.constant 0.6 : f64
  %m0 = bufferization.to_buffer %r0 : tensor<2x128x256xf32> to memref<2x128x256xf32>
  %u0 = memref.cast %m0 : memref<2x128x256xf32> to memref<*xf32>
  %i0 = arith.constant 0 : i32
  %e0 = call @nvfp4RtStash(%u0, %i0, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  return
}
