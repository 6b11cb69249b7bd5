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

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%t: !llvm.ptr<6>, %d: i64) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: tcgen05.cp other than .32x128b.warpx4 is not modelled by the GPU emulator yet}}
      nvvm.tcgen05.cp %t, %d {shape = #nvvm.tcgen05_cp_shape<shape_128x256b>}
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%t: !llvm.ptr<6>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: tcgen05.ld other than .32x32b of b32 values is not modelled by the GPU emulator yet}}
      %v = nvvm.tcgen05.ld %t {shape = #nvvm.tcgen05_ldst_shape<shape_16x64b>} : vector<2xi32>
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%b: !llvm.ptr<3>, %state: i64) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: mbarrier.try_wait on an arrival state is not modelled by the GPU emulator yet}}
      %done = nvvm.mbarrier.try_wait %b, %state : !llvm.ptr<3>, i64 -> i1
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%dst: !llvm.ptr<7>, %map: !llvm.ptr, %b: !llvm.ptr<3>, %x: i32) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: cp.async.bulk.tensor other than a 2-D tile load without multicast, predicate or cache hint is not modelled by the GPU emulator yet}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %b, box[%x, %x, %x] : !llvm.ptr<7>, !llvm.ptr
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%t: !llvm.ptr<6>, %a: i64, %i: i32, %e: i1) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: tcgen05.mma.block_scale other than kind::mxf4nvf4.block16, kind::mxf4.block32 or kind::mxf8f6f4.block32 with A in shared memory is not modelled by the GPU emulator yet}}
      nvvm.tcgen05.mma.block_scale %t, %a, %a, %i, %e, %t, %t {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%p: !llvm.ptr<3>) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: only ldmatrix.m8n8.b16 without .trans is modelled by the GPU emulator yet}}
      %0 = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @kern(%map: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{nvfp4-emulate-gpu-kernels: prefetch other than prefetch.tensormap of a generic address or of a byval kernel parameter is not modelled by the GPU emulator yet}}
      nvvm.prefetch tensormap in_param_space, %map : !llvm.ptr
      llvm.return
    }
  }
}
