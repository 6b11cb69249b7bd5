//===- MmaSyncMatmul.h - The mma.sync matmul kernels ------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/NVFP4ToGPU: the configuration of an
// `nvfp4.matmul` lowered to the mma.sync kernels (sm_120a / sm_121a:
// block-scaled m16n8k64 kind::mxf4nvf4; sm_90a: bf16 m16n8k16 on operands
// dequantized in registers) and the entry point of their builder
// (MmaSyncKernelBuilder.h). The pattern and the pass are in NVFP4ToGPU.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCMATMUL_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCMATMUL_H

#include "nvfp4/Conversion/NVFP4ToGPU/MmaSync/MmaLayout.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>
#include <string>

namespace mlir::nvfp4::detail {

/// Everything the kernel is specialized on: the matmul's shape and the CTA
/// tile.
struct MatmulConfig : MatmulShape {
  /// The CTA tile: `forcedTile` or selectTileShape(M, N), without the wide
  /// tile on targets that dequantize in registers (sm_90a).
  ::nvfp4::gpu::TileShape tile;
  /// How each operand's scales are staged (MmaLayout.h, ScaleStaging):
  /// 16x16-block operands as their compact rows; on the block-scaled
  /// targets (sm_120a, sm_121a) in 16-byte groups of K steps where the rows
  /// allow it. The sm_90a kernel keeps per-step copies: its dequantizing K
  /// step, unrolled twice for the groups, spilled 4 bytes at 128
  /// registers.
  ::nvfp4::gpu::ScaleStaging lhsScaleStaging, rhsScaleStaging;

  static MatmulConfig
  get(MatmulOp op, GPUTarget target,
      std::optional<::nvfp4::gpu::TileShape> forcedTile = {}) {
    MatmulConfig c;
    static_cast<MatmulShape &>(c) = MatmulShape::of(op);
    if (forcedTile)
      c.tile = *forcedTile;
    else if (c.hasRunTimeM())
      c.tile = ::nvfp4::gpu::selectRunTimeMTileShape(c.n);
    else
      c.tile = ::nvfp4::gpu::selectTileShape(
          c.m, c.n, /*allowWideTile=*/hasBlockScaledMma(target));
    using ::nvfp4::gpu::ScaleStaging;
    const int64_t stepScaleBytes = c.stepK() / c.blockCols();
    // A run-time K stages every K step's scales on its own: grouping needs
    // whole groups of steps in a row.
    auto staging = [&](int64_t blockRows, bool grouped) {
      grouped = grouped && !c.hasRunTimeK();
      return grouped ? ::nvfp4::gpu::groupedScaleStaging(
                           stepScaleBytes, c.k / c.blockCols(), blockRows)
                     : ScaleStaging{1, stepScaleBytes, blockRows};
    };
    const bool blockScaled = hasBlockScaledMma(target);
    c.lhsScaleStaging = staging(c.lhsBlockRows, blockScaled);
    c.rhsScaleStaging = staging(c.rhsBlockRows, blockScaled);
    if (c.sharedBytes() > ::nvfp4::gpu::kMaxSharedBytes) {
      c.lhsScaleStaging = staging(c.lhsBlockRows, false);
      c.rhsScaleStaging = staging(c.rhsBlockRows, false);
    }
    return c;
  }

  /// K codes per K step: 64 bytes of a row (128 E2M1 codes, 64 8-bit ones).
  int64_t stepK() const {
    return ::nvfp4::gpu::kTileRowBytes * 8 / elementBits();
  }
  /// The kernel's dynamic shared memory.
  int64_t sharedBytes() const {
    return ::nvfp4::gpu::pipelineSharedBytes(tile, lhsScaleStaging,
                                             rhsScaleStaging);
  }

  /// A symbol name unique to the configuration, e.g.
  /// `nvfp4_matmul_m128n64k256_1x16_16x16_f32`, `nvfp4_matmul_mdyn_n64k256_...`
  /// for a run-time M (MX: the formats instead of
  /// the blocks, `..._mxfp4_mxfp4_...`); tiles other than 64x64 add a
  /// suffix, e.g. `_t128x128`.
  std::string kernelName() const {
    std::string name;
    llvm::raw_string_ostream os(name);
    os << "nvfp4_matmul_" << shapeNamePart() << "_" << operandsNamePart();
    os << (resultElementType.isBF16() ? "bf16" : "f32");
    if (hasAcc)
      os << "_acc";
    os << tensorScaleSuffix();
    if (!(tile == ::nvfp4::gpu::kTile64x64))
      os << "_t" << tile.m << "x" << tile.n;
    return name;
  }
};

/// The dynamic shared memory of the mma.sync matmul kernels (an external
/// zero-length array).
inline constexpr llvm::StringLiteral kMmaSyncSmemSymbol =
    "__nvfp4_mma_sync_smem";

/// Builds the mma.sync matmul kernel of `config` for `target` (sm_120a,
/// sm_121a or sm_90a) into `module` as `name`, with arguments `argTypes`.
gpu::GPUFuncOp buildMmaSyncMatmulKernel(OpBuilder &b, Location loc,
                                        const MatmulConfig &config,
                                        GPUTarget target,
                                        gpu::GPUModuleOp module, StringRef name,
                                        TypeRange argTypes);

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_MMASYNCMATMUL_H
