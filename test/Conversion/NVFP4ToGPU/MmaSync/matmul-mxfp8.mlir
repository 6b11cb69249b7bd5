// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_121a | FileCheck %s
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_120a features=+ptx87},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_121a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_121a features=+ptx88},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_121a %t.sm_121a.ptx -o %t.sm_121a.cubin %}

// MXFP8 x MXFP8 (here E4M3 x E5M2): m16n8k32 kind::mxf8f6f4 with
// scale_vec::1X. A K step is still 32 bytes of a row (32 elements), with
// one scale byte; K = 96 is three steps, rows of 96 bytes.
// CHECK-LABEL: func.func @mxfp8
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n32k96_mxfp8_e4m3_mxfp8_e5m2_f32
// CHECK-SAME: args(%{{.*}} : memref<64x96xf8E4M3FN>, %{{.*}} : memref<64x3xf8E8M0FNU>, %{{.*}} : memref<32x96xf8E5M2>, %{{.*}} : memref<32x3xf8E8M0FNU>, %{{.*}} : memref<64x32xf32>)
// CHECK: gpu.func @nvfp4_matmul_m64n32k96_mxfp8_e4m3_mxfp8_e5m2_f32(
// Data rows of K = 96 bytes, copied in 16-byte vectors; two scale bytes a
// step (64 codes), the second shifted into bits 8-15, which the MMA of the
// step's second 32-wide K slice selects (byte-id 1). (K is not a multiple
// of the step, so the bytes are loaded one by one.)
// CHECK-DAG: %[[SEL0:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-DAG: %[[SEL1:.*]] = llvm.mlir.constant(1 : i16) : i16
// CHECK: %[[DROW:.*]] = arith.muli %{{.*}}, %c96 : index
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// A's rows are all inside M: the word is the two bytes as loaded.
// CHECK: %[[S0:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-NEXT: %[[W0:.*]] = arith.extui %[[S0]] : i8 to i32
// CHECK: %[[S1:.*]] = arith.shli %{{.*}}, %c8_i32 : i32
// CHECK-NEXT: %[[WORD:.*]] = arith.ori %[[W0]], %[[S1]] : i32
// CHECK-NOT: arith.shli
// CHECK: llvm.store %[[WORD]]
// B's rows past N = 32 (of the 64-row tile) take zeros.
// CHECK: %[[T0:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK-NEXT: %[[V0:.*]] = arith.extui %[[T0]] : i8 to i32
// CHECK-NEXT: %[[Y0:.*]] = arith.select %{{.*}}, %[[V0]], %c0_i32 : i32
// CHECK: %[[T1:.*]] = arith.shli %{{.*}}, %c8_i32 : i32
// CHECK-NEXT: %[[BWORD:.*]] = arith.ori %[[Y0]], %[[T1]] : i32
// CHECK-NOT: arith.shli
// CHECK: llvm.store %[[BWORD]]
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[SA:.*]], %[[SEL0]], %[[SEL0]]] scaleB[%[[SB:.*]], %[[SEL0]], %[[SEL0]]]
// CHECK-SAME: blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e5m2>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>
// CHECK-NOT: arith.shrui
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[SA]], %[[SEL1]], %[[SEL0]]] scaleB[%[[SB]], %[[SEL1]], %[[SEL0]]]
// CHECK-SAME: blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e5m2>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: arith.mulf
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>

// PTX-LABEL: .visible .entry nvfp4_matmul_m64n32k96_mxfp8_e4m3_mxfp8_e5m2_f32(
// PTX: mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e5m2.f32.ue8m0
func.func @mxfp8(%a: !nvfp4.tensor<64x96, 1x32, mxfp8_e4m3>, %b: !nvfp4.tensor<32x96, 1x32, mxfp8_e5m2>) -> tensor<64x32xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<64x96, 1x32, mxfp8_e4m3>, !nvfp4.tensor<32x96, 1x32, mxfp8_e5m2> -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}
