/*===- nvfp4-c/Dialects.h - C API of the nvfp4 dialect ------------*- C -*-===*\
|*                                                                            *|
|* Part of the NVFP4-MLIR project.                                            *|
|*                                                                            *|
|* Registers the dialect and its passes, and builds and inspects the NVFP4    *|
|* tensor type and the block and rounding attributes. Rank and shape of an    *|
|* NVFP4 tensor type are read with the generic mlirShapedType* functions.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NVFP4_C_DIALECTS_H
#define NVFP4_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(NVFP4, nvfp4);

/// Adds the nvfp4 dialect and the dialects its passes create to `registry`.
MLIR_CAPI_EXPORTED void mlirNVFP4RegisterAllDialects(MlirDialectRegistry registry);

/// Registers every nvfp4 pass, conversion and pipeline with the global pass
/// registry, so that mlirParsePassPipeline can name them.
MLIR_CAPI_EXPORTED void mlirNVFP4RegisterAllPasses(void);

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Whether `type` is an !nvfp4.tensor.
MLIR_CAPI_EXPORTED bool mlirTypeIsANVFP4Tensor(MlirType type);

/// Returns !nvfp4.tensor<shape, blockRows x 16>, or a null type (and emits a
/// diagnostic at an unknown location) when the shape or block is invalid,
/// including a negative `rank`, a null `shape` of positive rank and an
/// element count that does not fit in int64.
/// `blockRows` is 1 or 16.
MLIR_CAPI_EXPORTED MlirType mlirNVFP4TensorTypeGet(MlirContext ctx,
                                                   intptr_t rank,
                                                   const int64_t *shape,
                                                   int64_t blockRows);

/// As mlirNVFP4TensorTypeGet, with a decode tensor scale when `decodeScale`
/// is true: !nvfp4.tensor<shape, blockRows x 16, decode>, the type of a
/// weight another tool quantized (its f32 scale multiplies the block
/// scales).
MLIR_CAPI_EXPORTED MlirType mlirNVFP4TensorTypeGetWithTensorScale(
    MlirContext ctx, intptr_t rank, const int64_t *shape, int64_t blockRows,
    bool decodeScale);

/// The block-scaled format of an !nvfp4.tensor (its `format` parameter).
typedef enum MlirNVFP4Format {
  MlirNVFP4FormatNVFP4 = 0,
  MlirNVFP4FormatMXFP4 = 1,
  MlirNVFP4FormatMXFP8E4M3 = 2,
  MlirNVFP4FormatMXFP8E5M2 = 3,
} MlirNVFP4Format;

/// Returns the MX tensor type !nvfp4.tensor<shape, 1x32, format>, or a null
/// type (and emits a diagnostic at an unknown location) when the shape is
/// invalid (as for mlirNVFP4TensorTypeGet) or `format` is not an MX format.
MLIR_CAPI_EXPORTED MlirType mlirNVFP4TensorTypeGetMX(MlirContext ctx,
                                                     intptr_t rank,
                                                     const int64_t *shape,
                                                     MlirNVFP4Format format);

/// The format of an !nvfp4.tensor type.
MLIR_CAPI_EXPORTED MlirNVFP4Format mlirNVFP4TensorTypeGetFormat(MlirType type);

/// Rows of the block of an NVFP4 tensor type: 1 (1x16 or 1x32) or 16
/// (16x16).
MLIR_CAPI_EXPORTED int64_t mlirNVFP4TensorTypeGetBlockRows(MlirType type);

/// Whether the f32 tensor scale of an NVFP4 tensor type is a decode scale
/// (`decode`) rather than the tensor amax.
MLIR_CAPI_EXPORTED bool mlirNVFP4TensorTypeHasDecodeScale(MlirType type);

/// The builtin tensor types of the E2M1 data and E4M3 scale components.
MLIR_CAPI_EXPORTED MlirType mlirNVFP4TensorTypeGetDataType(MlirType type);
MLIR_CAPI_EXPORTED MlirType mlirNVFP4TensorTypeGetScalesType(MlirType type);

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// Returns #nvfp4.block<rows x cols>, or a null attribute when invalid.
MLIR_CAPI_EXPORTED MlirAttribute mlirNVFP4BlockAttrGet(MlirContext ctx,
                                                       int64_t rows,
                                                       int64_t cols);
MLIR_CAPI_EXPORTED bool mlirAttributeIsANVFP4Block(MlirAttribute attr);

/// Returns #nvfp4.rounding<rn> (stochastic = false) or <rs> (true).
MLIR_CAPI_EXPORTED MlirAttribute mlirNVFP4RoundingAttrGet(MlirContext ctx,
                                                          bool stochastic);
MLIR_CAPI_EXPORTED bool mlirAttributeIsANVFP4Rounding(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool mlirNVFP4RoundingAttrIsStochastic(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_C_DIALECTS_H */
