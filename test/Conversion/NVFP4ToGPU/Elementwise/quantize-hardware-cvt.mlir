// nvfp4.quantize on the tcgen05 targets: round-to-nearest through the
// hardware cvt.rn.satfinite.e2m1x2.f32 (nvvm.convert.f32x2.to.f4x2) on
// sm_100a / sm_103a / sm_110a; stochastic rounding in software unless
// hardware-sr asks for cvt.rs.satfinite.e2m1x4.f32 (sm_100a / sm_103a).

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" | FileCheck %s --check-prefixes=CHECK,SOFTSR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_103a" | FileCheck %s --check-prefixes=CHECK,SOFTSR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a" | FileCheck %s --check-prefixes=CHECK,SOFTSR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a hardware-sr=true" | FileCheck %s --check-prefixes=CHECK,HWSR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_103a hardware-sr=true" | FileCheck %s --check-prefixes=CHECK,HWSR

// CHECK-LABEL: func.func @act(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_1x16_f32_rn
func.func @act(%x: tensor<64x256xf32>) -> !nvfp4.tensor<64x256, 1x16> {
  %q = nvfp4.quantize %x : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %q : !nvfp4.tensor<64x256, 1x16>
}

// CHECK-LABEL: func.func @grad(
// SOFTSR:        gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_1x16_f32_rs_o8
// HWSR:          gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x256_1x16_f32_rs_o8_hw
func.func @grad(%g: tensor<64x256xf32>, %seed: i64) -> !nvfp4.tensor<64x256, 1x16> {
  %q = nvfp4.quantize %g rounding rs seed %seed offset 8 : tensor<64x256xf32> -> !nvfp4.tensor<64x256, 1x16>
  return %q : !nvfp4.tensor<64x256, 1x16>
}

// The stochastic kernel comes first in the kernel module.
// SR in software: no conversion op at all.
// SOFTSR:        gpu.func @nvfp4_quantize_64x256_1x16_f32_rs_o8(
// SOFTSR-NOT:      nvvm.convert
// SOFTSR:          gpu.return

// SR in hardware: four conversions, one per Philox word; rbits is the word
// with bytes 1 and 2 swapped (w & 0xFF0000FF | (w >> 8) & 0xFF00 |
// (w << 8) & 0xFF0000), the operands {y3, y2, y1, y0}.
// HWSR:          gpu.func @nvfp4_quantize_64x256_1x16_f32_rs_o8_hw(
// HWSR-DAG:        %[[KEEP:.*]] = arith.constant -16776961 : i32
// HWSR-DAG:        %[[MID:.*]] = arith.constant 65280 : i32
// HWSR-DAG:        %[[HIGH:.*]] = arith.constant 16711680 : i32
// HWSR-DAG:        %[[EIGHT:.*]] = arith.constant 8 : i32
// HWSR-DAG:        %[[K:.*]] = arith.andi %[[W:.*]], %[[KEEP]] : i32
// HWSR-DAG:        %[[S:.*]] = arith.shrui %[[W]], %[[EIGHT]] : i32
// HWSR-DAG:        %[[M:.*]] = arith.andi %[[S]], %[[MID]] : i32
// HWSR-DAG:        %[[KM:.*]] = arith.ori %[[K]], %[[M]] : i32
// HWSR-DAG:        %[[L:.*]] = arith.shli %[[W]], %[[EIGHT]] : i32
// HWSR-DAG:        %[[H:.*]] = arith.andi %[[L]], %[[HIGH]] : i32
// HWSR:            %[[R:.*]] = arith.ori %[[KM]], %[[H]] : i32
// HWSR:            llvm.insertelement %[[Y3:.*]], %{{.*}}[%{{.*}} : i32] : vector<4xf32>
// HWSR:            llvm.insertelement %[[Y2:.*]], %{{.*}}[%{{.*}} : i32] : vector<4xf32>
// HWSR:            llvm.insertelement %[[Y1:.*]], %{{.*}}[%{{.*}} : i32] : vector<4xf32>
// HWSR:            %[[V:.*]] = llvm.insertelement %[[Y0:.*]], %{{.*}}[%{{.*}} : i32] : vector<4xf32>
// HWSR:            nvvm.convert.f32x4.to.f4x4 %[[V]], %[[R]] : vector<4xf32> -> i16(f4E2M1FN)
// HWSR-COUNT-3:    nvvm.convert.f32x4.to.f4x4 %{{.*}}, %{{.*}} : vector<4xf32> -> i16(f4E2M1FN)
// HWSR-NOT:        nvvm.convert
// HWSR:            gpu.return

// RN: eight conversions, the odd element first (it lands in the high nibble).
// CHECK:         gpu.func @nvfp4_quantize_64x256_1x16_f32_rn(
// CHECK-COUNT-8:   nvvm.convert.f32x2.to.f4x2 %{{.*}}, %{{.*}} : i8(f4E2M1FN)
// CHECK-NOT:       nvvm.convert
// CHECK:           gpu.return
