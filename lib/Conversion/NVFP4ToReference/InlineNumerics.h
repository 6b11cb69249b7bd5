//===- InlineNumerics.h - The nvfp4 numerics in upstream ops ----*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/NVFP4ToReference: the emitters of the
// `kernels=inline` lowering (InlineNumerics.cpp), which build the reference
// library's f32 operations, in its order, out of linalg, vector, scf, tensor
// and arith ops, for the op patterns of NVFP4ToReference.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_INLINENUMERICS_H
#define NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_INLINENUMERICS_H

#include "LoweringUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace nvfp4 {
namespace reference {

/// The components of a quantized tensor: E2M1 codes (i8, one per element),
/// compact E4M3 scales (i8) and the f32 tensor amax.
struct Components {
  Value data, scales, amax;
};

/// The RHT of every 16-element group of each row of the f32 2D tensor `x`
/// with the sign vector `signs`.
Value emitHadamard2D(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int8_t> signs);

/// The tensor amax of the f32 2D tensor `x` (NaNs ignored).
Value emitAmax2D(OpBuilder &b, Location loc, Value x);

/// Quantizes the f32 2D tensor `x` [rows, cols] (docs/numerics.md §6) to 2D
/// components: codes [rows, cols], scales [rows / R, cols / 16], amax.
Components emitQuantize(OpBuilder &b, Location loc, Value x,
                        const QuantizeParams &p);

/// Dequantizes components of any rank of a tensor of `type` (its block rows
/// and tensor-scale kind) to `elementType`.
Value emitDequantize(OpBuilder &b, Location loc, Value data, Value scales,
                     Value tensorScale, NVFP4TensorType type, Type elementType);

/// The block-scaled GEMM of docs/numerics.md §8 of the components `a`
/// ([B, M, K] or [M, K]) and `bOp` ([B, N, K] or [N, K]) of tensors of types
/// `aType` and `bType` (block rows, tensor-scale kinds), plus `accIn`
/// ([B, M, N] f32) when given: [B, M, N] f32.
Value emitBlockScaledMatmul(OpBuilder &b, Location loc, ValueRange a,
                            ValueRange bOp, NVFP4TensorType aType,
                            NVFP4TensorType bType, Value accIn);

} // namespace reference
} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_LIB_CONVERSION_NVFP4TOREFERENCE_INLINENUMERICS_H
