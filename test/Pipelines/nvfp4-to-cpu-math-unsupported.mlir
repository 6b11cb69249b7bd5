// RUN: not nvfp4-opt %s --nvfp4-to-cpu 2>&1 | FileCheck %s

// A math op that no step of the CPU pipeline lowers (neither LLVM intrinsic,
// expansion nor libm function) is an error, not a leftover in the output.
// CHECK: error: failed to legalize operation 'math.isinf'
func.func @isinf(%x: f32) -> i1 {
  %r = math.isinf %x : f32
  return %r : i1
}
