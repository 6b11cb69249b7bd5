//===- Dialects.cpp - C API of the nvfp4 dialect --------------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/Dialects.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

using namespace mlir;
using namespace mlir::nvfp4;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(NVFP4, nvfp4, NVFP4Dialect)

void mlirNVFP4RegisterAllDialects(MlirDialectRegistry registry) {
  registerAllDialects(*unwrap(registry));
}

void mlirNVFP4RegisterAllPasses(void) { registerAllPasses(); }

bool mlirTypeIsANVFP4Tensor(MlirType type) {
  return isa<NVFP4TensorType>(unwrap(type));
}

MlirType mlirNVFP4TensorTypeGet(MlirContext ctx, intptr_t rank,
                                const int64_t *shape, int64_t blockRows) {
  return mlirNVFP4TensorTypeGetWithTensorScale(ctx, rank, shape, blockRows,
                                               /*decodeScale=*/false);
}

/// Whether (`rank`, `shape`) describe a shape; emits an error naming
/// `function` otherwise.
static bool checkShapeArgument(MLIRContext *context, StringRef function,
                               intptr_t rank, const int64_t *shape) {
  if (rank >= 0 && (rank == 0 || shape))
    return true;
  mlir::emitError(UnknownLoc::get(context))
      << function << ": the rank must be non-negative and the shape non-null";
  return false;
}

MlirType mlirNVFP4TensorTypeGetWithTensorScale(MlirContext ctx, intptr_t rank,
                                               const int64_t *shape,
                                               int64_t blockRows,
                                               bool decodeScale) {
  MLIRContext *context = unwrap(ctx);
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
  if (!checkShapeArgument(context, "mlirNVFP4TensorTypeGet", rank, shape))
    return wrap(Type());
  BlockAttr block = BlockAttr::getChecked(emitError, context, blockRows,
                                          /*cols=*/int64_t(16));
  if (!block)
    return wrap(Type());
  return wrap(NVFP4TensorType::getChecked(
      emitError, context, llvm::ArrayRef(shape, rank), block,
      decodeScale ? TensorScaleKind::Decode : TensorScaleKind::Amax));
}

MlirType mlirNVFP4TensorTypeGetMX(MlirContext ctx, intptr_t rank,
                                  const int64_t *shape,
                                  MlirNVFP4Format format) {
  MLIRContext *context = unwrap(ctx);
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(context)); };
  if (!checkShapeArgument(context, "mlirNVFP4TensorTypeGetMX", rank, shape))
    return wrap(Type());
  std::optional<Format> mxFormat =
      symbolizeFormat(static_cast<uint32_t>(format));
  if (!mxFormat || *mxFormat == Format::NVFP4) {
    emitError() << "mlirNVFP4TensorTypeGetMX: format " << int(format)
                << " is not an MX format (MXFP4 1, MXFP8E4M3 2, MXFP8E5M2 3)";
    return wrap(Type());
  }
  return wrap(NVFP4TensorType::getChecked(
      emitError, context, llvm::ArrayRef(shape, rank),
      BlockAttr::get(context, 1, kMXBlockSize), TensorScaleKind::Amax,
      *mxFormat));
}

MlirNVFP4Format mlirNVFP4TensorTypeGetFormat(MlirType type) {
  return static_cast<MlirNVFP4Format>(
      cast<NVFP4TensorType>(unwrap(type)).getFormat());
}

int64_t mlirNVFP4TensorTypeGetBlockRows(MlirType type) {
  return cast<NVFP4TensorType>(unwrap(type)).getBlock().getRows();
}

bool mlirNVFP4TensorTypeHasDecodeScale(MlirType type) {
  return cast<NVFP4TensorType>(unwrap(type)).hasDecodeScale();
}

MlirType mlirNVFP4TensorTypeGetDataType(MlirType type) {
  return wrap(cast<NVFP4TensorType>(unwrap(type)).getDataType());
}

MlirType mlirNVFP4TensorTypeGetScalesType(MlirType type) {
  return wrap(cast<NVFP4TensorType>(unwrap(type)).getScalesType());
}

MlirAttribute mlirNVFP4BlockAttrGet(MlirContext ctx, int64_t rows,
                                    int64_t cols) {
  MLIRContext *context = unwrap(ctx);
  return wrap(BlockAttr::getChecked(
      [&] { return mlir::emitError(UnknownLoc::get(context)); }, context, rows,
      cols));
}

bool mlirAttributeIsANVFP4Block(MlirAttribute attr) {
  return isa<BlockAttr>(unwrap(attr));
}

MlirAttribute mlirNVFP4RoundingAttrGet(MlirContext ctx, bool stochastic) {
  return wrap(RoundingAttr::get(unwrap(ctx), stochastic
                                                 ? Rounding::Stochastic
                                                 : Rounding::NearestEven));
}

bool mlirAttributeIsANVFP4Rounding(MlirAttribute attr) {
  return isa<RoundingAttr>(unwrap(attr));
}

bool mlirNVFP4RoundingAttrIsStochastic(MlirAttribute attr) {
  return cast<RoundingAttr>(unwrap(attr)).getValue() == Rounding::Stochastic;
}
