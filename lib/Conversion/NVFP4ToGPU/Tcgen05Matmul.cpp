//===- Tcgen05Matmul.cpp - NVFP4 matmul on tcgen05 tensor cores -----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers `nvfp4.matmul` for sm_100a / sm_103a / sm_110a to a launch of a
// persistent, warp-specialized 1-CTA kernel built on
// `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16`:
//
//  - CTA tile 128 x N x 256 (N = 256, 128 or 64, the largest dividing the
//    output width); the grid is min(#tiles, #SMs) CTAs, each computing the
//    tiles blockIdx.x, blockIdx.x + gridDim.x, ... (Tcgen05Pipeline.h);
//  - 192 threads: warp 0 loads the A and B tiles of each K tile with TMA
//    (`cp.async.bulk.tensor`, 128-byte swizzle, tensor maps built by the
//    host through libnvfp4_cuda_runtime) and the E4M3 scales with its 32
//    lanes into 128x4 atoms; one thread of warp 1 copies the atoms to tensor
//    memory (tcgen05.cp.32x128b.warpx4) and issues the 4 MMAs of the K tile
//    with compiler-built descriptors; warps 2..5 read the accumulator with
//    tcgen05.ld.32x32b.x16, multiply by the operands' alpha (from their amaxes),
//    add `acc` and store f32 or bf16;
//  - up to 6 shared-memory stages between producer and MMA (full / empty
//    mbarriers) and, when tensor memory allows, two accumulators between MMA
//    and epilogue (accFull / accEmpty mbarriers).
//
// docs/tcgen05.md describes the design and its ptxas figures.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Matmul.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Descriptors.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Pipeline.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05TensorMap.h"

#include "BlockQuantizeIR.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Format.h"

#include <array>
#include <optional>

using namespace mlir;
using namespace mlir::nvfp4;
namespace tc = ::nvfp4::gpu::tcgen05;
using mlir::nvfp4::detail::BlockQuantizeEmitter;

bool mlir::nvfp4::isTcgen05Target(GPUTarget target) {
  return target == GPUTarget::SM100a || target == GPUTarget::SM103a ||
         target == GPUTarget::SM110a;
}

namespace {
/// How the NVFP4 epilogue quantizes: everything of the `nvfp4.quantize` it
/// computes that the kernel is specialized on (its amax and seed operands are
/// kernel arguments).
struct EpilogueQuantization {
  /// 1 (1x16 blocks) or 16 (16x16 blocks).
  int64_t blockRows = 1;
  bool stochastic = false;
  /// The Philox counter of the result's first block (`offset`).
  uint64_t offset = 0;
  /// Stochastic rounding by cvt.rs.satfinite.e2m1x4.f32 (hardware-sr).
  bool hardwareSR = false;
  /// Bit j set when Hadamard sign j is negative; none: no transform.
  std::optional<uint32_t> hadamardNegateMask;
  /// The scales are stored in the global atoms layout (the quantization's
  /// users are tcgen05 matmuls: producesTcgen05ScaleAtoms).
  bool scaleAtoms = false;

  static EpilogueQuantization get(QuantizeOp op, bool hardwareSR) {
    EpilogueQuantization q;
    q.scaleAtoms = op->hasAttr(mlir::nvfp4::detail::kTcgen05ScaleAtomsAttrName);
    q.blockRows =
        cast<NVFP4TensorType>(op.getResult().getType()).getBlock().getRows();
    q.stochastic = op.getRounding() == Rounding::Stochastic;
    if (q.stochastic) {
      q.offset = op.getOffset().value_or(0);
      q.hardwareSR = hardwareSR;
    }
    if (std::optional<ArrayRef<int8_t>> signs = op.getHadamard()) {
      uint32_t mask = 0;
      for (auto [j, sign] : llvm::enumerate(*signs))
        mask |= sign < 0 ? 1u << j : 0u;
      q.hadamardNegateMask = mask;
    }
    return q;
  }

  /// e.g. `_nvfp4`, `_nvfp4_16x16`, `_nvfp4_rs_o64_hw_rhtd7e8`: the suffix
  /// of the quantize kernels' names for the same options.
  std::string kernelNameSuffix() const {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "_nvfp4";
    if (blockRows != 1)
      os << "_" << blockRows << "x16";
    if (stochastic)
      os << "_rs_o" << offset << (hardwareSR ? "_hw" : "");
    if (hadamardNegateMask)
      os << "_rht" << llvm::format_hex_no_prefix(*hadamardNegateMask, 4);
    if (scaleAtoms)
      os << "_sfatoms";
    return name;
  }
};

/// Everything the tcgen05 kernel is specialized on.
struct Tcgen05Config {
  int64_t batch = 0; // 0: unbatched
  int64_t m = 0, n = 0, k = 0;
  int64_t lhsBlockRows = 1, rhsBlockRows = 1;
  /// The A / B scales are in the global atoms layout: the producer's elected
  /// lane bulk-copies them into the stage's atoms instead of the warp's
  /// loads and transposed stores.
  bool lhsScaleAtoms = false, rhsScaleAtoms = false;
  Type resultElementType;
  bool hasAcc = false;
  /// The epilogue quantizes the result to NVFP4, with the tensor scale of a
  /// given amax, instead of storing it.
  std::optional<EpilogueQuantization> nvfp4Output;
  /// The epilogue also reduces the result's amax (`nvfp4.amax` of the
  /// matmul result) into a one-element buffer.
  bool computesAmax = false;
  /// The target (the NVFP4 epilogue uses its E2M1 conversion).
  GPUTarget target = GPUTarget::SM100a;
  /// Which variant `tcgen05-cta-pair` asks for; `plan.ctaPair` is the
  /// outcome of its selection rule (tc::selectCtaPair).
  tc::CtaPairMode ctaPairMode = tc::CtaPairMode::Auto;
  tc::TilePlan plan;

  static Tcgen05Config
  get(MatmulOp op, GPUTarget target,
      std::optional<EpilogueQuantization> nvfp4Output = std::nullopt,
      tc::CtaPairMode ctaPairMode = tc::CtaPairMode::Auto) {
    auto lhs = cast<NVFP4TensorType>(op.getLhs().getType());
    auto rhs = cast<NVFP4TensorType>(op.getRhs().getType());
    ArrayRef<int64_t> lhsShape = lhs.getShape(), rhsShape = rhs.getShape();
    Tcgen05Config c;
    if (lhsShape.size() == 3)
      c.batch = lhsShape[0];
    c.m = lhsShape[lhsShape.size() - 2];
    c.k = lhsShape.back();
    c.n = rhsShape[rhsShape.size() - 2];
    c.lhsBlockRows = lhs.getBlock().getRows();
    c.rhsBlockRows = rhs.getBlock().getRows();
    c.resultElementType = op.getResult().getType().getElementType();
    c.hasAcc = static_cast<bool>(op.getAcc());
    c.nvfp4Output = nvfp4Output;
    c.target = target;
    c.ctaPairMode = ctaPairMode;
    const int64_t tileN = tc::chooseTileN(c.n);
    c.plan = tc::makeTilePlan(
        tileN, tc::selectCtaPair(ctaPairMode, c.batches(), c.m, c.n, tileN));
    return c;
  }

  int64_t batches() const { return std::max<int64_t>(batch, 1); }
  int64_t nTiles() const { return n / plan.tileN; }
  int64_t mTiles() const { return m / plan.tileM; }
  int64_t numTiles() const { return nTiles() * mTiles() * batches(); }
  int64_t kTiles() const { return k / tc::kTileK; }

  /// The tensor maps of the A and B data at device address `address`: one
  /// box is what one CTA loads (with a CTA pair, 128 rows of A and half of
  /// the tile's B rows).
  tc::ByteTensorMap2D lhsTensorMap(uint64_t address) const {
    return tc::operandTensorMap(address, batches(), m, k, tc::kTileM);
  }
  tc::ByteTensorMap2D rhsTensorMap(uint64_t address) const {
    return tc::operandTensorMap(address, batches(), n, k, plan.bRowsPerCta);
  }

  /// e.g. `nvfp4_tcgen05_matmul_m128n256k1024_t256_1x16_16x16_f32`, or
  /// `..._t256_pair_...` for the CTA pair; `_sfatoms_a`, `_sfatoms_b`,
  /// `_sfatoms_ab` name the operands whose scales are in the atoms layout.
  std::string kernelName() const {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "nvfp4_tcgen05_matmul_";
    if (batch)
      os << "b" << batch;
    os << "m" << m << "n" << n << "k" << k << "_t" << plan.tileN
       << (plan.ctaPair ? "_pair_" : "_") << lhsBlockRows << "x16_"
       << rhsBlockRows << "x16_"
       << (resultElementType.isBF16() ? "bf16" : "f32");
    if (hasAcc)
      os << "_acc";
    if (lhsScaleAtoms || rhsScaleAtoms)
      os << "_sfatoms_" << (lhsScaleAtoms ? "a" : "")
         << (rhsScaleAtoms ? "b" : "");
    if (nvfp4Output)
      os << nvfp4Output->kernelNameSuffix();
    if (computesAmax)
      os << "_resultamax";
    return name;
  }
};
} // namespace

LogicalResult
mlir::nvfp4::checkTcgen05MatmulSupported(MatmulOp op, GPUTarget target,
                                         tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return op.emitOpError() << "the tcgen05 kernel needs sm_100a, sm_103a or "
                               "sm_110a";
  Tcgen05Config c = Tcgen05Config::get(op, target, std::nullopt, ctaPair);
  auto fail = [&]() {
    return op.emitOpError()
           << "is not supported by the tcgen05 kernel: M = " << c.m
           << ", N = " << c.n << ", K = " << c.k << "; ";
  };
  if (c.m % tc::kTileM != 0)
    return fail() << "M must be a multiple of " << tc::kTileM
                  << " (the M of tcgen05.mma.cta_group::1; operands are not "
                     "padded)";
  if (c.plan.tileN == 0)
    return fail() << "N must be a multiple of 64 (the CTA tile is 128 x N "
                     "with N in {256, 128, 64}; operands are not padded)";
  if (ctaPair == tc::CtaPairMode::On && !c.plan.ctaPair)
    return fail() << "tcgen05-cta-pair=on needs M to be a multiple of "
                  << tc::kPairTileM
                  << " (a CTA pair computes 256-row tiles with "
                     "tcgen05.mma.cta_group::2; operands are not padded)";
  if (c.k % tc::kTileK != 0)
    return fail() << "K must be a multiple of " << tc::kTileK
                  << " (the K tile: one 128-byte swizzle row of E2M1 codes)";
  if (!tc::tensorMapRowsFitCoordinates(c.batches(), std::max(c.m, c.n)))
    return fail() << "the batch size times M and times N must be below 2^31 "
                     "(TMA coordinates are signed 32-bit)";
  // Any 16-byte aligned device address stands for the buffers here; the
  // runtime checks the actual ones.
  for (const tc::ByteTensorMap2D &map :
       {c.lhsTensorMap(tc::kTensorMapAddressAlignment),
        c.rhsTensorMap(tc::kTensorMapAddressAlignment)})
    if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(map);
        issue != tc::TensorMapIssue::None)
      return fail() << "no TMA tensor map describes the operands: "
                    << tc::describeTensorMapIssue(issue);
  if (!tc::pipelineStepsFit32Bits(c.numTiles(), c.kTiles(), c.plan.stages))
    return fail() << "the output tiles times the K tiles must be below 2^31 "
                     "(the pipeline counters are 32-bit)";
  return success();
}

std::string
mlir::nvfp4::getTcgen05EpilogueFusionBlocker(QuantizeOp op, GPUTarget target,
                                             tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return "the NVFP4 epilogue is a feature of the tcgen05 kernel (sm_100a, "
           "sm_103a, sm_110a)";
  auto matmul = op.getInput().getDefiningOp<MatmulOp>();
  if (!matmul)
    return "the input is not the result of an nvfp4.matmul";
  if (llvm::any_of(matmul->getUsers(), [&](Operation *user) {
        return user != op && !isa<AmaxOp>(user);
      }))
    return "the matmul result has other uses, so it is stored anyway";
  if (!op.getAmax())
    return op.getHadamard()
               ? "without an amax operand the tensor scale depends on the "
                 "whole result, which no CTA sees"
               : "without an amax operand the tensor scale depends on the "
                 "whole result, which no CTA sees (the matmul kernel's "
                 "epilogue computes the result's amax for the quantize "
                 "kernel)";
  // The kernel replaces the matmul, so the operands must exist there.
  DominanceInfo dominance(matmul->getParentOp());
  if (!dominance.properlyDominates(op.getAmax(), matmul))
    return "the amax operand is defined after the matmul (e.g. from its "
           "result), so the tensor scale is unknown when the kernel runs";
  if (op.getSeed() && !dominance.properlyDominates(op.getSeed(), matmul))
    return "the seed operand is defined after the matmul";
  if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
        return checkTcgen05MatmulSupported(matmul, target, ctaPair);
      }))
    return "the tcgen05 kernel does not take the matmul";
  return "";
}

bool mlir::nvfp4::canReadTcgen05ScaleAtoms(MatmulOp op, unsigned operandIndex,
                                           GPUTarget target,
                                           tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target) || operandIndex > 1)
    return false;
  if (!mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
        return checkTcgen05MatmulSupported(op, target, ctaPair);
      }))
    return false;
  // The selection of both lowerings (with or without the NVFP4 epilogue).
  // Whole atoms per CTA: A 128 rows (a pair's 256-row tile is two blocks),
  // B every tileN row (each CTA of a pair copies all of them).
  Tcgen05Config c = Tcgen05Config::get(op, target, std::nullopt, ctaPair);
  const int64_t scaleCols = c.k / mlir::nvfp4::kBlockSize;
  return operandIndex == 0 ? tc::hasWholeScaleAtoms(c.m, scaleCols)
                           : c.plan.tileN % tc::kScaleAtomRows == 0 &&
                                 tc::hasWholeScaleAtoms(c.n, scaleCols);
}

bool mlir::nvfp4::producesTcgen05ScaleAtoms(QuantizeOp op, GPUTarget target,
                                            tc::CtaPairMode ctaPair) {
  if (!isTcgen05Target(target))
    return false;
  auto type = cast<NVFP4TensorType>(op.getResult().getType());
  ArrayRef<int64_t> shape = type.getShape();
  if (shape.empty() || !type.hasStaticShape())
    return false;
  const int64_t cols = shape.back(), blockSize = mlir::nvfp4::kBlockSize;
  if (cols % blockSize != 0 ||
      !tc::hasWholeScaleAtoms(type.getNumElements() / cols, cols / blockSize))
    return false;
  Value result = op.getResult();
  return !result.use_empty() &&
         llvm::all_of(result.getUses(), [&](OpOperand &use) {
           auto matmul = dyn_cast<MatmulOp>(use.getOwner());
           return matmul &&
                  canReadTcgen05ScaleAtoms(matmul, use.getOperandNumber(),
                                           target, ctaPair);
         });
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

namespace {
/// An i32 value (the kernel's index arithmetic; i64 for global byte
/// offsets: constants take the value's type) with operators that emit
/// `arith` operations, so that the templates of Tcgen05Descriptors.h and
/// Tcgen05Pipeline.h generate IR. Operands are non-negative: division and
/// remainder are unsigned.
struct IdxI32 {
  OpBuilder *b;
  Location loc;
  Value v;

  IdxI32 cst(int64_t c) const {
    return {b, loc, arith::ConstantIntOp::create(*b, loc, v.getType(), c)};
  }
  friend IdxI32 operator+(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator-(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::SubIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator*(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator/(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::DivUIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IdxI32 operator+(IdxI32 x, int64_t c) {
    return c == 0 ? x : x + x.cst(c);
  }
  friend IdxI32 operator*(IdxI32 x, int64_t c) {
    return c == 1 ? x : x * x.cst(c);
  }
  friend IdxI32 operator/(IdxI32 x, int64_t c) {
    return c == 1 ? x : x / x.cst(c);
  }
  friend IdxI32 operator%(IdxI32 x, int64_t c) {
    if (c == 1)
      return x.cst(0);
    return {x.b, x.loc, arith::RemUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
};

/// Name of the dynamic shared-memory symbol of the tcgen05 kernels.
constexpr llvm::StringLiteral kSmemSymbol = "__nvfp4_tcgen05_smem";

/// libnvfp4_cuda_runtime entry points the host code calls
/// (include/nvfp4/ExecutionEngine/CudaRuntime.h).
constexpr llvm::StringLiteral kTensorMapCreateFn = "nvfp4CudaTensorMapCreate2D";
constexpr llvm::StringLiteral kTensorMapDestroyFn = "nvfp4CudaTensorMapDestroy";
constexpr llvm::StringLiteral kMultiprocessorCountFn =
    "nvfp4CudaMultiprocessorCount";

/// Kernel arguments (then `acc` if any, then the result: one buffer, or with
/// the NVFP4 epilogue the amax, the seed if stochastic, the data and the
/// scales buffers; then the result's amax buffer if the kernel computes it).
/// Each
/// tensor map directly follows the data buffer it describes: the kernel reads
/// the data only through the tensor map, but the buffer stays an operand of the
/// launch so that the host staging of nvfp4-to-gpu-executable moves it to the
/// device, and nvfp4-tcgen05-retarget-tensor-maps finds the buffer of each map.
enum KernelArg : unsigned {
  kArgLhsData,
  kArgLhsTensorMap,
  kArgLhsScales,
  kArgLhsAmax,
  kArgRhsData,
  kArgRhsTensorMap,
  kArgRhsScales,
  kArgRhsAmax,
  kArgAccOrResult,
};

class Tcgen05KernelBuilder {
public:
  Tcgen05KernelBuilder(OpBuilder &b, Location loc, const Tcgen05Config &c)
      : b(b), loc(loc), c(c), p(c.plan) {}

  gpu::GPUFuncOp build(gpu::GPUModuleOp module, StringRef name,
                       TypeRange argTypes);

private:
  IdxI32 idx(Value v) { return {&b, loc, v}; }

  // Integer helpers. Index arithmetic is done in i32 (shared-memory
  // addresses, tensor-memory addresses, tile and pipeline counters) or i64
  // (global byte offsets).
  Value i32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  }
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value addC(Value x, int64_t v) {
    return v == 0 ? x : add(x, cst(x.getType(), v));
  }
  Value mulC(Value x, int64_t v) {
    return v == 1 ? x : mul(x, cst(x.getType(), v));
  }
  Value divC(Value x, int64_t v) {
    return v == 1 ? x
                  : arith::DivUIOp::create(b, loc, x, cst(x.getType(), v))
                        .getResult();
  }
  Value cst(Type t, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, t, v);
  }
  Value ext64(Value v) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }

  /// The global pointer to the first byte of a memref argument.
  Value globalBase(Value memref) {
    return mlir::nvfp4::detail::createGlobalBasePointer(b, loc, memref);
  }
  /// `base` advanced by `offset` (i32 or i64) bytes, as a pointer of base's
  /// type.
  Value gep(Value base, Value offset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{offset},
                               LLVM::GEPNoWrapFlags::inbounds);
  }
  /// A shared-memory pointer at byte `offset` (i32) of the aligned base.
  Value smemPtr(Value offset) { return gep(smemBase, offset); }
  /// The shared-window address of byte `offset` (i32) of the aligned base.
  Value smemAddr(Value offset) { return add(smemBaseAddr, offset); }
  /// The mbarrier `index` (i32) of the array at byte `offset`.
  Value barrier(int64_t offset, Value index) {
    return smemPtr(add(i32(offset), mulC(index, tc::kMbarrierBytes)));
  }
  /// A descriptor: `constant | ((address >> 4) & 0x3FFF)`.
  Value smemDesc(uint64_t constant, Value address);
  /// A tensor-memory pointer to the address `address` (lane << 16 | column).
  Value tmemPtr(Value address) {
    return LLVM::IntToPtrOp::create(
        b, loc,
        LLVM::LLVMPointerType::get(
            b.getContext(),
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Tensor)),
        address);
  }

  /// Emits `then` under `scf.if cond`.
  void ifThen(Value cond, function_ref<void()> then) {
    auto op = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    then();
  }
  /// Emits `body(iv)` in `scf.for iv = lower to upper` (i32 bounds).
  void forRange(Value lower, Value upper, function_ref<void(Value)> body) {
    auto loop = scf::ForOp::create(b, loc, lower, upper, i32(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body(loop.getInductionVar());
  }
  /// Emits `body(local, coord)` for each tile of this CTA: local index
  /// `local` (0, 1, ...), coordinates `coord`.
  void forEachTile(function_ref<void(Value, tc::TileCoord<IdxI32>)> body);

  /// Spins until phase parity `parity` (i32) of the mbarrier `bar` completed
  /// (acquire at cluster scope with a CTA pair, whose peer arrives on the
  /// leader's barriers).
  void emitWait(Value bar, Value parity);

  // CTA pairs (cta_group::2; the 1-CTA kernel uses cta_group::1).
  NVVM::CTAGroupKind ctaGroup() const {
    return p.ctaPair ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1;
  }
  /// The mbarrier `index` (i32) of the array at byte `offset` of the pair's
  /// leader CTA, as a shared::cluster pointer (`mapa`; the leader's own
  /// address in the leader).
  Value leaderBarrier(int64_t offset, Value index);
  /// Arrives on the mbarrier `index` of the array at `offset` that counts
  /// this CTA's arrivals: its own (release.cta), or with a CTA pair the
  /// leader's (release.cluster).
  void emitArrive(int64_t offset, Value index);
  /// The first output row (flattened over the batch) of this CTA's 128
  /// accumulator rows of the tile at `coord`.
  Value ctaFirstRow(const tc::TileCoord<IdxI32> &coord) {
    IdxI32 row = coord.batch * c.m + coord.m * p.tileM;
    return p.ctaPair ? add(row.v, mulC(rankInPair, tc::kTileM)) : row.v;
  }

  /// Warp 0: fills the stages, then waits until the MMAs of the last
  /// `stages` K tiles committed (no tcgen05.commit arrives at the barriers
  /// of an exited CTA).
  void emitProducer();
  /// Warp 0: the E4M3 scales of K tile `kt` of the tile at `coord` into the
  /// scale atoms of the stage at byte `stageOff`.
  void emitScaleStores(Value kt, Value stageOff,
                       const tc::TileCoord<IdxI32> &coord);
  /// The elected thread of warp 1: per tile, waits for a free accumulator,
  /// issues copies, MMAs and commits.
  void emitMmaIssuer();
  /// Warp 1: scale copies and MMAs of K tile `kt` of stage `stage` into the
  /// accumulator at tensor-memory column `accColumn`.
  void emitIssueKTile(Value kt, Value stage, Value accColumn);
  /// The MMA thread: tcgen05.commit to the mbarrier `index` of the array at
  /// `offset` (with a CTA pair, multicast to that barrier of both CTAs).
  void emitCommit(int64_t offset, Value index);
  /// `bar.sync 0`, or with a CTA pair `barrier.cluster.arrive` (release) +
  /// `barrier.cluster.wait` (acquire) by every thread of both CTAs.
  void emitCtaOrClusterBarrier() {
    if (!p.ctaPair) {
      gpu::BarrierOp::create(b, loc);
      return;
    }
    NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/nullptr);
  }
  /// Warps 2..5: per tile, read the accumulator and store the result.
  void emitEpilogue();
  /// The 16 f32 values of `acc` at output row `row` (flattened over the
  /// batch) and columns `col`..`col + 15`.
  SmallVector<Value> emitLoadAccChunk(Value row, Value col);
  /// Stores the 16 final f32 values `values` of output row `row` (flattened
  /// over the batch), columns `col`..`col + 15`, in the result type, or as
  /// one NVFP4 block with the NVFP4 epilogue.
  void emitStoreChunk(ArrayRef<Value> values, Value row, Value col);
  /// The NVFP4 epilogue: quantizes the 16 values (rounded to the matmul's
  /// result type first, as the separate quantization would read them) as
  /// the quantize kernel quantizes one 1x16 block: Hadamard transform,
  /// block scale (for 16x16 blocks from the maximum over the half warp, whose
  /// 16 lanes hold the tile's 16 rows), codes rounded to nearest or
  /// stochastically with the same Philox counter. Stores the 8 data bytes
  /// and the E4M3 scale (16x16: by the tile's first row) in the compact
  /// layout of the NVFP4 tensor, or (scaleAtoms) the scale by every row in
  /// the global atoms layout. Every lane of the warp must execute it.
  void emitStoreNVFP4Block(ArrayRef<Value> values, Value row, Value col);
  /// The f32 `v` rounded to the matmul's result type (bf16: as the stored
  /// result holds it), as f32.
  Value roundToResultType(Value v);
  /// Warps 2..5 with computesAmax: the maximum of `threadAmax` over the warp,
  /// merged into the result's amax buffer by lane 0 (an atomic maximum).
  void emitResultAmaxReduction(Value threadAmax);

  OpBuilder &b;
  Location loc;
  const Tcgen05Config &c;
  const tc::TilePlan &p;

  // Values of the kernel body.
  Value tid, warp, laneId, cta, gridSize, numLocalTiles;
  /// With a CTA pair: this CTA's rank in its cluster (%cluster_ctarank) and
  /// whether it is the leader; `cta` and `gridSize` are then the cluster
  /// index and the cluster count (the tile schedule is per cluster).
  Value rankInPair, isLeader;
  Value lhsTensorMap, lhsScales, rhsTensorMap, rhsScales, accPtr, outPtr;
  Value lhsAmax, rhsAmax;
  // The NVFP4 epilogue: the amax and the seed (stochastic rounding) operands
  // of the quantization, the output's scales and its global encode scale.
  Value outAmax, outSeed, outScalesPtr, outEncodeScale;
  // computesAmax: the f32 the epilogue merges the result's amax into.
  Value resultAmaxPtr;
  Value smemBase, smemBaseAddr, tmemBase;
};
} // namespace

Value Tcgen05KernelBuilder::smemDesc(uint64_t constant, Value address) {
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, address, i32(4)),
      i32(tc::kSmemDescField14));
  return arith::OrIOp::create(b, loc, ext64(field),
                              i64(static_cast<int64_t>(constant)));
}

void Tcgen05KernelBuilder::forEachTile(
    function_ref<void(Value, tc::TileCoord<IdxI32>)> body) {
  forRange(i32(0), numLocalTiles, [&](Value local) {
    IdxI32 tile = tc::tileOfCta(idx(cta), idx(gridSize), idx(local));
    body(local, tc::tileCoord(tile, c.nTiles(), c.mTiles()));
  });
}

void Tcgen05KernelBuilder::emitWait(Value bar, Value parity) {
  // mbarrier.try_wait.parity suspends the thread for a system-defined time
  // per attempt; retry until the phase completed.
  auto spin = scf::WhileOp::create(b, loc, TypeRange(), ValueRange());
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&spin.getBefore());
  Value done = NVVM::MBarrierTryWaitOp::create(
      b, loc, b.getI1Type(), bar, parity, /*ticks=*/Value(),
      p.ctaPair ? NVVM::MemScopeKind::CLUSTER : NVVM::MemScopeKind::CTA);
  Value pending = arith::XOrIOp::create(
      b, loc, done, arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
  scf::ConditionOp::create(b, loc, pending, ValueRange());
  b.createBlock(&spin.getAfter());
  scf::YieldOp::create(b, loc);
}

Value Tcgen05KernelBuilder::leaderBarrier(int64_t offset, Value index) {
  auto clusterPtrType = LLVM::LLVMPointerType::get(
      b.getContext(),
      static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  return NVVM::MapaOp::create(b, loc, clusterPtrType, barrier(offset, index),
                              i32(tc::kPairLeaderRank));
}

void Tcgen05KernelBuilder::emitArrive(int64_t offset, Value index) {
  if (!p.ctaPair) {
    NVVM::MBarrierArriveOp::create(b, loc, TypeRange(), barrier(offset, index),
                                   /*count=*/Value());
    return;
  }
  NVVM::MBarrierArriveOp::create(
      b, loc, TypeRange(), leaderBarrier(offset, index),
      /*count=*/Value(), NVVM::MemScopeKind::CLUSTER);
}

void Tcgen05KernelBuilder::emitProducer() {
  MLIRContext *ctx = b.getContext();
  auto clusterPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
  auto smemPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  const int64_t kTiles = c.kTiles();
  const int64_t scaleCopyBytes =
      p.scaleCopyBytes(c.lhsScaleAtoms, c.rhsScaleAtoms);
  // A pair with scale atoms: the leader's copies complete on its full
  // barrier, the peer's on its own scaleFull barrier (a bulk copy completes
  // on an mbarrier in the CTA of its destination), which its lanes wait for
  // before they arrive on the leader's full barrier.
  const bool relayScales = p.ctaPair && scaleCopyBytes != 0;
  Value isPeer = relayScales ? cmp(arith::CmpIPredicate::ne, rankInPair,
                                   i32(tc::kPairLeaderRank))
                             : Value();
  Value leader = NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
  forEachTile([&](Value local, tc::TileCoord<IdxI32> coord) {
    // Rows of the 2-D [batch * rows, K / 2] byte views: this CTA's 128 rows
    // of A and its share of the tile's B rows. The B scales are those of
    // all the tile's rows, in each CTA of a pair too (each CTA's tensor core
    // scales its accumulator rows by every B column's scales, read from its
    // own tensor memory), so their first row has no rank offset.
    Value lhsRow = ctaFirstRow(coord);
    Value rhsScaleRow = (coord.batch * c.n + coord.n * p.tileN).v;
    Value rhsRow = rhsScaleRow;
    if (p.ctaPair)
      rhsRow = add(rhsRow, mulC(rankInPair, p.bRowsPerCta));
    forRange(i32(0), i32(kTiles), [&](Value kt) {
      IdxI32 step = tc::kStep(idx(local), idx(kt), kTiles);
      Value stage = tc::slotOf(step, p.stages).v;
      emitWait(barrier(p.emptyBarrierOffset, stage),
               tc::producerParity(step, p.stages).v);
      Value stageOff = mulC(stage, p.stageBytes);
      // The full barrier that counts this CTA's loads: its own, or the
      // leader's (a shared::cluster address; the TMA's `.cta_group::2` form
      // may signal the peer CTA's barrier).
      Value full = barrier(p.fullBarrierOffset, stage);
      Value fullOfLoads = full, fullOfScaleCopies = full;
      Value scaleFull;
      if (relayScales) {
        scaleFull = barrier(p.scaleFullBarrierOffset, stage);
        fullOfScaleCopies =
            arith::SelectOp::create(b, loc, isPeer, scaleFull, full);
      }
      if (p.ctaPair) {
        full = leaderBarrier(p.fullBarrierOffset, stage);
        fullOfLoads = LLVM::IntToPtrOp::create(
            b, loc, smemPtrType,
            LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), full).getResult());
      }
      ifThen(leader, [&] {
        // Each CTA announces its own bytes before its loads, so that the
        // transaction count of the phase never goes negative (the peer of a
        // pair those of its scale copies on its scaleFull barrier, with the
        // one arrival that barrier counts).
        Value txBytes = i32(p.txBytesPerCta + scaleCopyBytes);
        if (relayScales) {
          txBytes = arith::SelectOp::create(b, loc, isPeer,
                                            i32(p.txBytesPerCta), txBytes);
          ifThen(isPeer, [&] {
            NVVM::MBarrierArriveExpectTxOp::create(
                b, loc, TypeRange(), scaleFull, i32(scaleCopyBytes),
                NVVM::MemScopeKind::CTA, /*relaxed=*/false,
                /*predicate=*/Value());
          });
        }
        NVVM::MBarrierExpectTxOp::create(b, loc, full, txBytes,
                                         p.ctaPair ? NVVM::MemScopeKind::CLUSTER
                                                   : NVVM::MemScopeKind::CTA);
        Value kByte = mulC(kt, tc::kTileRowBytes);
        auto load = [&](Value tensorMap, int64_t offset, Value row) {
          Value dst = LLVM::AddrSpaceCastOp::create(
              b, loc, clusterPtrType, smemPtr(addC(stageOff, offset)));
          NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
              b, loc, dst, tensorMap, ValueRange{kByte, row}, fullOfLoads,
              /*im2colOffsets=*/ValueRange(), /*multicastMask=*/Value(),
              /*l2CacheHint=*/Value(),
              NVVM::TMALoadModeAttr::get(ctx, NVVM::TMALoadMode::TILE),
              b.getBoolAttr(false),
              p.ctaPair ? NVVM::CTAGroupKindAttr::get(ctx, ctaGroup())
                        : NVVM::CTAGroupKindAttr(),
              /*predicate=*/Value());
        };
        load(lhsTensorMap, p.aOffset, lhsRow);
        load(rhsTensorMap, p.bOffset, rhsRow);
        // Scales in the global atoms layout: the 2 KiB of each 128-row
        // block (its atoms of this K tile, MMA by MMA) in one bulk copy to
        // the stage's atoms of that block, completing on this CTA's full
        // barrier (the pair's peer: on its scaleFull barrier).
        auto copyScaleAtoms = [&](Value scales, Value firstRow,
                                  int64_t rowBlocks, bool isLhs) {
          for (int64_t rb = 0; rb < rowBlocks; ++rb) {
            Value src = gep(
                scales,
                tc::scaleAtomsAtomOffset(
                    idx(ext64(addC(firstRow, rb * tc::kScaleAtomRows))),
                    idx(ext64(mulC(kt, tc::kTileK / mlir::nvfp4::kBlockSize))),
                    c.k / mlir::nvfp4::kBlockSize)
                    .v);
            int64_t dstOffset =
                isLhs ? p.aScaleAtomOffsetOf(0) : p.bScaleAtomOffsetOf(0, rb);
            Value dst = LLVM::AddrSpaceCastOp::create(
                b, loc, clusterPtrType, smemPtr(addC(stageOff, dstOffset)));
            NVVM::CpAsyncBulkGlobalToSharedClusterOp::create(
                b, loc, dst, src, fullOfScaleCopies,
                i32(tc::kScaleAtomKTileBytes),
                /*multicastMask=*/Value(), /*l2CacheHint=*/Value());
          }
        };
        if (c.lhsScaleAtoms)
          copyScaleAtoms(lhsScales, lhsRow, 1, /*isLhs=*/true);
        if (c.rhsScaleAtoms)
          copyScaleAtoms(rhsScales, rhsScaleRow, p.bScaleAtoms,
                         /*isLhs=*/false);
      });
      if (!c.lhsScaleAtoms || !c.rhsScaleAtoms) {
        emitScaleStores(kt, stageOff, coord);
        // Make the generic-proxy scale stores visible to tcgen05.cp.
        NVVM::FenceProxyOp::create(
            b, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
      }
      // The relay: the peer's lanes arrive on the leader's full barrier only
      // once their scale copies landed (the MMA thread waits on that barrier
      // only; acquire here, release by the arrival).
      if (relayScales)
        ifThen(isPeer, [&] {
          emitWait(scaleFull, tc::consumerParity(step, p.stages).v);
        });
      // Arrive (one of the p.fullBarrierArrivals the full barrier expects;
      // with a CTA pair on the leader's barrier, release.cluster).
      NVVM::MBarrierArriveOp::create(b, loc, TypeRange(), full,
                                     /*count=*/Value(),
                                     p.ctaPair ? NVVM::MemScopeKind::CLUSTER
                                               : NVVM::MemScopeKind::CTA);
    });
  });
  // Drain: wait for the release of the last `stages` steps, as if producing
  // `stages` more.
  Value steps = mulC(numLocalTiles, kTiles);
  forRange(steps, addC(steps, p.stages), [&](Value stepValue) {
    IdxI32 step = idx(stepValue);
    emitWait(barrier(p.emptyBarrierOffset, tc::slotOf(step, p.stages).v),
             tc::producerParity(step, p.stages).v);
  });
}

void Tcgen05KernelBuilder::emitScaleStores(Value kt, Value stageOff,
                                           const tc::TileCoord<IdxI32> &coord) {
  auto vecType = VectorType::get({4}, b.getI32Type());
  const int64_t scaleRowBytes = c.k / 16;
  Value kScaleByte = ext64(mulC(kt, tc::kTileK / 16));
  Value batch64 = ext64(coord.batch.v);
  // The 16 scale bytes of K tile kt (one 32-bit word per MMA) of tile row
  // `row`.
  auto loadRow = [&](Value base, int64_t rows, int64_t blockRows,
                     Value tileRow0, Value row) -> Value {
    Value scaleRow = divC(add(tileRow0, row), blockRows);
    Value src = add(add(mulC(batch64, rows / blockRows * scaleRowBytes),
                        mulC(ext64(scaleRow), scaleRowBytes)),
                    kScaleByte);
    return LLVM::LoadOp::create(b, loc, vecType, gep(base, src), 16);
  };
  // Word i of the four rows (null: zero padding) into the atom of MMA i.
  Value laneOff = tc::scaleLaneStoreOffset(idx(laneId)).v;
  auto storeAtoms = [&](ArrayRef<Value> rows, int64_t firstAtomOffset) {
    for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
      Value vec = LLVM::PoisonOp::create(b, loc, vecType);
      for (auto [q, row] : llvm::enumerate(rows)) {
        Value word = row ? LLVM::ExtractElementOp::create(b, loc, row, i32(i))
                               .getResult()
                         : i32(0);
        vec = LLVM::InsertElementOp::create(b, loc, vec, word,
                                            i32(static_cast<int64_t>(q)));
      }
      Value dst = add(addC(stageOff, firstAtomOffset + i * tc::kScaleAtomBytes),
                      laneOff);
      LLVM::StoreOp::create(b, loc, vec, smemPtr(dst), 16);
    }
  };
  auto storeOperand = [&](Value base, int64_t rows, int64_t blockRows,
                          Value tileRow0, int64_t tileRows, int64_t atoms,
                          bool isLhs) {
    for (int64_t atom = 0; atom < atoms; ++atom) {
      SmallVector<Value, tc::kScaleRowsPerLane> words;
      for (int64_t q = 0; q < tc::kScaleRowsPerLane; ++q) {
        // Rows past the tile (N = 64: half of the atom) are padding the
        // MMA does not read; they are written as zeros.
        bool inTile = tc::scaleRowOfLane<int64_t>(0, atom, q) < tileRows;
        words.push_back(
            inTile ? loadRow(base, rows, blockRows, tileRow0,
                             tc::scaleRowOfLane(idx(laneId), atom, q).v)
                   : Value());
      }
      storeAtoms(words, isLhs ? p.aScaleAtomOffsetOf(0)
                              : p.bScaleAtomOffsetOf(0, atom));
    }
  };
  // A: this CTA's 128 rows. B: all tileN rows, also in each CTA of a pair
  // (each CTA's tensor core scales its 128 accumulator rows by the scales
  // of every B column, which it reads from its own tensor memory).
  Value aRow0 = (coord.m * p.tileM).v;
  if (p.ctaPair)
    aRow0 = add(aRow0, mulC(rankInPair, tc::kTileM));
  // Operands whose scales are in the global atoms layout came by bulk copy.
  if (!c.lhsScaleAtoms)
    storeOperand(lhsScales, c.m, c.lhsBlockRows, aRow0, tc::kTileM, 1,
                 /*isLhs=*/true);
  if (!c.rhsScaleAtoms)
    storeOperand(rhsScales, c.n, c.rhsBlockRows, (coord.n * p.tileN).v, p.tileN,
                 p.bScaleAtoms, /*isLhs=*/false);
}

void Tcgen05KernelBuilder::emitMmaIssuer() {
  const int64_t kTiles = c.kTiles();
  forEachTile([&](Value local, tc::TileCoord<IdxI32>) {
    // Wait until the epilogue drained this accumulator's previous tile.
    Value acc = tc::slotOf(idx(local), p.accStages).v;
    emitWait(barrier(p.accEmptyBarrierOffset, acc),
             tc::producerParity(idx(local), p.accStages).v);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value accColumn = add(tmemBase, mulC(acc, p.tileN));
    forRange(i32(0), i32(kTiles), [&](Value kt) {
      IdxI32 step = tc::kStep(idx(local), idx(kt), kTiles);
      Value stage = tc::slotOf(step, p.stages).v;
      emitWait(barrier(p.fullBarrierOffset, stage),
               tc::consumerParity(step, p.stages).v);
      NVVM::Tcgen05FenceOp::create(b, loc,
                                   NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      emitIssueKTile(kt, stage, accColumn);
      // Release the stage once these MMAs (and every earlier one) complete.
      emitCommit(p.emptyBarrierOffset, stage);
    });
    // The accumulator is complete once the tile's last MMAs complete.
    emitCommit(p.accFullBarrierOffset, acc);
  });
}

void Tcgen05KernelBuilder::emitCommit(int64_t offset, Value index) {
  // With a CTA pair the commit arrives on the barrier at this offset in
  // both CTAs (.multicast::cluster), whose producers and epilogues wait on
  // their own barriers.
  Value mask;
  if (p.ctaPair)
    mask = arith::ConstantIntOp::create(b, loc, b.getI16Type(),
                                        tc::kPairMulticastMask);
  NVVM::Tcgen05CommitOp::create(b, loc, barrier(offset, index), mask,
                                ctaGroup());
}

void Tcgen05KernelBuilder::emitIssueKTile(Value kt, Value stage,
                                          Value accColumn) {
  Value stageOff = mulC(stage, p.stageBytes);
  Value scaleCol =
      add(addC(tmemBase, p.scaleColumn), mulC(stage, p.scaleColumnsPerStage));
  const uint64_t cpConst = tc::encodeSmemDesc(
      0, tc::kScaleCopyLbo, tc::kScaleCopySbo, tc::SmemSwizzle::None);
  const uint64_t opConst = tc::encodeSmemDesc(
      0, tc::kSw128KMajorLbo, tc::kSw128KMajorSbo, tc::SmemSwizzle::B128);
  // The descriptors of the stage base; an operand or atom at byte `offset`
  // of the stage adds offset >> 4 to the start-address field (no carry out
  // of the field: every shared-memory address is below 2^18).
  Value stageAddr = smemAddr(stageOff);
  Value cpStageDesc = smemDesc(cpConst, stageAddr);
  Value opStageDesc = smemDesc(opConst, stageAddr);
  auto descAt = [&](Value stageDesc, int64_t offset) {
    return addC(stageDesc, tc::smemDescBytes(offset));
  };
  auto copyAtom = [&](int64_t smemOffset, int64_t column) {
    Value desc = descAt(cpStageDesc, smemOffset);
    NVVM::Tcgen05CpOp::create(b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
                              ctaGroup(), NVVM::Tcgen05CpMulticast::WARPX4,
                              /*srcFormat=*/nullptr,
                              tmemPtr(addC(scaleCol, column)), desc);
  };
  for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
    copyAtom(p.aScaleAtomOffsetOf(i), p.aScaleColumnOf(i));
    for (int64_t a = 0; a < p.bScaleAtoms; ++a)
      copyAtom(p.bScaleAtomOffsetOf(i, a),
               p.bScaleColumnOf(i) + a * tc::kScaleAtomTmemColumns);
  }
  // With a CTA pair: M = 256, A from both CTAs' shared memory (128 rows
  // each at this address), B from both (tileN / 2 rows each), the scales
  // and the accumulator from / to both CTAs' tensor memory.
  const uint32_t idesc =
      tc::encodeMxf4Nvf4InstrDesc(p.tileM, p.tileN, tc::ScaleFormat::UE4M3,
                                  /*scaleIdA=*/0, /*scaleIdB=*/0, p.ctaPair);
  Value idescV = i32(static_cast<int32_t>(idesc));
  // The first MMA of a tile overwrites the accumulator.
  Value notFirst = cmp(arith::CmpIPredicate::ne, kt, i32(0));
  Value always = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (int64_t i = 0; i < tc::kMmasPerKTile; ++i) {
    // MMA i reads the 32-byte K slice i of each 128-byte swizzled row.
    int64_t kOff = i * (tc::kMmaK / 2);
    Value aDesc = descAt(opStageDesc, p.aOffset + kOff);
    Value bDesc = descAt(opStageDesc, p.bOffset + kOff);
    NVVM::Tcgen05MMABlockScaleOp::create(
        b, loc, NVVM::MMABlockScaleKind::MXF4NVF4, ctaGroup(),
        NVVM::Tcgen05MMABlockScale::BLOCK16,
        NVVM::Tcgen05MMACollectorOp::DISCARD, tmemPtr(accColumn), aDesc, bDesc,
        idescV, i == 0 ? notFirst : always,
        tmemPtr(addC(scaleCol, p.aScaleColumnOf(i))),
        tmemPtr(addC(scaleCol, p.bScaleColumnOf(i))));
  }
}

SmallVector<Value> Tcgen05KernelBuilder::emitLoadAccChunk(Value row,
                                                          Value col) {
  Type f32 = b.getF32Type(), resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  constexpr int64_t kVec = 4;
  auto f32Vec = VectorType::get({kVec}, f32);
  auto accVec = VectorType::get({kVec}, resultType);
  Value elem0 = add(mulC(ext64(row), c.n), ext64(col));
  SmallVector<Value> values;
  for (int64_t v = 0; v < tc::kEpilogueColumns / kVec; ++v) {
    Value byteOff = mulC(addC(elem0, v * kVec), eltBytes);
    Value vec = LLVM::LoadOp::create(b, loc, accVec, gep(accPtr, byteOff),
                                     kVec * eltBytes);
    if (resultType != f32)
      vec = arith::ExtFOp::create(b, loc, f32Vec, vec);
    for (int64_t e = 0; e < kVec; ++e)
      values.push_back(LLVM::ExtractElementOp::create(b, loc, vec, i32(e)));
  }
  return values;
}

void Tcgen05KernelBuilder::emitStoreNVFP4Block(ArrayRef<Value> values,
                                               Value row, Value col) {
  SmallVector<Value> rounded;
  for (Value v : values)
    rounded.push_back(roundToResultType(v));
  const EpilogueQuantization &q = *c.nvfp4Output;
  if (q.hadamardNegateMask)
    mlir::nvfp4::detail::createHadamard16(b, loc, rounded,
                                          *q.hadamardNegateMask);
  BlockQuantizeEmitter quantizer(b, loc, c.target);
  Value scaleAmax = quantizer.blockAmax(rounded);
  if (q.blockRows == 16)
    scaleAmax = mlir::nvfp4::detail::createButterflyMax(b, loc, scaleAmax,
                                                        {1, 2, 4, 8});
  // The block's index in the row-major blocks of 16 elements of the result
  // (flattened over the batch): (row * N + col) / 16.
  constexpr int64_t kBlock = mlir::nvfp4::kBlockSize;
  Value block64 = add(mulC(ext64(row), c.n / kBlock), ext64(divC(col, kBlock)));
  std::optional<mlir::nvfp4::detail::BlockStochasticRounding> stochastic;
  if (q.stochastic)
    stochastic = mlir::nvfp4::detail::BlockStochasticRounding{
        outSeed, addC(block64, static_cast<int64_t>(q.offset)), q.hardwareSR};
  BlockQuantizeEmitter::Block block =
      quantizer.quantizeBlock(rounded, outEncodeScale, scaleAmax, stochastic);
  // Data: two codes per byte, so the block is the 8 bytes at byte 8 * block
  // (8-byte aligned). Scales: one byte per 1x16 block, row-major [rows,
  // N / 16], or per 16x16 tile, row-major [rows / 16, N / 16].
  LLVM::StoreOp::create(b, loc, block.packed,
                        gep(outPtr, mulC(block64, kBlock / 2)), 8);
  if (q.scaleAtoms) {
    // The atoms layout has one scale per row, also for 16x16 blocks: every
    // row of the tile stores the tile's scale at its own position.
    Value scaleByte =
        tc::scaleAtomsOffset(idx(ext64(row)), idx(ext64(divC(col, kBlock))),
                             c.n / kBlock)
            .v;
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, scaleByte), 1);
    return;
  }
  if (q.blockRows == 1) {
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, block64), 1);
    return;
  }
  Value tileRow = divC(row, q.blockRows);
  Value firstRowOfTile =
      cmp(arith::CmpIPredicate::eq, mulC(tileRow, q.blockRows), row);
  ifThen(firstRowOfTile, [&] {
    Value scaleByte =
        add(mulC(ext64(tileRow), c.n / kBlock), ext64(divC(col, kBlock)));
    LLVM::StoreOp::create(b, loc, block.scale, gep(outScalesPtr, scaleByte), 1);
  });
}

void Tcgen05KernelBuilder::emitStoreChunk(ArrayRef<Value> values, Value row,
                                          Value col) {
  if (c.nvfp4Output)
    return emitStoreNVFP4Block(values, row, col);
  Type f32 = b.getF32Type(), resultType = c.resultElementType;
  const int64_t eltBytes = resultType.isBF16() ? 2 : 4;
  constexpr int64_t kVec = 4;
  auto f32Vec = VectorType::get({kVec}, f32);
  auto outVec = VectorType::get({kVec}, resultType);
  Value elem0 = add(mulC(ext64(row), c.n), ext64(col));
  for (int64_t v = 0; v < tc::kEpilogueColumns / kVec; ++v) {
    Value out = LLVM::PoisonOp::create(b, loc, f32Vec);
    for (int64_t e = 0; e < kVec; ++e)
      out = LLVM::InsertElementOp::create(b, loc, out, values[v * kVec + e],
                                          i32(e));
    if (resultType != f32)
      out = arith::TruncFOp::create(b, loc, outVec, out);
    Value byteOff = mulC(addC(elem0, v * kVec), eltBytes);
    LLVM::StoreOp::create(b, loc, out, gep(outPtr, byteOff), kVec * eltBytes);
  }
}

void Tcgen05KernelBuilder::emitEpilogue() {
  Type f32 = b.getF32Type(), i32T = b.getI32Type();
  Value alpha =
      mlir::nvfp4::detail::createMatmulAlpha(b, loc, lhsAmax, rhsAmax);
  // This thread's accumulator row and the lane field of its tcgen05.ld
  // addresses.
  Value rowInTile = tc::epilogueRow(idx(warp), idx(laneId)).v;
  Value laneField = arith::ShLIOp::create(
      b, loc, tc::tmemLaneBaseOfWarp(idx(warp)).v, i32(16));
  if (c.nvfp4Output)
    outEncodeScale =
        BlockQuantizeEmitter(b, loc, c.target).globalEncodeScale(outAmax);
  forEachTile([&](Value local, tc::TileCoord<IdxI32> coord) {
    Value acc = tc::slotOf(idx(local), p.accStages).v;
    emitWait(barrier(p.accFullBarrierOffset, acc),
             tc::consumerParity(idx(local), p.accStages).v);
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value rowTmem = add(add(tmemBase, laneField), mulC(acc, p.tileN));
    Value row = add(ctaFirstRow(coord), rowInTile);
    Value col0 = (coord.n * p.tileN).v;
    // With computesAmax the loop carries the maximum magnitude of the
    // thread's values of the tile.
    SmallVector<Value> amaxInit;
    if (c.computesAmax)
      amaxInit.push_back(
          arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0)));
    auto chunks = scf::ForOp::create(
        b, loc, i32(0), i32(p.tileN / tc::kEpilogueColumns), i32(1), amaxInit);
    {
      OpBuilder::InsertionGuard chunkGuard(b);
      b.setInsertionPointToStart(chunks.getBody());
      Value chunk = chunks.getInductionVar();
      Value colOff = mulC(chunk, tc::kEpilogueColumns);
      auto ldType = VectorType::get({tc::kEpilogueColumns}, i32T);
      Value raw = NVVM::Tcgen05LdOp::create(
          b, loc, ldType, /*pack=*/false, NVVM::Tcgen05LdStShape::SHAPE_32X32B,
          tmemPtr(add(rowTmem, colOff)), /*offset=*/Value());
      NVVM::Tcgen05WaitOp::create(b, loc, NVVM::Tcgen05WaitKind::LOAD);
      Value col = add(col0, colOff);
      SmallVector<Value> values;
      for (int64_t e = 0; e < tc::kEpilogueColumns; ++e) {
        Value bits = LLVM::ExtractElementOp::create(b, loc, raw, i32(e));
        values.push_back(arith::MulFOp::create(
            b, loc, arith::BitcastOp::create(b, loc, f32, bits), alpha));
      }
      if (accPtr) {
        SmallVector<Value> accValues = emitLoadAccChunk(row, col);
        for (auto [value, accValue] : llvm::zip_equal(values, accValues))
          value = arith::AddFOp::create(b, loc, value, accValue);
      }
      emitStoreChunk(values, row, col);
      if (c.computesAmax) {
        BlockQuantizeEmitter quantizer(b, loc, c.target);
        Value amax = chunks.getRegionIterArgs()[0];
        for (Value v : values)
          amax = quantizer.absMaxAccumulate(amax, roundToResultType(v));
        scf::YieldOp::create(b, loc, amax);
      }
    }
    // This thread's reads of the accumulator are done: let the MMA thread
    // reuse it.
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    emitArrive(p.accEmptyBarrierOffset, acc);
    if (c.computesAmax)
      emitResultAmaxReduction(chunks.getResult(0));
  });
}

Value Tcgen05KernelBuilder::roundToResultType(Value v) {
  if (c.resultElementType == b.getF32Type())
    return v;
  Value narrow = arith::TruncFOp::create(b, loc, c.resultElementType, v);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), narrow);
}

void Tcgen05KernelBuilder::emitResultAmaxReduction(Value threadAmax) {
  Value warpAmax = mlir::nvfp4::detail::createButterflyMax(b, loc, threadAmax,
                                                           {16, 8, 4, 2, 1});
  ifThen(cmp(arith::CmpIPredicate::eq, laneId, i32(0)), [&] {
    // Magnitudes (NaNs ignored) are non-negative floats, which order as
    // their bit patterns do: an unsigned integer maximum is the float one.
    Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), warpAmax);
    LLVM::AtomicRMWOp::create(b, loc, LLVM::AtomicBinOp::umax, resultAmaxPtr,
                              bits, LLVM::AtomicOrdering::monotonic);
  });
}

gpu::GPUFuncOp Tcgen05KernelBuilder::build(gpu::GPUModuleOp module,
                                           StringRef name, TypeRange argTypes) {
  MLIRContext *ctx = b.getContext();
  Type i32T = b.getI32Type();
  auto smemPtrType = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  if (!module.lookupSymbol(kSmemSymbol)) {
    // Dynamic shared memory: `.extern .shared .align 1024 .b8 sym[]`.
    LLVM::GlobalOp::create(
        b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kSmemSymbol,
        /*value=*/Attribute(),
        /*alignment=*/tc::kSwizzleAtomBytes,
        static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  }
  b.setInsertionPointToEnd(module.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(tc::kThreads), 1, 1}));
  // One CTA per SM (it allocates all 512 tensor-memory columns and most of
  // the shared memory): `.minnctapersm 1` tells ptxas so, which otherwise
  // caps the registers for an occupancy the kernel cannot have and spills.
  kernel->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                  b.getI32IntegerAttr(1));
  // A CTA pair is a cluster of two CTAs along x (`.reqnctapercluster 2, 1,
  // 1`; the host launches it with `clusters in (2, 1, 1)`).
  if (p.ctaPair)
    kernel->setAttr(
        NVVM::NVVMDialect::getClusterDimAttrName(),
        b.getDenseI32ArrayAttr({static_cast<int32_t>(tc::kPairCtas), 1, 1}));
  Block &entry = kernel.front();
  b.setInsertionPointToStart(&entry);

  // The A and B data arguments are read through their tensor maps.
  lhsTensorMap = entry.getArgument(kArgLhsTensorMap);
  lhsScales = globalBase(entry.getArgument(kArgLhsScales));
  lhsAmax = entry.getArgument(kArgLhsAmax);
  rhsTensorMap = entry.getArgument(kArgRhsTensorMap);
  rhsScales = globalBase(entry.getArgument(kArgRhsScales));
  rhsAmax = entry.getArgument(kArgRhsAmax);
  accPtr = c.hasAcc ? globalBase(entry.getArgument(kArgAccOrResult)) : Value();
  unsigned arg = kArgAccOrResult + (c.hasAcc ? 1 : 0);
  if (c.nvfp4Output) {
    outAmax = entry.getArgument(arg++);
    if (c.nvfp4Output->stochastic)
      outSeed = entry.getArgument(arg++);
    outPtr = globalBase(entry.getArgument(arg++));
    outScalesPtr = globalBase(entry.getArgument(arg++));
  } else {
    outPtr = globalBase(entry.getArgument(arg++));
  }
  if (c.computesAmax)
    resultAmaxPtr = globalBase(entry.getArgument(arg++));

  auto toI32 = [&](Value index) {
    return arith::IndexCastUIOp::create(b, loc, i32T, index).getResult();
  };
  tid = toI32(gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  if (p.ctaPair) {
    // The tile schedule is per cluster.
    cta = NVVM::ClusterIdXOp::create(b, loc, i32T);
    gridSize = NVVM::ClusterDimXOp::create(b, loc, i32T);
    rankInPair = NVVM::ClusterId::create(b, loc, i32T);
    isLeader =
        cmp(arith::CmpIPredicate::eq, rankInPair, i32(tc::kPairLeaderRank));
  } else {
    cta = toI32(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
    gridSize = toI32(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  }
  warp = divC(tid, 32);
  laneId = arith::RemUIOp::create(b, loc, tid, i32(32));
  numLocalTiles = tc::tilesOfCta(idx(cta), idx(gridSize), c.numTiles()).v;

  // The dynamic shared memory, its base rounded up to 1024 bytes (the
  // 128-byte swizzle atoms, TMA's swizzle and descriptor base offset 0 need
  // it).
  Value raw = LLVM::AddressOfOp::create(b, loc, smemPtrType, kSmemSymbol);
  Value rawAddr = LLVM::PtrToIntOp::create(b, loc, i32T, raw);
  smemBaseAddr =
      arith::AndIOp::create(b, loc, addC(rawAddr, tc::kSwizzleAtomBytes - 1),
                            i32(~(tc::kSwizzleAtomBytes - 1)));
  smemBase = gep(raw, arith::SubIOp::create(b, loc, smemBaseAddr, rawAddr));

  // Setup: the mbarriers (thread 0) and the tensor-memory allocation (warp
  // 1, which also frees it). With a CTA pair both CTAs initialize their
  // barriers (the leader's full and accEmpty barriers count both CTAs'
  // arrivals) and their warps 1 allocate together (tcgen05.alloc.cta_group::2
  // is issued by one warp of each CTA of the pair); the cluster barrier then
  // makes the barriers initialized before the peer signals them.
  Value slot = smemPtr(i32(p.tmemSlotOffset));
  ifThen(cmp(arith::CmpIPredicate::eq, tid, i32(0)), [&] {
    auto init = [&](int64_t offset, int64_t count, int64_t arrivals) {
      for (int64_t i = 0; i < count; ++i)
        NVVM::MBarrierInitOp::create(
            b, loc, smemPtr(i32(offset + i * tc::kMbarrierBytes)),
            i32(arrivals), /*predicate=*/Value());
    };
    init(p.fullBarrierOffset, p.stages, p.fullBarrierArrivals);
    init(p.emptyBarrierOffset, p.stages, tc::kEmptyBarrierArrivals);
    init(p.accFullBarrierOffset, p.accStages, tc::kAccFullBarrierArrivals);
    init(p.accEmptyBarrierOffset, p.accStages, p.accEmptyBarrierArrivals);
    // Both CTAs alike; only the peer's are used.
    if (p.ctaPair && (c.lhsScaleAtoms || c.rhsScaleAtoms))
      init(p.scaleFullBarrierOffset, p.stages, tc::kScaleFullBarrierArrivals);
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  Value nCols = i32(p.tmemColumns);
  Value isMmaWarp = cmp(arith::CmpIPredicate::eq, warp, i32(tc::kMmaWarp));
  ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, slot, nCols, ctaGroup());
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, ctaGroup());
  });
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  emitCtaOrClusterBarrier();
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmemBase = LLVM::LoadOp::create(b, loc, i32T, slot, 4);

  // The roles.
  ifThen(cmp(arith::CmpIPredicate::eq, warp, i32(tc::kProducerWarp)),
         [&] { emitProducer(); });
  // With a CTA pair only the leader's MMA thread issues tcgen05 work.
  ifThen(p.ctaPair
             ? arith::AndIOp::create(b, loc, isMmaWarp, isLeader).getResult()
             : isMmaWarp,
         [&] {
           Value elected =
               NVVM::ElectSyncOp::create(b, loc, b.getI1Type(), Value());
           ifThen(elected, [&] { emitMmaIssuer(); });
         });
  ifThen(cmp(arith::CmpIPredicate::uge, warp, i32(tc::kFirstEpilogueWarp)),
         [&] { emitEpilogue(); });

  // Teardown: every tcgen05.ld has completed (tcgen05.wait::ld) before the
  // barrier; warp 1 frees the tensor memory. With a CTA pair the cluster
  // barrier keeps each CTA alive until its peer is done with it: the
  // leader's MMAs read the peer's shared memory and write its tensor
  // memory, the peer's producer and epilogue arrive on the leader's
  // barriers (the ISA's pattern before tcgen05.dealloc.cta_group::2).
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  emitCtaOrClusterBarrier();
  ifThen(isMmaWarp, [&] {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, tmemPtr(tmemBase), nCols,
                                   ctaGroup());
  });
  gpu::ReturnOp::create(b, loc);
  return kernel;
}

//===----------------------------------------------------------------------===//
// Host code
//===----------------------------------------------------------------------===//

namespace {
/// Declares the runtime function `name` in `module` unless it is declared.
void declareRuntimeFunction(OpBuilder &b, ModuleOp module, StringRef name,
                            LLVM::LLVMFunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

/// The aligned base address of `memref` as a generic LLVM pointer.
Value hostAddressOf(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

/// `nvfp4CudaTensorMapCreate2D(address of data, map parameters)`.
Value createTensorMap(OpBuilder &b, Location loc, Value data,
                      const tc::ByteTensorMap2D &map) {
  auto i64 = [&](uint64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(),
                                        static_cast<int64_t>(v));
  };
  auto i32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
  };
  SmallVector<Value> operands{hostAddressOf(b, loc, data),
                              i64(map.innerBytes),
                              i64(map.outerRows),
                              i64(map.rowStrideBytes),
                              i32(static_cast<int64_t>(map.boxInnerBytes)),
                              i32(static_cast<int64_t>(map.boxOuterRows)),
                              i32(static_cast<int32_t>(map.swizzle))};
  return LLVM::CallOp::create(b, loc,
                              LLVM::LLVMPointerType::get(b.getContext()),
                              kTensorMapCreateFn, operands)
      .getResult();
}

/// Emits the host code of a tcgen05 matmul: tensor maps, buffers, the
/// launch of the (shared) kernel of `config`. Returns the buffers the kernel
/// writes: the result, or with the NVFP4 epilogue (`epilogue`, the
/// quantization of the result it computes) the data and the scales of the
/// NVFP4 result; then, with `config.computesAmax`, the result's amax
/// (memref<1xf32>).
SmallVector<Value> emitTcgen05Launch(PatternRewriter &rewriter, MatmulOp op,
                                     const Tcgen05Config &config,
                                     QuantizeOp epilogue) {
  auto module = op->getParentOfType<ModuleOp>();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i32Type = rewriter.getI32Type(), i64Type = rewriter.getI64Type();
  declareRuntimeFunction(
      rewriter, module, kTensorMapCreateFn,
      LLVM::LLVMFunctionType::get(ptrType, {ptrType, i64Type, i64Type, i64Type,
                                            i32Type, i32Type, i32Type}));
  declareRuntimeFunction(
      rewriter, module, kTensorMapDestroyFn,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType}));
  declareRuntimeFunction(rewriter, module, kMultiprocessorCountFn,
                         LLVM::LLVMFunctionType::get(i32Type, {}));

  // Host side: the components as buffers (KernelArg order), a tensor map
  // after each data buffer. An operand built by nvfp4.assemble (a lowered
  // quantization) passes its components through.
  SmallVector<Value> args, tensorMaps;
  for (auto [operand, isLhs] :
       {std::pair(op.getLhs(), true), std::pair(op.getRhs(), false)}) {
    mlir::nvfp4::detail::ScaleLayout scaleLayout;
    auto [data, scales, amax] = mlir::nvfp4::detail::getNVFP4Components(
        rewriter, loc, operand, &scaleLayout);
    // setOperandScaleLayouts read the layouts from the same values.
    assert((scaleLayout == mlir::nvfp4::detail::ScaleLayout::Tcgen05Atoms) ==
               (isLhs ? config.lhsScaleAtoms : config.rhsScaleAtoms) &&
           "the kernel's scale layout differs from the operand's");
    for (Value tensor : {data, scales}) {
      args.push_back(
          mlir::nvfp4::detail::createReadOnlyBuffer(rewriter, loc, tensor));
      if (tensor != data)
        continue;
      // The address is the buffer's as the launch receives it here;
      // pipelines that replace launch operands (nvfp4-to-gpu-executable)
      // rebind it with nvfp4-tcgen05-retarget-tensor-maps.
      tc::ByteTensorMap2D map =
          isLhs ? config.lhsTensorMap(0) : config.rhsTensorMap(0);
      tensorMaps.push_back(createTensorMap(rewriter, loc, args.back(), map));
      args.push_back(tensorMaps.back());
    }
    args.push_back(amax);
  }
  RankedTensorType resultType = op.getResult().getType();
  auto memrefOf = [](RankedTensorType type) {
    return MemRefType::get(type.getShape(), type.getElementType());
  };
  if (Value acc = op.getAcc())
    args.push_back(bufferization::ToBufferOp::create(
        rewriter, loc, memrefOf(resultType), acc, /*read_only=*/true));
  SmallVector<Value> outputs;
  if (epilogue) {
    args.push_back(epilogue.getAmax());
    if (config.nvfp4Output->stochastic)
      args.push_back(epilogue.getSeed() ? epilogue.getSeed()
                                        : arith::ConstantIntOp::create(
                                              rewriter, loc, i64Type, 0)
                                              .getResult());
    auto outputType = cast<NVFP4TensorType>(epilogue.getResult().getType());
    RankedTensorType scalesType =
        config.nvfp4Output->scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(outputType)
            : outputType.getScalesType();
    for (RankedTensorType type : {outputType.getDataType(), scalesType})
      outputs.push_back(memref::AllocOp::create(
          rewriter, loc, memrefOf(type), rewriter.getI64IntegerAttr(16)));
  } else {
    outputs.push_back(
        memref::AllocOp::create(rewriter, loc, memrefOf(resultType)));
  }
  if (config.computesAmax) {
    // The epilogue merges into it with atomic maxima: it starts at 0.
    Value amax = memref::AllocOp::create(
        rewriter, loc, MemRefType::get({1}, rewriter.getF32Type()));
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    memref::StoreOp::create(
        rewriter, loc, zero, amax,
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    outputs.push_back(amax);
  }
  llvm::append_range(args, outputs);

  // Device side: the kernel, shared by identical matmuls.
  auto kernelModule =
      module.lookupSymbol<gpu::GPUModuleOp>(kNVFP4KernelModuleName);
  if (!kernelModule) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    rewriter.getUnitAttr());
    kernelModule = gpu::GPUModuleOp::create(rewriter, module.getLoc(),
                                            kNVFP4KernelModuleName);
  }
  std::string name = config.kernelName();
  auto kernel = kernelModule.lookupSymbol<gpu::GPUFuncOp>(name);
  if (!kernel)
    kernel = Tcgen05KernelBuilder(rewriter, loc, config)
                 .build(kernelModule, name, ValueRange(args).getTypes());

  // Persistent grid: one CTA per SM, at most one per tile. A CTA pair
  // computes a tile: min(#tiles, max(#SMs / 2, 1)) clusters of 2 CTAs.
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  auto cstI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32Type, v);
  };
  const int64_t ctasPerTile = config.plan.ctaPair ? tc::kPairCtas : 1;
  Value sms = LLVM::CallOp::create(rewriter, loc, i32Type,
                                   kMultiprocessorCountFn, ValueRange())
                  .getResult();
  Value tileSlots = sms;
  if (ctasPerTile != 1)
    tileSlots = arith::MaxUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, sms, cstI32(ctasPerTile)),
        cstI32(1));
  Value ctas = arith::MinUIOp::create(rewriter, loc, tileSlots,
                                      cstI32(config.numTiles()));
  if (ctasPerTile != 1)
    ctas = arith::MulIOp::create(rewriter, loc, ctas, cstI32(ctasPerTile));
  Value gridX = arith::IndexCastUIOp::create(rewriter, loc,
                                             rewriter.getIndexType(), ctas);
  gpu::KernelDim3 grid{gridX, cst(1), cst(1)};
  gpu::KernelDim3 block{cst(tc::kThreads), cst(1), cst(1)};
  std::optional<gpu::KernelDim3> cluster;
  if (config.plan.ctaPair)
    cluster = gpu::KernelDim3{cst(tc::kPairCtas), cst(1), cst(1)};
  Value smemBytes = arith::ConstantIntOp::create(rewriter, loc, i32Type,
                                                 config.plan.sharedBytes);
  gpu::LaunchFuncOp::create(rewriter, loc, kernel, grid, block, smemBytes, args,
                            /*asyncTokenType=*/nullptr,
                            /*asyncDependencies=*/ValueRange(), cluster);
  // The host code reaches this point after the kernel completed (a
  // synchronous launch, or gpu-async-region's wait before a host call).
  for (Value map : tensorMaps)
    LLVM::CallOp::create(rewriter, loc, TypeRange(), kTensorMapDestroyFn,
                         ValueRange{map});
  return outputs;
}

/// The `nvfp4.amax` ops of the result of `op`: the kernel's epilogue computes
/// them.
SmallVector<AmaxOp> getResultAmaxes(MatmulOp op) {
  SmallVector<AmaxOp> amaxes;
  for (Operation *user : op.getResult().getUsers())
    if (auto amax = dyn_cast<AmaxOp>(user))
      amaxes.push_back(amax);
  return amaxes;
}

/// Replaces `amaxes` by the value the kernel left in `buffer` (the last
/// output of emitTcgen05Launch), read on the host after the launch.
void replaceResultAmaxes(PatternRewriter &rewriter, Location loc,
                         ArrayRef<AmaxOp> amaxes, Value buffer) {
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value amax = memref::LoadOp::create(rewriter, loc, buffer, ValueRange{zero});
  memref::DeallocOp::create(rewriter, loc, buffer);
  for (AmaxOp op : amaxes)
    rewriter.replaceOp(op, amax);
}

/// Sets the scale layouts of `config`'s operands: the atoms layout for an
/// operand carried by the cast of an atoms-layout value. Fails, with an
/// error, for such an operand that the kernel cannot read that way
/// (producesTcgen05ScaleAtoms never marks one).
LogicalResult setOperandScaleLayouts(MatmulOp op, Tcgen05Config &config,
                                     GPUTarget target,
                                     tc::CtaPairMode ctaPair) {
  for (auto [index, flag] : {std::pair(0u, &config.lhsScaleAtoms),
                             std::pair(1u, &config.rhsScaleAtoms)}) {
    *flag = mlir::nvfp4::detail::isTcgen05AtomsNVFP4Value(
        op->getOperand(index).getDefiningOp());
    if (*flag && !canReadTcgen05ScaleAtoms(op, index, target, ctaPair))
      return op.emitOpError()
             << "internal error: operand " << index
             << " has scales in the tcgen05 atoms layout, which this "
                "kernel does not read";
  }
  return success();
}

/// Whether the tcgen05 kernel takes `op` on `target` (diagnostics are the
/// pass's business: the patterns only decline).
bool isTcgen05Supported(MatmulOp op, GPUTarget target,
                        tc::CtaPairMode ctaPair = tc::CtaPairMode::Auto) {
  return mlir::nvfp4::detail::succeedsSilently(op.getContext(), [&] {
    return checkTcgen05MatmulSupported(op, target, ctaPair);
  });
}

/// Lowers `nvfp4.matmul` to a launch of the tcgen05 kernel.
struct Tcgen05MatmulLowering : public OpRewritePattern<MatmulOp> {
  Tcgen05MatmulLowering(MLIRContext *ctx, GPUTarget target,
                        tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<ModuleOp>())
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!isTcgen05Supported(op, target, ctaPair))
      return rewriter.notifyMatchFailure(op, "unsupported shape or target");
    Tcgen05Config config =
        Tcgen05Config::get(op, target, /*nvfp4Output=*/std::nullopt, ctaPair);
    if (failed(setOperandScaleLayouts(op, config, target, ctaPair)))
      return failure();
    SmallVector<AmaxOp> amaxes = getResultAmaxes(op);
    config.computesAmax = !amaxes.empty();
    SmallVector<Value> outputs =
        emitTcgen05Launch(rewriter, op, config, /*epilogue=*/QuantizeOp());
    if (config.computesAmax)
      replaceResultAmaxes(rewriter, op.getLoc(), amaxes, outputs.back());
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        op, op.getResult().getType(), outputs.front(), /*restrict=*/true,
        /*writable=*/true);
    return success();
  }

  GPUTarget target;
  tc::CtaPairMode ctaPair;
};

/// Lowers `nvfp4.quantize(nvfp4.matmul)` to one launch of the tcgen05 kernel
/// with the NVFP4 epilogue (getTcgen05EpilogueFusionBlocker says when).
struct Tcgen05QuantizedMatmulLowering : public OpRewritePattern<QuantizeOp> {
  Tcgen05QuantizedMatmulLowering(MLIRContext *ctx, GPUTarget target,
                                 bool hardwareSR, tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), hardwareSR(hardwareSR),
        ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<ModuleOp>())
      return rewriter.notifyMatchFailure(op, "not inside a builtin.module");
    if (!getTcgen05EpilogueFusionBlocker(op, target, ctaPair).empty())
      return rewriter.notifyMatchFailure(op, "not an epilogue quantization");
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    auto resultType = cast<NVFP4TensorType>(op.getResult().getType());
    Tcgen05Config config = Tcgen05Config::get(
        matmul, target, EpilogueQuantization::get(op, hardwareSR), ctaPair);
    if (failed(setOperandScaleLayouts(matmul, config, target, ctaPair)))
      return failure();
    SmallVector<AmaxOp> amaxes = getResultAmaxes(matmul);
    config.computesAmax = !amaxes.empty();
    // At the matmul: its result's amaxes may be used before `op`, and the
    // amax and seed operands of `op` are defined before it (the blocker
    // checks).
    rewriter.setInsertionPoint(matmul);
    SmallVector<Value> outputs =
        emitTcgen05Launch(rewriter, matmul, config, op);
    Location loc = op.getLoc();
    if (config.computesAmax)
      replaceResultAmaxes(rewriter, loc, amaxes, outputs.back());
    Value data = bufferization::ToTensorOp::create(
        rewriter, loc, resultType.getDataType(), outputs[0], /*restrict=*/true,
        /*writable=*/true);
    Value scales = bufferization::ToTensorOp::create(
        rewriter, loc,
        config.nvfp4Output->scaleAtoms
            ? mlir::nvfp4::detail::getTcgen05AtomsScalesType(resultType)
            : resultType.getScalesType(),
        outputs[1], /*restrict=*/true, /*writable=*/true);
    // The result carries the amax it was quantized with.
    Value amax = op.getAmax();
    if (config.nvfp4Output->scaleAtoms)
      rewriter.replaceOp(
          op, mlir::nvfp4::detail::createTcgen05AtomsNVFP4Value(
                  rewriter, loc, resultType, data, scales, amax));
    else
      rewriter.replaceOpWithNewOp<AssembleOp>(op, resultType, data, scales,
                                              amax);
    rewriter.eraseOp(matmul);
    return success();
  }

  GPUTarget target;
  bool hardwareSR;
  tc::CtaPairMode ctaPair;
};

//===----------------------------------------------------------------------===//
// Tensor maps of staged launches
//===----------------------------------------------------------------------===//

/// Builds each tensor map of a host launch from the buffer the launch passes
/// right before it: moves the `nvfp4CudaTensorMapCreate2D` call to just
/// before the launch, replaces its address operand by the address of that
/// launch operand, and erases the previous address computation (down to the
/// `bufferization.to_buffer` the lowering created for it) once unused.
/// nvfp4-to-gpu-executable runs it after each pass that replaces launch
/// operands: after the packing of the E2M1 operands (so that nothing keeps
/// the unpacked buffer, which the reference lowering rejects) and after the
/// device staging (so that the maps describe the device copies).
struct Tcgen05RetargetTensorMapsPass
    : public PassWrapper<Tcgen05RetargetTensorMapsPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Tcgen05RetargetTensorMapsPass)

  StringRef getArgument() const final {
    return "nvfp4-tcgen05-retarget-tensor-maps";
  }
  StringRef getDescription() const final {
    return "Build the TMA tensor maps of the tcgen05 kernel launches from the "
           "launch operands they describe (after device staging)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, bufferization::BufferizationDialect,
                    LLVM::LLVMDialect, memref::MemRefDialect>();
  }

  LogicalResult retarget(gpu::LaunchFuncOp launch) {
    SmallVector<Value> operands(launch.getKernelOperands());
    for (auto [index, operand] : llvm::enumerate(operands)) {
      auto call = operand.getDefiningOp<LLVM::CallOp>();
      if (!call || call.getCallee() != kTensorMapCreateFn)
        continue;
      if (index == 0 || !isa<MemRefType>(operands[index - 1].getType()))
        return launch.emitOpError()
               << "kernel operand #" << index
               << " is a tensor map that does not follow a memref";
      OpBuilder b(launch);
      call->moveBefore(launch);
      b.setInsertionPoint(call);
      Value oldAddress = call.getOperand(0);
      call->setOperand(0,
                       hostAddressOf(b, launch.getLoc(), operands[index - 1]));
      // The previous address computation, if nothing else uses it.
      Operation *dead = oldAddress.getDefiningOp();
      while (dead && dead->use_empty() &&
             isa<LLVM::IntToPtrOp, arith::IndexCastUIOp,
                 memref::ExtractAlignedPointerAsIndexOp,
                 bufferization::ToBufferOp>(dead)) {
        Operation *next = dead->getOperand(0).getDefiningOp();
        dead->erase();
        dead = next;
      }
    }
    return success();
  }

  void runOnOperation() override {
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation().walk([&](gpu::LaunchFuncOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(op);
    });
    for (gpu::LaunchFuncOp launch : launches)
      if (failed(retarget(launch)))
        return signalPassFailure();
  }
};
} // namespace

void mlir::nvfp4::populateNVFP4ToTcgen05Patterns(RewritePatternSet &patterns,
                                                 GPUTarget target,
                                                 tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05MatmulLowering>(patterns.getContext(), target, ctaPair);
}

namespace {
/// `nvfp4.quantize %y` -> `nvfp4.quantize %y amax (nvfp4.amax %y)` for a
/// tcgen05 matmul result `%y` (populateTcgen05ResultAmaxPatterns).
struct Tcgen05ResultAmaxOperand : public OpRewritePattern<QuantizeOp> {
  Tcgen05ResultAmaxOperand(MLIRContext *ctx, GPUTarget target,
                           tc::CtaPairMode ctaPair)
      : OpRewritePattern(ctx), target(target), ctaPair(ctaPair) {}

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAmax() || op.getHadamard())
      return rewriter.notifyMatchFailure(
          op, "has an amax operand or the amax of the transformed input");
    auto matmul = op.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || !isTcgen05Supported(matmul, target, ctaPair))
      return rewriter.notifyMatchFailure(op, "not a tcgen05 matmul result");
    Value amax = AmaxOp::create(rewriter, op.getLoc(), op.getInput());
    rewriter.modifyOpInPlace(op, [&] { op.getAmaxMutable().assign(amax); });
    return success();
  }

  GPUTarget target;
  tc::CtaPairMode ctaPair;
};
} // namespace

void mlir::nvfp4::populateTcgen05ResultAmaxPatterns(RewritePatternSet &patterns,
                                                    GPUTarget target,
                                                    tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05ResultAmaxOperand>(patterns.getContext(), target,
                                         ctaPair);
}

void mlir::nvfp4::populateNVFP4ToTcgen05NVFP4EpiloguePatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR,
    tc::CtaPairMode ctaPair) {
  patterns.add<Tcgen05QuantizedMatmulLowering>(patterns.getContext(), target,
                                               hardwareSR, ctaPair);
}

std::unique_ptr<Pass> mlir::nvfp4::createTcgen05RetargetTensorMapsPass() {
  return std::make_unique<Tcgen05RetargetTensorMapsPass>();
}

void mlir::nvfp4::registerTcgen05RetargetTensorMapsPass() {
  PassRegistration<Tcgen05RetargetTensorMapsPass>();
}

//===----------------------------------------------------------------------===//
// Target attachment
//===----------------------------------------------------------------------===//

namespace {
struct AttachTcgen05NVVMTargetPass
    : public PassWrapper<AttachTcgen05NVVMTargetPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AttachTcgen05NVVMTargetPass)

  AttachTcgen05NVVMTargetPass() = default;
  AttachTcgen05NVVMTargetPass(const AttachTcgen05NVVMTargetPass &other)
      : PassWrapper(other) {}
  AttachTcgen05NVVMTargetPass(StringRef chip, StringRef features,
                              unsigned optLevel) {
    this->chip = chip.str();
    this->features = features.str();
    this->optLevel = optLevel;
  }

  StringRef getArgument() const final {
    return "nvfp4-attach-tcgen05-nvvm-target";
  }
  StringRef getDescription() const final {
    return "Attach an NVVM target without the op-level SM check";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<NVVM::NVVMDialect>();
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto target = NVVM::NVVMTargetAttr::get(
        ctx, optLevel, "nvptx64-nvidia-cuda", chip, features,
        /*targetFlags=*/nullptr, /*linkFiles=*/nullptr,
        /*verifyTarget=*/false);
    getOperation().walk([&](gpu::GPUModuleOp module) {
      if (!module.getTargetsAttr() || module.getTargetsAttr().empty())
        module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
    });
  }

  // Options, so that the pass prints and parses as part of a textual
  // pipeline (nvfp4-to-ptx's, for example).
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip, e.g. sm_103a"),
                           llvm::cl::init("sm_100a")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features, e.g. +ptx88"),
                               llvm::cl::init("+ptx88")};
  Option<unsigned> optLevel{*this, "O", llvm::cl::desc("Optimization level"),
                            llvm::cl::init(2)};
};
} // namespace

void mlir::nvfp4::registerAttachTcgen05NVVMTargetPass() {
  PassRegistration<AttachTcgen05NVVMTargetPass>();
}

std::unique_ptr<Pass> mlir::nvfp4::createAttachTcgen05NVVMTargetPass(
    StringRef chip, StringRef features, unsigned optLevel) {
  return std::make_unique<AttachTcgen05NVVMTargetPass>(chip, features,
                                                       optLevel);
}
