//===- TensorScaleUtils.h - IR of NVFP4 tensor scales -----------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The f32 arithmetic through which an NVFP4 tensor's tensor scale (an amax,
// or a decode scale; see `!nvfp4.tensor`) enters dequantization and the
// block-scaled GEMM, as plain `arith` ops in the order of the reference
// library (nvfp4::dequantizeScale, nvfp4::matmulAlpha). Every lowering (the
// CPU reference lowering, the GPU kernels) emits it through here.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_TENSORSCALEUTILS_H
#define NVFP4_DIALECT_NVFP4_UTILS_TENSORSCALEUTILS_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::nvfp4 {

/// The f32 factor a block's E2M1 values are multiplied by: for an amax,
/// fl(fl(blockScale * amax) * fl(1 / (6 * 448))) (Transformer Engine's
/// dequantize kernel); for a decode scale, fl(blockScale * scale) (Model
/// Optimizer's). `blockScale` is the decoded E4M3 block scale.
Value createDequantizeFactor(OpBuilder &b, Location loc, Value blockScale,
                             Value tensorScale, TensorScaleKind kind);

/// The per-tensor GEMM scale (alpha) of two NVFP4 operands: for two amaxes
/// fl(fl(amaxA * amaxB) * fl(1 / (6 * 6 * 448 * 448))) (Transformer
/// Engine); otherwise the product of the operands' decode scales, an amax
/// contributing fl(amax * fl(1 / (6 * 448))).
Value createMatmulAlpha(OpBuilder &b, Location loc, Value scaleA,
                        TensorScaleKind kindA, Value scaleB,
                        TensorScaleKind kindB);

} // namespace mlir::nvfp4

#endif // NVFP4_DIALECT_NVFP4_UTILS_TENSORSCALEUTILS_H
