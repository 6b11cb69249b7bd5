// The NVFP4 training step of training-step.mlir (Inputs/train-step-2layer
// .mlir after nvfp4-recipe) compiled for each GPU family, with the recipe's
// gpu-target and the kernels of convert-nvfp4-to-gpu (quantize with
// stochastic rounding and the Hadamard transform, the transpose of the
// 16x16 weights that the backward GEMMs read, matmul; the rest on the
// host), and run by the GPU emulator: its 16 weight gradients equal those
// of the same step run on the CPU (nvfp4-to-cpu) bit for bit (relative
// error bounds [0, 0]). Not in the sanitizer run (about a minute here; the
// kernels' host code runs under the sanitizers in test/GPU).
//
// UNSUPPORTED: sanitizers
// RUN: cat %S/Inputs/train-step-2layer.mlir %S/training-step.mlir > %t.mlir
// RUN: nvfp4-opt %t.mlir --nvfp4-recipe --nvfp4-to-cpu \
// RUN: | env NVFP4_RT_STASH=%t.fp4 NVFP4_RT_STASH_MODE=write %mlir_runner \
// RUN:   -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %s --check-prefix=WRITE
// RUN: for target in sm_100a sm_120a sm_90a; do \
// RUN:   nvfp4-opt %t.mlir --nvfp4-recipe="gpu-target=$target" \
// RUN:     --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | env NVFP4_RT_STASH=%t.fp4 NVFP4_RT_STASH_MODE=compare NVFP4_RT_STASH_BOUNDS=0,0 %mlir_runner \
// RUN:     -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | FileCheck %s || exit 1; \
// RUN: done

// WRITE-COUNT-16: stash {{[0-9]+}} [{{[0-9x]+}}]: written
// CHECK-COUNT-16: stash {{[0-9]+}} [{{[0-9x]+}}]: relative error 0.00e+00 (bounds [0.0e+00, 0.0e+00]): ok
// CHECK-NOT: FAIL
