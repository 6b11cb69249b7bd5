//===- ElementwiseKernels.cpp - Dequantize / Hadamard GPU kernels ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.dequantize` and `nvfp4.hadamard` to launches of element-wise
// kernels of the `gpu.module @nvfp4_kernels`, one thread per 16-element
// block, 128 threads per CTA:
//
//  * `nvfp4_dequantize_*`: reads the block's 8 packed code bytes and its
//    compact E4M3 scale byte, decodes both exactly in integer arithmetic and
//    writes `decodeE2M1(q) * ((decodeE4M3(s) * amax) * fl(1/2688))` (f32,
//    that order: Transformer Engine's dequantize kernel),
//    rounded to the result element type;
//  * `nvfp4_hadamard_*`: reads the block, extends it to f32 (exact), applies
//    the sign flip, the butterfly stages h = 1, 2, 4, 8 and the scaling by
//    0.25 of docs/numerics.md §5, and rounds to the element type.
//
// The f32 operations carry no fast-math flags, so the NVPTX back end emits
// `mul.rn` / `add.rn` / `sub.rn` and never contracts them into FMAs. The
// results are those of nvfp4::dequantize / nvfp4::applyHadamard bit for bit.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/ElementwiseKernels.h"
#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Utils/TensorScaleUtils.h"

#include "BlockQuantizeIR.h"
#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Format.h"

#include <limits>

using namespace mlir;
using namespace mlir::nvfp4;
using mlir::nvfp4::detail::IndexExpr;
namespace layout = ::nvfp4::gpu;

//===----------------------------------------------------------------------===//
// Configuration and checks
//===----------------------------------------------------------------------===//

namespace {
/// What an element-wise kernel is specialized on.
struct ElementwiseConfig {
  SmallVector<int64_t> shape;
  int64_t cols = 0, numElements = 0;
  int64_t blockRows = 1; // dequantize: the scale block height
  // dequantize: what the input's f32 tensor scale is.
  TensorScaleKind tensorScale = TensorScaleKind::Amax;
  Type elementType;      // the high-precision element type
  unsigned signMask = 0; // hadamard: bit j set for a negative sign j

  int64_t numBlocks() const { return numElements / layout::kElementwiseBlock; }

  std::string shapeName() const {
    std::string s;
    for (auto [i, d] : llvm::enumerate(shape))
      s += (i ? "x" : "") + std::to_string(d);
    return s;
  }
  std::string elementTypeName() const {
    if (elementType.isF32())
      return "f32";
    return elementType.isBF16() ? "bf16" : "f16";
  }
  /// e.g. `nvfp4_dequantize_128x64_16x16_bf16`, with `_ds` for a decode
  /// tensor scale.
  std::string dequantizeKernelName() const {
    return "nvfp4_dequantize_" + shapeName() + "_" + std::to_string(blockRows) +
           "x16_" + elementTypeName() +
           (tensorScale == TensorScaleKind::Decode ? "_ds" : "");
  }
  /// e.g. `nvfp4_hadamard_64x32_f32_sd7e8` (bit j of the hex mask set for a
  /// negative sign j).
  std::string hadamardKernelName() const {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "nvfp4_hadamard_" << shapeName() << "_" << elementTypeName() << "_s"
       << llvm::format_hex_no_prefix(signMask, 4);
    return s;
  }

  static ElementwiseConfig get(DequantizeOp op) {
    ElementwiseConfig c;
    auto input = cast<NVFP4TensorType>(op.getInput().getType());
    auto result = cast<RankedTensorType>(op.getResult().getType());
    c.shape.assign(result.getShape().begin(), result.getShape().end());
    c.init(result);
    c.blockRows = input.getBlock().getRows();
    c.tensorScale = input.getTensorScale();
    return c;
  }
  static ElementwiseConfig get(HadamardOp op) {
    ElementwiseConfig c;
    auto type = cast<RankedTensorType>(op.getType());
    c.shape.assign(type.getShape().begin(), type.getShape().end());
    c.init(type);
    for (auto [j, s] : llvm::enumerate(op.getSignsOrDefault()))
      if (j < 16 && s < 0)
        c.signMask |= 1u << j;
    return c;
  }

private:
  void init(RankedTensorType type) {
    elementType = type.getElementType();
    cols = type.getRank() ? type.getShape().back() : 0;
    numElements = type.hasStaticShape() ? type.getNumElements() : -1;
  }
};

LogicalResult checkElementwise(Operation *op, const ElementwiseConfig &c) {
  if (c.numElements <= 0 || c.shape.empty())
    return op->emitOpError()
           << "is not supported by the GPU kernel: the shape must be static, "
              "non-empty and of rank at least 1";
  if (!c.elementType.isF32() && !c.elementType.isBF16() &&
      !c.elementType.isF16())
    return op->emitOpError() << "is not supported by the GPU kernel: "
                                "elements must be f32, bf16 or f16";
  if (c.cols % layout::kElementwiseBlock != 0)
    return op->emitOpError() << "is not supported by the GPU kernel: the last "
                                "dimension must be a multiple of 16";
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (layout::elementwiseNumCtas(c.numElements) > kMaxGridX)
    return op->emitOpError()
           << "is not supported by the GPU kernel: " << c.numElements
           << " elements need more than " << kMaxGridX << " CTAs";
  return success();
}
} // namespace

LogicalResult mlir::nvfp4::checkDequantizeSupported(DequantizeOp op,
                                                    GPUTarget) {
  return checkElementwise(op, ElementwiseConfig::get(op));
}

LogicalResult mlir::nvfp4::checkHadamardSupported(HadamardOp op, GPUTarget) {
  return checkElementwise(op, ElementwiseConfig::get(op));
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

namespace {
/// Emits the scalar device code of the element-wise kernels.
class ElementwiseEmitter {
public:
  ElementwiseEmitter(OpBuilder &b, Location loc, const ElementwiseConfig &c)
      : b(b), loc(loc), c(c) {}

  gpu::GPUFuncOp buildDequantizeKernel(gpu::GPUModuleOp module,
                                       TypeRange argTypes);
  gpu::GPUFuncOp buildHadamardKernel(gpu::GPUModuleOp module,
                                     TypeRange argTypes);

private:
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value bits(Value f) {
    return arith::BitcastOp::create(b, loc, b.getI32Type(), f);
  }
  Value toFloat(Value i) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), i);
  }
  Value andI(Value x, int64_t m) {
    return arith::AndIOp::create(b, loc, x, i32(m));
  }
  Value shrI(Value x, Value n) { return arith::ShRUIOp::create(b, loc, x, n); }
  Value shrI(Value x, int64_t n) { return shrI(x, i32(n)); }
  Value shlI(Value x, int64_t n) {
    return arith::ShLIOp::create(b, loc, x, i32(n));
  }
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value mulF(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }

  /// Creates the kernel with 128 threads; the builder is left at its entry.
  gpu::GPUFuncOp createKernel(gpu::GPUModuleOp module, StringRef name,
                              TypeRange argTypes);
  /// The global thread id and `gid < numBlocks`, with the builder moved into
  /// an `scf.if` on the latter.
  Value enterValidThread();
  Value globalBasePointer(Value memref);
  Value byteAddress(Value base, Value byteOffset);
  /// The f32 value of the E4M3 byte `code` (i32, 0..255): exact, NaN for
  /// 0x7F / 0xFF.
  Value decodeE4M3(Value code);
  /// The f32 value of the E2M1 code in the low 4 bits of `code` (i32).
  Value decodeE2M1(Value code);
  /// Rounds the 16 f32 values to the element type and stores them as 16-byte
  /// vectors at byte `firstByte` of `ptr`.
  void storeBlock(Value ptr, Value firstByte, ArrayRef<Value> values);

  OpBuilder &b;
  Location loc;
  const ElementwiseConfig &c;
};
} // namespace

gpu::GPUFuncOp ElementwiseEmitter::createKernel(gpu::GPUModuleOp module,
                                                StringRef name,
                                                TypeRange argTypes) {
  return mlir::nvfp4::detail::createKernelFunc(b, loc, module, name, argTypes,
                                               layout::kElementwiseThreads);
}

Value ElementwiseEmitter::enterValidThread() {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value gid = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, cta, index(layout::kElementwiseThreads)),
      tid);
  Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gid,
                                      index(c.numBlocks()));
  auto ifOp = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  return gid;
}

Value ElementwiseEmitter::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value ElementwiseEmitter::byteAddress(Value base, Value byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset);
}

Value ElementwiseEmitter::decodeE4M3(Value code) {
  // s eeee mmm -> (-1)^s * sig * 2^(max(e, 1) - 10), sig = m (e = 0) or
  // 8 + m; the power of two built from its exponent bits, the product exact.
  Value e = andI(shrI(code, 3), 0xF);
  Value m = andI(code, 0x7);
  Value eIsZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e, i32(0));
  Value sig = arith::SelectOp::create(b, loc, eIsZero, m,
                                      arith::OrIOp::create(b, loc, m, i32(8)));
  Value eClamped = arith::MaxUIOp::create(b, loc, e, i32(1));
  Value pow2 =
      toFloat(shlI(arith::AddIOp::create(b, loc, eClamped, i32(127 - 10)), 23));
  Value magnitude =
      mulF(arith::UIToFPOp::create(b, loc, b.getF32Type(), sig), pow2);
  Value sign = shlI(andI(code, 0x80), 24);
  Value value = toFloat(xorI(bits(magnitude), sign));
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      andI(code, 0x7F), i32(0x7F));
  return arith::SelectOp::create(
      b, loc, isNaN, f32(std::numeric_limits<float>::quiet_NaN()), value);
}

Value ElementwiseEmitter::decodeE2M1(Value code) {
  // Twice the magnitude {0, 1, 2, 3, 4, 6, 8, 12} from the nibbles of
  // 0xC8643210, converted, halved (exact), sign bit xor-ed in.
  Value magCode = andI(code, 0x7);
  Value shift = shlI(magCode, 2);
  Value twice = andI(shrI(i32(0xC8643210), shift), 0xF);
  Value magnitude =
      mulF(arith::UIToFPOp::create(b, loc, b.getF32Type(), twice), f32(0.5f));
  Value sign = shlI(andI(code, 0x8), 28);
  return toFloat(xorI(bits(magnitude), sign));
}

void ElementwiseEmitter::storeBlock(Value ptr, Value firstByte,
                                    ArrayRef<Value> values) {
  Type elem = c.elementType;
  const int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  const int64_t perVector = 16 / elemBytes;
  auto vecType = VectorType::get({perVector}, elem);
  for (int64_t part = 0; part < layout::kElementwiseBlock / perVector; ++part) {
    Value vec = LLVM::PoisonOp::create(b, loc, vecType);
    for (int64_t e = 0; e < perVector; ++e) {
      Value x = values[part * perVector + e];
      if (!elem.isF32())
        x = arith::TruncFOp::create(b, loc, elem, x); // round to nearest even
      Value pos = LLVM::ConstantOp::create(b, loc, b.getI32Type(), e);
      vec = LLVM::InsertElementOp::create(b, loc, vec, x, pos);
    }
    Value byte = arith::AddIOp::create(b, loc, firstByte, index(16 * part));
    LLVM::StoreOp::create(b, loc, vec, byteAddress(ptr, byte), 16);
  }
}

gpu::GPUFuncOp
ElementwiseEmitter::buildDequantizeKernel(gpu::GPUModuleOp module,
                                          TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(module, c.dequantizeKernelName(), argTypes);
  Block &entry = kernel.front();
  // Arguments: data (packed E2M1), compact scales, tensor scale, result.
  Value data = entry.getArgument(0), scales = entry.getArgument(1);
  Value tensorScale = entry.getArgument(2), out = entry.getArgument(3);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&entry);

  Value block = enterValidThread();
  // The block's 16 codes: 8 bytes at byte 8 * block, even element in the
  // low nibble.
  Value dataByte = arith::MulIOp::create(b, loc, block, index(8));
  Value codes =
      LLVM::LoadOp::create(b, loc, b.getI64Type(),
                           byteAddress(globalBasePointer(data), dataByte), 8);
  Value scaleIndex = layout::dequantizeScaleIndex(IndexExpr{&b, loc, block},
                                                  c.cols, c.blockRows)
                         .v;
  Value scaleByte = LLVM::LoadOp::create(
      b, loc, b.getI8Type(), byteAddress(globalBasePointer(scales), scaleIndex),
      1);
  Value scale =
      decodeE4M3(arith::ExtUIOp::create(b, loc, b.getI32Type(), scaleByte));
  // The block's factor (Transformer Engine's (scale * amax) * fl(1/2688),
  // or scale * decode scale), then one product per element.
  Value factor =
      createDequantizeFactor(b, loc, scale, tensorScale, c.tensorScale);

  SmallVector<Value> y;
  for (int64_t j = 0; j < layout::kElementwiseBlock; ++j) {
    Value nibble = arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::ShRUIOp::create(b, loc, codes, i64(4 * j)));
    y.push_back(mulF(decodeE2M1(nibble), factor));
  }
  const int64_t elemBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  Value outByte = arith::MulIOp::create(
      b, loc, block, index(layout::kElementwiseBlock * elemBytes));
  storeBlock(globalBasePointer(out), outByte, y);
  return kernel;
}

gpu::GPUFuncOp ElementwiseEmitter::buildHadamardKernel(gpu::GPUModuleOp module,
                                                       TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(module, c.hadamardKernelName(), argTypes);
  Block &entry = kernel.front();
  Value input = entry.getArgument(0), out = entry.getArgument(1);
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&entry);

  Value block = enterValidThread();
  const int64_t elemBytes = c.elementType.getIntOrFloatBitWidth() / 8;
  Value firstByte = arith::MulIOp::create(
      b, loc, block, index(layout::kElementwiseBlock * elemBytes));
  SmallVector<Value> v = mlir::nvfp4::detail::createBlockLoadF32(
      b, loc, globalBasePointer(input), firstByte, c.elementType);
  mlir::nvfp4::detail::createHadamard16(b, loc, v, c.signMask);
  storeBlock(globalBasePointer(out), firstByte, v);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// Launches `kernel` over the blocks of `c` and replaces `op` by the tensor
/// of `out`.
void launchAndReplace(PatternRewriter &rewriter, Operation *op,
                      gpu::GPUFuncOp kernel, const ElementwiseConfig &c,
                      ValueRange args, Value out) {
  Location loc = op->getLoc();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto launch = gpu::LaunchFuncOp::create(
      rewriter, loc, kernel,
      gpu::KernelDim3{cst(layout::elementwiseNumCtas(c.numElements)), cst(1),
                      cst(1)},
      gpu::KernelDim3{cst(layout::kElementwiseThreads), cst(1), cst(1)},
      /*dynamicSharedMemorySize=*/Value(), args);
  setLaunchOperandAccess(launch, /*written=*/out);
  rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
      op, op->getResult(0).getType(), out, /*restrict=*/true,
      /*writable=*/true);
}

Value allocResult(PatternRewriter &rewriter, Location loc, Type tensorType) {
  auto type = cast<RankedTensorType>(tensorType);
  return memref::AllocOp::create(
      rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
      rewriter.getI64IntegerAttr(16));
}

/// Lowers `nvfp4.dequantize` to the dequantize kernel. An input built by
/// nvfp4.assemble (e.g. by a lowered nvfp4.quantize) passes its buffers
/// through without a copy.
struct DequantizeOpLowering : public OpRewritePattern<DequantizeOp> {
  DequantizeOpLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkDequantizeSupported(op, target);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported dequantize");
    ElementwiseConfig config = ElementwiseConfig::get(op);
    Location loc = op.getLoc();
    auto [data, scales, amax] =
        mlir::nvfp4::detail::getNVFP4Components(rewriter, loc, op.getInput());
    Value out = allocResult(rewriter, loc, op.getResult().getType());
    SmallVector<Value> args = {
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, data),
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, scales), amax,
        out};
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    auto kernel = kernelModule.lookupSymbol<gpu::GPUFuncOp>(
        config.dequantizeKernelName());
    if (!kernel)
      kernel =
          ElementwiseEmitter(rewriter, loc, config)
              .buildDequantizeKernel(kernelModule, ValueRange(args).getTypes());
    launchAndReplace(rewriter, op, kernel, config, args, out);
    // An assembly left without a use is erased by the pass.
    return success();
  }

  GPUTarget target;
};

/// Lowers `nvfp4.hadamard` to the Hadamard kernel.
struct HadamardOpLowering : public OpRewritePattern<HadamardOp> {
  HadamardOpLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(HadamardOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkHadamardSupported(op, target);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported hadamard");
    ElementwiseConfig config = ElementwiseConfig::get(op);
    Location loc = op.getLoc();
    Value out = allocResult(rewriter, loc, op.getType());
    SmallVector<Value> args = {
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, op.getInput()),
        out};
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    auto kernel =
        kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.hadamardKernelName());
    if (!kernel)
      kernel =
          ElementwiseEmitter(rewriter, loc, config)
              .buildHadamardKernel(kernelModule, ValueRange(args).getTypes());
    launchAndReplace(rewriter, op, kernel, config, args, out);
    return success();
  }

  GPUTarget target;
};
} // namespace

void mlir::nvfp4::populateNVFP4ElementwiseToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target) {
  patterns.add<DequantizeOpLowering, // nvfp4.dequantize
               HadamardOpLowering>(  // nvfp4.hadamard
      patterns.getContext(), target);
}
