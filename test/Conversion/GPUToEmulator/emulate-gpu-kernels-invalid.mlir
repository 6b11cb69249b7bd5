// What the emulator does not model is an error at the operation, never a
// silently wrong program.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern() attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: 'nvvm.fence.sc.cluster' is not modelled by the GPU emulator yet}}
      nvvm.fence.sc.cluster
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%a: vector<2xf16>, %c: f32) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: only mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 is modelled by the GPU emulator yet}}
      %0 = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
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
