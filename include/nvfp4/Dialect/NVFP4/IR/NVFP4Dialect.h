//===- NVFP4Dialect.h - NVFP4 dialect ---------------------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The `nvfp4` dialect: NVFP4 tensor type, block and rounding attributes, and
// the quantize / dequantize / matmul / hadamard / rescale / transpose /
// assemble / disassemble operations.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H
#define NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.h.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attributes.h.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsTypes.h.inc"

#define GET_OP_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.h.inc"

namespace mlir {
namespace nvfp4 {

/// Number of elements of a 1D block along the contraction dimension.
inline constexpr int64_t kBlockSize = 16;

/// Transformer Engine's fixed sign vector for the 16x16 Hadamard transform.
llvm::ArrayRef<int8_t> getDefaultHadamardSigns();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H
