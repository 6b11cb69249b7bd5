// Every pipeline fails with a non-zero status, and writes no IR, when any
// of its passes reports an error, also one the upstream
// gpu-module-to-binary emits without failing (an unknown format).

// RUN: not nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a format=weird" -o %t.mlir 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not test -e %t.mlir
// RUN: not nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_120a format=weird" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not nvfp4-opt %s --nvfp4-gpu-module-to-binary="format=weird" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: nvfp4-gpu-module-to-binary: unknown format 'weird' (expected offloading, llvm, assembly, isa, binary, bin, fatbinary or fatbin)
// FORMAT-NOT: #gpu.object

// The same from stock mlir-opt with the plugin.
// RUN: not mlir-opt %s --load-dialect-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(nvfp4-to-ptx{target=sm_120a format=weird})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FORMAT

// A toolkit without ptxas for a cubin.
// RUN: not nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a format=bin cuda-path=/nonexistent" -o %t.cubin.mlir 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not test -e %t.cubin.mlir
// TOOLKIT: error:
// TOOLKIT-NOT: #gpu.object

// The wrapper leaves a working format alone.
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a format=isa" | FileCheck %s --check-prefix=ISA
// ISA: gpu.binary @nvfp4_kernels
// ISA-SAME: #gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">, {{.*}}assembly =

func.func @mm(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<128x256, 1x16>) -> tensor<128x128xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}
