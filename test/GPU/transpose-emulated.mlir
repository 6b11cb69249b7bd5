// The transpose kernel (nvfp4.transpose of 16x16-scaled tensors), run by
// the GPU emulator, equals the CPU reference lowering byte for byte: the
// transposed tensors dequantized, and a GEMM that reads a transposed weight
// (on the tcgen05 targets from K-padded storage the kernel writes), printed
// as f32 bit patterns (Inputs/transpose-cases.mlir), on one target of each
// family (the kernel is the same on sm_103a, sm_110a and sm_121a).
//
// RUN: nvfp4-opt %S/Inputs/transpose-cases.mlir --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for target in sm_90a sm_100a sm_120a; do \
// RUN:   nvfp4-opt %S/Inputs/transpose-cases.mlir --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: grep -c "^\[\[" %t.cpu | FileCheck %s
// CHECK: 3
