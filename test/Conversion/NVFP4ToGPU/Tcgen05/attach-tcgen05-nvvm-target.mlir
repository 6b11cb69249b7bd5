// nvfp4-attach-tcgen05-nvvm-target: the NVVM target of the tcgen05 pipelines
// without MLIR 22's op-level SM check, as a registered pass with options, so
// that nvfp4-to-ptx prints and parses back as a textual pipeline. Modules
// that already have a target are left alone.

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(nvfp4-attach-tcgen05-nvvm-target{chip=sm_103a features=+ptx88 O=3})' | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-ptx=target=sm_110a --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE

// CHECK:      gpu.module @bare [#nvvm.target<O = 3, chip = "sm_103a", features = "+ptx88", verifyTarget = false>]
// CHECK:      gpu.module @targeted [#nvvm.target<chip = "sm_90a">]
// PIPELINE:   nvfp4-attach-tcgen05-nvvm-target{O=3 chip=sm_110a features=+ptx90}

module attributes {gpu.container_module} {
  gpu.module @bare {
  }
  gpu.module @targeted [#nvvm.target<chip = "sm_90a">] {
  }
}
