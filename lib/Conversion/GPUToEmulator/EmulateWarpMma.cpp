//===- EmulateWarpMma.cpp - Warp-wide MMAs as emulator calls --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The part of nvfp4-emulate-gpu-kernels that rewrites the warp-wide
// `mma.sync` operations of a kernel (bf16 m16n8k16; block-scaled m16n8k64
// kind::mxf4nvf4 and kind::mxf4, m16n8k32 kind::mxf8f6f4) into calls of
// libnvfp4_gpu_emulator's MMA functions (GPUEmulatorMma.cpp), which model
// the PTX ISA's fragment layouts (docs/emulator.md, "Operations").
//
//===----------------------------------------------------------------------===//

#include "EmulatorSymbols.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::nvfp4::detail;

/// Whether `type` is the struct of four f32 the modelled MMAs return.
static bool isFourF32Struct(Type type) {
  auto structType = dyn_cast<LLVM::LLVMStructType>(type);
  return structType && structType.getBody().size() == 4 &&
         llvm::all_of(structType.getBody(), [](Type t) { return t.isF32(); });
}

/// Calls the runtime's warp-wide MMA `name` on the fragments of an
/// `mma.sync` (A and B i32 registers, C four f32) plus `extraArgs`, and
/// replaces `mma`'s struct of four f32 by the result.
static void callWarpMma(Operation *mma, StringRef name, ValueRange operandA,
                        ValueRange operandB, ValueRange operandC,
                        ValueRange extraArgs, Value thread, ModuleOp module) {
  MLIRContext *ctx = mma->getContext();
  Type ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Location loc = mma->getLoc();
  Type f32 = Float32Type::get(ctx);
  OpBuilder b(mma);
  Value a = createEntryAlloca(mma, i32, operandA.size());
  Value bb = createEntryAlloca(mma, i32, operandB.size());
  Value c = createEntryAlloca(mma, f32, 4), d = createEntryAlloca(mma, f32, 4);
  auto storeAll = [&](ValueRange values, Value base, Type type) {
    for (auto [index, value] : llvm::enumerate(values)) {
      Value address = LLVM::GEPOp::create(
          b, loc, ptrType, type, base,
          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
      LLVM::StoreOp::create(b, loc, value, address);
    }
  };
  storeAll(operandA, a, i32);
  storeAll(operandB, bb, i32);
  storeAll(operandC, c, f32);
  SmallVector<Value> args = {thread, a, bb, c};
  llvm::append_range(args, extraArgs);
  args.push_back(d);
  createRuntimeCall(b, loc, module, name, LLVM::LLVMVoidType::get(ctx), args);
  Type resultType = mma->getResult(0).getType();
  Value result = LLVM::PoisonOp::create(b, loc, resultType);
  for (int64_t i = 0; i < 4; ++i) {
    Value address =
        LLVM::GEPOp::create(b, loc, ptrType, f32, d,
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    Value element = LLVM::LoadOp::create(b, loc, f32, address);
    result = LLVM::InsertValueOp::create(b, loc, result, element,
                                         ArrayRef<int64_t>{i});
  }
  mma->getResult(0).replaceAllUsesWith(result);
  mma->erase();
}

static LogicalResult rewriteMma(NVVM::MmaOp mma, Value thread,
                                ModuleOp module) {
  NVVM::MMAShapeAttr shape = mma.getShape();
  bool bf16 = mma.getMultiplicandAPtxType() == NVVM::MMATypes::bf16 &&
              mma.getMultiplicandBPtxType() == NVVM::MMATypes::bf16;
  if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != 16 || !bf16 ||
      mma.getLayoutA() != NVVM::MMALayout::row ||
      mma.getLayoutB() != NVVM::MMALayout::col ||
      mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
      mma.getOperandC().size() != 4 ||
      !isFourF32Struct(mma.getRes().getType()) ||
      !llvm::all_of(mma.getOperandC().getTypes(),
                    [](Type type) { return type.isF32(); }))
    return mma.emitError("nvfp4-emulate-gpu-kernels: only "
                         "mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 is "
                         "modelled by the GPU emulator yet");
  callWarpMma(mma, "nvfp4EmuMmaM16N8K16Bf16", mma.getOperandA(),
              mma.getOperandB(), mma.getOperandC(), {}, thread, module);
  return success();
}

static LogicalResult rewriteBlockScaledMma(NVVM::MmaBlockScaleOp mma,
                                           Value thread, ModuleOp module) {
  Type i32 = IntegerType::get(mma.getContext(), 32);
  NVVM::MMAShapeAttr shape = mma.getShape();
  // The modelled forms: m16n8k64 kind::mxf4nvf4 (E4M3 scales of 16) and
  // kind::mxf4 (E8M0 scales of 32) on E2M1, m16n8k32 kind::mxf8f6f4 (E8M0
  // scales of 32) on E4M3 / E5M2.
  auto is8Bit = [](std::optional<NVVM::MMATypes> type) {
    return type == NVVM::MMATypes::e4m3 || type == NVVM::MMATypes::e5m2;
  };
  const bool e2m1 = mma.getMultiplicandAPtxType() == NVVM::MMATypes::e2m1 &&
                    mma.getMultiplicandBPtxType() == NVVM::MMATypes::e2m1;
  const bool nvf4 = e2m1 && shape.getK() == 64 &&
                    mma.getKind() == NVVM::MMABlockScaleKind::MXF4NVF4 &&
                    mma.getScaleVecSize() == NVVM::ScaleVecSize::X4 &&
                    mma.getBlockScaleFormat() == NVVM::BlockScaleFormat::UE4M3;
  const bool mxf4 = e2m1 && shape.getK() == 64 &&
                    mma.getKind() == NVVM::MMABlockScaleKind::MXF4 &&
                    mma.getScaleVecSize() == NVVM::ScaleVecSize::X2 &&
                    mma.getBlockScaleFormat() == NVVM::BlockScaleFormat::UE8M0;
  const bool mxf8 = is8Bit(mma.getMultiplicandAPtxType()) &&
                    is8Bit(mma.getMultiplicandBPtxType()) &&
                    shape.getK() == 32 &&
                    mma.getKind() == NVVM::MMABlockScaleKind::MXF8F6F4 &&
                    mma.getScaleVecSize() == NVVM::ScaleVecSize::X1 &&
                    mma.getBlockScaleFormat() == NVVM::BlockScaleFormat::UE8M0;
  if (shape.getM() != 16 || shape.getN() != 8 || (!nvf4 && !mxf4 && !mxf8) ||
      mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
      mma.getOperandC().size() != 4 ||
      !isFourF32Struct(mma.getRes().getType()) ||
      !llvm::all_of(mma.getOperandC().getTypes(),
                    [](Type type) { return type.isF32(); }))
    return mma.emitError(
        "nvfp4-emulate-gpu-kernels: only "
        "mma.sync.m16n8k64.kind::mxf4nvf4.block_scale.scale_vec::4X, "
        "m16n8k64.kind::mxf4.block_scale.scale_vec::2X and "
        "m16n8k32.kind::mxf8f6f4.block_scale.scale_vec::1X on e4m3 / e5m2 "
        "with f32 results are modelled by the GPU emulator yet");
  OpBuilder b(mma);
  auto widen = [&](Value v) -> Value {
    return v.getType() == i32
               ? v
               : Value(LLVM::ZExtOp::create(b, mma.getLoc(), i32, v));
  };
  SmallVector<Value> extra = {
      mma.getScaleAData(), widen(mma.getByteIdA()), widen(mma.getThreadIdA()),
      mma.getScaleBData(), widen(mma.getByteIdB()), widen(mma.getThreadIdB())};
  if (mxf8) {
    // The element types: 0 E4M3, 1 E5M2.
    auto typeCode = [&](std::optional<NVVM::MMATypes> type) {
      return LLVM::ConstantOp::create(b, mma.getLoc(), i32,
                                      type == NVVM::MMATypes::e5m2)
          .getResult();
    };
    extra.push_back(typeCode(mma.getMultiplicandAPtxType()));
    extra.push_back(typeCode(mma.getMultiplicandBPtxType()));
  }
  callWarpMma(mma,
              nvf4   ? "nvfp4EmuMmaM16N8K64Nvf4"
              : mxf4 ? "nvfp4EmuMmaM16N8K64Mxf4"
                     : "nvfp4EmuMmaM16N8K32Mxf8f6f4",
              mma.getOperandA(), mma.getOperandB(), mma.getOperandC(), extra,
              thread, module);
  return success();
}

LogicalResult mlir::nvfp4::detail::rewriteWarpMma(Operation *op, Value thread,
                                                  ModuleOp module) {
  if (auto mma = dyn_cast<NVVM::MmaOp>(op))
    return rewriteMma(mma, thread, module);
  return rewriteBlockScaledMma(cast<NVVM::MmaBlockScaleOp>(op), thread, module);
}
