// RUN: not nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_120a format=isa" 2>&1 \
// RUN:   | FileCheck %s
// RUN: not nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_90a" 2>&1 \
// RUN:   | FileCheck %s

// The GPU pipelines lower host math as the CPU pipeline does
// (nvfp4-to-cpu-math-unsupported.mlir): a math op no step lowers is an
// error at the op, before translation to LLVM IR.
// CHECK: :[[@LINE+2]]:8: error: failed to legalize operation 'math.isinf'
func.func @isinf(%x: f32) -> i1 {
  %r = math.isinf %x : f32
  return %r : i1
}
