//===- NVFP4ToReference.h - Bit-exact lowering to upstream ops --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers the nvfp4 dialect to linalg, vector, scf, tensor and arith,
// bit-exact with the reference numerics library (include/nvfp4/Numerics).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOREFERENCE_NVFP4TOREFERENCE_H
#define NVFP4_CONVERSION_NVFP4TOREFERENCE_NVFP4TOREFERENCE_H

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {

#define GEN_PASS_DECL_CONVERTNVFP4TOREFERENCE
#include "nvfp4/Conversion/Passes.h.inc"

/// Converts `!nvfp4.tensor<shape, Rx16>` to its three components
/// (`tensor<shape x i8>` codes, `tensor<scales-shape x i8>` E4M3 bits, `f32`
/// decode scale) and `tensor<... x f4E2M1FN>` / `tensor<... x f8E4M3FN>` to
/// `tensor<... x i8>`. Every other type is kept.
class NVFP4ToReferenceTypeConverter : public TypeConverter {
public:
  NVFP4ToReferenceTypeConverter();
};

/// Options of the lowering patterns.
struct NVFP4ToReferenceOptions {
  /// Lower nvfp4.matmul to dequantize + an f32 contraction instead of the
  /// bit-exact block-scaled GEMM.
  bool fakeQuant = false;
  /// Lower quantize, amax, dequantize, hadamard, rescale and matmul to calls
  /// of libnvfp4_cpu_runtime's precompiled kernels (`kernels=library`)
  /// instead of inline upstream ops (`kernels=inline`).
  bool libraryCalls = true;
};

/// Adds one pattern per nvfp4 op, plus patterns for `arith.bitcast` and
/// `arith.constant` of component tensors (f4E2M1FN / f8E4M3FN), lowering
/// them to upstream dialects with `typeConverter`.
void populateNVFP4ToReferenceConversionPatterns(
    const TypeConverter &typeConverter, RewritePatternSet &patterns,
    const NVFP4ToReferenceOptions &options = {});

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOREFERENCE_NVFP4TOREFERENCE_H
