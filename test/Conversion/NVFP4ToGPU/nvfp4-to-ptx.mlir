// The nvfp4-to-ptx pipeline for every target, and the PTX written to a file
// by nvfp4-translate --nvfp4-extract-ptx, assembled by ptxas.

// RUN: nvfp4-opt %s --nvfp4-to-ptx | FileCheck %s --check-prefixes=MLIR,MLIR120
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | FileCheck %s --check-prefixes=MLIR,MLIR121
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | FileCheck %s --check-prefixes=MLIR,MLIR90
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a features=+ptx88 opt-level=2" | FileCheck %s --check-prefix=OPTS

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefixes=PTX,PTX120
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefixes=PTX,PTX121
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefixes=PTX,PTX90
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm_90a.ptx -o %t.sm_90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The host side keeps its launch; the kernel module becomes a gpu.binary.
// MLIR:        module attributes {gpu.container_module}
// MLIR-LABEL:  func.func @f32(
// MLIR:          nvfp4.disassemble
// MLIR:          gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n128k1024_1x16_16x16_f32
// MLIR-NOT:    gpu.module
// MLIR120:     gpu.binary @nvfp4_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">, {{.*}}assembly = "
// MLIR121:     gpu.binary @nvfp4_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_121a", features = "+ptx88">, {{.*}}assembly = "
// MLIR90:      gpu.binary @nvfp4_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "
// MLIR-NOT:    gpu.module

// OPTS:        gpu.binary @nvfp4_kernels [#gpu.object<#nvvm.target<chip = "sm_120a", features = "+ptx88">, {{.*}}assembly = "{{.*}}.version 8.8

// PTX120:      .version 8.7
// PTX120:      .target sm_120a
// PTX121:      .version 8.8
// PTX121:      .target sm_121a
// PTX90:       .version 8.0
// PTX90:       .target sm_90a
// PTX-LABEL:   .visible .entry nvfp4_matmul_m128n128k1024_1x16_16x16_f32(
// PTX120-COUNT-32: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX121-COUNT-32: mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3
// PTX90-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:     mma.sync
// PTX:         ret;

// PTXAS:       Compiling entry function 'nvfp4_matmul_m128n128k1024_1x16_16x16_f32'
// PTXAS:       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @f32(%a: !nvfp4.tensor<128x1024, 1x16>,
               %b: !nvfp4.tensor<128x1024, 16x16>) -> tensor<128x128xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x1024, 1x16>,
         !nvfp4.tensor<128x1024, 16x16> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
