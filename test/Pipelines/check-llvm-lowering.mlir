// RUN: nvfp4-opt %s --nvfp4-check-llvm-lowering --split-input-file --verify-diagnostics

// What the pipelines must leave for translation to LLVM IR: the LLVM
// dialect, GPU binaries and their launches. Anything else is named at its
// location, once per kind of op.

// The LLVM dialect alone: nothing to report.
module {
  llvm.func @f(%x: f32) -> f32 {
    llvm.return %x : f32
  }
}

// -----

module {
  // expected-error @below {{'func.func' is not lowered to the LLVM dialect by the pipeline (no step of the pipeline handles it), so the program cannot be translated to LLVM IR}}
  func.func @g(%x: f32) -> f32 {
    // expected-error @below {{'math.isinf' is not lowered to the LLVM dialect by the pipeline}}
    %i = math.isinf %x : f32
    // A second op of the same kind is not reported again.
    %j = math.isinf %x : f32
    // expected-error @below {{'func.return' is not lowered to the LLVM dialect}}
    return %x : f32
  }
}

