// torch-mlp.mlir run on the host, f32 as exported against the recipe's
// output, like jax-mlp.mlir.
// nn.GELU is exact (`math.erf`): nvfp4-to-cpu lowers it to a call to libm's
// `erff`, which mlir-runner resolves in its own process (it used to stay in
// the output as `math.erf`, which mlir-runner refused).
//
// RUN: cat %S/Inputs/torch-mlp.mlir %s > %t.run.mlir
// RUN: nvfp4-opt %t.run.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
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

// Nothing but the LLVM dialect is left, ops with results included.
// CPU-NOT: {{(^ *|= )(func|scf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

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
  %a1 = call @fill_1024_256(%seed1) : (i64) -> tensor<1024x256xf32>
  %seed2 = arith.constant 3 : i64
  %a2 = call @fill_1024(%seed2) : (i64) -> tensor<1024xf32>
  %seed3 = arith.constant 4 : i64
  %a3 = call @fill_256_1024(%seed3) : (i64) -> tensor<256x1024xf32>
  %seed4 = arith.constant 5 : i64
  %a4 = call @fill_256(%seed4) : (i64) -> tensor<256xf32>
  %r0 = call @torch_jit(%a0, %a1, %a2, %a3, %a4)
      : (tensor<128x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>, tensor<256x1024xf32>, tensor<256xf32>)
      -> (tensor<128x256xf32>)
  %lo = arith.constant 0.005 : f64
  %hi = arith.constant 0.6 : f64
  %m0 = bufferization.to_buffer %r0 : tensor<128x256xf32> to memref<128x256xf32>
  %u0 = memref.cast %m0 : memref<128x256xf32> to memref<*xf32>
  %i0 = arith.constant 0 : i32
  %e0 = call @nvfp4RtStash(%u0, %i0, %lo, %hi) : (memref<*xf32>, i32, f64, f64) -> f64
  return
}
