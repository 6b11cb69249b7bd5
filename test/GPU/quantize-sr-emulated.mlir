// Stochastic rounding in the GPU quantize kernels, run by the GPU emulator,
// equals the CPU reference lowering byte for byte (the dequantized values'
// bit patterns, Inputs/quantize-sr-cases.mlir): the software rounding
// (Philox4x32-10 bits, integer rounding) on sm_90a, sm_100a and sm_120a,
// and cvt.rs.satfinite.e2m1x4.f32 (`hardware-sr`) on sm_100a and sm_103a,
// which the emulator models on the PTX ISA's assignment of the random bits
// (docs/emulator.md; exchanging two of its bytes makes this test fail).
//
// RUN: nvfp4-opt %S/Inputs/quantize-sr-cases.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for options in target=sm_90a target=sm_100a target=sm_120a \
// RUN:     "target=sm_100a hardware-sr=true" "target=sm_103a hardware-sr=true"; do \
// RUN:   nvfp4-opt %S/Inputs/quantize-sr-cases.mlir --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: grep -c "^\[\[" %t.cpu | FileCheck %s
// CHECK: 3
