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
#include "mlir/IR/BuiltinOps.h"
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

/// Number of elements of an NVFP4 block along the contraction dimension.
inline constexpr int64_t kBlockSize = 16;
/// Number of elements of an MX block (OCP MX v1.0's k).
inline constexpr int64_t kMXBlockSize = 32;

/// Rows and scale columns of one 128x4 atom of the Blackwell block-scaled
/// MMA's scale layout (ScaleLayoutAttr `atoms`).
inline constexpr int64_t kScaleAtomRows = 128;
inline constexpr int64_t kScaleAtomBlocks = 4;

/// Why the scales of a value of `type` cannot be stored in the `atoms`
/// layout, or "" when they can: NVFP4 with 1x16 blocks, rank >= 2, the
/// rows (leading dimensions flattened) a multiple of 128 and K/16 of 4.
std::string getAtomsScaleLayoutBlocker(NVFP4TensorType type);

/// Bits per element of `format`: 4 (E2M1) or 8 (E4M3, E5M2).
int64_t getElementBits(Format format);

/// Transformer Engine's fixed sign vector for the 16x16 Hadamard transform.
llvm::ArrayRef<int8_t> getDefaultHadamardSigns();

/// The number of bytes a static shape of elements of `elementBits` bits (a
/// multiple of 8, or 4 for packed E2M1 codes) occupies, or std::nullopt when
/// a dimension is dynamic or negative or the element count or byte size
/// does not fit in int64_t. Lowerings index with 64-bit arithmetic, so every size they
/// compute is bounded by this.
std::optional<int64_t> getCheckedByteSize(llvm::ArrayRef<int64_t> shape,
                                          int64_t elementBits);

/// Prints a shape as `AxBxC`, dynamic dimensions as `?`.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// Checks what every nvfp4 lowering requires of its input module and emits
/// one error, with the offending op's location, at the first violation:
/// - no nested `builtin.module` (the lowerings create their kernels,
///   helpers and runtime declarations in the top-level module);
/// - no value, block argument or function signature whose type holds an
///   NVFP4 tensor type inside another type (`tensor<4x!nvfp4.tensor<..>>`,
///   `memref<..x!nvfp4.tensor<..>>`, ...): an NVFP4 tensor is a value of
///   three components and cannot be an element.
/// `passName` prefixes the message.
LogicalResult checkLowerableModule(ModuleOp module, llvm::StringRef passName);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_IR_NVFP4DIALECT_H
