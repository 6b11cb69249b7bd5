//===- MmaSyncKernelBuilder.h - The mma.sync kernel builder -----*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/NVFP4ToGPU: MmaSyncKernelBuilder, which emits
// the mma.sync matmul kernels. The staging pipeline and the epilogue are in
// MmaSyncMatmul.cpp, the block-scaled K step (sm_120a / sm_121a) in
// MmaSyncBlockScaled.cpp, the K step on operands dequantized to bf16 in
// registers (sm_90a) in MmaSyncDequantize.cpp. docs/gpu.md describes the
// design.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCKERNELBUILDER_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCKERNELBUILDER_H

#include "MmaSyncMatmul.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::nvfp4::detail {

/// The body of an mma.sync matmul kernel under construction: the staging
/// pipeline and epilogue (MmaSyncMatmul.cpp) and the MMAs of a K step,
/// block-scaled (MmaSyncBlockScaled.cpp) or on dequantized operands
/// (MmaSyncDequantize.cpp).
class MmaSyncKernelBuilder {
public:
  MmaSyncKernelBuilder(OpBuilder &b, Location loc, const MatmulConfig &config,
                       GPUTarget target)
      : b(b), loc(loc), c(config), target(target) {}

  /// Builds the kernel into `module` and returns it.
  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name,
                       TypeRange argTypes);

private:
  IndexExpr idx(Value v) { return {&b, loc, v}; }
  IndexExpr idx(int64_t c) { return idx(Value()).cst(c); }

  /// A global-memory pointer to the first byte of the buffer `memref`
  /// (whose layout is the identity). E2M1 buffers hold two codes per byte,
  /// which memref indexing cannot express, so all operand reads go through
  /// byte addresses.
  Value globalBasePointer(Value memref);
  /// `base + byteOffset` as a global pointer.
  Value byteAddress(Value base, IndexExpr byteOffset);
  /// Loads a value of `type` from global memory.
  Value load(Type type, Value ptr, unsigned alignment) {
    return LLVM::LoadOp::create(b, loc, type, ptr, alignment);
  }
  Value i32Const(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  /// `base + byteOffset` as a shared-memory pointer.
  Value sharedAddress(Value base, IndexExpr byteOffset);

  /// The shared-memory tiles of one K step and the lane's coordinates.
  struct StepOperands {
    /// Shared-memory pointers to the first byte of the A and B slots, and
    /// to the K step's scales in row 0 of its A and B scale slots.
    Value smemAPtr, smemBPtr, lhsStepScales, rhsStepScales;
    IndexExpr warpRow, warpCol, lane, g, q;
    /// The pipeline slot the K step was staged in.
    IndexExpr slot;
    /// The K step's place in its scale groups (kt % the K loop's unroll).
    int64_t phase;
    /// The block-scaled step's scale registers (laneScaleRows) of A and B:
    /// per register, the words of its slot row that hold the scales of the
    /// step's group (loadScaleGroup), loaded by the group's first step and
    /// held for the others.
    ArrayRef<SmallVector<Value, 4>> lhsScaleGroup, rhsScaleGroup;
    /// The loop-carried accumulators, mmasM x mmasN x kMmaCRegs.
    ValueRange acc;
  };
  /// Emits the MMAs of one staged K step and returns the new accumulators:
  /// per K slice, the fragments by ldmatrix and mmasM x mmasN block-scaled
  /// m16n8k64 (m16n8k32 on 8-bit elements) MMAs (sm_120a, sm_121a).
  SmallVector<Value> emitBlockScaledStep(const StepOperands &op);
  /// The same with the operands dequantized to bf16 in registers and
  /// mmasM x mmasN x kBf16KSteps bf16 m16n8k16 MMAs (sm_90a).
  SmallVector<Value> emitDequantizedStep(const StepOperands &op);
  /// `ldmatrix.x4` of the 16-byte row `chunk` of tile row `row` in the slot
  /// at `slotBase`: the four registers.
  SmallVector<Value, 4> loadMatrixX4(Value slotBase, IndexExpr row,
                                     IndexExpr chunk);
  /// The scale slots' row (ScaleStaging, stagedRow) of A's (`lhs`) or B's
  /// tile row `warpBase + blockOffset + laneRow`, where the warp's MMA
  /// block at `blockOffset` (a multiple of its 16 rows or 8 columns) holds
  /// `laneRow`: the tile row, or the compact row of its 16-row block.
  IndexExpr scaleSlotRow(bool lhs, IndexExpr warpBase, int64_t blockOffset,
                         IndexExpr laneRow);
  /// The lane's scale registers of the warp's MMA blocks of A (`lhs`) or
  /// B, packed by the selectors (MmaLayout.h, kScaleBlocksPerRegA/B): the
  /// slot row each register loads, and for MMA block i its register
  /// `ofBlock[i]` and thread-id `threadIdOfBlock[i]`.
  struct LaneScaleRows {
    SmallVector<IndexExpr> rows;
    SmallVector<int64_t> ofBlock, threadIdOfBlock;
  };
  LaneScaleRows laneScaleRows(bool lhs, IndexExpr warpBase, IndexExpr g,
                              IndexExpr q);
  /// Word `word` of the step's scales in slot row `row` of A (`lhs`) or B
  /// (the sm_90a K step).
  Value loadScaleWord(const StepOperands &op, bool lhs, IndexExpr row,
                      int64_t word);
  /// The words of slot row `row` of A's (`lhs`) or B's scale slot at
  /// `slotBase` that hold a group's scales (ScaleStaging: 4, 2 or 1 words),
  /// in one load.
  SmallVector<Value, 4> loadScaleGroup(bool lhs, Value slotBase, IndexExpr row);

  /// Decodes the E4M3 byte `byte` (in the low 8 bits of an i32) to f32 times
  /// 1/2, exactly (see docs/gpu.md): sign * significand * 2^(exponent - 11),
  /// NaN for 0x7F / 0xFF.
  Value decodeHalfScale(Value byte);
  /// Dequantizes the two E2M1 codes in the low byte of `word` (the even k in
  /// the low nibble) with `halfScale` (decodeHalfScale) and returns them as
  /// two bf16 packed in an i32, the even k in the low half. Every product is
  /// exact in f32 and in bf16, so the truncation to the upper 16 bits is
  /// exact as well.
  Value dequantizePair(Value word, Value halfScale);

  OpBuilder &b;
  Location loc;
  const MatmulConfig &c;
  GPUTarget target;
};

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCKERNELBUILDER_H
