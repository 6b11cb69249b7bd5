// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" -o %t.sm_100a.mlir
// RUN: FileCheck %s --input-file=%t.sm_100a.mlir
// RUN: FileCheck %s --input-file=%t.sm_100a.mlir --check-prefix=MXFP4
// RUN: FileCheck %s --input-file=%t.sm_100a.mlir --check-prefix=MXFP8
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a" -o %t.sm_110a.mlir
// RUN: FileCheck %s --input-file=%t.sm_110a.mlir
// RUN: FileCheck %s --input-file=%t.sm_110a.mlir --check-prefix=MXFP4
// RUN: FileCheck %s --input-file=%t.sm_110a.mlir --check-prefix=MXFP8

// The MX GEMMs on the tcgen05 kernel (docs/tcgen05.md, "MX operands"):
// the operands pass their codes, tensor map and E8M0 scales (no amax); K
// tiles are 128 bytes of a row (256 E2M1 or 128 8-bit codes); a stage
// holds 2 (MXFP4) or 1 (MXFP8) scale atoms per 128 rows, each lane loads
// 8 or 4 scale bytes of a row per K tile; the MMAs are kind::mxf4 or
// kind::mxf8f6f4 with .block32, their instruction descriptors select the
// byte of the scale cells by the scale ids; the epilogue has no alpha.

// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: FileCheck %s --input-file=%t.sm_100a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_100a -v %t.sm_100a.ptx -o %t.sm_100a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_103a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_103a.ptx
// RUN: FileCheck %s --input-file=%t.sm_103a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_103a -v %t.sm_103a.ptx -o %t.sm_103a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_110a" | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_110a.ptx
// RUN: FileCheck %s --input-file=%t.sm_110a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_110a -v %t.sm_110a.ptx -o %t.sm_110a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// MXFP4 x MXFP4, 256 x 256 x 512: the 128 x 256 tile, two K tiles. The
// tensor maps: [256 rows, 256 bytes] in boxes of 128 bytes x 128 (A) and
// 256 (B) rows.
// CHECK-LABEL: func.func @mxfp4(
// CHECK:         %[[AD:.*]], %[[AS:.*]] = nvfp4.disassemble %arg0 : !nvfp4.tensor<256x512, 1x32, mxfp4>
// CHECK:         %[[ADB:.*]] = bufferization.to_buffer %[[AD]] read_only : tensor<256x512xf4E2M1FN> to memref<256x512xf4E2M1FN>
// CHECK:         %[[ASB:.*]] = bufferization.to_buffer %[[AS]] read_only : tensor<256x16xf8E8M0FNU> to memref<256x16xf8E8M0FNU>
// CHECK:         %[[BSB:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<256x16xf8E8M0FNU> to memref<256x16xf8E8M0FNU>
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK-NEXT:    %[[AMAP:.*]] = llvm.load
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c256_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c256_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.load
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_mxfp4_mxfp4_f32
// CHECK-SAME:      dynamic_shared_memory_size %c218240_i32
// CHECK-SAME:      args(%[[ADB]] : memref<256x512xf4E2M1FN>, %[[AMAP]] : !llvm.array<16 x i64>, %[[ASB]] : memref<256x16xf8E8M0FNU>, %{{.*}} : memref<256x512xf4E2M1FN>, %[[BMAP]] : !llvm.array<16 x i64>, %[[BSB]] : memref<256x16xf8E8M0FNU>, %{{.*}} : memref<256x256xf32>)
// The kernel's arguments: no amax.
// MXFP4-LABEL:   gpu.func @nvfp4_tcgen05_matmul_m256n256k512_t256_mxfp4_mxfp4_f32(
// MXFP4-SAME:      %{{.*}}: memref<256x512xf4E2M1FN>, %{{.*}}: !llvm.array<16 x i64>, %{{.*}}: memref<256x16xf8E8M0FNU>, %{{.*}}: memref<256x512xf4E2M1FN>, %{{.*}}: !llvm.array<16 x i64>, %{{.*}}: memref<256x16xf8E8M0FNU>, %{{.*}}: memref<256x256xf32>)
// kind::mxf4, M 128, N 256, E2M1 (1) x E2M1, UE8M0: scale ids 0 (MMAs 0,
// 2: 0x08C00480) and 2 (MMAs 1, 3: 0x48C004A0).
// MXFP4-DAG:       %[[ID0:.*]] = arith.constant 146801792 : i32
// MXFP4-DAG:       %[[ID2:.*]] = arith.constant 1220543648 : i32
// The producer: per K tile, 8 scale bytes of a row (K / 32 = 16 bytes a
// row), 8-byte aligned, one word per atom, stored as 16-byte vectors of
// four rows.
// MXFP4:           llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// MXFP4-NOT:       llvm.load %{{.*}} -> vector<4xi32>
// MXFP4:           llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// The MMA thread: 2 A atoms + 2 x 2 B atoms copied (A atoms to columns
// +0, +4; B atoms 0 to +8, +12 and 1 to +16, +20), then MMAs 0..3 with
// scale ids 0, 2, 0, 2, reading the A / B scales of atom 0 (+0, +8) for
// MMAs 0 and 1 and of atom 1 (+4, +16) for MMAs 2 and 3.
// MXFP4-COUNT-6:           nvvm.tcgen05.cp
// MXFP4-NOT:               nvvm.tcgen05.cp
// MXFP4:                   %[[B0COL:.*]] = arith.addi %[[SC:.*]], %c8_i32 : i32
// MXFP4:                   %[[B0:.*]] = llvm.inttoptr %[[B0COL]] : i32 to !llvm.ptr<6>
// MXFP4:                   %[[A0:.*]] = llvm.inttoptr %[[SC]] : i32 to !llvm.ptr<6>
// MXFP4:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %false, %[[A0]], %[[B0]] {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>}
// MXFP4:                   %[[B0COL1:.*]] = arith.addi %[[SC]], %c8_i32 : i32
// MXFP4:                   %[[B01:.*]] = llvm.inttoptr %[[B0COL1]] : i32 to !llvm.ptr<6>
// MXFP4:                   %[[A01:.*]] = llvm.inttoptr %[[SC]] : i32 to !llvm.ptr<6>
// MXFP4:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true, %[[A01]], %[[B01]]
// MXFP4:                   %[[B1COL:.*]] = arith.addi %[[SC]], %c16_i32 : i32
// MXFP4:                   %[[B1:.*]] = llvm.inttoptr %[[B1COL]] : i32 to !llvm.ptr<6>
// MXFP4:                   %[[A1COL:.*]] = arith.addi %[[SC]], %c4_i32 : i32
// MXFP4:                   %[[A1:.*]] = llvm.inttoptr %[[A1COL]] : i32 to !llvm.ptr<6>
// MXFP4:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %true, %[[A1]], %[[B1]]
// MXFP4:                   %[[B1COL1:.*]] = arith.addi %[[SC]], %c16_i32 : i32
// MXFP4:                   %[[B11:.*]] = llvm.inttoptr %[[B1COL1]] : i32 to !llvm.ptr<6>
// MXFP4:                   %[[A1COL1:.*]] = arith.addi %[[SC]], %c4_i32 : i32
// MXFP4:                   %[[A11:.*]] = llvm.inttoptr %[[A1COL1]] : i32 to !llvm.ptr<6>
// MXFP4:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true, %[[A11]], %[[B11]]
// That was K tile 0; the loop over K tile 1 copies and multiplies the same
// way, every MMA accumulating.
// MXFP4:                   scf.for %{{.*}} = %c1_i32 to %c2_i32 step %c1_i32 iter_args(
// MXFP4-COUNT-6:             nvvm.tcgen05.cp
// MXFP4-NOT:                 nvvm.tcgen05.cp
// MXFP4:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %true,
// MXFP4:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true,
// MXFP4:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %true,
// MXFP4:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true,
// MXFP4-NOT:               nvvm.tcgen05.mma
// The epilogue stores the accumulator as it is: no alpha.
// MXFP4:           nvvm.tcgen05.ld
// MXFP4-NOT:       arith.mulf
// MXFP4:           llvm.store
func.func @mxfp4(%a: !nvfp4.tensor<256x512, 1x32, mxfp4>, %b: !nvfp4.tensor<256x512, 1x32, mxfp4>) -> tensor<256x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x32, mxfp4>, !nvfp4.tensor<256x512, 1x32, mxfp4> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}


// MXFP8 (E4M3) x MXFP8 (E5M2), 128 x 64 x 384 with a bf16 accumulator: the
// 128 x 64 tile, three K tiles of 128; [rows, 384 bytes] tensor maps.
// CHECK-LABEL: func.func @mxfp8(
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c384_i64{{(_[0-9]+)?}}, %c128_i64{{(_[0-9]+)?}}, %c384_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%{{.*}}, %{{.*}}, %c384_i64{{(_[0-9]+)?}}, %c64_i64{{(_[0-9]+)?}}, %c384_i64{{(_[0-9]+)?}}, %c128_i32{{(_[0-9]+)?}}, %c64_i32{{(_[0-9]+)?}}, %c3_i32{{(_[0-9]+)?}})
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k384_t64_mxfp8_e4m3_mxfp8_e5m2_bf16_acc
// CHECK-SAME:      dynamic_shared_memory_size %c163072_i32
// CHECK-SAME:      args(%{{.*}} : memref<128x384xf8E4M3FN>, %{{.*}} : !llvm.array<16 x i64>, %{{.*}} : memref<128x12xf8E8M0FNU>, %{{.*}} : memref<64x384xf8E5M2>, %{{.*}} : !llvm.array<16 x i64>, %{{.*}} : memref<64x12xf8E8M0FNU>, %{{.*}} : memref<128x64xbf16>, %{{.*}} : memref<128x64xbf16>)
// kind::mxf8f6f4, M 128, N 64, A E4M3 (0), B E5M2 (1 << 10), UE8M0: scale
// ids 0, 1, 2, 3 for A (bits 29-30) and B (bits 4-5).
// MXFP8-LABEL:   gpu.func @nvfp4_tcgen05_matmul_m128n64k384_t64_mxfp8_e4m3_mxfp8_e5m2_bf16_acc(
// MXFP8-DAG:       %[[ID0:.*]] = arith.constant 143655936 : i32
// MXFP8-DAG:       %[[ID1:.*]] = arith.constant 680526864 : i32
// MXFP8-DAG:       %[[ID2:.*]] = arith.constant 1217397792 : i32
// MXFP8-DAG:       %[[ID3:.*]] = arith.constant 1754268720 : i32
// The producer: 4 scale bytes of a row per K tile (K / 32 = 12 a row),
// 4-byte aligned.
// MXFP8:           llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<1xi32>
// One A atom and one B atom per K tile; all four MMAs read the atoms at
// scale columns +0 (A) and +4 (B).
// MXFP8-COUNT-2:           nvvm.tcgen05.cp
// MXFP8-NOT:               nvvm.tcgen05.cp
// MXFP8:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %false, %{{.*}}, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
// MXFP8:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID1]], %true,
// MXFP8:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true,
// MXFP8:                   nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID3]], %true,
// K tile 0 above; K tiles 1 and 2 in the loop, every MMA accumulating.
// MXFP8:                   scf.for %{{.*}} = %c1_i32 to %c3_i32 step %c1_i32 iter_args(
// MXFP8-COUNT-2:             nvvm.tcgen05.cp
// MXFP8-NOT:                 nvvm.tcgen05.cp
// MXFP8:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID0]], %true,
// MXFP8:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID1]], %true,
// MXFP8:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID2]], %true,
// MXFP8:                     nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %[[ID3]], %true,
// MXFP8-NOT:               nvvm.tcgen05.mma
// The epilogue adds the accumulator to the unscaled result.
// MXFP8:           nvvm.tcgen05.ld
// MXFP8-NOT:       arith.mulf
// MXFP8:           arith.addf
func.func @mxfp8(%a: !nvfp4.tensor<128x384, 1x32, mxfp8_e4m3>, %b: !nvfp4.tensor<64x384, 1x32, mxfp8_e5m2>, %acc: tensor<128x64xbf16>) -> tensor<128x64xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<128x64xbf16>) : !nvfp4.tensor<128x384, 1x32, mxfp8_e4m3>, !nvfp4.tensor<64x384, 1x32, mxfp8_e5m2> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}

// PTX-DAG: tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32
// PTX-DAG: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}
