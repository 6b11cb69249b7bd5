// hardware-sr on a target without cvt.rs.satfinite.e2m1x4.f32 (it exists on
// sm_100a and sm_103a only) is an error at the stochastic quantize; the
// round-to-nearest quantize of the same module is not affected.

// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a hardware-sr=true" 2>&1 | FileCheck %s -DTARGET=sm_110a
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a hardware-sr=true" 2>&1 | FileCheck %s -DTARGET=sm_120a
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a hardware-sr=true" 2>&1 | FileCheck %s -DTARGET=sm_121a
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a hardware-sr=true" 2>&1 | FileCheck %s -DTARGET=sm_90a
// RUN: not nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a hardware-sr=true" 2>&1 | FileCheck %s -DTARGET=sm_120a

// Without hardware-sr the same module lowers (SR in software).
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=SOFT

// CHECK:     quantize-hardware-sr-invalid.mlir:[[# @LINE + 7]]:{{[0-9]+}}: error: 'nvfp4.quantize' op with rounding rs cannot use hardware-sr on [[TARGET]]: cvt.rs.satfinite.e2m1x4.f32 exists on sm_100a and sm_103a only (drop hardware-sr to round in software)
// CHECK-NOT: error:

// SOFT-DAG: gpu.func @nvfp4_quantize_64x256_1x16_f32_rs_o0(
// SOFT-DAG: gpu.func @nvfp4_quantize_64x256_1x16_f32_rn(

func.func @f(%x: tensor<64x256xf32>, %seed: i64) -> (!nvfp4.tensor<64x256, 1x16>, !nvfp4.tensor<64x256, 1x16>) {
  %sr = nvfp4.quantize %x rounding rs seed %seed offset 0 : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  %rn = nvfp4.quantize %x : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %sr, %rn : !nvfp4.tensor<64x256, 1x16>, !nvfp4.tensor<64x256, 1x16>
}
