// MXFP8 scales in 16-byte groups on sm_120a / sm_121a: with K = 1024 a
// scale row is 32 bytes, so one 16-byte cp.async copies a row's scales of
// eight K steps (2 bytes each). The K loop runs one group per iteration.
// The group's first step loads each lane's packed scale registers whole
// (one 16-byte load for A's, one for B's: the 64x64 tile's warp tile of
// 2 x 4 MMA blocks packs into one register each), held for the group; the
// MMA of step p's K slice s takes byte 2p + s of the group: word
// (2p + s) / 4 with byte-id (2p + s) % 4 (scale_vec::1X), and no shifts.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_120a | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_120a -v %t.sm_120a.ptx -o %t.sm_120a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_121a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_121a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_121a -v %t.sm_121a.ptx -o %t.sm_121a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: gpu.func @nvfp4_matmul_m64n64k1024_mxfp8_e4m3_mxfp8_e4m3_f32(
// CHECK-DAG: %[[S0:.*]] = llvm.mlir.constant(0 : i16) : i16
// CHECK-DAG: %[[S1:.*]] = llvm.mlir.constant(1 : i16) : i16
// CHECK-DAG: %[[S2:.*]] = llvm.mlir.constant(2 : i16) : i16
// CHECK-DAG: %[[S3:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK-DAG: %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[I2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[I3:.*]] = llvm.mlir.constant(3 : i32) : i32
// The prologue copies the first group's scales: one 16-byte copy per row.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<1> -> i8
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step %c8
// CHECK: %[[AG:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: %[[A0:.*]] = llvm.extractelement %[[AG]][%[[I0]] : i32]
// CHECK-NEXT: %[[A1:.*]] = llvm.extractelement %[[AG]][%[[I1]] : i32]
// CHECK-NEXT: %[[A2:.*]] = llvm.extractelement %[[AG]][%[[I2]] : i32]
// CHECK-NEXT: %[[A3:.*]] = llvm.extractelement %[[AG]][%[[I3]] : i32]
// CHECK: %[[BG:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NEXT: %[[B0:.*]] = llvm.extractelement %[[BG]][%[[I0]] : i32]
// CHECK-NEXT: %[[B1:.*]] = llvm.extractelement %[[BG]][%[[I1]] : i32]
// CHECK-NEXT: %[[B2:.*]] = llvm.extractelement %[[BG]][%[[I2]] : i32]
// CHECK-NEXT: %[[B3:.*]] = llvm.extractelement %[[BG]][%[[I3]] : i32]
// Step 0, slice 0: byte 0.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S0]], %[[S0]]] scaleB[%[[B0]], %[[S0]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S0]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S1]], %[[S0]]] scaleB[%[[B0]], %[[S1]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S1]],
// Step 1, slice 0: byte 2.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S2]], %[[S0]]] scaleB[%[[B0]], %[[S2]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S2]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S3]], %[[S0]]] scaleB[%[[B0]], %[[S3]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A0]], %[[S3]],
// Step 2, slice 0: byte 4.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S0]], %[[S0]]] scaleB[%[[B1]], %[[S0]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S0]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S1]], %[[S0]]] scaleB[%[[B1]], %[[S1]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S1]],
// Step 3, slice 0: byte 6.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S2]], %[[S0]]] scaleB[%[[B1]], %[[S2]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S2]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S3]], %[[S0]]] scaleB[%[[B1]], %[[S3]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A1]], %[[S3]],
// Step 4, slice 0: byte 8.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S0]], %[[S0]]] scaleB[%[[B2]], %[[S0]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S0]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S1]], %[[S0]]] scaleB[%[[B2]], %[[S1]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S1]],
// Step 5, slice 0: byte 10.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S2]], %[[S0]]] scaleB[%[[B2]], %[[S2]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S2]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S3]], %[[S0]]] scaleB[%[[B2]], %[[S3]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A2]], %[[S3]],
// Step 6, slice 0: byte 12.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S0]], %[[S0]]] scaleB[%[[B3]], %[[S0]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S0]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S1]], %[[S0]]] scaleB[%[[B3]], %[[S1]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S1]],
// Step 7, slice 0: byte 14.
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S2]], %[[S0]]] scaleB[%[[B3]], %[[S2]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S2]],
// CHECK-NOT: llvm.load {{.*}} !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S3]], %[[S0]]] scaleB[%[[B3]], %[[S3]], %[[S0]]]
// CHECK-COUNT-7: nvvm.mma.block_scale A[{{.*}}] B[{{.*}}] C[{{.*}}] scaleA[%[[A3]], %[[S3]],
// CHECK-NOT: nvvm.mma.block_scale
// CHECK: scf.yield

// No spills.
// PTXAS:     Compiling entry function 'nvfp4_matmul_m64n64k1024_mxfp8_e4m3_mxfp8_e4m3_f32'
// PTXAS-NOT: {{[1-9][0-9]* bytes spill}}
// PTXAS-NOT: {{[1-9][0-9]* bytes stack frame}}
func.func @mxfp8_groups(%a: !nvfp4.tensor<64x1024, 1x32, mxfp8_e4m3>, %b: !nvfp4.tensor<64x1024, 1x32, mxfp8_e4m3>) -> tensor<64x64xf32> {
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<64x1024, 1x32, mxfp8_e4m3>, !nvfp4.tensor<64x1024, 1x32, mxfp8_e4m3> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
