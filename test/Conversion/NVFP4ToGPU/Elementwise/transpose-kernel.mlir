// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" --split-input-file 2>&1 | FileCheck %s --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" --split-input-file | FileCheck %s --check-prefix=TCGEN05
// RUN: for target in sm_120a sm_121a sm_90a sm_100a sm_103a sm_110a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx -o %t.$target.ptx || exit 1; \
// RUN:   %if ptxas %{ %ptxas -arch=$target %t.$target.ptx -o /dev/null || exit 1; %} \
// RUN: done

// nvfp4.transpose of a 16x16-scaled tensor lowers to the transpose kernel:
// one thread per 16-element block of the result (result row = input column
// `col`, result column block `ob`), `col` fastest. It gathers the nibble of
// column `col` (bit 4 * (col % 2) of byte col / 2) from input rows
// 16 ob .. 16 ob + 15 and packs them, row t at bit 4 t; the thread of a
// tile's first column copies the tile's scale from input tile (ob, col / 16)
// to result tile (col / 16, ob). The tensor scale passes through.
// test/GPU/transpose-emulated.mlir runs it against the CPU reference.

// CHECK-LABEL: func.func @transpose(
// CHECK:         %[[D:.*]], %[[S:.*]], %[[G:.*]] = nvfp4.disassemble %arg0
// CHECK:         %[[RD:.*]] = memref.alloc() {alignment = 16 : i64} : memref<2x64x48xf4E2M1FN>
// CHECK:         %[[RS:.*]] = memref.alloc() {alignment = 16 : i64} : memref<2x4x3xf8E4M3FN>
// CHECK:         %[[ID:.*]] = bufferization.to_buffer %[[D]]
// CHECK:         %[[IS:.*]] = bufferization.to_buffer %[[S]]
// 2 x 64 x 3 = 384 threads: 3 CTAs of 128.
// CHECK:         %[[C3:.*]] = arith.constant 3 : index
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_transpose_2x48x64 blocks in (%[[C3]], {{.*}}) threads in (%c128, {{.*}}) args(%[[ID]] : memref<2x48x64xf4E2M1FN>, %[[IS]] : memref<2x3x4xf8E4M3FN>, %[[RD]] : memref<2x64x48xf4E2M1FN>, %[[RS]] : memref<2x4x3xf8E4M3FN>)
// CHECK:         %[[TD:.*]] = bufferization.to_tensor %[[RD]]
// CHECK:         %[[TS:.*]] = bufferization.to_tensor %[[RS]]
// CHECK:         %[[R:.*]] = nvfp4.assemble %[[TD]], %[[TS]], %[[G]]
// CHECK:         return %[[R]]
// CHECK:       gpu.func @nvfp4_transpose_2x48x64(%[[IN:.*]]: memref<2x48x64xf4E2M1FN>, %[[INS:.*]]: memref<2x3x4xf8E4M3FN>, %[[OUT:.*]]: memref<2x64x48xf4E2M1FN>, %[[OUTS:.*]]: memref<2x4x3xf8E4M3FN>)
// CHECK:         %[[GID:.*]] = arith.addi
// CHECK:         %[[VALID:.*]] = arith.cmpi ult, %[[GID]], %c384 : index
// CHECK:         scf.if %[[VALID]] {
// CHECK:           %[[COL:.*]] = arith.remui %[[GID]], %c64 : index
// CHECK:           %[[Q:.*]] = arith.divui %[[GID]], %c64 : index
// CHECK:           %[[OB:.*]] = arith.remui %[[Q]], %c3 : index
// CHECK:           %[[BATCH:.*]] = arith.divui %[[GID]], %c192 : index
// The first input row: batch * 48 + 16 ob.
// CHECK:           %[[B48:.*]] = arith.muli %[[BATCH]], %c48 : index
// CHECK:           %[[OB16:.*]] = arith.muli %[[OB]], %c16 : index
// CHECK:           %[[ROW0:.*]] = arith.addi %[[B48]], %[[OB16]] : index
// CHECK:           %[[COLBYTE:.*]] = arith.divui %[[COL]], %c2 : index
// CHECK:           %[[ODD:.*]] = arith.remui %[[COL]], %c2 : index
// CHECK:           %[[SH:.*]] = arith.muli %[[ODD]], %c4 : index
// CHECK:           %[[SHIFT:.*]] = arith.index_castui %[[SH]] : index to i64
// Row 0: byte row0 * 32 + col / 2, nibble at bit 0 of the block.
// CHECK:           %[[B0:.*]] = arith.muli %[[ROW0]], %c32 : index
// CHECK:           %[[A0:.*]] = arith.addi %[[B0]], %[[COLBYTE]] : index
// CHECK:           %[[L0:.*]] = llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:           %[[E0:.*]] = arith.extui %[[L0]] : i8 to i64
// CHECK:           %[[S0:.*]] = arith.shrui %[[E0]], %[[SHIFT]] : i64
// CHECK:           %[[N0:.*]] = arith.andi %[[S0]], %c15_i64 : i64
// Row 1 at bit 4.
// CHECK:           %[[R1:.*]] = arith.addi %[[ROW0]], %c1 : index
// CHECK:           arith.muli %[[R1]], %c32 : index
// CHECK:           %[[N1:.*]] = arith.andi %{{.*}}, %c15_i64 : i64
// CHECK:           %[[N1S:.*]] = arith.shli %[[N1]], %c4_i64 : i64
// CHECK:           %[[P1:.*]] = arith.ori %[[N0]], %[[N1S]] : i64
// The 8 bytes at (batch * 64 + col) * 24 + 8 ob.
// CHECK:           %[[B64:.*]] = arith.muli %[[BATCH]], %c64 : index
// CHECK:           %[[RROW:.*]] = arith.addi %[[B64]], %[[COL]] : index
// CHECK:           %[[RB:.*]] = arith.muli %[[RROW]], %c24 : index
// CHECK:           %[[OB8:.*]] = arith.muli %[[OB]], %c8 : index
// CHECK:           arith.addi %[[RB]], %[[OB8]] : index
// CHECK:           llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : i64, !llvm.ptr<1>
// CHECK:           %[[C16:.*]] = arith.remui %[[COL]], %c16 : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[C16]], %c0 : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr<1> -> i8
// CHECK:             llvm.store %{{.*}}, %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr<1>
func.func @transpose(%w: !nvfp4.tensor<2x48x64, 16x16>) -> !nvfp4.tensor<2x64x48, 16x16> {
  %t = nvfp4.transpose %w : !nvfp4.tensor<2x48x64, 16x16> -> !nvfp4.tensor<2x64x48, 16x16>
  return %t : !nvfp4.tensor<2x64x48, 16x16>
}

// -----

// A quantized weight read transposed by a matmul: the transpose reads the
// quantize kernel's buffers (no copy); on tcgen05 targets with K = 48 it
// writes storage 64 columns wide (blocks past the 3 input row blocks are
// zeros) that the matmul reads in place (the argument A is copied).
// CHECK-LABEL: func.func @weight(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_48x64_16x16_f32_rn {{.*}}, %[[QD:.*]] : memref<48x64xf4E2M1FN>, %[[QS:.*]] : memref<3x4xf8E4M3FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_transpose_48x64 {{.*}} args(%[[QD]] : memref<48x64xf4E2M1FN>, %[[QS]] : memref<3x4xf8E4M3FN>, %[[TD:.*]] : memref<64x48xf4E2M1FN>,
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_{{.*}} args({{.*}}, %[[TD]] : memref<64x48xf4E2M1FN>
// TCGEN05-LABEL: func.func @weight(
// TCGEN05:       gpu.launch_func @nvfp4_kernels::@nvfp4_transpose_48x64_pad64 {{.*}}, %[[TD:.*]] : memref<64x64xf4E2M1FN>, %[[TS:.*]] : memref<4x4xf8E4M3FN>)
// TCGEN05:       gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n64k64_{{.*}}, %[[TD]] : memref<64x64xf4E2M1FN>, %{{.*}} : !llvm.array<16 x i64>, %[[TS]] : memref<4x4xf8E4M3FN>,
// TCGEN05:       gpu.func @nvfp4_transpose_48x64_pad64(
// TCGEN05:         %[[OB:.*]] = arith.remui %{{.*}}, %c4 : index
// TCGEN05:         %[[INSIDE:.*]] = arith.cmpi ult, %[[OB]], %c3 : index
// TCGEN05:         %{{.*}}:2 = scf.if %[[INSIDE]] -> (i64, i8) {
// TCGEN05:         } else {
// TCGEN05:           scf.yield %c0_i64, %c0_i8 : i64, i8
func.func @weight(%x: !nvfp4.tensor<128x48, 1x16>, %w: tensor<48x64xf32>) -> tensor<128x64xf32> {
  %qw = nvfp4.quantize %w : tensor<48x64xf32> -> !nvfp4.tensor<48x64, 16x16>
  %qwt = nvfp4.transpose %qw : !nvfp4.tensor<48x64, 16x16> -> !nvfp4.tensor<64x48, 16x16>
  %y = nvfp4.matmul %x, %qwt : !nvfp4.tensor<128x48, 1x16>, !nvfp4.tensor<64x48, 16x16> -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
