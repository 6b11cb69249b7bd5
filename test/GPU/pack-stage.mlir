// The two passes of nvfp4-to-gpu-executable that move kernel operands to
// the device, on their own.
//
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" \
// RUN:   --nvfp4-gpu-pack-launch-operands | FileCheck %s --check-prefix=PACK
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" \
// RUN:   --nvfp4-gpu-pack-launch-operands --convert-nvfp4-to-reference \
// RUN:   --convert-elementwise-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --nvfp4-gpu-stage-launch-operands | FileCheck %s --check-prefix=STAGE

// E2M1 codes: 64 x 128 -> 4096 bytes, even element in the low nibble.
// PACK-LABEL: func.func @matmul
// PACK: %[[OUT:.*]] = memref.alloc() : memref<64x64xf32>
// PACK: %[[C:.*]] = arith.bitcast %{{.*}} : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
// PACK: %[[C8:.*]] = arith.extui %[[C]] : tensor<64x128xi4> to tensor<64x128xi8>
// PACK: %[[F:.*]] = tensor.collapse_shape %[[C8]] {{\[\[}}0, 1]] : tensor<64x128xi8> into tensor<8192xi8>
// PACK-DAG: %[[LO:.*]] = tensor.extract_slice %[[F]][0] [4096] [2]
// PACK-DAG: %[[HI:.*]] = tensor.extract_slice %[[F]][1] [4096] [2]
// PACK: %[[SH:.*]] = arith.shli %[[HI]], %{{.*}} : tensor<4096xi8>
// PACK: %[[P:.*]] = arith.ori %[[LO]], %[[SH]] : tensor<4096xi8>
// PACK: %[[PB:.*]] = bufferization.to_buffer %[[P]] read_only : tensor<4096xi8> to memref<4096xi8>
// PACK: memref.view %[[PB]][%{{.*}}][] : memref<4096xi8> to memref<64x128xf4E2M1FN>
// E4M3 scales: one byte each.
// PACK: arith.bitcast %{{.*}} : tensor<64x8xf8E4M3FN> to tensor<64x8xi8>
// PACK: memref.view %{{.*}} : memref<512xi8> to memref<64x8xf8E4M3FN>
// PACK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n64k128_1x16_1x16_f32
// PACK-SAME: %[[OUT]] : memref<64x64xf32>
// PACK-SAME: nvfp4.operand_access = array<i32: 1, 1, 0, 1, 1, 0, 2>

// STAGE-LABEL: func.func @matmul
// STAGE: %[[D0:.*]] = gpu.alloc () : memref<4096xi8>
// STAGE: gpu.memcpy %[[D0]], %{{.*}} : memref<4096xi8>, memref<4096xi8>
// STAGE: %[[V0:.*]] = memref.view %[[D0]][%{{.*}}][] : memref<4096xi8> to memref<64x128xf4E2M1FN>
// STAGE: %[[D1:.*]] = gpu.alloc () : memref<512xi8>
// STAGE: %[[D2:.*]] = gpu.alloc () : memref<4096xi8>
// STAGE: %[[D3:.*]] = gpu.alloc () : memref<512xi8>
// STAGE: %[[DO:.*]] = gpu.alloc () : memref<64x64xf32>
// STAGE-NOT: gpu.memcpy %[[DO]], %{{.*}}
// STAGE: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n64k128_1x16_1x16_f32 {{.*}} args(%[[V0]] : memref<64x128xf4E2M1FN>
// STAGE-SAME: %[[DO]] : memref<64x64xf32>)
// STAGE-NOT: nvfp4.operand_access
// The inputs are freed after their last use, the launch; the result is
// copied back (the function returns it), then freed.
// STAGE-NEXT: gpu.dealloc %[[D0]]
// STAGE-NEXT: gpu.dealloc %[[D1]]
// STAGE-NEXT: gpu.dealloc %[[D2]]
// STAGE-NEXT: gpu.dealloc %[[D3]]
// STAGE-NEXT: gpu.memcpy %[[OUT:.*]], %[[DO]] : memref<64x64xf32>, memref<64x64xf32>
// STAGE-NEXT: gpu.dealloc %[[DO]]
// STAGE-NEXT: return %[[OUT]]
// The operands are arguments, so that the test does not depend on where
// nvfp4.quantize is lowered.
func.func @matmul(%qa: !nvfp4.tensor<64x128, 1x16>, %qb: !nvfp4.tensor<64x128, 1x16>) -> tensor<64x64xf32> {
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// Run-time sizes: the codes packed into halves of the run-time element
// count, viewed with the codes' K; the host's K checks
// read K from the integer codes, and the unpacked buffers go.
// PACK-LABEL: func.func @matmul_run_time_k
// PACK: %[[DATA:.*]], %{{.*}}, %{{.*}} = nvfp4.disassemble %arg0
// PACK-NEXT: %[[ACODES:.*]] = arith.bitcast %[[DATA]] : tensor<64x?xf4E2M1FN> to tensor<64x?xi4>
// PACK: %[[BDATA:.*]], %{{.*}}, %{{.*}} = nvfp4.disassemble %arg1
// PACK-NEXT: %[[BCODES:.*]] = arith.bitcast %[[BDATA]] : tensor<64x?xf4E2M1FN> to tensor<64x?xi4>
// PACK: %[[AK:.*]] = tensor.dim %[[ACODES]], %c1{{.*}} : tensor<64x?xi4>
// PACK: %[[BK:.*]] = tensor.dim %[[BCODES]], %c1{{.*}} : tensor<64x?xi4>
// PACK: arith.cmpi eq, %[[AK]], %[[BK]] : index
// PACK: %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<64x?xi8> into tensor<?xi8>
// PACK: %[[N:.*]] = tensor.dim %[[F]], %c0{{.*}} : tensor<?xi8>
// PACK: %[[HALF:.*]] = arith.divui %[[N]], %c2 : index
// PACK-DAG: %[[LO:.*]] = tensor.extract_slice %[[F]][0] [%[[HALF]]] [2]
// PACK-DAG: %[[HI:.*]] = tensor.extract_slice %[[F]][1] [%[[HALF]]] [2]
// PACK: %[[FOUR:.*]] = tensor.splat %{{.*}}[%[[HALF]]] : tensor<?xi8>
// PACK: %[[SH:.*]] = arith.shli %[[HI]], %[[FOUR]] : tensor<?xi8>
// PACK: %[[P:.*]] = arith.ori %[[LO]], %[[SH]] : tensor<?xi8>
// PACK: %[[PB:.*]] = bufferization.to_buffer %[[P]] read_only : tensor<?xi8> to memref<?xi8>
// PACK: %[[VK:.*]] = tensor.dim %[[ACODES]], %c1{{.*}} : tensor<64x?xi4>
// PACK: %[[VIEW:.*]] = memref.view %[[PB]][%{{.*}}][%[[VK]]] : memref<?xi8> to memref<64x?xf4E2M1FN>
// PACK-NOT: bufferization.to_buffer %{{.*}} : tensor<64x?xf4E2M1FN>
// PACK: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n64kdyn_1x16_1x16_f32
// PACK-SAME: args(%[[VIEW]] : memref<64x?xf4E2M1FN>,
func.func @matmul_run_time_k(%qa: !nvfp4.tensor<64x?, 1x16>, %qb: !nvfp4.tensor<64x?, 1x16>) -> tensor<64x64xf32> {
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<64x?, 1x16>, !nvfp4.tensor<64x?, 1x16> -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
