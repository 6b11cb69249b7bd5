//===- TensorScaleUtils.cpp - IR of NVFP4 tensor scales -------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Utils/TensorScaleUtils.h"

#include "nvfp4/Numerics/Numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::nvfp4;

static Value f32Constant(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

static Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}

Value mlir::nvfp4::createDequantizeFactor(OpBuilder &b, Location loc,
                                          Value blockScale, Value tensorScale,
                                          TensorScaleKind kind) {
  Value scaled = mul(b, loc, blockScale, tensorScale);
  if (kind == TensorScaleKind::Decode)
    return scaled;
  Value factor = f32Constant(b, loc, ::nvfp4::kInvE2M1TimesE4M3Max);
  return mul(b, loc, scaled, factor);
}

/// fl(amax * fl(1 / (6 * 448))) for an amax, the scale for a decode scale.
static Value createTensorDecodeScale(OpBuilder &b, Location loc,
                                     Value tensorScale, TensorScaleKind kind) {
  if (kind == TensorScaleKind::Decode)
    return tensorScale;
  Value factor = f32Constant(b, loc, ::nvfp4::kInvE2M1TimesE4M3Max);
  return mul(b, loc, tensorScale, factor);
}

Value mlir::nvfp4::createMatmulAlpha(OpBuilder &b, Location loc, Value scaleA,
                                     TensorScaleKind kindA, Value scaleB,
                                     TensorScaleKind kindB) {
  if (kindA == TensorScaleKind::Amax && kindB == TensorScaleKind::Amax) {
    Value factor = f32Constant(b, loc, ::nvfp4::kInvE2M1TimesE4M3MaxSquared);
    return mul(b, loc, mul(b, loc, scaleA, scaleB), factor);
  }
  Value decodeA = createTensorDecodeScale(b, loc, scaleA, kindA);
  Value decodeB = createTensorDecodeScale(b, loc, scaleB, kindB);
  return mul(b, loc, decodeA, decodeB);
}
