//===- QuantizeKernelBuilder.h - The quantize and amax kernels --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// What the quantize and amax kernels are specialized on (QuantizeConfig), the
// emitter of their device code (QuantizeEmitter, QuantizeKernel.cpp), and
// the size computations the kernels and their launches (QuantizePatterns.cpp)
// share, so that the two sides cannot disagree. Internal to the library.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_ELEMENTWISE_QUANTIZEKERNELBUILDER_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_ELEMENTWISE_QUANTIZEKERNELBUILDER_H

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/QuantizeLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "BlockQuantizeIR.h"
#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Format.h"

#include <array>
#include <optional>

namespace mlir::nvfp4::detail {

/// Everything the quantize kernels are specialized on.
struct QuantizeConfig {
  SmallVector<int64_t> shape;
  /// Whether a dimension is a run-time size: the kernels then take the
  /// element count from the input buffer (createNumElements), and `rows` and
  /// `numElements` are 0. A run-time last dimension (`cols` is
  /// ShapedType::kDynamic) is checked to be a multiple of 16 on the host
  /// before the launch; the 1x16 blocks of the compact layout are then the
  /// consecutive 16 elements, whatever the row length.
  bool runTimeSizes = false;
  bool hasRunTimeCols() const { return ShapedType::isDynamic(cols); }
  int64_t rows = 0, cols = 0, numElements = 0;
  int64_t blockRows = 1;
  Type inputElementType;
  bool stochastic = false;
  uint64_t offset = 0;
  bool hadamard = false;
  std::array<bool, 16> negate{}; // signs[j] < 0
  bool explicitAmax = false;
  /// SR by cvt.rs.satfinite.e2m1x4.f32 (stochastic ops, hardware-sr).
  bool hardwareSR = false;
  /// The scales go to the tcgen05 atoms layout ([rows, cols/16] bytes, one
  /// per row also for 16x16 blocks) instead of the compact one: the
  /// op carries kTcgen05ScaleAtomsAttrName.
  bool scaleAtoms = false;
  /// Columns of the storage the codes and scales are written to: `cols`,
  /// or with kTcgen05StorageColsAttrName K padded to a multiple of 32, whose
  /// columns past `cols` get zero codes and zero scales.
  int64_t storageCols = 0;

  /// The configuration of the amax kernel over `input` (no Hadamard
  /// transform), which `nvfp4.amax` launches.
  static QuantizeConfig getForInput(RankedTensorType input) {
    QuantizeConfig c;
    c.shape.assign(input.getShape().begin(), input.getShape().end());
    c.cols = c.shape.empty() ? 0 : c.shape.back();
    c.runTimeSizes = !input.hasStaticShape();
    c.numElements = c.runTimeSizes ? 0 : input.getNumElements();
    c.rows = c.cols > 0 ? c.numElements / c.cols : 0;
    c.storageCols = c.cols;
    c.inputElementType = input.getElementType();
    return c;
  }

  static QuantizeConfig get(QuantizeOp op, bool hardwareSR = false) {
    QuantizeConfig c =
        getForInput(cast<RankedTensorType>(op.getInput().getType()));
    auto result = cast<NVFP4TensorType>(op.getResult().getType());
    c.blockRows = result.getBlock().getRows();
    c.stochastic = op.getRounding() == Rounding::Stochastic;
    if (c.stochastic)
      c.offset = op.getOffset().value_or(0);
    if (std::optional<ArrayRef<int8_t>> signs = op.getHadamard()) {
      c.hadamard = true;
      for (auto [j, s] : llvm::enumerate(*signs))
        if (j < 16)
          c.negate[j] = s < 0;
    }
    c.explicitAmax = static_cast<bool>(op.getAmax());
    c.hardwareSR = hardwareSR && c.stochastic;
    c.scaleAtoms = op->hasAttr(kTcgen05ScaleAtomsAttrName);
    c.storageCols = getNVFP4StorageType(op).getShape().back();
    return c;
  }

  /// The 16-element blocks of the input (the amax kernel's work).
  int64_t numBlocks() const {
    return ::nvfp4::gpu::quantizeNumBlocks(numElements);
  }
  bool paddedStorage() const { return storageCols != cols; }
  /// Elements of the storage (one quantize-kernel thread per 16).
  int64_t numStorageElements() const { return rows * storageCols; }
  int64_t numStorageBlocks() const {
    return ::nvfp4::gpu::quantizeNumBlocks(numStorageElements());
  }

  /// Bit j set when the Hadamard sign j is negative.
  unsigned signMask() const {
    unsigned m = 0;
    for (int j = 0; j < 16; ++j)
      m |= negate[j] ? 1u << j : 0u;
    return m;
  }

  std::string elementTypeName() const {
    if (inputElementType.isF32())
      return "f32";
    return inputElementType.isBF16() ? "bf16" : "f16";
  }
  std::string hadamardSuffix() const {
    if (!hadamard)
      return "";
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "_rht" << llvm::format_hex_no_prefix(signMask(), 4);
    return s;
  }

  /// The input shape, e.g. `2x64x64`, `dynx64` (kernel arguments are typed
  /// by it).
  std::string shapeName() const {
    std::string s;
    for (auto [i, d] : llvm::enumerate(shape))
      s += (i ? "x" : "") +
           (ShapedType::isDynamic(d) ? std::string("dyn") : std::to_string(d));
    return s;
  }
  /// e.g. `nvfp4_amax_256x256_bf16_rhtd7e8`.
  std::string amaxKernelName() const {
    return "nvfp4_amax_" + shapeName() + "_" + elementTypeName() +
           hadamardSuffix();
  }
  /// e.g. `nvfp4_quantize_256x512_16x16_f32_rn`,
  /// `nvfp4_quantize_64x1024_1x16_bf16_rs_o8_rhtd7e8_amax`,
  /// `nvfp4_quantize_128x48_1x16_f32_rn_pad64` (stored 64 columns wide).
  std::string quantizeKernelName() const {
    std::string s = "nvfp4_quantize_" + shapeName() + "_" +
                    std::to_string(blockRows) + "x16_" + elementTypeName() +
                    (stochastic ? "_rs" : "_rn");
    if (stochastic)
      s += "_o" + std::to_string(offset);
    if (hardwareSR)
      s += "_hw";
    s += hadamardSuffix();
    if (explicitAmax)
      s += "_amax";
    if (scaleAtoms)
      s += "_sfatoms";
    if (paddedStorage())
      s += "_pad" + std::to_string(storageCols);
    return s;
  }
};

/// Emits the device code of the quantize kernels: memory accesses, the
/// Hadamard transform and the reductions across threads. The per-block
/// quantization is BlockQuantizeEmitter's.
class QuantizeEmitter {
public:
  QuantizeEmitter(OpBuilder &b, Location loc, const QuantizeConfig &config,
                  GPUTarget target)
      : b(b), loc(loc), c(config), quantizer(b, loc, target) {}

  gpu::GPUFuncOp buildAmaxKernel(gpu::GPUModuleOp module, TypeRange argTypes);
  gpu::GPUFuncOp buildQuantizeKernel(gpu::GPUModuleOp module,
                                     TypeRange argTypes);

private:
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  IndexExpr idx(Value v) { return {&b, loc, v}; }
  IndexExpr idx(int64_t v) { return IndexExpr{&b, loc, Value()}.cst(v); }
  Value select(Value cond, Value t, Value f) {
    return arith::SelectOp::create(b, loc, cond, t, f);
  }
  Value cmpF(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value cmpI(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }

  /// A global pointer to the first byte of `memref`.
  Value globalBasePointer(Value memref);
  Value byteAddress(Value base, IndexExpr byteOffset);
  /// The 16 elements of block `block` of the input, extended to f32 (exact).
  SmallVector<Value> loadBlock(Value inputPtr, IndexExpr block);
  /// applyHadamard on one group, in place: sign flip, butterflies h = 1, 2,
  /// 4, 8, times 0.25f.
  void hadamard(SmallVector<Value> &v);
  /// The maximum of `v` (non-NaN) over the CTA; every thread receives it.
  Value ctaMax(Value v, Value smem, IndexExpr lane, IndexExpr warp);

  OpBuilder &b;
  Location loc;
  const QuantizeConfig &c;
  BlockQuantizeEmitter quantizer;
};

/// The elements of the buffer `memref`: the product of its sizes, read
/// from its descriptor where they are run-time sizes.
Value createNumElements(OpBuilder &b, Location loc, Value memref);

/// The 16-element blocks of the buffer `input` (of `c`'s input type).
Value createNumBlocks(OpBuilder &b, Location loc, const QuantizeConfig &c,
                      Value input);

/// The partial maxima of the amax kernel in `partials`: its CTAs.
Value createNumPartials(OpBuilder &b, Location loc, const QuantizeConfig &c,
                        Value partials);

/// The maximum of `partials[first]`, `partials[first + step]`, ... below
/// `numPartials`, starting from 0 with `x > acc ? x : acc` (the partials of
/// the amax kernel are non-negative and never NaN). The quantize kernel
/// reduces the partials with it across its threads, `nvfp4.amax` on the
/// host, so the two cannot disagree.
Value createPartialsMax(OpBuilder &b, Location loc, Value partials, Value first,
                        Value numPartials, int64_t step);

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_ELEMENTWISE_QUANTIZEKERNELBUILDER_H
