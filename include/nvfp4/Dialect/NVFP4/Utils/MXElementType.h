//===- MXElementType.h - The numerics element type of a format --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The element type of the reference library's MX numerics
// (nvfp4/Numerics/MX.h) that a block-scaled format of `!nvfp4.tensor`
// stores: what compile-time folding passes to nvfp4::mx and, as its
// integer value, what the CPU lowering passes to libnvfp4_cpu_runtime's
// MX entry points (0 E2M1, 1 E4M3, 2 E5M2).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_MXELEMENTTYPE_H
#define NVFP4_DIALECT_NVFP4_UTILS_MXELEMENTTYPE_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Numerics/MX.h"

#include "llvm/Support/ErrorHandling.h"

namespace mlir::nvfp4 {

/// The element type of `format` (E2M1 for NVFP4 and MXFP4).
inline ::nvfp4::mx::ElementType getMXElementType(Format format) {
  switch (format) {
  case Format::NVFP4:
  case Format::MXFP4:
    return ::nvfp4::mx::ElementType::E2M1;
  case Format::MXFP8E4M3:
    return ::nvfp4::mx::ElementType::E4M3;
  case Format::MXFP8E5M2:
    return ::nvfp4::mx::ElementType::E5M2;
  }
  llvm_unreachable("unknown format");
}

} // namespace mlir::nvfp4

#endif // NVFP4_DIALECT_NVFP4_UTILS_MXELEMENTTYPE_H
