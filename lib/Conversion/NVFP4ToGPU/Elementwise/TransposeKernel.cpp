//===- TransposeKernel.cpp - Lower nvfp4.transpose to a GPU kernel --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.transpose` of a [batch, rows, cols] tensor with 16x16 scales
// to a launch of `nvfp4_transpose_*` in the `gpu.module @nvfp4_kernels`:
// the codes and tile scales move, nothing is re-quantized, and the tensor
// scale passes through on the host. Each thread writes one 16-element block
// of the result: result row `col` (input column `col`), result column
// block `outBlock` (input rows 16 outBlock .. 16 outBlock + 15). It gathers
// the 16 nibbles of input column `col` from those rows, one byte each
// (threads of adjacent columns read adjacent bytes), packs them into the
// block's 8 bytes (the even element in the low nibble), and the thread of
// the tile's first column copies the tile's scale.
//
// A result stored K-padded for a tcgen05 matmul (Tcgen05OperandPadding.cpp)
// is `storageRows` > rows wide: the blocks past `rows` are zero codes with
// zero scales.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/TransposeKernel.h"
#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::nvfp4;

/// Threads per CTA of the transpose kernel.
static constexpr int64_t kTransposeThreads = 128;

namespace {
/// What the transpose kernel is specialized on.
struct TransposeConfig {
  SmallVector<int64_t> shape; // the input's
  int64_t batch = 1, rows = 0, cols = 0;
  /// Columns of the result's storage: `rows`, or more when it is stored
  /// K-padded.
  int64_t storageRows = 0;

  static TransposeConfig get(TransposeOp op) {
    TransposeConfig c;
    auto input = cast<NVFP4TensorType>(op.getInput().getType());
    c.shape.assign(input.getShape().begin(), input.getShape().end());
    if (c.shape.size() >= 2 && input.hasStaticShape()) {
      c.rows = c.shape[c.shape.size() - 2];
      c.cols = c.shape.back();
      c.batch = input.getNumElements() / (c.rows * c.cols);
    }
    c.storageRows =
        mlir::nvfp4::detail::getNVFP4StorageType(op).getShape().back();
    return c;
  }

  bool paddedStorage() const { return storageRows != rows; }
  /// Result blocks of 16 elements, one thread each.
  int64_t numThreads() const { return batch * cols * (storageRows / 16); }
  int64_t numCtas() const {
    return llvm::divideCeil(numThreads(), kTransposeThreads);
  }

  /// e.g. `nvfp4_transpose_2x64x128`, `nvfp4_transpose_80x64_pad96`.
  std::string kernelName() const {
    std::string s = "nvfp4_transpose_";
    for (auto [i, d] : llvm::enumerate(shape))
      s += (i ? "x" : "") + std::to_string(d);
    if (paddedStorage())
      s += "_pad" + std::to_string(storageRows);
    return s;
  }
};
} // namespace

LogicalResult mlir::nvfp4::checkTransposeSupported(TransposeOp op, GPUTarget) {
  TransposeConfig c = TransposeConfig::get(op);
  if (c.rows <= 0 || c.cols <= 0)
    return op.emitOpError() << "is not supported by the GPU kernel: the "
                               "input must have a static, non-empty shape";
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (c.numCtas() > kMaxGridX)
    return op.emitOpError()
           << "is not supported by the GPU kernel: " << c.numThreads()
           << " result blocks need more than " << kMaxGridX << " CTAs";
  return success();
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

/// Builds the kernel of `c`: arguments input data, input scales, result
/// data, result scales.
static gpu::GPUFuncOp buildTransposeKernel(OpBuilder &b, Location loc,
                                           gpu::GPUModuleOp module,
                                           const TransposeConfig &c,
                                           TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel = mlir::nvfp4::detail::createKernelFunc(
      b, loc, module, c.kernelName(), argTypes, kTransposeThreads);
  Block &entry = kernel.front();
  gpu::ReturnOp::create(b, loc);
  b.setInsertionPointToStart(&entry);

  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, index(y));
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, index(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, index(y));
  };
  auto ult = [&](Value x, int64_t y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 index(y));
  };
  auto pointer = [&](unsigned arg) {
    return mlir::nvfp4::detail::createGlobalBasePointer(b, loc,
                                                        entry.getArgument(arg));
  };
  auto address = [&](Value base, Value byte) {
    return mlir::nvfp4::detail::createByteAddress(b, loc, base, byte);
  };
  Type i8 = b.getI8Type(), i64 = b.getI64Type();

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value cta = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value ctaFirstThread = mul(cta, kTransposeThreads);
  Value gid = add(ctaFirstThread, tid);
  Value inGrid = ult(gid, c.numThreads());
  auto valid = scf::IfOp::create(b, loc, inGrid, /*withElse=*/false);
  b.setInsertionPointToStart(valid.thenBlock());

  const int64_t outBlocks = c.storageRows / 16;
  Value col = rem(gid, c.cols);
  Value colQuotient = div(gid, c.cols);
  Value outBlock = rem(colQuotient, outBlocks);
  Value batch = div(gid, c.cols * outBlocks);
  Value inputData = pointer(0), inputScales = pointer(1);
  Value resultData = pointer(2), resultScales = pointer(3);

  // The block's 16 codes: input rows 16 outBlock + t of column `col`, the
  // nibble at bit 4 (col % 2) of byte col / 2 of each row. (Each operand
  // of an index computation is its own statement, so that the IR's order
  // does not depend on the C++ compiler's argument evaluation order.)
  Value batchFirstRow = mul(batch, c.rows);
  Value firstRow = add(batchFirstRow, mul(outBlock, 16));
  Value colByte = div(col, 2);
  Value nibbleBit = mul(rem(col, 2), 4);
  Value shift = arith::IndexCastUIOp::create(b, loc, i64, nibbleBit);
  auto gather = [&]() -> Value {
    Value packed = arith::ConstantIntOp::create(b, loc, i64, 0);
    for (int64_t t = 0; t < 16; ++t) {
      Value row = add(firstRow, index(t));
      Value byte = add(mul(row, c.cols / 2), colByte);
      Value loaded =
          LLVM::LoadOp::create(b, loc, i8, address(inputData, byte), 1);
      Value extended = arith::ExtUIOp::create(b, loc, i64, loaded);
      Value shifted = arith::ShRUIOp::create(b, loc, extended, shift);
      Value nibble = arith::AndIOp::create(
          b, loc, shifted, arith::ConstantIntOp::create(b, loc, i64, 0xF));
      Value placed = arith::ShLIOp::create(
          b, loc, nibble, arith::ConstantIntOp::create(b, loc, i64, 4 * t));
      packed = arith::OrIOp::create(b, loc, packed, placed);
    }
    return packed;
  };
  // The tile's scale: input tile (outBlock, col / 16).
  Value inputTileRow = add(mul(batch, c.rows / 16), outBlock);
  Value inputTileRowStart = mul(inputTileRow, c.cols / 16);
  Value inputScale = add(inputTileRowStart, div(col, 16));
  auto loadScale = [&]() -> Value {
    return LLVM::LoadOp::create(b, loc, i8, address(inputScales, inputScale),
                                1);
  };
  Value packed, scale;
  if (c.paddedStorage()) {
    // Blocks past the input's rows are zeros.
    Value insideRows = ult(outBlock, c.rows / 16);
    auto inside = scf::IfOp::create(b, loc, TypeRange{i64, i8}, insideRows,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard ifGuard(b);
      b.setInsertionPointToStart(inside.thenBlock());
      Value p = gather();
      scf::YieldOp::create(b, loc, ValueRange{p, loadScale()});
      b.setInsertionPointToStart(inside.elseBlock());
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::ConstantIntOp::create(b, loc, i64, 0),
                     arith::ConstantIntOp::create(b, loc, i8, 0)});
    }
    packed = inside.getResult(0);
    scale = inside.getResult(1);
  } else {
    packed = gather();
  }
  Value resultRow = add(mul(batch, c.cols), col);
  Value resultRowStart = mul(resultRow, c.storageRows / 2);
  Value resultByte = add(resultRowStart, mul(outBlock, 8));
  LLVM::StoreOp::create(b, loc, packed, address(resultData, resultByte), 8);
  // The thread of the tile's first column stores its scale at result tile
  // (col / 16, outBlock).
  Value colInTile = rem(col, 16);
  auto firstColumn =
      scf::IfOp::create(b, loc,
                        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              colInTile, index(0)),
                        /*withElse=*/false);
  b.setInsertionPointToStart(firstColumn.thenBlock());
  if (!scale)
    scale = loadScale();
  Value resultTileRow = add(mul(batch, c.cols / 16), div(col, 16));
  Value resultScale = add(mul(resultTileRow, outBlocks), outBlock);
  LLVM::StoreOp::create(b, loc, scale, address(resultScales, resultScale), 1);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Pattern
//===----------------------------------------------------------------------===//

namespace {
/// Lowers `nvfp4.transpose` to a launch of the transpose kernel. An input
/// built by nvfp4.assemble (e.g. a lowered nvfp4.quantize) passes its
/// buffers through without a copy; the result is the kernel's buffers with
/// the input's tensor scale.
struct TransposeOpLowering : public OpRewritePattern<TransposeOp> {
  TransposeOpLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkTransposeSupported(op, target);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported transpose");
    TransposeConfig config = TransposeConfig::get(op);
    Location loc = op.getLoc();
    auto [data, scales, amax] =
        mlir::nvfp4::detail::getNVFP4Components(rewriter, loc, op.getInput());
    NVFP4TensorType storageType = mlir::nvfp4::detail::getNVFP4StorageType(op);
    auto memrefOf = [](RankedTensorType type) {
      return MemRefType::get(type.getShape(), type.getElementType());
    };
    auto alignment = rewriter.getI64IntegerAttr(16);
    Value resultData = memref::AllocOp::create(
        rewriter, loc, memrefOf(storageType.getDataType()), alignment);
    Value resultScales = memref::AllocOp::create(
        rewriter, loc, memrefOf(storageType.getScalesType()), alignment);
    SmallVector<Value> args = {
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, data),
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, scales),
        resultData, resultScales};
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    auto kernel =
        kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.kernelName());
    if (!kernel)
      kernel = buildTransposeKernel(rewriter, loc, kernelModule, config,
                                    ValueRange(args).getTypes());
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto launch = gpu::LaunchFuncOp::create(
        rewriter, loc, kernel,
        gpu::KernelDim3{cst(config.numCtas()), cst(1), cst(1)},
        gpu::KernelDim3{cst(kTransposeThreads), cst(1), cst(1)},
        /*dynamicSharedMemorySize=*/Value(), args);
    setLaunchOperandAccess(launch, /*written=*/{resultData, resultScales});
    Value dataTensor = bufferization::ToTensorOp::create(
        rewriter, loc, storageType.getDataType(), resultData,
        /*restrict=*/true, /*writable=*/true);
    Value scalesTensor = bufferization::ToTensorOp::create(
        rewriter, loc, storageType.getScalesType(), resultScales,
        /*restrict=*/true, /*writable=*/true);
    mlir::nvfp4::detail::replaceWithNVFP4Storage(rewriter, op, dataTensor,
                                                 scalesTensor, amax,
                                                 /*scaleAtoms=*/false);
    return success();
  }

  GPUTarget target;
};
} // namespace

void mlir::nvfp4::populateNVFP4TransposeToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target) {
  patterns.add<TransposeOpLowering>(patterns.getContext(),
                                    target); // nvfp4.transpose
}
