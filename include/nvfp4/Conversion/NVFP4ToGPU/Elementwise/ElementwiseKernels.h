//===- ElementwiseKernels.h - Dequantize and Hadamard GPU kernels -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowering of `nvfp4.dequantize` and `nvfp4.hadamard` to kernels of the
// `gpu.module @nvfp4_kernels` (docs/gpu.md, "Dequantize and Hadamard
// kernels"), and the work assignment they share with the unit tests: one
// thread per 16-element block, 128 threads per CTA.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_ELEMENTWISEKERNELS_H
#define NVFP4_CONVERSION_NVFP4TOGPU_ELEMENTWISEKERNELS_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

#include <cstdint>

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {
class DequantizeOp;
class HadamardOp;

/// Reports (at `op`) why the GPU kernel cannot lower it: non-static or empty
/// shapes, or more CTAs than a grid holds.
LogicalResult checkDequantizeSupported(DequantizeOp op, GPUTarget target);
LogicalResult checkHadamardSupported(HadamardOp op, GPUTarget target);

/// Patterns lowering `nvfp4.dequantize` and `nvfp4.hadamard` to launches of
/// the element-wise kernels.
void populateNVFP4ElementwiseToGPUConversionPatterns(
    RewritePatternSet &patterns, GPUTarget target);
} // namespace nvfp4
} // namespace mlir

namespace nvfp4::gpu {
inline constexpr int64_t kElementwiseThreads = 128;
inline constexpr int64_t kElementwiseBlock = 16;

/// CTAs of an element-wise kernel over `numElements` elements.
inline int64_t elementwiseNumCtas(int64_t numElements) {
  const int64_t blocks = numElements / kElementwiseBlock;
  return (blocks + kElementwiseThreads - 1) / kElementwiseThreads;
}

/// Index of the compact scale of 16-element block `block` of a [rows, cols]
/// tensor with `blockRows` x 16 scale blocks (row-major [rows / blockRows,
/// cols / 16]).
template <typename T>
T dequantizeScaleIndex(T block, int64_t cols, int64_t blockRows) {
  if (blockRows == 1)
    return block;
  const int64_t blocksPerRow = cols / kElementwiseBlock;
  return (block / (blocksPerRow * blockRows)) * blocksPerRow +
         block % blocksPerRow;
}
} // namespace nvfp4::gpu

#endif // NVFP4_CONVERSION_NVFP4TOGPU_ELEMENTWISEKERNELS_H
