//===- NVFP4ToGPU.h - Convert NVFP4 to GPU kernels --------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
#define NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H

#include "nvfp4/Conversion/NVFP4ToGPU/MmaSync/MmaLayout.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include <string>

namespace mlir {
class RewritePatternSet;
class RewriterBase;
class ModuleOp;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
namespace nvfp4 {
class AmaxOp;
class MatmulOp;
class QuantizeOp;

#define GEN_PASS_DECL_CONVERTNVFP4TOGPU
#define GEN_PASS_DECL_STRIPGPUCOMPILETIMES
#define GEN_PASS_DECL_GRIDCONSTANTKERNELPARAMS
#define GEN_PASS_DECL_KEEPKERNELSCALARSONDEVICE
#include "nvfp4/Conversion/Passes.h.inc"

/// Architectures the NVFP4ToGPU lowering generates kernels for.
enum class GPUTarget {
  /// RTX 50 / GB10: block-scaled m16n8k64 FP4 MMA.
  SM120a,
  SM121a,
  /// H100 / H200: no FP4 MMA; operands dequantized to bf16 in registers.
  SM90a,
  /// B200 / GB200, GB300, Thor: tcgen05.mma kind::mxf4nvf4 (Tcgen05Matmul.h).
  SM100a,
  SM103a,
  SM110a,
};

/// Parses `sm_120a` / `sm_121a` / `sm_90a` / `sm_100a` / `sm_103a` /
/// `sm_110a`; std::nullopt for anything else.
std::optional<GPUTarget> parseGPUTarget(llvm::StringRef name);

/// The name of `target` as parseGPUTarget reads it (e.g. `sm_100a`).
llvm::StringRef stringifyGPUTarget(GPUTarget target);

/// Whether `target` has the block-scaled FP4 MMA (otherwise its kernels
/// dequantize to bf16 and use bf16 MMAs).
bool hasBlockScaledMma(GPUTarget target);

/// Name of the gpu.module that receives the generated kernels.
inline constexpr llvm::StringLiteral kNVFP4KernelModuleName = "nvfp4_kernels";

/// Whether convert-nvfp4-to-gpu leaves the nvfp4 op `op` for the host (the
/// reference lowering, whose library kernels take run-time sizes) on
/// `target`: an op with a run-time (`?`) size in an operand or result that
/// no kernel of `target` takes (the kernels of run-time sizes: the mma.sync
/// matmuls' run-time M, the quantize and amax kernels' run-time rows;
/// docs/gpu.md, "Run-time sizes"), and a quantization or transpose whose
/// NVFP4 result such an op reads (so that no kernel output is read back
/// through the host's view of its components).
bool isLeftForHost(Operation *op, GPUTarget target);

/// Parses a matmul CTA tile `MxN` (64x64, 128x64, 64x128, 128x128, 128x256,
/// 16x128 or 32x128; see MmaLayout.h); std::nullopt for anything else.
std::optional<::nvfp4::gpu::TileShape> parseMatmulTile(llvm::StringRef spec);

/// Checks that `op` has a shape and element types the kernel of `target`
/// supports, with the CTA tile `tile` (default: selectTileShape(M, N); only
/// for sm_120a / sm_121a / sm_90a); emits an error at the op's location and
/// fails otherwise.
LogicalResult
checkMatmulSupported(MatmulOp op, GPUTarget target,
                     std::optional<::nvfp4::gpu::TileShape> tile = {});

/// Checks that the matmul `op` of MX operands has a kernel on `target`:
/// MXFP4 x MXFP4 (kind::mxf4) or MXFP8 x MXFP8, E4M3 and E5M2 in any
/// pairing (kind::mxf8f6f4), by mma.sync on sm_120a / sm_121a and by
/// tcgen05.mma on sm_100a / sm_103a / sm_110a; emits an error at the op's
/// location and fails otherwise.
LogicalResult checkMXMatmulSupported(MatmulOp op, GPUTarget target);

/// Emits a remark at `op` when its kernel on `target` does not use the FP4
/// tensor cores (sm_90a: bf16 MMAs on exactly dequantized operands), saying
/// so and why; nothing otherwise. For `report-fallbacks`.
void reportMatmulFallbacks(MatmulOp op, GPUTarget target);

/// Adds the patterns lowering `nvfp4.matmul` to `gpu.launch_func` of a kernel
/// generated into the module's `gpu.module @nvfp4_kernels`. Matmuls that fail
/// `checkMatmulSupported` are left alone.
void populateNVFP4ToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target,
    std::optional<::nvfp4::gpu::TileShape> tile = {});

/// Checks that `op` can be lowered to the quantize kernels of `target` (a
/// static, non-empty f32/bf16/f16 input whose blocks fit the grid; with
/// `hardwareSR`, a stochastic `op` needs a target with
/// `cvt.rs.satfinite.e2m1x4.f32`); emits an error at the op's location and
/// fails otherwise.
LogicalResult checkQuantizeSupported(QuantizeOp op, GPUTarget target,
                                     bool hardwareSR = false);

/// Emits a remark at `op` for each software path its quantize kernel on
/// `target` takes instead of a hardware instruction (E2M1 rounding without
/// `cvt.rn.satfinite.e2m1x2.f32`, stochastic rounding without
/// `cvt.rs.satfinite.e2m1x4.f32`), saying which and why; nothing when the
/// kernel converts in hardware. For `report-fallbacks`.
void reportQuantizeFallbacks(QuantizeOp op, GPUTarget target,
                             bool hardwareSR = false);

/// Adds the pattern lowering `nvfp4.quantize` to launches of an amax
/// reduction kernel (unless the op has an explicit `amax`) and a quantize
/// kernel, generated into `gpu.module @nvfp4_kernels`, followed by
/// `nvfp4.assemble` of the buffers they write. Ops that fail
/// `checkQuantizeSupported` are left alone. `hardwareSR` selects
/// `cvt.rs.satfinite.e2m1x4.f32` for stochastic rounding (QuantizeKernel.cpp).
void populateNVFP4QuantizeToGPUConversionPatterns(RewritePatternSet &patterns,
                                                  GPUTarget target,
                                                  bool hardwareSR = false);

/// Checks that `op` can be lowered to the amax kernel of `target` (the
/// input's elements fit the grid); emits an error at the op's location and
/// fails otherwise.
LogicalResult checkAmaxSupported(AmaxOp op, GPUTarget target);

/// Adds the pattern lowering `nvfp4.amax` to a launch of the amax reduction
/// kernel of the quantize kernels (`gpu.module @nvfp4_kernels`) and the
/// maximum of its per-CTA partials on the host. Ops that fail
/// `checkAmaxSupported` are left alone. (On tcgen05 targets the amax of a
/// matmul result is computed by the matmul kernel's epilogue instead.)
void populateNVFP4AmaxToGPUConversionPatterns(RewritePatternSet &patterns,
                                              GPUTarget target);

/// Returns the `gpu.module @nvfp4_kernels` of `module`, creating it (and
/// marking `module` as a GPU container module) on first use.
gpu::GPUModuleOp getOrCreateNVFP4KernelModule(RewriterBase &rewriter,
                                              ModuleOp module);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_NVFP4TOGPU_H
