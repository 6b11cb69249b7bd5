//===- Tcgen05KernelBuilder.h - The tcgen05 matmul kernel builder -*- C++
//-*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/NVFP4ToGPU: the configuration of one tcgen05
// matmul kernel (Tcgen05Config, the NVFP4 epilogue's EpilogueQuantization),
// the kernel's argument order, and Tcgen05KernelBuilder, which emits the
// kernel: the producer warp and the MMA thread in Tcgen05Kernel.cpp, the
// epilogue warps in Tcgen05Epilogue.cpp. The pattern and the host side are
// in Tcgen05Matmul.cpp; docs/tcgen05.md describes the design.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_TCGEN05KERNELBUILDER_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_TCGEN05KERNELBUILDER_H

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Pipeline.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"

#include "BlockQuantizeIR.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/Format.h"

#include <array>
#include <optional>

namespace mlir::nvfp4::detail {

namespace tc = ::nvfp4::gpu::tcgen05;

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
  /// The columns of the result's storage when they exceed N (K-padded
  /// storage for tcgen05 matmuls, kTcgen05StorageColsAttrName): the blocks
  /// past N are stored as zero codes with zero scales. 0: N.
  int64_t paddedCols = 0;

  static EpilogueQuantization get(QuantizeOp op, bool hardwareSR) {
    EpilogueQuantization q;
    q.scaleAtoms = op->hasAttr(mlir::nvfp4::detail::kTcgen05ScaleAtomsAttrName);
    if (op->hasAttr(mlir::nvfp4::detail::kTcgen05StorageColsAttrName))
      q.paddedCols =
          mlir::nvfp4::detail::getNVFP4StorageType(op).getShape().back();
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
    if (paddedCols)
      os << "_pad" << paddedCols;
    return name;
  }
};

/// Everything the tcgen05 kernel is specialized on: the matmul's shape,
/// the scale layouts, the epilogue and the tile plan.
struct Tcgen05Config : MatmulShape {
  /// The A / B scales are in the global atoms layout: the producer's elected
  /// lane bulk-copies them into the stage's atoms instead of the warp's
  /// loads and transposed stores.
  bool lhsScaleAtoms = false, rhsScaleAtoms = false;
  /// The epilogue quantizes the result to NVFP4, with the tensor scale of a
  /// given amax, instead of storing it.
  std::optional<EpilogueQuantization> nvfp4Output;
  /// The epilogue also reduces the result's amax (`nvfp4.amax` of the
  /// matmul result) into a one-element buffer.
  bool computesAmax = false;
  /// The result (and the accumulator) are stored (and read) transposed:
  /// the kernel's [M, N] tile element (r, c) is element (c, r) of an
  /// [N, M] buffer. A few-row GEMM computed as its transposed product
  /// (Tcgen05SmallM.cpp) stores the product the caller asked for, without a
  /// transpose on the host: the lanes of a warp hold consecutive rows, so
  /// each store of one column is a contiguous run of the [N, M] row.
  bool transposedResult = false;
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
    Tcgen05Config c;
    static_cast<MatmulShape &>(c) = MatmulShape::of(op);
    c.nvfp4Output = nvfp4Output;
    c.target = target;
    c.ctaPairMode = ctaPairMode;
    const int64_t tileN = tc::chooseTileN(c.n);
    // A run-time M takes the 1-CTA kernel (the CTA pair needs whole 256-row
    // tiles), and so does a run-time K.
    c.plan = tc::makeTilePlan(
        tileN,
        !c.hasRunTimeM() && !c.hasRunTimeK() &&
            tc::selectCtaPair(ctaPairMode, c.batches(), c.m, c.n, tileN),
        tc::scaleAtomsPerKTileOf(c.kind()));
    return c;
  }

  /// Whether the row-major scales of operand `operand` (0: A, 1: B) can be
  /// staged: NVFP4 16x16 blocks and K a multiple of the K tile (whole
  /// 16-byte staged scale rows, and the tensor map's 16-byte row stride).
  bool canStageScales(unsigned operand) const {
    return !isMX() && !(operand == 0 && hasRunTimeM()) && !hasRunTimeK() &&
           (operand == 0 ? lhsBlockRows : rhsBlockRows) ==
               tc::kStagedScaleBlockRows &&
           k % tileK() == 0;
  }
  /// Stages the scales as `staging` says (`plan.scaleStaging`: the
  /// producer TMA-loads the row-major 16x16-block scales, the scale warp
  /// expands them into the stage's atoms), and replans the tile for it.
  void setScaleStaging(tc::ScaleStaging staging) {
    plan = tc::makeTilePlan(plan.tileN, plan.ctaPair,
                            tc::scaleAtomsPerKTileOf(kind()), staging);
  }

  /// The MMA kind of the operands' format: kind::mxf4nvf4 (NVFP4),
  /// kind::mxf4 (MXFP4) or kind::mxf8f6f4 (MXFP8, E4M3 and E5M2 in any
  /// pairing).
  tc::BlockScaledKind kind() const {
    if (!isMX())
      return tc::BlockScaledKind::Mxf4Nvf4;
    return elementBits() == 4 ? tc::BlockScaledKind::Mxf4
                              : tc::BlockScaledKind::Mxf8f6f4;
  }
  /// The instruction descriptor's format code of an operand of `format`.
  static uint32_t operandFormatCode(Format format) {
    switch (format) {
    case Format::MXFP8E4M3:
      return static_cast<uint32_t>(tc::MxF8F6F4Format::E4M3);
    case Format::MXFP8E5M2:
      return static_cast<uint32_t>(tc::MxF8F6F4Format::E5M2);
    default:
      return static_cast<uint32_t>(tc::MxF4Format::E2M1);
    }
  }
  /// Elements per K tile: 256 (E2M1) or 128 (8-bit).
  int64_t tileK() const { return tc::tileKOf(kind()); }

  /// Tiles along N and M; the last is predicated when the tile does not
  /// divide the dimension. A run-time M's tiles are counted at run time.
  int64_t nTiles() const { return llvm::divideCeil(n, plan.tileN); }
  int64_t mTiles() const {
    assert(!hasRunTimeM() && "a run-time M's tiles are counted at run time");
    return llvm::divideCeil(m, plan.tileM);
  }
  /// Whether M or N is not a multiple of the tile (a run-time M may not
  /// be).
  bool ragged() const {
    return hasRunTimeM() || m % plan.tileM != 0 || n % plan.tileN != 0;
  }
  int64_t numTiles() const { return nTiles() * mTiles() * batches(); }
  /// K tiles; the last is zero-filled past K when the K tile does not
  /// divide K. A run-time K's are counted at run time.
  int64_t kTiles() const {
    assert(!hasRunTimeK() && "a run-time K's tiles are counted at run time");
    return llvm::divideCeil(k, tileK());
  }

  /// This configuration with a run-time M standing for one M tile and a
  /// run-time K for one K tile: the static parameters of the tensor maps,
  /// whose run-time sizes the host passes at launch.
  Tcgen05Config withRunTimeSizesAsTiles() const {
    Tcgen05Config sized = *this;
    if (hasRunTimeM())
      sized.m = tc::kTileM;
    if (hasRunTimeK())
      sized.k = tileK();
    return sized;
  }

  /// The tensor maps of the A and B data at device address `address`: one
  /// box is what one CTA loads (with a CTA pair, 128 rows of A and half of
  /// the tile's B rows).
  tc::ByteTensorMap2D lhsTensorMap(uint64_t address) const {
    return tc::operandTensorMap(address, batches(), m, k, tc::kTileM,
                                elementBits());
  }
  tc::ByteTensorMap2D rhsTensorMap(uint64_t address) const {
    return tc::operandTensorMap(address, batches(), n, k, plan.bRowsPerCta,
                                elementBits());
  }
  /// The tensor maps of the staged A and B scales at device address
  /// `address`: one box is what one CTA stages (with a CTA pair, the scales
  /// of its 128 rows of A and of all the tile's B rows).
  tc::ByteTensorMap2D lhsStagedScaleTensorMap(uint64_t address) const {
    return tc::stagedScaleTensorMap(address, batches(), m, k, tc::kTileM);
  }
  tc::ByteTensorMap2D rhsStagedScaleTensorMap(uint64_t address) const {
    return tc::stagedScaleTensorMap(address, batches(), n, k, plan.tileN);
  }

  /// e.g. `nvfp4_tcgen05_matmul_m128n256k1024_t256_1x16_16x16_f32`, or
  /// `..._t256_pair_...` for the CTA pair; `_sfatoms_a`, `_sfatoms_b`,
  /// `_sfatoms_ab` name the operands whose scales are in the atoms layout,
  /// `_sfstaged_a`, ... those whose scales are staged.
  /// MX operands name their formats instead of their blocks
  /// (`..._t128_mxfp8_e4m3_mxfp8_e5m2_f32`).
  std::string kernelName() const {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "nvfp4_tcgen05_matmul_" << shapeNamePart() << "_t" << plan.tileN
       << (plan.ctaPair ? "_pair_" : "_") << operandsNamePart();
    os << (resultElementType.isBF16() ? "bf16" : "f32");
    if (hasAcc)
      os << "_acc";
    os << tensorScaleSuffix();
    if (lhsScaleAtoms || rhsScaleAtoms)
      os << "_sfatoms_" << (lhsScaleAtoms ? "a" : "")
         << (rhsScaleAtoms ? "b" : "");
    if (plan.scaleStaging.any())
      os << "_sfstaged_" << (plan.scaleStaging.lhs ? "a" : "")
         << (plan.scaleStaging.rhs ? "b" : "");
    if (nvfp4Output)
      os << nvfp4Output->kernelNameSuffix();
    if (computesAmax)
      os << "_resultamax";
    if (transposedResult)
      os << "_transposed";
    return name;
  }
};

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
  friend IdxI32 operator^(IdxI32 x, IdxI32 y) {
    return {x.b, x.loc, arith::XOrIOp::create(*x.b, x.loc, x.v, y.v)};
  }
};

/// The type of a TMA tensor map (a 128-byte CUtensorMap) as a kernel
/// argument: the launch passes it by value; nvfp4-grid-constant-kernel-params
/// makes it a byval grid-constant parameter (docs/tcgen05.md).
inline Type getTensorMapValueType(MLIRContext *ctx) {
  return LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64),
                                  tc::kTensorMapObjectBytes / 8);
}

/// Name of the dynamic shared-memory symbol of the tcgen05 kernels.
constexpr llvm::StringLiteral kSmemSymbol = "__nvfp4_tcgen05_smem";

/// The aligned base address of `memref` as a generic LLVM pointer: the
/// address operand of kTcgen05TensorMapEncodeFn (Tcgen05Matmul.cpp).
Value hostAddressOf(OpBuilder &b, Location loc, Value memref);

/// Kernel arguments per operand (the amax of NVFP4 operands only: MX has no
/// tensor scale; operandArg), then `acc` if any, then the result: one
/// buffer, or with the NVFP4 epilogue the amax, the seed if stochastic, the
/// data and the scales buffers; then the result's amax buffer if the kernel
/// computes it. Each
/// tensor map directly follows the buffer it describes (the data's, and with
/// staged scales the scales'): the kernel reads the data only through the
/// tensor map, but the buffer stays an operand of the launch so that the
/// host staging of nvfp4-to-gpu-executable moves it to the device, and
/// nvfp4-tcgen05-retarget-tensor-maps finds the buffer of each map.
enum OperandArg : unsigned {
  kArgData,
  kArgTensorMap,
  kArgScales,
  kArgScaleTensorMap,
  kArgAmax,
};
/// The index of argument `arg` of operand `operand` (0: A, 1: B), and of the
/// first argument after the operands.
inline unsigned operandArg(const Tcgen05Config &c, unsigned operand,
                           OperandArg arg) {
  auto staged = [&](unsigned o) {
    return o == 0 ? c.plan.scaleStaging.lhs : c.plan.scaleStaging.rhs;
  };
  // Per operand: data, map, scales, the scales' map if staged, the amax of
  // NVFP4.
  unsigned index = 0;
  for (unsigned o = 0; o < operand; ++o)
    index += 3 + (staged(o) ? 1 : 0) + (c.isMX() ? 0 : 1);
  if (arg == kArgAmax && !staged(operand))
    return index + kArgAmax - 1;
  return index + arg;
}
inline unsigned firstArgAfterOperands(const Tcgen05Config &c) {
  return operandArg(c, 2, kArgData);
}

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
  Value remC(Value x, int64_t v) {
    return arith::RemUIOp::create(b, loc, x, cst(x.getType(), v));
  }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value cst(Type t, int64_t v) {
    return arith::ConstantIntOp::create(b, loc, t, v);
  }
  Value ext64(Value v) {
    return arith::ExtUIOp::create(b, loc, b.getI64Type(), v);
  }
  Value boolean(bool v) {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
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
  /// The start-address field `(address >> 4) & 0x3FFF` of a shared-memory
  /// descriptor.
  Value smemDescField(Value address);
  /// The descriptor `constant | field` (`field` from smemDescField).
  Value smemDescOfField(uint64_t constant, Value field);
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
  /// Emits `body(kt, step, stage)` for each K tile `kt` of this CTA's local
  /// tile `local`: its K-tile step (tc::kStep) and stage (tc::slotOf), the
  /// schedule the producer and the scale warp follow.
  void forEachKTile(Value local,
                    function_ref<void(Value, IdxI32, Value)> body) {
    forRange(i32(0), kTileCount, [&](Value kt) {
      IdxI32 step = tc::kStep(idx(local), idx(kt), idx(kTileCount));
      body(kt, step, tc::slotOf(step, p.stages).v);
    });
  }

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
    IdxI32 row = coord.batch * idx(mRows) + coord.m * p.tileM;
    return p.ctaPair ? add(row.v, mulC(rankInPair, tc::kTileM)) : row.v;
  }

  /// Warp 0: fills the stages, then waits until the MMAs of the last
  /// `stages` K tiles committed (no tcgen05.commit arrives at the barriers
  /// of an exited CTA).
  void emitProducer();
  /// Warp 0: the E4M3 scales of K tile `kt` of the tile at `coord` into the
  /// scale atoms of the stage at byte `stageOff`, for the operands whose
  /// scales are neither bulk-copied atoms nor staged.
  void emitScaleStores(Value kt, Value stageOff,
                       const tc::TileCoord<IdxI32> &coord);
  /// Whether the producer's lanes store scales (emitScaleStores).
  bool storesScalesInProducer() const {
    return (!c.lhsScaleAtoms && !p.scaleStaging.lhs) ||
           (!c.rhsScaleAtoms && !p.scaleStaging.rhs);
  }
  /// The lanes of a warp write the scale atoms of one operand's K tile into
  /// the stage at byte `stageOff` (A's at isLhs, else B's `atoms` 128-row
  /// blocks), reading the scales of tile row `row` (i32, below `tileRows`)
  /// as `loadRow(row)`: a vector of one i32 per atom of the K tile. Every
  /// row is loaded before the first store; `inPlace` (rows loaded from the
  /// atoms' own bytes) also orders the warp's loads before its stores.
  void emitScaleAtomStores(Value stageOff, function_ref<Value(Value)> loadRow,
                           int64_t tileRows, int64_t atoms, bool isLhs,
                           bool inPlace = false);
  /// The scale warp (staged scales): per K-tile step, waits for the staged
  /// scales, expands each staged row into the 16 tile rows it scales in the
  /// stage's atoms, and arrives on the stage's full barrier.
  void emitScaleWarp();
  /// The elected thread of warp 1: per tile, waits for a free accumulator,
  /// issues copies, MMAs and commits.
  void emitMmaIssuer();
  /// Where the MMA thread's K-tile step is (i32 values): its stage, the
  /// phase parity it waits for (tc::slotOf, tc::consumerParity) and the
  /// shared-memory descriptor start-address field of the stage's base.
  struct StageCursor {
    Value stage, parity, descField;
  };
  /// Warp 1: scale copies and MMAs of the K tile in stage `at` into the
  /// accumulator at tensor-memory column `accColumn`, whose first MMA adds
  /// to the accumulator iff `accumulate` (i1; false for a tile's K tile 0).
  void emitIssueKTile(const StageCursor &at, Value accColumn, Value accumulate);
  /// The cursor of the K-tile step after `at` (the descriptor field of
  /// stage 0 is `baseDescField`).
  StageCursor emitNextStage(const StageCursor &at, Value baseDescField);
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
  /// The staging-buffer pointer of value group `group` (i32, 0..3) of row
  /// `row` (i32, 0..31) of this warp's chunk (Tcgen05Epilogue.cpp).
  Value stagingGroupPtr(Value row, Value group);
  /// `bar.warp.sync` of all 32 lanes.
  void emitWarpSync();
  /// The 16 f32 values of `acc` at output row `row` (flattened over the
  /// batch; `rowInBatch` within its batch) and columns `col`..`col + 15`,
  /// loaded as whole rows by the warp through its staging buffer. With a
  /// ragged shape, positions past M x N read element 0 instead.
  SmallVector<Value> emitLoadAccChunk(Value row, Value rowInBatch, Value col);
  /// Stores the 16 final f32 values `values` of output row `row` (flattened
  /// over the batch; `rowInBatch` within its batch), columns `col`..`col +
  /// 15`, in the result type, or as one NVFP4 block with the NVFP4
  /// epilogue. With a ragged shape, only positions inside M x N are stored
  /// (for the NVFP4 epilogue, whole blocks).
  void emitStoreChunk(ArrayRef<Value> values, Value row, Value rowInBatch,
                      Value col);
  /// With `transposedResult`: the i64 element index of the kernel's output
  /// position (row `row`, flattened over the batch, `rowInBatch` within
  /// it; column `col`) in the [batch, N, M] buffer.
  Value transposedElement(Value row, Value rowInBatch, Value col);
  /// With `transposedResult`: emitLoadAccChunk and emitStoreChunk of the
  /// transposed accumulator and result, element by element (lane l's
  /// element of one column is next to lane l + 1's: whole rows per warp,
  /// no staging).
  SmallVector<Value> emitLoadTransposedAccChunk(Value row, Value rowInBatch,
                                                Value col);
  void emitStoreTransposedChunk(ArrayRef<Value> values, Value row,
                                Value rowInBatch, Value col);
  /// Whether output row `rowInBatch` (within its batch) and column `col`
  /// (i32) are inside M x N.
  Value insideOutput(Value rowInBatch, Value col) {
    Value rowIn = cmp(arith::CmpIPredicate::ult, rowInBatch, mRows);
    Value colIn = cmp(arith::CmpIPredicate::ult, col, i32(c.n));
    return arith::AndIOp::create(b, loc, rowIn, colIn);
  }
  /// The NVFP4 epilogue: quantizes the 16 values (rounded to the matmul's
  /// result type first, as the separate quantization would read them) as
  /// the quantize kernel quantizes one 1x16 block: Hadamard transform,
  /// block scale (for 16x16 blocks from the maximum over the half warp, whose
  /// 16 lanes hold the tile's 16 rows), codes rounded to nearest or
  /// stochastically with the same Philox counter. Stores the 8 data bytes
  /// and the E4M3 scale (16x16: by the tile's first row) in the compact
  /// layout of the NVFP4 tensor, or (scaleAtoms) the scale by every row in
  /// the global atoms layout. Every lane of the warp must execute it. With a
  /// ragged shape, blocks outside M x N are not stored (a block is wholly
  /// inside or outside: N is a multiple of 16, and M of 16 for 16x16
  /// blocks); with K-padded storage (paddedCols), the blocks past N up to
  /// the storage's columns are stored as zeros.
  void emitStoreNVFP4Block(ArrayRef<Value> values, Value row, Value rowInBatch,
                           Value col);
  /// The stores of emitStoreNVFP4Block: the block's data bytes and scale
  /// (`block64`: the block's index in the flattened result's storage).
  void emitStoreNVFP4Components(
      const mlir::nvfp4::detail::BlockQuantizeEmitter::Block &block, Value row,
      Value col, Value block64);
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
  /// M (i32): the constant, or a run-time M read from A's data buffer.
  Value mRows;
  /// The K tiles and the bytes of an operand's scale row (i32): constants,
  /// or computed from a run-time K read from A's data buffer.
  Value kTileCount, scaleRowBytes;
  /// With a CTA pair: this CTA's rank in its cluster (%cluster_ctarank) and
  /// whether it is the leader; `cta` and `gridSize` are then the cluster
  /// index and the cluster count (the tile schedule is per cluster).
  Value rankInPair, isLeader;
  Value lhsTensorMap, lhsScales, rhsTensorMap, rhsScales, accPtr, outPtr;
  /// The tensor maps of staged scales (null when not staged).
  Value lhsStagedScaleMap, rhsStagedScaleMap;
  Value lhsAmax, rhsAmax;
  // The NVFP4 epilogue: the amax and the seed (stochastic rounding) operands
  // of the quantization, the output's scales and its global encode scale.
  Value outAmax, outSeed, outScalesPtr, outEncodeScale;
  // computesAmax: the f32 the epilogue merges the result's amax into.
  Value resultAmaxPtr;
  Value smemBase, smemBaseAddr, tmemBase;
};

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_TCGEN05KERNELBUILDER_H
