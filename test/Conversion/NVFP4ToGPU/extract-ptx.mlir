// RUN: nvfp4-translate --nvfp4-extract-ptx %s | FileCheck %s
// RUN: nvfp4-translate --nvfp4-extract-ptx %s -o %t.ptx && FileCheck %s --input-file=%t.ptx

// The object is written verbatim, unescaped, whatever else the module holds.

// CHECK:      //
// CHECK-NEXT: .version 8.7
// CHECK-NEXT: .target sm_120a
// CHECK-NEXT: .address_size 64
// CHECK-EMPTY:
// CHECK-NEXT: .visible .entry k()
// CHECK-NEXT: {
// CHECK-NEXT: 	ret;
// CHECK-NEXT: }
module attributes {gpu.container_module} {
  func.func @host(%a: !nvfp4.tensor<64x64, 1x16>) {
    %d, %s, %g = nvfp4.disassemble %a : !nvfp4.tensor<64x64, 1x16>
    return
  }
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_120a", features = "+ptx87">, assembly = "//\0A.version 8.7\0A.target sm_120a\0A.address_size 64\0A\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">]
}
