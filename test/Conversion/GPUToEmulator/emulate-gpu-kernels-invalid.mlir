// What the emulator does not model is an error at the operation, never a
// silently wrong program.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%dst: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: 'nvvm.cp.async.shared.global' is not modelled by the GPU emulator yet}}
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @below {{nvfp4-emulate-gpu-kernels: the external function @__nv_expf has no body to emulate}}
    llvm.func @__nv_expf(f32) -> f32
  }
}
