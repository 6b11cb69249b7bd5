//===- NVFP4ToReference.cpp - Bit-exact CPU lowering of nvfp4 ops ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// convert-nvfp4-to-reference: the 1:N type conversion of NVFP4 tensors into
// their components, the checks of what the lowering cannot take, and the op
// patterns of the `kernels=inline` lowering, whose numerics
// (InlineNumerics.cpp) are upstream ops computing the reference library's
// f32 operations in its order; `kernels=library` (the default) replaces the
// ops with numerics by calls of the precompiled kernels
// (LibraryCallLowering.cpp). Both produce the same bits as the reference
// numerics library (lib/Numerics).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToReference/NVFP4ToReference.h"

#include "InlineNumerics.h"
#include "LoweringUtils.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Utils/ScaleLayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"


namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_CONVERTNVFP4TOREFERENCE
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::reference;

//===----------------------------------------------------------------------===//
// Type conversion
//===----------------------------------------------------------------------===//

/// Whether `type` is a tensor of element codes (E2M1, E4M3, E5M2) or block
/// scales (E4M3, E8M0).
static bool isComponentTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type,
                       Float8E8M0FNUType>(tensor.getElementType());
}

NVFP4ToReferenceTypeConverter::NVFP4ToReferenceTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](RankedTensorType type) -> Type {
    if (!isComponentTensor(type))
      return type;
    return type.clone(IntegerType::get(type.getContext(), 8));
  });
  addConversion([](NVFP4TensorType type, SmallVectorImpl<Type> &results) {
    Type i8 = IntegerType::get(type.getContext(), 8);
    results.push_back(RankedTensorType::get(type.getShape(), i8));
    results.push_back(RankedTensorType::get(type.getScalesShape(), i8));
    if (type.hasTensorScale())
      results.push_back(Float32Type::get(type.getContext()));
    return success();
  });
}

/// Whether `type` is an MX `!nvfp4.tensor`.
static bool isMXTensorType(Type type) {
  auto tensor = dyn_cast<NVFP4TensorType>(type);
  return tensor && !tensor.isNVFP4();
}

namespace {

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct QuantizeOpLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = single(adaptor.getInput());
    QuantizeParams p = getQuantizeParams(op, adaptor);
    Value x = to2D(rewriter, loc,
                   castElements(rewriter, loc, input, rewriter.getF32Type()));
    Components c = emitQuantize(rewriter, loc, x, p);
    NVFP4TensorType type = op.getType();
    // The inline lowering takes static shapes only (checked by the pass).
    MLIRContext *ctx = rewriter.getContext();
    Value data = from2D(rewriter, loc, c.data,
                        getAsIndexOpFoldResult(ctx, type.getShape()));
    Value scales = from2D(rewriter, loc, c.scales,
                          getAsIndexOpFoldResult(ctx, type.getScalesShape()));
    rewriter.replaceOpWithMultiple(op, {{data, scales, c.amax}});
    return success();
  }
};

struct AmaxOpLowering : public OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = to2D(
        rewriter, loc,
        castElements(rewriter, loc, adaptor.getInput(), rewriter.getF32Type()));
    rewriter.replaceOp(op, emitAmax2D(rewriter, loc, x));
    return success();
  }
};

struct DequantizeOpLowering : public OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange in = adaptor.getInput();
    Value result =
        emitDequantize(rewriter, op.getLoc(), in[0], in[1], in[2],
                       op.getInput().getType(), op.getType().getElementType());
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct HadamardOpLowering : public OpConversionPattern<HadamardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HadamardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shape");
    Location loc = op.getLoc();
    Value x = to2D(
        rewriter, loc,
        castElements(rewriter, loc, adaptor.getInput(), rewriter.getF32Type()));
    Value y = emitHadamard2D(rewriter, loc, x, op.getSignsOrDefault());
    y = castElements(
        rewriter, loc,
        from2D(rewriter, loc, y,
               getAsIndexOpFoldResult(rewriter.getContext(), type.getShape())),
        type.getElementType());
    rewriter.replaceOp(op, y);
    return success();
  }
};

struct RescaleOpLowering : public OpConversionPattern<RescaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RescaleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange in = adaptor.getInput();
    Value dq = emitDequantize(rewriter, loc, in[0], in[1], in[2],
                              op.getInput().getType(), rewriter.getF32Type());
    Components c = emitQuantize(rewriter, loc, to2D(rewriter, loc, dq),
                                getQuantizeParams(op, adaptor));
    NVFP4TensorType type = op.getType();
    // The inline lowering takes static shapes only (checked by the pass).
    MLIRContext *ctx = rewriter.getContext();
    Value data = from2D(rewriter, loc, c.data,
                        getAsIndexOpFoldResult(ctx, type.getShape()));
    Value scales = from2D(rewriter, loc, c.scales,
                          getAsIndexOpFoldResult(ctx, type.getScalesShape()));
    rewriter.replaceOpWithMultiple(op, {{data, scales, c.amax}});
    return success();
  }
};

/// Swaps the two innermost dimensions of a tensor.
Value transposeInner(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, t);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
}

struct TransposeOpLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // 16x16 tiles share one scale: transposing the codes and the compact
    // tile-scale matrix is exact.
    ValueRange in = adaptor.getInput();
    Location loc = op.getLoc();
    Value data = transposeInner(rewriter, loc, in[0]);
    Value scales = transposeInner(rewriter, loc, in[1]);
    rewriter.replaceOpWithMultiple(op, {{data, scales, in[2]}});
    return success();
  }
};

struct AssembleOpLowering : public OpConversionPattern<AssembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AssembleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> components = {single(adaptor.getData()),
                                     single(adaptor.getScales())};
    if (op.getAmax())
      components.push_back(single(adaptor.getAmax()));
    rewriter.replaceOpWithMultiple(op, {components});
    return success();
  }
};

struct DisassembleOpLowering : public OpConversionPattern<DisassembleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DisassembleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<SmallVector<Value>> results;
    for (Value component : adaptor.getInput())
      results.push_back({component});
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }
};

struct MatmulOpLowering : public OpConversionPattern<MatmulOp> {
  MatmulOpLowering(const TypeConverter &converter, MLIRContext *ctx,
                   bool fakeQuant)
      : OpConversionPattern(converter, ctx), fakeQuant(fakeQuant) {}

  LogicalResult
  matchAndRewrite(MatmulOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVFP4TensorType aType = op.getLhs().getType();
    NVFP4TensorType bType = op.getRhs().getType();
    lowerMatmul(
        op, adaptor, rewriter,
        [&](ValueRange a, ValueRange b, int64_t ra, int64_t rb, Value accIn) {
          return fakeQuant
                     ? emitFakeQuant(rewriter, loc, a, b, aType, bType, accIn)
                     : emitBlockScaledMatmul(rewriter, loc, a, b, aType, bType,
                                             accIn);
        });
    return success();
  }

private:
  /// Dequantize both operands to f32 and contract them with an ordinary f32
  /// linalg contraction (accumulating into `accIn` or zero).
  static Value emitFakeQuant(OpBuilder &b, Location loc, ValueRange a,
                             ValueRange bOp, NVFP4TensorType aType,
                             NVFP4TensorType bType, Value accIn) {
    Type f32 = b.getF32Type();
    Value da = addBatchDim(
        b, loc, emitDequantize(b, loc, a[0], a[1], a[2], aType, f32));
    Value db = addBatchDim(
        b, loc, emitDequantize(b, loc, bOp[0], bOp[1], bOp[2], bType, f32));
    return emitBatchedContraction(b, loc, da, db, accIn);
  }

  bool fakeQuant;
};

/// `arith.bitcast` between component tensors (f4E2M1FN, f8E4M3FN, f8E5M2,
/// f8E8M0FNU) and their integer views (i4, i8), the way programs read or
/// build the codes.
struct BitcastOpLowering : public OpConversionPattern<arith::BitcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::BitcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = dyn_cast<RankedTensorType>(op.getIn().getType());
    auto dstType = dyn_cast<RankedTensorType>(op.getType());
    if (!srcType || !dstType)
      return rewriter.notifyMatchFailure(op, "not a tensor bitcast");
    Type src = srcType.getElementType(), dst = dstType.getElementType();
    Location loc = op.getLoc();
    Value in = adaptor.getIn();
    if (isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(src) ||
        isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(dst)) {
      // Both sides are bytes already.
      rewriter.replaceOp(op, in);
      return success();
    }
    if (isa<Float4E2M1FNType>(src)) {
      // i8 codes -> i4.
      rewriter.replaceOp(
          op, mapElements(rewriter, loc, in, dst,
                          [&](OpBuilder &nb, Location nloc, Value x) -> Value {
                            return arith::TruncIOp::create(nb, nloc, dst, x);
                          }));
      return success();
    }
    if (isa<Float4E2M1FNType>(dst)) {
      // i4 -> i8 codes.
      Type i8 = rewriter.getI8Type();
      rewriter.replaceOp(
          op, mapElements(rewriter, loc, in, i8,
                          [&](OpBuilder &nb, Location nloc, Value x) -> Value {
                            return arith::ExtUIOp::create(nb, nloc, i8, x);
                          }));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a component bitcast");
  }
};

/// `arith.constant` of a component tensor (e.g. `arith.bitcast` of an
/// integer constant folded by the conversion): the same bits as i8 values.
struct ConstantOpLowering : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto attr = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!attr || !isComponentTensor(attr.getType()))
      return rewriter.notifyMatchFailure(op, "not a component constant");
    auto type = cast<RankedTensorType>(attr.getType());
    unsigned width = type.getElementTypeBitWidth();
    DenseElementsAttr asInt = attr.bitcast(rewriter.getIntegerType(width));
    Type i8 = rewriter.getI8Type();
    if (width != 8)
      asInt = asInt.mapValues(i8, [](const APInt &v) { return v.zext(8); });
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, asInt);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertNVFP4ToReferencePass
    : public mlir::nvfp4::impl::ConvertNVFP4ToReferenceBase<
          ConvertNVFP4ToReferencePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    if (failed(checkLowerableModule(module, getArgument())))
      return signalPassFailure();
    if (kernels != "library" && kernels != "inline") {
      module.emitError() << getArgument() << ": kernels='" << kernels
                         << "' is not 'library' or 'inline'";
      return signalPassFailure();
    }

    // Functions whose NVFP4 arguments or results hold their scales in the
    // atoms layout: the reference ops read row-major scales, so every such
    // value is relaid out on its way in and out (ScaleLayoutUtils.h).
    materializeBoundaryScaleLayouts(module, BoundaryScaleLayoutHooks());
    dropBoundaryScaleLayouts(module);

    if (kernels == "library") {
      for (StringRef name : getLibraryCallNames()) {
        if (Operation *symbol = SymbolTable::lookupSymbolIn(module, name)) {
          symbol->emitError()
              << "'@" << name
              << "' is reserved for the CPU runtime's kernel of that name "
                 "(kernels=library); rename it or use kernels=inline";
          return signalPassFailure();
        }
      }
    }

    NVFP4ToReferenceTypeConverter converter;

    // What the lowering cannot take gets a diagnostic, not a crash or a
    // leftover cast: dynamic Hadamard shapes, and NVFP4 or component tensors
    // flowing into ops without a conversion (the ops below and the
    // structural ones are converted).
    WalkResult walk = module.walk([&](Operation *op) {
      if (kernels == "inline" && isa<QuantizeOp, DequantizeOp, MatmulOp>(op) &&
          (llvm::any_of(op->getOperandTypes(), isMXTensorType) ||
           llvm::any_of(op->getResultTypes(), isMXTensorType))) {
        op->emitOpError()
            << "on an MX tensor lowers with kernels=library only (the "
               "inline lowering implements NVFP4)";
        return WalkResult::interrupt();
      }
      // Run-time sizes reach the library's kernels through the buffers'
      // descriptors; the inline kernels are built for static shapes.
      auto isDynamic = [](Type type) {
        auto shaped = dyn_cast<ShapedType>(type);
        return shaped && shaped.hasRank() && !shaped.hasStaticShape();
      };
      if (kernels == "inline" && isa<NVFP4Dialect>(op->getDialect()) &&
          (llvm::any_of(op->getOperandTypes(), isDynamic) ||
           llvm::any_of(op->getResultTypes(), isDynamic))) {
        op->emitOpError() << "with a dynamic shape lowers with "
                             "kernels=library only (the inline lowering "
                             "is built for static shapes)";
        return WalkResult::interrupt();
      }
      if (isa<NVFP4Dialect>(op->getDialect()) ||
          isa<func::FuncOp, func::CallOp, func::ReturnOp, arith::BitcastOp,
              arith::ConstantOp, scf::ForOp, scf::IfOp, scf::WhileOp,
              scf::YieldOp, scf::ConditionOp>(op))
        return WalkResult::advance();
      if (!converter.isLegal(op)) {
        op->emitOpError()
            << "takes or returns an NVFP4 tensor or a tensor of f4E2M1FN / "
               "f8E4M3FN / f8E5M2 / f8E8M0FNU, which the reference lowering "
               "cannot convert here; "
               "use nvfp4.disassemble and arith.bitcast to an integer tensor "
               "first";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(ctx);
    NVFP4ToReferenceOptions options;
    options.fakeQuant = fakeQuant;
    options.libraryCalls = kernels == "library";
    populateNVFP4ToReferenceConversionPatterns(converter, patterns, options);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<NVFP4Dialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::CallOp, func::ReturnOp, arith::BitcastOp,
                                 arith::ConstantOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::nvfp4::populateNVFP4ToReferenceConversionPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    const NVFP4ToReferenceOptions &options) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<TransposeOpLowering,   // nvfp4.transpose
               AssembleOpLowering,    // nvfp4.assemble
               DisassembleOpLowering, // nvfp4.disassemble
               BitcastOpLowering,     // arith.bitcast
               ConstantOpLowering     // arith.constant
               >(typeConverter, ctx);
  if (options.libraryCalls) {
    populateLibraryCallPatterns(typeConverter, patterns, options.fakeQuant);
    return;
  }
  patterns.add<QuantizeOpLowering,   // nvfp4.quantize
               AmaxOpLowering,       // nvfp4.amax
               DequantizeOpLowering, // nvfp4.dequantize
               HadamardOpLowering,   // nvfp4.hadamard
               RescaleOpLowering     // nvfp4.rescale
               >(typeConverter, ctx);
  patterns.add<MatmulOpLowering>(typeConverter, ctx,
                                 options.fakeQuant); // nvfp4.matmul
}
