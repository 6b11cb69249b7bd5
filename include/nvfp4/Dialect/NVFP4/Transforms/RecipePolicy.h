//===- RecipePolicy.h - The recipe policy in MLIR's terms -------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Adapts the recipe's policy (nvfp4/Recipe/Policy.h, plain C++) to the
// passes' role names and operand kinds. Kept out of RecipeUtils.h: the
// policy's top-level namespace `::nvfp4` would make `nvfp4::` ambiguous in
// every file that uses namespace mlir.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEPOLICY_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEPOLICY_H

#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"
#include "nvfp4/Recipe/Policy.h"

namespace mlir {
namespace nvfp4 {
namespace recipe = ::nvfp4::recipe;

/// The policy's view of a role name ("fprop", "dgrad", "wgrad"); none for
/// another string.
std::optional<recipe::Role> parsePolicyRole(llvm::StringRef role);

/// The policy's operand kind of `kind` (an Unknown operand is quantized as
/// an activation) and back.
recipe::OperandKind toPolicyKind(TensorKind kind);
TensorKind fromPolicyKind(recipe::OperandKind kind);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEPOLICY_H
