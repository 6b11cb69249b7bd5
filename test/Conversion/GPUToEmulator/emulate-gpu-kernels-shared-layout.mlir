// Static shared memory is laid out per kernel, as on the hardware: two
// kernels of one gpu.module each find their shared variable at offset 0 of
// their CTA's shared memory, and each launch passes its own kernel's static
// size. (A layout over the whole module put the second kernel's variables
// after the first's, so a module of many matmul kernels exceeded the
// 227 KiB of a CTA.) The matmul kernels keep their staging buffers in
// dynamic shared memory, which starts after a kernel's static variables:
// at offset 0 here, where they have none.

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvfp4-emulate-gpu-kernels)' \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" | FileCheck %s --check-prefix=LAUNCH

// CHECK: gpu.binary @nvfp4_kernels {nvfp4.emulated = {nvfp4_matmul_m128n128k128_1x16_1x16_f32 = [[BIG:[0-9]+]] : i64, nvfp4_matmul_m64n64k64_1x16_1x16_f32 = [[SMALL:[0-9]+]] : i64}}
// Each kernel's staging buffers start at offset 0 (the A tiles).
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_nvfp4_kernels_nvfp4_matmul_m128n128k128_1x16_1x16_f32(
// CHECK:         %[[Z1:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    llvm.call @nvfp4EmuShared(%{{.*}}, %[[Z1]])
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_nvfp4_kernels_nvfp4_matmul_m64n64k64_1x16_1x16_f32(
// CHECK:         %[[Z0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    llvm.call @nvfp4EmuShared(%{{.*}}, %[[Z0]])

// Both kernels use 64x64 tiles: no static shared memory, and the same
// dynamic 4 x ((64 + 64) x 64 bytes of codes + (64 + 64) x 8 scale bytes),
// 36864 bytes each.
// LAUNCH-LABEL: llvm.func @two_matmuls(
// LAUNCH:         %[[DYN:.*]] = llvm.mlir.constant(36864 : i32) : i32
// LAUNCH:         %[[S0:.*]] = llvm.mlir.constant(0 : i64) : i64
// LAUNCH-NEXT:    llvm.call @nvfp4EmuLaunch({{.*}}, %[[S0]], %[[DYN]], %{{.*}}, %{{.*}})
// LAUNCH:         %[[S1:.*]] = llvm.mlir.constant(0 : i64) : i64
// LAUNCH-NEXT:    llvm.call @nvfp4EmuLaunch({{.*}}, %[[S1]], %[[DYN]], %{{.*}}, %{{.*}})
func.func @two_matmuls(%a: !nvfp4.tensor<64x64, 1x16>, %b: !nvfp4.tensor<64x64, 1x16>,
                       %c: !nvfp4.tensor<128x128, 1x16>, %d: !nvfp4.tensor<128x128, 1x16>)
    -> (tensor<64x64xf32>, tensor<128x128xf32>) {
  %x = nvfp4.matmul %a, %b : !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %y = nvfp4.matmul %c, %d : !nvfp4.tensor<128x128, 1x16>, !nvfp4.tensor<128x128, 1x16> -> tensor<128x128xf32>
  return %x, %y : tensor<64x64xf32>, tensor<128x128xf32>
}
