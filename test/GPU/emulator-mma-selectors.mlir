// The GPU emulator's scale selectors of block-scaled mma.sync against the
// PTX ISA ("Block Scaling for mma.sync"), on a hand-written kernel (not one
// of the project's). Row r of A takes its scale from lane
// 4 (r % 8) + 2 thread-id-a + r / 8, column n of B from lane
// 4 n + thread-id-b; of that lane's register, byte byte-id (1X), bytes
// byte-id and byte-id + 1 for K blocks 0 and 1 (2X), bytes 0..3 for K
// blocks 0..3 (4X).
//
// Each lane's scale register has byte b = 1 + 4 lane + b (UE8M0), so the
// exponent field of a product of 32 ones (A and B codes 1.0, the other
// scale 2^0) is that byte + 5, and names the lane and the byte it came
// from. For 4X (UE4M3) lane l's byte 0 is 2^(e - 7) with
// e = 1 + l % 4 + 4 ((l / 4) % 3), only K block 0 of A is non-zero (16
// ones), and the exponent field is eA + eB + 117.
//
// Rows of the first table: D[r][0] (r = 0..15) for
//   1X (mxf8f6f4 e4m3): byte-id-a 0..3 x thread-id-a 0, 1  (rows 0..7)
//   2X (mxf4): byte-id-a 0, 2 x thread-id-a 0, 1 x K block 0, 1 (8..15)
//   4X (mxf4nvf4 ue4m3): {thread-id-a, thread-id-b} = {0,0} {1,3} {0,2}
//      {1,1}                                                 (16..19)
// Rows of the second table: D[0][n] (n = 0..7) for
//   1X: byte-id-b 0..3 x thread-id-b 0..3                     (rows 0..15)
//   4X: the four selector pairs above                         (16..19)
// The expected values follow from the rule above, not from the emulator.
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @selectors {
    // Stores the exponent fields of D[r][0] into row `row` of %outA and of
    // D[0][n] into row `row` of %outB (rowB < 0: none).
    func.func @store(%d: !llvm.struct<(f32, f32, f32, f32)>, %outA: memref<20x16xi32>, %outB: memref<20x8xi32>, %row: index, %rowB: index, %lane: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c23 = arith.constant 23 : i32
      %g = arith.divui %lane, %c4 : index
      %t4 = arith.remui %lane, %c4 : index
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      %d1 = llvm.extractvalue %d[1] : !llvm.struct<(f32, f32, f32, f32)>
      %d2 = llvm.extractvalue %d[2] : !llvm.struct<(f32, f32, f32, f32)>
      %b0 = arith.bitcast %d0 : f32 to i32
      %b1 = arith.bitcast %d1 : f32 to i32
      %b2 = arith.bitcast %d2 : f32 to i32
      %x0 = arith.shrui %b0, %c23 : i32
      %x1 = arith.shrui %b1, %c23 : i32
      %x2 = arith.shrui %b2, %c23 : i32
      %col0 = arith.cmpi eq, %t4, %c0 : index
      scf.if %col0 {
        %g8 = arith.addi %g, %c8 : index
        memref.store %x0, %outA[%row, %g] : memref<20x16xi32>
        memref.store %x2, %outA[%row, %g8] : memref<20x16xi32>
      }
      %row0 = arith.cmpi eq, %g, %c0 : index
      %hasB = arith.cmpi sge, %rowB, %c0 : index
      %storeB = arith.andi %row0, %hasB : i1
      scf.if %storeB {
        %n0 = arith.muli %t4, %c2 : index
        %n1 = arith.addi %n0, %c1 : index
        memref.store %x0, %outB[%rowB, %n0] : memref<20x8xi32>
        memref.store %x1, %outB[%rowB, %n1] : memref<20x8xi32>
      }
      return
    }

    gpu.func @select(%outA: memref<20x16xi32>, %outB: memref<20x8xi32>) kernel {
      %tid = gpu.thread_id x
      %lane = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %cm1 = arith.constant -1 : index
      %i1 = arith.constant 1 : i32
      %i3 = arith.constant 3 : i32
      %i4 = arith.constant 4 : i32
      %i12 = arith.constant 12 : i32
      %zero = arith.constant 0 : i32
      %s0 = arith.constant 0 : i16
      %f0 = arith.constant 0.0 : f32
      %splat = arith.constant 0x01010101 : i32
      %ramp = arith.constant 0x03020100 : i32
      %one8 = arith.constant 0x38383838 : i32
      %one4 = arith.constant 0x22222222 : i32
      %unit = arith.constant 0x7F7F7F7F : i32
      // Byte b of the lane's pattern: 1 + 4 lane + b.
      %l4 = arith.muli %lane, %i4 : i32
      %base = arith.addi %l4, %i1 : i32
      %spread = arith.muli %base, %splat : i32
      %pattern = arith.addi %spread, %ramp : i32

      // 1X, A's selectors.
      scf.for %c = %c0 to %c8 step %c1 {
        %bidx = arith.remui %c, %c4 : index
        %tidx = arith.divui %c, %c4 : index
        %bid = arith.index_cast %bidx : index to i16
        %tid16 = arith.index_cast %tidx : index to i16
        %d = nvvm.mma.block_scale A[%one8, %one8, %one8, %one8] B[%one8, %one8] C[%f0, %f0, %f0, %f0] scaleA[%pattern, %bid, %tid16] scaleB[%unit, %s0, %s0] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e4m3>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        func.call @store(%d, %outA, %outB, %c, %cm1, %tid) : (!llvm.struct<(f32, f32, f32, f32)>, memref<20x16xi32>, memref<20x8xi32>, index, index, index) -> ()
      }
      // 1X, B's selectors.
      scf.for %c = %c0 to %c16 step %c1 {
        %bidx = arith.remui %c, %c4 : index
        %tidx = arith.divui %c, %c4 : index
        %bid = arith.index_cast %bidx : index to i16
        %tid16 = arith.index_cast %tidx : index to i16
        %d = nvvm.mma.block_scale A[%one8, %one8, %one8, %one8] B[%one8, %one8] C[%f0, %f0, %f0, %f0] scaleA[%unit, %s0, %s0] scaleB[%pattern, %bid, %tid16] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf8f6f4>, multiplicandAPtxType = #nvvm.mma_type<e4m3>, multiplicandBPtxType = #nvvm.mma_type<e4m3>, scaleVecSize = #nvvm.scale_vec_size<x1>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        func.call @store(%d, %outA, %outB, %c8, %c, %tid) : (!llvm.struct<(f32, f32, f32, f32)>, memref<20x16xi32>, memref<20x8xi32>, index, index, index) -> ()
      }
      // 2X, A's selectors; A's codes in K block 0 or 1 only.
      scf.for %c = %c0 to %c8 step %c1 {
        %half = arith.remui %c, %c2 : index
        %c2x = arith.divui %c, %c2 : index
        %bidh = arith.remui %c2x, %c2 : index
        %bidx = arith.muli %bidh, %c2 : index
        %tidx = arith.divui %c, %c4 : index
        %bid = arith.index_cast %bidx : index to i16
        %tid16 = arith.index_cast %tidx : index to i16
        %first = arith.cmpi eq, %half, %c0 : index
        %lo = arith.select %first, %one4, %zero : i32
        %hi = arith.select %first, %zero, %one4 : i32
        %d = nvvm.mma.block_scale A[%lo, %lo, %hi, %hi] B[%one4, %one4] C[%f0, %f0, %f0, %f0] scaleA[%pattern, %bid, %tid16] scaleB[%unit, %s0, %s0] {blockScaleFormat = #nvvm.block_scale_format<ue8m0>, kind = #nvvm.block_scale_kind<mxf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x2>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        %row = arith.addi %c, %c8 : index
        func.call @store(%d, %outA, %outB, %row, %cm1, %tid) : (!llvm.struct<(f32, f32, f32, f32)>, memref<20x16xi32>, memref<20x8xi32>, index, index, index) -> ()
      }
      // 4X: byte 0 of lane l is 2^(e - 7), e = 1 + l % 4 + 4 ((l / 4) % 3);
      // bytes 1..3 are 1.0 (0x38); A's codes are ones in K block 0 (lanes
      // with l % 4 < 2, registers 0 and 1) only.
      %t4 = arith.remui %lane, %i4 : i32
      %quad = arith.divui %lane, %i4 : i32
      %q3 = arith.remui %quad, %i3 : i32
      %q12 = arith.muli %q3, %i4 : i32
      %e0 = arith.addi %t4, %q12 : i32
      %e = arith.addi %e0, %i1 : i32
      %i3s = arith.constant 3 : i32
      %eb = arith.shli %e, %i3s : i32
      %upper = arith.constant 0x38383800 : i32
      %scale4 = arith.ori %upper, %eb : i32
      %i2 = arith.constant 2 : i32
      %block0 = arith.cmpi ult, %t4, %i2 : i32
      %a01 = arith.select %block0, %one4, %zero : i32
      // {thread-id-a, thread-id-b} = {c % 2, 3 c % 4}.
      %c3 = arith.constant 3 : index
      scf.for %c = %c0 to %c4 step %c1 {
        %ta = arith.remui %c, %c2 : index
        %c3c = arith.muli %c, %c3 : index
        %tb = arith.remui %c3c, %c4 : index
        %tida = arith.index_cast %ta : index to i16
        %tidb = arith.index_cast %tb : index to i16
        %d = nvvm.mma.block_scale A[%a01, %a01, %zero, %zero] B[%one4, %one4] C[%f0, %f0, %f0, %f0] scaleA[%scale4, %s0, %tida] scaleB[%scale4, %s0, %tidb] {blockScaleFormat = #nvvm.block_scale_format<ue4m3>, kind = #nvvm.block_scale_kind<mxf4nvf4>, multiplicandAPtxType = #nvvm.mma_type<e2m1>, multiplicandBPtxType = #nvvm.mma_type<e2m1>, scaleVecSize = #nvvm.scale_vec_size<x4>, shape = #nvvm.shape<m = 16, n = 8, k = 64>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
        %row = arith.addi %c, %c16 : index
        func.call @store(%d, %outA, %outB, %row, %row, %tid) : (!llvm.struct<(f32, f32, f32, f32)>, memref<20x16xi32>, memref<20x8xi32>, index, index, index) -> ()
      }
      gpu.return
    }
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %a = memref.alloc() : memref<20x16xi32>
    %b = memref.alloc() : memref<20x8xi32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @selectors::@select blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<20x16xi32>, %b : memref<20x8xi32>)
    %ua = memref.cast %a : memref<20x16xi32> to memref<*xi32>
    %ub = memref.cast %b : memref<20x8xi32> to memref<*xi32>
    call @printMemrefI32(%ua) : (memref<*xi32>) -> ()
    call @printMemrefI32(%ub) : (memref<*xi32>) -> ()
    return
  }
}

// CHECK: [6,{{ +}}22,{{ +}}38,{{ +}}54,{{ +}}70,{{ +}}86,{{ +}}102,{{ +}}118,{{ +}}10,{{ +}}26,{{ +}}42,{{ +}}58,{{ +}}74,{{ +}}90,{{ +}}106,{{ +}}122]
// CHECK-NEXT: [7,{{ +}}23,{{ +}}39,{{ +}}55,{{ +}}71,{{ +}}87,{{ +}}103,{{ +}}119,{{ +}}11,{{ +}}27,{{ +}}43,{{ +}}59,{{ +}}75,{{ +}}91,{{ +}}107,{{ +}}123]
// CHECK-NEXT: [8,{{ +}}24,{{ +}}40,{{ +}}56,{{ +}}72,{{ +}}88,{{ +}}104,{{ +}}120,{{ +}}12,{{ +}}28,{{ +}}44,{{ +}}60,{{ +}}76,{{ +}}92,{{ +}}108,{{ +}}124]
// CHECK-NEXT: [9,{{ +}}25,{{ +}}41,{{ +}}57,{{ +}}73,{{ +}}89,{{ +}}105,{{ +}}121,{{ +}}13,{{ +}}29,{{ +}}45,{{ +}}61,{{ +}}77,{{ +}}93,{{ +}}109,{{ +}}125]
// CHECK-NEXT: [14,{{ +}}30,{{ +}}46,{{ +}}62,{{ +}}78,{{ +}}94,{{ +}}110,{{ +}}126,{{ +}}18,{{ +}}34,{{ +}}50,{{ +}}66,{{ +}}82,{{ +}}98,{{ +}}114,{{ +}}130]
// CHECK-NEXT: [15,{{ +}}31,{{ +}}47,{{ +}}63,{{ +}}79,{{ +}}95,{{ +}}111,{{ +}}127,{{ +}}19,{{ +}}35,{{ +}}51,{{ +}}67,{{ +}}83,{{ +}}99,{{ +}}115,{{ +}}131]
// CHECK-NEXT: [16,{{ +}}32,{{ +}}48,{{ +}}64,{{ +}}80,{{ +}}96,{{ +}}112,{{ +}}128,{{ +}}20,{{ +}}36,{{ +}}52,{{ +}}68,{{ +}}84,{{ +}}100,{{ +}}116,{{ +}}132]
// CHECK-NEXT: [17,{{ +}}33,{{ +}}49,{{ +}}65,{{ +}}81,{{ +}}97,{{ +}}113,{{ +}}129,{{ +}}21,{{ +}}37,{{ +}}53,{{ +}}69,{{ +}}85,{{ +}}101,{{ +}}117,{{ +}}133]
// CHECK-NEXT: [6,{{ +}}22,{{ +}}38,{{ +}}54,{{ +}}70,{{ +}}86,{{ +}}102,{{ +}}118,{{ +}}10,{{ +}}26,{{ +}}42,{{ +}}58,{{ +}}74,{{ +}}90,{{ +}}106,{{ +}}122]
// CHECK-NEXT: [7,{{ +}}23,{{ +}}39,{{ +}}55,{{ +}}71,{{ +}}87,{{ +}}103,{{ +}}119,{{ +}}11,{{ +}}27,{{ +}}43,{{ +}}59,{{ +}}75,{{ +}}91,{{ +}}107,{{ +}}123]
// CHECK-NEXT: [8,{{ +}}24,{{ +}}40,{{ +}}56,{{ +}}72,{{ +}}88,{{ +}}104,{{ +}}120,{{ +}}12,{{ +}}28,{{ +}}44,{{ +}}60,{{ +}}76,{{ +}}92,{{ +}}108,{{ +}}124]
// CHECK-NEXT: [9,{{ +}}25,{{ +}}41,{{ +}}57,{{ +}}73,{{ +}}89,{{ +}}105,{{ +}}121,{{ +}}13,{{ +}}29,{{ +}}45,{{ +}}61,{{ +}}77,{{ +}}93,{{ +}}109,{{ +}}125]
// CHECK-NEXT: [14,{{ +}}30,{{ +}}46,{{ +}}62,{{ +}}78,{{ +}}94,{{ +}}110,{{ +}}126,{{ +}}18,{{ +}}34,{{ +}}50,{{ +}}66,{{ +}}82,{{ +}}98,{{ +}}114,{{ +}}130]
// CHECK-NEXT: [15,{{ +}}31,{{ +}}47,{{ +}}63,{{ +}}79,{{ +}}95,{{ +}}111,{{ +}}127,{{ +}}19,{{ +}}35,{{ +}}51,{{ +}}67,{{ +}}83,{{ +}}99,{{ +}}115,{{ +}}131]
// CHECK-NEXT: [16,{{ +}}32,{{ +}}48,{{ +}}64,{{ +}}80,{{ +}}96,{{ +}}112,{{ +}}128,{{ +}}20,{{ +}}36,{{ +}}52,{{ +}}68,{{ +}}84,{{ +}}100,{{ +}}116,{{ +}}132]
// CHECK-NEXT: [17,{{ +}}33,{{ +}}49,{{ +}}65,{{ +}}81,{{ +}}97,{{ +}}113,{{ +}}129,{{ +}}21,{{ +}}37,{{ +}}53,{{ +}}69,{{ +}}85,{{ +}}101,{{ +}}117,{{ +}}133]
// CHECK-NEXT: [119,{{ +}}123,{{ +}}127,{{ +}}119,{{ +}}123,{{ +}}127,{{ +}}119,{{ +}}123,{{ +}}120,{{ +}}124,{{ +}}128,{{ +}}120,{{ +}}124,{{ +}}128,{{ +}}120,{{ +}}124]
// CHECK-NEXT: [124,{{ +}}128,{{ +}}132,{{ +}}124,{{ +}}128,{{ +}}132,{{ +}}124,{{ +}}128,{{ +}}125,{{ +}}129,{{ +}}133,{{ +}}125,{{ +}}129,{{ +}}133,{{ +}}125,{{ +}}129]
// CHECK-NEXT: [121,{{ +}}125,{{ +}}129,{{ +}}121,{{ +}}125,{{ +}}129,{{ +}}121,{{ +}}125,{{ +}}122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126]
// CHECK-NEXT: [122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126,{{ +}}123,{{ +}}127,{{ +}}131,{{ +}}123,{{ +}}127,{{ +}}131,{{ +}}123,{{ +}}127]
// CHECK: [6,{{ +}}22,{{ +}}38,{{ +}}54,{{ +}}70,{{ +}}86,{{ +}}102,{{ +}}118]
// CHECK-NEXT: [7,{{ +}}23,{{ +}}39,{{ +}}55,{{ +}}71,{{ +}}87,{{ +}}103,{{ +}}119]
// CHECK-NEXT: [8,{{ +}}24,{{ +}}40,{{ +}}56,{{ +}}72,{{ +}}88,{{ +}}104,{{ +}}120]
// CHECK-NEXT: [9,{{ +}}25,{{ +}}41,{{ +}}57,{{ +}}73,{{ +}}89,{{ +}}105,{{ +}}121]
// CHECK-NEXT: [10,{{ +}}26,{{ +}}42,{{ +}}58,{{ +}}74,{{ +}}90,{{ +}}106,{{ +}}122]
// CHECK-NEXT: [11,{{ +}}27,{{ +}}43,{{ +}}59,{{ +}}75,{{ +}}91,{{ +}}107,{{ +}}123]
// CHECK-NEXT: [12,{{ +}}28,{{ +}}44,{{ +}}60,{{ +}}76,{{ +}}92,{{ +}}108,{{ +}}124]
// CHECK-NEXT: [13,{{ +}}29,{{ +}}45,{{ +}}61,{{ +}}77,{{ +}}93,{{ +}}109,{{ +}}125]
// CHECK-NEXT: [14,{{ +}}30,{{ +}}46,{{ +}}62,{{ +}}78,{{ +}}94,{{ +}}110,{{ +}}126]
// CHECK-NEXT: [15,{{ +}}31,{{ +}}47,{{ +}}63,{{ +}}79,{{ +}}95,{{ +}}111,{{ +}}127]
// CHECK-NEXT: [16,{{ +}}32,{{ +}}48,{{ +}}64,{{ +}}80,{{ +}}96,{{ +}}112,{{ +}}128]
// CHECK-NEXT: [17,{{ +}}33,{{ +}}49,{{ +}}65,{{ +}}81,{{ +}}97,{{ +}}113,{{ +}}129]
// CHECK-NEXT: [18,{{ +}}34,{{ +}}50,{{ +}}66,{{ +}}82,{{ +}}98,{{ +}}114,{{ +}}130]
// CHECK-NEXT: [19,{{ +}}35,{{ +}}51,{{ +}}67,{{ +}}83,{{ +}}99,{{ +}}115,{{ +}}131]
// CHECK-NEXT: [20,{{ +}}36,{{ +}}52,{{ +}}68,{{ +}}84,{{ +}}100,{{ +}}116,{{ +}}132]
// CHECK-NEXT: [21,{{ +}}37,{{ +}}53,{{ +}}69,{{ +}}85,{{ +}}101,{{ +}}117,{{ +}}133]
// CHECK-NEXT: [119,{{ +}}123,{{ +}}127,{{ +}}119,{{ +}}123,{{ +}}127,{{ +}}119,{{ +}}123]
// CHECK-NEXT: [124,{{ +}}128,{{ +}}132,{{ +}}124,{{ +}}128,{{ +}}132,{{ +}}124,{{ +}}128]
// CHECK-NEXT: [121,{{ +}}125,{{ +}}129,{{ +}}121,{{ +}}125,{{ +}}129,{{ +}}121,{{ +}}125]
// CHECK-NEXT: [122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126,{{ +}}130,{{ +}}122,{{ +}}126]
