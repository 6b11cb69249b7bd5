// RUN: nvfp4-translate --nvfp4-extract-ptx %s --split-input-file --verify-diagnostics
// RUN: not nvfp4-translate --nvfp4-extract-ptx %s --split-input-file 2>&1 \
// RUN: | FileCheck %s --check-prefix=NODUMP
// NODUMP: error: no FP4 kernels in the module
// NODUMP-NOT: see current operation
// NODUMP-NOT: "func.func"

// nvfp4-translate writes one GPU object and reports anything else.

// A module without kernels (not lowered, or nothing offloaded): one error
// and a hint, without the module printed (it may be large).
// expected-error @below {{no FP4 kernels in the module: it holds no gpu.binary}}
// expected-note @below {{run nvfp4-opt --nvfp4-to-ptx first (format=isa for PTX, format=bin for a cubin); a lowered module has no gpu.binary when nothing was offloaded (its report-fallbacks option says why)}}
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
