//===- LibraryCallLowering.cpp - nvfp4 ops as calls of CPU kernels --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The `kernels=library` lowering of convert-nvfp4-to-reference: quantize,
// amax, dequantize, hadamard, rescale, transpose and matmul become calls of
// the
// precompiled kernels of libnvfp4_cpu_runtime (lib/ExecutionEngine/
// CPURuntime.cpp), which compute the reference library's results bit for
// bit. Each call site is a handful of ops, whatever the op computes:
//
//   %xb = bufferization.to_buffer %x read_only      // each tensor operand
//   %xu = memref.cast %xb : ... to memref<*xf32>
//   %codes = memref.alloc() : memref<MxKxi8>        // each result
//   %amax = func.call @nvfp4CpuQuantize(%xu, ...)
//   %ct = bufferization.to_tensor %codes restrict writable
//
// The runtime functions are declared once per module, private, with
// `llvm.emit_c_interface`. Tensors are passed as [rows, cols] views (the
// leading dimensions collapsed) or, for matmul and transpose, [batch, rows,
// cols] views (the dimensions before the last two collapsed); bf16 and
// f16 tensors are widened to f32 around the calls, as the inline lowering
// does.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Utils/MXElementType.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::nvfp4;
using namespace mlir::nvfp4::reference;

namespace {

/// Makes func-to-llvm emit the `_mlir_ciface_` wrappers the runtime defines.
constexpr StringLiteral kEmitCInterface = "llvm.emit_c_interface";

/// Emits the operands and results of one runtime call.
class CallBuilder {
public:
  CallBuilder(ConversionPatternRewriter &rewriter, Operation *op)
      : rewriter(rewriter), op(op), loc(op->getLoc()) {}

  /// Passes the tensor `t` as an unranked memref of its buffer (the runtime
  /// reads the sizes, static or not, from its descriptor).
  void tensor(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = bufferization::ToBufferOp::create(rewriter, loc, memrefType,
                                                     t, /*read_only=*/true);
    args.push_back(unranked(buffer));
  }

  /// Allocates a buffer of `sizes` x `elementType` for the call to write;
  /// returns its index for `buffer` and `result`.
  unsigned allocate(ArrayRef<OpFoldResult> sizes, Type elementType) {
    auto [shape, dynamicSizes] = decomposeMixedValues(sizes);
    outputs.push_back(memref::AllocOp::create(
        rewriter, loc, MemRefType::get(shape, elementType), dynamicSizes));
    return outputs.size() - 1;
  }

  /// Passes the buffer `index` (from `allocate`) as an unranked memref.
  void buffer(unsigned index) { args.push_back(unranked(outputs[index])); }

  /// Allocates and passes a buffer the call writes.
  unsigned output(ArrayRef<OpFoldResult> sizes, Type elementType) {
    unsigned index = allocate(sizes, elementType);
    buffer(index);
    return index;
  }

  MLIRContext *getContext() const { return rewriter.getContext(); }
  void i32(int64_t v) { scalar(rewriter.getI32IntegerAttr(v)); }
  void i64(int64_t v) { scalar(rewriter.getI64IntegerAttr(v)); }
  void f32(float v) { scalar(rewriter.getF32FloatAttr(v)); }
  void value(Value v) { args.push_back(v); }

  /// Emits the call of `name`, declaring it when the module does not yet;
  /// returns the call's results.
  ValueRange call(StringRef name, TypeRange resultTypes) {
    auto module = op->getParentOfType<ModuleOp>();
    auto type = rewriter.getFunctionType(ValueRange(args).getTypes(),
                                         resultTypes);
    // The pass rejects modules that define these names themselves, so an
    // existing symbol is the declaration an earlier call site added, with
    // the entry point's fixed signature.
    auto declared = cast_or_null<func::FuncOp>(
        SymbolTable::lookupSymbolIn(module, name));
    assert((!declared || declared.getFunctionType() == type) &&
           "one signature per runtime entry point");
    if (!declared) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      declared = func::FuncOp::create(rewriter, module.getLoc(), name, type);
      declared.setPrivate();
      declared->setAttr(kEmitCInterface, rewriter.getUnitAttr());
    }
    return ValueRange(
        func::CallOp::create(rewriter, loc, declared, args).getResults());
  }

  /// The tensor of output `index`, after the call.
  Value result(unsigned index) {
    Value buffer = outputs[index];
    auto type = cast<MemRefType>(buffer.getType());
    return bufferization::ToTensorOp::create(
        rewriter, loc,
        RankedTensorType::get(type.getShape(), type.getElementType()), buffer,
        /*restrict=*/true, /*writable=*/true);
  }

private:
  Value unranked(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    return memref::CastOp::create(
        rewriter, loc, UnrankedMemRefType::get(type.getElementType(), 0),
        buffer);
  }
  void scalar(TypedAttr attr) {
    args.push_back(arith::ConstantOp::create(rewriter, loc, attr));
  }

  ConversionPatternRewriter &rewriter;
  Operation *op;
  Location loc;
  SmallVector<Value> args;
  SmallVector<Value> outputs;
};

/// Bit i set: sign i of the RHT is -1.
int64_t negativeSignMask(ArrayRef<int8_t> signs) {
  int64_t mask = 0;
  for (auto [i, s] : llvm::enumerate(signs))
    if (s < 0)
      mask |= int64_t(1) << i;
  return mask;
}

/// The runtime's element-type code of an MX format (0 E2M1, 1 E4M3, 2 E5M2).
int64_t getMXElementTypeCode(Format format) {
  return static_cast<int64_t>(getMXElementType(format));
}

/// Quantizes the f32 [rows, cols] tensor `x` to `type`, whose data has
/// `sizes`, by a call of nvfp4CpuQuantize (NVFP4) or nvfp4CpuMxQuantize
/// (MX); returns the codes, the scales (reshaped to `type`) and, for NVFP4,
/// the amax. The runtime checks the block rules on dynamic sizes.
SmallVector<Value> emitQuantizeCall(ConversionPatternRewriter &rw,
                                    Operation *op, Value x,
                                    const QuantizeParams &q,
                                    NVFP4TensorType type,
                                    ArrayRef<OpFoldResult> sizes) {
  Location loc = op->getLoc();
  Type i8 = rw.getI8Type();
  SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(rw, loc, x);
  CallBuilder call(rw, op);
  call.tensor(x);
  unsigned codes = call.output(xSizes, i8);
  unsigned scales =
      call.output(getScalesSizes(rw, loc, xSizes, type.getBlock()), i8);
  Value amax;
  if (!type.isNVFP4()) {
    call.i32(getMXElementTypeCode(type.getFormat()));
    call.call("nvfp4CpuMxQuantize", {});
  } else {
    call.i64(q.blockRows);
    call.i32(q.rounding == Rounding::Stochastic ? 1 : 0);
    if (q.seed)
      call.value(q.seed);
    else
      call.i64(0);
    call.i64(q.offset);
    call.i32(q.hadamard ? 1 : 0);
    call.i32(q.hadamard ? negativeSignMask(*q.hadamard) : 0);
    call.i32(q.amax ? 1 : 0);
    if (q.amax)
      call.value(q.amax);
    else
      call.f32(0.0f);
    amax = call.call("nvfp4CpuQuantize", rw.getF32Type()).front();
  }
  SmallVector<Value> components = {
      from2D(rw, loc, call.result(codes), sizes),
      from2D(rw, loc, call.result(scales),
             getScalesSizes(rw, loc, sizes, type.getBlock()))};
  if (amax)
    components.push_back(amax);
  return components;
}

/// Dequantizes the components of a tensor of `type` (any rank, any format,
/// either tensor-scale kind) to an f32 tensor of the codes' shape by a call
/// of nvfp4CpuDequantize or, for MX, nvfp4CpuMxDequantize.
Value emitDequantizeCall(ConversionPatternRewriter &rw, Operation *op,
                         ValueRange components, NVFP4TensorType type) {
  Location loc = op->getLoc();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rw, loc, components[0]);
  Value codes = to2D(rw, loc, components[0]);
  if (!type.isNVFP4()) {
    CallBuilder call(rw, op);
    call.tensor(codes);
    call.tensor(to2D(rw, loc, components[1]));
    call.i32(getMXElementTypeCode(type.getFormat()));
    unsigned out = call.output(tensor::getMixedSizes(rw, loc, codes), rw.getF32Type());
    call.call("nvfp4CpuMxDequantize", {});
    return from2D(rw, loc, call.result(out), sizes);
  }
  CallBuilder call(rw, op);
  call.tensor(codes);
  call.tensor(to2D(rw, loc, components[1]));
  call.value(components[2]);
  call.i32(type.hasDecodeScale() ? 1 : 0);
  call.i64(type.getBlock().getRows());
  unsigned out = call.output(tensor::getMixedSizes(rw, loc, codes), rw.getF32Type());
  call.call("nvfp4CpuDequantize", {});
  return from2D(rw, loc, call.result(out), sizes);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct QuantizeOpCallLowering : public OpConversionPattern<QuantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(QuantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    QuantizeParams q = getQuantizeParams(op, adaptor);
    Value input = single(adaptor.getInput());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, input);
    Value x = to2D(rewriter, loc,
                   castElements(rewriter, loc, input, rewriter.getF32Type()));
    rewriter.replaceOpWithMultiple(
        op, {emitQuantizeCall(rewriter, op, x, q, op.getType(), sizes)});
    return success();
  }
};

struct AmaxOpCallLowering : public OpConversionPattern<AmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    CallBuilder call(rewriter, op);
    call.tensor(to2D(rewriter, loc,
                     castElements(rewriter, loc, adaptor.getInput(),
                                  rewriter.getF32Type())));
    rewriter.replaceOp(op,
                       call.call("nvfp4CpuAmax", rewriter.getF32Type()).front());
    return success();
  }
};

struct DequantizeOpCallLowering : public OpConversionPattern<DequantizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DequantizeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value result = emitDequantizeCall(rewriter, op, adaptor.getInput(),
                                      op.getInput().getType());
    rewriter.replaceOp(op, castElements(rewriter, op.getLoc(), result,
                                        op.getType().getElementType()));
    return success();
  }
};

struct HadamardOpCallLowering : public OpConversionPattern<HadamardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(HadamardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = op.getType();
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, adaptor.getInput());
    Value x = to2D(
        rewriter, loc,
        castElements(rewriter, loc, adaptor.getInput(), rewriter.getF32Type()));
    CallBuilder call(rewriter, op);
    call.tensor(x);
    unsigned out =
        call.output(tensor::getMixedSizes(rewriter, loc, x), rewriter.getF32Type());
    call.i32(negativeSignMask(op.getSignsOrDefault()));
    call.call("nvfp4CpuHadamard", {});
    Value y = from2D(rewriter, loc, call.result(out), sizes);
    rewriter.replaceOp(op,
                       castElements(rewriter, loc, y, type.getElementType()));
    return success();
  }
};

struct RescaleOpCallLowering : public OpConversionPattern<RescaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RescaleOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value dq = emitDequantizeCall(rewriter, op, adaptor.getInput(),
                                  op.getInput().getType());
    QuantizeParams q = getQuantizeParams(op, adaptor);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, op.getLoc(), dq);
    rewriter.replaceOpWithMultiple(
        op, {emitQuantizeCall(rewriter, op, to2D(rewriter, op.getLoc(), dq), q,
                              op.getType(), sizes)});
    return success();
  }
};

struct TransposeOpCallLowering : public OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange in = adaptor.getInput();
    // The result's data and scale sizes: the input's, the two innermost
    // swapped.
    auto swapInner = [](SmallVector<OpFoldResult> sizes) {
      std::swap(sizes[sizes.size() - 1], sizes[sizes.size() - 2]);
      return sizes;
    };
    SmallVector<OpFoldResult> dataSizes =
        swapInner(tensor::getMixedSizes(rewriter, loc, in[0]));
    SmallVector<OpFoldResult> scalesSizes =
        swapInner(tensor::getMixedSizes(rewriter, loc, in[1]));
    Type i8 = rewriter.getI8Type();
    CallBuilder call(rewriter, op);
    Value codes = addBatchDim(rewriter, loc, in[0]);
    call.tensor(codes);
    Value scales = addBatchDim(rewriter, loc, in[1]);
    call.tensor(scales);
    unsigned outCodes =
        call.output(swapInner(tensor::getMixedSizes(rewriter, loc, codes)), i8);
    unsigned outScales =
        call.output(swapInner(tensor::getMixedSizes(rewriter, loc, scales)), i8);
    call.call("nvfp4CpuTranspose", {});
    rewriter.replaceOpWithMultiple(
        op, {{dropBatchDim(rewriter, loc, call.result(outCodes), dataSizes),
              dropBatchDim(rewriter, loc, call.result(outScales),
                           scalesSizes),
              in[2]}});
    return success();
  }
};

struct MatmulOpCallLowering : public OpConversionPattern<MatmulOp> {
  MatmulOpCallLowering(const TypeConverter &converter, MLIRContext *ctx,
                       bool fakeQuant)
      : OpConversionPattern(converter, ctx), fakeQuant(fakeQuant) {}

  LogicalResult
  matchAndRewrite(MatmulOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    lowerMatmul(op, adaptor, rewriter,
                       [&](ValueRange a, ValueRange b, int64_t ra, int64_t rb,
                           Value accIn) {
                         return fakeQuant ? emitFakeQuant(rewriter, op, a, b,
                                                          ra, rb, accIn)
                                          : emitExact(rewriter, op, a, b, ra,
                                                      rb, accIn);
                       });
    return success();
  }

private:
  /// nvfp4CpuMatmul (nvfp4CpuMxMatmul for MX operands) on [B, M, K] x
  /// [B, N, K] -> [B, M, N] f32.
  static Value emitExact(ConversionPatternRewriter &rw,
                                    Operation *op, ValueRange a, ValueRange b,
                                    int64_t ra, int64_t rb, Value accIn) {
    Location loc = op->getLoc();
    Value aCodes = addBatchDim(rw, loc, a[0]);
    Value bCodes = addBatchDim(rw, loc, b[0]);
    SmallVector<OpFoldResult> aSizes = tensor::getMixedSizes(rw, loc, aCodes);
    auto matmul = cast<MatmulOp>(op);
    SmallVector<OpFoldResult> shape = {aSizes[0], aSizes[1],
                                       tensor::getMixedSizes(rw, loc, bCodes)[1]};
    if (!matmul.getLhs().getType().isNVFP4()) {
      CallBuilder call(rw, op);
      call.tensor(aCodes);
      call.tensor(addBatchDim(rw, loc, a[1]));
      call.i32(getMXElementTypeCode(matmul.getLhs().getType().getFormat()));
      call.tensor(bCodes);
      call.tensor(addBatchDim(rw, loc, b[1]));
      call.i32(getMXElementTypeCode(matmul.getRhs().getType().getFormat()));
      return emitAccAndResult(call, shape, accIn, "nvfp4CpuMxMatmul");
    }
    CallBuilder call(rw, op);
    call.tensor(aCodes);
    call.tensor(addBatchDim(rw, loc, a[1]));
    call.value(a[2]);
    call.i32(matmul.getLhs().getType().hasDecodeScale() ? 1 : 0);
    call.i64(ra);
    call.tensor(bCodes);
    call.tensor(addBatchDim(rw, loc, b[1]));
    call.value(b[2]);
    call.i32(matmul.getRhs().getType().hasDecodeScale() ? 1 : 0);
    call.i64(rb);
    return emitAccAndResult(call, shape, accIn, "nvfp4CpuMatmul");
  }

  /// Passes the optional accumulator and the f32 result buffer of `shape`
  /// as the last arguments of the matmul entry point `name`, calls it and
  /// returns the result.
  static Value emitAccAndResult(CallBuilder &call,
                                ArrayRef<OpFoldResult> shape,
                                Value accIn, StringRef name) {
    unsigned result = call.allocate(shape, Float32Type::get(call.getContext()));
    if (accIn) {
      call.tensor(accIn);
      call.i32(1);
    } else {
      // acc is not read: the result buffer stands in for it.
      call.buffer(result);
      call.i32(0);
    }
    call.buffer(result);
    call.call(name, {});
    return call.result(result);
  }

  /// Dequantize both operands to f32 (calls) and contract them with an
  /// ordinary f32 linalg contraction.
  static Value emitFakeQuant(ConversionPatternRewriter &rw,
                                        Operation *op, ValueRange a,
                                        ValueRange b, int64_t ra, int64_t rb,
                                        Value accIn) {
    auto matmul = cast<MatmulOp>(op);
    Value da = emitDequantizeCall(rw, op, a, matmul.getLhs().getType());
    Value db = emitDequantizeCall(rw, op, b, matmul.getRhs().getType());
    Location loc = op->getLoc();
    return emitBatchedContraction(rw, loc, addBatchDim(rw, loc, da),
                                  addBatchDim(rw, loc, db), accIn);
  }

  bool fakeQuant;
};

} // namespace

ArrayRef<StringLiteral> mlir::nvfp4::reference::getLibraryCallNames() {
  static constexpr StringLiteral names[] = {
      "nvfp4CpuQuantize",   "nvfp4CpuAmax",         "nvfp4CpuDequantize",
      "nvfp4CpuHadamard",   "nvfp4CpuMatmul",       "nvfp4CpuTranspose",
      "nvfp4CpuMxQuantize", "nvfp4CpuMxDequantize", "nvfp4CpuMxMatmul"};
  return names;
}

void mlir::nvfp4::reference::populateLibraryCallPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    bool fakeQuant) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<QuantizeOpCallLowering,   // nvfp4.quantize
               AmaxOpCallLowering,       // nvfp4.amax
               DequantizeOpCallLowering, // nvfp4.dequantize
               HadamardOpCallLowering,   // nvfp4.hadamard
               RescaleOpCallLowering,    // nvfp4.rescale
               TransposeOpCallLowering   // nvfp4.transpose
               >(typeConverter, ctx);
  patterns.add<MatmulOpCallLowering>(typeConverter, ctx,
                                     fakeQuant); // nvfp4.matmul
}
