// Third-party IR: an MLP written in JAX (jax.numpy; 128 tokens, hidden 256,
// FFN 1024, biases, JAX's default tanh GELU), exported to StableHLO with
// jax.export and lowered to linalg on tensors by IREE's StableHLO input
// conversion (utils/third-party/gen_jax_models.py; jax 0.10.2,
// iree-base-compiler 3.13.0). No annotations: the weights are inferred from
// their use as the B operand of linalg.matmul.
//
// RUN: nvfp4-opt %S/Inputs/jax-mlp.mlir --nvfp4-recipe="summary report=%t.json" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %S/Inputs/jax-mlp.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 summary" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=KEEP
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX
//
// Execution on the CPU (the driver below fills the inputs with uniform
// values in [-1/8, 1/8)): as exported (f32, the reference), then after the
// recipe. The NVFP4 output must differ from the reference by a relative
// Frobenius error within [0.005, 0.6], the bounds of
// test/Integration/training-step.mlir (two quantized GEMMs: measured 0.16).
// RUN: cat %S/Inputs/jax-mlp.mlir %s > %t.run.mlir
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

// Two projections that do not share their input: two layers, both FP4.
// SUMMARY: nvfp4 recipe: 2 of 2 contractions in FP4, 100.00% of 1.342E+08 FLOPs
// SUMMARY: mlp 0 fprop 0 1x128x1024x256 fp4 fprop of layer 0
// SUMMARY: mlp 1 fprop 1 1x128x256x1024 fp4 fprop of layer 1

// REPORT: "op": "linalg.matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 0,
// REPORT-NEXT: "kinds": "activation,weight",
// REPORT: "decision": "fp4",
// REPORT: "op": "linalg.matmul",
// REPORT-NEXT: "role": "fprop",
// REPORT-NEXT: "layer": 1,
// REPORT-NEXT: "kinds": "activation,weight",
// REPORT: "decision": "fp4",

// JAX stores the weights [in, out] (x @ w): %arg1 and %arg3 are quantized
// 16x16 as stored and transposed exactly to the K-major layout.
// RECIPE-LABEL: func.func @mlp
// RECIPE: nvfp4.quantize %arg0 {nvfp4.kind = "activation"} : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
// RECIPE: %[[W1:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"} : tensor<256x1024xf32> -> !nvfp4.tensor<256x1024, 16x16>
// RECIPE: %[[W1T:.*]] = nvfp4.transpose %[[W1]]
// RECIPE: nvfp4.matmul %{{.*}}, %[[W1T]] {nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// RECIPE: nvfp4.quantize %arg3 {nvfp4.kind = "weight"} : tensor<1024x256xf32> -> !nvfp4.tensor<1024x256, 16x16>
// RECIPE: nvfp4.matmul {{.*}} {nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// RECIPE-NOT: linalg.matmul

// KEEP: nvfp4 recipe: 0 of 2 contractions in FP4
// KEEP: mlp 0 fprop 0 1x128x1024x256 high layer 0 within keep-first=1
// KEEP: mlp 1 fprop 1 1x128x256x1024 high layer 1 within keep-last=1

// CPU-NOT: nvfp4.
// CPU-LABEL: llvm.func @mlp
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// One GEMM kernel per FP4 matmul on each target.
// PTX-COUNT-3: {{^}}2{{$}}

// HP: stash 0 [128x256]: written
// EXEC: stash 0 [128x256]: relative error {{.*}} (bounds [5.0e-03, 6.0e-01]): ok
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
func.func @fill_1024(%seed: i64) -> tensor<1024xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<1024xf32>
  %u = memref.cast %m : memref<1024xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<1024xf32> to tensor<1024xf32>
  return %t : tensor<1024xf32>
}
func.func @fill_128_256(%seed: i64) -> tensor<128x256xf32> {
  %mode = arith.constant 3 : i32
  %m = memref.alloc() : memref<128x256xf32>
  %u = memref.cast %m : memref<128x256xf32> to memref<*xf32>
  call @nvfp4RtFill(%u, %seed, %mode) : (memref<*xf32>, i64, i32) -> ()
  %t = bufferization.to_tensor %m restrict : memref<128x256xf32> to tensor<128x256xf32>
  return %t : tensor<128x256xf32>
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

func.func @main() {
  %seed0 = arith.constant 1 : i64
  %a0 = call @fill_128_256(%seed0) : (i64) -> tensor<128x256xf32>
  %seed1 = arith.constant 2 : i64
  %a1 = call @fill_256_1024(%seed1) : (i64) -> tensor<256x1024xf32>
  %seed2 = arith.constant 3 : i64
  %a2 = call @fill_1024(%seed2) : (i64) -> tensor<1024xf32>
  %seed3 = arith.constant 4 : i64
  %a3 = call @fill_1024_256(%seed3) : (i64) -> tensor<1024x256xf32>
  %seed4 = arith.constant 5 : i64
  %a4 = call @fill_256(%seed4) : (i64) -> tensor<256xf32>
  %r0 = call @mlp(%a0, %a1, %a2, %a3, %a4)
      : (tensor<128x256xf32>, tensor<256x1024xf32>, tensor<1024xf32>, tensor<1024x256xf32>, tensor<256xf32>)
      -> (tensor<128x256xf32>)
  %lo = arith.constant 0.005 : f64
  %hi = arith.constant 0.6 : f64
  %m0 = bufferization.to_buffer %r0 : tensor<128x256xf32> to memref<128x256xf32>
  %u0 = memref.cast %m0 : memref<128x256xf32> to memref<*xf32>
  %i0 = arith.constant 0 : i32
  %e0 = call @nvfp4RtStash(%u0, %i0, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  return
}
