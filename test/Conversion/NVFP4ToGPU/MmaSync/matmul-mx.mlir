// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_121a | FileCheck %s

// The MXFP4 x MXFP4 GEMM on sm_120a / sm_121a: the mma.sync kernel with
// kind::mxf4, scale_vec::2X and UE8M0 scales. The operands pass their codes
// and E8M0 scales (no tensor scale); a K step's four scale bytes of a row
// are loaded one by one into its scale word (byte i: the block of k
// 32i..32i+31), and the MMA of K slice s selects bytes 2s and 2s + 1
// (byte-id 2s); the epilogue has no alpha.

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_120a features=+ptx87},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_120a.ptx
// RUN: FileCheck %s --input-file=%t.sm_120a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_121a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_121a features=+ptx88},gpu-module-to-binary{format=isa})' \
// RUN:   | sed -n 's/.*assembly = "\(.*\)".*/\1/p' | sed -e 's/\\0A/\n/g' -e 's/\\09/\t/g' -e 's/\\22/"/g' > %t.sm_121a.ptx
// RUN: FileCheck %s --input-file=%t.sm_121a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_121a %t.sm_121a.ptx -o %t.sm_121a.cubin %}

// CHECK-LABEL: func.func @mx
// CHECK: %[[AD:.*]], %[[AS:.*]] = nvfp4.disassemble %arg0 : !nvfp4.tensor<128x96, 1x32, mxfp4>
// CHECK: %[[ADB:.*]] = bufferization.to_buffer %[[AD]] read_only : tensor<128x96xf4E2M1FN> to memref<128x96xf4E2M1FN>
// CHECK: %[[ASB:.*]] = bufferization.to_buffer %[[AS]] read_only : tensor<128x3xf8E8M0FNU> to memref<128x3xf8E8M0FNU>
// CHECK: %[[BD:.*]], %[[BS:.*]] = nvfp4.disassemble %arg1
// CHECK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m128n64k96_mxfp4_mxfp4_bf16
// CHECK-SAME: args(%[[ADB]] : memref<128x96xf4E2M1FN>, %[[ASB]] : memref<128x3xf8E8M0FNU>, %{{.*}} : memref<64x96xf4E2M1FN>, %{{.*}} : memref<64x3xf8E8M0FNU>, %{{.*}} : memref<128x64xbf16>)

// CHECK: gpu.func @nvfp4_matmul_m128n64k96_mxfp4_mxfp4_bf16(%[[LD:.*]]: memref<128x96xf4E2M1FN>, %[[LS:.*]]: memref<128x3xf8E8M0FNU>, %[[RD:.*]]: memref<64x96xf4E2M1FN>, %[[RS:.*]]: memref<64x3xf8E8M0FNU>, %[[OUT:.*]]: memref<128x64xbf16>)
// CHECK-DAG: %[[SEL0:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-DAG: %[[SEL2:.*]] = llvm.mlir.constant(2 : i16) : i16
// The scale rows are K / 32 = 3 bytes long; a K step reads bytes 4 kt to
// 4 kt + 3 (past the row's end: zero), byte i shifted into bits 8i..8i+7;
// in step 0 byte 3 is past the end and folds away.
// CHECK: %[[AROW:.*]] = arith.muli %{{.*}}, %c3 : index
// CHECK: %[[BROW:.*]] = arith.muli %{{.*}}, %c3 : index
// CHECK: %[[B0:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: %[[W0:.*]] = arith.extui %[[B0]] : i8 to i32
// CHECK: %[[A1:.*]] = arith.addi %[[AROW]], %c1 : index
// CHECK: %[[B1:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK: %[[W1:.*]] = arith.extui %[[B1]] : i8 to i32
// CHECK: %[[S1:.*]] = arith.shli %[[W1]], %c8_i32 : i32
// CHECK: %[[WORD1:.*]] = arith.ori %[[W0]], %[[S1]] : i32
// CHECK: %[[S2:.*]] = arith.shli %{{.*}}, %c16_i32 : i32
// CHECK: %[[WORD:.*]] = arith.ori %[[WORD1]], %[[S2]] : i32
// CHECK: llvm.store %[[WORD]]
// CHECK-NOT: nvvm.cp.async.shared.global {{.*}}, 4,
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[SA:.*]], %[[SEL0]], %[[SEL0]]] scaleB[%[[SB:.*]], %[[SEL0]], %[[SEL0]]]
// CHECK-SAME: blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>
// The second slice: the same scale words, bytes 2 and 3 (byte-id 2).
// CHECK-NOT: arith.shrui
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[SA]], %[[SEL2]], %[[SEL0]]] scaleB[%[[SB]], %[[SEL2]], %[[SEL0]]]
// CHECK-SAME: blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>
// No alpha: the accumulator is rounded to bf16 and stored.
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: arith.mulf
// CHECK: %[[V0:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: %[[V1:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: %[[P0:.*]] = llvm.insertelement %[[V0]]
// CHECK-NEXT: %[[P:.*]] = llvm.insertelement %[[V1]], %[[P0]]
// CHECK: llvm.store %[[P]], %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>

// PTX-LABEL: .visible .entry nvfp4_matmul_m128n64k96_mxfp4_mxfp4_bf16(
// PTX: mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0
// PTX-NOT: ue4m3
func.func @mx(%a: !nvfp4.tensor<128x96, 1x32, mxfp4>, %b: !nvfp4.tensor<64x96, 1x32, mxfp4>) -> tensor<128x64xbf16> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<128x96, 1x32, mxfp4>, !nvfp4.tensor<64x96, 1x32, mxfp4> -> tensor<128x64xbf16>
  return %y : tensor<128x64xbf16>
}

