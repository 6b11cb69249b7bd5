//===- Tcgen05Matmul.h - NVFP4 matmul on tcgen05 tensor cores ---*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The sm_100a / sm_103a / sm_110a lowering of `nvfp4.matmul`: a persistent,
// warp-specialized 1-CTA kernel on
// `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16` with TMA
// loads, an mbarrier pipeline, and the accumulator and the scale factors in
// tensor memory. docs/tcgen05.md describes the design; the descriptor and
// layout mathematics live in Tcgen05Descriptors.h, the schedule in
// Tcgen05Pipeline.h, the tensor maps in Tcgen05TensorMap.h.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {
class MatmulOp;
class QuantizeOp;

/// Whether `target` has the 5th-generation tensor core (tcgen05): sm_100a,
/// sm_103a, sm_110a.
bool isTcgen05Target(GPUTarget target);

/// The libnvfp4_cuda_runtime entry points
/// (include/nvfp4/ExecutionEngine/CudaRuntime.h) whose calls the host code of
/// a tcgen05 matmul launch holds: the device's multiprocessor count, from
/// which it computes the persistent grid, and the encoding of a TMA tensor
/// map into a stack slot, which the launch passes by value. Launch plans
/// (nvfp4/Target/LaunchPlan.h) describe both.
inline constexpr llvm::StringLiteral kTcgen05MultiprocessorCountFn =
    "nvfp4CudaMultiprocessorCount";
inline constexpr llvm::StringLiteral kTcgen05TensorMapEncodeFn =
    "nvfp4CudaTensorMapEncode2D";

/// Whether `op` takes the aligned pointer of a buffer only as the address of
/// tensor maps: a memref.extract_aligned_pointer_as_index whose every use is,
/// through arith.index_castui and llvm.inttoptr, the address operand of a
/// kTcgen05TensorMapEncodeFn call. nvfp4-tcgen05-retarget-tensor-maps
/// replaces that address by the launch operand's, so such an op neither
/// reads nor writes the buffer's host copy, and a launch plan encodes the map
/// from the buffer its driver allocated.
bool isTcgen05TensorMapAddress(Operation *op);

/// A matmul of at most this many rows (M) and at least kTcgen05SwapMinCols
/// columns (N) runs on a tcgen05 target as its transposed product.
inline constexpr int64_t kTcgen05SwapMaxRows = 64;
inline constexpr int64_t kTcgen05SwapMinCols = 128;

/// On a tcgen05 `target`, replaces every `nvfp4.matmul` of `module` of few
/// rows (M <= kTcgen05SwapMaxRows, N >= kTcgen05SwapMinCols: a decode-time
/// GEMM) by the transposed product `nvfp4.matmul B, A` (the accumulator
/// transposed) followed by a `linalg.transpose` of its result, which the
/// kernel computes with the N rows of B in the MMA's 128 rows; bit for bit
/// the same result (Tcgen05SmallM.cpp). With `report`, each gets a remark.
void swapTcgen05FewRowMatmuls(ModuleOp module, GPUTarget target, bool report);

/// On a tcgen05 `target`, gives every `nvfp4.matmul` of `module` whose K is
/// not a multiple of 32 (the TMA row-stride unit of packed E2M1 codes)
/// operands with K padded to the next multiple of 32: zero codes and zero
/// scales, so the product is unchanged (Tcgen05OperandPadding.cpp). An
/// operand that an `nvfp4.quantize` read only by matmuls produces is
/// quantized into K-padded storage (the quantize marked, the matmul reading
/// a padded-storage view); any other is copied, and with `report` the
/// matmul gets a fallback remark saying which.
void padTcgen05MatmulOperands(ModuleOp module, GPUTarget target, bool report);

/// Checks that `op` has a shape the tcgen05 kernel supports, as the 1-CTA
/// kernel or the CTA pair that `ctaPair` asks for (`On` needs M to be a
/// multiple of 256); emits an error at the op's location and fails
/// otherwise.
LogicalResult
checkTcgen05MatmulSupported(MatmulOp op, GPUTarget target,
                            ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
                                ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Whether operand `operandIndex` (0: lhs, 1: rhs) of `op` may have its
/// scales in the global atoms layout (docs/tcgen05.md, "Scale atoms in global
/// memory"): the tcgen05 kernel (1-CTA or the CTA pair `ctaPair` selects)
/// takes `op` on `target`, and the operand's rows of each CTA are whole
/// atoms: always for A (128 rows per CTA), for B when the tile N is a
/// multiple of 128.
bool canReadTcgen05ScaleAtoms(MatmulOp op, unsigned operandIndex,
                              GPUTarget target,
                              ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
                                  ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Whether the tcgen05 kernel of `op` stages the row-major scales of operand
/// `operandIndex` when they are not in the atoms layout (docs/tcgen05.md,
/// "Staged 16x16-block scales"): TMA loads of the compact 16x16-block scales,
/// expanded into atoms in shared memory by the kernel's scale warp.
bool stagesTcgen05Scales(MatmulOp op, unsigned operandIndex, GPUTarget target,
                         ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
                             ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Whether the lowering of `op` (a quantize kernel or a tcgen05 NVFP4
/// epilogue) writes its scales in the atoms layout: on a tcgen05 target,
/// when the scale matrix is whole atoms and every use of the result is an
/// operand for which canReadTcgen05ScaleAtoms holds.
bool producesTcgen05ScaleAtoms(QuantizeOp op, GPUTarget target,
                               ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
                                   ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Adds the pattern lowering `nvfp4.matmul` to a `gpu.launch_func` of the
/// tcgen05 kernel (generated into `gpu.module @nvfp4_kernels`). Matmuls that
/// fail checkTcgen05MatmulSupported are left alone. The host code around the
/// launch asks libnvfp4_cuda_runtime for the SM count (the persistent grid)
/// and for a TMA tensor map of each operand's data buffer, which it passes
/// to the kernel right after that buffer and destroys after the launch.
void populateNVFP4ToTcgen05Patterns(
    RewritePatternSet &patterns, GPUTarget target,
    ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
        ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Why `op` cannot be computed by the epilogue of the tcgen05 kernel of the
/// matmul producing its input (the NVFP4 epilogue), or an empty string when
/// it can: the input is the result of an `nvfp4.matmul` the kernel takes on
/// `target`, used only by `op` and by `nvfp4.amax` ops, and `op` has an
/// `amax` operand (and seed, if any) defined before the matmul (the tensor
/// scale must be known before the result exists). Any block layout, rounding
/// and Hadamard transform is computed in the epilogue.
/// `ctaPair` is the kernel variant asked for, as in
/// checkTcgen05MatmulSupported.
std::string
getTcgen05EpilogueFusionBlocker(QuantizeOp op, GPUTarget target,
                                ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
                                    ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Adds the pattern lowering such an `nvfp4.quantize` and its matmul to one
/// launch of the tcgen05 kernel whose epilogue quantizes each block of 16
/// accumulator columns (Hadamard transform, block scale, codes rounded to
/// nearest or stochastically, by cvt.rs with `hardwareSR`) and writes the
/// NVFP4 data and compact E4M3 scales; the result carries `amax`. The result is bit-identical to the matmul's
/// kernel followed by the quantize kernel.
void populateNVFP4ToTcgen05NVFP4EpiloguePatterns(
    RewritePatternSet &patterns, GPUTarget target, bool hardwareSR,
    ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
        ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// Adds the pattern giving `nvfp4.quantize %y` without an `amax` operand and
/// without a Hadamard transform, where `%y` is the result of a matmul the
/// tcgen05 kernel takes on `target`, the operand `nvfp4.amax %y` (the same
/// tensor amax, by definition). The matmul kernel's epilogue then computes
/// it while it stores `%y`, which saves the quantize lowering's amax kernel:
/// one pass over the result.
void populateTcgen05ResultAmaxPatterns(
    RewritePatternSet &patterns, GPUTarget target,
    ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair =
        ::nvfp4::gpu::tcgen05::CtaPairMode::Auto);

/// `nvfp4-tcgen05-retarget-tensor-maps`: makes each tensor map of a host
/// launch describe the launch operand right before it, as it is now, and
/// builds it right before the launch. Run after passes that replace launch
/// operands (packing, device staging: nvfp4-to-gpu-executable).
std::unique_ptr<Pass> createTcgen05RetargetTensorMapsPass();
void registerTcgen05RetargetTensorMapsPass();

/// Attaches `#nvvm.target<O = optLevel, chip = chip, features = features>` to
/// every gpu.module without targets, like `nvvm-attach-target`, but with the
/// target attribute's op-level SM check disabled. MLIR 22 lists only
/// sm_100a/sm_101a for most tcgen05 ops (sm_101a is sm_110a's former name)
/// and rejects them for sm_103a and sm_110a, which the NVPTX backend and
/// ptxas accept; the NVFP4 lowering checks the target itself before it
/// emits any tcgen05 operation.
std::unique_ptr<Pass> createAttachTcgen05NVVMTargetPass(StringRef chip,
                                                        StringRef features,
                                                        unsigned optLevel);
void registerAttachTcgen05NVVMTargetPass();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H
