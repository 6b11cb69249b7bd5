// The GPU quantize cases (Inputs/quantize-cases.mlir) lowered with nvfp4-to-cpu
// instead: the bit-exact reference lowering must pass the same checks, which
// tests the cases, their expected outputs and the harness on any machine.
// The cases must also lower completely through nvfp4-to-gpu-executable for
// every target (the kernels as PTX, the host code to the LLVM dialect).
//
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | FileCheck %S/Inputs/quantize-cases.mlir
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir --nvfp4-to-gpu-executable="target=sm_90a" | FileCheck %s --implicit-check-not=nvfp4.quantize
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir --nvfp4-to-gpu-executable="target=sm_120a" | FileCheck %s --implicit-check-not=nvfp4.quantize
// RUN: nvfp4-opt %S/Inputs/quantize-cases.mlir --nvfp4-to-gpu-executable="target=sm_100a" | FileCheck %s --implicit-check-not=nvfp4.quantize

// CHECK: llvm.func @main()
// CHECK: gpu.binary @nvfp4_kernels
// CHECK-SAME: .entry nvfp4_quantize_
