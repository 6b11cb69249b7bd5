// Inputs no nvfp4 lowering can take get one clear error at the offending op
// from every pipeline, and the tool exits non-zero with no IR written.

// RUN: split-file %s %t

// An NVFP4 tensor as the element of another type.
// RUN: not nvfp4-opt %t/nested-type.mlir --nvfp4-to-cpu -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=TYPE-CPU
// RUN: not test -e %t/out.mlir
// RUN: not nvfp4-opt %t/nested-type.mlir --nvfp4-to-gpu-executable="target=sm_120a" 2>&1 | FileCheck %s --check-prefix=TYPE-GPU
// RUN: not nvfp4-opt %t/nested-type.mlir --nvfp4-to-ptx="target=sm_100a" 2>&1 | FileCheck %s --check-prefix=TYPE-GPU
// TYPE-CPU: nested-type.mlir:1:{{[0-9]+}}: error: convert-nvfp4-to-reference: a function argument of type 'tensor<4x!nvfp4.tensor<16, 1x16>>' holds an NVFP4 tensor inside another type
// TYPE-CPU-NOT: memref<4x!nvfp4.tensor
// TYPE-GPU: error: convert-nvfp4-to-gpu: a function argument of type 'tensor<4x!nvfp4.tensor<16, 1x16>>' holds an NVFP4 tensor inside another type
// TYPE-GPU-NOT: memref<4x!nvfp4.tensor

// Inside a function body, as an op's result.
// RUN: not nvfp4-opt %t/nested-result.mlir --nvfp4-to-cpu 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: nested-result.mlir:2:{{[0-9]+}}: error: convert-nvfp4-to-reference: a result of type 'tensor<2x!nvfp4.tensor<16, 1x16>>' holds an NVFP4 tensor

// A nested builtin.module.
// RUN: not nvfp4-opt %t/nested-module.mlir --nvfp4-to-cpu 2>&1 | FileCheck %s --check-prefix=MODULE-CPU
// RUN: not nvfp4-opt %t/nested-module.mlir --nvfp4-to-gpu-executable="target=sm_120a" 2>&1 | FileCheck %s --check-prefix=MODULE-GPU
// RUN: not nvfp4-opt %t/nested-module.mlir --nvfp4-to-ptx="target=sm_120a" 2>&1 | FileCheck %s --check-prefix=MODULE-GPU
// MODULE-CPU: nested-module.mlir:3:1: error: convert-nvfp4-to-reference: nested 'builtin.module' ops are not supported; lower each module separately
// MODULE-CPU-NOT: failed to legalize
// MODULE-GPU: nested-module.mlir:3:1: error: convert-nvfp4-to-gpu: nested 'builtin.module' ops are not supported
// MODULE-GPU-NOT: kernel operands

// What the checks leave alone: a module without either lowers.
// RUN: nvfp4-opt %t/plain.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=PLAIN
// PLAIN: llvm.func @plain

//--- nested-type.mlir
func.func @f(%x: tensor<4x!nvfp4.tensor<16, 1x16>>) -> tensor<4x!nvfp4.tensor<16, 1x16>> {
  return %x : tensor<4x!nvfp4.tensor<16, 1x16>>
}

//--- nested-result.mlir
func.func @g() {
  %t = tensor.empty() : tensor<2x!nvfp4.tensor<16, 1x16>>
  return
}

//--- nested-module.mlir
func.func @outer(%x: tensor<16x64xf32>) -> tensor<16x64xf32> { return %x : tensor<16x64xf32> }

module @inner {
  func.func @inner(%a: !nvfp4.tensor<128x64, 1x16>, %b: !nvfp4.tensor<128x64, 1x16>) -> tensor<128x128xf32> {
    %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<128x64, 1x16> -> tensor<128x128xf32>
    return %y : tensor<128x128xf32>
  }
}

//--- plain.mlir
func.func @plain(%x: tensor<32x64xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<32x64xf32>
  return %a : f32
}
