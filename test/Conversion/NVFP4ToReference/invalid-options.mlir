// RUN: not nvfp4-opt %s --convert-nvfp4-to-reference="kernels=jit" 2>&1 | FileCheck %s
// RUN: not nvfp4-opt %s --nvfp4-to-cpu="kernels=jit" 2>&1 | FileCheck %s

// An unknown kernels option is an error, not a silent default.
// CHECK: error: convert-nvfp4-to-reference: kernels='jit' is not 'library' or 'inline'
func.func @f(%x: tensor<16xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<16xf32>
  return %a : f32
}
