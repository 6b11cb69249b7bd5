//===- TransposeKernel.h - NVFP4 transpose GPU kernel -----------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowering of `nvfp4.transpose` (the exact transpose of a 16x16-scaled
// tensor) to a kernel of the `gpu.module @nvfp4_kernels` (docs/gpu.md,
// "Transpose kernel").
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TRANSPOSEKERNEL_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TRANSPOSEKERNEL_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {
class TransposeOp;

/// Reports (at `op`) why the transpose kernel cannot lower it: a non-static
/// or empty shape, or more CTAs than a grid holds.
LogicalResult checkTransposeSupported(TransposeOp op, GPUTarget target);

/// Adds the pattern lowering `nvfp4.transpose` to a launch of the transpose
/// kernel.
void populateNVFP4TransposeToGPUConversionPatterns(RewritePatternSet &patterns,
                                                   GPUTarget target);
} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TRANSPOSEKERNEL_H
