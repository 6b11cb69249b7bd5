// M and N that are not multiples of the tcgen05 kernel's CTA tile: the grid
// and the persistent tile loop count ceil(M / 128) x ceil(N / tileN)
// tiles, TMA zero-fills the boxes past the operands, the scale rows past M
// or N read the operand's last row, and the epilogue stores only inside
// M x N (element by element when N % 4 != 0). The emulated runs are in
// test/GPU/matmul-sm100-emulated.mlir (Inputs/matmul-ragged-tcgen05-cases
// .mlir), bit-exact with the reference.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_103a %t.sm_103a.ptx -o %t.sm_103a.cubin %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_110a %t.sm_110a.ptx -o %t.sm_110a.cubin %}

// N = 129 > 128: tile N 256.
// CHECK-LABEL: func.func @ragged(
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m100n129k256_t256_1x16_1x16_f32
func.func @ragged(%a: !nvfp4.tensor<100x256, 1x16>, %b: !nvfp4.tensor<129x256, 1x16>) -> tensor<100x129xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<100x256, 1x16>, !nvfp4.tensor<129x256, 1x16> -> tensor<100x129xf32>
  return %c : tensor<100x129xf32>
}

// CHECK-LABEL: gpu.func @nvfp4_tcgen05_matmul_m100n129k256_t256_1x16_1x16_f32(
// Scale rows clamped to the last row of A (99) and of B (128).
// CHECK-DAG: %[[C99:.*]] = arith.constant 99 : i32
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: arith.minui %{{.*}}, %[[C99]] : i32
// CHECK: arith.minui %{{.*}}, %[[C128]] : i32
// The epilogue: N = 129 is not a multiple of 4, so each element of a
// lane's group is stored alone, under row < M and column < N.
// CHECK: %[[ROWIN:.*]] = arith.cmpi ult, %[[ROW:.*]], %c100_i32 : i32
// CHECK-NEXT: %[[COLIN:.*]] = arith.cmpi ult, %[[COL:.*]], %c129_i32 : i32
// CHECK-NEXT: %[[IN:.*]] = arith.andi %[[ROWIN]], %[[COLIN]] : i1
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT:   %[[V:.*]] = llvm.extractelement
// CHECK:        llvm.store %[[V]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<1>
