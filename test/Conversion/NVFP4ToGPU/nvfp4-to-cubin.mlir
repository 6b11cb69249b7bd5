// REQUIRES: ptxas
// nvfp4-to-ptx{format=bin}: ptxas of the toolkit at cuda-path assembles the
// kernels; nvfp4-translate --nvfp4-extract-cubin writes the ELF file.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a format=bin cuda-path=%cuda_path" | FileCheck %s --check-prefix=MLIR
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a format=bin cuda-path=%cuda_path" \
// RUN:   | nvfp4-translate --nvfp4-extract-cubin -o %t.sm_120a.cubin
// RUN: od -An -c -N4 %t.sm_120a.cubin | FileCheck %s --check-prefix=ELF
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a format=bin cuda-path=%cuda_path" \
// RUN:   | nvfp4-translate --nvfp4-extract-cubin -o %t.sm_90a.cubin
// RUN: od -An -c -N4 %t.sm_90a.cubin | FileCheck %s --check-prefix=ELF

// A cubin is not PTX: asking for the PTX of it is an error.
// RUN: nvfp4-opt %s --nvfp4-to-ptx="format=bin cuda-path=%cuda_path" \
// RUN:   | not nvfp4-translate --nvfp4-extract-ptx 2>&1 | FileCheck %s --check-prefix=NOPTX

// MLIR:  gpu.binary @nvfp4_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">, {{.*}}bin = "\7FELF
// ELF:   177   E   L   F
// NOPTX: error: gpu.binary @nvfp4_kernels has no GPU object of format 'assembly'

func.func @f32(%a: !nvfp4.tensor<64x128, 1x16>,
               %b: !nvfp4.tensor<64x128, 1x16>) -> tensor<64x64xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<64x128, 1x16>,
         !nvfp4.tensor<64x128, 1x16> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}
