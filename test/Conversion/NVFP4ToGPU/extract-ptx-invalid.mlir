// RUN: nvfp4-translate --nvfp4-extract-ptx %s --split-input-file --verify-diagnostics

// nvfp4-translate writes one GPU object and reports anything else.

// expected-error @below {{expected a gpu.binary (run nvfp4-opt --nvfp4-to-ptx first)}}
module {
  func.func @f() {
    return
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{gpu.binary @kernels has no GPU object of format 'assembly'}}
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_120a">, bin = "\7FELF">]
}

// -----

module attributes {gpu.container_module} {
  // expected-error @below {{expected exactly one GPU object of format 'assembly', found 2}}
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_120a">, assembly = "// a">,
                       #gpu.object<#nvvm.target<chip = "sm_121a">, assembly = "// b">]
}
