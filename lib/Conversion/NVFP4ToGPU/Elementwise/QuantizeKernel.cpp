//===- QuantizeKernel.cpp - Lower NVFP4 quantization to GPU kernels -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.quantize` to launches of two kernels of the
// `gpu.module @nvfp4_kernels`:
//
//  * `nvfp4_amax_*` (only without an explicit `amax` operand): every CTA
//    reduces a grid-strided share of the (Hadamard-transformed) input to the
//    maximum magnitude and writes it to one slot of a buffer of per-CTA
//    partial maxima;
//  * `nvfp4_quantize_*`: reduces those partials (or takes the explicit amax),
//    derives S_enc and S_dec, and quantizes one 16-element block per thread
//    with BlockQuantizeEmitter (BlockQuantizeIR.h): block amax (over the
//    16x16 tile by a half-warp butterfly for 2D scales), E4M3 block scale,
//    reciprocal multiplier, E2M1 codes (RN by
//    `cvt.rn.satfinite.e2m1x2.f32` on every target but sm_90a, in software
//    there; SR from Philox4x32-10 bits in software, or on request
//    (`hardware-sr`, sm_100a/sm_103a only) by `cvt.rs.satfinite.e2m1x4.f32`),
//    written packed two codes per byte, plus the compact scale bytes and
//    the tensor amax.
//
// Every f32 operation is the one docs/numerics.md §6 prescribes, in the same
// order, so the kernels produce the bytes of nvfp4::quantize. The host side
// reads the amax back and rebuilds the NVFP4 value with `nvfp4.assemble` over the
// very buffers the kernel wrote; the matmul lowering takes them from there
// without copies. docs/gpu.md describes the design; the work assignment lives
// in QuantizeLayout.h.
//
// `nvfp4.amax` launches the same amax kernel (a quantization of the same
// input type shares it) and takes the maximum of the partials on the host.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Elementwise/QuantizeLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "BlockQuantizeIR.h"
#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::nvfp4;
using mlir::nvfp4::detail::BlockQuantizeEmitter;
using mlir::nvfp4::detail::BlockStochasticRounding;
using mlir::nvfp4::detail::hasHardwareE2M1Convert;
using mlir::nvfp4::detail::hasHardwareStochasticE2M1Convert;
using mlir::nvfp4::detail::IndexExpr;
namespace layout = ::nvfp4::gpu;

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

namespace {
/// Everything the quantize kernels are specialized on.
struct QuantizeConfig {
  SmallVector<int64_t> shape;
  /// Whether a dimension before the last is a run-time size: the kernels
  /// then take the element count from the input buffer (numElementsOf),
  /// and `rows` and `numElements` are 0.
  bool runTimeRows = false;
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
    c.runTimeRows = !input.hasStaticShape();
    c.numElements = c.runTimeRows ? 0 : input.getNumElements();
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
    c.scaleAtoms = op->hasAttr(mlir::nvfp4::detail::kTcgen05ScaleAtomsAttrName);
    c.storageCols =
        mlir::nvfp4::detail::getNVFP4StorageType(op).getShape().back();
    return c;
  }

  /// The 16-element blocks of the input (the amax kernel's work).
  int64_t numBlocks() const { return layout::quantizeNumBlocks(numElements); }
  bool paddedStorage() const { return storageCols != cols; }
  /// Elements of the storage (one quantize-kernel thread per 16).
  int64_t numStorageElements() const { return rows * storageCols; }
  int64_t numStorageBlocks() const {
    return layout::quantizeNumBlocks(numStorageElements());
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
} // namespace

/// Checks the input rules the amax and quantize kernels share: a static,
/// non-empty f32 / bf16 / f16 input whose last dimension is a multiple of
/// 16. Emits an error at `op` and fails otherwise.
static LogicalResult checkKernelInputSupported(Operation *op,
                                               const QuantizeConfig &c) {
  if (c.runTimeRows ? c.cols <= 0 || ShapedType::isDynamic(c.cols)
                    : c.numElements <= 0)
    return op->emitOpError()
           << "is not supported by the GPU kernel: the input must have a "
              "non-empty shape whose last dimension is static";
  if (!c.inputElementType.isF32() && !c.inputElementType.isBF16() &&
      !c.inputElementType.isF16())
    return op->emitOpError() << "is not supported by the GPU kernel: input "
                                "elements must be f32, bf16 or f16";
  if (c.cols % layout::kQuantizeBlock != 0)
    return op->emitOpError() << "is not supported by the GPU kernel: the last "
                                "dimension must be a multiple of 16";
  return success();
}

LogicalResult mlir::nvfp4::checkQuantizeSupported(QuantizeOp op,
                                                  GPUTarget target,
                                                  bool hardwareSR) {
  QuantizeConfig c = QuantizeConfig::get(op, hardwareSR);
  if (c.hardwareSR && !hasHardwareStochasticE2M1Convert(target))
    return op.emitOpError()
           << "with rounding rs cannot use hardware-sr on "
           << stringifyGPUTarget(target)
           << ": cvt.rs.satfinite.e2m1x4.f32 exists on sm_100a and sm_103a "
              "only (drop hardware-sr to round in software)";
  if (failed(checkKernelInputSupported(op, c)))
    return failure();
  if (c.runTimeRows && (c.blockRows != 1 || c.scaleAtoms || c.paddedStorage()))
    return op.emitOpError()
           << "is not supported by the GPU kernel: run-time sizes take 1x16 "
              "blocks in the compact scale layout";
  constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;
  if (layout::quantizeNumCtas(c.numStorageElements()) > kMaxGridX)
    return op.emitOpError()
           << "is not supported by the GPU kernel: " << c.numStorageElements()
           << " elements need more than " << kMaxGridX << " CTAs";
  return success();
}

LogicalResult mlir::nvfp4::checkAmaxSupported(AmaxOp op, GPUTarget target) {
  // The amax kernel runs at most kAmaxMaxCtas CTAs that stride over the
  // blocks, so any input size fits its grid on every target.
  return checkKernelInputSupported(
      op, QuantizeConfig::getForInput(op.getInput().getType()));
}

void mlir::nvfp4::reportQuantizeFallbacks(QuantizeOp op, GPUTarget target,
                                          bool hardwareSR) {
  if (op.getRounding() == Rounding::Stochastic) {
    if (hardwareSR)
      return;
    InFlightDiagnostic remark =
        op.emitRemark()
        << "nvfp4: fallback: stochastic rounding in software (Philox4x32-10 "
           "random bits, integer rounding) instead of "
           "cvt.rs.satfinite.e2m1x4.f32: ";
    if (hasHardwareStochasticE2M1Convert(target))
      remark << "hardware-sr is off (the instruction's random-bit assignment "
                "is unverified on hardware, docs/gpu.md)";
    else
      remark << stringifyGPUTarget(target)
             << " does not have the instruction (sm_100a and sm_103a only)";
    return;
  }
  if (!hasHardwareE2M1Convert(target))
    op.emitRemark() << "nvfp4: fallback: E2M1 rounding in software instead "
                       "of cvt.rn.satfinite.e2m1x2.f32: "
                    << stringifyGPUTarget(target)
                    << " does not have the instruction";
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

namespace {
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
} // namespace

Value QuantizeEmitter::globalBasePointer(Value memref) {
  return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
}

Value QuantizeEmitter::byteAddress(Value base, IndexExpr byteOffset) {
  return mlir::nvfp4::detail::createByteAddress(b, loc, base, byteOffset.v);
}

SmallVector<Value> QuantizeEmitter::loadBlock(Value inputPtr, IndexExpr block) {
  Type elem = c.inputElementType;
  const int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  const int64_t perVector = 16 / elemBytes; // 16-byte vectors
  auto vecType = VectorType::get({perVector}, elem);
  IndexExpr first = layout::quantizeInputElement(block) * elemBytes;
  SmallVector<Value> v;
  for (int64_t part = 0; part < layout::kQuantizeBlock / perVector; ++part) {
    Value vec = LLVM::LoadOp::create(
        b, loc, vecType, byteAddress(inputPtr, first + part * 16), 16);
    for (int64_t e = 0; e < perVector; ++e) {
      Value pos = LLVM::ConstantOp::create(b, loc, b.getI32Type(), e);
      Value x = LLVM::ExtractElementOp::create(b, loc, vec, pos);
      if (!elem.isF32())
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      v.push_back(x);
    }
  }
  return v;
}

void QuantizeEmitter::hadamard(SmallVector<Value> &v) {
  mlir::nvfp4::detail::createHadamard16(b, loc, v, c.signMask());
}

Value QuantizeEmitter::ctaMax(Value v, Value smem, IndexExpr lane,
                              IndexExpr warp) {
  v = mlir::nvfp4::detail::createButterflyMax(b, loc, v, {16, 8, 4, 2, 1});
  Value isLeader = cmpI(arith::CmpIPredicate::eq, lane.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, v, smem, ValueRange{warp.v});
  }
  gpu::BarrierOp::create(b, loc);
  Value r = memref::LoadOp::create(b, loc, smem, ValueRange{idx(0).v});
  for (int64_t w = 1; w < layout::kQuantizeWarps; ++w) {
    Value x = memref::LoadOp::create(b, loc, smem, ValueRange{idx(w).v});
    r = select(cmpF(arith::CmpFPredicate::OGT, x, r), x, r);
  }
  return r;
}

/// The maximum of `partials[first]`, `partials[first + step]`, ... below
/// `numPartials`, starting from 0 with `x > acc ? x : acc` (the partials of
/// the amax kernel are non-negative and never NaN). The quantize kernel
/// reduces the partials with it across its threads, `nvfp4.amax` on the
/// host, so the two cannot disagree.
static Value createPartialsMax(OpBuilder &b, Location loc, Value partials,
                               Value first, Value numPartials, int64_t step) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  auto loop = scf::ForOp::create(
      b, loc, first, numPartials,
      arith::ConstantIndexOp::create(b, loc, step), ValueRange{zero},
      [&](OpBuilder &nb, Location nloc, Value i, ValueRange acc) {
        Value x = memref::LoadOp::create(nb, nloc, partials, ValueRange{i});
        Value greater = arith::CmpFOp::create(
            nb, nloc, arith::CmpFPredicate::OGT, x, acc[0]);
        scf::YieldOp::create(
            nb, nloc,
            ValueRange{arith::SelectOp::create(nb, nloc, greater, x, acc[0])});
      });
  return loop.getResult(0);
}

/// The elements of the buffer `memref`: the product of its sizes, read
/// from its descriptor where they are run-time sizes.
static Value createNumElements(OpBuilder &b, Location loc, Value memref) {
  int64_t staticProduct = 1;
  Value product;
  for (auto [i, size] :
       llvm::enumerate(cast<MemRefType>(memref.getType()).getShape())) {
    if (!ShapedType::isDynamic(size)) {
      staticProduct *= size;
      continue;
    }
    Value dim = memref::DimOp::create(b, loc, memref, i);
    product = product ? arith::MulIOp::create(b, loc, product, dim) : dim;
  }
  Value constant = arith::ConstantIndexOp::create(b, loc, staticProduct);
  return product ? arith::MulIOp::create(b, loc, product, constant) : constant;
}

/// The 16-element blocks of the buffer `input` (of `c`'s input type).
static Value createNumBlocks(OpBuilder &b, Location loc,
                             const QuantizeConfig &c, Value input) {
  if (!c.runTimeRows)
    return arith::ConstantIndexOp::create(b, loc, c.numBlocks());
  return arith::DivUIOp::create(
      b, loc, createNumElements(b, loc, input),
      arith::ConstantIndexOp::create(b, loc, layout::kQuantizeBlock));
}

/// The partial maxima of the amax kernel in `partials`: its CTAs.
static Value createNumPartials(OpBuilder &b, Location loc,
                               const QuantizeConfig &c, Value partials) {
  if (!c.runTimeRows)
    return arith::ConstantIndexOp::create(b, loc,
                                          layout::amaxNumCtas(c.numElements));
  return memref::DimOp::create(b, loc, partials, 0);
}

/// Creates a kernel with `argTypes` and one workgroup buffer of kQuantizeWarps
/// f32 for the CTA reduction; the builder is left at its entry.
static gpu::GPUFuncOp createKernel(OpBuilder &b, Location loc,
                                   gpu::GPUModuleOp module, StringRef name,
                                   TypeRange argTypes) {
  auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                              gpu::AddressSpace::Workgroup);
  auto smemType = MemRefType::get({layout::kQuantizeWarps}, b.getF32Type(),
                                  MemRefLayoutAttrInterface(), workgroup);
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(b, loc, name,
                                       b.getFunctionType(argTypes, {}),
                                       TypeRange{smemType}, TypeRange{});
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(b.getDenseI32ArrayAttr(
      {static_cast<int32_t>(layout::kQuantizeThreads), 1, 1}));
  b.setInsertionPointToStart(&kernel.front());
  return kernel;
}

gpu::GPUFuncOp QuantizeEmitter::buildAmaxKernel(gpu::GPUModuleOp module,
                                                TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.amaxKernelName(), argTypes);
  Block &entry = kernel.front();
  Value input = entry.getArgument(0), partials = entry.getArgument(1);
  Value smem = kernel.getWorkgroupAttributions()[0];

  IndexExpr tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr gid = layout::quantizeGlobalThread(cta, tid);
  Value inputPtr = globalBasePointer(input);
  // The grid's threads: amaxNumCtas of them, or as many as the host
  // launched for a run-time size.
  IndexExpr stride =
      c.runTimeRows
          ? idx(gpu::GridDimOp::create(b, loc, gpu::Dimension::x)) *
                layout::kQuantizeThreads
          : idx(layout::amaxNumCtas(c.numElements) * layout::kQuantizeThreads);

  // Grid-strided walk over the blocks; the order does not matter for a max.
  auto loop = scf::ForOp::create(b, loc, gid.v,
                                 createNumBlocks(b, loc, c, input), stride.v,
                                 ValueRange{f32(0.0f)});
  {
    OpBuilder::InsertionGuard loopGuard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> v = loadBlock(inputPtr, idx(loop.getInductionVar()));
    if (c.hadamard)
      hadamard(v);
    Value acc = loop.getRegionIterArgs()[0];
    for (Value x : v)
      acc = quantizer.absMaxAccumulate(acc, x);
    scf::YieldOp::create(b, loc, acc);
  }
  Value ctaAmax = ctaMax(loop.getResult(0), smem, tid % 32, tid / 32);
  Value isFirst = cmpI(arith::CmpIPredicate::eq, tid.v, idx(0).v);
  auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(b, loc, ctaAmax, partials, ValueRange{cta.v});
  b.setInsertionPointAfter(ifOp);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

gpu::GPUFuncOp QuantizeEmitter::buildQuantizeKernel(gpu::GPUModuleOp module,
                                                    TypeRange argTypes) {
  OpBuilder::InsertionGuard guard(b);
  gpu::GPUFuncOp kernel =
      createKernel(b, loc, module, c.quantizeKernelName(), argTypes);
  Block &entry = kernel.front();
  // Arguments: input, amax (f32) or partials (memref), data, scales, the
  // tensor amax out (memref<1xf32>), [seed].
  Value input = entry.getArgument(0), amaxSource = entry.getArgument(1);
  Value data = entry.getArgument(2), scales = entry.getArgument(3);
  Value amaxOut = entry.getArgument(4);
  Value seed = c.stochastic ? entry.getArgument(5) : Value();
  Value smem = kernel.getWorkgroupAttributions()[0];

  IndexExpr tid = idx(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr cta = idx(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  IndexExpr gid = layout::quantizeGlobalThread(cta, tid);

  // Tensor amax: explicit, or the maximum of the amax kernel's partials.
  Value amax = amaxSource;
  if (!c.explicitAmax) {
    Value threadMax = createPartialsMax(
        b, loc, amaxSource, tid.v, createNumPartials(b, loc, c, amaxSource),
        layout::kQuantizeThreads);
    amax = ctaMax(threadMax, smem, tid % 32, tid / 32);
  }

  // S_enc (docs/numerics.md §6 4.); thread 0 stores the tensor amax, the
  // NVFP4 tensor's f32 component.
  Value sEnc = quantizer.globalEncodeScale(amax);
  {
    Value isFirst = cmpI(arith::CmpIPredicate::eq, gid.v, idx(0).v);
    auto ifOp = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    memref::StoreOp::create(b, loc, amax, amaxOut, ValueRange{idx(0).v});
  }

  // The thread's block of the storage; threads past the end compute on
  // zeros (so that the 16x16 butterfly runs on full warps) and store
  // nothing. With padded storage, the blocks past the input's columns are
  // zeros too (zero codes, zero scales), and the input block, like the
  // random bits, is the one of the unpadded tensor.
  IndexExpr block =
      layout::quantizeBlockOfThread(gid, c.storageCols, c.blockRows);
  // Storage is padded only for static sizes: a run-time size's storage
  // blocks are its input blocks.
  Value numStorageBlocks = c.runTimeRows
                               ? createNumBlocks(b, loc, c, input)
                               : idx(c.numStorageBlocks()).v;
  Value valid = cmpI(arith::CmpIPredicate::ult, gid.v, numStorageBlocks);
  IndexExpr inputBlock = block;
  Value loads = valid;
  if (c.paddedStorage()) {
    const int64_t storageBlocksPerRow = c.storageCols / layout::kQuantizeBlock;
    const int64_t inputBlocksPerRow = c.cols / layout::kQuantizeBlock;
    IndexExpr columnBlock = block % storageBlocksPerRow;
    inputBlock =
        (block / storageBlocksPerRow) * inputBlocksPerRow + columnBlock;
    loads = arith::AndIOp::create(b, loc, valid,
                                  cmpI(arith::CmpIPredicate::ult, columnBlock.v,
                                       idx(inputBlocksPerRow).v));
  }
  Value inputPtr = globalBasePointer(input);
  SmallVector<Type> blockTypes(layout::kQuantizeBlock, b.getF32Type());
  auto loadIf = scf::IfOp::create(b, loc, blockTypes, loads,
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(loadIf.thenBlock());
    scf::YieldOp::create(b, loc, loadBlock(inputPtr, inputBlock));
    b.setInsertionPointToStart(loadIf.elseBlock());
    scf::YieldOp::create(
        b, loc, SmallVector<Value>(layout::kQuantizeBlock, f32(0.0f)));
  }
  SmallVector<Value> v(loadIf.getResults().begin(), loadIf.getResults().end());
  if (c.hadamard)
    hadamard(v);

  // The block scale from the amax of the block (1x16) or of the tile
  // (16x16: the maximum over the half warp), then the codes.
  Value bamax = quantizer.blockAmax(v);
  if (c.blockRows == 16)
    bamax =
        mlir::nvfp4::detail::createButterflyMax(b, loc, bamax, {1, 2, 4, 8});
  std::optional<BlockStochasticRounding> stochastic;
  if (c.stochastic) {
    Value counter = arith::IndexCastUIOp::create(
        b, loc, b.getI64Type(),
        layout::quantizePhiloxCounter(inputBlock,
                                      static_cast<int64_t>(c.offset))
            .v);
    stochastic = BlockStochasticRounding{seed, counter, c.hardwareSR};
  }
  BlockQuantizeEmitter::Block quantized =
      quantizer.quantizeBlock(v, sEnc, bamax, stochastic);

  auto storeIf = scf::IfOp::create(b, loc, valid, /*withElse=*/false);
  b.setInsertionPointToStart(storeIf.thenBlock());
  LLVM::StoreOp::create(
      b, loc, quantized.packed,
      byteAddress(globalBasePointer(data), layout::quantizeDataByte(block)),
      8);
  auto storeScale = [&]() {
    LLVM::StoreOp::create(
        b, loc, quantized.scale,
        byteAddress(globalBasePointer(scales),
                    layout::quantizeScaleIndex(gid, c.blockRows)),
        1);
  };
  if (c.scaleAtoms) {
    // The tcgen05 atoms layout: the block's scale at its row and column
    // block (16x16: every row of the tile stores the tile's scale).
    const int64_t blocksPerRow = c.storageCols / layout::kQuantizeBlock;
    LLVM::StoreOp::create(b, loc, quantized.scale,
                          byteAddress(globalBasePointer(scales),
                                      ::nvfp4::gpu::tcgen05::scaleAtomsOffset(
                                          block / blocksPerRow,
                                          block % blocksPerRow, blocksPerRow)),
                          1);
  } else if (c.blockRows == 1) {
    storeScale();
  } else {
    Value first = cmpI(arith::CmpIPredicate::eq,
                       layout::quantizeRowInTile(gid).v, idx(0).v);
    auto firstIf = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    OpBuilder::InsertionGuard ifGuard(b);
    b.setInsertionPointToStart(firstIf.thenBlock());
    storeScale();
  }
  b.setInsertionPointAfter(storeIf);
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The quantize kernel's CTAs for the run-time-sized buffer `input`, one
/// thread per block, at least 1 (an empty input launches one CTA, whose
/// threads store nothing) and at most `maxCtas`.
static Value createRunTimeGridSize(OpBuilder &b, Location loc,
                                   const QuantizeConfig &config, Value input,
                                   std::optional<int64_t> maxCtas = {}) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value ctas = arith::CeilDivUIOp::create(
      b, loc, createNumBlocks(b, loc, config, input),
      cst(layout::kQuantizeThreads));
  ctas = arith::MaxUIOp::create(b, loc, ctas, cst(1));
  if (maxCtas)
    ctas = arith::MinUIOp::create(b, loc, ctas, cst(*maxCtas));
  return ctas;
}

/// Launches the amax kernel of `config` with the CTA shape `block` on the
/// buffer `input`, building the kernel with `emitter` on first use (ops on
/// inputs of one type and shape share it), and returns a new buffer of its
/// per-CTA partial maxima.
static Value launchAmaxKernel(OpBuilder &b, Location loc,
                              const QuantizeConfig &config,
                              QuantizeEmitter &emitter,
                              gpu::GPUModuleOp kernelModule,
                              gpu::KernelDim3 block, Value input) {
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value numCtas = config.runTimeRows
                      ? createRunTimeGridSize(b, loc, config, input,
                                              layout::kAmaxMaxCtas)
                      : cst(layout::amaxNumCtas(config.numElements));
  Value partials = memref::AllocOp::create(
      b, loc,
      MemRefType::get({config.runTimeRows ? ShapedType::kDynamic
                                          : layout::amaxNumCtas(
                                                config.numElements)},
                      b.getF32Type()),
      config.runTimeRows ? ValueRange{numCtas} : ValueRange{},
      b.getI64IntegerAttr(16));
  SmallVector<Value> args = {input, partials};
  auto kernel =
      kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.amaxKernelName());
  if (!kernel)
    kernel = emitter.buildAmaxKernel(kernelModule, ValueRange(args).getTypes());
  auto launch = gpu::LaunchFuncOp::create(
      b, loc, kernel, gpu::KernelDim3{numCtas, cst(1), cst(1)}, block,
      /*dynamicSharedMemorySize=*/Value(), args);
  setLaunchOperandAccess(launch, /*written=*/partials);
  return partials;
}

namespace {
/// Lowers `nvfp4.quantize` to the amax and quantize kernels and rebuilds the
/// NVFP4 value from their outputs with `nvfp4.assemble`.
struct QuantizeOpLowering : public OpRewritePattern<QuantizeOp> {
  QuantizeOpLowering(MLIRContext *ctx, GPUTarget target, bool hardwareSR)
      : OpRewritePattern(ctx), target(target), hardwareSR(hardwareSR) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
          return checkQuantizeSupported(op, target, hardwareSR);
        }))
      return rewriter.notifyMatchFailure(op, "unsupported quantize");
    QuantizeConfig config = QuantizeConfig::get(op, hardwareSR);
    Location loc = op.getLoc();
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    auto alignment = rewriter.getI64IntegerAttr(16);
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    QuantizeEmitter emitter(rewriter, loc, config, target);
    gpu::KernelDim3 block{cst(layout::kQuantizeThreads), cst(1), cst(1)};

    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Value input = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(inputType.getShape(), inputType.getElementType()),
        op.getInput(), /*read_only=*/true);

    // Tensor amax: the explicit operand, or the amax kernel's partials.
    Value amaxSource = op.getAmax();
    Value partials;
    if (!amaxSource) {
      partials = launchAmaxKernel(rewriter, loc, config, emitter, kernelModule,
                                  block, input);
      amaxSource = partials;
    }

    // Outputs: packed data, compact (or tcgen05 atoms) scales, the amax,
    // in the storage shape (K padded for a tcgen05 matmul).
    NVFP4TensorType storageType = mlir::nvfp4::detail::getNVFP4StorageType(op);
    RankedTensorType dataType = storageType.getDataType();
    RankedTensorType scalesType =
        config.scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(storageType)
            : storageType.getScalesType();
    // Run-time sizes are the input's leading ones (1x16 blocks: the data
    // and scales have the input's rows).
    SmallVector<Value> rowSizes;
    for (auto [i, size] : llvm::enumerate(inputType.getShape()))
      if (ShapedType::isDynamic(size))
        rowSizes.push_back(memref::DimOp::create(rewriter, loc, input, i));
    Value data = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(dataType.getShape(), dataType.getElementType()),
        rowSizes, alignment);
    Value scales = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(scalesType.getShape(), scalesType.getElementType()),
        rowSizes, alignment);
    Value amaxOut = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({1}, rewriter.getF32Type()));
    SmallVector<Value> args = {input, amaxSource, data, scales, amaxOut};
    if (config.stochastic) {
      Value seed = op.getSeed();
      if (!seed)
        seed = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getI64IntegerAttr(0));
      args.push_back(seed);
    }
    auto kernel =
        kernelModule.lookupSymbol<gpu::GPUFuncOp>(config.quantizeKernelName());
    if (!kernel)
      kernel = emitter.buildQuantizeKernel(kernelModule,
                                           ValueRange(args).getTypes());
    auto launch = gpu::LaunchFuncOp::create(
        rewriter, loc, kernel,
        gpu::KernelDim3{
            config.runTimeRows
                ? createRunTimeGridSize(rewriter, loc, config, input)
                : cst(layout::quantizeNumCtas(config.numStorageElements())),
            cst(1), cst(1)},
        block, /*dynamicSharedMemorySize=*/Value(), args);
    setLaunchOperandAccess(launch, /*written=*/{data, scales, amaxOut});

    // Host side: the amax back as a scalar, the buffers as the NVFP4 value.
    Value amax =
        memref::LoadOp::create(rewriter, loc, amaxOut, ValueRange{cst(0)});
    memref::DeallocOp::create(rewriter, loc, amaxOut);
    if (partials)
      memref::DeallocOp::create(rewriter, loc, partials);
    Value dataTensor = bufferization::ToTensorOp::create(
        rewriter, loc, dataType, data, /*restrict=*/true, /*writable=*/true);
    Value scalesTensor = bufferization::ToTensorOp::create(
        rewriter, loc, scalesType, scales, /*restrict=*/true,
        /*writable=*/true);
    mlir::nvfp4::detail::replaceWithNVFP4Storage(
        rewriter, op, dataTensor, scalesTensor, amax, config.scaleAtoms);
    return success();
  }

  GPUTarget target;
  bool hardwareSR;
};

/// Lowers `nvfp4.amax` to a launch of the amax kernel and the maximum of its
/// per-CTA partials on the host.
struct AmaxOpLowering : public OpRewritePattern<AmaxOp> {
  AmaxOpLowering(MLIRContext *ctx, GPUTarget target)
      : OpRewritePattern(ctx), target(target) {}

  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto module = op->getParentOfType<ModuleOp>();
    if (!module)
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!mlir::nvfp4::detail::succeedsSilently(
            op.getContext(), [&] { return checkAmaxSupported(op, target); }))
      return rewriter.notifyMatchFailure(op, "unsupported amax");
    QuantizeConfig config =
        QuantizeConfig::getForInput(op.getInput().getType());
    Location loc = op.getLoc();
    gpu::GPUModuleOp kernelModule =
        getOrCreateNVFP4KernelModule(rewriter, module);
    QuantizeEmitter emitter(rewriter, loc, config, target);
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    Value input =
        mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, op.getInput());
    Value partials = launchAmaxKernel(
        rewriter, loc, config, emitter, kernelModule,
        gpu::KernelDim3{cst(layout::kQuantizeThreads), cst(1), cst(1)}, input);
    Value amax = createPartialsMax(
        rewriter, loc, partials, cst(0),
        createNumPartials(rewriter, loc, config, partials), /*step=*/1);
    memref::DeallocOp::create(rewriter, loc, partials);
    rewriter.replaceOp(op, amax);
    return success();
  }

  GPUTarget target;
};
} // namespace

void mlir::nvfp4::populateNVFP4QuantizeToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR) {
  patterns.add<QuantizeOpLowering>(patterns.getContext(), target,
                                   hardwareSR); // nvfp4.quantize
}

void mlir::nvfp4::populateNVFP4AmaxToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target) {
  patterns.add<AmaxOpLowering>(patterns.getContext(), target); // nvfp4.amax
}
